"""Agent and agency profiles in the sandbox: import (create or update), lookup and export.

A profile's identity is ProfileKey + Ssn (agent) or ProfileKey + Tin (agency). A record
with a known identity updates that profile: each section it carries replaces the stored
one, absent sections are kept. Which sections a new record and an update must carry is
configured in ``import_rules.toml`` (documented there).
"""

from __future__ import annotations

import sqlite3
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

from tui_app.contract.errors import ContractError, FieldError
from tui_app.contract.export import AgencyExportRequest, AgentExportRequest, ExportResponse
from tui_app.contract.profile import AgencyRecord, AgentRecord, ImportResult
from tui_app.contract.profile_sets import RECORD_MODELS, record_from_dict, record_to_data_sets
from tui_app.contract.record import FullInfo
from tui_app.sandbox.db import Database, from_json, to_json

SCHEMA = """
CREATE TABLE IF NOT EXISTS profiles (
    kind TEXT NOT NULL,          -- agent or agency
    profile_key TEXT NOT NULL,
    identity TEXT NOT NULL,      -- Ssn (agent) or Tin (agency)
    record TEXT NOT NULL,        -- the merged record: JSON, PascalCase, nulls left out
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (kind, profile_key, identity)
);
"""

Record = AgentRecord | AgencyRecord
Clock = Callable[[], datetime]
"""Injected time, so that tests need not sleep."""
Lookup = Callable[[str, int], FullInfo | None]
"""The registry's full record of a kind ("agent" or "agency") and NPN, if any."""

_NPN_FIELD = {"agent": "NiprNumber", "agency": "Nipr"}
"""The Demographic field holding the profile's NPN, which joins it to the registry."""


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class ImportRules:
    """Sections an import must carry, per kind: for a new profile and for an update."""

    new: dict[str, tuple[str, ...]]
    update: dict[str, tuple[str, ...]]

    def required(self, kind: str, *, new: bool) -> tuple[str, ...]:
        return (self.new if new else self.update).get(kind, ())


def load_import_rules(path: Path | None = None) -> ImportRules:
    """Read the rules from ``path``, or the ones shipped with the sandbox. An unknown kind,
    key or section name raises ``ValueError`` naming it."""
    if path is None:
        text = resources.files(__package__).joinpath("import_rules.toml").read_text("utf-8")
    else:
        text = path.read_text("utf-8")
    rules: dict[str, dict[str, tuple[str, ...]]] = {"new": {}, "update": {}}
    for kind, table in tomllib.loads(text).items():
        model = RECORD_MODELS.get(kind)
        if model is None or not isinstance(table, dict):
            raise ValueError(f"import rules: [{kind}] is not a profile kind (agent or agency)")
        for key, names in table.items():
            if key not in rules:
                raise ValueError(f"import rules: {kind}.{key} is neither new nor update")
            if not isinstance(names, list) or not set(names) <= set(model.sections):
                raise ValueError(
                    f"import rules: {kind}.{key} must list sections among "
                    + ", ".join(model.sections)
                )
            rules[key][kind] = tuple(names)
    return ImportRules(**rules)


def validation_result(errors: Sequence[FieldError]) -> ImportResult:
    """The ``Success`` false answer of an import: one ``path: message`` per line."""
    return ImportResult(
        Success=False,
        Validations="\n".join(map(str, errors)),
        Message=f"not imported: {len(errors)} problem(s), listed in Validations",
    )


class AmbiguousProfile(LookupError):
    """A ProfileKey that several identities share was looked up without its Ssn or Tin."""


DEMO_PROFILES: tuple[AgentRecord | AgencyRecord, ...] = (
    AgentRecord.model_validate({
        "ProfileKey": "AQS-1", "Ssn": "000121234",
        "Demographic": {"FirstName": "Avery", "MiddleInitial": "Q", "LastName": "Sample",
                        "NiprNumber": "19000001", "EmpStatus": "7040"},
        "BusinessAddress": {"StreetAddress1": "100 Example Plaza", "City": "Sacramento",
                            "State": "CA", "Zip": "95814"},
    }),
    AgencyRecord.model_validate({
        "ProfileKey": "SRP-1", "Tin": "000000001",
        "Demographic": {"FirmName": "Sample Risk Partners LLC", "Nipr": "19000002",
                        "Status": 7040},
    }),
)  # fmt: skip
"""The carrier's profiles of the registry's two demo records (README names them), so a
new user can open, export and watch one at once."""


class Profiles:
    """Profiles over the shared database. ``lookup`` is the registry, joined into exports
    by the profile's NPN (None: exports carry no registry data)."""

    def __init__(
        self,
        db: Database,
        rules: ImportRules,
        *,
        lookup: Lookup | None = None,
        clock: Clock = utc_now,
    ) -> None:
        self._db = db
        self._rules = rules
        self._lookup = lookup
        self._clock = clock

    def import_record(self, record: Record) -> ImportResult:
        """Create or update one profile (the single import)."""
        try:
            with self._db.transaction() as conn:
                created = self.save(conn, record)
        except ContractError as exc:
            return validation_result(exc.errors)
        verb = "created" if created else "updated"
        message = f"{verb} {record.kind} profile {record.ProfileKey}"
        if created and self._shared(record.kind, record.ProfileKey):
            # Often an Ssn or Tin typed wrong: say so while it can still be put right.
            message += (
                f"; another {record.kind} profile has this ProfileKey with another "
                f"{record.id_field}, and an export, which names the ProfileKey alone, "
                "cannot tell the two apart"
            )
        return ImportResult(Success=True, Message=message)

    def _shared(self, kind: str, profile_key: str) -> bool:
        """Whether several identities have this ProfileKey."""
        rows = self._db.query(
            "SELECT 1 FROM profiles WHERE kind = ? AND profile_key = ? LIMIT 2", (kind, profile_key)
        )
        return len(rows) > 1

    def save(self, conn: sqlite3.Connection, record: Record) -> bool:
        """Create or update ``record`` inside the caller's transaction (the bulk worker
        writes many per transaction); True when it created the profile. Raises
        :class:`ContractError` naming each required section the record lacks, before any
        write."""
        key, identity = record.identity
        row = conn.execute(
            "SELECT record FROM profiles WHERE kind = ? AND profile_key = ? AND identity = ?",
            (record.kind, key, identity),
        ).fetchone()
        new = row is None
        missing = [
            s
            for s in self._rules.required(record.kind, new=new)
            if getattr(record, s) in (None, [])
        ]
        if missing:
            why = (
                f"for a new {record.kind} profile" if new else f"to update an {record.kind} profile"
            )
            raise ContractError([FieldError(s, f"is required {why}") for s in missing])
        if new:  # nothing to merge: pydantic-core writes the JSON (a bulk import's case)
            text = record.model_dump_json(exclude_none=True)
        else:
            text = to_json(
                from_json(row["record"]) | record.model_dump(mode="json", exclude_none=True)
            )
        now = self._clock().isoformat()
        conn.execute(
            "INSERT INTO profiles VALUES (?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (kind, profile_key, identity) DO UPDATE"
            " SET record = excluded.record, updated_at = excluded.updated_at",
            (record.kind, key, identity, text, now, now),
        )
        return new

    def ensure_demo(self) -> None:
        """Store :data:`DEMO_PROFILES` where they are missing; a demo profile the user has
        changed keeps the changes."""
        now = self._clock().isoformat()
        with self._db.transaction() as conn:
            conn.executemany(
                "INSERT INTO profiles VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [(r.kind, *r.identity, r.model_dump_json(exclude_none=True), now, now)
                 for r in DEMO_PROFILES],
            )  # fmt: skip

    def get(self, kind: str, profile_key: str, identity: str | None = None) -> Record | None:
        """The profile with this ProfileKey (and Ssn or Tin, when given), or None. A
        ProfileKey alone is enough while one identity has it; when several do, raises
        :class:`AmbiguousProfile`."""
        sql = "SELECT record FROM profiles WHERE kind = ? AND profile_key = ?"
        params: tuple[str, ...] = (kind, profile_key)
        if identity is not None:
            sql, params = sql + " AND identity = ?", (*params, identity)
        rows = self._db.query(sql + " LIMIT 2", params)
        if len(rows) > 1:
            id_field = RECORD_MODELS[kind].id_field
            raise AmbiguousProfile(
                f"several {kind} profiles have ProfileKey {profile_key}, each with its own "
                f"{id_field}; an export names the ProfileKey alone, so it cannot choose one"
            )
        return record_from_dict(kind, from_json(rows[0]["record"])) if rows else None

    def export(
        self,
        kind: str,
        profile_key: str,
        data_sets: Sequence[str],
        identity: str | None = None,
    ) -> ExportResponse | None:
        """The named data sets (already validated by the export request) of a profile,
        joined with its registry record when its NPN is known; None for an unknown profile.
        Raises :class:`AmbiguousProfile` as :meth:`get` does."""
        record = self.get(kind, profile_key, identity)
        if record is None:
            return None
        # The interface lets a client name any data set; the sandbox answers the ones it
        # knows (by short or type name) and lists the others in a member of its own.
        request = AgentExportRequest if kind == "agent" else AgencyExportRequest
        known = [n for n in data_sets or () if request.canonical(n) is not None]
        unknown = [n for n in data_sets or () if request.canonical(n) is None]
        sets = record_to_data_sets(record, known, self._registry_record(record))
        answer = ExportResponse(dataSets=sets)
        if unknown:
            answer.unknownDataSets = unknown  # type: ignore[attr-defined]
        return answer

    def _registry_record(self, record: Record) -> FullInfo | None:
        npn = getattr(record.Demographic, _NPN_FIELD[record.kind], None)
        if self._lookup is None or not npn or not (npn.isascii() and npn.isdigit()):
            return None
        number = int(npn)
        return self._lookup(record.kind, number) if 0 < number < 2**31 else None
