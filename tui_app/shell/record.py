"""``producer-tui record agent|agency NPN``: the full registry record (NiprFullInfo)."""

from __future__ import annotations

import argparse
import asyncio

from tui_app.shell.output import OK, emit, environment, output_format, validated


def run(args: argparse.Namespace) -> int:
    return read_record(args, args.kind, args.npn, output_format(args))


def read_record(args: argparse.Namespace, kind: str, npn: str, fmt: str) -> int:
    from tui_app.contract.search import FullRecordQuery

    query = validated(FullRecordQuery, {"Npn": npn, "CostCenter": args.cost_center})
    _, env = environment(args)
    answer = asyncio.run(_read(env, kind, query))
    emit(answer, fmt, "FullRecordResponse", lambda: text(answer, args.reveal))
    return OK


async def _read(env, kind: str, query):
    from tui_app.shell.output import client_of

    async with client_of(env) as client:
        read = client.get_agent if kind == "agent" else client.get_agency
        return await read(query.Npn, query.CostCenter)


def text(answer, reveal: bool) -> str:
    from tui_app.shell.output import key_values, mask, table, unknown_members

    info = answer.NiprFullInfo
    bio = info.Biographic
    name = None
    if bio is not None:
        name = bio.FirmName or " ".join(
            p for p in (bio.FirstName, bio.MiddleName, bio.LastName, bio.Suffix) if p
        )
    parts = [
        key_values(
            [
                ("NPN", info.Producer.Npn),
                ("Entity", info.Producer.EntityType),
                ("Name", name),
                ("SSN", mask("Ssn", bio.Ssn, reveal) if bio else None),
                ("FEIN", mask("Fein", bio.Fein, reveal) if bio else None),
                ("Born", mask("DateOfBirth", bio.DateOfBirth, reveal) if bio else None),
                ("Domicile", bio.DomicileState if bio else None),
                ("Last updated", info.LastUpdated),
            ]
        )
    ]
    addresses = info.AddressInfo.Addresses if info.AddressInfo else []
    if addresses:
        parts.append(
            "\nADDRESSES\n"
            + table(
                ["TYPE", "LINE 1", "CITY", "STATE", "ZIP", "UPDATED"],
                [[a.Type, a.Line1, a.City, a.State, a.Zip, a.DateUpdated] for a in addresses],
            )
        )
    licenses = info.LicenseData.Licenses if info.LicenseData else []
    if licenses:
        parts.append(
            "\nLICENSES\n"
            + table(
                ["STATE", "NUMBER", "CLASS", "RES", "ACTIVE", "ISSUED", "EXPIRES", "CE", "LINES"],
                [
                    [
                        lic.State,
                        lic.LicenseNumber,
                        lic.LicenseClass,
                        lic.Residency,
                        lic.Active,
                        lic.IssueDate,
                        lic.ExpirationDate,
                        lic.CeCompliance,
                        ", ".join(
                            f"{loa.Name or loa.Code} ({loa.Status})"
                            if loa.Status
                            else str(loa.Name or loa.Code)
                            for loa in lic.LinesOfAuthority
                        ),
                    ]
                    for lic in licenses
                ],
            )
        )
        appointments = [(lic.State, a) for lic in licenses for a in lic.Appointments]
        if appointments:
            parts.append(
                "\nAPPOINTMENTS\n"
                + table(
                    ["STATE", "COMPANY", "NAIC", "LINE", "STATUS", "DATE"],
                    [
                        [s, a.CompanyName, a.NaicCode, a.LineOfAuthority, a.Status, a.StatusDate]
                        for s, a in appointments
                    ],
                )
            )
        actions = [(lic.State, a) for lic in licenses for a in lic.RegulatoryActions]
        if actions:
            parts.append(
                "\nREGULATORY ACTIONS\n"
                + table(
                    ["STATE", "ORIGIN", "REASON", "DISPOSITION", "DATE"],
                    [[s, a.Origin, a.Reason, a.Disposition, a.DateOfAction] for s, a in actions],
                )
            )
    if info.Organization:
        parts.append(
            "\nORGANIZATION\n"
            + table(
                ["NPN", "NAME", "TYPE", "ROLE", "STATE", "SINCE"],
                [
                    [o.Npn, o.Name, o.EntityType, o.Role, o.State, o.StartDate]
                    for o in info.Organization
                ],
            )
        )
    other = unknown_members(answer, reveal)
    if other:
        parts.append("\nOTHER MEMBERS\n" + key_values(other))
    return "\n".join(parts)
