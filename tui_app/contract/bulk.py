"""Bulk profile import: the NDJSON line envelope, the accepted body and the status body.

Values the spec does not show, chosen here and documented in the README: while a request
is being processed ``processingStatus`` is ``PENDING`` or ``PROCESSING`` and records are
``PENDING``; a request in which every record failed has ``operationDetails.status``
``FAILURE``.
"""

from __future__ import annotations

import re
import uuid
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, model_validator
from pydantic_core import PydanticCustomError

from tui_app.contract.base import ContractModel, ResponseModel, rule_error
from tui_app.contract.profile import AgencyRecord, AgentRecord

MAX_RECOMMENDED_BATCH = 100
"""The spec's recommended number of records per bulk request."""


_GUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _check_guid(value: Any) -> Any:
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, str) and not _GUID.fullmatch(value):
        raise PydanticCustomError(
            "guid", "must be a GUID such as 3f2504e0-4f89-11d3-9a0c-0305e82c3301"
        )
    return value


Guid = Annotated[str, BeforeValidator(_check_guid)]
"""A GUID in its 36-character form, kept as written (the service answers in lowercase)."""


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
        return cls(clientRefId=ref, data=BulkData(**{record.kind: record}))

    def to_line(self) -> dict[str, Any]:
        """The NDJSON form: camelCase record keys, nulls left out."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class BulkAccepted(ResponseModel):
    bulkRequestId: str


ItemStatus = Literal["COMPLETED", "FAILED", "PENDING"]


class RequestItem(ResponseModel):
    clientRefId: str
    status: ItemStatus | str
    retryable: bool = False
    errorMessage: list[str | None] = []


class OperationDetails(ResponseModel):
    status: str | None = None
    """SUCCESS, PARTIAL_SUCCESS or FAILURE once complete."""
    totalItems: int = 0
    success: int = 0
    failures: int = 0
    requestItems: list[RequestItem] = []


class BulkStatus(ResponseModel):
    """The status of one bulk request. Once ``COMPLETE``, the counting rules of the spec
    hold: success + failures = totalItems, one entry per record, and the status word
    agrees with the counts."""

    bulkRequestId: str
    processingStatus: str | None = None
    operationDetails: OperationDetails = OperationDetails()

    @property
    def complete(self) -> bool:
        return self.processingStatus == "COMPLETE"

    @model_validator(mode="after")
    def _counts_agree(self) -> BulkStatus:
        if not self.complete:
            return self
        d = self.operationDetails
        if d.success + d.failures != d.totalItems:
            raise rule_error(["operationDetails.totalItems"], "must equal success + failures")
        if len(d.requestItems) != d.totalItems:
            raise rule_error(["operationDetails.requestItems"], "must hold one entry per record")
        expected = overall_status(d.success, d.failures)
        if d.status != expected:
            raise rule_error(["operationDetails.status"], f"must be {expected} for these counts")
        completed = sum(item.status == "COMPLETED" for item in d.requestItems)
        failed = sum(item.status == "FAILED" for item in d.requestItems)
        if (completed, failed) != (d.success, d.failures):
            raise rule_error(
                ["operationDetails.requestItems"],
                f"has {completed} COMPLETED and {failed} FAILED records, but the counts say "
                f"{d.success} and {d.failures}",
            )
        return self


def overall_status(success: int, failures: int) -> str:
    if failures == 0:
        return "SUCCESS"
    return "PARTIAL_SUCCESS" if success else "FAILURE"
