"""``producer-tui profile import|check FILE.xml``: one agent or agency profile document
(the kind from its root element, ``<Agent>`` or ``<Agency>``), validated as the XML
document it is before anything is sent; ``check`` sends nothing."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from tui_app.shell.output import OK, REFUSED, Usage, emit, environment, output_format, say


def load(path: Path):
    """(kind, validated record) of a profile file; ``Usage`` naming every problem."""
    from tui_app.contract.profile_sets import RECORD_MODELS
    from tui_app.export_files import read_profile
    from tui_app.shell.output import validated

    if path.is_dir():
        raise Usage(f"{path}: is a folder, not a profile document")
    try:
        kind, data = read_profile(path)
    except UnicodeDecodeError:
        raise Usage(f"{path}: is not UTF-8 text") from None
    except OSError as exc:
        raise Usage(f"{path}: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:  # WireError is a ValueError
        raise Usage(f"{path}: {exc}") from None
    return kind, validated(RECORD_MODELS[kind], data, context={"format": "xml"}, source=path)


def run(args: argparse.Namespace) -> int:
    fmt = output_format(args)
    kind, record = load(args.file)
    if args.profile_action == "check":
        return _check(args, kind, record, fmt)
    _, env = environment(args)
    answer = asyncio.run(_import(env, kind, record))
    emit(answer, fmt, "ImportResult", lambda: _text(answer, kind, record))
    if not answer.Success:
        for line in (answer.Validations or "").splitlines():
            if line.strip():
                say(line.strip())
        say(
            f"the {kind} profile {record.ProfileKey} was refused"
            + (f": {answer.Message}" if answer.Message else "")
        )
        return REFUSED
    return OK


async def _import(env, kind: str, record):
    from tui_app.shell.output import client_of

    async with client_of(env) as client:
        send = client.import_agent if kind == "agent" else client.import_agency
        return await send(record)


def _text(answer, kind: str, record) -> str:
    from tui_app.shell.output import key_values

    return key_values(
        [
            ("Profile", f"{kind} {record.ProfileKey}"),
            ("Success", answer.Success),
            ("Message", answer.Message),
            ("Validations", "; ".join((answer.Validations or "").splitlines())),
        ]
    )


def _check(args: argparse.Namespace, kind: str, record, fmt: str) -> int:
    from tui_app.shell.output import out

    if fmt == "json":
        out(record.model_dump_json(indent=2, exclude_none=True))
    elif fmt == "xml":
        from tui_app.export_files import profile_xml

        out(profile_xml(kind, record).decode("utf-8"))
    else:
        out(f"{args.file}: a valid {kind} profile, ProfileKey {record.ProfileKey} (nothing sent)")
    return OK
