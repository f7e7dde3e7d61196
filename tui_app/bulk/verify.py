"""Settle the lines whose outcome is unknown by reading their profiles back.

A line ends ``UNKNOWN`` when a request holding it may have been imported though its answer
was lost, and its later sends failed only transiently. The export of its profile says
what the service holds: the same data as the line (every section the line carries, and
its Ssn or Tin) settles it COMPLETED; other data, or no such profile, FAILED. Only a line
of which the service has no profile stays retryable: it was never applied, so a retry
sends it as it would have before. One whose profile holds other data does not: that data
may have been written by someone else after the line was applied, and a retry would put
the line's older data over it unasked. A line that a later line of the same profile
follows is SUPERSEDED: the service should hold the later data, so comparing it with this
line says nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from tui_app.bulk.journal import UNKNOWN, Journal
from tui_app.bulk.source import Record, SourceFile, check, verify_unchanged
from tui_app.client.errors import NotFound
from tui_app.client.registry import RegistryClient
from tui_app.contract.errors import ContractError
from tui_app.contract.profile_sets import PROFILE_DATA_SETS, record_from_data_sets

PAGE = 100
NO_PROFILE = "verified: the service has no profile with this ProfileKey"


@dataclass(frozen=True)
class Verified:
    completed: int = 0
    failed: int = 0
    superseded: int = 0

    @property
    def total(self) -> int:
        return self.completed + self.failed + self.superseded


async def verify_job(
    journal: Journal,
    job_id: str,
    client: RegistryClient,
    on_progress: Callable[[Verified], None] | None = None,
) -> Verified:
    """Read back the profile of every UNKNOWN line of the job and settle the line.
    Raises the client's errors when the service cannot be asked (nothing is settled
    for the page being read then; run it again). Journal and file reads run in threads."""
    job = await asyncio.to_thread(journal.job, job_id)
    await asyncio.to_thread(verify_unchanged, job.path, job.fingerprint)
    done = Verified()
    with SourceFile(job.path) as source:
        while True:
            page = await asyncio.to_thread(_page, journal, job.id, source)
            if not page:
                return done
            outcomes = []
            for line, followed, record in page:
                if followed:
                    await asyncio.to_thread(journal.supersede, job.id, line)
                    done = Verified(done.completed, done.failed, done.superseded + 1)
                    continue
                same, why = await _compare(client, record) if record else (False, "unreadable")
                outcomes.append((line, same, why == NO_PROFILE, why))
                done = Verified(done.completed + same, done.failed + (not same), done.superseded)
            await asyncio.to_thread(journal.settle_verified, job.id, outcomes)
            if on_progress is not None:
                on_progress(done)


def _page(
    journal: Journal, job_id: str, source: SourceFile
) -> list[tuple[int, bool, Record | None]]:
    """The next UNKNOWN lines: number, whether a later line follows, the record sent."""
    found = []
    for entry in journal.lines(job_id, states=[UNKNOWN], limit=PAGE):
        line = source.line_at(entry.offset, entry.line)
        record = check(line)[1] if line is not None else None
        found.append((entry.line, journal.followed(job_id, entry.line), record))
    return found


async def _compare(client: RegistryClient, sent: Record) -> tuple[bool, str]:
    """Whether the service holds what ``sent`` carries, and if not, what differs."""
    kind = sent.kind
    names = list(PROFILE_DATA_SETS[kind])
    request = {"profileKey": sent.ProfileKey, "dataSets": names}
    try:
        if kind == "agent":
            answer = await client.export_agent(request)
        else:
            answer = await client.export_agency(request)
    except NotFound:
        return False, NO_PROFILE
    try:
        held = record_from_data_sets(kind, answer.dataSets or [])
    except ContractError as exc:
        return False, f"verified: the service's export cannot be read back: {exc}"
    if held.identity != sent.identity:
        return False, f"verified: the service holds profile {sent.ProfileKey} with another " + (
            "Ssn" if kind == "agent" else "Tin"
        )
    differ = [name for name in sent.sections
              if getattr(sent, name) is not None and getattr(held, name) != getattr(sent, name)]  # fmt: skip
    if differ:
        return False, f"verified: the service holds other data in {', '.join(differ)}"
    return True, ""
