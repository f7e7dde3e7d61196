"""Producers to watch, as people give them: NPNs typed or pasted, a CSV/NDJSON file with an
NPN column and an optional ProfileKey, or profiles exported from the environment (saved
export documents, ``.json``, or a folder of them). Every problem names its file, line and
field; nothing else is kept (an SSN or TIN is never read)."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tui_app.wire.errors import not_utf8, regular_file

NPN_MAX = 2**31 - 1
NPN_KEYS = ("npn", "niprnumber", "nipr")
PROFILE_KEYS = ("profilekey",)


class RosterError(ValueError):
    """Bad input: one message per problem, each naming where it is."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Entry:
    npn: int
    profile_key: str | None = None


def added_words(entries: list[Entry], added: int) -> str:
    """What adding ``entries`` did, ``added`` of them new: an NPN given twice (typed and in
    the file, or in the demo set) is one producer, counted once."""
    return f"{added} added, {len({e.npn for e in entries}) - added} already watched"


def npn_of(text: object, where: str) -> int:
    """An NPN (digits, no leading zero, fits int32), or :class:`RosterError` naming ``where``."""
    value = json.dumps(text) if isinstance(text, bool) else str(text if text is not None else "")
    value = value.strip()  # (a JSON true read as Python's True was shown so)
    if not re.fullmatch(r"[1-9][0-9]{0,9}", value) or int(value) > NPN_MAX:
        raise RosterError(
            [
                f"{where}: {value or '(empty)'!s} is not an NPN (digits, no "
                "leading zero, at most 2147483647)"
            ]
        )
    return int(value)


def parse_npns(values: Iterable[str]) -> list[Entry]:
    """NPNs typed or pasted: separated by spaces, commas, semicolons or new lines."""
    entries, problems = [], []
    tokens = [t for value in values for t in re.split(r"[\s,;]+", value) if t]
    for token in tokens:
        try:
            entries.append(Entry(npn_of(token, f"NPN {token}")))
        except RosterError as exc:
            problems += exc.problems
    if problems:
        raise RosterError(problems)
    if not entries:
        raise RosterError(["no NPN given"])
    return entries


def read_file(path: Path, limit: int = 20) -> list[Entry]:
    """Entries of a CSV file (a header row naming an NPN column, optional ProfileKey), an
    NDJSON file (one object per line with ``npn``/``Npn`` and optional ``profileKey``), a
    saved export document (``.json``: the profile's NPN and ProfileKey) or a folder of
    them (every profile exported there)."""
    folder = path.is_dir()
    if folder:
        rows = (row for file in sorted(path.glob("*.json")) for row in _export_rows(file))
    elif path.suffix.lower() == ".json":
        rows = _export_rows(path)
    else:
        text = _text(path)
        first = next((line for line in text.splitlines() if line.strip()), "")
        rows = _ndjson_rows(path, text) if first.lstrip().startswith("{") else _csv_rows(path, text)
    entries, problems = [], []
    for where, row in rows:
        if isinstance(row, str):
            problems.append(row)
            continue
        keys = {k.strip().lower(): v for k, v in row.items() if isinstance(k, str)}
        raw = next((keys[k] for k in NPN_KEYS if keys.get(k) not in (None, "")), None)
        try:
            npn = npn_of(raw, f"{where}: NPN")
        except RosterError as exc:
            problems += exc.problems
            continue
        key = next((str(keys[k]).strip() for k in PROFILE_KEYS if keys.get(k)), None)
        entries.append(Entry(npn, key or None))
    if problems:
        more = len(problems) - limit
        raise RosterError(problems[:limit] + ([f"... and {more} more"] if more > 0 else []))
    if not entries:
        where = "no saved export (.json) in the folder" if folder else "no producers in the file"
        raise RosterError([f"{path}: {where}"])
    return entries


def _csv_rows(path: Path, text: str):
    reader = csv.DictReader(text.splitlines())
    header = [h.strip().lower() for h in reader.fieldnames or []]
    if not any(k in header for k in NPN_KEYS):
        yield "", f"{path}: line 1: no NPN column (the header row needs one named NPN)"
        return
    for row in reader:
        if any((v or "").strip() for v in row.values() if isinstance(v, str)):
            yield f"{path}: line {reader.line_num}", row


def _ndjson_rows(path: Path, text: str):
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            yield "", f"{path}: line {number}: not a JSON object"
            continue
        if not isinstance(row, dict):
            yield "", f"{path}: line {number}: not a JSON object"
            continue
        yield f"{path}: line {number}", row


def _text(path: Path) -> str:
    try:
        raw = regular_file(path).read_bytes()
    except OSError as exc:
        raise RosterError([f"{path}: {exc.strerror or exc}"]) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RosterError([f"{path}: {not_utf8(raw, exc)}"]) from None


def _export_rows(path: Path):
    """One row from a saved export document: the NPN its Demographic data set names (agent
    ``NiprNumber``, agency ``Nipr``) and the ProfileKey of its identity data set."""
    from pydantic import ValidationError

    from tui_app.contract.export import ExportResponse

    try:
        export = ExportResponse.model_validate_json(_text(path))
    except ValidationError:
        yield "", f"{path}: not an export document (a JSON object with dataSets)"
        return
    sets = {ds.name: ds.records for ds in export.dataSets or [] if ds.records}
    key = next(
        (r.get("ProfileKey") for name in ("PersonalInfo", "Firm") for r in sets.get(name, [])), None
    )
    demographic = (sets.get("Demographic") or [{}])[0]
    npn = demographic.get("NiprNumber") or demographic.get("Nipr")
    if npn is None:
        yield "", f"{path}: no NPN in the export (its Demographic data set names none)"
        return
    yield f"{path}: Demographic", {"npn": npn, "profileKey": key}
