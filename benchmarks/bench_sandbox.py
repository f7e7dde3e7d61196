"""Sandbox benchmark: bulk ingest throughput and search latency, through RegistryClient.

1. Bulk ingest against a served sandbox (a real ``producer-tui sandbox serve`` process on a
   free loopback port, fresh temporary database): synthetic agent records submitted in
   requests of ``--batch`` with ``--concurrency`` requests in flight, each request's
   ``bulk_status`` polled from its acceptance until it is COMPLETE (as many pollers as
   senders). Every record must succeed, or the script exits 1.
2. Search latency, one request at a time as the TUI sends them: a fixed mix of NAME prefix
   searches, SSN / NPN / LICENSE searches of the demo agent and full-record GETs, first
   against the served sandbox (loopback socket), then against the embedded one (the same
   app in-process through ``httpx.ASGITransport``, which the TUI uses by default).

    .venv/bin/python benchmarks/bench_sandbox.py [--records 10000] [--batch 100]
        [--concurrency 4] [--searches 500] [--size 5000] [--json results.json]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import httpx
from _common import (
    cpu_seconds,
    describe_machine,
    group_urls,
    latency_summary,
    machine_facts,
    served,
    table,
    write_json,
)

from tui_app.client.registry import RegistryClient
from tui_app.config import EMBEDDED_BASE_URL
from tui_app.contract.bulk import BulkItem
from tui_app.contract.profile import AgentRecord
from tui_app.sandbox.synthetic import DEMO_AGENT_NPN, FIRST_NAMES, LAST_NAMES

DEMO_SSN, DEMO_LAST = "000121234", "Sample"
DEMO_LICENSES = (("CA", "0H19001"), ("TX", "2190001"))
MIX = (("NAME", 40), ("SSN", 10), ("NPN", 10), ("LICENSE", 10), ("GET", 30))
"""Search kinds and their share (percent) of the search mix."""
WARMUP = 20


# --- bulk ingest ---------------------------------------------------------------------------


def make_items(count: int, seed: int) -> list[BulkItem]:
    """Valid, distinct agent records (ProfileKey BENCH-n, SSN 9xxxxxxxx: never issued)."""
    rng = random.Random(seed)
    items = []
    for n in range(count):
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        record = AgentRecord(
            ProfileKey=f"BENCH-{n:07d}",
            Ssn=f"9{n:08d}",
            BusinessAddress={
                "StreetAddress1": f"{100 + n % 900} Market St",
                "City": "Austin",
                "State": "TX",
                "Zip": "73301",
                "Country": "US",
            },
            Contact={"BusinessEmailAddress": f"agent{n}@example.test"},
            Demographic={
                "EmpStatus": "7040",
                "FirstName": first,
                "LastName": last,
                "DateOfBirth": "1980-01-01T00:00:00Z",
                "ResidentState": "TX",
                "CostCenter": f"CC{n % 50:02d}",
            },
            Hierarchy={"HierarchyCode": "H1", "Manager1": "Morgan Lane"},
        )
        items.append(BulkItem.wrap(record, client_ref_id=f"00000000-0000-4000-8000-{n:012d}"))
    return items


async def ingest(
    client: RegistryClient,
    items: list[BulkItem],
    *,
    batch: int,
    concurrency: int,
    poll: float,
    server_cpu: Callable[[], float | None],
) -> dict[str, Any]:
    batches = [items[i : i + batch] for i in range(0, len(items), batch)]
    post_seconds: list[float] = []
    polls, success, failures, errors = 0, 0, 0, []
    todo = iter(batches)  # shared by the senders: each takes the next batch
    accepted_ids: asyncio.Queue[str | None] = asyncio.Queue()

    async def sender() -> None:
        for records in todo:
            sent = time.perf_counter()
            accepted_ids.put_nowait((await client.bulk_submit(records)).bulkRequestId)
            post_seconds.append(time.perf_counter() - sent)

    async def poller() -> None:  # follows each request from its acceptance to COMPLETE
        nonlocal polls, success, failures
        while (job := await accepted_ids.get()) is not None:
            while True:
                polls += 1
                status = await client.bulk_status(job)
                if status.complete:
                    break
                await asyncio.sleep(poll)
            details = status.operationDetails
            success, failures = success + details.success, failures + details.failures
            errors.extend(m for item in details.requestItems for m in item.errorMessage if m)

    cpu0, server0 = time.process_time(), server_cpu()
    start = time.perf_counter()
    pollers = [asyncio.create_task(poller()) for _ in range(concurrency)]
    await asyncio.gather(*(sender() for _ in range(concurrency)))
    accepted = time.perf_counter() - start
    for _ in pollers:
        accepted_ids.put_nowait(None)
    await asyncio.gather(*pollers)
    done = time.perf_counter() - start
    server1 = server_cpu()
    return {
        "records": len(items),
        "requests": len(batches),
        "batch": batch,
        "concurrency": concurrency,
        "accepted_s": accepted,
        "end_to_end_s": done,
        "accepted_rec_per_s": len(items) / accepted,
        "end_to_end_rec_per_s": len(items) / done,
        "post": latency_summary(post_seconds),
        "status_polls": polls,
        "success": success,
        "failures": failures,
        "first_errors": errors[:5],
        "client_cpu_s": time.process_time() - cpu0,
        "server_cpu_s": None if server0 is None or server1 is None else server1 - server0,
    }


# --- search latency ------------------------------------------------------------------------

Op = tuple[str, Any]


def search_plan(count: int, seed: int, npns: list[int]) -> list[Op]:
    """A fixed, shuffled mix of searches and full-record GETs."""
    rng = random.Random(seed)
    kinds = [kind for kind, share in MIX for _ in range(share)]
    plan: list[Op] = []
    for i in range(count):
        kind = kinds[i * len(kinds) // count]  # the mix's shares, for any count
        if kind == "NAME":  # prefixes of 1-4 letters: from hundreds of hits (capped) to few
            first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
            query = {
                "SearchType": "NAME",
                "FirstName": first[: rng.randint(1, 4)],
                "LastName": last[: rng.randint(1, 4)],
            }
        elif kind == "SSN":
            query = {"SearchType": "SSN", "Ssn": DEMO_SSN, "LastName": DEMO_LAST}
        elif kind == "NPN":
            query = {"SearchType": "NPN", "Npn": DEMO_AGENT_NPN}
        elif kind == "LICENSE":
            state, number = rng.choice(DEMO_LICENSES)
            query = {
                "SearchType": "LICENSE",
                "LicenseJurisdiction": state,
                "LicenseNumber": number,
            }
        else:
            query = rng.choice(npns)
        plan.append((kind, query))
    rng.shuffle(plan)
    return plan


async def sample_npns(client: RegistryClient, count: int = 200) -> list[int]:
    """NPNs of registry agents for the GETs: the demo agent and hits of a few searches."""
    npns = [DEMO_AGENT_NPN]
    for last in ("A", "M", "S", "W"):
        found = await client.search_agents(
            {"SearchType": "NAME", "FirstName": "A", "LastName": last}
        )
        npns += [hit.Npn for hit in found.IndividualsSummaryInfo.Individuals]
    return npns[:count]


async def run_op(client: RegistryClient, op: Op) -> bool:
    """Send one operation; True when the answer is what the registry must hold."""
    kind, query = op
    if kind == "GET":
        found = await client.get_agent(query)
        return found.NiprFullInfo is not None
    hits = (await client.search_agents(query)).IndividualsSummaryInfo.Individuals
    if kind == "NAME":
        return True  # a short prefix pair may well match no one
    return [hit.Npn for hit in hits] == [DEMO_AGENT_NPN]


async def searches(client: RegistryClient, plan: list[Op]) -> dict[str, Any]:
    for op in plan[:WARMUP]:
        await run_op(client, op)
    by_kind: dict[str, list[float]] = {}
    wrong = 0
    cpu0 = time.process_time()
    start = time.perf_counter()
    for op in plan:
        sent = time.perf_counter()
        wrong += not await run_op(client, op)
        by_kind.setdefault(op[0], []).append(time.perf_counter() - sent)
    wall = time.perf_counter() - start
    every = [s for samples in by_kind.values() for s in samples]
    return {
        "all": latency_summary(every, wall),
        "kinds": {kind: latency_summary(by_kind[kind]) for kind, _ in MIX if kind in by_kind},
        "wrong_answers": wrong,
        "client_cpu_s": time.process_time() - cpu0,
    }


async def embedded_searches(db: Path, args: argparse.Namespace, plan: list[Op]):
    """The same searches through the in-process app, as the TUI's default environment."""
    from tui_app.sandbox.app import Sandbox, SandboxSettings, create_app

    started = time.perf_counter()
    sandbox = Sandbox(SandboxSettings(db_path=db, seed=args.seed, size=args.size, today=args.today))
    await asyncio.to_thread(sandbox.start)
    seeded = time.perf_counter() - started
    transport = httpx.ASGITransport(app=create_app(sandbox, manage=False))
    try:
        async with RegistryClient(group_urls(EMBEDDED_BASE_URL), transport=transport) as client:
            result = await searches(client, plan)
    finally:
        await asyncio.to_thread(sandbox.stop)
    return result, seeded


# --- the run -------------------------------------------------------------------------------


async def run(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {
        "machine": machine_facts(),
        "settings": {k: str(v) if isinstance(v, Path | date) else v for k, v in vars(args).items()},
    }
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as tmp:
        serve_args = (f"--size={args.size}", f"--seed={args.seed}", f"--today={args.today}")
        with served(Path(tmp) / "served.db", *serve_args) as server:
            results["served_ready_s"] = server.startup_seconds
            # Generous timeout: on 2 cores a POST may wait behind the bulk worker.
            async with RegistryClient(group_urls(server.url), timeout=120) as client:
                if args.records:
                    built = time.perf_counter()
                    items = make_items(args.records, args.seed)
                    results["build_s"] = time.perf_counter() - built
                    results["bulk"] = await ingest(
                        client,
                        items,
                        batch=args.batch,
                        concurrency=args.concurrency,
                        poll=args.poll,
                        server_cpu=lambda: cpu_seconds(server.process),
                    )
                    del items
                if args.searches:
                    plan = search_plan(args.searches, args.seed, await sample_npns(client))
                    results["search_served"] = await searches(client, plan)
        if args.searches and not args.no_embedded:
            found, seeded = await embedded_searches(Path(tmp) / "embedded.db", args, plan)
            results["search_embedded"], results["embedded_seed_s"] = found, seeded
    return results


def report(results: dict[str, Any]) -> str:
    out = [describe_machine(results["machine"])]
    out.append(
        f"served sandbox ready in {results['served_ready_s']:.2f} s "
        f"(start-up and seeding {results['settings']['size']:,} agents)"
    )
    if "embedded_seed_s" in results:
        out.append(f"embedded sandbox seeded in {results['embedded_seed_s']:.2f} s (in-process)")
    if bulk := results.get("bulk"):
        out.append(
            f"\nBulk ingest, served: {bulk['records']:,} agent records in {bulk['requests']:,} "
            f"requests of {bulk['batch']}, {bulk['concurrency']} in flight "
            f"(records built and validated client-side in {results['build_s']:.2f} s)"
        )
        out.append(
            table(
                ("phase", "seconds", "records/s"),
                [
                    (
                        "accepted (every POST answered)",
                        bulk["accepted_s"],
                        bulk["accepted_rec_per_s"],
                    ),
                    (
                        "end to end (every request COMPLETE)",
                        bulk["end_to_end_s"],
                        bulk["end_to_end_rec_per_s"],
                    ),
                ],
            )
        )
        post = bulk["post"]
        server_cpu = bulk["server_cpu_s"]
        out.append(
            f"POST latency p50 {post['p50_ms']:.1f} ms, p95 {post['p95_ms']:.1f} ms, max "
            f"{post['max_ms']:.1f} ms; {bulk['status_polls']} status polls; CPU: client "
            f"{bulk['client_cpu_s']:.1f} s, server "
            + ("n/a" if server_cpu is None else f"{server_cpu:.1f} s")
        )
        verdict = "OK" if bulk["failures"] == 0 and bulk["success"] == bulk["records"] else "BAD"
        out.append(f"result: {bulk['success']:,} succeeded, {bulk['failures']:,} failed  {verdict}")
        for message in bulk["first_errors"]:
            out.append(f"  e.g. {message}")
    rows = []
    for path in ("served", "embedded"):
        found = results.get(f"search_{path}")
        if not found:
            continue
        for kind, s in (("all", found["all"]), *found["kinds"].items()):
            rate = s.get("req_per_s", "")
            rows.append(
                (f"{path} {kind}", s["n"], s["p50_ms"], s["p95_ms"], s["p99_ms"], s["max_ms"], rate)
            )
    if rows:
        out.append(
            "\nSearch latency, one request at a time (ms); NAME = prefix searches, "
            "GET = full record"
        )
        out.append(table(("path kind", "n", "p50", "p95", "p99", "max", "req/s"), rows))
        for path in ("served", "embedded"):
            if wrong := results.get(f"search_{path}", {}).get("wrong_answers"):
                out.append(f"{path}: {wrong} searches of the demo agent did not find it  BAD")
    return "\n".join(out)


def ok(results: dict[str, Any]) -> bool:
    bulk = results.get("bulk")
    if bulk and (bulk["failures"] or bulk["success"] != bulk["records"]):
        return False
    return not any(
        results.get(f"search_{p}", {}).get("wrong_answers") for p in ("served", "embedded")
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=10_000, help="bulk records (0 skips)")
    parser.add_argument("--batch", type=int, default=100, help="records per bulk request")
    parser.add_argument("--concurrency", type=int, default=4, help="bulk requests in flight")
    parser.add_argument("--poll", type=float, default=0.1, help="seconds between status polls")
    parser.add_argument("--searches", type=int, default=500, help="timed searches (0 skips)")
    parser.add_argument("--no-embedded", action="store_true", help="skip the in-process path")
    parser.add_argument("--size", type=int, default=5000, help="agents in the registry")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument(
        "--today",
        type=date.fromisoformat,
        default=date.today(),
        help="the registry's date anchor (same for both sandboxes)",
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write results as JSON")
    args = parser.parse_args(argv)
    if args.batch < 1 or args.concurrency < 1 or args.records < 0 or args.searches < 0:
        parser.error("--batch and --concurrency must be at least 1, counts not negative")
    results = asyncio.run(run(args))
    print(report(results))
    if args.json:
        write_json(args.json, results)
        print(f"\nwrote {args.json}")
    return 0 if ok(results) else 1


if __name__ == "__main__":
    sys.exit(main())
