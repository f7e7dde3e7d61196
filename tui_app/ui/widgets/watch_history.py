"""Findings by kind over the last checks: one row per kind, a bar per check, oldest first,
and the last count in words (people would rather look than read, but need both)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.text import Text
from textual.widgets import Static

from tui_app.watch.findings import KINDS

BLOCKS = " ▁▂▃▄▅▆▇█"


def bars(counts: Sequence[int]) -> str:
    """One block per count, scaled to the largest (a count above 0 shows at least ▁)."""
    top = max(counts, default=0)
    if top == 0:
        return "·" * len(counts)
    return "".join(BLOCKS[max(1, round(n / top * 8))] if n else "·" for n in counts)


def history_text(
    checks: Sequence[int], counts: Mapping[int, Mapping[str, int]], check_key: str
) -> Text:
    """``checks`` oldest first; ``counts`` per check id, per kind; ``check_key`` names the
    key that checks."""
    if not checks:
        return Text(f"No check yet: {check_key} checks the roster.", style="dim")
    n = len(checks)
    text = Text(f"Findings by kind, last {n} check{'s' * (n != 1)} (oldest first)\n", style="bold")
    width = max(len(title) for _, title in KINDS.values())
    for kind, (_, title) in KINDS.items():
        series = [counts.get(c, {}).get(kind, 0) for c in checks]
        style = "" if series[-1] else "dim"
        text.append(f"{title:<{width}} {bars(series):<8} {series[-1]:>7,}\n", style=style)
    text.rstrip()
    return text


class WatchHistory(Static):
    """The bars of the last checks (see :func:`history_text`)."""

    def show(
        self, checks: Sequence[int], counts: Mapping[int, Mapping[str, int]], check_key: str
    ) -> None:
        self.update(history_text(checks, counts, check_key))
