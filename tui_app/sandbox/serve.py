"""``producer-tui sandbox serve``: the sandbox on a port, under uvicorn.

Uvicorn handles Ctrl-C and SIGTERM by finishing in-flight requests and running the app's
lifespan shutdown, which stops the bulk worker and closes the database.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path

import uvicorn

from tui_app.sandbox.app import Sandbox, SandboxSettings, create_app
from tui_app.sandbox.dialect import wrap


def serve(
    *,
    host: str,
    port: int,
    db: Path,
    seed: int,
    size: int,
    token: str | None,
    fail_rate: float,
    bulk_fail_rate: float | None = None,
    max_bulk_records: int = 1000,
    latency_ms: int,
    step_seconds: float,
    today: date | None,
    import_rules: Path | None,
    dialect: str = "native",
    stop_with: int | None = None,
) -> int:
    settings = SandboxSettings(
        db_path=db,
        seed=seed,
        size=size,
        token=token,
        max_bulk_records=max_bulk_records,
        fail_rate=fail_rate,
        bulk_fail_rate=bulk_fail_rate,
        latency_ms=latency_ms,
        step_seconds=step_seconds,
        import_rules=import_rules,
        today=today,
    )
    try:
        sandbox = open_sandbox(settings)
    except ValueError as exc:
        print(f"producer-tui sandbox serve: {exc}", file=sys.stderr)
        return 2
    app = create_app(sandbox)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio turns Nagle off only for sockets whose protocol says
    # TCP, and without that every answer waits ~40 ms for a delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        print(f"producer-tui: cannot listen on {host}:{port}: {exc.strerror}", file=sys.stderr)
        return 2
    server = _Server(uvicorn.Config(wrap(app, dialect), log_level="warning"))
    return asyncio.run(_run(server, sock, host, stop_with))


def open_sandbox(settings: SandboxSettings) -> Sandbox:
    """The sandbox over ``settings``, or ``ValueError`` with one line saying what is wrong
    with its database path or its import rules file."""
    rules = settings.import_rules
    if rules is not None and not rules.is_file():
        raise ValueError(f"--import-rules: {rules} is not a readable file")
    db = Path(settings.db_path)
    if db.is_dir():
        raise ValueError(f"--db: {db} is a folder; name a database file (it is created if missing)")
    try:
        return Sandbox(settings)
    except sqlite3.DatabaseError as exc:
        if db.exists() and "not a database" in str(exc):
            raise ValueError(f"--db: {db} is not a SQLite database") from None
        raise ValueError(f"--db: cannot open {db}: {exc}") from None
    except OSError as exc:
        where = exc.filename or db
        raise ValueError(f"--db: cannot create {where}: {exc.strerror}") from None
    except (ValueError, UnicodeDecodeError) as exc:  # the import rules file
        raise ValueError(f"--import-rules: {exc}") from None


class _Server(uvicorn.Server):
    """Uvicorn re-raises SIGINT/SIGTERM after its graceful shutdown, which ends the
    process with a signal status; handling them here lets a clean stop exit 0."""

    @contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def _stop_with(pid: int, server: uvicorn.Server) -> None:
    """Stop once the process ``pid`` is gone (a bulk worker killed outright): a sandbox
    served for one process must not outlive it, holding a port. The pid is given, not
    read as this process's parent: a worker killed while this one still started up would
    have left init as the parent."""
    while not server.started:  # a stop asked for mid start-up ends uvicorn with a traceback
        await asyncio.sleep(0.05)
    while alive(pid):
        await asyncio.sleep(0.5)
    server.should_exit = True


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's: it exists
        return True
    return True


async def _run(
    server: uvicorn.Server, sock: socket.socket, host: str, stop_with: int | None
) -> int:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, setattr, server, "should_exit", True)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    watch = asyncio.create_task(_stop_with(stop_with, server)) if stop_with is not None else None
    while not server.started and not task.done():
        await asyncio.sleep(0.02)
    if server.started:
        port = sock.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        print(
            f"Sandbox serving all five groups at http://{shown}:{port}  "
            f"(OpenAPI: /openapi.json; Ctrl-C stops)",
            flush=True,
        )
    await task
    if watch is not None:
        watch.cancel()
    return 0 if server.started else 1
