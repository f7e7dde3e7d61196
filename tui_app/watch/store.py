"""The watch store: rosters, checks, snapshots and findings in one SQLite file.

``data_dir() / "watch.db"``, 0600 in a 0700 folder. It holds NPNs, ProfileKeys, names and
license facts, never an SSN, TIN or birth date. :class:`WatchStore` is synchronous and
thread-safe (one connection behind a lock, as the bulk journal); :class:`WatchDb` runs it on
one thread of its own, so an event loop (the TUI's, a check's) never waits on SQLite.

A check is resumable: its items are recorded when it starts, and each record's snapshot,
findings and "done" mark are written in one transaction, so a check cut short carries on
with the items still pending and never fetches a record twice.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from tui_app.config import data_dir
from tui_app.locked_sqlite import LockedConnection, unusable
from tui_app.own_thread import OwnThread
from tui_app.watch.findings import KINDS, Finding

T = TypeVar("T")

RUNNING, STOPPED, DONE = "RUNNING", "STOPPED", "DONE"
PENDING, READ, FAILED = "PENDING", "READ", "FAILED"

SCHEMA_VERSION = 1
TABLES = """
CREATE TABLE IF NOT EXISTS roster (
    env TEXT NOT NULL,
    npn INTEGER NOT NULL,
    kind TEXT,                      -- agent or agency, once the registry said which
    profile_key TEXT,
    name TEXT,
    added_at TEXT NOT NULL,
    PRIMARY KEY (env, npn)
);
CREATE TABLE IF NOT EXISTS checks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    env TEXT NOT NULL,
    state TEXT NOT NULL,
    today TEXT NOT NULL,            -- the date licenses are judged by
    days INTEGER NOT NULL,
    total INTEGER NOT NULL,
    message TEXT,
    started_at TEXT NOT NULL,
    finished_at TEXT
);
CREATE INDEX IF NOT EXISTS checks_by_env ON checks (env, id);
CREATE TABLE IF NOT EXISTS check_items (
    check_id INTEGER NOT NULL,
    npn INTEGER NOT NULL,
    state TEXT NOT NULL,
    error TEXT,
    PRIMARY KEY (check_id, npn)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS check_items_by_state ON check_items (check_id, state);
CREATE TABLE IF NOT EXISTS snapshots (
    env TEXT NOT NULL,
    npn INTEGER NOT NULL,
    check_id INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (env, npn)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS findings (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    check_id INTEGER NOT NULL,
    rank INTEGER NOT NULL,          -- the kind's place in KINDS: most urgent first
    kind TEXT NOT NULL,
    severity TEXT NOT NULL,
    npn INTEGER NOT NULL,
    name TEXT NOT NULL,
    state TEXT NOT NULL,
    license TEXT NOT NULL,
    text TEXT NOT NULL,
    tab TEXT NOT NULL,
    record_kind TEXT
);
CREATE INDEX IF NOT EXISTS findings_by_check ON findings (check_id, rank, npn);
CREATE INDEX IF NOT EXISTS findings_by_npn ON findings (check_id, npn);
"""

SORTS = {
    "kind": "rank, npn, id",
    "severity": "rank, npn, id",
    "npn": "npn, rank, id",
    "state": "state, rank, npn, id",
    "name": "name, npn, rank, id",
}
"""Orders the findings table offers (kinds are ranked by severity, so they coincide)."""
_RANK = {kind: i for i, kind in enumerate(KINDS)}


def store_path() -> Path:
    return data_dir() / "watch.db"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class StoreError(RuntimeError):
    """The file cannot be used as the watch store (one line that says why)."""


@dataclass(frozen=True)
class RosterEntry:
    npn: int
    kind: str | None
    profile_key: str | None
    name: str | None


@dataclass(frozen=True)
class Check:
    id: int
    env: str
    state: str
    today: str
    days: int
    total: int
    read: int
    failed: int
    message: str | None
    started_at: str
    finished_at: str | None

    @property
    def pending(self) -> int:
        return self.total - self.read - self.failed


class WatchStore:
    """The store's database. Raises :class:`StoreError` when the file is unusable."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or store_path()
        try:
            self._db = LockedConnection.open_private(
                self.path, ours=path is None, migrate=self._migrate
            )
        except (OSError, sqlite3.Error) as exc:
            raise self._unusable(exc) from None

    def _unusable(self, exc: BaseException) -> StoreError:
        return StoreError(unusable("the watch store", self.path, exc))

    @staticmethod
    def _migrate(db: LockedConnection) -> None:
        if db.version() < SCHEMA_VERSION:
            with db.transaction() as conn:
                for statement in TABLES.split(";\n"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> WatchStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- roster ---------------------------------------------------------------------------

    def add(self, env: str, entries: Iterable[Any]) -> int:
        """Add entries (``npn`` and ``profile_key``); an NPN already there keeps its place and
        takes the new ProfileKey if one is given. Returns how many were new."""
        with self._db.transaction() as conn:
            before = conn.execute("SELECT count(*) FROM roster WHERE env = ?", (env,)).fetchone()[0]
            conn.executemany(
                "INSERT INTO roster (env, npn, profile_key, added_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (env, npn) DO UPDATE"
                " SET profile_key = coalesce(excluded.profile_key, roster.profile_key)",
                [(env, e.npn, e.profile_key, _now()) for e in entries],
            )
            after = conn.execute("SELECT count(*) FROM roster WHERE env = ?", (env,)).fetchone()[0]
        return after - before

    def remove(self, env: str, npns: Iterable[int]) -> int:
        with self._db.transaction() as conn:
            return conn.executemany(
                "DELETE FROM roster WHERE env = ? AND npn = ?", [(env, n) for n in npns]
            ).rowcount

    def roster(self, env: str, limit: int = -1, offset: int = 0) -> list[RosterEntry]:
        rows = self._db.query(
            "SELECT npn, kind, profile_key, name FROM roster WHERE env = ?"
            " ORDER BY npn LIMIT ? OFFSET ?",
            (env, limit, offset),
        )
        return [RosterEntry(*row) for row in rows]

    def roster_size(self, env: str) -> int:
        return self._db.query("SELECT count(*) FROM roster WHERE env = ?", (env,))[0][0]

    # --- checks ---------------------------------------------------------------------------

    def unfinished(self, env: str) -> Check | None:
        """The environment's last check if it did not finish (to be resumed)."""
        rows = self._db.query(
            "SELECT id FROM checks WHERE env = ? ORDER BY id DESC LIMIT 1", (env,)
        )
        if not rows:
            return None
        check = self.check(rows[0][0])
        return None if check.state == DONE else check

    def start_check(self, env: str, today: str, days: int) -> Check:
        """A new check of every producer on the roster."""
        with self._db.transaction() as conn:
            total = conn.execute("SELECT count(*) FROM roster WHERE env = ?", (env,)).fetchone()[0]
            cur = conn.execute(
                "INSERT INTO checks (env, state, today, days, total, started_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (env, RUNNING, today, days, total, _now()),
            )
            check_id: int = cur.lastrowid  # type: ignore[assignment]  # an INSERT's is never None
            conn.execute(
                "INSERT INTO check_items SELECT ?, npn, ?, NULL FROM roster WHERE env = ?",
                (check_id, PENDING, env),
            )
        return self.check(check_id)

    def check(self, check_id: int) -> Check:
        row = self._db.query("SELECT * FROM checks WHERE id = ?", (check_id,))[0]
        counts: dict[str, int] = {
            state: n
            for state, n in self._db.query(
                "SELECT state, count(*) FROM check_items WHERE check_id = ? GROUP BY state",
                (check_id,),
            )
        }
        return Check(
            row["id"],
            row["env"],
            row["state"],
            row["today"],
            row["days"],
            row["total"],
            counts.get(READ, 0),
            counts.get(FAILED, 0),
            row["message"],
            row["started_at"],
            row["finished_at"],
        )

    def checks(self, env: str, limit: int = 10) -> list[Check]:
        """The environment's last checks, newest first."""
        ids = self._db.query(
            "SELECT id FROM checks WHERE env = ? ORDER BY id DESC LIMIT ?", (env, limit)
        )
        return [self.check(row[0]) for row in ids]

    def set_state(self, check_id: int, state: str, message: str | None = None) -> None:
        finished = _now() if state == DONE else None
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE checks SET state = ?, message = ?, finished_at = ? WHERE id = ?",
                (state, message, finished, check_id),
            )

    def pending(self, check_id: int, env: str) -> list[RosterEntry]:
        """Items of the check still to read, with what the roster knows of them."""
        rows = self._db.query(
            "SELECT i.npn, r.kind, r.profile_key, r.name FROM check_items i"
            " LEFT JOIN roster r ON r.env = ? AND r.npn = i.npn"
            " WHERE i.check_id = ? AND i.state = ? ORDER BY i.npn",
            (env, check_id, PENDING),
        )
        return [RosterEntry(*row) for row in rows]

    def previous_snapshot(self, env: str, npn: int) -> dict[str, Any] | None:
        rows = self._db.query("SELECT data FROM snapshots WHERE env = ? AND npn = ?", (env, npn))
        return json.loads(rows[0][0]) if rows else None

    def record_read(
        self,
        check_id: int,
        env: str,
        npn: int,
        findings: Sequence[Finding],
        *,
        kind: str | None = None,
        snapshot: dict[str, Any] | None = None,
    ) -> None:
        """One producer read: its findings, its new snapshot and the item done, at once."""
        with self._db.transaction() as conn:
            conn.executemany(
                "INSERT INTO findings (check_id, rank, kind, severity, npn, name, state,"
                " license, text, tab, record_kind) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                [
                    (
                        check_id,
                        _RANK[f.kind],
                        f.kind,
                        f.severity,
                        f.npn,
                        f.name,
                        f.state,
                        f.license,
                        f.text,
                        f.tab,
                        kind,
                    )
                    for f in findings
                ],
            )
            if snapshot is not None:
                conn.execute(
                    "INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?, ?)",
                    (env, npn, check_id, json.dumps(snapshot, separators=(",", ":"))),
                )
                conn.execute(
                    "UPDATE roster SET kind = ?, name = ? WHERE env = ? AND npn = ?",
                    (kind, snapshot.get("name"), env, npn),
                )
            conn.execute(
                "UPDATE check_items SET state = ?, error = NULL WHERE check_id = ? AND npn = ?",
                (READ, check_id, npn),
            )

    def record_failed(self, check_id: int, npn: int, error: str) -> None:
        """A record that could not be read (an answer that is no record): not retried."""
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE check_items SET state = ?, error = ? WHERE check_id = ? AND npn = ?",
                (FAILED, error, check_id, npn),
            )

    def failures(self, check_id: int, limit: int = 20) -> list[tuple[int, str]]:
        rows = self._db.query(
            "SELECT npn, error FROM check_items WHERE check_id = ? AND state = ?"
            " ORDER BY npn LIMIT ?",
            (check_id, FAILED, limit),
        )
        return [(row[0], row[1]) for row in rows]

    # --- findings -------------------------------------------------------------------------

    def _where(
        self, check_id: int, kinds: Sequence[str] | None, severities: Sequence[str] | None
    ) -> tuple[str, list[Any]]:
        sql, params = "check_id = ?", list[Any]([check_id])
        if kinds:
            sql += f" AND kind IN ({', '.join('?' * len(kinds))})"
            params += list(kinds)
        if severities:
            sql += f" AND severity IN ({', '.join('?' * len(severities))})"
            params += list(severities)
        return sql, params

    def findings(
        self,
        check_id: int,
        *,
        kinds: Sequence[str] | None = None,
        severities: Sequence[str] | None = None,
        sort: str = "kind",
        limit: int = -1,
        offset: int = 0,
    ) -> list[dict[str, Any]]:
        """One page of a check's findings, filtered and sorted (``sort`` is a key of
        :data:`SORTS`)."""
        where, params = self._where(check_id, kinds, severities)
        rows = self._db.query(
            "SELECT kind, severity, npn, name, state, license, text, tab, record_kind"
            f" FROM findings WHERE {where} ORDER BY {SORTS[sort]} LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return [dict(row) for row in rows]

    def count_findings(
        self,
        check_id: int,
        *,
        kinds: Sequence[str] | None = None,
        severities: Sequence[str] | None = None,
    ) -> int:
        where, params = self._where(check_id, kinds, severities)
        return self._db.query(f"SELECT count(*) FROM findings WHERE {where}", params)[0][0]

    def kind_counts(self, check_ids: Sequence[int]) -> dict[int, dict[str, int]]:
        """Findings per kind, per check (for the history bars)."""
        if not check_ids:
            return {}
        rows = self._db.query(
            "SELECT check_id, kind, count(*) FROM findings"
            f" WHERE check_id IN ({', '.join('?' * len(check_ids))}) GROUP BY check_id, kind",
            list(check_ids),
        )
        out: dict[int, dict[str, int]] = {i: {} for i in check_ids}
        for check_id, kind, n in rows:
            out[check_id][kind] = n
        return out


class WatchDb(OwnThread[WatchStore]):
    """A :class:`WatchStore` behind one thread: ``await db.call(WatchStore.method, ...)``.
    The store is opened on that thread too (opening may create and migrate the file)."""

    def __init__(self, path: Path | None = None) -> None:
        super().__init__("watch-db", lambda: WatchStore(path))
