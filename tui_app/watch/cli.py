"""``producer-tui watch``: add, remove, list, check; for people and for cron.

Exit status of ``check``: 0 nothing needs attention, 1 something does, 2 bad usage, input,
store or config, 3 the check could not be done: the service could not be reached, refused
the credentials or answered something unreadable (the check is kept: the next run carries on with the records it had not read), 130 interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import sys
from datetime import date
from pathlib import Path

from tui_app.client.errors import ClientError
from tui_app.config import ConfigError, Environment
from tui_app.private_files import open_private, safe_cell
from tui_app.shell.output import OK, REFUSED, UNREACHABLE, USAGE, out, table
from tui_app.watch.roster import (
    Entry,
    RosterError,
    added_words,
    npn_of,
    parse_npns,
    read_file,
)
from tui_app.watch.store import StoreError, WatchDb, WatchStore
from tui_app.words import counted

COLUMNS = ("kind", "severity", "npn", "name", "state", "license", "text")
SHOWN_PROBLEMS = 20


class _Usage(Exception):
    pass


def _say(message: str) -> None:
    print(f"producer-tui watch: {message}", file=sys.stderr)


def main(args: argparse.Namespace) -> int:
    from tui_app.shell.output import environment

    actions = {"add": _add, "remove": _remove, "list": _list, "check": _check}
    db = WatchDb()
    try:
        name, env = environment(args)
        return actions[args.watch_command](db, name, env, args)
    except RosterError as exc:
        for problem in exc.problems:
            _say(problem)
        return USAGE
    except (_Usage, StoreError, ConfigError) as exc:
        _say(str(exc))
        return USAGE
    except ClientError as exc:  # connecting (the embedded sandbox, credentials)
        _say(exc.message)
        return UNREACHABLE
    except BrokenPipeError:
        raise  # piped into head: tui_app.cli.main ends quietly
    except OSError as exc:
        _say(f"{exc.filename + ': ' if exc.filename else ''}{exc.strerror or exc}")
        return USAGE
    finally:
        db.close()


def _add(db: WatchDb, name: str, env: Environment, args: argparse.Namespace) -> int:
    entries: list[Entry] = []
    if args.profile_key and len(args.npns) != 1:
        raise _Usage("--profile-key goes with exactly one NPN")
    if args.npns:
        entries += parse_npns(args.npns)
        if args.profile_key:
            entries = [Entry(entries[0].npn, args.profile_key.strip())]
    if args.file:
        entries += read_file(args.file)
    if args.demo:
        entries += [Entry(n) for n in asyncio.run(_demo(env))]
    if not entries:
        raise _Usage("give NPNs, --file FILE or --demo")
    added = asyncio.run(db.call(WatchStore.add, name, entries))
    size = asyncio.run(db.call(WatchStore.roster_size, name))
    out(f"{added_words(entries, added)}; {size} on the roster of {name}")
    return OK


async def _demo(env: Environment) -> list[int]:
    if not env.embedded:
        raise _Usage("--demo needs the embedded sandbox (its demo roster)")
    from tui_app.client.factory import connect

    connection = await connect(env)
    assert connection.sandbox is not None  # an embedded environment has one
    try:
        return await asyncio.to_thread(connection.sandbox.registry.demo_roster)
    finally:
        await connection.aclose()


def _remove(db: WatchDb, name: str, env: Environment, args: argparse.Namespace) -> int:
    npns = [npn_of(value, f"NPN {value}") for value in args.npns]
    removed = asyncio.run(db.call(WatchStore.remove, name, npns))
    out(f"{removed} removed from the roster of {name}")
    return OK


def _list(db: WatchDb, name: str, env: Environment, args: argparse.Namespace) -> int:
    rows = asyncio.run(db.call(WatchStore.roster, name))
    fmt = args.format or ("table" if sys.stdout.isatty() else "json")
    data = [(r.npn, r.kind or "", r.profile_key or "", r.name or "") for r in rows]
    if fmt == "json":
        out(
            json.dumps(
                [
                    dict(zip(("npn", "kind", "profileKey", "name"), row, strict=True))
                    for row in data
                ],
                indent=2,
            )
        )
    elif fmt == "csv":
        writer = csv.writer(sys.stdout)
        writer.writerow(["NPN", "Kind", "ProfileKey", "Name"])
        writer.writerows([safe_cell(c) for c in row] for row in data)
    else:
        out(
            table(["NPN", "KIND", "PROFILE KEY", "NAME"], data)
            if data
            else f"the roster of {name} is empty"
        )
    return OK


def _check(db: WatchDb, name: str, env: Environment, args: argparse.Namespace) -> int:
    from tui_app.private_files import can_write_in
    from tui_app.watch.check import CheckSettings

    days = env.watch_days if args.days is None else args.days
    if not 0 <= days <= 3650:
        raise _Usage("--days must be between 0 and 3650")
    rate = env.watch_rate if args.rate is None else args.rate
    if rate < 0:
        raise _Usage("--rate must be 0 or more")
    report: Path | None = args.report
    if report is not None:  # refused now, not after a check of minutes
        if report.is_dir():
            raise _Usage(f"--report {report} is a folder: give the report's file name")
        if not report.parent.is_dir():
            raise _Usage(f"--report {report}: there is no folder {report.parent}")
        if not can_write_in(report.parent):
            raise _Usage(f"--report {report}: the folder {report.parent} is not writable")
        if report.exists() and not args.force:
            raise _Usage(f"{report} exists: add --force to replace it")
    if asyncio.run(db.call(WatchStore.roster_size, name)) == 0:
        raise _Usage(f"the roster of {name} is empty: add NPNs with `producer-tui watch add`")
    today = args.today or env.today or date.today()
    settings = CheckSettings(days=days, rate=rate, concurrency=args.concurrency)
    try:
        outcome = asyncio.run(_run(db, name, env, today, settings))
    except KeyboardInterrupt:
        _say("interrupted: run the check again to carry on")
        return 130
    check = outcome.check
    findings = asyncio.run(db.call(WatchStore.findings, check.id))
    if report is not None:
        with open_private(report, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(COLUMNS)
            writer.writerows([safe_cell(row[c]) for c in COLUMNS] for row in findings)
    fmt = args.format or ("table" if sys.stdout.isatty() else "json")
    if fmt == "json":
        out(
            json.dumps(
                {
                    "check": {
                        "id": check.id,
                        "env": name,
                        "today": check.today,
                        "days": check.days,
                        "state": check.state,
                        "producers": check.total,
                        "read": check.read,
                        "failed": check.failed,
                    },
                    "findings": [{c: row[c] for c in COLUMNS} for row in findings],
                },
                indent=2,
            )
        )
    elif findings:
        out(table([c.upper() for c in COLUMNS], [[row[c] for c in COLUMNS] for row in findings]))
    _say(
        f"check {check.id} of {name}: {check.read} of {check.total} producers read as of "
        f"{check.today}, {len(findings)} finding{'s' * (len(findings) != 1)}"
    )
    for npn, error in asyncio.run(db.call(WatchStore.failures, check.id, SHOWN_PROBLEMS)):
        _say(f"NPN {npn}: {error}")
    if outcome.unreachable or check.pending or check.failed:
        if check.pending:
            _say(
                f"{counted(check.pending, 'producer')} not read yet ({check.message}); "
                "run the check again to carry on"
            )
        return UNREACHABLE
    return REFUSED if findings else OK


async def _run(db: WatchDb, name: str, env: Environment, today: date, settings):
    from tui_app.client.factory import connect
    from tui_app.watch.check import run_check

    connection = await connect(env)
    progress = _Progress() if sys.stderr.isatty() else None
    try:
        return await run_check(
            db, connection.client, name, today=today, settings=settings, on_progress=progress
        )
    finally:
        if progress is not None:
            progress.end()
        await connection.aclose()


class _Progress:
    """One line on a terminal, redrawn at most five times a second."""

    def __init__(self) -> None:
        import time

        self._time = time.monotonic
        self._last = 0.0

    def __call__(self, p) -> None:
        now = self._time()
        if now - self._last < 0.2 and p.read + p.failed < p.total:
            return
        self._last = now
        sys.stderr.write(
            f"\rchecking: {p.read + p.failed} of {p.total} read, {p.findings} "
            f"findings, {p.per_second:.0f}/s "
        )
        sys.stderr.flush()

    def end(self) -> None:
        sys.stderr.write("\n")
