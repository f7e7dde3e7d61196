"""Key latency in the Bulk area while a bulk job runs, and the job's speed from the TUI.

The app runs headless (Textual's Pilot, as the tests drive it) on the embedded sandbox in a
fresh data folder, with two small jobs recorded beforehand (rows for the cursor to move to). It submits ``--records`` synthetic agent records from the Bulk area
(F5): the job runs in its detached worker, as it does for users. While it runs, the
script presses Down and Up in the jobs table, one key every ``--every`` seconds, and
times each from its arrival until the cursor has moved and the next frame is drawn
(``_common.KeyTimer``). The same keys are
timed first with no job running (idle), then during the file's pre-flight (F3, every
line validated before anything is sent), so the three can be compared. At the end: the
pre-flight's time and the job's records/s, seen from the TUI.

    .venv/bin/python benchmarks/bench_bulk_keys.py [--records 100000] [--every 0.05]
        [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
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
    table,
    write_json,
)
from bench_bulk import write_records


async def measure(records: int, every: float, folder: Path) -> dict[str, Any]:
    from tui_app.bulk.journal import DONE, Journal
    from tui_app.bulk.pipeline import create_job
    from tui_app.config import load_config
    from tui_app.ui.app import ProducerApp
    from tui_app.ui.screens.bulk import BulkScreen

    data, small = folder / "records.ndjson", folder / "small.ndjson"
    write_records(data, records)
    write_records(small, 1)
    config = load_config()
    with Journal() as journal:  # two more rows in the jobs table, for the cursor to move
        for _ in range(2):
            journal.set_state(create_job(journal, small, config.active_env()[0]).id, DONE)
    app = ProducerApp(config)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.client()  # the embedded sandbox is up (seeded on first use)
        await pilot.press("4")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BulkScreen)
        table = screen.query_one("#bulk-jobs")
        while table.row_count < 2:
            await asyncio.sleep(0.05)
        table.focus()
        keys = KeyTimer(app, table)
        idle = await keys.times(100, every)
        screen.query_one("#bulk-path").value = str(data)
        checked = time.perf_counter()
        await pilot.press("f3")  # the pre-flight: every line validated, nothing sent
        table.focus()
        checking = await keys.times(10**9, every, lambda: screen.checked is None)
        while screen.checked is None:
            await asyncio.sleep(0.05)
        check_s = time.perf_counter() - checked
        submitted = time.perf_counter()
        await pilot.press("f5")
        journal = Journal()
        while len(journal.jobs()) < 3:
            await asyncio.sleep(0.05)
        [job] = [j for j in journal.jobs() if j.path == data]

        def running() -> bool:  # as the TUI sees it (no journal read on the app's loop)
            seen = screen.seen.get(job.id)
            return seen is None or seen.job.state != DONE

        table.focus()
        busy = await keys.times(10**9, every, running)
        while running():
            await asyncio.sleep(0.2)
        took = time.perf_counter() - submitted
        counts = journal.job(job.id).counts
        journal.close()
    return {"idle": latency_summary(idle), "checking": latency_summary(checking),
            "check_s": check_s, "busy": latency_summary(busy), "job_s": took,
            "rec_per_s": records / took, "completed": counts.completed,
            "unseen": keys.unseen}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--every", type=float, default=0.05, help="seconds between keys")
    parser.add_argument("--json", type=Path, help="also write every figure as JSON here")
    args = parser.parse_args()
    with fresh_home("bench-keys-") as folder:
        found = asyncio.run(measure(args.records, args.every, folder))
    facts = machine_facts()
    rows = [(name, s["n"], s["p50_ms"], s["p95_ms"], s["p99_ms"], s["max_ms"])
            for name, s in (("idle", found["idle"]), ("during the pre-flight (F3)", found["checking"]),
                            ("while the job runs", found["busy"]))]  # fmt: skip
    print(describe_machine(facts))
    print(
        f"\nBulk area, Down/Up every {args.every * 1000:.0f} ms; a job of "
        f"{args.records:,} records submitted with F5 (detached worker)"
    )
    print(table(("keys", "presses", "p50 ms", "p95 ms", "p99 ms", "max ms"), rows))
    print(f"keys the cursor did not follow within 2 s while the job ran: {found['unseen']}")
    print(f"pre-flight: {args.records:,} records checked in {found['check_s']:.1f} s")
    print(
        f"job: {found['completed']:,} completed in {found['job_s']:.1f} s "
        f"({found['rec_per_s']:,.0f} records/s, from F5 to DONE as the TUI sees it)"
    )
    if args.json:
        write_json(args.json, {"machine": facts, "settings": vars(args) | {"json": None},
                               **found})  # fmt: skip
    return 0 if found["completed"] == args.records else 1


if __name__ == "__main__":
    sys.exit(main())
