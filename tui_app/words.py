"""Counts in words, for the command line and the TUI alike."""

from __future__ import annotations


def counted(n: int, noun: str) -> str:
    """``1 record``, ``1,200 records``: the plural unless ``n`` is 1."""
    return f"{n:,} {noun}{'s' * (n != 1)}"
