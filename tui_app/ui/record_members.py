"""What the record screen's tabs show of a full registry record, and the rest: the members
no tab shows (for the "More" tree). No Textual here: the screen draws, this module
decides."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from tui_app.contract.dates import parse_date
from tui_app.contract.record import (
    Address,
    AddressInfoBlock,
    Affiliation,
    Appointment,
    BiographicBlock,
    FullInfo,
    LicenseDataBlock,
    LineOfAuthority,
    ProducerBlock,
    RegulatoryAction,
    StateLicense,
)

SHOWN: dict[type[BaseModel], frozenset[str]] = {
    FullInfo: frozenset(
        {"Producer", "Biographic", "Organization", "LastUpdated", "AddressInfo", "LicenseData"}
    ),
    ProducerBlock: frozenset({"Npn", "EntityType"}),
    BiographicBlock: frozenset(BiographicBlock.model_fields),
    Affiliation: frozenset(Affiliation.model_fields),
    AddressInfoBlock: frozenset({"Addresses"}),
    Address: frozenset(Address.model_fields),
    LicenseDataBlock: frozenset({"Licenses"}),
    StateLicense: frozenset(StateLicense.model_fields),
    LineOfAuthority: frozenset(LineOfAuthority.model_fields),
    Appointment: frozenset(Appointment.model_fields),
    RegulatoryAction: frozenset(RegulatoryAction.model_fields) - {"ReferenceNumber"},
}
"""Per model, the members the tabs show; everything else goes in the "More" tree."""


def us_date(text: str | None) -> str | None:
    """A registry date as MM/DD/YYYY for the standing rule, also when a service writes it
    ISO (the minimal dialect does); other text is left as it is."""
    found = parse_date(text) if text else None
    return found.strftime("%m/%d/%Y") if found else text


def unshown_members(model: BaseModel, path: str = "") -> list[tuple[str, Any]]:
    """Every member of ``model`` (recursively) that the tabs do not show, as (path,
    value as sent): members no model knows, and known ones without a place in a tab."""
    found: list[tuple[str, Any]] = []
    shown = SHOWN.get(type(model), frozenset())
    for name in type(model).model_fields:
        value = getattr(model, name)
        where = f"{path}.{name}" if path else name
        if name not in shown:
            if value not in (None, [], {}):
                found.append((where, _plain(value)))
            continue
        if isinstance(value, BaseModel):
            found += unshown_members(value, where)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, BaseModel):
                    found += unshown_members(item, f"{where}[{i}]")
    for name, value in (model.model_extra or {}).items():
        found.append((f"{path}.{name}" if path else name, value))
    return found


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
