"""Producer transaction orders in the sandbox: filing, updating and watching an order move.

When an order is filed its whole path is decided at once, from its content and the
registry, and stored as a plan: one status per step, with the notes and fees of that step.
The status is then DERIVED from the time since filing (step k is reached
``k * step_seconds`` later), so no background task runs and a restart loses nothing.
Filing the same clientOrderNum again replaces the order and restarts its plan, final
orders too (interface rule 2 states no exception); the answer says it was updated, what its
status was and what it is now.

Paths, step by step from 0:

- not eligible:          RECEIVED, VALIDATING, REJECTED
- paper filing (P):      RECEIVED, VALIDATING, PENDING_PAPER (and there it stays)
- record-only state:     RECEIVED, VALIDATING, APPROVED
- electronic filing:     RECEIVED, VALIDATING, SUBMITTED, [PENDING_STATE_REVIEW,]
                         APPROVED or DENIED

Sandbox choices, not facts about real states: the record-only and state-review
jurisdictions below, fees derived from the state code, and about one appointment in ten
denied (decided by a hash of clientOrderNum and state, so the same order always ends the
same way). Terminations are never denied.

An approved order changes the producer's registry record from the moment it is approved
(:meth:`Orders.apply_to`, on every read of the record, so Watch and a termination's
eligibility see it too): an appointment adds active appointments to the filing state's
license, a termination ends the active ones it names. The company is the order's
``sponsoringCompany``, or, when the order names none, the filing user's own company.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import date, datetime, timedelta
from typing import Any

from tui_app.contract.order import (
    FINAL_STATUSES,
    Fee,
    Note,
    Order,
    OrderDetails,
    OrderInfo,
    OrderResponse,
    StatusChange,
    Tlq,
)
from tui_app.contract.record import Appointment, FullInfo, StateLicense
from tui_app.pii import digits_of
from tui_app.sandbox.db import Database, from_json, to_json
from tui_app.sandbox.profiles import Clock, utc_now
from tui_app.sandbox.synthetic import mdy

SCHEMA = """
CREATE TABLE IF NOT EXISTS orders (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,      -- the service's order number
    client_order_num TEXT NOT NULL UNIQUE,
    item TEXT NOT NULL,                         -- the order as filed: tlq and data, JSON
    plan TEXT NOT NULL,                         -- JSON list of steps: status, notes, fees
    submitted_at TEXT NOT NULL                  -- ISO 8601; the plan runs from here
);
CREATE INDEX IF NOT EXISTS orders_by_npn ON orders (CAST(json_extract(item, '$.niprNoReq') AS INTEGER));
"""

RECORD_ONLY_STATES = frozenset({"AS", "GU", "MP", "VI"})
"""Jurisdictions the sandbox treats as non-appointing: an appointment is only recorded."""
STATE_REVIEW_STATES = frozenset({"CA", "FL", "IL", "NY", "PA", "TX"})
"""Jurisdictions where the sandbox's state reviews an order before deciding."""
DENIED_PERCENT = 10
DENIAL_REASONS = (
    "the sponsoring company is not authorized for the lines of authority requested",
    "the applicant's license does not cover the lines of authority requested",
    "the filing is incomplete: the state asks for a new filing",
)

Lookup = Callable[[int], FullInfo | None]
"""The registry's full record of an NPN (individual or firm), if any."""
Step = dict[str, Any]
"""One step of a plan: ``status``, ``notes`` as (stage, text) pairs, ``fees``."""


class OrderFinal(Exception):
    """Kept for callers that catch it; :meth:`Orders.submit` no longer raises it (interface
    rule 2: an order whose clientOrderNum exists is updated, final or not)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _step(status: str, *notes: tuple[str, str], fees: list[Fee] | None = None) -> Step:
    return {"status": status, "notes": list(notes), "fees": [f.model_dump() for f in fees or []]}


def _digest(text: str) -> int:
    """A stable number from text (``hash()`` changes between runs)."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def _what(tlq: Tlq) -> str:
    return "appointment" if tlq.fType == "A" else "termination"


def _fees(tlq: Tlq) -> list[Fee]:
    """One fee per state and filing, from the state code: appointments $10 to $60;
    terminations $5 to $15, or nothing in about half of the states."""
    n = _digest(tlq.juris)
    if tlq.fType == "A":
        return [Fee(state=tlq.juris, description="appointment fee", amount=float(10 + n % 51))]
    if n % 2:
        return []
    return [Fee(state=tlq.juris, description="termination fee", amount=float(5 + n % 11))]


def _fee_note(tlq: Tlq, fees: list[Fee]) -> tuple[str, str]:
    if not fees:
        return "fees", f"no {_what(tlq)} fee in {tlq.juris}"
    return "fees", "; ".join(f"{f.description} in {f.state}: ${f.amount:.2f}" for f in fees)


def _decision(tlq: Tlq) -> Step:
    n = _digest(f"{tlq.clientOrderNum}:{tlq.juris}")
    if tlq.fType == "A" and n % 100 < DENIED_PERCENT:
        reason = DENIAL_REASONS[n // 100 % len(DENIAL_REASONS)]
        return _step("DENIED", ("state decision", f"denied by {tlq.juris}: {reason}"))
    return _step("APPROVED", ("state decision", f"{_what(tlq)} approved by {tlq.juris}"))


def _npn(text: str) -> int | None:
    if text.isascii() and text.isdigit() and 0 < int(text) < 2**31:
        return int(text)
    return None


class Orders:
    """Orders over the shared database. ``lookup`` is the registry (None: eligibility is
    not checked); ``step_seconds`` is the time from one stage to the next."""

    def __init__(
        self,
        db: Database,
        *,
        lookup: Lookup | None = None,
        clock: Clock = utc_now,
        step_seconds: float = 3.0,
        record_only_states: frozenset[str] = RECORD_ONLY_STATES,
    ) -> None:
        self._db = db
        self._lookup = lookup
        self._clock = clock
        self._step = step_seconds
        self._record_only = record_only_states

    def submit(self, order: Order) -> OrderResponse:
        """File a new order, or replace the one with this clientOrderNum and restart its
        plan; a final order is updated too (interface rule 2), and the answer says so."""
        plan = self._plan(order)  # before the transaction: it may consult the registry
        num = order.tlq.clientOrderNum
        item = order.tlq.model_dump(mode="json", exclude_none=True) | order.data.model_dump(
            mode="json", exclude_none=True
        )
        now = self._clock()
        with self._db.transaction() as conn:
            row = conn.execute("SELECT * FROM orders WHERE client_order_num = ?", (num,)).fetchone()
            updated = row is not None
            was = None
            if updated:
                was = self._reached(row, now)[-1]["status"]
                plan[0]["notes"].append(
                    (
                        "received",
                        f"order updated: it was {was}; the filed data was replaced "
                        "and processing restarts",
                    )
                )
            conn.execute(
                "INSERT INTO orders (client_order_num, item, plan, submitted_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (client_order_num) DO UPDATE SET"
                " item = excluded.item, plan = excluded.plan, submitted_at = excluded.submitted_at",
                (num, to_json(item), to_json(plan), now.isoformat()),
            )
            row = conn.execute("SELECT * FROM orders WHERE client_order_num = ?", (num,)).fetchone()
        message = (
            f"order {num} was updated (it was {was}{', a final status' if was in FINAL_STATUSES else ''}"
            f"; it is now {plan[0]['status']})"
            if updated
            else f"order {num} was received"
        )
        return self._response(row, now, updated=updated, message=message)

    def status(self, client_order_num: str) -> OrderResponse | None:
        """The order with this clientOrderNum as it stands now, or None."""
        row = self._db.query_one(
            "SELECT * FROM orders WHERE client_order_num = ?", (client_order_num,)
        )
        return None if row is None else self._response(row, self._clock())

    def apply_to(self, info: FullInfo) -> FullInfo:
        """``info`` (a registry record), or a copy of it changed by the orders approved for
        its producer by now, in the order they were approved."""
        npn = info.Producer.Npn
        if npn is None or info.LicenseData is None:
            return info
        kind = "I" if info.Producer.EntityType == "INDIVIDUAL" else "A"
        now = self._clock()
        decided = []
        for row in self._db.query(
            "SELECT * FROM orders WHERE CAST(json_extract(item, '$.niprNoReq') AS INTEGER) = ?",
            (npn,),
        ):
            reached = self._reached(row, now)
            if reached[-1]["status"] != "APPROVED":
                continue  # (its filed data is read only for an order that applies)
            item = from_json(row["item"])
            if item["pType"] == kind:
                at = datetime.fromisoformat(row["submitted_at"])
                decided.append((at + timedelta(seconds=(len(reached) - 1) * self._step), item))
        if not decided:
            return info
        info = info.model_copy(deep=True)
        assert info.LicenseData is not None
        for at, item in sorted(decided, key=lambda pair: pair[0]):
            for lic in info.LicenseData.Licenses:
                if lic.State == item["juris"]:
                    (_appoint if item["fType"] == "A" else _terminate)(lic, item, at.date())
        return info

    # --- the plan ---

    def _plan(self, order: Order) -> list[Step]:
        tlq = order.tlq
        kind = "individual" if tlq.pType == "I" else "agency"
        mode = "electronic" if tlq.filingMode == "E" else "paper"
        start = [
            _step("RECEIVED", ("received", f"{_what(tlq)} of an {kind} in {tlq.juris}, {mode}")),
            _step("VALIDATING"),
        ]
        eligible, finding = self._eligibility(order)
        checked = ("eligibility", finding)
        if not eligible:
            return [*start, _step("REJECTED", checked)]
        if tlq.juris in self._record_only:
            decided = (
                "state decision",
                f"{tlq.juris} is record-only: nothing is filed with the state; the"
                f" {_what(tlq)} is recorded and approved",
            )
            return [*start, _step("APPROVED", checked, _fee_note(tlq, []), decided)]
        fees = _fees(tlq)
        priced = _fee_note(tlq, fees)
        if tlq.filingMode == "P":
            sent = (
                "submission",
                f"paper filing: send the signed forms and the fee to the {tlq.juris}"
                " department of insurance; the order waits here",
            )
            return [*start, _step("PENDING_PAPER", checked, priced, sent, fees=fees)]
        sent = ("submission", f"submitted electronically to {tlq.juris}")
        plan = [*start, _step("SUBMITTED", checked, priced, sent, fees=fees)]
        if tlq.juris in STATE_REVIEW_STATES:
            plan.append(
                _step("PENDING_STATE_REVIEW", ("state review", f"{tlq.juris} reviews the filing"))
            )
        return [*plan, _decision(tlq)]

    def _eligibility(self, order: Order) -> tuple[bool, str]:
        """Whether the registry allows the filing, and what was found."""
        tlq, given = order.tlq, order.data.niprNoReq
        if not given:
            return True, "no NPN given (niprNoReq): not checked against the national registry"
        if self._lookup is None:
            return True, f"NPN {given} not checked: the national registry is not available"
        npn = _npn(given)
        info = None if npn is None else self._lookup(npn)
        if info is None:
            return False, f"NPN {given} is not in the national registry"
        wanted = "INDIVIDUAL" if tlq.pType == "I" else "FIRM"
        if info.Producer.EntityType != wanted:
            who = "an individual" if tlq.pType == "A" else "a firm"
            return False, f"NPN {npn} is {who}, but pType is {tlq.pType}"
        # The NPN must be the applicant's: its SSN (or FEIN) against the order's taxId (QA:
        # another person's name and SSN, filed under the demo agent's NPN, was approved).
        # Said without the digits: the notes are shown unmasked.
        bio = info.Biographic
        kind, held_id = ("SSN", bio and bio.Ssn) if tlq.pType == "I" else ("FEIN", bio and bio.Fein)
        if held_id and digits_of(held_id) != digits_of(order.data.taxId):
            return False, f"taxId is not the {kind} the national registry holds for NPN {npn}"
        held = (
            [lic for lic in info.LicenseData.Licenses if lic.State == tlq.juris]
            if info.LicenseData
            else []
        )
        if tlq.fType == "A":
            active = [lic for lic in held if lic.Active]
            if not active:
                return False, f"NPN {npn} holds no active license in {tlq.juris}"
            lic = active[0]
            # A state appoints only for lines the license holds (QA: an order for line "XX"
            # was approved, and Watch then found an appointment without authority).
            lines = _active_lines(lic)
            missing = [
                line for line in order.data.loa or [] if lines and line.casefold() not in lines
            ]
            if missing:
                held_lines = ", ".join(
                    " ".join(filter(None, (loa.Code, loa.Name)))
                    for loa in lic.LinesOfAuthority
                    if _is_active(loa.Status)
                )
                return False, (
                    f"license {lic.LicenseNumber} of NPN {npn} in {tlq.juris} holds no active"
                    f" line of authority {', '.join(missing)} (its active lines: {held_lines})"
                )
            return True, f"NPN {npn} holds active license {lic.LicenseNumber} in {tlq.juris}"
        if any(a.Status == "Active" for lic in held for a in lic.Appointments):
            return True, f"NPN {npn} holds an active appointment in {tlq.juris}"
        return True, (
            f"NPN {npn} holds no active appointment in {tlq.juris} on the registry;"
            " the termination is accepted anyway"
        )

    # --- the order as it stands ---

    def _reached(self, row: Any, now: datetime) -> list[Step]:
        elapsed = (now - datetime.fromisoformat(row["submitted_at"])).total_seconds()
        plan = from_json(row["plan"])
        return [s for k, s in enumerate(plan) if k == 0 or k * self._step <= elapsed]

    def _response(
        self, row: Any, now: datetime, *, updated: bool = False, message: str | None = None
    ) -> OrderResponse:
        start = datetime.fromisoformat(row["submitted_at"])
        history, notes, fees = [], [], []
        for k, step in enumerate(self._reached(row, now)):
            at = (start + timedelta(seconds=k * self._step)).isoformat()
            history.append(StatusChange(status=step["status"], at=at))
            notes += [Note(at=at, stage=stage, text=text) for stage, text in step["notes"]]
            fees += [Fee.model_validate(f) for f in step["fees"]]
        details = OrderDetails(
            orderNum=f"ORD-{row['seq']:08d}",
            clientOrderNum=row["client_order_num"],
            status=history[-1].status,
            statusDate=history[-1].at,
            updated=updated,
            message=message,
            fees=fees,
            totalFee=sum(f.amount for f in fees),
            notes=notes,
            history=history,
        )
        return OrderResponse(
            order=OrderInfo(orderDetails=details, itemDetails=from_json(row["item"]))
        )


# --- what an approved order does to the registry -------------------------------------------


def _company(item: dict[str, Any]) -> str:
    return item.get("sponsoringCompany") or f"company of user {item['userId']}"


def _is_active(status: str | None) -> bool:
    return (status or "").casefold() == "active"


def _active_lines(lic: StateLicense) -> dict[str, str]:
    """A license's active lines of authority: each one's code and name, casefolded, to
    its name."""
    return {
        key.casefold(): loa.Name or loa.Code or key
        for loa in lic.LinesOfAuthority
        if _is_active(loa.Status)
        for key in (loa.Code, loa.Name)
        if key
    }


def _lines(lic: StateLicense, item: dict[str, Any]) -> list[str | None]:
    """The lines of authority an order names, by the license's name for each (a code or
    a name of its active lines); all of its active lines when it names none."""
    active = _active_lines(lic)
    asked = item.get("loa") or []
    if not asked:
        return list(dict.fromkeys(active.values())) or [None]
    return list(dict.fromkeys(active.get(line.casefold(), line) for line in asked))


def _names(appointment: Appointment, item: dict[str, Any]) -> bool:
    """Whether a termination names this appointment: by NAIC code, else FEIN, else company."""
    if item.get("naicNum"):
        return appointment.NaicCode == item["naicNum"]
    if item.get("feinNumber"):
        return digits_of(appointment.Fein or "") == item["feinNumber"]
    return (appointment.CompanyName or "").casefold() == _company(item).casefold()


def _appoint(lic: StateLicense, item: dict[str, Any], day: date) -> None:
    company = _company(item)
    held = {
        ((a.CompanyName or "").casefold(), a.LineOfAuthority)
        for a in lic.Appointments
        if _is_active(a.Status)
    }
    for line in _lines(lic, item):
        if (company.casefold(), line) in held:
            continue  # appointed already
        lic.Appointments.append(
            Appointment(
                CompanyName=company,
                Fein=item.get("feinNumber"),
                NaicCode=item.get("naicNum"),
                LineOfAuthority=line,
                Status="Active",
                StatusDate=mdy(day),
                RenewalDate=mdy(day.replace(year=day.year + 1, day=min(day.day, 28))),
            )
        )


def _terminate(lic: StateLicense, item: dict[str, Any], day: date) -> None:
    lines = {line.casefold() for line in _lines(lic, item) if line} if item.get("loa") else None
    reason = item.get("termReasonText") or item.get("trm")
    if not reason and item.get("termCauseYN"):
        reason = "For Cause" if item["termCauseYN"] == "Y" else "Not For Cause"
    for appointment in lic.Appointments:
        line = (appointment.LineOfAuthority or "").casefold()
        if (
            _is_active(appointment.Status)
            and _names(appointment, item)
            and (lines is None or line in lines)
        ):
            appointment.Status = "Terminated"
            appointment.TerminationReason = reason
            appointment.StatusDate = mdy(day)
            appointment.RenewalDate = None
