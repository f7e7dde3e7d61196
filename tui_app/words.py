"""Counts and times in words, for the command line and the TUI alike."""

from __future__ import annotations

from datetime import UTC, datetime


def counted(n: int, noun: str) -> str:
    """``1 record``, ``1,200 records``: the plural unless ``n`` is 1."""
    return f"{n:,} {noun}{'s' * (n != 1)}"


def utc_time(text: str, *, seconds: bool = False) -> str:
    """An ISO date-time as ``2026-11-23 17:29 UTC`` (``17:29:15`` with ``seconds``), in
    UTC when it names its offset; a date alone, or text in another format, as it came."""
    if ":" not in text:  # no time of day to show
        return text
    try:
        at = datetime.fromisoformat(text)
    except ValueError:
        return text  # a service's own format: shown, not lost
    if at.tzinfo is not None:
        at = at.astimezone(UTC)
    shown = at.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")
    return shown if at.tzinfo is None else f"{shown} UTC"
