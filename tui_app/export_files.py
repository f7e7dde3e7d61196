"""Files the app writes and reads for exports, profiles and order drafts, with no UI.

- An export result is saved as one JSON document, or as one CSV file per data set:
  columns are the union of its records' keys in first-seen order, and nested values are
  written as JSON text in their cell.
- A profile is saved as its XML import document, or as one NDJSON line ready for bulk
  import; either reads back as an unvalidated draft, so a half-finished profile can be
  loaded and corrected.
- An order draft is saved as JSON, or as an XML ``Order`` document; it reads back
  unvalidated too.
- The XML document carries less than the bulk record (the spec's "Differences in the XML
  ... document"); :func:`split_for_xml` says what it leaves out.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping
from copy import deepcopy
from pathlib import Path
from typing import Any, get_args, get_origin

from pydantic import BaseModel

from tui_app.contract.bulk import BulkItem
from tui_app.contract.export import ExportResponse
from tui_app.contract.profile import PROFILE_ROOTS
from tui_app.contract.profile_sets import RECORD_MODELS, Record
from tui_app.private_files import open_private, safe_cell, write_private
from tui_app.wire.errors import not_utf8, regular_file
from tui_app.wire.ndjson import dumps_line, read_lines

ROOTS = {model.kind: root for root, model in PROFILE_ROOTS.items()}
"""Profile kind -> the root element of its XML document (``agent`` -> ``Agent``)."""

RecordType = type[Record]

# --- exports ---------------------------------------------------------------------------


def save_export(response: ExportResponse, path: Path) -> list[Path]:
    """Write an export to ``path``: one JSON document when it ends in ``.json``; for
    ``.csv``, one file per data set that has records, beside it, named
    ``<stem>-<data set>.csv`` (a 0-byte file for an empty one would look like a failed
    write). Returns the files written, each 0600 (an export holds personal data); raises
    ``ValueError`` for another suffix."""
    paths = export_paths(response, path)
    if path.suffix.lower() == ".json":
        with open_private(path, "w", encoding="utf-8") as file:
            file.write(response.model_dump_json(indent=2, exclude_none=True) + "\n")
        return paths
    sets = [ds for ds in response.dataSets or [] if ds.records]
    return [write_csv(out, ds.records) for out, ds in zip(paths, sets, strict=True)]


def export_paths(response: ExportResponse, path: Path) -> list[Path]:
    """The files :func:`save_export` writes for ``path`` (to ask before replacing any).
    Raises ``ValueError`` for another suffix, or a folder where a file would go (it was
    first offered to be replaced, then not written: "Is a directory")."""
    suffix = path.suffix.lower()
    if suffix == ".json":
        paths = [path]
    elif suffix == ".csv":
        sets = response.dataSets or []
        paths = [path.with_name(f"{path.stem}-{ds.name}.csv") for ds in sets if ds.records]
    else:
        raise ValueError("name a .json file, or a .csv file for one CSV per data set")
    if folders := [p for p in paths if p.is_dir()]:
        raise ValueError(f"{folders[0]} is a folder: name a file")
    return paths


def write_csv(path: Path, records: list[dict[str, Any]]) -> Path:
    """``records`` as a CSV file with a header row (an empty data set gives an empty file),
    0600, its cells neutralised where a spreadsheet would run them as formulas."""
    columns = list(dict.fromkeys(key for record in records for key in record))
    with open_private(path, "w", encoding="utf-8", newline="") as file:
        if columns:
            writer = csv.writer(file)
            writer.writerow(columns)
            writer.writerows([_cell(record.get(c)) for c in columns] for record in records)
    return path


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, dict | list | bool):
        return safe_cell(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
    return safe_cell(str(value))


# --- profiles ----------------------------------------------------------------------------


def xml_omitted(model: RecordType) -> list[tuple[str, str, bool]]:
    """What a record's XML document cannot carry, as (section, field, section is a list);
    section ``""`` is the record itself. That is each section's ``xml_omits``, the record's
    own (an agent's PrimaryAddress), and what the contract says each section omits."""
    found = [("", name, False) for name in sorted(model.xml_omits)]
    for name in model.sections:
        if name in model.xml_omits:
            continue
        annotation = model.model_fields[name].annotation
        section = _model_in(annotation)
        omits = model.xml_section_omits(name, section)
        many = _is_list(annotation)
        found += [(name, f, many) for f in sorted(omits) if f in section.model_fields]
    return found


def xml_input_excludes(model: RecordType) -> set[str]:
    """Form paths of the fields the XML document omits (list sections have forms of their
    own)."""
    return {f"{s}.{f}" if s else f for s, f, many in xml_omitted(model) if not many}


def split_for_xml(
    model: RecordType, data: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A record dict (by field names) as (what its XML document carries, what it cannot
    carry by path: ``CurrentEmployment.City``, ``Contacts[0].DynamicData``)."""
    kept = deepcopy(dict(data))
    dropped: dict[str, Any] = {}
    for section, name, many in xml_omitted(model):
        if not section:
            if kept.get(name) is not None:
                dropped[name] = kept.pop(name)
            continue
        value = kept.get(section)
        items = enumerate(value) if many and isinstance(value, list) else [(None, value)]
        for i, item in items:
            if isinstance(item, dict) and item.get(name) is not None:
                path = f"{section}[{i}].{name}" if i is not None else f"{section}.{name}"
                dropped[path] = item.pop(name)
    return kept, dropped


def profile_xml(kind: str, data: Mapping[str, Any] | BaseModel) -> bytes:
    """The XML document of a profile (a validated record, or a draft's dict)."""
    from tui_app.wire.xml import dump_xml_dict

    if isinstance(data, BaseModel):
        data = data.model_dump(mode="json", exclude_none=True)
    return dump_xml_dict(ROOTS[kind], data)


PROFILE_FILES = {".xml": "xml", ".ndjson": "ndjson", ".jsonl": "ndjson"}


def profile_file_format(path: Path) -> str:
    """``xml`` or ``ndjson``, by ``path``'s suffix; ``ValueError`` for another (a
    ``.txt`` holding a bulk line would not be the file its name says)."""
    try:
        return PROFILE_FILES[path.suffix.lower()]
    except KeyError:
        raise ValueError(
            "a profile is saved as an .xml document or an .ndjson bulk import line"
        ) from None


def profile_line(record: Record) -> bytes:
    """One NDJSON line for bulk import: a new clientRefId, camelCase keys."""
    return dumps_line(BulkItem.wrap(record).to_line())


class ManyRecords(ValueError):
    """An NDJSON file holds more than one record; ``kind`` and ``data`` are its first (what
    :func:`read_profile` would have returned), for a caller that edits one of them."""

    def __init__(self, kind: str, data: dict[str, Any], next_line: int) -> None:
        super().__init__(
            f"holds more than one record (the next on line {next_line}); "
            "`producer-tui bulk submit` imports a file of many"
        )
        self.kind, self.data, self.next_line = kind, data, next_line


def read_profile(path: Path) -> tuple[str, dict[str, Any]]:
    """A profile file as (kind, record dict by field names), not validated: an XML
    document (root ``Agent`` or ``Agency``), or else an NDJSON file of one line holding a
    bulk envelope or a bare record in either spelling. Raises ``ValueError`` (``WireError``
    and :class:`ManyRecords` are ones) or ``OSError`` saying why it cannot."""
    regular_file(path)
    with open(path, "rb") as file:
        xml = is_xml(path, file.read(512))
    if xml:
        from tui_app.wire.xml import load_xml_data, load_xml_dict

        raw = path.read_bytes()
        root, _ = load_xml_dict(raw)
        # Another root still goes through load_xml_data, for its plain-language refusal.
        model = PROFILE_ROOTS.get(root) or PROFILE_ROOTS["Agent"]
        return model.kind, load_xml_data(raw, model, tuple(PROFILE_ROOTS))
    lines = iter(read_lines(path))
    line = next(lines, None)
    if line is None:
        raise ValueError("the file holds no record")
    if line.value is None:
        raise ValueError(f"line {line.number}: {line.error}")
    kind, record = _unwrap_line(line.value)
    data = field_names(RECORD_MODELS[kind], record)
    if (following := next(lines, None)) is not None:  # only the first would be seen
        raise ManyRecords(kind, data, following.number)
    return kind, data


def is_xml(path: Path, head: bytes) -> bool:
    """Whether a file is an XML document, by its ``.xml`` suffix or else by its first
    character: one without the suffix (stdin, a pipe) is one too."""
    return path.suffix.lower() == ".xml" or head.lstrip().startswith(b"<")


def _unwrap_line(value: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    if "data" in value:  # a bulk envelope: {"clientRefId", "data": {"agent": {...}}}
        inner = value["data"] if isinstance(value["data"], dict) else {}
        found = [k for k in RECORD_MODELS if isinstance(inner.get(k), dict)]
        if len(found) != 1:
            raise ValueError("the envelope's data must hold exactly one of agent or agency")
        return found[0], inner[found[0]]
    kinds = [
        kind for kind, model in RECORD_MODELS.items()
        if {model.id_field, model.id_field.lower()} & value.keys()
    ]  # fmt: skip
    if not kinds and [k for k in value if isinstance(value[k], dict)] in (["agent"], ["agency"]):
        # QA: {"agent": {...}} was said to be neither an agent nor an agency.
        raise ValueError(
            'a record under "agent" or "agency" is the data of a bulk envelope: write'
            ' {"clientRefId": "...", "data": {"agent": {...}}}, or the record alone'
        )
    if len(kinds) != 1:
        raise ValueError("cannot tell an agent (Ssn) from an agency (Tin) in this record")
    return kinds[0], value


def field_names(model: type[BaseModel], data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` keyed by ``model``'s field names, whichever spelling it came in (camelCase
    bulk or PascalCase), nested sections too; unknown keys are kept for validation to
    name."""
    names = {f.alias: n for n, f in model.model_fields.items() if f.alias} | {
        n: n for n in model.model_fields
    }
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = names.get(key, key)
        field = model.model_fields.get(name)
        inner = _model_in(field.annotation) if field is not None else None
        if inner is not None and isinstance(value, Mapping):
            value = field_names(inner, value)
        elif inner is not None and isinstance(value, list):
            value = [field_names(inner, v) if isinstance(v, Mapping) else v for v in value]
        out[name] = value
    return out


def without_unknown(
    model: type[BaseModel], data: Mapping[str, Any], prefix: str = ""
) -> tuple[dict[str, Any], list[str]]:
    """``data`` (by field names) without the keys that are no field of ``model`` or of its
    sections, and the paths of those left out (``Bogus``, ``Contacts[0].Pager``)."""
    kept: dict[str, Any] = {}
    unknown: list[str] = []
    for key, value in data.items():
        field = model.model_fields.get(key)
        if field is None:
            unknown.append(prefix + key)
            continue
        inner = _model_in(field.annotation)
        if inner is not None and isinstance(value, Mapping):
            value, more = without_unknown(inner, value, f"{prefix}{key}.")
            unknown += more
        elif inner is not None and isinstance(value, list):
            items = []
            for i, item in enumerate(value):
                if isinstance(item, Mapping):
                    item, more = without_unknown(inner, item, f"{prefix}{key}[{i}].")
                    unknown += more
                items.append(item)
            value = items
        kept[key] = value
    return kept, unknown


def _model_in(annotation: Any) -> Any:
    """The model class inside an annotation such as ``list[AgencyContact] | None``."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return next((m for a in get_args(annotation) if (m := _model_in(a)) is not None), None)


def _is_list(annotation: Any) -> bool:
    return get_origin(annotation) is list or any(_is_list(a) for a in get_args(annotation))


# --- order drafts ----------------------------------------------------------------------


def order_draft_format(path: Path) -> str:
    """``json`` or ``xml``, by ``path``'s suffix; ``ValueError`` for another (a ``.txt``
    saved as JSON would not be the file its name says)."""
    suffix = path.suffix.lower()
    if suffix not in (".json", ".xml"):
        raise ValueError("a draft is a .json or an .xml file")
    return suffix[1:]


def save_order_draft(path: Path, data: Mapping[str, Any]) -> None:
    """An order form's values (``tlq`` and ``data``) as JSON, or as an XML ``Order``
    document for ``.xml``; 0600 (a draft holds a tax id, perhaps a birth date). Raises
    ``OSError``, or ``ValueError`` for another suffix or values XML cannot carry."""
    if order_draft_format(path) == "xml":
        from tui_app.wire.xml import dump_xml_dict

        content = dump_xml_dict("Order", data)
    else:
        content = (json.dumps(data, indent=2) + "\n").encode()
    write_private(path, content)


def read_order_draft(path: Path) -> dict[str, Any]:
    """An order draft saved by :func:`save_order_draft` (or written by hand), not
    validated. Raises ``OSError``, or ``ValueError`` saying why it is no draft."""
    regular_file(path)
    return order_values(path.read_bytes(), xml=order_draft_format(path) == "xml")


def order_values(raw: bytes, *, xml: bool) -> dict[str, Any]:
    """The values of an order file (a draft, or the CLI's order to submit): an XML
    ``Order`` document, or JSON, which may begin with a byte order mark (Notepad's). Not
    validated. Raises ``ValueError`` saying why it is no order."""
    from tui_app.contract.order import Order
    from tui_app.wire.xml import load_xml_data

    try:  # in words, not Python's ("'utf-8' codec can't decode byte 0xff in position 19")
        values = load_xml_data(raw, Order, "Order") if xml else json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise ValueError(not_utf8(raw, exc)) from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise ValueError("it is nested too deeply to be an order") from None
    if not isinstance(values, dict):
        raise ValueError("an order is an object with tlq and data")
    return values
