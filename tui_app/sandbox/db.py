"""The sandbox's SQLite database: one file in WAL mode, shared by all five groups.

Each module owns its tables and declares them in a ``SCHEMA`` string. One connection is
shared by the app's threads behind a lock (:mod:`tui_app.locked_sqlite`): requests are
short, and WAL lets a second process (a CLI, a test) read alongside.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tui_app.locked_sqlite import LockedConnection
from tui_app.private_files import touch_private


class Database(LockedConnection):
    def __init__(self, path: str | Path, schemas: tuple[str, ...] = ()) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            touch_private(Path(self.path))  # it may hold SSNs and birth dates
        super().__init__(self.path, busy_timeout_ms=5000)
        with self.lock:
            self.conn.execute("PRAGMA foreign_keys=ON")
            for schema in schemas:
                self.conn.executescript(schema)


def to_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def from_json(text: str | None) -> Any:
    return None if text is None else json.loads(text)
