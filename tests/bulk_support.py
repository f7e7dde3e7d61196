"""Builders shared by the bulk tests: records, NDJSON files, a config for a served sandbox,
and what the sandbox's own database says it received. (No tests here.)"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from tui_app.bulk.journal import Journal
from tui_app.bulk.pipeline import Backoff, Settings
from tui_app.client.registry import RegistryClient, RetryPolicy

ADDRESS = {"streetAddress1": "1 Main St", "city": "Austin", "state": "TX", "zip": "73301"}

FAST = Settings(retry=Backoff(0.01, 0.05), poll=Backoff(0.02, 0.2, 1.5))
"""Pipeline settings with short delays, so tests stay fast."""


def agent(key: str, n: int, **demographic: Any) -> dict[str, Any]:
    """A valid bare agent record in the bulk (camelCase) spelling."""
    return {
        "profileKey": key,
        "ssn": f"9{n:08d}",
        "businessAddress": dict(ADDRESS),
        "demographic": {"empStatus": "7040", "firstName": "Ada", "lastName": "Lane", **demographic},
    }


def agency(key: str, n: int) -> dict[str, Any]:
    return {"profileKey": key, "tin": f"8{n:08d}", "demographic": {"firmName": "A", "status": 7040}}


def envelope(record: dict[str, Any], ref: str | None = None, kind: str = "agent") -> dict:
    return {"clientRefId": ref or str(uuid.uuid4()), "data": {kind: record}}


def agents(prefix: str, count: int) -> list[dict[str, Any]]:
    """``count`` enveloped agents with distinct keys, SSNs and clientRefIds."""
    return [envelope(agent(f"{prefix}-{n}", n)) for n in range(1, count + 1)]


def write_ndjson(path: Path, lines: list[dict[str, Any] | str | bytes]) -> Path:
    """One line per item: objects as JSON, text and bytes as given."""
    with open(path, "wb") as file:
        for line in lines:
            if isinstance(line, dict):
                line = json.dumps(line)
            file.write((line.encode() if isinstance(line, str) else line) + b"\n")
    return path


def write_served_config(config_path: Path, url: str, name: str = "served") -> None:
    """A config whose active environment is the served sandbox at ``url``."""
    config_path.parent.mkdir(parents=True, exist_ok=True)
    config_path.write_text(
        f'active = "{name}"\n\n[environments.{name}]\nbase_url = "{url}"\ntimeout = 10.0\n',
        encoding="utf-8",
    )


def fast_client(urls: dict[str, str]) -> RegistryClient:
    return RegistryClient(urls, timeout=10, retry=RetryPolicy(base_delay=0.01, max_delay=0.05))


def received(sandbox_db: Path) -> Counter[str]:
    """How many times the sandbox received each clientRefId, over every bulk request."""
    with sqlite3.connect(f"file:{sandbox_db}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT client_ref_id FROM bulk_items").fetchall()
    return Counter(ref for (ref,) in rows)


def request_sizes(sandbox_db: Path, refs: set[str]) -> list[int]:
    """Records per bulk request the sandbox received, for requests holding any of ``refs``."""
    with sqlite3.connect(f"file:{sandbox_db}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT job_seq, client_ref_id FROM bulk_items").fetchall()
    sizes: Counter[int] = Counter()
    for seq, ref in rows:
        if ref in refs:
            sizes[seq] += 1
    return list(sizes.values())


def journal_refs(journal: Journal, job_id: str) -> dict[int, str]:
    """Line number -> clientRefId of the job's valid lines."""
    return {
        line.line: line.client_ref_id
        for line in journal.lines(job_id)
        if line.state != "INVALID" and line.client_ref_id
    }


def validations_here(monkeypatch) -> list[bytes]:
    """Every line validated by the contract's ``BulkItem`` in this process from now on (a
    checking process has a ``BulkItem`` of its own)."""
    from tui_app.contract.bulk import BulkItem

    seen: list[bytes] = []
    validate = BulkItem.model_validate_json
    monkeypatch.setattr(
        BulkItem,
        "model_validate_json",
        lambda raw, **how: seen.append(raw) or validate(raw, **how),
    )
    return seen


@contextmanager
def named_pipe(path: Path, release_after: float = 5.0) -> Iterator[Path]:
    """A FIFO at ``path``. Should the code under test open it (and so wait for a writer), a
    writer comes after ``release_after`` seconds and leaves at once: the test then fails
    instead of hanging."""
    os.mkfifo(path)

    def release() -> None:
        # Without O_NONBLOCK this would wait for a reader; with it, no reader (as it
        # should be) is an OSError.
        with suppress(OSError):
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))

    timer = threading.Timer(release_after, release)
    timer.start()
    try:
        yield path
    finally:
        timer.cancel()
