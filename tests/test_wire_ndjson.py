"""Streamed NDJSON: line numbers, offsets, bad lines reported in place, constant memory."""

from __future__ import annotations

import io
import json
import tracemalloc
from pathlib import Path
from typing import Annotated, Any

import pytest

from tui_app.contract.base import RecordModel, Required, text
from tui_app.wire.ndjson import Line, dumps_line, read_lines, write_lines


class DemographicSection(RecordModel):
    FirstName: Required
    MiddleInitial: Annotated[str, text(1)] | None = None


class Agent(RecordModel):
    ProfileKey: Required
    Ssn: Required
    Demographic: DemographicSection | None = None
    Tags: list[str] | None = None
    DynamicData: dict[str, Any] | None = None


MIXED = (
    b'{"a": 1}\n'  # 1
    b"\n"  # 2: blank
    b"not json\n"  # 3
    b"[1, 2]\n"  # 4: an array, not an object
    b"   \t\n"  # 5: blank
    b'{"b": "\xc3\xa9"}\n'  # 6
    b'{"c": "\xff"}\n'  # 7: not UTF-8
    b'{"d": 1,}\n'  # 8
    b"42\n"  # 9
    b'{"e": null}'  # 10: no final newline
)


def summary(lines: list[Line]) -> list[tuple[int, Any, str | None]]:
    return [(line.number, line.value, line.error) for line in lines]


def test_mixed_lines_are_reported_with_their_numbers() -> None:
    assert summary(list(read_lines(io.BytesIO(MIXED)))) == [
        (1, {"a": 1}, None),
        (3, None, "not valid JSON: Expecting value at column 1"),
        (4, None, "line is not a JSON object"),
        (6, {"b": "é"}, None),
        (7, None, "line is not valid UTF-8 (byte 8)"),
        (8, None, "not valid JSON: Expecting property name enclosed in double quotes at column 9"),
        (9, None, "line is not a JSON object"),
        (10, {"e": None}, None),
    ]


def test_offsets_point_at_each_line_and_raw_has_no_line_ending(tmp_path: Path) -> None:
    path = tmp_path / "mixed.ndjson"
    path.write_bytes(MIXED)
    for line in read_lines(path):
        assert MIXED[line.offset :].startswith(line.raw)
        assert line.offset == 0 or MIXED[line.offset - 1 : line.offset] == b"\n"
        assert not line.raw.endswith((b"\n", b"\r"))


def test_crlf_line_endings_are_stripped() -> None:
    data = b'{"a": 1}\r\n\r\n{"b": 2}\r\n'
    lines = list(read_lines(data.splitlines(keepends=True)))
    assert [(line.number, line.offset, line.raw, line.value) for line in lines] == [
        (1, 0, b'{"a": 1}', {"a": 1}),
        (3, 12, b'{"b": 2}', {"b": 2}),
    ]


def test_a_byte_order_mark_at_the_start_is_ignored() -> None:
    lines = list(read_lines([b'\xef\xbb\xbf{"a": 1}\n', b'\xef\xbb\xbf{"b": 2}\n']))
    assert summary(lines) == [
        (1, {"a": 1}, None),
        (2, None, "not valid JSON: Unexpected UTF-8 BOM (decode using utf-8-sig) at column 1"),
    ]


def test_an_empty_source_yields_nothing() -> None:
    assert list(read_lines(io.BytesIO(b""))) == []


def test_resume_from_an_offset_gives_the_same_lines(tmp_path: Path) -> None:
    path = tmp_path / "mixed.ndjson"
    path.write_bytes(MIXED)
    everything = list(read_lines(path))
    for index, line in enumerate(everything):
        assert (
            list(read_lines(path, start_offset=line.offset, start_line=line.number))
            == everything[index:]
        )
        with path.open("rb") as file:
            assert (
                list(read_lines(file, start_offset=line.offset, start_line=line.number))
                == everything[index:]
            )


def test_an_iterable_is_taken_to_start_at_the_given_position() -> None:
    [line] = read_lines([b'{"a": 1}\n'], start_offset=100, start_line=7)
    assert (line.number, line.offset) == (7, 100)


def test_writer_round_trip_uses_camel_case_aliases_and_drops_none() -> None:
    agent = Agent(
        ProfileKey="PK",
        Ssn="123456789",
        Demographic=DemographicSection(FirstName="Ann"),
        Tags=["x"],
        DynamicData={"k": None},
    )
    envelope = {"clientRefId": "3f2504e0-4f89-11d3-9a0c-0305e82c3301", "data": {"agent": agent}}
    out = io.BytesIO()
    assert write_lines(out, [envelope, agent, {"plain": None}]) == 3
    assert out.getvalue().splitlines() == [
        b'{"clientRefId":"3f2504e0-4f89-11d3-9a0c-0305e82c3301","data":{"agent":{"profileKey":"PK","ssn":"123456789",'
        b'"demographic":{"firstName":"Ann"},"tags":["x"],"dynamicData":{"k":null}}}}',
        b'{"profileKey":"PK","ssn":"123456789","demographic":{"firstName":"Ann"},"tags":["x"],"dynamicData":{"k":null}}',
        b'{"plain":null}',
    ]
    lines = list(read_lines(io.BytesIO(out.getvalue())))
    assert [line.number for line in lines] == [1, 2, 3]
    assert Agent.model_validate(lines[0].value["data"]["agent"]) == agent
    assert Agent.model_validate(lines[1].value) == agent


def test_dumps_line_is_one_line_even_when_the_text_holds_newlines() -> None:
    line = dumps_line({"note": "one\ntwo\r\nthree", "name": "Zoë"})
    assert line.count(b"\n") == 1 and line.endswith(b"\n")
    assert json.loads(line) == {"note": "one\ntwo\r\nthree", "name": "Zoë"}


@pytest.mark.slow
def test_a_big_file_is_read_in_constant_memory(tmp_path: Path) -> None:
    path = tmp_path / "big.ndjson"
    count = 25_000  # lines of about 1 KB, as real records are: fewer, so tracing is quick
    record = {
        "data": {
            "agent": {
                "profileKey": "PK",
                "ssn": "123456789",
                "demographic": {"firstName": "Given", "lastName": "x" * 800},
            }
        }
    }
    with path.open("wb") as file:
        write_lines(file, ({"clientRefId": f"ref-{i:09d}", **record} for i in range(count)))
    size = path.stat().st_size
    assert size > 20_000_000  # bigger than the memory budget, so holding it all would fail

    tracemalloc.start()
    try:
        good = bad = last = 0
        for line in read_lines(path):
            good += line.value is not None
            bad += line.error is not None
            last = line.number
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (good, bad, last) == (count, 0, count)
    assert peak < 5_000_000, f"peak {peak} bytes while reading {size} bytes"
