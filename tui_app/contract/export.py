"""Producer export: the request and the data sets it returns.

Agent data set names are the spec's response type names without the ``Agent`` prefix and
the ``DataSet`` suffix; agency names are the spec's list, whose types are ``Firm`` + name +
``DataSet``. Both request fields are required here (the spec does not say). The records
inside a data set are not described by the spec and are kept as free-form objects.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import field_validator
from pydantic_core import PydanticCustomError

from tui_app.contract.base import ContractModel, Required, ResponseModel

AGENT_DATA_SETS: tuple[str, ...] = (
    "Address", "Affiliation", "Agency", "Appointment", "Ce", "Comments", "Contact",
    "Contracting", "Demographic", "Designations", "Disclosure", "Drp", "Education",
    "Employment", "ErrorsAndOmissions", "Exam", "Fingerprint", "IarCe", "License", "Oba",
    "OfficeOfEmployment", "PersonalInfo", "RegCe", "Registrations", "PermissiveRegistrations",
    "Relationships",
)  # fmt: skip

AGENCY_DATA_SETS: tuple[str, ...] = (
    "Address", "Appointment", "CertificatesAndRecordsLocation", "Contact", "Contracting",
    "ContractingList", "Deficiency", "Demographic", "ErrorsAndOmissions", "Firm",
    "FirmAffiliations", "License", "Note", "NyseBranch", "OfficeArrangements",
    "OfficeFinancialInterests", "Officer", "OfficeSharing", "OfficeType", "OtherBusiness",
    "OtherBusinessName", "Registration", "Relationships",
)  # fmt: skip


class _ExportRequest(ContractModel):
    profileKey: Required
    dataSets: list[str]

    valid: ClassVar[tuple[str, ...]] = ()
    type_prefix: ClassVar[str] = ""

    @field_validator("dataSets")
    @classmethod
    def _known_names(cls, names: list[str]) -> list[str]:
        if not names:
            raise PydanticCustomError("required", "name at least one data set")
        unknown = [n for n in names if n not in cls.valid]
        if unknown:
            raise PydanticCustomError(
                "data_set",
                "unknown data set {unknown}; valid names are {valid}",
                {"unknown": ", ".join(unknown), "valid": ", ".join(cls.valid)},
            )
        return names

    @classmethod
    def type_name(cls, name: str) -> str:
        """The response type of a data set name: ``Address`` -> ``AgentAddressDataSet``."""
        return f"{cls.type_prefix}{name}DataSet"


class AgentExportRequest(_ExportRequest):
    """Export request for an agent profile (XML root ``Export``)."""

    valid: ClassVar = AGENT_DATA_SETS
    type_prefix: ClassVar = "Agent"


class AgencyExportRequest(_ExportRequest):
    """Export request for an agency profile (XML root ``Export``)."""

    valid: ClassVar = AGENCY_DATA_SETS
    type_prefix: ClassVar = "Firm"


class DataSet(ResponseModel):
    """One data set of an export: its type name and its records."""

    dataSetType: str
    """e.g. ``AgentAddressDataSet`` or ``FirmAddressDataSet``."""
    records: list[dict] = []

    @property
    def name(self) -> str:
        """The request name of this data set: ``AgentAddressDataSet`` -> ``Address``."""
        core = self.dataSetType.removesuffix("DataSet")
        for prefix in ("Agent", "Firm"):
            if core.startswith(prefix) and core != prefix:
                return core[len(prefix) :]
        return core


class ExportResponse(ResponseModel):
    dataSets: list[DataSet] | None = None
