"""Bulk pipeline benchmark: records/s and peak memory, end to end and for validation alone.

1. Writes ``--records`` synthetic agent records (bulk envelopes, distinct ProfileKey
   ``BULK-n`` and SSN ``9xxxxxxxx``) to an NDJSON file in a temporary folder.
2. **Validation alone**: a child process streams the file through the pipeline's line
   check (``tui_app.bulk.source.check``: JSON parse plus contract validation), nothing
   recorded or sent. Then the **pre-flight** a user sees on choosing a file
   (``tui_app.bulk.preflight``): the lines checked by a checking process a core
   (``tui_app.bulk.checker``), counted in the caller's; its CPU is all the processes'.
3. **End to end**: a ``producer-tui sandbox serve`` process on a free loopback port (fresh
   database, a registry of 300 agents so it starts fast), and a child process that runs
   ``create_job`` + ``run_job`` against it with ``--concurrency`` requests in flight and a
   fresh journal: validated, journaled, sent in requests of 100, polled to COMPLETE. Every
   record must succeed, or the script exits 1. Client CPU is the run's process and its
   checking process together, and each is shown.

Each phase runs in its own process, so its peak RSS (``ru_maxrss``) is its own; the RSS
after imports is shown beside it, the difference being what the work itself held.

4. **Scaling** (``--scale-to N``): the end-to-end phase again with ``N`` records (a new file,
   a fresh sandbox and journal), and a line comparing the two sizes: records/s and client
   CPU per record at each, and their ratios. A job whose per-record cost grows with its
   size shows a ratio well under 1 for records/s and over 1 for CPU.

    .venv/bin/python benchmarks/bench_bulk.py [--records 100000] [--concurrency 4]
        [--scale-to 1000000] [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import (
    cpu_seconds,
    describe_machine,
    group_urls,
    machine_facts,
    served,
    table,
    write_json,
)

FIRST = ("Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken")
LAST = ("Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson")


def write_records(path: Path, count: int, seed: int = 7) -> None:
    """``count`` valid agent envelopes of about 1 KB each, one per line."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as file:
        for n in range(count):
            first, last = rng.choice(FIRST), rng.choice(LAST)
            address = {"streetAddress1": f"{100 + n % 900} Market St", "city": "Austin",
                       "state": "TX", "zip": "73301", "country": "US"}  # fmt: skip
            record = {
                "profileKey": f"BULK-{n:07d}",
                "ssn": f"9{n:08d}",
                "businessAddress": address,
                "mailingAddress": {**address, "streetAddress2": "Suite 5"},
                "contact": {
                    "businessEmailAddress": f"agent{n}@example.test",
                    "businessPhoneNumber": "5125550100",
                },  # fmt: skip
                "demographic": {
                    "empStatus": "7040",
                    "firstName": first,
                    "lastName": last,
                    "dateOfBirth": "1980-01-01T00:00:00Z",
                    "residentState": "TX",
                    "costCenter": f"CC{n % 50:02d}",
                    "gender": "U",
                    "jobTitle": "Agent",
                    "branchLocation": "Austin",
                },  # fmt: skip
                "hierarchy": {"hierarchyCode": "H1", "manager1": "Morgan Lane"},
            }
            ref = f"00000000-0000-4000-8000-{n:012d}"
            file.write(json.dumps({"clientRefId": ref, "data": {"agent": record}}) + "\n")


def max_rss_mib(who: int = resource.RUSAGE_SELF) -> float:
    """Peak resident memory of this process, or of the largest of its ended children
    (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(who).ru_maxrss
    return peak / (1024 * 1024 if sys.platform == "darwin" else 1024)


def current_rss_mib() -> float:
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except OSError:
        return float("nan")
    return pages * resource.getpagesize() / (1024 * 1024)


# --- the phases, each run in a child process ------------------------------------------


def phase_validate(path: Path) -> dict[str, Any]:
    from tui_app.bulk.source import check
    from tui_app.wire.ndjson import read_raw

    base = current_rss_mib()
    cpu, start = time.process_time(), time.perf_counter()
    valid = lines = 0
    for line in read_raw(path):
        lines += 1
        valid += check(line)[0].valid
    wall = time.perf_counter() - start
    return {"lines": lines, "valid": valid, "seconds": wall, "rec_per_s": lines / wall,
            "cpu_s": time.process_time() - cpu, "rss_after_imports_mib": base,
            "peak_rss_mib": max_rss_mib()}  # fmt: skip


def phase_preflight(path: Path) -> dict[str, Any]:
    from tui_app.bulk.checker import available_cores
    from tui_app.bulk.preflight import preflight

    base = current_rss_mib()
    cpu, children, start = time.process_time(), children_cpu(), time.perf_counter()
    found = preflight(path)
    wall = time.perf_counter() - start
    own, checking = time.process_time() - cpu, children_cpu() - children
    return {"lines": found.records, "valid": found.valid, "seconds": wall,
            "rec_per_s": found.records / wall, "cpu_s": own + checking, "own_cpu_s": own,
            "processes": available_cores(), "rss_after_imports_mib": base,
            "peak_rss_mib": max_rss_mib()}  # fmt: skip


def children_cpu() -> float:
    """CPU seconds of the child processes that ended (a run's checking process)."""
    times = os.times()
    return times.children_user + times.children_system


def phase_pipeline(path: Path, url: str, concurrency: int, journal_db: Path) -> dict[str, Any]:
    from tui_app.bulk.journal import Journal
    from tui_app.bulk.pipeline import Settings, create_job, run_job
    from tui_app.client.registry import RegistryClient

    base = current_rss_mib()

    async def run() -> Any:
        # Generous timeout: on 2 cores a POST may wait behind the sandbox's bulk worker.
        async with RegistryClient(group_urls(url), timeout=120) as client:
            job = create_job(journal, path, "bench")
            return await run_job(journal, job.id, client, Settings(concurrency=concurrency))

    cpu, children, start = time.process_time(), children_cpu(), time.perf_counter()
    with Journal(journal_db) as journal:
        job = asyncio.run(run())
        wall = time.perf_counter() - start
        c = job.counts
        batches = journal.batch_states(job.id)
    own, checking = time.process_time() - cpu, children_cpu() - children
    return {"state": job.state, "lines": c.lines, "completed": c.completed, "failed": c.failed,
            "invalid": c.invalid, "requests": sum(v for k, v in batches.items() if k != "uncertain"),
            "seconds": wall, "rec_per_s": c.lines / wall, "cpu_s": own + checking,
            "own_cpu_s": own, "checking_cpu_s": checking,
            "checking_peak_rss_mib": max_rss_mib(resource.RUSAGE_CHILDREN),
            "rss_after_imports_mib": base, "peak_rss_mib": max_rss_mib(),
            "journal_mib": journal_db.stat().st_size / (1024 * 1024)}  # fmt: skip


def child(*args: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--phase", *args], capture_output=True, text=True
    )
    if out.returncode:
        raise RuntimeError(f"the {args[0]} phase failed:\n{out.stderr}")
    return json.loads(out.stdout)


# --- the run ----------------------------------------------------------------------------


def run(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {"machine": machine_facts(), "settings": vars(args) | {"json": None}}
    with tempfile.TemporaryDirectory(prefix="bench-bulk-") as tmp:
        data = Path(tmp) / "records.ndjson"
        built = time.perf_counter()
        write_records(data, args.records)
        results["file"] = {"mib": data.stat().st_size / (1024 * 1024),
                           "build_s": time.perf_counter() - built}  # fmt: skip
        results["validate"] = child("validate", str(data))
        results["preflight"] = child("preflight", str(data))
        results["pipeline"], results["server_cpu_s"] = end_to_end(Path(tmp), data, args)
        if args.scale_to:
            data.unlink()
            big = Path(tmp) / "scaled.ndjson"
            write_records(big, args.scale_to)
            results["scaled"], results["scaled_server_cpu_s"] = end_to_end(Path(tmp), big, args)
    return results


def end_to_end(folder: Path, data: Path, args: argparse.Namespace) -> tuple[dict, float | None]:
    """The pipeline phase against a fresh sandbox and journal; its figures and the
    sandbox's CPU seconds."""
    for stale in folder.glob("sandbox.db*"):
        stale.unlink()
    journal = folder / "j.db"
    journal.unlink(missing_ok=True)
    with served(folder / "sandbox.db", "--size", "300") as server:
        cpu0 = cpu_seconds(server.process)
        found = child("pipeline", str(data), server.url, str(args.concurrency), str(journal))
        cpu1 = cpu_seconds(server.process)
    return found, None if cpu0 is None or cpu1 is None else cpu1 - cpu0


def scaling_line(small: dict[str, Any], big: dict[str, Any]) -> str:
    """Records/s and client CPU per record at two sizes, and how they compare."""
    cpu_small = small["cpu_s"] / small["lines"] * 1e6
    cpu_big = big["cpu_s"] / big["lines"] * 1e6
    return (
        f"scaling: {small['lines']:,} -> {big['lines']:,} records: "
        f"{small['rec_per_s']:,.0f} -> {big['rec_per_s']:,.0f} rec/s "
        f"(ratio {big['rec_per_s'] / small['rec_per_s']:.2f}); client CPU "
        f"{cpu_small:.0f} -> {cpu_big:.0f} us/record (ratio {cpu_big / cpu_small:.2f}); "
        f"peak RSS {small['peak_rss_mib']:.0f} -> {big['peak_rss_mib']:.0f} MiB"
    )


def report(results: dict[str, Any]) -> str:
    v, f, p = results["validate"], results["preflight"], results["pipeline"]
    file = results["file"]
    out = [
        describe_machine(results["machine"]),
        f"\n{v['lines']:,} agent records, {file['mib']:.1f} MiB of NDJSON; "
        f"{results['settings']['concurrency']} requests in flight, 100 records a request",
        table(
            ("phase", "seconds", "records/s", "CPU s", "RSS after imports MiB", "peak RSS MiB"),
            [
                (
                    "validation alone (stream + check)",
                    v["seconds"],
                    v["rec_per_s"],
                    v["cpu_s"],
                    v["rss_after_imports_mib"],
                    v["peak_rss_mib"],
                ),
                (
                    f"pre-flight ({f['processes']} checking processes + counting)",
                    f["seconds"],
                    f["rec_per_s"],
                    f["cpu_s"],
                    f["rss_after_imports_mib"],
                    f["peak_rss_mib"],
                ),
                (
                    "end to end (validate, journal, send, poll)",
                    p["seconds"],
                    p["rec_per_s"],
                    p["cpu_s"],
                    p["rss_after_imports_mib"],
                    p["peak_rss_mib"],
                ),
            ],
        ),  # fmt: skip
        f"end to end: {p['requests']:,} requests, job {p['state']}; {p['completed']:,} completed, "
        f"{p['failed']:,} failed, {p['invalid']:,} invalid; journal {p['journal_mib']:.1f} MiB; "
        f"client CPU {p['cpu_s'] / p['lines'] * 1e6:.0f} us/record (the run's interpreter "
        f"{p['own_cpu_s'] / p['lines'] * 1e6:.0f}, its checking process "
        f"{p['checking_cpu_s'] / p['lines'] * 1e6:.0f}, peak RSS "
        f"{p['checking_peak_rss_mib']:.0f} MiB); sandbox CPU "
        + (
            "n/a"
            if results["server_cpu_s"] is None
            else f"{results['server_cpu_s']:.1f} s "
            f"({results['server_cpu_s'] / p['lines'] * 1e6:.0f} us/record)"
        ),
    ]
    if "scaled" in results:
        out.append(scaling_line(p, results["scaled"]))
    out.append(goals(results))
    return "\n".join(out)


GOALS = (  # issue 12's, for 2 cores: (what, its figure, at least or at most, the goal)
    ("validation alone, records/s", lambda r: r["validate"]["rec_per_s"], ">=", 50_000),
    ("validation, a process a core (pre-flight)",
     lambda r: r["preflight"]["rec_per_s"], ">=", 50_000),
    ("end to end, records/s", lambda r: r["pipeline"]["rec_per_s"], ">=", 10_000),
    ("client CPU per 100,000 records, s",
     lambda r: r["pipeline"]["cpu_s"] / r["pipeline"]["lines"] * 100_000, "<=", 9),
    ("client peak RSS, MiB (the largest run)",
     lambda r: r.get("scaled", r["pipeline"])["peak_rss_mib"], "<", 100),
)  # fmt: skip


def goals(results: dict[str, Any]) -> str:
    rows = []
    for what, figure, how, goal in GOALS:
        value = figure(results)
        met = {">=": value >= goal, "<=": value <= goal, "<": value < goal}[how]
        rows.append((what, value, f"{how} {goal:,}", "yes" if met else "no"))
    return "\n" + table(("goal", "measured", "goal", "met"), rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument(
        "--scale-to",
        type=int,
        help="also run end to end with this many records and compare (e.g. 1000000)",
    )
    parser.add_argument("--json", type=Path, help="also write every figure as JSON here")
    parser.add_argument("--phase", nargs="+", help=argparse.SUPPRESS)  # a child's work
    args = parser.parse_args()
    if args.phase:
        name, *rest = args.phase
        if name == "validate":
            found = phase_validate(Path(rest[0]))
        elif name == "preflight":
            found = phase_preflight(Path(rest[0]))
        else:
            found = phase_pipeline(Path(rest[0]), rest[1], int(rest[2]), Path(rest[3]))
        print(json.dumps(found))
        return 0
    results = run(args)
    print(report(results))
    if args.json:
        write_json(args.json, results)
    runs = [(results["pipeline"], args.records)]
    if args.scale_to:
        runs.append((results["scaled"], args.scale_to))
    return 0 if all(p["state"] == "DONE" and p["completed"] == n for p, n in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
