"""Watch findings: one test per kind, on crafted registry records."""

from __future__ import annotations

from datetime import date
from typing import Any

from tui_app.contract.record import FullInfo
from tui_app.watch import findings as f

TODAY = date(2026, 3, 1)


def record(*licenses: dict[str, Any], npn: int = 1234567, **bio: str) -> FullInfo:
    return FullInfo.model_validate(
        {
            "Producer": {"Npn": npn, "EntityType": "INDIVIDUAL"},
            "Biographic": {
                "FirstName": "Rowan",
                "LastName": "Tally",
                "Ssn": "000111234",
                "DateOfBirth": "01/02/1980",
                **bio,
            },
            "LicenseData": {"Licenses": list(licenses)},
        }
    )


def lic(
    state: str = "CA",
    *,
    res: str = "R",
    active: bool = True,
    expires: str = "12/31/2027",
    lines: dict[str, str] | None = None,
    appointments: list[dict] | None = None,
    actions: list[dict] | None = None,
) -> dict[str, Any]:
    return {
        "State": state,
        "LicenseNumber": f"{state}-1",
        "Residency": res,
        "Active": active,
        "ExpirationDate": expires,
        "LinesOfAuthority": [
            {"Code": c, "Name": n, "Status": s}
            for c, (n, s) in (lines or {"10": ("Life", "Active")}).items()
        ],
        "Appointments": appointments or [],
        "RegulatoryActions": actions or [],
    }


def appt(line: str = "Life", status: str = "Active") -> dict[str, Any]:
    return {"CompanyName": "Ashgrove Life", "LineOfAuthority": line, "Status": status}


def kinds(found: list[f.Finding]) -> list[str]:
    return [x.kind for x in found]


def test_a_license_expiring_within_the_days_is_found_and_one_beyond_is_not() -> None:
    info = record(lic("CA", expires="03/31/2026"), lic("TX", res="NR", expires="06/30/2026"))
    found = f.expiring_licenses(info, TODAY, days=60)
    assert kinds(found) == [f.EXPIRING]
    assert (found[0].state, found[0].license, found[0].tab) == ("CA", "CA-1", "licenses")
    assert "expires in 30 days, on 2026-03-31" in found[0].text
    assert kinds(f.expiring_licenses(info, TODAY, days=10)) == []
    # The minimal dialect writes ISO dates: read them too.
    iso = record(lic("CA", expires="2026-03-02"))
    assert kinds(f.expiring_licenses(iso, TODAY)) == [f.EXPIRING]


def test_an_expired_license_is_found() -> None:
    found = f.expiring_licenses(record(lic("NV", expires="02/27/2026", active=False)), TODAY)
    assert kinds(found) == [f.EXPIRED]
    assert found[0].severity == "high"
    assert "expired 2 days ago" in found[0].text


def test_an_inactive_resident_license_is_found_with_its_active_appointments() -> None:
    info = record(
        lic("CA", active=False, appointments=[appt(), appt("Life", "Terminated")]),
        lic("TX", res="NR", active=False),
    )
    found = f.resident_inactive(info, TODAY)
    assert kinds(found) == [f.RESIDENT_INACTIVE]
    assert (
        found[0].text == "The resident license in CA is inactive; 1 appointment there still active."
    )
    assert f.resident_inactive(record(lic("CA")), TODAY) == []


def test_an_active_appointment_without_an_active_line_is_found() -> None:
    info = record(
        lic(
            "CA",
            lines={"10": ("Life", "Active"), "12": ("Property", "Cancelled")},
            appointments=[appt("Life"), appt("Property"), appt("Property", "Terminated")],
        ),
        lic("OR", res="NR", active=False, appointments=[appt("Life")]),
    )
    found = f.unlicensed_appointments(info, TODAY)
    assert [(x.kind, x.state, x.tab) for x in found] == [
        (f.UNLICENSED_APPOINTMENT, "CA", "appointments"),
        (f.UNLICENSED_APPOINTMENT, "OR", "appointments"),
    ]
    assert "no active Property authority" in found[0].text
    assert "the license is not active" in found[1].text


def test_a_regulatory_action_is_new_until_a_check_has_seen_it() -> None:
    action = {
        "Origin": "CA Department of Insurance",
        "Reason": "Misrepresentation",
        "Disposition": "Fined",
        "DateOfAction": "02/01/2026",
        "ReferenceNumber": "CA-1",
    }
    info = record(lic("CA", actions=[action]))
    found = f.new_regulatory_actions(info, previous=None)
    assert kinds(found) == [f.REGULATORY_ACTION] and found[0].tab == "actions"
    assert "Misrepresentation (Fined)" in found[0].text
    assert f.new_regulatory_actions(info, previous=f.snapshot(info)) == []
    later = record(lic("CA", actions=[action, action | {"ReferenceNumber": "CA-2"}]))
    assert len(f.new_regulatory_actions(later, previous=f.snapshot(info))) == 1


def test_registry_and_profile_disagree_on_name_state_and_npn() -> None:
    info = record(lic("CA"), npn=1234567)
    same = {
        "NiprNumber": "1234567",
        "FirstName": "rowan",
        "LastName": "Tally",
        "ResidentState": "CA",
    }
    assert f.profile_mismatches(info, "agent", "PK-1", same) == []
    found = f.profile_mismatches(
        info, "agent", "PK-1", same | {"LastName": "Tallie", "ResidentState": "NV"}
    )
    assert [x.text for x in found] == [
        "Profile PK-1: last name is Tallie, the registry says Tally.",
        "Profile PK-1: resident state is NV, the registry says CA.",
    ]
    assert [
        x.text for x in f.profile_mismatches(info, "agent", "PK-1", same | {"NiprNumber": ""})
    ] == ["Profile PK-1: has no NPN."]
    assert "no such profile" in f.profile_mismatches(info, "agent", "PK-9", None)[0].text
    assert f.not_in_registry(19000009).kind == f.MISMATCH


def test_changes_since_the_last_check_are_found() -> None:
    before = record(lic("CA", appointments=[appt()]), lic("TX", res="NR"))
    after = record(
        lic("CA", expires="12/31/2029", appointments=[appt("Life", "Terminated")]),
        lic("NV", res="NR"),
    )
    found = f.changes(after, f.snapshot(before))
    assert all(x.kind == f.CHANGED for x in found)
    assert [x.text for x in found] == [
        "The license in CA now expires 12/31/2029 (was 12/31/2027).",
        "Appointment Ashgrove Life (Life) in CA: Active -> Terminated.",
        "New license in NV.",
        "The license in TX is no longer listed.",
    ]
    assert f.changes(after, None) == []
    assert f.changes(after, f.snapshot(after)) == []


def test_a_snapshot_holds_no_personal_data() -> None:
    text = repr(f.snapshot(record(lic("CA"))))
    assert "000111234" not in text and "1980" not in text


def test_record_findings_gathers_every_kind() -> None:
    info = record(
        lic("CA", active=False, expires="01/01/2026", appointments=[appt()]),
        lic(
            "TX",
            res="NR",
            expires="03/10/2026",
            actions=[{"Reason": "Fraud", "DateOfAction": "01/01/2026"}],
        ),
    )
    previous = f.snapshot(
        record(lic("CA", expires="01/01/2026"), lic("TX", res="NR", expires="03/10/2026"))
    )
    found = f.record_findings(info, TODAY, previous=previous, profile_key="PK-1", profile={})
    assert set(kinds(found)) == set(f.KINDS)


def test_a_value_the_service_did_not_send_is_unknown_not_a_change() -> None:
    before = f.snapshot(record(lic("CA", expires="12/28/2027", appointments=[appt()])))
    nulls = record(
        lic("CA", appointments=[appt(status=None)])  # type: ignore[arg-type]
        | {"Active": None, "ExpirationDate": None, "LicenseNumber": None}
        | {"LinesOfAuthority": [{"Code": "10", "Name": "Life", "Status": None}]},
        LastName=None,  # type: ignore[arg-type]
    )
    # It said "The license in CA now expires None (was 12/28/2027)." and "Active -> none".
    assert f.changes(nulls, before) == []
    # The last value known is kept: a renewal after the nulls is still seen as one.
    kept = f.snapshot(nulls, before)
    assert kept == before
    renewed = record(lic("CA", expires="12/28/2029", appointments=[appt()]))
    assert [x.text for x in f.changes(renewed, kept)] == [
        "The license in CA now expires 12/28/2029 (was 12/28/2027)."
    ]


def test_a_member_the_service_left_out_is_unknown_and_never_shown_as_none() -> None:
    before = f.snapshot(record(lic("CA", appointments=[appt()]), lic("TX", res="NR")))
    no_lists = {k: v for k, v in lic("CA").items() if k not in ("LinesOfAuthority", "Appointments")}
    no_state = {"Residency": "NR", "ExpirationDate": "04/15/2026"}
    info = record(no_lists, no_state)
    found = f.record_findings(info, TODAY, previous=before)
    # It said "New license in ." and "None license (no number) expires in 45 days...".
    assert [x.text for x in found] == ["A license (no number) expires in 45 days, on 2026-04-15."]
    # TX is not said gone (it may be the license without a state), nor its lines changed.
    assert f.snapshot(info, before)["licenses"] == before["licenses"]
    no_licenses = FullInfo.model_validate({"Producer": {"Npn": 1234567}})
    assert f.changes(no_licenses, before) == []
    assert f.snapshot(no_licenses, before) == before
