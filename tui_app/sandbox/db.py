"""The sandbox's SQLite database: one file in WAL mode, shared by all five groups.

Each module owns its tables and declares them in a ``SCHEMA`` string. One connection is
shared by the app's threads behind a lock (:mod:`tui_app.locked_sqlite`): requests are
short, and WAL lets a second process (a CLI, a test) read alongside.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tui_app.locked_sqlite import LockedConnection


class Database(LockedConnection):
    def __init__(self, path: str | Path, schemas: tuple[str, ...] = ()) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            _create_private(Path(self.path))
        super().__init__(self.path, busy_timeout_ms=5000)
        with self.lock:
            self.conn.execute("PRAGMA foreign_keys=ON")
            for schema in schemas:
                self.conn.executescript(schema)


def _create_private(path: Path) -> None:
    """Create the folders the database needs 0700 and the file itself 0600 (it may hold
    SSNs and birth dates); SQLite gives its -wal and -shm files the database's mode.
    Existing folders and files are left as they are."""
    missing = []
    folder = path.parent
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for folder in reversed(missing):
        folder.mkdir(mode=0o700, exist_ok=True)
    if not path.exists():
        os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600))


def to_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def from_json(text: str | None) -> Any:
    return None if text is None else json.loads(text)
