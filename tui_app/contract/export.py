"""Producer export: the request and the data sets it returns.

Agent data set names are the spec's response type names without the ``Agent`` prefix and
the ``DataSet`` suffix; agency names are the spec's list, whose types are ``Firm`` + name +
``DataSet``. Both request fields are required here (the spec does not say). The records
inside a data set are not described by the spec and are kept as free-form objects.
"""

from __future__ import annotations

from typing import ClassVar

from tui_app.contract.base import ContractModel, ResponseModel

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
    profileKey: str | None = None
    dataSets: list[str] | None = None

    valid: ClassVar[tuple[str, ...]] = ()
    type_prefix: ClassVar[str] = ""

    @classmethod
    def type_name(cls, name: str) -> str:
        """The response type of a data set name: ``Address`` -> ``AgentAddressDataSet``
        (a full type name is returned as it is)."""
        return (
            name
            if cls.canonical(name) and name.endswith("DataSet")
            else (f"{cls.type_prefix}{name}DataSet")
        )

    @classmethod
    def canonical(cls, name: str) -> str | None:
        """The short name of a data set named either way (``Address`` or
        ``AgentAddressDataSet``), or None for a name the interface does not list."""
        if name in cls.valid:
            return name
        core = name.removeprefix(cls.type_prefix).removesuffix("DataSet")
        if name.startswith(cls.type_prefix) and name.endswith("DataSet") and core in cls.valid:
            return core
        return None

    @classmethod
    def habit_warnings(cls, data, context=None) -> list[tuple[str, str]]:
        found = [
            (name, "is usually required; the service decides")
            for name in ("profileKey", "dataSets")
            if not data.get(name)
        ]
        names = data.get("dataSets")
        if isinstance(names, list):
            found += [
                (
                    f"dataSets[{i}]",
                    f"{n!r} is not a data set the interface lists; "
                    "it is sent as typed and the service decides",
                )
                for i, n in enumerate(names)
                if isinstance(n, str) and cls.canonical(n) is None
            ]
        return found


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

    dataSetType: str | None = None
    """e.g. ``AgentAddressDataSet`` or ``FirmAddressDataSet``."""
    records: list[dict] = []

    @property
    def name(self) -> str:
        """The request name of this data set: ``AgentAddressDataSet`` -> ``Address``."""
        core = (self.dataSetType or "").removesuffix("DataSet")
        for prefix in ("Agent", "Firm"):
            if core.startswith(prefix) and core != prefix:
                return core[len(prefix) :]
        return core


class ExportResponse(ResponseModel):
    dataSets: list[DataSet] | None = None
