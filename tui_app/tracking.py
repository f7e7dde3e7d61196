"""The orders filed from this machine, per environment, kept across restarts.

A small SQLite file in the user data folder. It holds what a user needs to follow an
order (number, filing, applicant's name, last status seen), never the tax id or birth date;
an applicant's name is personal data still, so the file is private (0600 in a 0700 folder).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from tui_app.config import data_dir
from tui_app.contract.order import FINAL_STATUSES, OrderResponse
from tui_app.locked_sqlite import LockedConnection, UnusableDatabase, unusable
from tui_app.own_thread import OwnThread

SCHEMA = """
CREATE TABLE IF NOT EXISTS tracked_orders (
    env TEXT NOT NULL,
    client_order_num TEXT NOT NULL,
    juris TEXT, ptype TEXT, ftype TEXT, applicant TEXT,
    status TEXT, status_date TEXT, total_fee REAL,
    filed_at TEXT NOT NULL, checked_at TEXT NOT NULL,
    PRIMARY KEY (env, client_order_num)
);
"""


@dataclass(frozen=True)
class TrackedOrder:
    env: str
    client_order_num: str
    juris: str
    ptype: str
    ftype: str
    applicant: str
    status: str
    status_date: str | None
    total_fee: float
    filed_at: str
    checked_at: str

    @property
    def final(self) -> bool:
        return self.status in FINAL_STATUSES


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class OrderBook:
    """The orders filed from here. Raises :class:`UnusableDatabase` (an ``OSError``) when
    its file cannot be used; ``memory`` keeps one for this run only, in no file."""

    def __init__(self, path: Path | None = None, *, memory: bool = False) -> None:
        if memory:
            self._db = LockedConnection(":memory:")
            self._migrate(self._db)
            return
        where = path or data_dir() / "orders.db"
        try:
            self._db = LockedConnection.open_private(
                where, ours=path is None, migrate=self._migrate
            )
        except (OSError, sqlite3.Error) as exc:
            raise UnusableDatabase(unusable("the order book", where, exc)) from None

    @staticmethod
    def _migrate(db: LockedConnection) -> None:
        db.conn.executescript(SCHEMA)

    def record(self, env: str, response: OrderResponse) -> None:
        """Add or refresh an order from the service's answer."""
        details, item = response.order.orderDetails, response.order.itemDetails
        applicant = item.get("firmName") or " ".join(
            str(p) for p in (item.get("firstName"), item.get("lastName")) if p
        )
        now = _now()
        with self._db.transaction() as conn:
            conn.execute(
                """INSERT INTO tracked_orders VALUES (?,?,?,?,?,?,?,?,?,?,?)
                   ON CONFLICT (env, client_order_num) DO UPDATE SET
                     juris = excluded.juris, ptype = excluded.ptype, ftype = excluded.ftype,
                     applicant = excluded.applicant, status = excluded.status,
                     status_date = excluded.status_date, total_fee = excluded.total_fee,
                     checked_at = excluded.checked_at""",
                (
                    env,
                    details.clientOrderNum,
                    item.get("juris", ""),
                    item.get("pType", ""),
                    item.get("fType", ""),
                    applicant,
                    details.status,
                    details.statusDate,
                    details.totalFee,
                    now,
                    now,
                ),
            )

    def update(self, env: str, response: OrderResponse) -> None:
        """Record a status check of an order this book already knows."""
        details = response.order.orderDetails
        with self._db.transaction() as conn:
            conn.execute(
                "UPDATE tracked_orders SET status = ?, status_date = ?, total_fee = ?, "
                "checked_at = ? WHERE env = ? AND client_order_num = ?",
                (
                    details.status,
                    details.statusDate,
                    details.totalFee,
                    _now(),
                    env,
                    details.clientOrderNum,
                ),
            )

    def orders(self, env: str) -> list[TrackedOrder]:
        rows = self._db.query(
            "SELECT * FROM tracked_orders WHERE env = ? ORDER BY filed_at DESC, client_order_num",
            (env,),
        )
        return [TrackedOrder(**dict(row)) for row in rows]

    def knows(self, env: str, client_order_num: str) -> bool:
        return (
            self._db.query_one(
                "SELECT 1 FROM tracked_orders WHERE env = ? AND client_order_num = ?",
                (env, client_order_num),
            )
            is not None
        )

    def close(self) -> None:
        self._db.close()


class OrderBookThread(OwnThread[OrderBook]):
    """The order book behind one thread of its own (``await books.call(OrderBook.orders,
    env)``), so the TUI's loop never waits on SQLite; the book is opened there on first
    use. If its file cannot be used, the book is kept in memory for the run (the Orders
    area still files and follows orders) and :attr:`problem` says why."""

    def __init__(self, path: Path | None = None) -> None:
        super().__init__("order-book", self._open_book)
        self._path = path
        self.problem: str | None = None

    def _open_book(self) -> OrderBook:
        try:
            return OrderBook(self._path)
        except UnusableDatabase as exc:
            self.problem = f"{exc}. Orders filed now are followed until you quit."
            return OrderBook(memory=True)
