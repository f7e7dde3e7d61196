"""Typing into each area's form: from a key to the frame that shows its character.

Every keystroke in a form checks the whole request against the contract and repaints
the errors (and laid the screen out, until the field stopped asking for it), so a form's
cost per key grows with the widgets on screen. The app runs headless (Textual's Pilot, 120x40) on the embedded
sandbox in a temporary home; in each area the script focuses a text field and types
``--keys`` letters, one every ``--every`` seconds, each timed from its arrival at the app
until the field holds it and the next frame is drawn (``_common.KeyTimer``), with the
app's CPU time over all of them. Then as many of Tab and Shift+Tab, each timed until the
focus has moved and the next frame is drawn; their CPU includes the footer's work after
the frame.

    .venv/bin/python benchmarks/bench_form_keys.py [--keys 40] [--every 0.05] [--json PATH]
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

FIELDS = (  # area key, row name, a text field of its form, the characters typed
    ("1", "search", "#f-FirstName", "abcdefghij"),
    ("2", "orders", "#f-data--firstName", "abcdefghij"),
    # Digits into the tax id: its error line says something new at each key ("must be at
    # least 9 characters, not 4", then "not 5"...).
    ("2", "orders taxId", "#f-data--taxId", "1234567890"),
    ("3", "profiles", "#f-ProfileKey", "abcdefghij"),
    ("6", "settings", "#set-base_url", "abcdefghij"),
)


async def measure(keys: int, every: float) -> dict[str, Any]:
    from textual.widgets import Input

    from tui_app.config import default_config
    from tui_app.ui.app import ProducerApp

    app = ProducerApp(default_config())
    results: dict[str, Any] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        await app.client()
        for key, area, selector, letters in FIELDS:
            await pilot.press("escape", "escape", key)
            await pilot.pause()
            await app.workers.wait_for_complete()
            if area == "settings":
                await pilot.press("n")  # a new environment: its fields take text
                await pilot.pause()
            field = app.screen.query_one(selector, Input)
            field.value = ""
            field.focus()
            await pilot.pause()
            timer = KeyTimer(app, None)
            times = []
            cpu = time.process_time()
            for n in range(keys):
                length = len(field.value)
                letter = letters[n % len(letters)]
                took = await timer.press(letter, seen=lambda f=field, n=length: len(f.value) > n)
                if took is not None:
                    times.append(took)
                await asyncio.sleep(every)
            widgets = len(list(app.screen.walk_children()))
            results[area] = latency_summary(times) | {
                "cpu_ms_per_key": (time.process_time() - cpu) * 1000 / keys,
                "widgets": widgets,
                "tab": await tabs(app, timer, keys, every),
            }
    return results


async def tabs(app, timer: KeyTimer, keys: int, every: float) -> dict[str, Any]:
    """Tab and Shift+Tab alternately, each timed to the frame after the focus moved."""
    times = []
    cpu = time.process_time()
    for n in range(keys):
        focused = app.screen.focused
        took = await timer.press(
            "shift+tab" if n % 2 else "tab", seen=lambda f=focused: app.screen.focused is not f
        )
        if took is not None:
            times.append(took)
        await asyncio.sleep(every)
    return latency_summary(times) | {"cpu_ms_per_key": (time.process_time() - cpu) * 1000 / keys}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=40)
    parser.add_argument("--every", type=float, default=0.05)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    facts = machine_facts()
    with fresh_home("bench-form-keys-"):
        results = asyncio.run(measure(args.keys, args.every))
    print(describe_machine(facts))
    print(f"{args.keys} letters typed into a field of each area's form, one every {args.every} s")
    rows = [
        (area, r["widgets"], r["p50_ms"], r["p95_ms"], r["max_ms"], r["cpu_ms_per_key"])
        for area, r in results.items()
    ]
    print(table(["area", "widgets", "p50 ms", "p95 ms", "max ms", "CPU ms/key"], rows))
    print(
        f"\nthen {args.keys} of Tab and Shift+Tab alternately, to the frame after the focus moved"
    )
    rows = [
        (area, r["tab"]["p50_ms"], r["tab"]["p95_ms"], r["tab"]["max_ms"],
         r["tab"]["cpu_ms_per_key"])
        for area, r in results.items()
    ]  # fmt: skip
    print(table(["area", "p50 ms", "p95 ms", "max ms", "CPU ms/key"], rows))
    if args.json:
        write_json(args.json, {"machine": facts, "settings": vars(args) | {"json": None},
                               "results": results})  # fmt: skip


if __name__ == "__main__":
    main()
