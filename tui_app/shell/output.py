"""What the shell commands share: exit codes, the environment and its client, output
formats (plain aligned tables with personal data masked, JSON, XML, CSV) and the one-line
error messages. No Textual or Rich here."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel

OK, REFUSED, USAGE, UNREACHABLE, INTERRUPTED = 0, 1, 2, 3, 130


class Usage(Exception):
    """Bad usage or bad local input: nothing was sent. One problem per entry."""

    def __init__(self, *problems: str) -> None:
        super().__init__("; ".join(problems))
        self.problems = list(problems)


def say(message: str) -> None:
    print(f"producer-tui: {message}", file=sys.stderr)


def warn(problems: Iterable[tuple[str, str]]) -> None:
    for path, message in problems:
        say(f"warning: {path}: {message}" if path else f"warning: {message}")


def out(text: str = "") -> None:
    sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
    sys.stdout.flush()


def output_format(args: argparse.Namespace) -> str:
    """The asked format, or table on a terminal and json otherwise."""
    chosen = getattr(args, "format", None)
    if chosen:
        return chosen
    return "table" if sys.stdout.isatty() else "json"


# --- environment and client -------------------------------------------------------------


def environment(args: argparse.Namespace):
    """(name, Environment) of ``--env`` or the active one; ``ConfigError`` otherwise."""
    from tui_app.config import load_config

    return load_config().chosen(getattr(args, "env", None))


_LAST: dict[str, Any] = {}
"""The last answer of the service in this run, as received (an ``httpx.Response``)."""


@asynccontextmanager
async def client_of(env) -> AsyncIterator[Any]:
    """The same client the TUI uses (``tui_app.client.factory.connect``). Its answers are
    kept as received, so that ``--format json`` (or ``xml``, when the service answered in
    XML) prints exactly what the service said: the models the client returns leave out
    members sent as ``null`` where they mean an empty list, and fill in what the client
    knows (the order number it asked for)."""
    from tui_app.client.factory import connect

    _LAST.clear()
    connection = await connect(env)

    async def keep(response) -> None:
        await response.aread()
        _LAST["response"] = response

    connection.client.on_response(keep)
    try:
        yield connection.client
    finally:
        await connection.aclose()


def validated(
    model: type[BaseModel], data: Any, context: dict | None = None, *, source: Path | None = None
) -> Any:
    """``data`` as ``model``, or :class:`Usage` naming every failing field (after the
    file it came from, if any; nothing is sent); the contract's habits become warnings
    on stderr."""
    from pydantic import ValidationError

    from tui_app.contract.base import warnings
    from tui_app.contract.errors import field_errors

    try:
        value = model.model_validate(data, context=context)
    except ValidationError as exc:
        where = f"{source}: " if source is not None else ""
        raise Usage(*(f"{where}{error}" for error in field_errors(exc))) from None
    warn(warnings(model, data, context))
    return value


# --- formats ------------------------------------------------------------------------------


def _raw(kind: str) -> Any:
    """The service's last answer if it was a success in ``kind`` (json or xml)."""
    response = _LAST.get("response")
    if response is None or not response.is_success:
        return None
    return response if kind in response.headers.get("Content-Type", "") else None


def answer_dict(model: Any) -> Any:
    """The service's answer as it sent it, every member it carried (unknown ones too) and
    none it did not; from ``model`` when the service answered in XML."""
    raw = _raw("json")
    if raw is not None:
        try:
            return json.loads(raw.content)
        except ValueError:  # the client read it, so this does not happen
            pass
    return model.model_dump(mode="json", exclude_unset=True)


def json_text(model: Any, indent: int | None = 2) -> str:
    return json.dumps(answer_dict(model), indent=indent, ensure_ascii=False)


def xml_text(model: Any, root: str) -> str:
    """The answer as XML: as received when the service answered in XML, else written with
    the interface's conventions under ``root``."""
    raw = _raw("xml")
    if raw is not None:
        return raw.content.decode("utf-8", errors="replace")
    from tui_app.client.errors import BadResponse
    from tui_app.wire.errors import WireError
    from tui_app.wire.xml import dump_xml_dict

    try:
        return dump_xml_dict(root, answer_dict(model)).decode("utf-8")
    except WireError as exc:  # the service's answer, not local input (QA: it said exit 2)
        raise BadResponse(
            f"the answer cannot be shown as XML: {exc}; --format json shows it"
        ) from None


def emit(model: Any, fmt: str, root: str, table: Any) -> None:
    """Write an answer: ``table`` is a callable giving the table text."""
    if fmt == "json":
        out(json_text(model))
    elif fmt == "xml":
        out(xml_text(model, root))
    else:
        out(table())


def mask(name: str, value: Any, reveal: bool) -> str:
    from tui_app.pii import mask_value

    return cell(mask_value(name, value, reveal))


def cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return " ".join(str(value).split())


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """An aligned plain-text table (cells already text)."""
    rows = [[cell(c) for c in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *map(line, rows)])


def key_values(pairs: Iterable[tuple[str, Any]]) -> str:
    pairs = [(k, cell(v)) for k, v in pairs if v not in (None, "", [], {})]
    width = max((len(k) for k, _ in pairs), default=0)
    return "\n".join(f"{k + ':':<{width + 1}} {v}" for k, v in pairs)


def unknown_members(model: Any, reveal: bool, prefix: str = "") -> list[tuple[str, Any]]:
    """Members no model knows, anywhere in the answer, as (path, masked value)."""
    from pydantic import BaseModel

    from tui_app.pii import mask_tree

    found: list[tuple[str, Any]] = []
    for key, value in (model.model_extra or {}).items():
        found.append((f"{prefix}{key}", mask_tree({key: value}, reveal)[key]))
    for name in type(model).model_fields:
        value = getattr(model, name)
        items = value if isinstance(value, list) else [value]
        for i, item in enumerate(items):
            if isinstance(item, BaseModel) and getattr(item, "model_extra", None) is not None:
                where = f"{prefix}{name}[{i}]." if isinstance(value, list) else f"{prefix}{name}."
                found += unknown_members(item, reveal, where)
    return found


def write_csv(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """CSV on stdout, each cell made safe as the export files make theirs."""
    from tui_app.export_files import _cell

    writer = csv.writer(sys.stdout)
    writer.writerow(headers)
    writer.writerows([_cell(c) for c in row] for row in rows)
    sys.stdout.flush()
