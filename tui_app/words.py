"""Counts, times and names in words, for the command line and the TUI alike."""

from __future__ import annotations

import re
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


def _pictures() -> dict[int, str]:
    # Control Pictures (U+2400 block) for C0 and DEL, one cell each, so a field's cursor
    # stays where it was; C1 and the bidirectional controls have no picture.
    shown = {code: chr(0x2400 + code) for code in range(0x20) if code not in (0x09, 0x0A)}
    shown[0x7F] = "\u2421"
    for code in (*range(0x80, 0xA0), 0x200E, 0x200F, *range(0x202A, 0x202F),
                 *range(0x2066, 0x206A)):  # fmt: skip
        shown[code] = "\ufffd"
    return shown


OBEYED: dict[int, str] = _pictures()
"""A ``str.translate`` table for text bound for a terminal: each character a terminal
would obey rather than show (ESC and the other C0 and C1 controls, which recolour, retitle
or move the cursor; the bidirectional overrides, which turn text around) becomes a
character that shows it was there (``\\x1b`` as ␛), one for one. Tab and newline stay."""


def terminal_safe(text: str) -> str:
    """``text`` with what a terminal would obey shown instead (:data:`OBEYED`)."""
    return text.translate(OBEYED)


_NOT_IN_NAMES = re.compile(r"[^\w.@+-]+")


def file_name_part(text: str) -> str:
    """``text`` (a ProfileKey, say) fit to be part of a suggested file name: a run of
    anything but letters, digits and ``. @ + -`` becomes one ``_``, and no part is ``..``
    (QA: ProfileKey ``../../tmp/evil k`` suggested ``agent-../../tmp/evil k.xml``)."""
    return _NOT_IN_NAMES.sub("_", text).replace("..", "_")
