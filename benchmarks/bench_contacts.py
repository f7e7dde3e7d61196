"""An agency of many contacts in the Profiles area: loading it, and typing while it is shown.

The app runs headless (Textual's Pilot, 120x40) on the embedded sandbox in a temporary
home. For each size, an agency with that many contacts (type, email, first and last name
each) is shown in the editor, as F7 or F2 would show it, and timed until the editor is
filled and the app is idle again; then ``--keys`` letters are typed into its ProfileKey,
one every ``--every`` seconds, each timed from its arrival at the app to the frame that
shows it (``_common.KeyTimer``). The widgets the screen then holds are counted.

    .venv/bin/python benchmarks/bench_contacts.py [--sizes 0,10,40,300] [--keys 20] [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path
from typing import Any

from _common import (
    KeyTimer,
    describe_machine,
    fresh_home,
    latency_summary,
    machine_facts,
    table,
    write_json,
)


def agency(contacts: int) -> dict[str, Any]:
    return {
        "ProfileKey": "BENCH-AG",
        "Tin": "000000777",
        "Demographic": {"FirmName": "Bench Partners LLC", "Status": 7040},
        "Contacts": [
            {"ContactType": "Billing", "EmailAddress": f"c{n}@example.test",
             "FirstName": "Ada", "LastName": f"Lane{n}"}
            for n in range(contacts)
        ],
    }  # fmt: skip


async def measure(sizes: list[int], keys: int, every: float) -> dict[int, dict[str, Any]]:
    from textual.widgets import Input

    from tui_app.config import default_config
    from tui_app.ui.app import ProducerApp

    app = ProducerApp(default_config())
    results: dict[int, dict[str, Any]] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        # A read waits for a first run's registry to be seeded (a thread that would
        # otherwise compete with what is measured).
        await (await app.client()).get_agent(19000001)
        await pilot.press("3")
        await pilot.pause()
        timer = KeyTimer(app, None)
        for size in sizes:
            screen = app.screen
            cpu, start = time.process_time(), time.perf_counter()
            await screen.show_profile("agency", agency(size))  # type: ignore[attr-defined]
            await pilot.pause()
            await app.workers.wait_for_complete()
            load = time.perf_counter() - start, time.process_time() - cpu
            field = screen.query_one("#f-ProfileKey", Input)
            field.focus()
            await pilot.pause()
            times = []
            for n in range(keys):
                length = len(field.value)
                took = await timer.press("abcdefghij"[n % 10],
                                         seen=lambda f=field, n=length: len(f.value) > n)  # fmt: skip
                if took is not None:
                    times.append(took)
                await asyncio.sleep(every)
            results[size] = latency_summary(times) | {
                "load_s": load[0],
                "load_cpu_s": load[1],
                "widgets": len(list(screen.walk_children())),
            }
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="0,10,40,300", help="contact counts, comma-separated")
    parser.add_argument("--keys", type=int, default=20)
    parser.add_argument("--every", type=float, default=0.05)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    sizes = [int(n) for n in args.sizes.split(",")]
    facts = machine_facts()
    with fresh_home("bench-contacts-"):
        results = asyncio.run(measure(sizes, args.keys, args.every))
    print(describe_machine(facts))
    print(f"an agency shown in Profiles, then {args.keys} letters typed into its ProfileKey")
    rows = [
        (size, f"{r['load_s']:.2f}", f"{r['load_cpu_s']:.2f}", r["widgets"], r["p50_ms"],
         r["p95_ms"], r["max_ms"])
        for size, r in results.items()
    ]  # fmt: skip
    print(table(["contacts", "load s", "load CPU s", "widgets", "key p50 ms", "key p95 ms",
                 "key max ms"], rows))  # fmt: skip
    if args.json:
        write_json(args.json, {"machine": facts, "settings": vars(args) | {"json": None},
                               "results": results})  # fmt: skip


if __name__ == "__main__":
    main()
