"""One SQLite connection shared by threads behind a lock: the bulk journal's, the watch
store's and the sandbox's.

SQLite serialises writers anyway and every transaction here is short, so one connection
and a lock are simpler than a pool. WAL lets other processes (the CLI beside the TUI, a
detached bulk worker) read while one writes, and the busy timeout lets them wait their
turn to write instead of failing at once.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tui_app.private_files import private_folder, touch_private


class UnusableDatabase(OSError):
    """One of our database files cannot be used; the message names it and says what to do
    (an ``OSError``, so every caller that reports a file it cannot use reports this)."""


def unusable(what: str, path: Path, exc: BaseException) -> str:
    """Why ``what`` (the bulk journal, the order book, ...) at ``path`` cannot be used,
    and what to do about it: one line for the CLI and the TUI alike."""
    why = getattr(exc, "strerror", None) or str(exc)
    if isinstance(exc, IsADirectoryError):
        hint = "move the folder aside and run again to start a new one"
    elif isinstance(exc, sqlite3.DatabaseError) and "readonly" not in why:
        hint = f"it is damaged or is not {what}: move it aside and run again to start a new one"
    else:
        hint = "check that its folder exists and is writable"
    return f"cannot use {what} {path}: {why}; {hint}"


class LockedConnection:
    """Opens ``path`` in WAL mode. Raises ``sqlite3.Error`` (the connection closed) when
    the file cannot be used, and ``OSError`` when it cannot be opened at all."""

    def __init__(self, path: str | Path, *, busy_timeout_ms: int = 10_000) -> None:
        self.conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.conn.row_factory = sqlite3.Row
        self.lock = threading.RLock()
        try:
            with self.lock:
                self.conn.execute("PRAGMA journal_mode=WAL")
                # NORMAL: a commit survives a killed process (not a power cut).
                self.conn.execute("PRAGMA synchronous=NORMAL")
                self.conn.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        except sqlite3.Error:
            self.conn.close()
            raise

    @classmethod
    def open_private(
        cls, path: Path, *, ours: bool, migrate: Callable[[LockedConnection], None]
    ) -> LockedConnection:
        """A file of the user's data: its folder 0700 (created, if ``ours``), the file
        0600, then ``migrate`` brings its schema up to date (the connection is closed again
        if that fails). Raises ``OSError`` or ``sqlite3.Error``."""
        private_folder(path.parent, ours=ours)
        touch_private(path)
        db = cls(path)
        try:
            migrate(db)
        except BaseException:
            db.close()
            raise
        return db

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: committed on success, rolled back on error."""
        with self.lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[sqlite3.Row]:
        with self.lock:
            return self.conn.execute(sql, params).fetchall()

    def query_one(
        self, sql: str, params: Sequence[Any] | dict[str, Any] = ()
    ) -> sqlite3.Row | None:
        with self.lock:
            return self.conn.execute(sql, params).fetchone()

    def version(self) -> int:
        """The schema version the file says it has (``PRAGMA user_version``)."""
        with self.lock:
            return self.conn.execute("PRAGMA user_version").fetchone()[0]

    def close(self) -> None:
        with self.lock:
            self.conn.close()
