"""``producer-tui order submit|status|list``: file orders, follow them, list the book.

Orders filed here go into the same tracking book as the TUI's (``tui_app.tracking``), per
environment. An order that exists already (in the book, or known to the service) is
updated only with ``--update``: interface rule 2 makes a second POST an update.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import asdict
from pathlib import Path

from tui_app.shell.output import (
    OK,
    REFUSED,
    USAGE,
    Usage,
    emit,
    environment,
    out,
    output_format,
    say,
    validated,
)

SUCCESS = frozenset({"APPROVED"})
"""Final statuses that are a success; any other final one (REJECTED, DENIED, CANCELLED)
exits 1."""


def run(args: argparse.Namespace) -> int:
    action = {"submit": _submit, "status": _status, "list": _list}[args.order_action]
    return action(args)


# --- submit ------------------------------------------------------------------------------


def read_order(path: Path) -> dict:
    """An order file as a dict: JSON, or XML with root ``<Order>`` (as the TUI saves
    drafts), told by its suffix or its first character (it may be a pipe). Raises
    ``Usage``."""
    from tui_app.export_files import is_xml, order_values
    from tui_app.wire.errors import regular_file

    try:
        raw = regular_file(path).read_bytes()
    except OSError as exc:
        raise Usage(f"{path}: {exc.strerror or exc}") from None
    try:
        return order_values(raw, xml=is_xml(path, raw))
    except ValueError as exc:
        raise Usage(f"{path}: {exc}") from None


def _submit(args: argparse.Namespace) -> int:
    from tui_app.contract.order import Order

    fmt = output_format(args)
    order = validated(Order, read_order(args.file), source=args.file)
    env_name, env = environment(args)
    answer = asyncio.run(_file(env_name, env, order, args.update))
    if answer is None:
        return USAGE
    emit(answer, fmt, "OrderResponse", lambda: text(answer, args.reveal))
    return OK


async def _file(env_name: str, env, order, update: bool):
    from tui_app.client.errors import NotFound
    from tui_app.shell.output import client_of
    from tui_app.tracking import OrderBook

    num = order.tlq.clientOrderNum
    book = OrderBook()
    try:
        async with client_of(env) as client:
            if not update:
                exists = book.knows(env_name, num)
                if not exists:
                    try:
                        await client.order_status(num)
                        exists = True
                    except NotFound:
                        pass
                if exists:
                    say(
                        f"order {num} exists already: submitting it again UPDATES it; "
                        "add --update to do that (nothing sent)"
                    )
                    return None
            answer = await client.submit_order(order)
        book.record(env_name, answer)
        return answer
    finally:
        book.close()


# --- status ------------------------------------------------------------------------------


def _status(args: argparse.Namespace) -> int:
    from tui_app.contract.order import OrderStatusQuery

    fmt = output_format(args)
    query = validated(OrderStatusQuery, {"order_num": args.order_num})
    if args.watch and args.interval < 0:
        raise Usage("--interval: must be 0 or more")
    env_name, env = environment(args)
    return asyncio.run(_follow(env_name, env, query.order_num, args, fmt))


async def _follow(env_name: str, env, num: str, args: argparse.Namespace, fmt: str) -> int:
    from tui_app.shell.output import client_of, json_text, xml_text
    from tui_app.tracking import OrderBook

    book = OrderBook()
    try:
        async with client_of(env) as client:
            last = None
            while True:
                answer = await client.order_status(num)
                if book.knows(env_name, num):
                    book.update(env_name, answer)
                details = answer.order.orderDetails
                if not args.watch:
                    emit(answer, fmt, "OrderResponse", lambda a=answer: text(a, args.reveal))
                elif details.status != last:
                    last = details.status
                    if fmt == "json":
                        out(json_text(answer, indent=None))
                    elif fmt == "xml":
                        out(xml_text(answer, "OrderResponse"))
                    else:
                        out(_change_line(answer))
                if not args.watch or details.final:
                    return _outcome(details)
                await asyncio.sleep(args.interval)
    finally:
        book.close()


def _change_line(answer) -> str:
    d = answer.order.orderDetails
    note = d.notes[-1].text if d.notes else (d.message or "")
    return "  ".join(
        p for p in (d.statusDate or "", d.clientOrderNum or "", d.status or "?", note) if p
    )


def _outcome(details) -> int:
    if details.final and details.status not in SUCCESS:
        say(f"order {details.clientOrderNum} is {details.status}")
        return REFUSED
    return OK


def text(answer, reveal: bool) -> str:
    from tui_app.shell.output import key_values, mask, table, unknown_members

    d = answer.order.orderDetails
    item = answer.order.itemDetails
    applicant = item.get("firmName") or " ".join(
        str(p) for p in (item.get("firstName"), item.get("lastName")) if p
    )
    parts = [
        key_values(
            [
                ("Order", d.clientOrderNum),
                ("Service number", d.orderNum),
                ("Status", d.status + (" (final)" if d.final else "") if d.status else None),
                ("Status date", d.statusDate),
                ("Updated", "yes: an existing order was updated" if d.updated else None),
                ("Message", d.message),
                ("State", item.get("juris")),
                ("Producer", {"I": "individual", "A": "agency"}.get(item.get("pType"))),
                ("Filing", {"A": "appointment", "T": "termination"}.get(item.get("fType"))),
                ("Applicant", applicant),
                ("Tax id", mask("taxId", item.get("taxId"), reveal)),
                ("Total fee", f"${d.totalFee:.2f}" if "totalFee" in d.model_fields_set else None),
            ]
        )
    ]
    if d.fees:
        parts.append(
            "\nFEES\n"
            + table(
                ["STATE", "DESCRIPTION", "AMOUNT"],
                [[f.state, f.description, f"${f.amount:.2f}"] for f in d.fees],
            )
        )
    if d.notes:
        parts.append(
            "\nNOTES\n" + table(["AT", "STAGE", "NOTE"], [[n.at, n.stage, n.text] for n in d.notes])
        )
    other = [
        (k, v) for k, v in unknown_members(answer, reveal) if not k.startswith("order.itemDetails")
    ]
    if other:
        parts.append("\nOTHER MEMBERS\n" + key_values(other))
    return "\n".join(parts)


# --- list --------------------------------------------------------------------------------


def _list(args: argparse.Namespace) -> int:
    from tui_app.shell.output import table, write_csv
    from tui_app.tracking import OrderBook

    fmt = output_format(args)
    env_name, _ = environment(args)
    book = OrderBook()
    try:
        orders = book.orders(env_name)
    finally:
        book.close()
    if fmt == "json":
        out(json.dumps([asdict(o) for o in orders], indent=2))
        return OK
    headers = [
        "ORDER",
        "STATUS",
        "STATE",
        "FILING",
        "PRODUCER",
        "APPLICANT",
        "FEE",
        "FILED",
        "CHECKED",
    ]
    rows = [
        [
            o.client_order_num,
            o.status,
            o.juris,
            "termination" if o.ftype == "T" else "appointment",
            "agency" if o.ptype == "A" else "individual",
            o.applicant,
            f"{o.total_fee:.2f}",
            o.filed_at,
            o.checked_at,
        ]
        for o in orders
    ]
    if fmt == "csv":
        write_csv(headers, rows)
    elif orders:
        out(table(headers, rows))
    else:
        print(f"no orders filed to environment {env_name} from this machine", file=sys.stderr)
    return OK
