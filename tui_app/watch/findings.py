"""What a check finds in one producer's full record: pure functions, one per kind.

Each function takes the record as the contract reads it (:class:`FullInfo`), and where it
needs them the date the check judges by, the previous snapshot and the carrier's profile;
it returns :class:`Finding` values with the producer, state, license and a plain sentence.
A snapshot (:func:`snapshot`) is the least a later check needs to say what changed: no SSN,
FEIN/TIN or birth date. A value the service did not send (null or absent) is unknown: never
a change, never said as "None".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import date
from typing import Any

from tui_app.contract.dates import parse_date
from tui_app.contract.record import FullInfo, StateLicense

EXPIRED = "expired"
EXPIRING = "expiring"
RESIDENT_INACTIVE = "resident-inactive"
UNLICENSED_APPOINTMENT = "unlicensed-appointment"
REGULATORY_ACTION = "regulatory-action"
MISMATCH = "mismatch"
CHANGED = "changed"

KINDS: dict[str, tuple[str, str]] = {
    EXPIRED: ("high", "License expired"),
    RESIDENT_INACTIVE: ("high", "Resident license inactive"),
    UNLICENSED_APPOINTMENT: ("high", "Appointment without an active license"),
    REGULATORY_ACTION: ("high", "New regulatory action"),
    EXPIRING: ("medium", "License expiring"),
    MISMATCH: ("medium", "Registry and profile disagree"),
    CHANGED: ("low", "Changed since the last check"),
}
"""Each kind: its severity and its title, most urgent first."""
SEVERITIES = ("high", "medium", "low")
DEFAULT_DAYS = 60
"""A license expiring within this many days is reported (per environment: ``watch_days``)."""


@dataclass(frozen=True)
class Finding:
    kind: str
    npn: int
    name: str
    state: str
    license: str
    text: str
    tab: str
    """The tab of the full record that shows what the finding is about."""

    @property
    def severity(self) -> str:
        return KINDS[self.kind][0]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self) | {"severity": self.severity}


def display_name(info: FullInfo) -> str:
    bio = info.Biographic
    if bio is None:
        return ""
    if bio.FirmName:
        return bio.FirmName
    return " ".join(p for p in (bio.FirstName, bio.LastName) if p)


def _licenses(info: FullInfo) -> list[StateLicense]:
    return info.LicenseData.Licenses if info.LicenseData else []


def _is(word: str | None, expected: str) -> bool:
    return (word or "").strip().lower() == expected


def _finding(kind: str, info: FullInfo, lic: StateLicense | None, text: str, tab: str):
    return Finding(
        kind,
        info.Producer.Npn or 0,
        display_name(info),
        (lic.State or "") if lic else "",
        (lic.LicenseNumber or "") if lic else "",
        text,
        tab,
    )


def _in(state: str | None) -> str:
    """Where, for a sentence: nothing when the service did not say which state."""
    return f" in {state}" if state else ""


def _days(n: int) -> str:
    return "1 day" if abs(n) == 1 else f"{abs(n)} days"


def expiring_licenses(info: FullInfo, today: date, days: int = DEFAULT_DAYS) -> list[Finding]:
    """Licenses that expired before ``today``, and those expiring within ``days``."""
    found = []
    for lic in _licenses(info):
        expires = parse_date(lic.ExpirationDate)
        if expires is None:
            continue
        left = (expires - today).days
        where = f"{lic.State or 'A'} license {lic.LicenseNumber or '(no number)'}"
        if left < 0:
            found.append(
                _finding(
                    EXPIRED,
                    info,
                    lic,
                    f"{where} expired {_days(left)} ago, on {expires.isoformat()}.",
                    "licenses",
                )
            )
        elif left <= days:
            when = "today" if left == 0 else f"in {_days(left)}"
            found.append(
                _finding(
                    EXPIRING,
                    info,
                    lic,
                    f"{where} expires {when}, on {expires.isoformat()}.",
                    "licenses",
                )
            )
    return found


def _active(lic: StateLicense, today: date) -> bool:
    expires = parse_date(lic.ExpirationDate)
    return lic.Active is not False and (expires is None or expires >= today)


def resident_inactive(info: FullInfo, today: date) -> list[Finding]:
    """The resident license is inactive (or expired): every non-resident license rests on it."""
    found = []
    for lic in _licenses(info):
        if lic.Residency != "R" or _active(lic, today):
            continue
        active = sum(_is(a.Status, "active") for a in lic.Appointments)
        still = f"; {active} appointment{'s' * (active != 1)} there still active" if active else ""
        found.append(
            _finding(
                RESIDENT_INACTIVE,
                info,
                lic,
                f"The resident license{_in(lic.State)} is inactive{still}.",
                "licenses",
            )
        )
    return found


def unlicensed_appointments(info: FullInfo, today: date) -> list[Finding]:
    """Active appointments in a state whose license is not active for their line."""
    found = []
    for lic in _licenses(info):
        live = _active(lic, today)
        lines = {
            key.strip().lower()
            for loa in lic.LinesOfAuthority
            if _is(loa.Status, "active")
            for key in (loa.Code, loa.Name)
            if key
        }
        for appt in lic.Appointments:
            line = (appt.LineOfAuthority or "").strip()
            if not _is(appt.Status, "active") or (live and line.lower() in lines):
                continue
            why = (
                "the license is not active" if not live else f"no active {line or 'line'} authority"
            )
            found.append(
                _finding(
                    UNLICENSED_APPOINTMENT,
                    info,
                    lic,
                    f"Appointment with {appt.CompanyName or 'a company'} ({line or 'no line'})"
                    f"{_in(lic.State)} is active, but {why}.",
                    "appointments",
                )
            )
    return found


def _action_key(state: str | None, action) -> str:
    return "|".join(
        str(v or "") for v in (state, action.DateOfAction, action.Reason, action.ReferenceNumber)
    )


def new_regulatory_actions(info: FullInfo, previous: Mapping[str, Any] | None) -> list[Finding]:
    """Regulatory actions the last check did not see (on a first check: every one)."""
    seen = set(previous.get("actions", ())) if previous else set()
    found = []
    for lic in _licenses(info):
        for action in lic.RegulatoryActions:
            if _action_key(lic.State, action) in seen:
                continue
            what = action.Disposition or "no disposition given"
            found.append(
                _finding(
                    REGULATORY_ACTION,
                    info,
                    lic,
                    f"{action.Origin or 'A regulator'} acted on {action.DateOfAction or 'an unknown date'}"
                    f": {action.Reason or 'no reason given'} ({what}).",
                    "actions",
                )
            )
    return found


_NPN_FIELD = {"agent": "NiprNumber", "agency": "Nipr"}
_STATE_FIELD = {"agent": "ResidentState", "agency": "DomicileState"}


def profile_mismatches(
    info: FullInfo, kind: str, profile_key: str, profile: Mapping[str, Any] | None
) -> list[Finding]:
    """Where the carrier's profile (its Demographic section, from an export) disagrees with
    the registry: the NPN it names, the name, the resident (domicile) state."""

    def say(text: str) -> Finding:
        return _finding(MISMATCH, info, None, f"Profile {profile_key}: {text}", "overview")

    if profile is None:
        return [say("no such profile in this environment.")]
    npn = str(profile.get(_NPN_FIELD[kind]) or "").strip()
    found = []
    if not npn:
        found.append(say("has no NPN."))
    elif npn != str(info.Producer.Npn):
        found.append(say(f"names NPN {npn}, not {info.Producer.Npn}."))
    bio = info.Biographic
    if bio is not None:
        pairs = (
            [("firm name", profile.get("FirmName"), bio.FirmName)]
            if kind == "agency"
            else [
                ("first name", profile.get("FirstName"), bio.FirstName),
                ("last name", profile.get("LastName"), bio.LastName),
            ]
        )
        for what, theirs, ours in pairs:
            if theirs and ours and theirs.strip().lower() != ours.strip().lower():
                found.append(say(f"{what} is {theirs}, the registry says {ours}."))
    theirs = (profile.get(_STATE_FIELD[kind]) or "").strip().upper()
    ours = resident_state(info)
    if theirs and ours and theirs != ours:
        found.append(say(f"resident state is {theirs}, the registry says {ours}."))
    return found


def not_in_registry(npn: int) -> Finding:
    """The registry has no producer with this NPN (it answered 404)."""
    return Finding(MISMATCH, npn, "", "", "", f"NPN {npn} is not in the registry.", "overview")


def resident_state(info: FullInfo) -> str:
    for lic in _licenses(info):
        if lic.Residency == "R" and lic.State:
            return lic.State.upper()
    bio = info.Biographic
    return (bio.DomicileState or "").upper() if bio else ""


# --- snapshots and changes ---------------------------------------------------------------


def _sent(model: Any, field: str) -> bool:
    """The service sent ``field`` (a null list is read as empty, but it is unknown)."""
    return model is not None and field in model.model_fields_set


def _listed(info: FullInfo) -> bool:
    """The record lists its licenses, each with its state: one missing from it is gone."""
    return _sent(info.LicenseData, "Licenses") and all(lic.State for lic in _licenses(info))


def snapshot(info: FullInfo, previous: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What a later check compares with: name, and per state the license's number, residency,
    standing, expiry, lines and appointments; the regulatory actions' keys. What the service
    did not send is None, or what ``previous`` knew of it: the next check compares with the
    last value known. A license without a state cannot be compared and is left out."""
    licenses: dict[str, Any] = {}
    for lic in _licenses(info):
        if not lic.State:
            continue
        licenses[lic.State] = {
            "number": lic.LicenseNumber,
            "residency": lic.Residency,
            "active": lic.Active,
            "expires": lic.ExpirationDate,
            "lines": {loa.Name or loa.Code or "": loa.Status for loa in lic.LinesOfAuthority}
            if _sent(lic, "LinesOfAuthority")
            else None,
            "appointments": {
                f"{a.CompanyName or 'a company'} ({a.LineOfAuthority or 'no line'})": a.Status
                for a in lic.Appointments
            }
            if _sent(lic, "Appointments")
            else None,
        }
    actions = {_action_key(lic.State, a) for lic in _licenses(info) for a in lic.RegulatoryActions}
    if previous and not _listed(info):  # the licenses and actions not seen now may be there
        licenses = previous.get("licenses", {}) | licenses
        actions |= set(previous.get("actions", ()))
    now = {"name": _full_name(info), "licenses": licenses, "actions": sorted(actions)}
    return _known(previous, now)


def _full_name(info: FullInfo) -> str | None:
    """The firm's name or the first and last names: None when part of it was not sent (a
    name that lost its last name did not change)."""
    bio = info.Biographic
    if bio is not None and (bio.FirmName or (bio.FirstName and bio.LastName)):
        return display_name(info)
    return None


def _known(old: Any, new: Any) -> Any:
    """``new`` with each value it does not know (None) taken from ``old``."""
    if new is None:
        return old
    if isinstance(new, dict) and isinstance(old, dict):
        return {key: _known(old.get(key), value) for key, value in new.items()}
    return new


def _changed(was: Any, now: Any) -> bool:
    """Both known and different: a value the service did not send changed nothing."""
    return was is not None and now is not None and was != now


def changes(info: FullInfo, previous: Mapping[str, Any] | None) -> list[Finding]:
    """What differs from the previous snapshot (nothing on a first check). New regulatory
    actions are their own kind, not repeated here."""
    if not previous:
        return []
    now = snapshot(info)
    found = []

    def say(state: str, text: str, tab: str) -> None:
        number = (now["licenses"].get(state) or previous["licenses"].get(state) or {}).get("number")
        found.append(
            Finding(
                CHANGED, info.Producer.Npn or 0, display_name(info), state, number or "", text, tab
            )
        )

    if _changed(previous.get("name"), now["name"]):
        say("", f"Name changed from {previous['name']} to {now['name']}.", "overview")
    before, after = previous.get("licenses", {}), now["licenses"]
    for state in sorted(set(before) | set(after)):
        old, new = before.get(state), after.get(state)
        if old is None:
            say(state, f"New license in {state}.", "licenses")
            continue
        if new is None:
            if _listed(info):
                say(state, f"The license in {state} is no longer listed.", "licenses")
            continue
        if _changed(old["active"], new["active"]):
            word = "active" if new["active"] else "inactive"
            say(state, f"The license in {state} is now {word}.", "licenses")
        if _changed(old["expires"], new["expires"]):
            say(
                state,
                f"The license in {state} now expires {new['expires']} (was {old['expires']}).",
                "licenses",
            )
        for field, tab, what in (
            ("lines", "authority", "Line"),
            ("appointments", "appointments", "Appointment"),
        ):
            if old[field] is None or new[field] is None:
                continue  # not listed this time or the last: nothing to compare
            for key in sorted(set(old[field]) | set(new[field])):
                # "none": not listed; None: listed, its status not sent (unknown).
                was, now_ = old[field].get(key, "none"), new[field].get(key, "none")
                if _changed(was, now_):
                    say(state, f"{what} {key} in {state}: {was} -> {now_}.", tab)
    return found


def record_findings(
    info: FullInfo,
    today: date,
    *,
    days: int = DEFAULT_DAYS,
    previous: Mapping[str, Any] | None = None,
    kind: str = "agent",
    profile_key: str | None = None,
    profile: Mapping[str, Any] | None = None,
) -> list[Finding]:
    """Every finding of one record."""
    found = (
        expiring_licenses(info, today, days)
        + resident_inactive(info, today)
        + unlicensed_appointments(info, today)
        + new_regulatory_actions(info, previous)
        + changes(info, previous)
    )
    if profile_key:
        found += profile_mismatches(info, kind, profile_key, profile)
    return found
