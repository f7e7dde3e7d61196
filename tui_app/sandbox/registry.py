"""The synthetic producer registry in SQLite, and the producer database search over it.

Each record is stored whole as JSON (the full-record answer) beside the columns the searches
need: lower-cased names (case-insensitive prefix matches become index range scans), SSN,
FEIN, resident state and the license states a hit list shows. Licenses sit in their own
table keyed by (state, number), which also enforces "unique within its state".

Search rules (choices DOMAIN.md leaves open; the README should tell users):
- agent NAME: first AND last name are case-insensitive prefixes (middle too, if given);
  at most :data:`MAX_HITS` hits, sorted by last name, first name, NPN.
- agent SSN: the exact SSN AND the last name (case-insensitive, whole name).
- NPN: exact. LICENSE: jurisdiction plus the number, exact but case-insensitive.
- agency NAME: the firm name is a case-insensitive prefix AND the FEIN digits (hyphens
  ignored, so ``00-0000001`` and ``000000001`` are the same) are a prefix of the FEIN: the
  whole FEIN is the usual case, and a partial one still narrows a name search.
Hit lists carry only the last four SSN or FEIN digits.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime
from typing import Any, Literal

import pydantic_core

from tui_app.contract.errors import FieldError
from tui_app.contract.record import FullInfo, FullRecordResponse
from tui_app.contract.search import (
    AdditionalInfoBlock,
    AgencySearch,
    AgencySearchResponse,
    AgentSearch,
    AgentSearchResponse,
    EntityBlock,
    FirmsSummaryBlock,
    FirmSummary,
    IndividualsSummaryBlock,
    IndividualSummary,
    SearchKind,
    TransactionTypeBlock,
)
from tui_app.pii import digits_of
from tui_app.sandbox.db import Database, to_json
from tui_app.sandbox.synthetic import DEMO_AGENT_NPN, DEMO_FIRM_NPN, as_of, generate_docs

SCHEMA = """
CREATE TABLE IF NOT EXISTS registry_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS registry_individuals (
    npn            INTEGER PRIMARY KEY,
    first_name     TEXT NOT NULL,
    middle_name    TEXT,
    last_name      TEXT NOT NULL,
    first_lc       TEXT NOT NULL,
    middle_lc      TEXT NOT NULL,  -- '' when there is none, so a prefix never matches it
    last_lc        TEXT NOT NULL,
    ssn            TEXT NOT NULL UNIQUE,
    resident_state TEXT NOT NULL,
    license_states TEXT NOT NULL,  -- space-separated, for hit lists without parsing doc
    doc            TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS registry_individuals_name
    ON registry_individuals (last_lc, first_lc);
CREATE TABLE IF NOT EXISTS registry_firms (
    npn            INTEGER PRIMARY KEY,
    firm_name      TEXT NOT NULL,
    name_lc        TEXT NOT NULL,
    fein           TEXT NOT NULL UNIQUE,  -- 9 digits, no hyphen
    domicile_state TEXT NOT NULL,
    license_states TEXT NOT NULL,
    doc            TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS registry_firms_name ON registry_firms (name_lc);
CREATE TABLE IF NOT EXISTS registry_licenses (
    state     TEXT NOT NULL,
    number_lc TEXT NOT NULL,
    npn       INTEGER NOT NULL,
    kind      TEXT NOT NULL,  -- INDIVIDUAL or FIRM
    PRIMARY KEY (state, number_lc)
) WITHOUT ROWID;
"""

MAX_HITS = 200
"""Most hits a NAME search returns; more set ``Entity.Truncated``."""

_SEEDED_KEY = "seeded"
# Sorts after any text that starts with a given prefix (SQLite compares UTF-8 bytes), so
# ``col >= p AND col < p || _TOP`` is a prefix match that can use the column's index.
_TOP = "\U0010ffff"

_PERSON_COLS = "npn, first_name, middle_name, last_name, ssn, resident_state, license_states"
_FIRM_COLS = "npn, firm_name, fein, domicile_state, license_states"
_NAME_WHERE = (
    "last_lc >= ? AND last_lc < ? AND first_lc >= ? AND first_lc < ?"
    " AND (? IS NULL OR (middle_lc >= ? AND middle_lc < ?))"
)
_NAME_ORDER = "last_lc, first_lc, npn"  # the index's own order: no sort step
_FIRM_WHERE = "name_lc >= ? AND name_lc < ? AND fein >= ? AND fein < ?"
_DOC_SQL = {
    "agent": "SELECT doc FROM registry_individuals WHERE npn = ?",
    "agency": "SELECT doc FROM registry_firms WHERE npn = ?",
}


def _prefix(text: str | None) -> tuple[str, str]:
    """The range bounds matching every lower-cased text that starts with ``text`` (the
    request's rules make the fields searched on present)."""
    low = (text or "").strip().lower()
    return low, low + _TOP


def _utc_now() -> datetime:
    return datetime.now(UTC)


class Registry:
    """The registry's tables in ``db`` (which must have been opened with :data:`SCHEMA`).

    ``clock`` stamps each answer's ``TransactionType.Date``; tests pass a fixed one.
    """

    def __init__(self, db: Database, clock: Callable[[], datetime] = _utc_now) -> None:
        self.db = db
        self.clock = clock
        self.as_of: date | None = None
        """The sandbox's date when it is later than the one the registry was seeded for:
        records are then shown as they stand on that day (:func:`synthetic.as_of`)."""
        self._ready = threading.Event()
        self._ready.set()  # cleared while a seeding runs in the background
        self._seed_error: BaseException | None = None

    # --- seeding ----------------------------------------------------------------------

    def ensure_seeded(
        self,
        seed: int,
        individuals: int = 5000,
        firms: int = 1000,
        today: date | None = None,
        *,
        background: bool = False,
    ) -> bool:
        """Fill the registry from :func:`generate_docs` unless it already holds that
        registry; different parameters replace it. Returns whether it seeds.

        ``today`` is the sandbox's date. A new registry's licenses are dated from it; left
        out, that is the real date of the first seeding, and the data stays put across
        restarts. A later ``today`` moves the sandbox's clock on without changing the data:
        records are shown as they stand that day (licenses expire), so a watch sees
        changes between two checks. An earlier one dates the registry from it again.

        With ``background`` a registry to generate is seeded on a thread and this returns
        at once (the embedded sandbox: generating takes most of a first start-up, and the
        service can answer meanwhile); every read of the registry waits until it is in
        place, so no reader ever sees part of it."""
        self._ready.wait()  # a seeding under way decides what is stored
        self.as_of = None
        stored = self._seeded()
        if stored is not None:
            meta = json.loads(stored)
            same = (meta["seed"], meta["individuals"], meta["firms"]) == (seed, individuals, firms)
            seeded_for = date.fromisoformat(meta["today"])
            if same and (today is None or today >= seeded_for):
                self.as_of = today if today and today > seeded_for else None
                return False
        args = (seed, individuals, firms, today or date.today())
        if not background:
            self._seed(*args)
            return True
        self._ready.clear()
        self._seed_error = None
        threading.Thread(
            target=self._seed_and_release, args=args, name="sandbox-seed", daemon=True
        ).start()
        return True

    def _seed_and_release(self, *args: Any) -> None:
        try:
            self._seed(*args)
        except Exception as exc:  # kept for the readers, who report it
            self._seed_error = exc
        finally:
            self._ready.set()

    def _seed(self, seed: int, individuals: int, firms: int, today: date) -> None:
        wanted = to_json(
            {"seed": seed, "individuals": individuals, "firms": firms, "today": str(today)}
        )
        # Generate before taking the write lock, so readers wait only for the inserts.
        people, firm_rows, licenses = _rows(generate_docs(seed, individuals, firms, today))
        with self.db.transaction() as conn:
            got = conn.execute(
                "SELECT value FROM registry_meta WHERE key = ?", (_SEEDED_KEY,)
            ).fetchone()
            if got is not None and got["value"] == wanted:
                return  # another thread or process seeded it meanwhile
            for table in ("registry_individuals", "registry_firms", "registry_licenses"):
                conn.execute(f"DELETE FROM {table}")
            conn.executemany(
                "INSERT INTO registry_individuals VALUES (?,?,?,?,?,?,?,?,?,?,?)", people
            )
            conn.executemany("INSERT INTO registry_firms VALUES (?,?,?,?,?,?,?)", firm_rows)
            conn.executemany("INSERT INTO registry_licenses VALUES (?,?,?,?)", licenses)
            conn.execute(
                "INSERT OR REPLACE INTO registry_meta VALUES (?, ?)", (_SEEDED_KEY, wanted)
            )

    def _wait_seeded(self) -> None:
        """Wait for a seeding in the background, if one is under way (see ensure_seeded)."""
        self._ready.wait()
        if self._seed_error is not None:
            error = self._seed_error
            raise RuntimeError(f"the sandbox could not seed its registry: {error}") from error

    def _seeded(self) -> str | None:
        row = self.db.query_one("SELECT value FROM registry_meta WHERE key = ?", (_SEEDED_KEY,))
        return None if row is None else row["value"]

    # --- search -----------------------------------------------------------------------

    def search_agents(self, req: AgentSearch) -> AgentSearchResponse:
        self._wait_seeded()
        rows, total = self._find_agents(req)
        stamp = self._stamp("PDB Search", req.CostCenter)
        return AgentSearchResponse(
            IndividualsSummaryInfo=IndividualsSummaryBlock(
                TransactionType=stamp,
                Individuals=[
                    IndividualSummary(
                        Npn=r["npn"],
                        FirstName=r["first_name"],
                        MiddleName=r["middle_name"],
                        LastName=r["last_name"],
                        SsnLast4=r["ssn"][-4:],
                        ResidentState=r["resident_state"],
                        LicenseStates=r["license_states"].split(),
                    )
                    for r in rows
                ],
            ),
            AdditionalInfo=AdditionalInfoBlock(
                TransactionType=stamp, Entity=_entity(req.SearchType, len(rows), total)
            ),
        )

    def _find_agents(self, req: AgentSearch) -> tuple[list[Any], int]:
        """The hits, and how many there are in all (more than the hits when capped)."""
        select = f"SELECT {_PERSON_COLS} FROM registry_individuals"
        match req.SearchType:
            case SearchKind.NAME:
                middle = _prefix(req.MiddleName) if req.MiddleName else (None, None)
                params = (*_prefix(req.LastName), *_prefix(req.FirstName), middle[0], *middle)
                return self._capped(
                    _PERSON_COLS, "registry_individuals", _NAME_WHERE, _NAME_ORDER, params
                )
            case SearchKind.SSN:
                sql = f"{select} WHERE ssn = ? AND last_lc = ?"
                rows = self.db.query(sql, (req.Ssn, _prefix(req.LastName)[0]))
            case SearchKind.NPN:
                rows = self.db.query(f"{select} WHERE npn = ?", (req.Npn,))
            case SearchKind.LICENSE:
                rows = self._licensed(select, req)
        return rows, len(rows)

    def search_agencies(self, req: AgencySearch) -> AgencySearchResponse:
        self._wait_seeded()
        rows, total = self._find_agencies(req)
        stamp = self._stamp("PDB Search", req.CostCenter)
        return AgencySearchResponse(
            NiprFirmsSummaryInfo=FirmsSummaryBlock(
                TransactionType=stamp,
                Firms=[
                    FirmSummary(
                        Npn=r["npn"],
                        FirmName=r["firm_name"],
                        FeinLast4=r["fein"][-4:],
                        ResidentState=r["domicile_state"],
                        LicenseStates=r["license_states"].split(),
                    )
                    for r in rows
                ],
            ),
            AdditionalInfo=AdditionalInfoBlock(
                TransactionType=stamp, Entity=_entity(req.SearchType, len(rows), total)
            ),
        )

    def _find_agencies(self, req: AgencySearch) -> tuple[list[Any], int]:
        select = f"SELECT {_FIRM_COLS} FROM registry_firms"
        if req.SearchType == SearchKind.NAME:
            fein = (req.FirmFein or "").replace("-", "")
            params = (*_prefix(req.FirmName), fein, fein + _TOP)
            return self._capped(_FIRM_COLS, "registry_firms", _FIRM_WHERE, "name_lc, npn", params)
        if req.SearchType == SearchKind.SSN:
            # The firm's tax id travels in FirmFein (DOMAIN.md); its digits must match.
            digits = digits_of(req.FirmFein or "")
            if not digits:
                raise SearchRefused(
                    "a firm search of SearchType SSN carries the firm's tax id in FirmFein",
                    [
                        FieldError(
                            "FirmFein", "is required when SearchType is SSN (the firm's tax id)"
                        )
                    ],
                )
            rows = self.db.query(f"{select} WHERE fein = ?", (digits,))
            return rows, len(rows)
        if req.SearchType == SearchKind.NPN:
            raise SearchRefused(
                "a firm search has no field for the NPN: read the firm by its NPN with "
                "GET /producerpdbsearch/v1/agency?Npn=",
                [
                    FieldError(
                        "SearchType",
                        "NPN has no field for the number in a firm search; use GET /agency?Npn=",
                    )
                ],
            )
        rows = self._licensed(select, req)
        return rows, len(rows)

    def _capped(
        self, cols: str, table: str, where: str, order: str, params: tuple[Any, ...]
    ) -> tuple[list[Any], int]:
        """A NAME search: the first :data:`MAX_HITS` hits in ``order``, and the total."""
        rows = self.db.query(
            f"SELECT {cols} FROM {table} WHERE {where} ORDER BY {order} LIMIT ?",
            (*params, MAX_HITS + 1),
        )
        if len(rows) <= MAX_HITS:
            return rows, len(rows)
        count = self.db.query_one(f"SELECT count(*) FROM {table} WHERE {where}", params)
        return rows[:MAX_HITS], count[0] if count is not None else len(rows)

    def _licensed(self, select: str, req: AgentSearch | AgencySearch) -> list[Any]:
        """The holder of the license the request names, if ``select`` reads its table
        (an individual's license is not found by a firm search, and the reverse)."""
        sql = (
            f"{select} WHERE npn ="
            " (SELECT npn FROM registry_licenses WHERE state = ? AND number_lc = ?)"
        )
        return self.db.query(sql, (req.LicenseJurisdiction, _prefix(req.LicenseNumber)[0]))

    # --- full record ------------------------------------------------------------------

    def full_record(
        self, kind: Literal["agent", "agency"], npn: int, cost_center: str | None = None
    ) -> FullRecordResponse | None:
        """The whole record of an individual (``agent``) or a firm (``agency``); None when
        no producer of that kind has the NPN."""
        self._wait_seeded()
        row = self.db.query_one(_DOC_SQL[kind], (npn,))
        if row is None:
            return None
        if self.as_of is None:
            info = FullInfo.model_validate_json(row["doc"])
        else:
            info = FullInfo.model_validate(as_of(json.loads(row["doc"]), self.as_of))
        info.TransactionType = self._stamp("Entity Info", cost_center)
        return FullRecordResponse(NiprFullInfo=info)

    def demo_roster(self) -> list[int]:
        """NPNs a watch of which shows every kind of finding: the demo agent (a license
        expiring within 60 days) and firm, the first individuals with an expired resident
        license, with a regulatory action, and with a license expiring within 30 days under
        an active appointment (a month later by the sandbox's date, that appointment has no
        active license behind it, and the record has changed), and an NPN the registry
        does not have."""
        self._wait_seeded()
        seeded = self._seeded()
        if seeded is None:
            return []
        day = date.fromisoformat(json.loads(seeded)["today"])
        tests = {
            "expired resident": lambda lic, left: lic.get("Residency") == "R" and left < 0,
            "regulatory action": lambda lic, left: bool(lic.get("RegulatoryActions")),
            "expiring, appointed": lambda lic, left: (
                0 <= left <= 30
                and any(a["Status"] == "Active" for a in lic.get("Appointments", []))
            ),
        }
        picked: dict[str, int] = {}
        for row in self.db.query("SELECT npn, doc FROM registry_individuals ORDER BY npn"):
            for lic in json.loads(row["doc"])["LicenseData"]["Licenses"]:
                expires = datetime.strptime(lic["ExpirationDate"], "%m/%d/%Y").date()
                for name, test in tests.items():
                    if name not in picked and test(lic, (expires - day).days):
                        picked[name] = row["npn"]
            if len(picked) == len(tests):
                break
        absent = next(
            n
            for n in range(DEMO_FIRM_NPN + 1, DEMO_FIRM_NPN + 1000)
            if self.db.query_one(_DOC_SQL["agent"], (n,)) is None
            and self.db.query_one(_DOC_SQL["agency"], (n,)) is None
        )
        return [DEMO_AGENT_NPN, DEMO_FIRM_NPN, *dict.fromkeys(picked.values()), absent]

    def _stamp(self, what: str, cost_center: str | None) -> TransactionTypeBlock:
        return TransactionTypeBlock(
            Type=what, Date=self.clock().isoformat(timespec="seconds"), CostCenter=cost_center
        )


class SearchRefused(ValueError):
    """A search the sandbox cannot answer, with the fields concerned (answered 400)."""

    def __init__(self, message: str, errors: list[FieldError]) -> None:
        super().__init__(message)
        self.errors = errors


def _entity(kind: SearchKind, hits: int, total: int) -> EntityBlock:
    truncated = total > hits
    if truncated:
        message = f"Showing the first {hits} of {total} matches; give more of the name."
    elif not hits:
        message = "No producer matched."
    else:
        message = None
    return EntityBlock(
        SearchType=kind.value, ResultCount=total, Truncated=truncated, Message=message
    )


def _doc_json(doc: dict[str, Any]) -> str:
    # pydantic's encoder writes the same compact UTF-8 JSON as ``db.to_json`` but about
    # three times faster, which is a quarter of the default registry's seeding time.
    return pydantic_core.to_json(doc).decode()


def _rows(
    docs: Iterable[dict[str, Any]],
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Table rows of individuals, firms and licenses from generated documents."""
    people: list[tuple[Any, ...]] = []
    firms: list[tuple[Any, ...]] = []
    licenses: list[tuple[Any, ...]] = []
    for doc in docs:
        npn, kind = doc["Producer"]["Npn"], doc["Producer"]["EntityType"]
        bio, lics = doc["Biographic"], doc["LicenseData"]["Licenses"]
        home = next(lic["State"] for lic in lics if lic["Residency"] == "R")
        states = " ".join(lic["State"] for lic in lics)
        licenses += [(lic["State"], lic["LicenseNumber"].lower(), npn, kind) for lic in lics]
        if kind == "FIRM":
            name = bio["FirmName"]
            firms.append((npn, name, name.lower(), bio["Fein"], home, states, _doc_json(doc)))
        else:
            first, middle, last = bio["FirstName"], bio.get("MiddleName"), bio["LastName"]
            people.append(
                (
                    npn,
                    first,
                    middle,
                    last,
                    first.lower(),
                    (middle or "").lower(),
                    last.lower(),
                    bio["Ssn"],
                    home,
                    states,
                    _doc_json(doc),
                )
            )
    return people, firms, licenses
