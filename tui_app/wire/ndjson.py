"""Streamed NDJSON: one JSON object per line, read and written a line at a time.

A bulk file can be far larger than memory, so :func:`read_lines` holds one line at a time
and reports a bad line (with its number) without stopping. Every :class:`Line` carries the
byte offset where it starts, so reading can resume there later::

    read_lines(path, start_offset=line.offset, start_line=line.number)

:func:`read_raw` yields the same lines unparsed, for a reader that parses each line its
own way (the bulk scan validates the bytes directly and parses only the lines it refuses).
"""

from __future__ import annotations

import codecs
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import IO, Any

from pydantic import BaseModel
from pydantic_core import to_json


@dataclass(frozen=True, slots=True)
class Line:
    """One non-blank line of an NDJSON source; exactly one of ``value`` and ``error`` is set."""

    number: int
    """1-based line number; blank lines are skipped but counted."""
    offset: int
    """Byte offset of the line's first byte in the source."""
    raw: bytes
    """The line without its line ending (and without a UTF-8 byte order mark)."""
    value: dict[str, Any] | None
    """The parsed JSON object."""
    error: str | None
    """Why the line is unusable, in plain words."""


@dataclass(frozen=True, slots=True)
class RawLine:
    """One non-blank line, not yet parsed."""

    number: int
    offset: int
    raw: bytes

    def parsed(self) -> Line:
        return Line(self.number, self.offset, self.raw, *_parse(self.raw))


Source = str | os.PathLike[str] | IO[bytes] | Iterable[bytes]


def read_lines(source: Source, *, start_offset: int = 0, start_line: int = 1) -> Iterator[Line]:
    """Parse NDJSON from a path, a binary file or an iterable of byte lines (with endings).

    ``start_offset`` and ``start_line`` say where reading begins: a path or a seekable file
    is moved there first; a plain iterable must already start there. Use a ``Line``'s
    ``offset`` and ``number`` to resume at that line.
    """
    for line in read_raw(source, start_offset=start_offset, start_line=start_line):
        yield line.parsed()


def read_raw(source: Source, *, start_offset: int = 0, start_line: int = 1) -> Iterator[RawLine]:
    """The lines of :func:`read_lines`, unparsed."""
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as file:
            file.seek(start_offset)
            yield from _split_lines(file, start_offset, start_line)
        return
    if start_offset and hasattr(source, "seek"):
        source.seek(start_offset)
    yield from _split_lines(source, start_offset, start_line)


def _split_lines(lines: Iterable[bytes], offset: int, number: int) -> Iterator[RawLine]:
    for chunk in lines:
        start, offset = offset, offset + len(chunk)
        raw = chunk.removesuffix(b"\n").removesuffix(b"\r")
        if start == 0:
            raw = raw.removeprefix(codecs.BOM_UTF8)  # left by some Windows editors
        if raw.strip():
            yield RawLine(number, start, raw)
        number += 1


class RepeatedKey(ValueError):
    """An object holding one key twice: JSON leaves open which value counts, so the
    service may read another profile than the one validated and journalled (QA: a line
    with profileKey "T9" then "T10" was counted valid as T10)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) < len(pairs):
        keys = [k for k, _ in pairs]
        key = next(k for i, k in enumerate(keys) if k in keys[:i])
        raise RepeatedKey(
            f"the key {key!r} appears twice in one object: the service may read either value"
        )
    return value


def _parse(raw: bytes) -> tuple[dict[str, Any] | None, str | None]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"line is not valid UTF-8 (byte {exc.start + 1})"
    try:
        value = json.loads(text, object_pairs_hook=_unique_keys)
    except RepeatedKey as exc:
        return None, str(exc)
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON: {exc.msg} at column {exc.colno}"
    except ValueError as exc:  # e.g. an integer beyond Python's digit limit
        return None, f"not valid JSON: {exc}"
    except RecursionError:
        return None, "not valid JSON: nested too deeply"
    if not isinstance(value, dict):
        return None, "line is not a JSON object"
    return value, None


def dumps_line(obj: Mapping[str, Any] | BaseModel) -> bytes:
    """``obj`` as one compact JSON line ending in ``\\n``.

    Models, also inside a mapping, are written with their aliases (the camelCase bulk
    names) and without ``None`` values; a mapping's own keys and values are kept as given.
    """
    value = obj if isinstance(obj, (BaseModel, dict)) else dict(obj)
    return to_json(value, by_alias=True, exclude_none=True) + b"\n"


def write_lines(dest: IO[bytes], objects: Iterable[Mapping[str, Any] | BaseModel]) -> int:
    """Write each object as one line of ``dest``; returns how many were written."""
    count = 0
    for obj in objects:
        dest.write(dumps_line(obj))
        count += 1
    return count
