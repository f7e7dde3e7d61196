"""Profiles as export data sets, and back.

The service builds an export from a stored profile joined with its registry record
(:func:`record_to_data_sets`); the editor rebuilds the profile from an export
(:func:`record_from_data_sets`). Records inside the data sets use the PascalCase schema
spelling, nulls left out. The round trip of the profile data sets loses no field.

Mapping (name -> records):

======================  ==========================================  =====================
agent                   agency                                      records
======================  ==========================================  =====================
PersonalInfo            Firm                                        ``{ProfileKey, Ssn}`` /
                                                                    ``{ProfileKey, Tin}``
Address                 Address                                     one per address section,
                                                                    its name in AddressType
Contact                 Contact                                     Contact / each of Contacts
Employment              -                                           CurrentEmployment
Demographic             Demographic                                 Demographic
Relationships           -                                           Hierarchy
Registrations           -                                           Information
License                 License                                     registry: one per state
                                                                    license, without its
                                                                    appointments
Appointment             Appointment                                 registry: one per
                                                                    appointment, with State
Agency, Affiliation     FirmAffiliations                            registry: Organization
======================  ==========================================  =====================

Every other valid name gives an empty data set. The one thing an export cannot tell apart
is an empty ``Contacts`` list from no ``Contacts``: both rebuild as absent, and importing
the rebuilt record leaves the stored (empty) list as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, get_args, get_origin

from pydantic import BaseModel, TypeAdapter, ValidationError

from tui_app.contract.errors import ContractError, FieldError, field_errors
from tui_app.contract.export import AgencyExportRequest, AgentExportRequest, DataSet
from tui_app.contract.profile import AgencyRecord, AgentRecord
from tui_app.contract.record import FullInfo

Record = AgentRecord | AgencyRecord
Rows = list[dict[str, Any]]

RECORD_MODELS: dict[str, type[AgentRecord] | type[AgencyRecord]] = {
    "agent": AgentRecord,
    "agency": AgencyRecord,
}
"""Profile kind -> record model."""

_XML = {"format": "xml"}


def _dump(model: BaseModel, **kwargs: Any) -> dict[str, Any]:
    return model.model_dump(mode="json", exclude_none=True, **kwargs)


def _licenses(info: FullInfo) -> Rows:
    held = info.LicenseData.Licenses if info.LicenseData else []
    return [_dump(lic, exclude={"Appointments"}) for lic in held]


def _appointments(info: FullInfo) -> Rows:
    held = info.LicenseData.Licenses if info.LicenseData else []
    return [{"State": lic.State, **_dump(a)} for lic in held for a in lic.Appointments]


def _organization(info: FullInfo) -> Rows:
    return [_dump(a) for a in info.Organization]


@dataclass(frozen=True)
class _Layout:
    """How one kind of profile maps onto its data sets."""

    model: type[AgentRecord] | type[AgencyRecord]
    request: type[AgentExportRequest] | type[AgencyExportRequest]
    identity_set: str
    sections: dict[str, str]
    """Data set name -> the profile section holding its records."""
    registry: dict[str, Callable[[FullInfo], Rows]] = field(default_factory=dict)

    @property
    def addresses(self) -> tuple[str, ...]:
        return tuple(s for s in self.model.sections if s.endswith("Address"))

    @property
    def profile_sets(self) -> tuple[str, ...]:
        return (self.identity_set, "Address", *self.sections)

    def rows(self, record: Record, name: str, info: FullInfo | None) -> Rows:
        if name == self.identity_set:
            return [{"ProfileKey": record.ProfileKey, record.id_field: record.identity[1]}]
        if name == "Address":
            return [
                {"AddressType": s, **_dump(a)}
                for s in self.addresses
                if (a := getattr(record, s)) is not None
            ]
        if name in self.sections:
            value = getattr(record, self.sections[name])
            if value is None:
                return []
            return [_dump(v) for v in value] if isinstance(value, list) else [_dump(value)]
        if name in self.registry and info is not None:
            return self.registry[name](info)
        return []


_REGISTRY_SETS = {"License": _licenses, "Appointment": _appointments}

_LAYOUTS: dict[str, _Layout] = {
    "agent": _Layout(
        AgentRecord,
        AgentExportRequest,
        "PersonalInfo",
        {
            "Contact": "Contact",
            "Employment": "CurrentEmployment",
            "Demographic": "Demographic",
            "Relationships": "Hierarchy",
            "Registrations": "Information",
        },
        {**_REGISTRY_SETS, "Agency": _organization, "Affiliation": _organization},
    ),
    "agency": _Layout(
        AgencyRecord,
        AgencyExportRequest,
        "Firm",
        {"Contact": "Contacts", "Demographic": "Demographic"},
        {**_REGISTRY_SETS, "FirmAffiliations": _organization},
    ),
}

PROFILE_DATA_SETS: dict[str, tuple[str, ...]] = {
    kind: layout.profile_sets for kind, layout in _LAYOUTS.items()
}
"""The data sets an editor must export to rebuild a whole profile with
:func:`record_from_data_sets`: agent ``PersonalInfo, Address, Contact, Employment,
Demographic, Relationships, Registrations``; agency ``Firm, Address, Contact, Demographic``."""


def record_to_data_sets(
    record: Record, names: Sequence[str], full_info: FullInfo | None = None
) -> list[DataSet]:
    """One data set per name, in the order asked, from the profile and (for License,
    Appointment and the affiliation sets) its registry record, when known."""
    layout = _LAYOUTS[record.kind]
    found = [layout.request.canonical(n) for n in names]
    unknown = [n for n, s in zip(names, found, strict=True) if s is None]
    if unknown:
        raise ValueError(f"not {record.kind} data sets: {', '.join(unknown)}")
    short = [s for s in found if s is not None]
    return [
        DataSet(dataSetType=layout.request.type_name(n), records=layout.rows(record, n, full_info))
        for n in short
    ]


def record_from_data_sets(kind: str, data_sets: Sequence[DataSet]) -> Record:
    """Rebuild a profile from an export holding at least its identity data set
    (``PersonalInfo`` / ``Firm``); profile sections whose data set is missing or empty stay
    absent, and registry data sets are ignored. Raises :class:`ContractError` naming each
    data set or field that does not fit."""
    layout = _LAYOUTS[kind]
    rows = {ds.name: ds.records for ds in data_sets}
    identity = rows.get(layout.identity_set) or []
    if len(identity) != 1:
        raise ContractError(
            [FieldError(layout.identity_set, f"must hold the one record of the {kind} profile")],
            "export",
        )
    data = dict(identity[0])
    problems: list[FieldError] = []
    for row in rows.get("Address", []):
        address = dict(row)
        kind_of = address.pop("AddressType", None)
        if kind_of in layout.addresses and kind_of not in data:
            data[kind_of] = address
        else:
            problems.append(
                FieldError("Address.AddressType", f"{kind_of} is not a new address of the profile")
            )
    for name, section in layout.sections.items():
        found = rows.get(name)
        if not found:
            continue
        if _many(layout.model, section):
            data[section] = found
        elif len(found) == 1:
            data[section] = found[0]
        else:
            problems.append(FieldError(name, "must hold at most one record"))
    if problems:
        raise ContractError(problems, "export")
    return record_from_dict(kind, data)


def record_from_dict(kind: str, data: dict[str, Any]) -> Record:
    """A profile from its PascalCase dict, e.g. as stored by the sandbox.

    Each section is accepted in the bulk form or, failing that, the XML form (whose
    employment section lacks the bulk-only address fields): a stored profile can mix
    sections imported both ways. Raises :class:`ContractError` with every failing field.
    """
    model = RECORD_MODELS[kind]
    problems: list[FieldError] = []
    sections: dict[str, Any] = {}
    record: Record | None = None
    try:
        record = model.model_validate({k: v for k, v in data.items() if k not in model.sections})
    except ValidationError as exc:
        problems += field_errors(exc)
    for name in model.sections:
        if data.get(name) is None:
            continue
        try:
            sections[name] = _section(model, name, data[name])
        except ValidationError as exc:
            problems += field_errors(exc, prefix=name)
    if problems or record is None:
        raise ContractError(problems, f"{kind} profile")
    # The sections are validated already; model_copy keeps them as they are (validating
    # the whole record would apply one format's rules to every section).
    return record.model_copy(update=sections)


def _many(model: type[Record], name: str) -> bool:
    """Whether a section is a list (agency Contacts)."""
    return any(get_origin(a) is list for a in get_args(model.model_fields[name].annotation))


@cache
def _adapter(model: type[Record], name: str) -> TypeAdapter[Any]:
    annotation: Any = model.model_fields[name].annotation  # a section's, never None
    return TypeAdapter(annotation)


def _section(model: type[Record], name: str, value: Any) -> Any:
    adapter = _adapter(model, name)
    try:
        return adapter.validate_python(value)
    except ValidationError as bulk_error:
        try:
            return adapter.validate_python(value, context=_XML)
        except ValidationError:
            raise bulk_error from None
