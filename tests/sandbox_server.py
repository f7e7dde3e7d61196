"""The sandbox served on a loopback port, as the tests use it."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tui_app.config import GROUP_PREFIXES
from tui_app.sandbox.process import ServedSandbox, served

TODAY = "2026-11-21"

DIALECTS = ("native", "minimal")
DIALECT = "native"
"""The dialect :func:`serve` starts the sandbox in; tests/conftest.py sets it for each of
the dialects an integration test runs against."""


@dataclass
class Server(ServedSandbox):
    dialect: str = "native"
    """The dialect it answers in."""

    @property
    def urls(self) -> dict[str, str]:
        return {group: self.url + prefix for group, prefix in GROUP_PREFIXES.items()}

    def stop(self, sig: int = signal.SIGTERM) -> int:  # type: ignore[override]
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout=20)


@contextmanager
def serve(db: Path, *args: str) -> Iterator[Server]:
    """A small registry (300 individuals) on a fixed date, in :data:`DIALECT`, plus
    ``args``."""
    given = "--dialect" in args
    dialect = args[args.index("--dialect") + 1] if given else DIALECT
    extra = () if given else ("--dialect", dialect)
    with served(db, "--size", "300", "--today", TODAY, *extra, *args) as sandbox:
        yield Server(sandbox.url, sandbox.process, sandbox.startup_seconds, dialect=dialect)
