"""The sandbox's deterministic synthetic producer registry (DOMAIN.md, "The full record").

Everything comes from one ``random.Random(seed)``, and every date is relative to ``today``
(a fixed reference date unless the caller passes another), so a seed always yields the
same registry. Identifiers are chosen so that no real one can appear: SSNs only from the
never-issued areas 000, 666 and 900-999, FEINs only with the never-assigned prefix 00.
Names, carriers and addresses are invented. Two demo records are always present, whatever
the seed; generated records never reuse their NPNs, SSN, FEIN or license numbers.
"""

from __future__ import annotations

import random
from bisect import bisect
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from functools import cache
from itertools import accumulate
from string import ascii_uppercase
from typing import Any, TypeVar

from tui_app.contract.jurisdictions import JURISDICTIONS
from tui_app.contract.record import FullInfo

T = TypeVar("T")

REFERENCE_DATE = date(2025, 6, 30)
"""Default ``today``: fixed so that a seed's registry (and its digest) never drifts."""

DEMO_AGENT_NPN = 19000001
DEMO_FIRM_NPN = 19000002


def demo_order(num: str, juris: str = "CA", user: str = "tester", **data: str) -> dict[str, Any]:
    """An appointment order (its JSON form) for the demo individual, Avery Sample (NPN
    19000001), as the examples, tests and benchmarks file it; ``data`` adds or replaces
    fields of its ``data``."""
    return {
        "tlq": {"juris": juris, "pType": "I", "fType": "A", "lType": "M",
                "clientOrderNum": num, "userId": user, "filingMode": "E"},
        "data": {"firstName": "Avery", "lastName": "Sample", "taxId": "000121234",
                 "niprNoReq": str(DEMO_AGENT_NPN), **data},
    }  # fmt: skip


LINES_OF_AUTHORITY: dict[str, str] = {
    "10": "Life",
    "11": "Accident & Health",
    "12": "Property",
    "13": "Casualty",
    "14": "Variable Life & Annuity",
    "15": "Personal Lines",
    "16": "Credit",
    "17": "Crop",
    "18": "Surety",
    "19": "Travel",
    "20": "Title",
}
"""The sandbox's own line-of-authority table (code -> name); real codes differ per state."""

LIMITED_LINES = frozenset({"16", "17", "18", "19", "20"})
"""Codes of the limited lines (an order's lType L); the others are major lines (M)."""

NON_APPOINTING_STATES: frozenset[str] = frozenset({"AZ", "IL", "MO", "RI"})
"""Record-only states: no electronic appointments, so the registry shows none there.
(Chosen from the publicly listed registry states.)"""

TERMINATION_REASONS: tuple[str, ...] = (
    "For Cause",
    "Not For Cause",
    "Lack of Production",
    "License No Longer Valid",
    "Voluntary",
    "Deceased",
    "Retired",
    "Company Decision",
)
"""Appointment termination reasons seen publicly (DOMAIN.md)."""

# A living producer's terminations: "Deceased" would contradict their active licenses, and
# "License No Longer Valid" is used only for appointments under an expired license.
_LIVING_TERMINATIONS = tuple(
    r for r in TERMINATION_REASONS if r not in ("Deceased", "License No Longer Valid")
)


@dataclass(frozen=True)
class Carrier:
    name: str
    fein: str
    naic: str
    lines: tuple[str, ...]
    """Line-of-authority codes the carrier appoints producers for."""


_LH = ("10", "11", "14")
_PC = ("12", "13", "15")
CARRIERS: tuple[Carrier, ...] = (
    Carrier("Ashgrove Mutual Life Insurance Company", "009800001", "99001", _LH),
    Carrier("Bellhaven Casualty Company", "009800002", "99002", _PC),
    Carrier("Cedar Ridge Life Assurance Company", "009800003", "99003", ("10", "14")),
    Carrier("Driftwood Indemnity Company", "009800004", "99004", ("13", "18")),
    Carrier("Emberline Fire & Casualty Company", "009800005", "99005", _PC),
    Carrier("Foxmoor General Insurance Company", "009800006", "99006", _PC + ("19",)),
    Carrier("Glenvale Life and Annuity Company", "009800007", "99007", _LH),
    Carrier("Harrowfield Mutual Insurance Company", "009800008", "99008", _LH + _PC),
    Carrier("Ironbridge Surety Company", "009800009", "99009", ("18",)),
    Carrier("Juniper Crest Health Insurance Company", "009800010", "99010", ("11",)),
    Carrier("Kestrel Point Casualty Company", "009800011", "99011", ("12", "13")),
    Carrier("Larkspur Title Insurance Company", "009800012", "99012", ("20",)),
    Carrier("Millbrook Life Insurance Company", "009800013", "99013", ("10", "11")),
    Carrier("Northwind Crop Insurance Company", "009800014", "99014", ("17",)),
    Carrier("Oakhurst Travel Protection Company", "009800015", "99015", ("19",)),
    Carrier("Pinecastle Credit Life Insurance Company", "009800016", "99016", ("16", "10")),
    Carrier("Quarry Hill Mutual Insurance Company", "009800017", "99017", _PC),
    Carrier("Redfern Property & Casualty Company", "009800018", "99018", _PC),
    Carrier("Silverlake Annuity Life Insurance Company", "009800019", "99019", ("14", "10")),
    Carrier("Tamarack National Insurance Company", "009800020", "99020", _LH + _PC),
)
"""Fictional carriers: FEINs with the never-assigned prefix 00, NAIC codes 99001-99020."""

_CARRIERS_BY_LINE = {
    code: tuple(c for c in CARRIERS if code in c.lines) for code in LINES_OF_AUTHORITY
}

FIRST_NAMES = (
    "Aaliyah", "Aaron", "Adrian", "Aisha", "Alejandro", "Amara", "Andrea", "Beatriz", "Benjamin",
    "Brooke", "Caleb", "Camila", "Carlos", "Chloe", "Daniel", "Deepa", "Derek", "Elena", "Elijah",
    "Emily", "Farah", "Felix", "Gabriel", "Grace", "Hannah", "Hiroshi", "Imani", "Isaac", "Jamal",
    "Jasmine", "Javier", "Jessica", "Jordan", "Julia", "Kenji", "Kayla", "Lamar", "Laura", "Leah",
    "Luis", "Malik", "Maria", "Marcus", "Mei", "Nadia", "Nathan", "Olivia", "Omar", "Priya",
    "Rafael", "Rebecca", "Samuel", "Sofia", "Tariq", "Teresa", "Thomas", "Valeria", "Victor",
    "Wei", "Yusuf", "Zoe",
)  # fmt: skip
LAST_NAMES = (
    "Abernathy", "Adeyemi", "Alvarez", "Andersen", "Baptiste", "Barlow", "Bhatt", "Castellano",
    "Chen", "Cho", "Costa", "Dalton", "Delgado", "Dubois", "Eastman", "Ellison", "Ferreira",
    "Fitzgerald", "Garcia", "Gallagher", "Greer", "Haddad", "Hartley", "Holloway", "Ibarra",
    "Iverson", "Jablonski", "Jensen", "Kapoor", "Kaufman", "Kowalski", "Langford", "Larsen",
    "Lindqvist", "Lopez", "Mahoney", "Marsh", "Mendoza", "Morrow", "Nakamura", "Nguyen", "Novak",
    "Okafor", "Olsen", "Ortega", "Park", "Petrov", "Pham", "Quintero", "Ramirez", "Reyes",
    "Rinaldi", "Rosen", "Sandoval", "Schultz", "Shah", "Sorensen", "Stanton", "Sullivan",
    "Tanaka", "Thornton", "Torres", "Underwood", "Valdez", "Vance", "Vargas", "Wallace", "Weber",
    "Whitaker", "Whitfield", "Xu", "Yamada", "Young", "Zamora", "Zielinski",
)  # fmt: skip
_SUFFIXES = ("Jr.", "Sr.", "II", "III")
_FIRM_PLACES = (
    "Blue Ridge", "Cedar Hollow", "Copper Creek", "Harbor Point", "Ironwood", "Lakeshore",
    "Meadowbrook", "Northgate", "Pinecrest", "Prairie Wind", "Riverbend", "Silver Oak",
    "Stonegate", "Summit Valley", "Twin Pines", "Westfield",
)  # fmt: skip
_FIRM_NOUNS = (
    "Insurance Agency", "Insurance Group", "Risk Advisors", "Insurance Services",
    "Benefits Group", "Financial Partners", "Insurance Brokerage", "Insurance Associates",
)  # fmt: skip
_FIRM_FORMS = ("LLC", "Inc.", "Corp.", "LLP", "Co.")
_STREETS = (
    "Main", "Oak", "Maple", "Cedar", "Elm", "Pine", "Lake", "Hill", "Park", "Washington",
    "Lincoln", "Sunset", "Ridge", "Willow", "Church", "Mill", "River", "Highland",
)  # fmt: skip
_STREET_KINDS = ("St", "Ave", "Blvd", "Rd", "Ln", "Dr", "Way", "Ct")
_CITIES = (
    "Springfield", "Fairview", "Riverside", "Franklin", "Greenville", "Clinton", "Madison",
    "Georgetown", "Salem", "Oakdale", "Ashland", "Milton", "Newport", "Centerville", "Dover",
    "Marion", "Bristol", "Auburn", "Jackson", "Lebanon",
)  # fmt: skip
_ZIP_PREFIX = {
    "AK": "995", "AL": "350", "AR": "716", "AS": "967", "AZ": "850", "CA": "900", "CO": "800",
    "CT": "060", "DC": "200", "DE": "197", "FL": "320", "GA": "300", "GU": "969", "HI": "967",
    "IA": "500", "ID": "832", "IL": "600", "IN": "460", "KS": "660", "KY": "400", "LA": "700",
    "MA": "010", "MD": "206", "ME": "039", "MI": "480", "MN": "550", "MO": "630", "MP": "969",
    "MS": "386", "MT": "590", "NC": "270", "ND": "580", "NE": "680", "NH": "030", "NJ": "070",
    "NM": "870", "NV": "889", "NY": "100", "OH": "430", "OK": "730", "OR": "970", "PA": "150",
    "PR": "006", "RI": "028", "SC": "290", "SD": "570", "TN": "370", "TX": "750", "UT": "840",
    "VA": "220", "VI": "008", "VT": "050", "WA": "980", "WI": "530", "WV": "247", "WY": "820",
}  # fmt: skip
"""A real first three ZIP digits per jurisdiction, so that a ZIP looks like its state."""

# License number patterns: '#' a digit, '@' a capital letter, "NPN" the producer's NPN (as
# several states do). Named states have their own; the rest rotate through the defaults.
_LICENSE_PATTERNS = {"CA": "0@#####", "TX": "#######", "FL": "@######", "NY": "LA-#######"}
_DEFAULT_PATTERNS = ("NPN", "#######", "@######", "########", "##-######")
LICENSE_PATTERNS: dict[str, str] = {
    s: _LICENSE_PATTERNS.get(s, _DEFAULT_PATTERNS[i % len(_DEFAULT_PATTERNS)])
    for i, s in enumerate(JURISDICTIONS)
}
"""Per-jurisdiction license number pattern; a number is unique only within its state."""

_SSN_AREAS = ("000", "666", *(str(a) for a in range(900, 1000)))
# Big states hold more producers.
_STATE_CUM_WEIGHTS = tuple(
    accumulate(
        6 if s in ("CA", "TX", "FL", "NY") else 3 if s in ("IL", "PA", "OH", "GA", "NC") else 1
        for s in JURISDICTIONS
    )
)
# The lines a producer holds, and how often; the last is one limited line, picked per producer.
_LOA_PROFILES = (
    ("10", "11"),
    ("10", "11", "14"),
    ("12", "13"),
    ("12", "13", "15"),
    ("10", "11", "12", "13"),
    ("15",),
    ("16", "17", "18", "19", "20"),
)
_LOA_CUM_WEIGHTS = tuple(accumulate((30, 15, 20, 10, 10, 5, 10)))
_ROLES = ("Producer", "Producer", "Producer", "Officer", "Designated Responsible Producer")
_CE = ("IN COMPLIANCE", "IN COMPLIANCE", "IN COMPLIANCE", "NOT IN COMPLIANCE", "EXEMPT")
_REG_REASONS = (
    "Failure to complete continuing education",
    "Failure to remit premium",
    "Misrepresentation",
    "Unlicensed activity",
    "Failure to report an administrative action",
    "Late renewal",
)
_REG_DISPOSITIONS = ("Fined", "Consent order", "License suspended", "License revoked", "Dismissed")
_REG_RATE = 0.03


@cache  # a registry spans a few thousand distinct dates, written over a hundred thousand times
def mdy(d: date) -> str:
    """A date as the national report writes it: MM/DD/YYYY."""
    return f"{d.month:02d}/{d.day:02d}/{d.year}"


@dataclass
class _Firm:
    npn: int
    name: str
    fein: str
    state: str
    members: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class _Person:
    npn: int
    first: str
    middle: str | None
    last: str
    suffix: str | None
    ssn: str
    state: str
    firms: list[dict[str, Any]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return " ".join(p for p in (self.first, self.middle, self.last, self.suffix) if p)


class _Builder:
    """Draws one registry from ``rng``; keeps the sets that make identifiers unique.

    Every draw goes through ``rng.random()``: ``randint``/``choice``/``choices`` cost several
    times more per call, and the default registry makes about 400,000 draws.
    """

    def __init__(self, rng: random.Random, today: date) -> None:
        self.rng = rng
        self.random = rng.random
        self.today = today
        self.npns = {DEMO_AGENT_NPN, DEMO_FIRM_NPN}
        self.ssns = {_DEMO_SSN}
        self.feins = {_DEMO_FEIN, *(c.fein for c in CARRIERS)}
        self.numbers: dict[str, set[str]] = {s: set() for s in JURISDICTIONS}
        for state, number in _DEMO_LICENSES:
            self.numbers[state].add(number)

    # --- draws ------------------------------------------------------------------------

    def below(self, n: int) -> int:
        return int(self.random() * n)

    def between(self, low: int, high: int) -> int:
        return low + int(self.random() * (high - low + 1))

    def pick(self, seq: Sequence[T]) -> T:
        return seq[int(self.random() * len(seq))]

    def weighted(self, seq: Sequence[T], cum_weights: Sequence[int]) -> T:
        return seq[bisect(cum_weights, self.random() * cum_weights[-1])]

    # --- identifiers ------------------------------------------------------------------

    def npn(self) -> int:
        while True:  # 7 to 9 digits, no leading zero, int32
            n = self.between(1_000_000, 299_999_999)
            if n not in self.npns:
                self.npns.add(n)
                return n

    def ssn(self) -> str:
        while True:
            s = f"{self.pick(_SSN_AREAS)}{self.between(1, 99):02d}{self.between(1, 9999):04d}"
            if s not in self.ssns:
                self.ssns.add(s)
                return s

    def fein(self) -> str:
        while True:
            f = f"00{self.between(1, 9_999_999):07d}"
            if f not in self.feins:
                self.feins.add(f)
                return f

    def license_number(self, state: str, npn: int) -> str:
        pattern = LICENSE_PATTERNS[state]
        if pattern == "NPN":
            return str(npn)  # unique because NPNs are
        used = self.numbers[state]
        n_digits, n_letters = pattern.count("#"), pattern.count("@")
        while True:
            digits = iter(f"{self.below(10**n_digits):0{n_digits}d}")
            letters = iter([self.pick(ascii_uppercase) for _ in range(n_letters)])
            number = "".join(
                next(digits) if ch == "#" else next(letters) if ch == "@" else ch for ch in pattern
            )
            if number not in used:
                used.add(number)
                return number

    # --- pieces -----------------------------------------------------------------------

    def days_ago(self, low: int, high: int) -> date:
        return self.today - timedelta(days=self.between(low, high))

    def state(self) -> str:
        return self.weighted(JURISDICTIONS, _STATE_CUM_WEIGHTS)

    def address(self, kind: str, state: str) -> dict[str, Any]:
        return {
            "Type": kind,
            "Line1": f"{self.between(10, 9899)} {self.pick(_STREETS)} {self.pick(_STREET_KINDS)}",
            "City": self.pick(_CITIES),
            "State": state,
            "Zip": f"{_ZIP_PREFIX[state]}{self.between(1, 99):02d}",
            "Country": "US",
            "DateUpdated": mdy(self.days_ago(0, 1500)),
        }

    def addresses(self, state: str, *, residence: bool) -> list[dict[str, Any]]:
        business = self.address("BUSINESS", state)
        home = self.address("RESIDENCE", state) if residence else None
        # Most producers get their mail at an address they already have.
        if self.random() < 0.7:
            mailing = {**(home or business), "Type": "MAILING"}
        else:
            mailing = self.address("MAILING", state)
        return [business, mailing, *([home] if home else [])]

    def last_updated(self) -> str:
        moment = datetime.combine(self.days_ago(0, 900), time(self.below(24), self.below(60)), UTC)
        return moment.isoformat()

    def lines(self) -> tuple[str, ...]:
        held = self.weighted(_LOA_PROFILES, _LOA_CUM_WEIGHTS)
        return (self.pick(held),) if held[0] in LIMITED_LINES else held

    def license(
        self, state: str, npn: int, resident: bool, held: tuple[str, ...], firm: bool
    ) -> dict[str, Any]:
        today = self.today
        roll = self.random()
        if roll < 0.08:
            expires = today - timedelta(days=self.between(1, 720))
        elif roll < 0.16:  # soon-expiring: within 60 days
            expires = today + timedelta(days=self.between(0, 60))
        else:
            expires = today + timedelta(days=self.between(61, 730))
        issued = min(today, expires) - timedelta(days=self.between(60, 7000))
        active = expires >= today
        loas = [self.line(code, issued, expires, active) for code in held]
        lic: dict[str, Any] = {
            "State": state,
            "LicenseNumber": self.license_number(state, npn),
            "LicenseClass": "Business Entity Producer"
            if firm
            else "Limited Lines Producer"
            if LIMITED_LINES.issuperset(held)
            else "Insurance Producer",
            "Residency": "R" if resident else "NR",
            "Active": active,
            "IssueDate": mdy(issued),
            "ExpirationDate": mdy(expires),
            "CeCompliance": "N/A" if firm else self.pick(_CE),
            "LinesOfAuthority": loas,
        }
        if state not in NON_APPOINTING_STATES:
            appointments = self.appointments(loas, issued, expires, active)
            if appointments:
                lic["Appointments"] = appointments
        return lic

    def line(self, code: str, issued: date, expires: date, active: bool) -> dict[str, Any]:
        if not active:
            status, reason, when = "Inactive", "License Expired", expires
        elif self.random() < 0.08:
            status = "Cancelled"
            reason = self.pick(
                ("Voluntary Surrender", "Failure to Renew", "Cancelled by Department")
            )
            when = issued + (self.today - issued) * self.random()
        else:
            status, reason, when = "Active", "Granted", issued
        return {
            "Code": code,
            "Name": LINES_OF_AUTHORITY[code],
            "Status": status,
            "StatusReason": reason,
            "StatusDate": mdy(when),
        }

    def appointments(
        self, loas: list[dict[str, Any]], issued: date, expires: date, active: bool
    ) -> list[dict[str, Any]]:
        codes = [x["Code"] for x in loas if x["Status"] != "Cancelled"]
        wanted = self.weighted((0, 1, 2, 3), (25, 65, 90, 100)) if codes else 0
        chosen: dict[tuple[str, str], Carrier] = {}
        for _ in range(wanted):
            code = self.pick(codes)
            carrier = self.pick(_CARRIERS_BY_LINE[code])
            chosen[(carrier.naic, code)] = carrier
        out = []
        # Under an expired license every appointment ended before the license did.
        end = self.today if active else expires
        for (_, code), carrier in chosen.items():
            since = issued + (end - issued) * self.random()
            if not active:
                reason: str | None = "License No Longer Valid"
            elif self.random() < 0.2:
                reason = self.pick(_LIVING_TERMINATIONS)
            else:
                reason = None
            out.append(_appointment(carrier, code, since, self.today, terminated_because=reason))
        return out

    def regulatory_action(self, state: str) -> dict[str, Any]:
        acted = self.days_ago(30, 3000)
        disposition = self.pick(_REG_DISPOSITIONS)
        action = {
            "Origin": "FINRA" if self.random() < 0.1 else f"{state} Department of Insurance",
            "Reason": self.pick(_REG_REASONS),
            "Disposition": disposition,
            "DateOfAction": mdy(acted),
            "EffectiveDate": mdy(min(self.today, acted + timedelta(days=self.between(0, 45)))),
            "ReferenceNumber": f"{state}-{acted.year}-{self.between(1000, 99999)}",
        }
        if disposition == "Fined":
            action["Penalty"] = f"${self.between(2, 100) * 50:,}.00"
        return action

    def licenses(self, npn: int, home: str, *, firm: bool) -> list[dict[str, Any]]:
        extra = self.weighted((0, 1, 2, 3, 4, 6, 9), (35, 60, 75, 85, 92, 97, 100))
        others = self.rng.sample([s for s in JURISDICTIONS if s != home], extra)
        held = self.lines()
        lics = [self.license(s, npn, s == home, held, firm) for s in (home, *sorted(others))]
        if self.random() < _REG_RATE:
            lic = self.pick(lics)
            lic["RegulatoryActions"] = [self.regulatory_action(lic["State"])]
        return lics

    # --- records ----------------------------------------------------------------------

    def firm_stub(self) -> _Firm:
        shape = self.below(3)
        if shape == 0:
            lead = self.pick(LAST_NAMES)
        elif shape == 1:
            lead = self.pick(_FIRM_PLACES)
        else:
            lead = " & ".join(self.rng.sample(LAST_NAMES, 2))
        name = f"{lead} {self.pick(_FIRM_NOUNS)} {self.pick(_FIRM_FORMS)}"
        return _Firm(self.npn(), name, self.fein(), self.state())

    def person_stub(self, firms: list[_Firm]) -> _Person:
        p = _Person(
            npn=self.npn(),
            first=self.pick(FIRST_NAMES),
            middle=self.pick(FIRST_NAMES) if self.random() < 0.6 else None,
            last=self.pick(LAST_NAMES),
            suffix=self.pick(_SUFFIXES) if self.random() < 0.03 else None,
            ssn=self.ssn(),
            state=self.state(),
        )
        if firms and self.random() < 0.65:
            for firm in self.rng.sample(firms, 2 if self.random() < 0.1 else 1):
                _affiliate(p, firm, self.pick(_ROLES), self.days_ago(30, 6000))
        return p

    def person_doc(self, p: _Person) -> dict[str, Any]:
        age_days = self.between(22 * 365, 75 * 365)
        return _person_record(
            p,
            date_of_birth=self.today - timedelta(days=age_days),
            addresses=self.addresses(p.state, residence=True),
            licenses=self.licenses(p.npn, p.state, firm=False),
            last_updated=self.last_updated(),
        )

    def firm_doc(self, f: _Firm) -> dict[str, Any]:
        return _firm_record(
            f,
            addresses=self.addresses(f.state, residence=False),
            licenses=self.licenses(f.npn, f.state, firm=True),
            last_updated=self.last_updated(),
        )


def _appointment(
    carrier: Carrier, code: str, since: date, today: date, terminated_because: str | None
) -> dict[str, Any]:
    """An appointment; an active one renews yearly on the anniversary of its date."""
    out: dict[str, Any] = {
        "CompanyName": carrier.name,
        "Fein": carrier.fein,
        "NaicCode": carrier.naic,
        "LineOfAuthority": LINES_OF_AUTHORITY[code],
        "Status": "Terminated" if terminated_because else "Active",
        "StatusDate": mdy(since),
    }
    if terminated_because:
        out["TerminationReason"] = terminated_because
    else:
        renews = date(today.year, since.month, min(since.day, 28))
        if renews <= today:
            renews = renews.replace(year=today.year + 1)
        out["RenewalDate"] = mdy(renews)
    return out


def _affiliate(person: _Person, firm: _Firm, role: str, since: date) -> None:
    """Record one affiliation on both sides, so the two Organization lists always agree."""
    common = {"Role": role, "State": firm.state, "StartDate": mdy(since)}
    person.firms.append({"Npn": firm.npn, "Name": firm.name, "EntityType": "FIRM", **common})
    firm.members.append(
        {"Npn": person.npn, "Name": person.name, "EntityType": "INDIVIDUAL", **common}
    )


def _person_record(
    p: _Person,
    *,
    date_of_birth: date,
    addresses: list[dict[str, Any]],
    licenses: list[dict[str, Any]],
    last_updated: str,
) -> dict[str, Any]:
    bio = {"FirstName": p.first, "LastName": p.last}
    if p.middle:
        bio["MiddleName"] = p.middle
    if p.suffix:
        bio["Suffix"] = p.suffix
    bio |= {"DateOfBirth": mdy(date_of_birth), "Ssn": p.ssn}
    return {
        "Producer": {"Npn": p.npn, "EntityType": "INDIVIDUAL"},
        "Biographic": bio,
        "Organization": p.firms,
        "LastUpdated": last_updated,
        "AddressInfo": {"Addresses": addresses},
        "LicenseData": {"Licenses": licenses},
    }


def _firm_record(
    f: _Firm,
    *,
    addresses: list[dict[str, Any]],
    licenses: list[dict[str, Any]],
    last_updated: str,
) -> dict[str, Any]:
    return {
        "Producer": {"Npn": f.npn, "EntityType": "FIRM"},
        "Biographic": {"FirmName": f.name, "Fein": f.fein, "DomicileState": f.state},
        "Organization": f.members,
        "LastUpdated": last_updated,
        "AddressInfo": {"Addresses": addresses},
        "LicenseData": {"Licenses": licenses},
    }


# --- the demo records ----------------------------------------------------------------

_DEMO_SSN = "000121234"
_DEMO_FEIN = "000000001"
_DEMO_LICENSES = (("CA", "0H19001"), ("TX", "2190001"), ("CA", "0K19002"))


def _demo_license(
    state: str,
    number: str,
    *,
    firm: bool,
    issued: date,
    expires: date,
    lines: dict[str, str],
    appointments: list[dict[str, Any]],
) -> dict[str, Any]:
    """An active demo license; ``lines`` maps each code to Active or Cancelled."""
    return {
        "State": state,
        "LicenseNumber": number,
        "LicenseClass": "Business Entity Producer" if firm else "Insurance Producer",
        "Residency": "R" if state == "CA" else "NR",
        "Active": True,
        "IssueDate": mdy(issued),
        "ExpirationDate": mdy(expires),
        "CeCompliance": "N/A" if firm else "IN COMPLIANCE",
        "LinesOfAuthority": [
            {
                "Code": code,
                "Name": LINES_OF_AUTHORITY[code],
                "Status": status,
                "StatusReason": "Granted" if status == "Active" else "Voluntary Surrender",
                "StatusDate": mdy(issued if status == "Active" else expires - timedelta(700)),
            }
            for code, status in lines.items()
        ],
        "Appointments": appointments,
    }


def _demo_records(today: date) -> tuple[dict[str, Any], dict[str, Any]]:
    """Avery Quinn Sample and Sample Risk Partners LLC: fixed values with dates near
    ``today``. The TX license always expires within 60 days, so the demo shows that too."""

    def ago(days: int) -> date:
        return today - timedelta(days=days)

    def office(kind: str, line1: str = "100 Example Plaza") -> dict[str, Any]:
        return {
            "Type": kind,
            "Line1": line1,
            "City": "Sacramento",
            "State": "CA",
            "Zip": "95814",
            "Country": "US",
            "DateUpdated": mdy(ago(120)),
        }

    ashgrove, bellhaven, harrowfield = CARRIERS[0], CARRIERS[1], CARRIERS[7]
    firm = _Firm(DEMO_FIRM_NPN, "Sample Risk Partners LLC", _DEMO_FEIN, "CA")
    person = _Person(DEMO_AGENT_NPN, "Avery", "Quinn", "Sample", None, _DEMO_SSN, "CA")
    _affiliate(person, firm, "Designated Responsible Producer", ago(1800))
    updated = datetime.combine(ago(3), time(9, 30), UTC).isoformat()
    agent = _person_record(
        person,
        date_of_birth=date(1985, 4, 12),
        addresses=[office("BUSINESS"), office("MAILING"), office("RESIDENCE", "42 Sample Ln")],
        licenses=[
            _demo_license(
                "CA",
                "0H19001",
                firm=False,
                issued=ago(3000),
                expires=today + timedelta(400),
                lines={"10": "Active", "11": "Active", "12": "Cancelled"},
                appointments=[
                    _appointment(ashgrove, "10", ago(900), today, None),
                    _appointment(bellhaven, "12", ago(1500), today, "Not For Cause"),
                ],
            ),
            _demo_license(
                "TX",
                "2190001",
                firm=False,
                issued=ago(700),
                expires=today + timedelta(45),
                lines={"10": "Active", "11": "Active"},
                appointments=[_appointment(ashgrove, "11", ago(600), today, None)],
            ),
        ],
        last_updated=updated,
    )
    agency = _firm_record(
        firm,
        addresses=[office("BUSINESS"), office("MAILING")],
        licenses=[
            _demo_license(
                "CA",
                "0K19002",
                firm=True,
                issued=ago(2500),
                expires=today + timedelta(500),
                lines={"10": "Active", "11": "Active", "12": "Active", "13": "Active"},
                appointments=[_appointment(harrowfield, "10", ago(2000), today, None)],
            )
        ],
        last_updated=updated,
    )
    return agent, agency


# --- the registry as days pass ---------------------------------------------------------


def as_of(doc: dict[str, Any], day: date) -> dict[str, Any]:
    """A record generated for an earlier date, as the registry shows it on ``day``: a
    license past its expiration date is no longer active and its lines are inactive
    ("License Expired"). Its appointments stay as they were: a state terminates them
    later, and that gap is what a watch of the registry is there to catch."""
    for lic in doc.get("LicenseData", {}).get("Licenses", []):
        expires = datetime.strptime(lic["ExpirationDate"], "%m/%d/%Y").date()
        if lic.get("Active") and expires < day:
            lic["Active"] = False
            for loa in lic.get("LinesOfAuthority", []):
                if loa["Status"] == "Active":
                    loa |= {
                        "Status": "Inactive",
                        "StatusReason": "License Expired",
                        "StatusDate": mdy(expires),
                    }
    return doc


# --- the generator -------------------------------------------------------------------


def generate_docs(
    seed: int, individuals: int = 5000, firms: int = 1000, today: date = REFERENCE_DATE
) -> Iterator[dict[str, Any]]:
    """The registry as plain dicts shaped like :class:`FullInfo` (JSON-ready, no ``None``):
    the demo firm and agent first, then ``firms`` firms and ``individuals`` individuals."""
    builder = _Builder(random.Random(seed), today)
    # Affiliations are drawn before any document is built, so each firm's Organization
    # already lists every individual that lists the firm.
    firm_stubs = [builder.firm_stub() for _ in range(firms)]
    people = [builder.person_stub(firm_stubs) for _ in range(individuals)]
    yield from reversed(_demo_records(today))
    for f in firm_stubs:
        yield builder.firm_doc(f)
    for p in people:
        yield builder.person_doc(p)


def generate(
    seed: int, individuals: int = 5000, firms: int = 1000, today: date = REFERENCE_DATE
) -> Iterator[FullInfo]:
    """The registry for ``seed`` as contract models; see :func:`generate_docs`."""
    for doc in generate_docs(seed, individuals, firms, today):
        yield FullInfo.model_validate(doc)
