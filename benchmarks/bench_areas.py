"""What opening each area costs: CPU seconds and wall milliseconds from the key that opens
it until the app is idle again, in a fresh app each time (as a Pilot test pays them).

Most of the test suite's time is this: every Pilot test starts an app and opens an area or
two, and the Orders and Profiles areas build forms of some 500 widgets. The app runs
headless (Textual's Pilot, 120x40) on the embedded sandbox in a temporary home; the first
app's start (which seeds the sandbox) is not counted.

    .venv/bin/python benchmarks/bench_areas.py [--runs 3] [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path

from _common import describe_machine, fresh_home, machine_facts, table, write_json

AREAS = ("orders", "profiles", "bulk", "export", "settings", "watch")


async def measure(runs: int) -> dict[str, dict[str, list[float]]]:
    from tui_app.config import default_config
    from tui_app.ui.app import ProducerApp
    from tui_app.ui.scenes import SCENE_DAY, SIZE

    results: dict[str, dict[str, list[float]]] = {
        name: {"cpu": [], "wall": []} for name in ("start", *AREAS)
    }

    def record(name: str, cpu: float, wall: float) -> None:
        results[name]["cpu"].append(time.process_time() - cpu)
        results[name]["wall"].append(time.perf_counter() - wall)

    for run in range(runs + 1):
        app = ProducerApp(default_config(), today=SCENE_DAY)
        cpu, wall = time.process_time(), time.perf_counter()
        async with app.run_test(size=SIZE) as pilot:
            await app.client()
            await pilot.pause()
            await app.workers.wait_for_complete()
            if run:  # the first run seeds the sandbox
                record("start", cpu, wall)
            for area in AREAS:
                cpu, wall = time.process_time(), time.perf_counter()
                await app.switch_mode(area)
                await pilot.pause()
                await app.workers.wait_for_complete()
                if run:
                    record(area, cpu, wall)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    facts = machine_facts()
    with fresh_home("bench-areas-"):
        results = asyncio.run(measure(args.runs))
    rows = [
        (
            name,
            statistics.median(r["cpu"]) * 1000,
            statistics.median(r["wall"]) * 1000,
        )
        for name, r in results.items()
    ]
    print(describe_machine(facts))
    print(f"median of {args.runs} fresh apps (the app's start: up to online and idle)")
    print(table(["area", "CPU ms", "wall ms"], rows))
    if args.json:
        write_json(args.json, {"machine": facts, "runs": args.runs, "results": results})


if __name__ == "__main__":
    main()
