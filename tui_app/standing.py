"""How a license stands today, in words: the one rule screens and reports share.

A license is EXPIRED past its expiration date, EXPIRES SOON within :data:`SOON_DAYS` of
it, INACTIVE when the registry says so, and ACTIVE otherwise. Words first, colour second.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

SOON_DAYS = 60
Level = Literal["ok", "warn", "bad", "none"]


def parse_us_date(text: str | None) -> date | None:
    """An MM/DD/YYYY date of the national report, or None if absent or malformed."""
    if not text:
        return None
    try:
        return datetime.strptime(text, "%m/%d/%Y").date()
    except ValueError:
        return None


def license_standing(active: bool | None, expiration: str | None, today: date) -> tuple[str, Level]:
    expires = parse_us_date(expiration)
    if expires is not None and expires < today:
        return f"EXPIRED {_days(today - expires)} ago", "bad"
    if active is False:
        return "INACTIVE", "none"
    if expires is not None and (expires - today).days <= SOON_DAYS:
        days = (expires - today).days
        return ("EXPIRES TODAY" if days == 0 else f"EXPIRES IN {_days(expires - today)}"), "warn"
    return "ACTIVE", "ok"


def _days(delta) -> str:
    return "1 day" if delta.days == 1 else f"{delta.days} days"
