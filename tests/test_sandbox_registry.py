"""Tests for the sandbox's synthetic registry (generator) and its storage and search."""

from __future__ import annotations

import hashlib
import re
import threading
from collections import Counter
from concurrent import futures
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pydantic_core
import pytest
from pydantic import BaseModel

from tui_app.contract.jurisdictions import JURISDICTIONS
from tui_app.contract.record import FullInfo
from tui_app.contract.search import AgencySearch, AgentSearch
from tui_app.sandbox import registry as registry_module
from tui_app.sandbox.db import Database
from tui_app.sandbox.registry import SCHEMA, Registry
from tui_app.sandbox.synthetic import (
    CARRIERS,
    DEMO_AGENT_NPN,
    DEMO_FIRM_NPN,
    LICENSE_PATTERNS,
    LINES_OF_AUTHORITY,
    NON_APPOINTING_STATES,
    REFERENCE_DATE,
    TERMINATION_REASONS,
    generate,
    generate_docs,
    mdy,
)

SEED, PEOPLE, FIRMS = 11, 300, 60
NOW = datetime(2025, 7, 1, 12, 0, tzinfo=UTC)


def parse_mdy(text: str) -> date:
    return datetime.strptime(text, "%m/%d/%Y").date()


def digest(docs: Any) -> str:
    h = hashlib.sha256()
    for doc in docs:
        h.update(pydantic_core.to_json(doc))
    return h.hexdigest()


@pytest.fixture(scope="module")
def docs() -> list[dict[str, Any]]:
    return list(generate_docs(SEED, PEOPLE, FIRMS))


@pytest.fixture(scope="module")
def people(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [d for d in docs if d["Producer"]["EntityType"] == "INDIVIDUAL"]


@pytest.fixture(scope="module")
def firms(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [d for d in docs if d["Producer"]["EntityType"] == "FIRM"]


@pytest.fixture(scope="module")
def reg(tmp_path_factory: pytest.TempPathFactory) -> Registry:
    """A seeded registry shared by the read-only search tests."""
    db = Database(tmp_path_factory.mktemp("registry") / "sandbox.db", schemas=(SCHEMA,))
    registry = Registry(db, clock=lambda: NOW)
    registry.ensure_seeded(SEED, PEOPLE, FIRMS, today=REFERENCE_DATE)
    return registry


@pytest.fixture(scope="module")
def initials(people: list[dict[str, Any]]) -> tuple[str, str]:
    """The commonest first-name and last-name initials: a NAME search with many hits."""
    pairs = Counter(
        (p["Biographic"]["FirstName"][0], p["Biographic"]["LastName"][0]) for p in people
    )
    return pairs.most_common(1)[0][0]


def new_registry(path: Path) -> Registry:
    return Registry(Database(path / "sandbox.db", schemas=(SCHEMA,)), clock=lambda: NOW)


def licenses(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return doc["LicenseData"]["Licenses"]


def all_licenses(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [lic for d in docs for lic in licenses(d)]


# --- generator ---------------------------------------------------------------------


def test_same_seed_same_registry_at_default_size() -> None:
    assert digest(generate_docs(2024)) == digest(generate_docs(2024))


def test_another_seed_another_registry(docs: list[dict[str, Any]]) -> None:
    assert digest(generate_docs(SEED + 1, PEOPLE, FIRMS)) != digest(docs)
    assert digest(generate_docs(SEED, PEOPLE, FIRMS)) == digest(docs)


def test_counts_are_on_top_of_the_demo_records(docs: list[dict[str, Any]]) -> None:
    counts = Counter(d["Producer"]["EntityType"] for d in docs)
    assert counts == {"INDIVIDUAL": PEOPLE + 1, "FIRM": FIRMS + 1}


def test_generate_yields_contract_models_without_unknown_fields() -> None:
    def extras(model: BaseModel) -> list[str]:
        found = list(model.model_extra or {})
        for value in model.__dict__.values():
            items = value if isinstance(value, list) else [value]
            found += [e for item in items if isinstance(item, BaseModel) for e in extras(item)]
        return found

    models = list(generate(SEED, PEOPLE, FIRMS))
    assert all(isinstance(m, FullInfo) for m in models)
    assert len(models) == PEOPLE + FIRMS + 2
    assert [e for m in models for e in extras(m)] == []


def test_dates_are_relative_to_today() -> None:
    for today in (REFERENCE_DATE, date(2031, 2, 3)):
        agent = next(d for d in generate_docs(1, 5, 2, today) if d["Producer"]["Npn"] == 19000001)
        tx = next(lic for lic in licenses(agent) if lic["State"] == "TX")
        assert tx["ExpirationDate"] == mdy(today + timedelta(days=45))


@pytest.mark.parametrize("seed", [0, 1, 987654])
def test_demo_records_are_present_whatever_the_seed(seed: int) -> None:
    docs = {d["Producer"]["Npn"]: d for d in generate_docs(seed, 50, 10)}
    agent, firm = docs[DEMO_AGENT_NPN], docs[DEMO_FIRM_NPN]
    assert DEMO_AGENT_NPN == 19000001 and DEMO_FIRM_NPN == 19000002

    assert agent["Producer"] == {"Npn": 19000001, "EntityType": "INDIVIDUAL"}
    bio = agent["Biographic"]
    assert (bio["FirstName"], bio["MiddleName"], bio["LastName"]) == ("Avery", "Quinn", "Sample")
    assert bio["Ssn"] == "000121234"
    lics = {lic["State"]: lic for lic in licenses(agent)}
    assert set(lics) == {"CA", "TX"}
    assert (lics["CA"]["LicenseNumber"], lics["CA"]["Residency"]) == ("0H19001", "R")
    assert (lics["TX"]["LicenseNumber"], lics["TX"]["Residency"]) == ("2190001", "NR")
    for lic in lics.values():
        assert lic["LinesOfAuthority"] and lic["Appointments"]
    assert [(o["Npn"], o["EntityType"]) for o in agent["Organization"]] == [(19000002, "FIRM")]

    assert firm["Producer"] == {"Npn": 19000002, "EntityType": "FIRM"}
    assert firm["Biographic"]["FirmName"] == "Sample Risk Partners LLC"
    assert firm["Biographic"]["Fein"] == "000000001"
    assert [(lic["State"], lic["LicenseNumber"]) for lic in licenses(firm)] == [("CA", "0K19002")]
    assert [(o["Npn"], o["Name"]) for o in firm["Organization"]] == [
        (19000001, "Avery Quinn Sample")
    ]

    # Nothing generated reuses the demo's identifiers.
    others = [d for npn, d in docs.items() if npn not in (DEMO_AGENT_NPN, DEMO_FIRM_NPN)]
    assert all(d["Biographic"].get("Ssn") != "000121234" for d in others)
    assert all(d["Biographic"].get("Fein") != "000000001" for d in others)
    demo_numbers = {("CA", "0H19001"), ("TX", "2190001"), ("CA", "0K19002")}
    assert not demo_numbers & {(lic["State"], lic["LicenseNumber"]) for lic in all_licenses(others)}


def test_ssns_come_only_from_never_issued_areas(people: list[dict[str, Any]]) -> None:
    ssns = [p["Biographic"]["Ssn"] for p in people]
    assert len(set(ssns)) == len(ssns)
    for ssn in ssns:
        assert re.fullmatch(r"[0-9]{9}", ssn)
        assert ssn[:3] in ("000", "666") or ssn[0] == "9", ssn


def test_feins_are_unique_and_never_assigned(firms: list[dict[str, Any]]) -> None:
    feins = [f["Biographic"]["Fein"] for f in firms]
    assert len(set(feins)) == len(feins)
    assert all(re.fullmatch(r"00[0-9]{7}", fein) for fein in feins)
    assert not set(feins) & {c.fein for c in CARRIERS}


def test_npns_follow_the_rules(docs: list[dict[str, Any]]) -> None:
    npns = [d["Producer"]["Npn"] for d in docs]
    assert len(set(npns)) == len(npns)
    for npn in npns:
        assert isinstance(npn, int) and 0 < npn <= 2**31 - 1
        assert 7 <= len(str(npn)) <= 9


def test_exactly_one_resident_state_per_producer(docs: list[dict[str, Any]]) -> None:
    for doc in docs:
        residencies = [lic["Residency"] for lic in licenses(doc)]
        assert residencies.count("R") == 1, doc["Producer"]
        assert set(residencies) <= {"R", "NR"}
        states = [lic["State"] for lic in licenses(doc)]
        assert len(set(states)) == len(states)
        assert set(states) <= set(JURISDICTIONS)


def test_license_numbers_follow_their_state_pattern_and_are_unique_per_state(
    docs: list[dict[str, Any]],
) -> None:
    seen: set[tuple[str, str]] = set()
    for doc in docs:
        for lic in licenses(doc):
            key = (lic["State"], lic["LicenseNumber"])
            assert key not in seen
            seen.add(key)
            pattern = LICENSE_PATTERNS[lic["State"]]
            if pattern == "NPN":
                assert lic["LicenseNumber"] == str(doc["Producer"]["Npn"])
            else:
                regex = "".join(
                    "[0-9]" if ch == "#" else "[A-Z]" if ch == "@" else re.escape(ch)
                    for ch in pattern
                )
                assert re.fullmatch(regex, lic["LicenseNumber"]), key


def test_expired_and_soon_expiring_licenses_exist(docs: list[dict[str, Any]]) -> None:
    lics = all_licenses(docs)
    left = [(parse_mdy(lic["ExpirationDate"]) - REFERENCE_DATE).days for lic in lics]
    assert sum(days < 0 for days in left) >= 20
    assert sum(0 <= days <= 60 for days in left) >= 20
    for lic, days in zip(lics, left, strict=True):
        assert lic["Active"] == (days >= 0)
        assert parse_mdy(lic["IssueDate"]) < parse_mdy(lic["ExpirationDate"])
        assert lic["CeCompliance"] in ("EXEMPT", "IN COMPLIANCE", "N/A", "NOT IN COMPLIANCE")


def test_lines_of_authority_come_from_the_sandbox_table(docs: list[dict[str, Any]]) -> None:
    assert LINES_OF_AUTHORITY["10"] == "Life" and LINES_OF_AUTHORITY["20"] == "Title"
    assert len(LINES_OF_AUTHORITY) == 11
    statuses = Counter()
    for lic in all_licenses(docs):
        assert lic["LinesOfAuthority"]
        for loa in lic["LinesOfAuthority"]:
            assert LINES_OF_AUTHORITY[loa["Code"]] == loa["Name"]
            assert loa["StatusReason"] and parse_mdy(loa["StatusDate"])
            statuses[loa["Status"]] += 1
    assert set(statuses) == {"Active", "Cancelled", "Inactive"}


def test_appointments_use_the_carriers(docs: list[dict[str, Any]]) -> None:
    carriers = {(c.name, c.fein, c.naic) for c in CARRIERS}
    assert len(CARRIERS) >= 20 and all(re.fullmatch(r"[0-9]{5}", c.naic) for c in CARRIERS)
    statuses = Counter()
    for lic in all_licenses(docs):
        appointments = lic.get("Appointments", [])
        if lic["State"] in NON_APPOINTING_STATES:
            assert appointments == []
        for a in appointments:
            assert (a["CompanyName"], a["Fein"], a["NaicCode"]) in carriers
            assert a["LineOfAuthority"] in LINES_OF_AUTHORITY.values()
            statuses[a["Status"]] += 1
            if a["Status"] == "Terminated":
                assert a["TerminationReason"] in TERMINATION_REASONS
                assert "RenewalDate" not in a
            else:
                assert parse_mdy(a["RenewalDate"]) > REFERENCE_DATE
    assert set(statuses) == {"Active", "Terminated"}
    assert 3 <= len(NON_APPOINTING_STATES) <= 4
    assert set(JURISDICTIONS) >= NON_APPOINTING_STATES


def test_a_few_percent_have_regulatory_actions(docs: list[dict[str, Any]]) -> None:
    with_actions = [d for d in docs if any(lic.get("RegulatoryActions") for lic in licenses(d))]
    assert 0.01 <= len(with_actions) / len(docs) <= 0.06
    for doc in with_actions:
        for lic in licenses(doc):
            for action in lic.get("RegulatoryActions", []):
                assert action["Origin"] in ("FINRA", f"{lic['State']} Department of Insurance")
                assert action["Reason"] and action["Disposition"]
                assert parse_mdy(action["DateOfAction"]) <= REFERENCE_DATE


def test_organization_agrees_both_ways(
    people: list[dict[str, Any]], firms: list[dict[str, Any]]
) -> None:
    person_by_npn = {p["Producer"]["Npn"]: p for p in people}
    firm_by_npn = {f["Producer"]["Npn"]: f for f in firms}

    def link(entry: dict[str, Any]) -> tuple[str, str, str]:
        return entry["Role"], entry["State"], entry["StartDate"]

    pairs_from_people = set()
    for p in people:
        for aff in p["Organization"]:
            assert aff["EntityType"] == "FIRM"
            assert aff["Name"] == firm_by_npn[aff["Npn"]]["Biographic"]["FirmName"]
            pairs_from_people.add((p["Producer"]["Npn"], aff["Npn"], link(aff)))
    pairs_from_firms = set()
    for f in firms:
        for member in f["Organization"]:
            assert member["EntityType"] == "INDIVIDUAL"
            assert member["Npn"] in person_by_npn
            pairs_from_firms.add((member["Npn"], f["Producer"]["Npn"], link(member)))
    assert pairs_from_people == pairs_from_firms
    assert len(pairs_from_people) > PEOPLE // 2


def test_addresses_and_last_updated(docs: list[dict[str, Any]]) -> None:
    for doc in docs:
        kinds = [a["Type"] for a in doc["AddressInfo"]["Addresses"]]
        expected = {"BUSINESS", "MAILING"} | (
            {"RESIDENCE"} if doc["Producer"]["EntityType"] == "INDIVIDUAL" else set()
        )
        assert set(kinds) == expected and len(kinds) == len(expected)
        for a in doc["AddressInfo"]["Addresses"]:
            assert re.fullmatch(r"[0-9]{5}", a["Zip"]) and a["State"] in JURISDICTIONS
        assert datetime.fromisoformat(doc["LastUpdated"]).tzinfo is not None


# --- storage -----------------------------------------------------------------------


def test_ensure_seeded_is_idempotent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    registry = new_registry(tmp_path)
    assert registry.ensure_seeded(SEED, 40, 8) is True

    def must_not_generate(*args: Any) -> None:
        raise AssertionError("an already seeded registry was generated again")

    with monkeypatch.context() as patch:
        patch.setattr(registry_module, "generate_docs", must_not_generate)
        assert registry.ensure_seeded(SEED, 40, 8) is False
        assert new_registry(tmp_path).ensure_seeded(SEED, 40, 8) is False  # after reopening
    count = registry.db.query_one("SELECT count(*) FROM registry_individuals")
    assert count[0] == 41

    assert registry.ensure_seeded(SEED, 30, 8) is True  # other parameters replace it
    assert registry.db.query_one("SELECT count(*) FROM registry_individuals")[0] == 31
    assert registry.db.query_one("SELECT count(*) FROM registry_firms")[0] == 9


def table_rows(registry: Registry) -> dict[str, list[tuple[Any, ...]]]:
    return {
        table: [tuple(r) for r in registry.db.query(f"SELECT * FROM {table} ORDER BY 1, 2")]
        for table in ("registry_individuals", "registry_firms", "registry_licenses")
    }


def held_generator(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Hold the registry's generator until the returned event is set."""
    gate, generate = threading.Event(), registry_module.generate_docs

    def held(*args: Any) -> Any:
        assert gate.wait(10), "the test never let the seeding go on"
        yield from generate(*args)

    monkeypatch.setattr(registry_module, "generate_docs", held)
    return gate


def test_a_registry_seeded_in_the_background_is_read_only_once_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The embedded sandbox seeds on a thread (a first start-up is otherwise mostly
    seeding): ensure_seeded returns while the generator is held, a read made meanwhile
    waits for the whole registry, and what is stored is what a plain seeding stores."""
    plain = new_registry(tmp_path / "plain")
    plain.ensure_seeded(SEED, 40, 8, today=REFERENCE_DATE)
    gate = held_generator(monkeypatch)
    registry = new_registry(tmp_path / "background")
    assert registry.ensure_seeded(SEED, 40, 8, today=REFERENCE_DATE, background=True) is True

    name = AgentSearch(SearchType="NAME", FirstName="A", LastName="S")
    with ThreadPoolExecutor(2) as pool:
        reads = [
            pool.submit(registry.full_record, "agent", DEMO_AGENT_NPN),
            pool.submit(registry.search_agents, name),
        ]
        assert not any(futures.wait(reads, timeout=0.05).done)  # held with the seeding
        gate.set()
        record, hits = (read.result(timeout=10) for read in reads)
    assert record == plain.full_record("agent", DEMO_AGENT_NPN)
    assert hits == plain.search_agents(name)
    assert table_rows(registry) == table_rows(plain)
    assert registry.ensure_seeded(SEED, 40, 8, today=REFERENCE_DATE, background=True) is False


def test_a_failed_background_seeding_is_reported_by_every_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any) -> Any:
        raise OSError("No space left on device")

    monkeypatch.setattr(registry_module, "generate_docs", broken)
    registry = new_registry(tmp_path)
    registry.ensure_seeded(SEED, 40, 8, background=True)
    for read in (
        lambda: registry.full_record("agency", DEMO_FIRM_NPN),
        registry.demo_roster,
        lambda: registry.search_agencies(AgencySearch(SearchType="SSN", FirmFein="000000001")),
    ):
        with pytest.raises(RuntimeError, match="could not seed its registry: No space left"):
            read()


def test_stored_counts_match_the_generator(reg: Registry, docs: list[dict[str, Any]]) -> None:
    assert reg.db.query_one("SELECT count(*) FROM registry_individuals")[0] == PEOPLE + 1
    assert reg.db.query_one("SELECT count(*) FROM registry_firms")[0] == FIRMS + 1
    stored = reg.db.query_one("SELECT count(*) FROM registry_licenses")[0]
    assert stored == len(all_licenses(docs))


# --- agent search ------------------------------------------------------------------


def agents(reg: Registry, **fields: Any) -> list[int]:
    return [
        s.Npn for s in reg.search_agents(AgentSearch(**fields)).IndividualsSummaryInfo.Individuals
    ]


def test_name_search_is_a_case_insensitive_prefix(
    reg: Registry, people: list[dict[str, Any]], initials: tuple[str, str]
) -> None:
    assert agents(reg, SearchType="NAME", FirstName="aV", LastName="SAMP") == [DEMO_AGENT_NPN]
    assert agents(reg, SearchType="NAME", FirstName="Avery", LastName="Sample") == [DEMO_AGENT_NPN]
    assert agents(reg, SearchType="NAME", FirstName="Avery", LastName="Samples") == []
    assert agents(reg, SearchType="NAME", FirstName="Quinn", LastName="Sample") == []

    first, last = initials
    expected = sorted(
        (p["Biographic"]["LastName"], p["Biographic"]["FirstName"], p["Producer"]["Npn"])
        for p in people
        if p["Biographic"]["FirstName"].startswith(first)
        and p["Biographic"]["LastName"].startswith(last)
    )
    got = agents(reg, SearchType="NAME", FirstName=first.lower(), LastName=last.lower())
    assert got == [npn for _, _, npn in expected]
    assert len(got) > 3


def test_name_search_narrows_by_middle_name(reg: Registry) -> None:
    search = {"SearchType": "NAME", "FirstName": "Avery", "LastName": "Sample"}
    assert agents(reg, **search, MiddleName="q") == [DEMO_AGENT_NPN]
    assert agents(reg, **search, MiddleName="Quinn") == [DEMO_AGENT_NPN]
    assert agents(reg, **search, MiddleName="x") == []


def test_name_search_is_capped_and_says_so(
    reg: Registry,
    people: list[dict[str, Any]],
    initials: tuple[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first, last = initials
    monkeypatch.setattr(registry_module, "MAX_HITS", 3)
    matching = [
        p
        for p in people
        if p["Biographic"]["FirstName"].startswith(first)
        and p["Biographic"]["LastName"].startswith(last)
    ]
    res = reg.search_agents(AgentSearch(SearchType="NAME", FirstName=first, LastName=last))
    entity = res.AdditionalInfo.Entity
    hits = res.IndividualsSummaryInfo.Individuals
    assert len(hits) == 3 < len(matching)
    assert (entity.Truncated, entity.ResultCount, entity.SearchType) == (
        True,
        len(matching),
        "NAME",
    )
    assert entity.Message and str(len(matching)) in entity.Message
    keys = [(s.LastName, s.FirstName, s.Npn) for s in hits]
    assert keys == sorted(keys)

    whole = reg.search_agents(AgentSearch(SearchType="NAME", FirstName="Avery", LastName="Sample"))
    assert (whole.AdditionalInfo.Entity.Truncated, whole.AdditionalInfo.Entity.ResultCount) == (
        False,
        1,
    )


def test_ssn_search_needs_the_right_last_name(reg: Registry, people: list[dict[str, Any]]) -> None:
    person = people[7]
    ssn, last = person["Biographic"]["Ssn"], person["Biographic"]["LastName"]
    npn = person["Producer"]["Npn"]
    assert agents(reg, SearchType="SSN", Ssn=ssn, LastName=last.upper()) == [npn]
    assert agents(reg, SearchType="SSN", Ssn="000121234", LastName="sample") == [DEMO_AGENT_NPN]
    assert agents(reg, SearchType="SSN", Ssn="000121234", LastName="Sampl") == []
    assert agents(reg, SearchType="SSN", Ssn=ssn, LastName="Sample") == []
    res = reg.search_agents(AgentSearch(SearchType="SSN", Ssn="000121234", LastName="Nobody"))
    assert res.AdditionalInfo.Entity.ResultCount == 0
    assert res.AdditionalInfo.Entity.Message


def test_npn_search_finds_individuals_only(reg: Registry) -> None:
    assert agents(reg, SearchType="NPN", Npn=DEMO_AGENT_NPN) == [DEMO_AGENT_NPN]
    assert agents(reg, SearchType="NPN", Npn=DEMO_FIRM_NPN) == []
    assert agents(reg, SearchType="NPN", Npn=999) == []


def test_license_search(reg: Registry, people: list[dict[str, Any]]) -> None:
    assert agents(reg, SearchType="LICENSE", LicenseJurisdiction="ca", LicenseNumber="0h19001") == [
        DEMO_AGENT_NPN
    ]
    assert agents(reg, SearchType="LICENSE", LicenseJurisdiction="TX", LicenseNumber="2190001") == [
        DEMO_AGENT_NPN
    ]
    assert (
        agents(reg, SearchType="LICENSE", LicenseJurisdiction="TX", LicenseNumber="0H19001") == []
    )
    # A firm's license is not an individual's.
    assert (
        agents(reg, SearchType="LICENSE", LicenseJurisdiction="CA", LicenseNumber="0K19002") == []
    )
    lic = licenses(people[3])[-1]
    assert agents(
        reg,
        SearchType="LICENSE",
        LicenseJurisdiction=lic["State"],
        LicenseNumber=lic["LicenseNumber"],
    ) == [people[3]["Producer"]["Npn"]]


def test_agent_summary_fields_and_stamp(reg: Registry) -> None:
    res = reg.search_agents(AgentSearch(SearchType="NPN", Npn=DEMO_AGENT_NPN, CostCenter="CC-7"))
    [hit] = res.IndividualsSummaryInfo.Individuals
    assert (hit.FirstName, hit.MiddleName, hit.LastName) == ("Avery", "Quinn", "Sample")
    assert (hit.SsnLast4, hit.ResidentState, hit.LicenseStates) == ("1234", "CA", ["CA", "TX"])
    for stamp in (res.IndividualsSummaryInfo.TransactionType, res.AdditionalInfo.TransactionType):
        assert (stamp.Type, stamp.Date, stamp.CostCenter) == ("PDB Search", NOW.isoformat(), "CC-7")


def test_hit_lists_never_carry_a_whole_ssn(
    reg: Registry, people: list[dict[str, Any]], initials: tuple[str, str]
) -> None:
    first, last = initials
    res = reg.search_agents(AgentSearch(SearchType="NAME", FirstName=first, LastName=last))
    body = res.model_dump_json()
    hits = res.IndividualsSummaryInfo.Individuals
    assert len(hits) > 3
    ssn_by_npn = {p["Producer"]["Npn"]: p["Biographic"]["Ssn"] for p in people}
    for hit in hits:
        assert ssn_by_npn[hit.Npn] not in body
        assert hit.SsnLast4 == ssn_by_npn[hit.Npn][-4:]
    by_ssn = reg.search_agents(AgentSearch(SearchType="SSN", Ssn="000121234", LastName="Sample"))
    assert "000121234" not in by_ssn.model_dump_json()
    assert by_ssn.IndividualsSummaryInfo.Individuals[0].SsnLast4 == "1234"


# --- agency search -----------------------------------------------------------------


def agencies(reg: Registry, **fields: Any) -> list[int]:
    return [s.Npn for s in reg.search_agencies(AgencySearch(**fields)).NiprFirmsSummaryInfo.Firms]


def test_agency_name_search_with_fein_with_or_without_hyphen(reg: Registry) -> None:
    for fein in ("00-0000001", "000000001", "00-00"):
        assert agencies(reg, SearchType="NAME", FirmName="sample RISK", FirmFein=fein) == [
            DEMO_FIRM_NPN
        ], fein
    assert agencies(reg, SearchType="NAME", FirmName="Sample", FirmFein="00-0000002") == []
    assert agencies(reg, SearchType="NAME", FirmName="Risk", FirmFein="000000001") == []


def test_agency_name_search_on_generated_firms(reg: Registry, firms: list[dict[str, Any]]) -> None:
    firm = firms[4]
    name, fein = firm["Biographic"]["FirmName"], firm["Biographic"]["Fein"]
    hyphenated = f"{fein[:2]}-{fein[2:]}"
    assert agencies(reg, SearchType="NAME", FirmName=name[:4].lower(), FirmFein=hyphenated) == [
        firm["Producer"]["Npn"]
    ]


def test_agency_license_search_and_summary(reg: Registry) -> None:
    res = reg.search_agencies(
        AgencySearch(SearchType="LICENSE", LicenseJurisdiction="ca", LicenseNumber="0k19002")
    )
    [hit] = res.NiprFirmsSummaryInfo.Firms
    assert (hit.Npn, hit.FirmName, hit.FeinLast4) == (
        DEMO_FIRM_NPN,
        "Sample Risk Partners LLC",
        "0001",
    )
    assert (hit.ResidentState, hit.LicenseStates) == ("CA", ["CA"])
    assert "000000001" not in res.model_dump_json()
    assert res.AdditionalInfo.Entity.SearchType == "LICENSE"
    assert res.NiprFirmsSummaryInfo.TransactionType.Type == "PDB Search"
    # An individual's license is not a firm's.
    assert (
        agencies(reg, SearchType="LICENSE", LicenseJurisdiction="CA", LicenseNumber="0H19001") == []
    )


def test_firm_hit_lists_never_carry_a_whole_fein(
    reg: Registry, firms: list[dict[str, Any]]
) -> None:
    res = reg.search_agencies(AgencySearch(SearchType="NAME", FirmName="s", FirmFein="00"))
    hits = res.NiprFirmsSummaryInfo.Firms
    assert len(hits) > 1
    fein_by_npn = {f["Producer"]["Npn"]: f["Biographic"]["Fein"] for f in firms}
    body = res.model_dump_json()
    for hit in hits:
        assert fein_by_npn[hit.Npn] not in body
        assert hit.FeinLast4 == fein_by_npn[hit.Npn][-4:]


# --- full record -------------------------------------------------------------------


def test_full_record_of_an_agent(reg: Registry) -> None:
    res = reg.full_record("agent", DEMO_AGENT_NPN, cost_center="CC-1")
    assert res is not None
    info = res.NiprFullInfo
    assert (info.Producer.Npn, info.Producer.EntityType) == (DEMO_AGENT_NPN, "INDIVIDUAL")
    assert info.Biographic.Ssn == "000121234"  # the full record carries it; screens mask it
    assert {lic.State: lic.LicenseNumber for lic in info.LicenseData.Licenses} == {
        "CA": "0H19001",
        "TX": "2190001",
    }
    assert [o.Npn for o in info.Organization] == [DEMO_FIRM_NPN]
    stamp = info.TransactionType
    assert (stamp.Type, stamp.Date, stamp.CostCenter) == ("Entity Info", NOW.isoformat(), "CC-1")


def test_full_record_of_an_agency(reg: Registry, firms: list[dict[str, Any]]) -> None:
    res = reg.full_record("agency", DEMO_FIRM_NPN)
    assert res is not None
    assert res.NiprFullInfo.Biographic.FirmName == "Sample Risk Partners LLC"
    assert [o.Npn for o in res.NiprFullInfo.Organization] == [DEMO_AGENT_NPN]

    generated = firms[9]
    again = reg.full_record("agency", generated["Producer"]["Npn"])
    assert again is not None
    stored = again.NiprFullInfo.model_dump(exclude={"TransactionType"})
    assert stored == FullInfo.model_validate(generated).model_dump(exclude={"TransactionType"})


def test_full_record_of_unknown_or_wrong_kind_is_none(reg: Registry) -> None:
    assert reg.full_record("agent", 999) is None
    assert reg.full_record("agency", 999) is None
    assert reg.full_record("agency", DEMO_AGENT_NPN) is None
    assert reg.full_record("agent", DEMO_FIRM_NPN) is None


def test_registry_keeps_the_date_it_was_first_seeded_on(tmp_path: Path) -> None:
    registry = new_registry(tmp_path)
    assert registry.ensure_seeded(SEED, 40, 8, today=date(2026, 1, 5)) is True
    # Without a date the registry stays as seeded: data does not move under the user.
    assert new_registry(tmp_path).ensure_seeded(SEED, 40, 8) is False
    # An earlier date dates the registry from it again.
    assert registry.ensure_seeded(SEED, 40, 8, today=date(2025, 12, 5)) is True
    meta = registry.db.query_one("SELECT value FROM registry_meta")[0]
    assert '"today":"2025-12-05"' in meta


def test_a_later_date_moves_the_clock_on_and_licenses_expire(tmp_path: Path) -> None:
    registry = new_registry(tmp_path)
    registry.ensure_seeded(SEED, 40, 8, today=REFERENCE_DATE)
    before = registry.full_record("agent", DEMO_AGENT_NPN).NiprFullInfo
    tx = next(lic for lic in before.LicenseData.Licenses if lic.State == "TX")
    assert tx.Active and tx.ExpirationDate == mdy(REFERENCE_DATE + timedelta(days=45))
    # 46 days on: the data is not generated again, but the TX license has expired; its
    # appointment stays active (the state has not terminated it yet).
    assert registry.ensure_seeded(SEED, 40, 8, today=REFERENCE_DATE + timedelta(46)) is False
    after = registry.full_record("agent", DEMO_AGENT_NPN).NiprFullInfo
    tx_after = next(lic for lic in after.LicenseData.Licenses if lic.State == "TX")
    assert tx_after.Active is False and tx_after.ExpirationDate == tx.ExpirationDate
    assert {loa.Status for loa in tx_after.LinesOfAuthority} == {"Inactive"}
    assert [a.Status for a in tx_after.Appointments] == ["Active"]
    ca = next(lic for lic in after.LicenseData.Licenses if lic.State == "CA")
    assert ca.Active is True
    meta = registry.db.query_one("SELECT value FROM registry_meta")[0]
    assert f'"today":"{REFERENCE_DATE}"' in meta


def test_the_demo_roster_names_producers_for_every_kind_of_finding(reg: Registry) -> None:
    roster = reg.demo_roster()
    assert roster[:2] == [DEMO_AGENT_NPN, DEMO_FIRM_NPN] and len(roster) == 6
    assert reg.full_record("agent", roster[-1]) is None
    assert reg.full_record("agency", roster[-1]) is None
    docs = [reg.full_record("agent", n).NiprFullInfo for n in roster[2:-1]]
    assert all(docs)


def test_a_first_seeding_without_a_date_uses_the_real_date(tmp_path: Path) -> None:
    registry = new_registry(tmp_path)
    registry.ensure_seeded(SEED, 40, 8)
    meta = registry.db.query_one("SELECT value FROM registry_meta")[0]
    assert f'"today":"{date.today()}"' in meta
