"""``producer-tui search agents|agencies``: the registry's hit lists.

``search agencies --npn N`` reads the firm's full record (``GET /agency?Npn=``): the firm
search has no field for the number (DOMAIN.md), as the TUI's form does.
"""

from __future__ import annotations

import argparse
import asyncio

from tui_app.shell.output import OK, Usage, emit, environment, output_format, validated


def request(args: argparse.Namespace) -> dict:
    """The search request the options describe, by the contract's field names."""
    data: dict = {"CostCenter": args.cost_center}
    if args.search_kind == "agents":
        if args.name is not None:
            data |= {
                "SearchType": "NAME",
                "LastName": args.name,
                "FirstName": args.first,
                "MiddleName": args.middle,
            }
        elif args.ssn is not None:
            data |= {"SearchType": "SSN", "Ssn": args.ssn, "LastName": args.last}
        elif args.npn is not None:
            data |= {"SearchType": "NPN", "Npn": args.npn}
        else:
            data |= {
                "SearchType": "LICENSE",
                "LicenseJurisdiction": args.license[0],
                "LicenseNumber": args.license[1],
            }
        extra = {"--first": args.first, "--middle": args.middle} if args.name is None else {}
        if args.ssn is None:
            extra["--last"] = args.last
    else:
        if args.name is not None:
            data |= {"SearchType": "NAME", "FirmName": args.name, "FirmFein": args.fein}
        elif args.ssn is not None:
            data |= {"SearchType": "SSN", "FirmFein": args.ssn}
        else:
            data |= {
                "SearchType": "LICENSE",
                "LicenseJurisdiction": args.license[0],
                "LicenseNumber": args.license[1],
            }
        extra = {"--fein": args.fein} if args.name is None else {}
    given = [option for option, value in extra.items() if value is not None]
    if given:
        raise Usage(f"{', '.join(given)}: not used by this kind of search")
    return {k: v for k, v in data.items() if v is not None}


def run(args: argparse.Namespace) -> int:
    fmt = output_format(args)
    if args.search_kind == "agencies" and args.npn is not None:
        from tui_app.shell.record import read_record

        if fmt == "csv":
            raise Usage("--format csv: a full record is not a list; use table, json or xml")
        if args.fein is not None:
            raise Usage("--fein: not used by a search by NPN")
        return read_record(args, "agency", args.npn, fmt)
    from tui_app.contract.search import AgencySearch, AgentSearch

    model = AgentSearch if args.search_kind == "agents" else AgencySearch
    query = validated(model, request(args))
    _, env = environment(args)
    answer = asyncio.run(_search(env, query, args.search_kind))
    show(answer, args.search_kind, fmt, args.reveal)
    return OK


async def _search(env, query, kind: str):
    from tui_app.shell.output import client_of

    async with client_of(env) as client:
        if kind == "agents":
            return await client.search_agents(query)
        return await client.search_agencies(query)


def _rows(answer, kind: str) -> tuple[list[str], list[list]]:
    if kind == "agents":
        headers = ["NPN", "FIRST", "MIDDLE", "LAST", "SSN", "RESIDENT", "LICENSES"]
        hits = answer.IndividualsSummaryInfo.Individuals
        return headers, [
            [
                h.Npn,
                h.FirstName,
                h.MiddleName,
                h.LastName,
                ("SsnLast4", h.SsnLast4),
                h.ResidentState,
                " ".join(h.LicenseStates),
            ]
            for h in hits
        ]
    headers = ["NPN", "FIRM", "FEIN", "RESIDENT", "LICENSES"]
    hits = answer.NiprFirmsSummaryInfo.Firms
    return headers, [
        [h.Npn, h.FirmName, ("FeinLast4", h.FeinLast4), h.ResidentState, " ".join(h.LicenseStates)]
        for h in hits
    ]


def summary(answer, hits: int) -> tuple[str, bool]:
    """The line under the table (the hits, whether the service cut the list, its message),
    and whether it says more than the count: then a script reading csv, json or xml must
    hear it too, or it takes a cut list for the whole."""
    from tui_app.words import counted

    entity = answer.AdditionalInfo.Entity if answer.AdditionalInfo else None
    note = ""
    if entity is not None and entity.Truncated:
        note += " (the list was cut by the service)"
    if entity is not None and entity.Message:
        note += f"; {entity.Message}"
    return counted(hits, "hit") + note, bool(note)


def show(answer, kind: str, fmt: str, reveal: bool) -> None:
    from tui_app.shell.output import key_values, mask, say, table, unknown_members, write_csv

    headers, rows = _rows(answer, kind)
    note, news = summary(answer, len(rows))
    if fmt != "table" and news:
        say(note)  # on stderr: stdout stays the data alone
    if fmt == "csv":
        write_csv(headers, [[c[1] if isinstance(c, tuple) else c for c in r] for r in rows])
        return

    def text() -> str:
        shown = [[mask(c[0], c[1], reveal) if isinstance(c, tuple) else c for c in r] for r in rows]
        parts = [table(headers, shown), note]
        other = unknown_members(answer, reveal)
        if other:
            parts.append("\nother members:\n" + key_values(other))
        return "\n".join(parts)

    root = "AgentSearchResponse" if kind == "agents" else "AgencySearchResponse"
    emit(answer, fmt, root, text)
