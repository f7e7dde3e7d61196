"""Load benchmark: many concurrent mixed clients against one served sandbox, plus abuse.

A real ``producer-tui sandbox serve`` process (fresh temporary database, ``--size``
individuals) is driven by ``--clients`` concurrent clients for ``--seconds``, each looping
over a fixed mix of what a team does with a shared sandbox: NAME searches, full-record
GETs, orders and their status, single XML imports, exports, small bulk requests and
status polls of them. Meanwhile (unless ``--no-abuse``) one more client sends what took
the old server down: a chunked 256 MiB POST, a 20,000-record bulk request (then polls its
status), a 1,000-level-deep XML document and a 100,000-level-deep JSON body.

Reported: throughput (answers per second), p50/p95/p99 latency per kind and overall, the
count of 5xx answers, what each abusive request got, and the server's peak memory (VmHWM
of the server process, plus the highest VmRSS sampled every 20 ms).

    .venv/bin/python benchmarks/bench_load.py [--clients 50] [--seconds 20] [--size 2000]
        [--no-abuse] [--json results.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import threading
import time
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx
from _common import describe_machine, latency_summary, machine_facts, served, table, write_json

from tui_app.contract.bulk import BulkItem
from tui_app.contract.profile import AgentRecord
from tui_app.sandbox.synthetic import FIRST_NAMES, LAST_NAMES, demo_order
from tui_app.wire.xml import dump_xml

MIX = (
    ("name_search", 25),
    ("get_record", 20),
    ("order_submit", 10),
    ("order_status", 10),
    ("import_xml", 5),
    ("export", 10),
    ("bulk_submit", 5),
    ("bulk_status", 15),
)
BULK_RECORDS = 10
"""Records per bulk request of the mix (the interface recommends 100 or fewer)."""
MIB = 1024 * 1024


def agent(n: int, rng: random.Random) -> AgentRecord:
    return AgentRecord(
        ProfileKey=f"LOAD-{n:08d}",
        Ssn=f"9{n % 10**8:08d}",
        BusinessAddress={
            "StreetAddress1": "1 Main St",
            "City": "Austin",
            "State": "TX",
            "Zip": "73301",
        },
        Demographic={
            "EmpStatus": "7040",
            "FirstName": rng.choice(FIRST_NAMES),
            "LastName": rng.choice(LAST_NAMES),
        },
    )


def ndjson(records: list[AgentRecord]) -> bytes:
    return b"".join(json.dumps(BulkItem.wrap(r).to_line()).encode() + b"\n" for r in records)


class Memory:
    """Samples the server's resident memory every 20 ms in a thread."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak_rss, self.samples = pid, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _field(self, name: str) -> int:
        try:
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith(name + ":"):
                    return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 0

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            self.peak_rss = max(self.peak_rss, self._field("VmRSS"))
            self.samples += 1

    def start(self) -> Memory:
        self.baseline = self._field("VmRSS")
        self._thread.start()
        return self

    def stop(self) -> dict[str, float]:
        self._stop.set()
        self._thread.join()
        return {
            "baseline_mib": self.baseline / MIB,
            "peak_rss_sampled_mib": self.peak_rss / MIB,
            "vm_hwm_mib": self._field("VmHWM") / MIB,
        }


async def run_clients(url: str, clients: int, seconds: float, seed: int) -> dict[str, Any]:
    latencies: dict[str, list[float]] = defaultdict(list)
    statuses: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    jobs: list[str] = []
    orders: list[str] = []
    counter = iter(range(10**9))
    deadline = time.monotonic() + seconds
    kinds, weights = zip(*MIX, strict=True)

    async def one(http: httpx.AsyncClient, rng: random.Random, kind: str) -> httpx.Response:
        if kind == "name_search":
            body = {
                "SearchType": "NAME",
                "FirstName": rng.choice(FIRST_NAMES)[:2],
                "LastName": rng.choice(LAST_NAMES)[:3],
            }
            return await http.post("/producerpdbsearch/v1/agent/search", json=body)
        if kind == "get_record":
            return await http.get("/producerpdbsearch/v1/agent", params={"Npn": 19000001})
        if kind == "order_submit":
            num = f"LOAD{next(counter)}"
            orders.append(num)
            return await http.post(
                "/producertransaction/v1/order", json=demo_order(num, user="load")
            )
        if kind == "order_status":
            num = rng.choice(orders) if orders else "NONE"
            return await http.get("/producertransaction/v1/order/status", params={"order_num": num})
        if kind == "import_xml":
            body = dump_xml(agent(next(counter), rng), "Agent")
            return await http.post(
                "/producerimport/v1/agents",
                content=body,
                headers={"Content-Type": "application/xml"},
            )
        if kind == "export":
            return await http.post(
                "/producerexport/v1/agents/export",
                json={
                    "profileKey": f"LOAD-{rng.randrange(1, 50):08d}",
                    "dataSets": ["Address", "Demographic"],
                },
            )
        if kind == "bulk_submit":
            records = [agent(next(counter), rng) for _ in range(BULK_RECORDS)]
            answer = await http.post(
                "/bulk/v1/profile",
                content=ndjson(records),
                headers={"Content-Type": "application/x-ndjson"},
            )
            if answer.status_code == 202:
                jobs.append(answer.json()["bulkRequestId"])
            return answer
        job = rng.choice(jobs[-50:]) if jobs else str(uuid.uuid4())
        return await http.get(f"/bulk/v1/status/{job}")

    async def client(n: int) -> None:
        rng = random.Random(seed * 1000 + n)
        async with httpx.AsyncClient(base_url=url, timeout=60) as http:
            while time.monotonic() < deadline:
                kind = rng.choices(kinds, weights)[0]
                start = time.perf_counter()
                try:
                    answer = await one(http, rng, kind)
                    code = answer.status_code
                except httpx.HTTPError:
                    code = 0  # connection reset or timeout
                latencies[kind].append(time.perf_counter() - start)
                statuses[kind][code] += 1

    start = time.perf_counter()
    await asyncio.gather(*(client(n) for n in range(clients)))
    wall = time.perf_counter() - start
    every = [s for values in latencies.values() for s in values]
    return {
        "clients": clients,
        "wall_s": wall,
        "overall": latency_summary(every, wall),
        "by_kind": {k: latency_summary(v, wall) for k, v in sorted(latencies.items())},
        "statuses": {k: dict(v) for k, v in sorted(statuses.items())},
        "server_errors": sum(
            n for v in statuses.values() for c, n in v.items() if c >= 500 or c == 0
        ),
    }


def abusive_bodies() -> dict[str, bytes]:
    """Built before the clock starts: building 20,000 records takes the client seconds,
    which would stall every client of this process and show up as server latency."""
    rng = random.Random(5)
    return {
        "bulk": ndjson([agent(50_000_000 + n, rng) for n in range(20_000)]),
        "xml": b"<Agent>" + b"<a>" * 1000 + b"</a>" * 1000 + b"</Agent>",
        "json": b"[" * 100_000 + b"]" * 100_000,
    }


async def abuse(url: str, delay: float, bodies: dict[str, bytes]) -> dict[str, Any]:
    """The requests that once took the server down, one after another."""
    await asyncio.sleep(delay)
    found: dict[str, Any] = {}
    async with httpx.AsyncClient(base_url=url, timeout=120) as http:

        async def chunks():
            piece = b" " * MIB
            for _ in range(256):
                yield piece

        async def attempt(name: str, call) -> httpx.Response | None:
            start = time.perf_counter()
            try:
                answer = await call()
                found[name] = {
                    "status": answer.status_code,
                    "seconds": time.perf_counter() - start,
                    "bytes": len(answer.content),
                }
                return answer
            except httpx.HTTPError as exc:
                found[name] = {
                    "status": f"{type(exc).__name__}",
                    "seconds": time.perf_counter() - start,
                }
                return None

        await attempt(
            "chunked_256MiB",
            lambda: http.post(
                "/producerpdbsearch/v1/agent/search",
                content=chunks(),
                headers={"Content-Type": "application/json"},
            ),
        )
        answer = await attempt(
            "bulk_20000_records",
            lambda: http.post(
                "/bulk/v1/profile",
                content=bodies["bulk"],
                headers={"Content-Type": "application/x-ndjson"},
            ),
        )
        if answer is not None and answer.status_code == 202:
            job = answer.json()["bulkRequestId"]
            polls = []
            for _ in range(5):
                start = time.perf_counter()
                reply = await http.get(f"/bulk/v1/status/{job}")
                polls.append((time.perf_counter() - start, len(reply.content)))
            found["bulk_20000_status_polls"] = {
                "max_seconds": max(p[0] for p in polls),
                "max_bytes": max(p[1] for p in polls),
            }
        await attempt(
            "xml_1000_deep",
            lambda: http.post(
                "/producerimport/v1/agents",
                content=bodies["xml"],
                headers={"Content-Type": "application/xml"},
            ),
        )
        await attempt(
            "json_100000_deep",
            lambda: http.post(
                "/producerpdbsearch/v1/agent/search",
                content=bodies["json"],
                headers={"Content-Type": "application/json"},
            ),
        )
    return found


async def drive(url: str, args: argparse.Namespace) -> dict[str, Any]:
    bodies = abusive_bodies() if args.abuse else {}
    tasks = [run_clients(url, args.clients, args.seconds, args.seed)]
    if args.abuse:
        tasks.append(abuse(url, min(3.0, args.seconds / 4), bodies))
    results = await asyncio.gather(*tasks)
    return {"load": results[0], "abuse": results[1] if args.abuse else None}


def run(args: argparse.Namespace) -> dict[str, Any]:
    facts = machine_facts()
    with (
        tempfile.TemporaryDirectory() as tmp,
        served(Path(tmp) / "load.db", "--size", str(args.size)) as server,
    ):
        memory = Memory(server.process.pid).start()
        results = asyncio.run(drive(server.url, args))
        results["memory"] = memory.stop()
        results["startup_s"] = server.startup_seconds
    results["machine"] = facts
    results["settings"] = {
        "clients": args.clients,
        "seconds": args.seconds,
        "size": args.size,
        "abuse": args.abuse,
    }
    return results


def report(results: dict[str, Any]) -> str:
    load = results["load"]
    rows = [
        (kind, s["n"], s["p50_ms"], s["p95_ms"], s["p99_ms"], s["max_ms"])
        for kind, s in [*load["by_kind"].items(), ("all", load["overall"])]
    ]
    memory = results["memory"]
    lines = [
        describe_machine(results["machine"]),
        "",
        f"{load['clients']} concurrent clients for {load['wall_s']:.1f} s: "
        f"{load['overall']['req_per_s']:,.0f} answers/s, "
        f"p50 {load['overall']['p50_ms']:.1f} ms, p99 {load['overall']['p99_ms']:.1f} ms, "
        f"{load['server_errors']} server errors (5xx or reset)",
        "",
        table(("kind", "n", "p50 ms", "p95 ms", "p99 ms", "max ms"), rows),
        "",
        "status codes: "
        + "; ".join(
            f"{k} " + ", ".join(f"{c}×{n}" for c, n in sorted(v.items()))
            for k, v in load["statuses"].items()
        ),
        "",
        f"server memory: {memory['baseline_mib']:.0f} MiB at start, peak "
        f"{memory['vm_hwm_mib']:.0f} MiB (VmHWM; sampled peak "
        f"{memory['peak_rss_sampled_mib']:.0f} MiB)",
    ]
    if results["abuse"]:
        lines.append("")
        lines.append("abuse:")
        for name, found in results["abuse"].items():
            lines.append(
                f"  {name}: "
                + ", ".join(
                    f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}" for k, v in found.items()
                )
            )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--size", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-abuse", dest="abuse", action="store_false")
    parser.add_argument("--json", type=Path, help="also write every figure as JSON here")
    args = parser.parse_args()
    results = run(args)
    print(report(results))
    if args.json:
        write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
