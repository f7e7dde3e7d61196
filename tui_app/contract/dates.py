"""Dates typed by people and dates sent to a service.

The spec leaves the format of ``dateOfBirth`` and ``dateEffective`` "not shown". A form
accepts what people type (MM/DD/YYYY, or ISO YYYY-MM-DD) and the client sends the
environment's ``date_format``; a text that is neither is sent as typed, with a warning.
"""

from __future__ import annotations

import re
from datetime import date, datetime

DATE_FORMATS: dict[str, str] = {
    "MM/DD/YYYY": "%m/%d/%Y",
    "YYYY-MM-DD": "%Y-%m-%d",
    "MM-DD-YYYY": "%m-%d-%Y",
    "YYYYMMDD": "%Y%m%d",
}
"""Formats an environment may send dates in (the setting's words -> strftime)."""

DEFAULT_DATE_FORMAT = "MM/DD/YYYY"

_TYPED = (
    (re.compile(r"\d{1,2}/\d{1,2}/\d{4}"), "%m/%d/%Y"),
    (re.compile(r"\d{4}-\d{2}-\d{2}"), "%Y-%m-%d"),
    (re.compile(r"\d{4}-\d{2}-\d{2}T[0-9:.]+(Z|[+-]\d{2}:?\d{2})?"), None),
)


def parse_date(text: str | None) -> date | None:
    """A date typed as MM/DD/YYYY or ISO (YYYY-MM-DD, or an ISO date-time), else None."""
    if not text:
        return None
    text = text.strip()
    for pattern, fmt in _TYPED:
        if pattern.fullmatch(text):
            try:
                if fmt is None:
                    return datetime.fromisoformat(text.replace("Z", "+00:00")).date()
                return datetime.strptime(text, fmt).date()
            except ValueError:
                return None
    return None


def is_date(text: object) -> bool:
    return not isinstance(text, str) or text == "" or parse_date(text) is not None


def format_date(text: str, date_format: str = DEFAULT_DATE_FORMAT) -> str:
    """``text`` in ``date_format`` when it is a date we recognise; otherwise unchanged."""
    found = parse_date(text)
    if found is None:
        return text
    return found.strftime(DATE_FORMATS.get(date_format, DATE_FORMATS[DEFAULT_DATE_FORMAT]))
