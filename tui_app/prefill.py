"""What a registry record already knows about an order for its producer: names, NPN,
tax id, filing state. Used by the "appoint" and "terminate" actions of a full record."""

from __future__ import annotations

from typing import Any

from tui_app.contract.record import FullInfo


def order_from_record(info: FullInfo, filing: str) -> dict[str, Any]:
    """A partial order (``tlq`` + ``data``) for an appointment (``A``) or termination
    (``T``) of the producer in ``info``. The filing state is the resident state."""
    firm = info.Producer.EntityType == "FIRM"
    bio = info.Biographic
    licenses = info.LicenseData.Licenses if info.LicenseData else []
    resident = next((lic.State for lic in licenses if lic.Residency == "R"), None)
    state = resident or (licenses[0].State if licenses else None)
    tlq = {"pType": "A" if firm else "I", "fType": filing, "juris": state}
    data: dict[str, Any] = {"niprNoReq": str(info.Producer.Npn)}
    if bio is not None:
        if firm:
            data |= {
                "firmName": bio.FirmName,
                "taxId": bio.Fein,
                "residentStateText": bio.DomicileState,
            }
        else:
            data |= {
                "firstName": bio.FirstName,
                "lastName": bio.LastName,
                "middleName": bio.MiddleName,
                "taxId": bio.Ssn,
                "dateOfBirth": bio.DateOfBirth,
            }
    if state and not firm:
        data["residentStateYN"] = "Y" if state == resident else "N"
    return {"tlq": _present(tlq), "data": _present(data)}


def _present(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v not in (None, "")}
