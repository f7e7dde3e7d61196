"""``producer-tui export agent|agency PROFILE_KEY``: data sets of a profile, shown, or
written with the TUI's own writers (``tui_app.export_files``): one JSON file, or one CSV
file per data set."""

from __future__ import annotations

import argparse
import asyncio
import re

from tui_app.shell.output import OK, Usage, emit, environment, out, output_format, validated


def request(args: argparse.Namespace) -> dict:
    from tui_app.contract.export import AGENCY_DATA_SETS, AGENT_DATA_SETS

    if args.data_sets is not None:
        names = [n.strip() for n in args.data_sets.split(",") if n.strip()]
        if not names:
            raise Usage("--data-sets: name at least one data set, or use --all")
    else:
        names = list(AGENT_DATA_SETS if args.kind == "agent" else AGENCY_DATA_SETS)
    return {"profileKey": args.profile_key, "dataSets": names}


def run(args: argparse.Namespace) -> int:
    from tui_app.contract.export import AgencyExportRequest, AgentExportRequest

    fmt = output_format(args)
    if args.out is not None and args.out.suffix.lower() != ".json":
        raise Usage("--out: name a .json file (or use --csv DIR for CSV files)")
    if args.out is not None and args.out.is_dir():  # before anything is asked of the service
        raise Usage(f"--out: {args.out} is a folder: name a file")
    if args.csv is not None and args.csv.exists() and not args.csv.is_dir():
        raise Usage(f"--csv: {args.csv} is not a folder")
    model = AgentExportRequest if args.kind == "agent" else AgencyExportRequest
    query = validated(model, request(args))
    _, env = environment(args)
    answer = asyncio.run(_export(env, args.kind, query))
    if args.out is not None or args.csv is not None:
        from tui_app.export_files import export_paths, save_export

        if args.out is not None:
            path = args.out
        else:
            folder = args.csv
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            path = folder / (re.sub(r"[^A-Za-z0-9._-]", "_", args.profile_key) + ".csv")
        try:
            there = [p for p in export_paths(answer, path) if p.exists()]
        except ValueError as exc:  # a folder where a CSV file would go
            raise Usage(f"--csv: {exc}") from None
        if there and not args.force:  # an earlier export, perhaps of other data
            raise Usage(f"{there[0]} exists: add --force to replace it")
        for written in save_export(answer, path):
            out(str(written))
        return OK
    emit(answer, fmt, "ExportResponse", lambda: text(answer, args.reveal))
    return OK


async def _export(env, kind: str, query):
    from tui_app.shell.output import client_of

    async with client_of(env) as client:
        send = client.export_agent if kind == "agent" else client.export_agency
        return await send(query)


def text(answer, reveal: bool) -> str:
    from tui_app.pii import mask_tree
    from tui_app.shell.output import key_values, table, unknown_members

    parts = []
    for ds in answer.dataSets or []:
        count = len(ds.records)
        head = f"{ds.dataSetType or ds.name} ({count} record{'s' if count != 1 else ''})"
        if not ds.records:
            parts.append(head)
            continue
        records = [mask_tree(r, reveal) for r in ds.records]
        columns = list(dict.fromkeys(k for r in records for k in r))
        parts.append(
            head + "\n" + table(columns, [[r.get(c) for c in columns] for r in records]) + "\n"
        )
    if not parts:
        parts.append("no data sets")
    other = unknown_members(answer, reveal)
    if other:
        parts.append("OTHER MEMBERS\n" + key_values(other))
    return "\n".join(parts).rstrip()
