"""The input file of a bulk job: checked as a whole, then validated a line at a time.

A line is either a bulk envelope (``{"clientRefId": ..., "data": {"agent" | "agency": ...}}``)
or a bare record: an agent (it has ``ssn``) or an agency (it has ``tin``), in the bulk
camelCase or the schema's PascalCase spelling. A bare record gets a new GUID, which the
journal records so that every later send of the line uses the same one. GUIDs are
case-insensitive; they are kept and sent in lowercase, the form the service answers in.

Errors are plain ``path: message`` text with paths in the bulk spelling, relative to the
line as written (``demographic.firstName`` for a bare record, ``data.agent.demographic...``
for an envelope).
"""

from __future__ import annotations

import codecs
import hashlib
import os
import stat
import uuid
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NamedTuple, TypeVar

from pydantic import BaseModel, ValidationError

from tui_app.contract.base import lower_first
from tui_app.contract.bulk import GUID, BulkItem
from tui_app.contract.errors import field_errors
from tui_app.contract.profile import AgencyRecord, AgentRecord
from tui_app.wire.errors import file_kind, not_utf8
from tui_app.wire.ndjson import Line, RawLine, read_lines, read_raw

Record = AgentRecord | AgencyRecord

SNIFF_BYTES = 64 * 1024
"""How much of the file is checked up front for being UTF-8 text at all."""
_CHUNK = 1024 * 1024


class SourceError(Exception):
    """A file that cannot be imported at all (missing, a folder, a pipe or a device, empty,
    not UTF-8 text).
    The CLI prints the message and exits 2."""

    exit_code = 2


class SourceChanged(SourceError):
    """The file differs from the one the job was started with."""


@dataclass(frozen=True)
class Fingerprint:
    """What identifies the file's content: its size, modification time and SHA-256."""

    size: int
    mtime_ns: int
    sha256: str


def check_file(path: Path) -> int:
    """Check that ``path`` is a readable, non-empty UTF-8 text file; its size in bytes.

    Only a regular file is read: opening a named pipe waits for a writer, and a pipe or a
    device may never end, so either would hang the check instead of being refused.

    Only the first ``SNIFF_BYTES`` decide "not UTF-8 text" for the whole file (a binary,
    UTF-16 or Latin-1 file is refused before anything is recorded); a bad line further on
    is reported as that line's error.
    """
    with _opened(path) as file:
        return os.fstat(file.fileno()).st_size


def first_records(path: Path, count: int = 100) -> tuple[int, int, str | None]:
    """(records looked at, how many are valid, the first one's problem) among the first
    ``count`` records of ``path``: a few milliseconds that tell a file of the wrong shape
    before a job is made of it. Raises :class:`SourceError` as :func:`check_file`."""
    seen = valid = 0
    problem = None
    with _opened(path) as file:
        file.seek(0)
        for line in read_raw(file):
            checked, _ = check(line)
            seen += 1
            valid += checked.valid
            if problem is None and not checked.valid:
                problem = f"line {line.number}: {checked.errors[0]}"
            if seen == count:
                break
    return seen, valid, problem


def inspect_file(path: Path) -> Fingerprint:
    """:func:`check_file`'s checks, and the file's fingerprint (a job's; a pre-flight does
    without: hashing 76 MB costs about 0.1 s before its checking processes start)."""
    with _opened(path) as file:
        return _fingerprint(file)


@contextmanager
def _opened(path: Path) -> Iterator[IO[bytes]]:
    """The file open for reading once :func:`check_file`'s checks pass; any failure to
    read it, then or in the block, as a :class:`SourceError`."""
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            raise SourceError(f"{path} is {file_kind(mode)}, not an NDJSON file")
        with open(path, "rb") as file:
            head = file.read(SNIFF_BYTES)
            size = os.fstat(file.fileno()).st_size
            if not head.strip():
                if size <= len(head):
                    raise SourceError(f"{path} is empty: there is nothing to import")
            else:
                _check_text(path, head, truncated=size > len(head))
            yield file
    except FileNotFoundError:
        raise SourceError(f"{path}: no such file") from None
    except OSError as exc:
        raise SourceError(f"cannot read {path}: {exc.strerror or exc}") from None


def _check_text(path: Path, head: bytes, truncated: bool) -> None:
    if b"\x00" in head:  # UTF-16 and binary files; never valid in NDJSON text
        raise SourceError(f"{path} is not UTF-8 text (it contains NUL bytes); save it as UTF-8")
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A multi-byte character cut by the end of the sample is not an error.
        if not (truncated and exc.reason == "unexpected end of data"):
            raise SourceError(f"{path}: {not_utf8(head, exc)}") from None


def _fingerprint(file: IO[bytes]) -> Fingerprint:
    file.seek(0)
    digest = hashlib.sha256()
    while chunk := file.read(_CHUNK):
        digest.update(chunk)
    stat = os.fstat(file.fileno())
    return Fingerprint(stat.st_size, stat.st_mtime_ns, digest.hexdigest())


def verify_unchanged(path: Path, expected: Fingerprint) -> None:
    """Raise :class:`SourceChanged` unless ``path`` still has the expected content. Size and
    modification time equal means unchanged (as make and rsync assume); otherwise the
    content is hashed again, so a file that was only touched still matches."""
    try:
        stat = path.stat()
    except OSError as exc:
        raise SourceChanged(f"cannot read {path}: {exc.strerror or exc}") from None
    if (stat.st_size, stat.st_mtime_ns) == (expected.size, expected.mtime_ns):
        return
    if stat.st_size == expected.size:
        with open(path, "rb") as file:
            if _fingerprint(file).sha256 == expected.sha256:
                return
    raise SourceChanged(
        f"{path} has changed since the job was started; submit it again as a new job"
    )


# --- one line --------------------------------------------------------------------------


class Checked(NamedTuple):
    """What validation found in one line. ``errors`` is empty exactly when it is valid.

    A named tuple, not a dataclass: a run makes one per line and the checking process
    pickles each (tui_app.bulk.checker), and a tuple is made in a quarter of the time and
    pickled in half."""

    number: int
    offset: int
    crc: int
    """CRC-32 of the line's bytes, to notice a line that changed before it is sent."""
    kind: str | None
    """``agent`` or ``agency`` when that much could be told."""
    profile_key: str | None
    client_ref_id: str | None
    """The envelope's id, or a new GUID for a valid bare record; lowercase."""
    errors: tuple[str, ...]
    identity: int | None = None
    """Which profile a valid line writes (see :func:`identity`)."""
    length: int = 0
    """The line's length in bytes."""
    send_as: int = 0
    """How the line goes into a request (:data:`SEND_AS`)."""

    @property
    def valid(self) -> bool:
        return not self.errors


_NOT_A_RECORD = (
    "not a bulk line: expected an envelope (clientRefId and data) or a bare agent "
    "(profileKey and ssn) or agency (profileKey and tin) record"
)


_ENVELOPE_START = b'{"clientRefId":'
"""How a line in the interface's own envelope form begins: such a line is validated
straight from its bytes, and parsed on its own only when it is refused."""


def check(line: Line | RawLine) -> tuple[Checked, Record | None]:
    """Validate one line; the record is returned for sending and should not be kept."""
    crc = zlib.crc32(line.raw)

    def result(
        kind: str | None = None,
        key: Any = None,
        ref: str | None = None,
        errors: Iterable[str] = (),
        record: Record | None = None,
        send_as: int = 0,
    ) -> tuple[Checked, Record | None]:
        key = None if key is None else str(key)  # as written, even if not text
        if record is None:
            return Checked(line.number, line.offset, crc, kind, key, ref, tuple(errors)), None
        checked = Checked(line.number, line.offset, crc, kind, key, ref, (),
                          identity(record), len(line.raw), send_as)  # fmt: skip
        return checked, record

    spelling_refused = False  # the bulk spelling alone, tried on the line's bytes
    if isinstance(line, RawLine):
        if line.raw.startswith(_ENVELOPE_START):
            try:
                item = BulkItem.model_validate_json(line.raw, by_alias=True, by_name=False)
            except ValidationError:
                spelling_refused = True  # the parsed line says where, below
            else:
                record = item.data.record
                if not _may_repeat_identity(line.raw, record.kind):
                    return result(record.kind, record.ProfileKey, same_ref(item.clientRefId),
                                  record=record, send_as=1)  # fmt: skip
        line = line.parsed()  # which refuses a key repeated in one object
    value = line.value
    if value is None:
        return result(errors=[line.error or "unreadable line"])
    if "clientRefId" in value or "data" in value:
        kind, record_value = _envelope_parts(value)
        ref = value.get("clientRefId")
        ref = same_ref(ref) if isinstance(ref, str) else None
        key = _field(record_value, "profileKey")
        try:
            item, as_written = _validated(BulkItem, line.raw, spelling_refused)
        except ValidationError as exc:
            return result(kind, key, ref, _messages(exc))
        record = item.data.record
        return result(record.kind, record.ProfileKey, ref, record=record, send_as=int(as_written))
    model = _bare_model(value)
    if isinstance(model, str):
        return result(None, _field(value, "profileKey"), errors=[model])
    try:
        record, as_written = _validated(model, line.raw)
    except ValidationError as exc:
        return result(model.kind, _field(value, "profileKey"), errors=_messages(exc))
    send_as = (2 if record.kind == "agent" else 3) if as_written else 0
    return result(record.kind, record.ProfileKey, str(uuid.uuid4()), record=record, send_as=send_as)


_IDENTITY_KEYS = {
    "agent": (b'"clientRefId"', b'"profileKey"', b'"ssn"'),
    "agency": (b'"clientRefId"', b'"profileKey"', b'"tin"'),
}


def _may_repeat_identity(raw: bytes, kind: str) -> bool:
    """Whether a line read in the bulk spelling may hold a key of its identity twice (a
    validation from bytes keeps the last value; the service might read the first). Three
    counts of bytes, a microsecond; a line they flag is parsed to be sure."""
    return any(raw.count(key) > 1 for key in _IDENTITY_KEYS[kind])


_Model = TypeVar("_Model", bound=BaseModel)


def _validated(
    model: type[_Model], raw: bytes, spelling_refused: bool = False
) -> tuple[_Model, bool]:
    """The line validated, and whether its every key is in the bulk spelling (then it is
    sent as written, :data:`SEND_AS`). Raises the errors of a line in either spelling.
    ``spelling_refused``: the bulk spelling alone was already tried and refused."""
    if not spelling_refused:
        try:
            return model.model_validate_json(raw, by_alias=True, by_name=False), True
        except ValidationError:
            pass
    return model.model_validate_json(raw), False


def same_ref(ref: str) -> str:
    """A clientRefId in the one form results are matched in: a GUID however it was written
    (``{...}``, ``urn:uuid:``, no hyphens, any case) as lowercase 8-4-4-4-12, anything else
    lowercased."""
    if GUID.fullmatch(ref):
        return ref.lower()  # the usual form, without building a UUID
    try:
        return str(uuid.UUID(ref.strip()))
    except ValueError:
        return ref.lower()


def identity(record: Record) -> int:
    """The profile a record writes, as a 63-bit number: its kind, ProfileKey and Ssn or Tin
    (digits only, so ``123-45-6789`` and ``123456789`` are one person). A hash, so the
    journal holds no SSN."""
    key, number = record.identity
    number = str(number or "")
    digits = number if number.isdigit() else "".join(filter(str.isdigit, number))
    text = f"{record.kind}\x1f{key}\x1f{digits}".encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


SEND_AS = {
    0: "rebuilt",
    1: "as written",
    2: "as written, in an agent envelope",
    3: "as written, in an agency envelope",
}
"""How a valid line is sent. A line whose every key is in the bulk spelling (as the
interface asks; validation tells, by refusing the schema's names on a first try) is sent
byte for byte as written, wrapped in an envelope if it is a bare record: it was validated
when read, and its CRC proves it unchanged. Any other line (the schema's PascalCase
spelling) is rebuilt from the model, in the bulk spelling. DynamicData's keys are the
user's own: they are sent as written either way."""


def _bare_model(value: dict[str, Any]) -> type[AgentRecord] | type[AgencyRecord] | str:
    """The record model a bare record's identity field names, or why it names none."""
    has_ssn, has_tin = _field(value, "ssn") is not None, _field(value, "tin") is not None
    if has_ssn and has_tin:
        return "has both ssn (an agent) and tin (an agency): keep the one that applies"
    if has_ssn:
        return AgentRecord
    if has_tin:
        return AgencyRecord
    if _field(value, "profileKey") is not None:
        return "has profileKey but neither ssn (an agent) nor tin (an agency)"
    return _NOT_A_RECORD


def _envelope_parts(value: dict[str, Any]) -> tuple[str | None, Any]:
    data = value.get("data")
    if isinstance(data, dict):
        for kind in ("agent", "agency"):
            if kind in data:
                return kind, data[kind]
    return None, None


def _field(value: Any, name: str) -> Any:
    """A field of a raw record in either spelling (``profileKey`` or ``ProfileKey``)."""
    if not isinstance(value, dict):
        return None
    found = value.get(name)
    return value.get(name[:1].upper() + name[1:]) if found is None else found


def _messages(exc: ValidationError) -> list[str]:
    return [
        f"{'.'.join(map(lower_first, e.path.split('.')))}: {e.message}" if e.path else e.message
        for e in field_errors(exc)
    ]


# --- reading lines back ------------------------------------------------------------------


class SourceFile:
    """The job's file opened for reading single lines back by their offset."""

    def __init__(self, path: Path) -> None:
        self._file = open(path, "rb")  # noqa: SIM115 - closed by close() / the with block

    def line_at(self, offset: int, number: int) -> Line | None:
        """The line that starts at ``offset``, or None if the file no longer has one."""
        self._file.seek(offset)
        # read_lines seeks only for a non-zero offset, hence the seek above.
        return next(read_lines(self._file, start_offset=offset, start_line=number), None)

    def raw_at(self, offset: int, length: int, crc: int) -> bytes | None:
        """The ``length`` bytes of the line at ``offset`` if their CRC-32 is still ``crc``
        (the line is as it was validated), else None. No parsing: this is the fast path
        of sending."""
        self._file.seek(offset)
        raw = self._file.read(length + len(codecs.BOM_UTF8))
        if offset == 0 and raw.startswith(codecs.BOM_UTF8):
            raw = raw[len(codecs.BOM_UTF8) :]
        raw = raw[:length]
        return raw if zlib.crc32(raw) == crc else None

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> SourceFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
