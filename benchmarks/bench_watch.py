"""A watch check of 10,000 producers against the served sandbox: records/s and peak memory
of ``producer-tui watch check`` (the cron path), then key latency in the Watch area while the
same check runs in the TUI.

The sandbox is served on a loopback port with ``--size`` individuals; the roster is the
first ``--producers`` of them. First ``producer-tui watch check --rate 0`` runs in a child
process (no pacing: its speed is the service's and the client's), timed from start to exit,
its peak RSS read from the kernel. Then the app runs headless (Textual's Pilot) on the same
environment: in the Watch area it presses Down and Up one key every ``--every`` seconds,
first idle and then while F5's check runs, and times each key from the press until the app
has handled it (the table's cursor moved) and drawn it (the next frame the app renders).
Pilot's own ``press`` is not used for timing: it returns only once the process is idle,
which it never is while a check runs in it.

    .venv/bin/python benchmarks/bench_watch.py [--producers 10000] [--concurrency 4]
        [--every 0.05] [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _common import (
    KeyTimer,
    describe_machine,
    fresh_home,
    latency_summary,
    machine_facts,
    served,
    table,
    write_json,
)


def write_config(path: Path, url: str) -> None:
    path.write_text(
        f'active = "served"\n[environments.served]\nbase_url = "{url}"\nwatch_rate = 0\n',
        encoding="utf-8",
    )


def roster(db: Path, producers: int) -> list[int]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT npn FROM registry_individuals ORDER BY npn LIMIT ?", (producers,)
        ).fetchall()
    return [npn for (npn,) in rows]


def cli_check(concurrency: int) -> dict[str, Any]:
    """``producer-tui watch check`` in a child process: wall time, exit code, peak RSS."""
    start = time.perf_counter()
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "tui_app",
            "watch",
            "check",
            "--rate",
            "0",
            "--format",
            "json",
            "--concurrency",
            str(concurrency),
        ],
        capture_output=True,
        text=True,
    )
    took = time.perf_counter() - start
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {
        "exit": process.returncode,
        "seconds": took,
        "peak_rss_mib": peak_kib / 1024,
        "summary": process.stderr.strip().splitlines()[-1:],
    }


async def tui_check(every: float) -> dict[str, Any]:
    from tui_app.config import load_config
    from tui_app.ui.app import ProducerApp
    from tui_app.ui.screens.watch import WatchScreen

    app = ProducerApp(load_config())
    async with app.run_test(size=(120, 40)) as pilot:
        await app.client()
        await pilot.press("7")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, WatchScreen)
        await screen.findings.wait_loaded()
        screen.findings.table.focus()
        keys = KeyTimer(app, screen.findings.table)
        idle = await keys.times(100, every)
        started = time.perf_counter()
        await pilot.press("f5")

        def running() -> bool:  # a small check may be over before its first progress
            return any(w.group == "watch-check" and not w.is_finished for w in app.workers)

        busy = await keys.times(10**9, every, running)
        while running():
            await asyncio.sleep(0.05)
        took = time.perf_counter() - started
        await app.workers.wait_for_complete()
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "idle": latency_summary(idle),
        "busy": latency_summary(busy),
        "seconds": took,
        "peak_rss_mib": peak_kib / 1024,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--producers", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--every", type=float, default=0.05, help="seconds between keys")
    parser.add_argument("--json", type=Path, help="also write every figure as JSON here")
    args = parser.parse_args()
    facts = machine_facts()
    with fresh_home("bench-watch-") as folder:
        db = folder / "sandbox.db"
        with served(db, "--size", str(args.producers)) as sandbox:
            write_config(folder / "config.toml", sandbox.url)
            npns = roster(db, args.producers)
            from tui_app.cli import main as cli_main

            with open(os.devnull, "w") as quiet:
                stdout, sys.stdout = sys.stdout, quiet
                try:
                    cli_main(["watch", "add", *map(str, npns)])
                finally:
                    sys.stdout = stdout
            cli = cli_check(args.concurrency)
            tui = asyncio.run(tui_check(args.every))
    print(describe_machine(facts))
    print(
        f"\nA check of {len(npns):,} producers (full record each) against the served "
        f"sandbox, {args.concurrency} in flight, no pacing"
    )
    print(
        table(
            ("run", "seconds", "records/s", "peak RSS MiB"),
            [
                (
                    "producer-tui watch check",
                    cli["seconds"],
                    len(npns) / cli["seconds"],
                    cli["peak_rss_mib"],
                ),
                (
                    "TUI, Watch area (F5)",
                    tui["seconds"],
                    len(npns) / tui["seconds"],
                    tui["peak_rss_mib"],
                ),
            ],
        )
    )
    print(f"CLI: exit {cli['exit']}; {' '.join(cli['summary'])}")
    print(f"\nWatch area, Down/Up every {args.every * 1000:.0f} ms")
    print(
        table(
            ("keys", "presses", "p50 ms", "p95 ms", "p99 ms", "max ms"),
            [
                (name, s["n"], s["p50_ms"], s["p95_ms"], s["p99_ms"], s["max_ms"])
                for name, s in (("idle", tui["idle"]), ("while the check runs", tui["busy"]))
            ],
        )
    )
    if args.json:
        write_json(
            args.json,
            {
                "machine": facts,
                "settings": vars(args) | {"json": None},
                "producers": len(npns),
                "cli": cli,
                "tui": tui,
            },
        )
    return 0 if cli["exit"] in (0, 1) else 1


if __name__ == "__main__":
    sys.exit(main())
