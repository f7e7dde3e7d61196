"""Sandbox orders: create, update, final orders, the lifecycle over (injected) time,
eligibility against a fake registry, fees, notes and persistence."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tui_app.contract.jurisdictions import JURISDICTIONS
from tui_app.contract.order import Order, OrderDetails
from tui_app.contract.record import FullInfo
from tui_app.sandbox.db import Database
from tui_app.sandbox.orders import (
    RECORD_ONLY_STATES,
    SCHEMA,
    STATE_REVIEW_STATES,
    Orders,
)
from tui_app.sandbox.synthetic import mdy

STEP = 2.0
AGENT_NPN, FIRM_NPN = 1234567, 7654321


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, steps: float) -> None:
        self.now += timedelta(seconds=steps * STEP)


def _registry() -> dict[int, FullInfo]:
    person = {
        "Producer": {"Npn": AGENT_NPN, "EntityType": "INDIVIDUAL"},
        "Biographic": {"Ssn": "900-12-3456"},  # make_order's taxId, written with hyphens
        "LicenseData": {
            "Licenses": [
                {
                    "State": "TX",
                    "LicenseNumber": "TX-1",
                    "Active": True,
                    "Appointments": [{"CompanyName": "Acme Life", "Status": "Active"}],
                },
                {
                    "State": "OH",
                    "LicenseNumber": "OH-1",
                    "Active": True,
                    "LinesOfAuthority": [
                        {"Code": "10", "Name": "Life", "Status": "Active"},
                        {"Code": "12", "Name": "Property", "Status": "Active"},
                        {"Code": "13", "Name": "Casualty", "Status": "Cancelled"},
                    ],
                },
                {"State": "FL", "LicenseNumber": "FL-1", "Active": False},
            ]
        },
    }
    firm = {"Producer": {"Npn": FIRM_NPN, "EntityType": "FIRM"}}
    return {AGENT_NPN: FullInfo.model_validate(person), FIRM_NPN: FullInfo.model_validate(firm)}


def make_order(num: str = "A1", *, data: dict[str, Any] | None = None, **tlq: str) -> Order:
    return Order.model_validate(
        {
            "tlq": {
                "juris": "TX",
                "pType": "I",
                "fType": "A",
                "lType": "M",
                "clientOrderNum": num,
                "userId": "lic01",
                "filingMode": "E",
                **tlq,
            },
            "data": {"firstName": "Ada", "lastName": "Lane", "taxId": "900123456", **(data or {})},
        }
    )


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "sandbox.db"


@pytest.fixture
def orders(db_path: Path, clock: Clock) -> Orders:
    db = Database(db_path, schemas=(SCHEMA,))
    return Orders(db, lookup=_registry().get, clock=clock, step_seconds=STEP)


def details(orders: Orders, num: str = "A1") -> OrderDetails:
    found = orders.status(num)
    assert found is not None
    return found.order.orderDetails


def statuses_over_time(orders: Orders, clock: Clock, steps: int, num: str = "A1") -> list[str]:
    seen = []
    for _ in range(steps):
        seen.append(details(orders, num).status)
        clock.advance(1)
    return seen


def stages(d: OrderDetails) -> list[str | None]:
    return [n.stage for n in d.notes]


def test_a_new_order_is_received_and_echoes_what_was_filed(orders: Orders, clock: Clock):
    answer = orders.submit(make_order(data={"middleName": "Q", "loa": ["10", "11"]}))
    d = answer.order.orderDetails
    assert (d.orderNum, d.clientOrderNum, d.status, d.updated) == (
        "ORD-00000001",
        "A1",
        "RECEIVED",
        False,
    )
    assert d.message == "order A1 was received"
    assert d.statusDate == clock.now.isoformat()
    assert [(h.status, h.at) for h in d.history] == [("RECEIVED", clock.now.isoformat())]
    assert answer.order.itemDetails == {
        "juris": "TX", "pType": "I", "fType": "A", "lType": "M", "clientOrderNum": "A1",
        "userId": "lic01", "filingMode": "E", "firstName": "Ada", "lastName": "Lane",
        "taxId": "900123456", "middleName": "Q", "loa": ["10", "11"],
    }  # fmt: skip
    assert orders.submit(make_order("B2")).order.orderDetails.orderNum == "ORD-00000002"


def test_the_status_moves_one_stage_per_step_through_state_review(orders: Orders, clock: Clock):
    assert "TX" in STATE_REVIEW_STATES
    orders.submit(make_order())
    clock.advance(0.99)
    assert details(orders).status == "RECEIVED"
    clock.advance(0.01)
    assert details(orders).status == "VALIDATING"
    clock.advance(1)
    seen = statuses_over_time(orders, clock, 4)
    assert seen[:2] == ["SUBMITTED", "PENDING_STATE_REVIEW"]
    assert seen[2] == seen[3] and seen[2] in ("APPROVED", "DENIED")
    d = details(orders)
    start = d.history[0].at
    assert [h.status for h in d.history] == [
        "RECEIVED", "VALIDATING", "SUBMITTED", "PENDING_STATE_REVIEW", d.status,
    ]  # fmt: skip
    assert [datetime.fromisoformat(h.at) - datetime.fromisoformat(start) for h in d.history] == [
        timedelta(seconds=k * STEP) for k in range(5)
    ]
    assert d.statusDate == d.history[-1].at


def test_a_state_without_review_decides_right_after_submission(orders: Orders, clock: Clock):
    assert "OH" not in STATE_REVIEW_STATES
    orders.submit(make_order(juris="OH"))
    seen = statuses_over_time(orders, clock, 5)
    assert seen[:3] == ["RECEIVED", "VALIDATING", "SUBMITTED"]
    assert seen[3] == seen[4] and seen[3] in ("APPROVED", "DENIED")


def test_a_small_share_of_appointments_is_denied_always_the_same_ones(tmp_path: Path, clock: Clock):
    def finals(path: Path) -> dict[str, str]:
        orders = Orders(Database(path, schemas=(SCHEMA,)), lookup=None, clock=clock)
        for i in range(200):
            orders.submit(make_order(f"N{i}", juris="OH"))
        clock.advance(100)
        return {f"N{i}": details(orders, f"N{i}").status for i in range(200)}

    first = finals(tmp_path / "one.db")
    denied = [n for n, s in first.items() if s == "DENIED"]
    assert 5 <= len(denied) <= 40
    assert set(first.values()) == {"APPROVED", "DENIED"}
    assert finals(tmp_path / "two.db") == first


def test_terminations_are_never_denied(orders: Orders, clock: Clock):
    for i in range(60):
        orders.submit(make_order(f"T{i}", juris="OH", fType="T"))
    clock.advance(10)
    assert {details(orders, f"T{i}").status for i in range(60)} == {"APPROVED"}


def test_a_paper_filing_waits_at_pending_paper_and_can_still_be_updated(
    orders: Orders, clock: Clock
):
    orders.submit(make_order(filingMode="P"))
    assert statuses_over_time(orders, clock, 3) == ["RECEIVED", "VALIDATING", "PENDING_PAPER"]
    clock.advance(1000)
    d = details(orders)
    assert d.status == "PENDING_PAPER" and not d.final
    assert "paper filing" in d.notes[-1].text and d.notes[-1].stage == "submission"
    assert orders.submit(make_order(filingMode="E")).order.orderDetails.updated


def test_a_record_only_state_approves_right_after_validation(orders: Orders, clock: Clock):
    state = sorted(RECORD_ONLY_STATES)[0]
    orders.submit(make_order(juris=state))
    assert statuses_over_time(orders, clock, 4) == [
        "RECEIVED", "VALIDATING", "APPROVED", "APPROVED",
    ]  # fmt: skip
    d = details(orders)
    assert "SUBMITTED" not in [h.status for h in d.history]
    assert (d.fees, d.totalFee) == ([], 0.0)
    assert "record-only" in d.notes[-1].text


def test_record_only_states_are_configurable(db_path: Path, clock: Clock):
    db = Database(db_path, schemas=(SCHEMA,))
    orders = Orders(
        db, lookup=None, clock=clock, step_seconds=STEP, record_only_states=frozenset({"OH"})
    )
    orders.submit(make_order(juris="OH"))
    clock.advance(2)
    assert details(orders).status == "APPROVED"


@pytest.mark.parametrize(
    ("npn", "tlq", "reason"),
    [
        ("999", {}, "NPN 999 is not in the national registry"),
        ("12ab", {}, "NPN 12ab is not in the national registry"),
        (str(AGENT_NPN), {"juris": "FL"}, f"NPN {AGENT_NPN} holds no active license in FL"),
        (str(AGENT_NPN), {"juris": "CA"}, f"NPN {AGENT_NPN} holds no active license in CA"),
        (str(FIRM_NPN), {}, f"NPN {FIRM_NPN} is a firm, but pType is I"),
        (str(AGENT_NPN), {"pType": "A"}, f"NPN {AGENT_NPN} is an individual, but pType is A"),
    ],
)
def test_an_ineligible_order_is_rejected_with_the_reason(
    orders: Orders, clock: Clock, npn: str, tlq: dict[str, str], reason: str
):
    orders.submit(make_order(data={"niprNoReq": npn}, **tlq))
    clock.advance(1)
    assert details(orders).status == "VALIDATING"
    clock.advance(1)
    d = details(orders)
    assert d.status == "REJECTED" and d.final
    assert (d.notes[-1].stage, d.notes[-1].text) == ("eligibility", reason)
    assert d.fees == []
    clock.advance(10)
    assert details(orders).status == "REJECTED"


def test_an_npn_filed_with_another_s_tax_id_is_rejected_without_its_digits(
    orders: Orders, clock: Clock
):
    """QA: another person's name and SSN, filed under the demo agent's NPN, was approved.
    The registry's SSN is compared digits to digits (it holds hyphens here), and the note
    (shown unmasked) says which without either number."""
    orders.submit(make_order(data={"niprNoReq": str(AGENT_NPN), "taxId": "000999999"}))
    clock.advance(2)
    d = details(orders)
    assert d.status == "REJECTED"
    reason = f"taxId is not the SSN the national registry holds for NPN {AGENT_NPN}"
    assert (d.notes[-1].stage, d.notes[-1].text) == ("eligibility", reason)
    assert not any("000999999" in n.text or "900-12" in n.text for n in d.notes)


def test_an_eligible_producer_is_noted_and_submitted(orders: Orders, clock: Clock):
    orders.submit(make_order(data={"niprNoReq": str(AGENT_NPN)}))
    clock.advance(2)
    d = details(orders)
    assert d.status == "SUBMITTED"
    assert f"NPN {AGENT_NPN} holds active license TX-1 in TX" in [n.text for n in d.notes]


def test_a_termination_without_an_active_appointment_is_accepted_with_a_note(
    orders: Orders, clock: Clock
):
    orders.submit(make_order(fType="T", juris="FL", data={"niprNoReq": str(AGENT_NPN)}))
    clock.advance(10)
    d = details(orders)
    assert d.status == "APPROVED"
    note = next(n for n in d.notes if n.stage == "eligibility")
    assert "no active appointment in FL" in note.text and "accepted anyway" in note.text


def test_without_a_registry_or_an_npn_eligibility_is_not_checked_and_says_so(
    db_path: Path, clock: Clock
):
    orders = Orders(Database(db_path, schemas=(SCHEMA,)), lookup=None, clock=clock)
    orders.submit(make_order("X1", data={"niprNoReq": "999"}))
    orders.submit(make_order("X2"))
    clock.advance(10)
    for num, text in [("X1", "registry is not available"), ("X2", "no NPN given")]:
        d = details(orders, num)
        assert d.status != "REJECTED"
        assert text in next(n.text for n in d.notes if n.stage == "eligibility")


def test_fees_follow_the_state_and_appear_after_validation(orders: Orders, clock: Clock):
    orders.submit(make_order("F1", juris="OH"))
    orders.submit(make_order("F2", juris="OH", lType="L"))
    assert details(orders, "F1").fees == []
    clock.advance(2)
    one, two = details(orders, "F1"), details(orders, "F2")
    assert one.fees == two.fees and len(one.fees) == 1
    fee = one.fees[0]
    assert (fee.state, fee.description) == ("OH", "appointment fee")
    assert 10 <= fee.amount <= 60 and one.totalFee == fee.amount
    assert f"${fee.amount:.2f}" in next(n.text for n in one.notes if n.stage == "fees")


def test_some_states_charge_no_termination_fee(orders: Orders, clock: Clock):
    states = [s for s in JURISDICTIONS if s not in RECORD_ONLY_STATES]
    for s in states:
        orders.submit(make_order(f"T{s}", juris=s, fType="T"))
    clock.advance(2)
    fees = {s: details(orders, f"T{s}").totalFee for s in states}
    free = [s for s, amount in fees.items() if amount == 0]
    assert 0 < len(free) < len(states)
    assert all(5 <= amount <= 15 for amount in fees.values() if amount)
    note = next(n.text for n in details(orders, f"T{free[0]}").notes if n.stage == "fees")
    assert note == f"no termination fee in {free[0]}"


def test_notes_tell_each_stage_with_its_time(orders: Orders, clock: Clock):
    orders.submit(make_order(data={"niprNoReq": str(AGENT_NPN)}))
    start = clock.now
    assert stages(details(orders)) == ["received"]
    clock.advance(10)
    d = details(orders)
    assert stages(d) == [
        "received", "eligibility", "fees", "submission", "state review", "state decision",
    ]  # fmt: skip
    at = [datetime.fromisoformat(n.at) for n in d.notes]
    assert at == [start] + [start + timedelta(seconds=2 * STEP)] * 3 + [
        start + timedelta(seconds=3 * STEP),
        start + timedelta(seconds=4 * STEP),
    ]


def test_posting_the_same_number_again_updates_and_restarts(orders: Orders, clock: Clock):
    first = orders.submit(make_order()).order.orderDetails
    clock.advance(2)
    assert details(orders).status == "SUBMITTED"
    answer = orders.submit(make_order(data={"firstName": "Bea"}, juris="OH"))
    d = answer.order.orderDetails
    assert d.updated and d.message == "order A1 was updated (it was SUBMITTED; it is now RECEIVED)"
    assert d.orderNum == first.orderNum
    assert d.status == "RECEIVED"
    assert [(h.status, h.at) for h in d.history] == [("RECEIVED", clock.now.isoformat())]
    assert "order updated" in d.notes[-1].text
    assert answer.order.itemDetails["firstName"] == "Bea"
    assert answer.order.itemDetails["juris"] == "OH"
    clock.advance(1)
    assert details(orders).status == "VALIDATING"
    assert details(orders).updated is False


@pytest.mark.parametrize(
    ("data", "final"),
    [({}, "APPROVED"), ({"niprNoReq": "999"}, "REJECTED")],
)
def test_a_final_order_is_updated_too_and_the_answer_says_so(
    orders: Orders, clock: Clock, data: dict[str, str], final: str
):
    # Issue 10, item 7: interface rule 2 states no exception for final orders.
    orders.submit(make_order(juris="GU", data=data))
    clock.advance(2)
    assert details(orders).status == final
    answer = orders.submit(make_order(juris="GU"))
    d = answer.order.orderDetails
    assert d.updated is True and d.status == "RECEIVED"
    assert d.message == f"order A1 was updated (it was {final}, a final status; it is now RECEIVED)"
    assert details(orders).status == "RECEIVED"


def test_orders_survive_a_restart(db_path: Path, orders: Orders, clock: Clock):
    orders.submit(make_order(data={"niprNoReq": str(AGENT_NPN)}))
    clock.advance(3)
    before = orders.status("A1")
    again = Orders(
        Database(db_path, schemas=(SCHEMA,)), lookup=None, clock=clock, step_seconds=STEP
    )
    assert again.status("A1") == before
    assert again.status("NOPE") is None
    assert again.submit(make_order("B2")).order.orderDetails.orderNum == "ORD-00000002"


# --- what approved orders do to the registry (QA: an approved appointment never showed) ---

SPONSOR = {"sponsoringCompany": "Birch Mutual", "feinNumber": "123456789", "naicNum": "12345"}


def _oh(info: FullInfo):
    assert info.LicenseData is not None
    return next(lic for lic in info.LicenseData.Licenses if lic.State == "OH")


def _appointments(info: FullInfo) -> list[tuple]:
    return [
        (a.CompanyName, a.NaicCode, a.LineOfAuthority, a.Status, a.TerminationReason, a.StatusDate)
        for a in _oh(info).Appointments
    ]


def _file_and_decide(orders: Orders, clock: Clock, order: Order) -> str:
    orders.submit(order)
    clock.advance(3)
    return details(orders, order.tlq.clientOrderNum).status


def test_an_approved_appointment_is_on_the_record_from_its_approval_on(
    orders: Orders, clock: Clock
):
    record = _registry()[AGENT_NPN]
    orders.submit(make_order("P1", juris="OH", data={"niprNoReq": str(AGENT_NPN), **SPONSOR,
                                                     "loa": ["10", "Property"]}))  # fmt: skip
    clock.advance(2)
    assert details(orders, "P1").status == "SUBMITTED"
    assert orders.apply_to(record) is record and _appointments(record) == []
    clock.advance(1)
    assert details(orders, "P1").status == "APPROVED"
    approved = mdy(clock.now.date())
    changed = orders.apply_to(record)
    # One appointment a line, by the license's name for it (a code or a name).
    assert _appointments(changed) == [
        ("Birch Mutual", "12345", line, "Active", None, approved) for line in ("Life", "Property")
    ]
    assert _appointments(record) == []  # the registry's own record is left as it was


def test_an_approved_termination_ends_only_the_appointments_it_names(orders: Orders, clock: Clock):
    npn = {"niprNoReq": str(AGENT_NPN)}
    assert (
        _file_and_decide(orders, clock, make_order("P1", juris="OH", data=npn | SPONSOR))
        == "APPROVED"
    )
    # No company named: the filing user's own (lic01), on every active line of the license.
    assert _file_and_decide(orders, clock, make_order("P3", juris="OH", data=npn)) == "APPROVED"
    ended = make_order("T1", juris="OH", fType="T", data=npn | {"naicNum": "12345",
                       "loa": ["Life"], "termReasonText": "Lack of Production"})  # fmt: skip
    assert _file_and_decide(orders, clock, ended) == "APPROVED"
    today = mdy(clock.now.date())
    assert _appointments(orders.apply_to(_registry()[AGENT_NPN])) == [
        ("Birch Mutual", "12345", "Life", "Terminated", "Lack of Production", today),
        ("Birch Mutual", "12345", "Property", "Active", None, today),
        ("company of user lic01", None, "Life", "Active", None, today),
        ("company of user lic01", None, "Property", "Active", None, today),
    ]
    # A termination naming no company ends the filing user's own, every line.
    both = make_order("T2", juris="OH", fType="T", data=npn | {"termCauseYN": "Y"})
    assert _file_and_decide(orders, clock, both) == "APPROVED"
    assert [a[3:5] for a in _appointments(orders.apply_to(_registry()[AGENT_NPN]))] == [
        ("Terminated", "Lack of Production"), ("Active", None),
        ("Terminated", "For Cause"), ("Terminated", "For Cause"),
    ]  # fmt: skip


def test_an_appointment_for_a_line_the_license_lacks_is_rejected_naming_it(
    orders: Orders, clock: Clock
):
    # QA: an order for line "XX" was approved, and Watch then found an appointment
    # without authority. A cancelled line is no line to appoint for either.
    data = {"niprNoReq": str(AGENT_NPN), "loa": ["XX", "life", "13"]}
    assert _file_and_decide(orders, clock, make_order(juris="OH", data=data)) == "REJECTED"
    note = next(n.text for n in details(orders).notes if n.stage == "eligibility")
    assert note == (
        f"license OH-1 of NPN {AGENT_NPN} in OH holds no active line of authority XX, 13"
        " (its active lines: 10 Life, 12 Property)"
    )
    # A license that names no lines is not checked (TX-1).
    assert _file_and_decide(orders, clock, make_order("B2", data=data)) != "REJECTED"


def test_orders_not_approved_change_nothing(orders: Orders, clock: Clock):
    npn = {"niprNoReq": str(AGENT_NPN)}
    assert _file_and_decide(orders, clock, make_order("R1", juris="FL", data=npn)) == "REJECTED"
    paper = make_order("P1", juris="OH", filingMode="P", data=npn | SPONSOR)
    assert _file_and_decide(orders, clock, paper) == "PENDING_PAPER"
    firm = make_order("F1", juris="OH", pType="A", data={"niprNoReq": str(FIRM_NPN)})
    orders.submit(firm)
    record = _registry()[AGENT_NPN]
    clock.advance(10)
    assert orders.apply_to(record) is record
