"""What the bulk journal costs a line, by step, without the network or validation.

A fresh journal records ``--lines`` valid lines in the scan's chunks of 500 (distinct
profiles, random GUIDs as clientRefIds), takes them in batches of 100 as the pipeline
does, marks each batch POSTING and ACCEPTED, and settles every line COMPLETED. Each step
is timed in CPU microseconds per line (``time.process_time``, so other load on the
machine matters less than for wall time), then a progress read (``Journal.job``) in ms.

    .venv/bin/python benchmarks/bench_journal.py [--lines 50000] [--json PATH]
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from _common import describe_machine, machine_facts, table, write_json

from tui_app.bulk.journal import COMPLETED, DONE, Journal, LineUpdate
from tui_app.bulk.source import Checked, Fingerprint


def _identity(n: int) -> int:
    """A distinct profile per line, as :func:`tui_app.bulk.source.identity` numbers it."""
    return int.from_bytes(hashlib.blake2b(f"K{n}".encode(), digest_size=8).digest(), "big") >> 1


def measure(lines: int, folder: Path) -> dict[str, Any]:
    rows = [
        Checked(n, n * 800, 0, "agent", f"K{n}", str(uuid.uuid4()), (),
                identity=_identity(n), length=800)
        for n in range(1, lines + 1)
    ]  # fmt: skip
    steps: dict[str, float] = {}
    with Journal(folder / "journal.db") as journal:
        job = journal.create_job("bench", folder / "x.ndjson", Fingerprint(1, 1, "x"), 100)

        def timed(step: str, work) -> Any:
            started = time.process_time()
            found = work()
            steps[step] = (time.process_time() - started) / lines * 1e6
            return found

        def record() -> None:
            for start in range(0, lines, 500):
                journal.add_lines(job.id, rows[start : start + 500], done=start + 500 >= lines)

        def take() -> list:
            batches = []
            while batch := journal.take_batch(job.id, 100, min_size=1, now=time.time()):
                batches.append(batch)
            return batches

        def post(batches: list) -> None:
            for batch in batches:
                journal.posting(batch.id)
                journal.accepted(batch.id, str(uuid.uuid4()))

        def settle(batches: list) -> None:
            for batch in batches:
                journal.settle(
                    batch.id, DONE, [LineUpdate(x.line, COMPLETED, 1) for x in batch.lines]
                )

        timed("record (add_lines)", record)
        batches = timed("take into a batch (take_batch)", take)
        timed("posting + accepted", lambda: post(batches))
        timed("settle COMPLETED", lambda: settle(batches))
        started = time.process_time()
        for _ in range(200):
            journal.job(job.id)
        progress_ms = (time.process_time() - started) / 200 * 1e3
        completed = journal.job(job.id).counts.completed
    if completed != lines:
        raise SystemExit(f"only {completed} of {lines} lines completed")
    return {"lines": lines, "us_per_line": steps, "total_us_per_line": sum(steps.values()),
            "progress_read_ms": progress_ms}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=50_000)
    parser.add_argument("--json", type=Path, help="also write every figure as JSON here")
    args = parser.parse_args()
    facts = machine_facts()
    with tempfile.TemporaryDirectory(prefix="bench-journal-") as tmp:
        found = measure(args.lines, Path(tmp))
    rows = [(step, us) for step, us in found["us_per_line"].items()]
    rows.append(("in all", found["total_us_per_line"]))
    print(describe_machine(facts))
    print(f"\n{args.lines:,} lines; CPU microseconds a line")
    print(table(("step", "us/line"), rows))
    print(f"progress read (Journal.job): {found['progress_read_ms']:.3f} ms")
    if args.json:
        write_json(args.json, {"machine": facts, **found})
    return 0


if __name__ == "__main__":
    sys.exit(main())
