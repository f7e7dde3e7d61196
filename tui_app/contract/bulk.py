"""Bulk profile import: the NDJSON line envelope, the accepted body and the status body.

Values the spec does not show, chosen by the sandbox and documented in the README: while a
request is being processed ``processingStatus`` is ``PENDING`` or ``PROCESSING`` and records
are ``PENDING``; a request in which every record failed has ``operationDetails.status``
``FAILURE``. The status body is read tolerantly: other words are accepted (known synonyms
of COMPLETED and FAILED normalised, the rest kept verbatim) and counts that do not add up
are reported by :meth:`BulkStatus.problems`, not refused.
"""

from __future__ import annotations

import re
import uuid
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, model_validator
from pydantic_core import PydanticCustomError

from tui_app.contract.base import ContractModel, Habit, ResponseModel
from tui_app.contract.profile import AgencyRecord, AgentRecord

MAX_RECOMMENDED_BATCH = 100
"""The spec's recommended number of records per bulk request."""


GUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
"""A GUID in its hyphenated 36-character form (the usual one: no UUID needs building)."""


_ANY_GUID = re.compile(r"(urn:uuid:)?\{?[0-9a-fA-F-]{32,36}\}?")


def _check_guid(value: Any) -> Any:
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, str) and not GUID.fullmatch(value):
        try:
            if not _ANY_GUID.fullmatch(value):
                raise ValueError
            uuid.UUID(value)
        except ValueError:
            raise PydanticCustomError(
                "guid", "must be a GUID such as 3f2504e0-4f89-11d3-9a0c-0305e82c3301"
            ) from None
    return value


Guid = Annotated[
    str,
    BeforeValidator(_check_guid),
    Habit(
        lambda v: not isinstance(v, str) or bool(GUID.fullmatch(v)),
        "is a GUID but not in its hyphenated 36-character form; it is sent as written",
    ),
]
"""A GUID in any form the spec's "GUID string" allows (hyphenated, 32 hex digits, in
braces, urn:uuid:), kept as written; all but the hyphenated form warn."""


class BulkData(ContractModel):
    """Exactly one of ``agent`` and ``agency``."""

    agent: AgentRecord | None = None
    agency: AgencyRecord | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> BulkData:
        if (self.agent is None) == (self.agency is None):
            raise PydanticCustomError("one_of", "must hold exactly one of agent or agency")
        return self

    @property
    def record(self) -> AgentRecord | AgencyRecord:
        return self.agent or self.agency  # type: ignore[return-value]


class BulkItem(ContractModel):
    """One line of a bulk request body."""

    clientRefId: Guid
    data: BulkData

    @classmethod
    def wrap(cls, record: AgentRecord | AgencyRecord, client_ref_id: str | None = None) -> BulkItem:
        """Put a bare record in an envelope, with a new GUID unless one is given."""
        ref = client_ref_id or str(uuid.uuid4())
        data = (
            BulkData(agent=record) if isinstance(record, AgentRecord) else BulkData(agency=record)
        )
        return cls(clientRefId=ref, data=data)

    def to_line(self) -> dict[str, Any]:
        """The NDJSON form: camelCase record keys, nulls left out."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class BulkAccepted(ResponseModel):
    bulkRequestId: str


ItemStatus = Literal["COMPLETED", "FAILED", "PENDING"]

PROCESSING_FINAL = frozenset({
    "COMPLETE", "COMPLETED", "DONE", "FINISHED", "PROCESSED", "SUCCESS", "PARTIAL_SUCCESS",
    "FAILURE", "FAILED", "ERROR",
})  # fmt: skip
"""``processingStatus`` words that say the request is finished: COMPLETE is the one the
spec shows; the others are what other services say."""

_ITEM_WORDS = {
    "COMPLETED": "COMPLETED", "COMPLETE": "COMPLETED", "SUCCESS": "COMPLETED",
    "SUCCEEDED": "COMPLETED", "OK": "COMPLETED", "DONE": "COMPLETED",
    "FAILED": "FAILED", "FAILURE": "FAILED", "ERROR": "FAILED",
}  # fmt: skip


def _item_status(value: Any) -> Any:
    # Known words in any case or synonym become the spec's COMPLETED / FAILED; a word we
    # do not know is kept verbatim (and shown as sent).
    if isinstance(value, str):
        return _ITEM_WORDS.get(value.strip().upper(), value)
    return value


def _messages(value: Any) -> Any:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v if v is None or isinstance(v, str) else str(v) for v in value]
    return value


class RequestItem(ResponseModel):
    clientRefId: str | None = None
    status: Annotated[str | None, BeforeValidator(_item_status)] = None
    """COMPLETED or FAILED once done (synonyms normalised); other words kept verbatim."""
    retryable: bool = False
    errorMessage: Annotated[list[str | None], BeforeValidator(_messages)] = []

    @property
    def final(self) -> bool:
        return self.status in ("COMPLETED", "FAILED")


class OperationDetails(ResponseModel):
    status: str | None = None
    """SUCCESS or PARTIAL_SUCCESS (the spec), FAILURE (the sandbox) or any other word."""
    totalItems: int = 0
    success: int = 0
    failures: int = 0
    requestItems: list[RequestItem] = []


class BulkStatus(ResponseModel):
    """The status of one bulk request. The counting rules of the spec's sample (success +
    failures = totalItems, one entry per record, a status word that agrees) are not
    enforced on what a service sends: :meth:`problems` says where they do not hold, and
    screens show it beside the counts."""

    bulkRequestId: str
    processingStatus: str | None = None
    operationDetails: OperationDetails = OperationDetails()

    @property
    def complete(self) -> bool:
        """Finished: ``processingStatus`` is COMPLETE or another final word; without a
        ``processingStatus``, when every record has a final status."""
        if self.processingStatus is not None:
            return self.processingStatus.strip().upper() in PROCESSING_FINAL
        items = self.operationDetails.requestItems
        return bool(items) and all(item.final for item in items)

    def problems(self) -> list[str]:
        """Where a finished request's counts do not add up, in plain words (empty when
        they do, or while it runs)."""
        if not self.complete:
            return []
        d = self.operationDetails
        found = []
        if d.success + d.failures != d.totalItems:
            found.append(
                f"totalItems is {d.totalItems} but success + failures is {d.success + d.failures}"
            )
        if len(d.requestItems) != d.totalItems:
            found.append(f"{len(d.requestItems)} records are listed for {d.totalItems} items")
        completed = sum(item.status == "COMPLETED" for item in d.requestItems)
        failed = sum(item.status == "FAILED" for item in d.requestItems)
        if (completed, failed) != (d.success, d.failures):
            found.append(
                f"{completed} records are COMPLETED and {failed} FAILED, but the counts say "
                f"{d.success} and {d.failures}"
            )
        return found


def overall_status(success: int, failures: int) -> str:
    if failures == 0:
        return "SUCCESS"
    return "PARTIAL_SUCCESS" if success else "FAILURE"
