"""Shared helpers for the benchmarks: a served sandbox, machine facts, percentiles, tables.

Benchmarks are scripts, not tests: run them with the project's interpreter from the
repository root, e.g. ``.venv/bin/python benchmarks/bench_sandbox.py``.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path
from typing import Any

from tui_app.config import GROUP_PREFIXES
from tui_app.sandbox.process import served  # noqa: F401 - the scripts import it from here


@contextmanager
def fresh_home(prefix: str) -> Iterator[Path]:
    """A temporary folder that holds the app's config and data (as a first run sees
    them) for as long as the block lasts."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        folder = Path(tmp)
        os.environ["PRODUCER_TUI_CONFIG"] = str(folder / "config.toml")
        os.environ["PRODUCER_TUI_DATA"] = str(folder / "data")
        yield folder


PACKAGES = ("textual", "httpx", "pydantic", "pydantic-core", "fastapi", "starlette", "uvicorn")


def group_urls(base: str) -> dict[str, str]:
    """The client's per-group URLs under one base URL."""
    return {group: base.rstrip("/") + prefix for group, prefix in GROUP_PREFIXES.items()}


def cpu_seconds(process: subprocess.Popen) -> float | None:
    """User + system CPU a child process has used so far (Linux only)."""
    try:
        fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_facts() -> dict[str, Any]:
    """Cores, CPU model, Python and the versions of the libraries that matter here."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "cpu": cpu,
        "platform": platform.platform(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "sqlite": sqlite3.sqlite_version,
        "load_1min": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "packages": versions,
    }


def describe_machine(facts: dict[str, Any]) -> str:
    packages = ", ".join(f"{k} {v}" for k, v in facts["packages"].items() if v)
    load = facts["load_1min"]
    return (
        f"machine: {facts['usable_cores']} of {facts['cores']} cores, {facts['cpu']}; "
        f"{facts['python']} on {facts['platform']}; SQLite {facts['sqlite']}; "
        f"load {'n/a' if load is None else f'{load:.1f}'} (1 min) before the run\n"
        f"packages: {packages}"
    )


def percentile(sorted_values: Sequence[float], p: float) -> float:
    """The p-th percentile (0-100) by linear interpolation of already sorted values."""
    if not sorted_values:
        return float("nan")
    k = (len(sorted_values) - 1) * p / 100
    low = int(k)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (k - low)


def latency_summary(seconds: Sequence[float], wall: float | None = None) -> dict[str, float]:
    """n, p50/p95/p99/max in milliseconds and, given the wall time, requests per second."""
    ms = sorted(s * 1000 for s in seconds)
    summary = {
        "n": len(ms),
        "p50_ms": percentile(ms, 50),
        "p95_ms": percentile(ms, 95),
        "p99_ms": percentile(ms, 99),
        "max_ms": ms[-1] if ms else float("nan"),
    }
    if wall is not None:
        summary["req_per_s"] = len(ms) / wall if wall > 0 else float("nan")
    return summary


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain text table: first column left-aligned, the others right-aligned."""

    def cell(value: Any) -> str:
        if isinstance(value, float):
            return f"{value:,.1f}"
        if isinstance(value, int):
            return f"{value:,}"
        return str(value)

    cells = [[cell(v) for v in row] for row in rows]
    widths = [max(len(str(h)), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        parts = [
            v.ljust(w) if i == 0 else v.rjust(w)
            for i, (v, w) in enumerate(zip(values, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(list(headers)), rule, *(line(r) for r in cells)])


def write_json(path: Path, results: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


class KeyTimer:
    """Times keys from their arrival at the app to the frame that shows their effect: the
    key goes to the app's driver as a terminal's would, the time stops when ``table``'s
    cursor has moved and the next frame is drawn. (Pilot's ``press`` waits for the whole
    app to go idle, which a busy app seldom is, so it cannot time one key.)"""

    def __init__(self, app, table) -> None:
        self.app, self.table = app, table
        self.unseen = 0
        self._effect: Callable[[], bool] | None = None
        self._shown: float | None = None
        self._drawn = asyncio.Event()
        display = app._display

        def timed_display(screen, renderable) -> None:
            # The first frame drawn once the effect is there shows it. (Waiting for a frame
            # after noticing the effect missed one drawn in between, and timed the next,
            # which may come a cursor blink later: p95s of 900 ms that never were.)
            if renderable is not None and self._effect is not None and self._effect():
                self._shown, self._effect = time.perf_counter(), None
                self._drawn.set()
            display(screen, renderable)

        app._display = timed_display

    async def press(self, key: str, patience: float = 2.0, seen=None) -> float | None:
        """Seconds from ``key`` to the frame that shows it; None if its effect did not
        show within ``patience`` seconds (the table was redrawn under it, say). The
        effect: the table's cursor moved, or ``seen()`` (a printable key: the character
        typed into a field) became true."""
        from textual import events

        row = self.table.cursor_row if self.table is not None else None
        if seen is None:
            seen = lambda: self.table.cursor_row != row  # noqa: E731
        self._effect, self._shown = seen, None
        self._drawn.clear()
        start = time.perf_counter()
        event = events.Key(key, key if len(key) == 1 else None)
        event.set_sender(self.app)
        self.app._driver.send_message(event)
        # Woken by the frame itself: a loop polling for it took a fifth of a core from
        # the app it measured.
        try:
            await asyncio.wait_for(self._drawn.wait(), patience)
        except TimeoutError:
            self._effect = None
            return None
        assert self._shown is not None
        return self._shown - start

    async def times(self, keys: int, every: float, running=lambda: True) -> list[float]:
        """Down and Up alternately, ``keys`` of them or until ``running()`` is false;
        keys that went unseen are counted in ``self.unseen``, not timed."""
        out = []
        self.unseen = 0
        for _ in range(keys):
            if not running():
                break
            took = await self.press("down" if self.table.cursor_row == 0 else "up")
            if took is None:
                self.unseen += 1
            else:
                out.append(took)
            await asyncio.sleep(every)
        return out
