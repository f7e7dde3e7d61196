"""The bulk input file: checked as a whole (exit-2 problems), then validated line by line."""

from __future__ import annotations

import io
import json
import os
import uuid
from pathlib import Path

import pytest
from bulk_support import agency, agent, envelope, named_pipe

from tui_app.bulk.source import (
    SNIFF_BYTES,
    SourceChanged,
    SourceError,
    check,
    first_records,
    inspect_file,
    verify_unchanged,
)
from tui_app.wire.ndjson import read_raw


def checked(value: dict | str):
    """The line checked as the scan does (from its bytes), after proving that checking
    the parsed line finds the same: the bytes' fast path changes nothing but speed."""
    raw = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    (line,) = read_raw(io.BytesIO(raw.encode() + b"\n"))
    fast, record = check(line)
    slow, _ = check(line.parsed())
    if "clientRefId" not in raw:  # a bare record gets a new GUID each time
        fast, slow = (c._replace(client_ref_id=None) for c in (fast, slow))
    assert fast == slow
    return check(line)


def test_an_envelope_as_the_interface_writes_it_is_validated_without_parsing_it_first(
    monkeypatch: pytest.MonkeyPatch,
):
    import tui_app.wire.ndjson as ndjson

    parsed = []
    monkeypatch.setattr(ndjson, "_parse", lambda raw: parsed.append(raw) or ({}, None))
    good = json.dumps(envelope(agent("K9", 9)), separators=(",", ":")).encode()
    (line,) = read_raw(io.BytesIO(good + b"\n"))
    assert check(line)[0].valid and parsed == []


# --- one line ----------------------------------------------------------------------------


def test_an_envelope_keeps_its_id_in_lowercase_and_returns_the_record():
    ref = "3F2504E0-4F89-11D3-9A0C-0305E82C3301"
    result, record = checked(envelope(agent("K1", 1), ref))
    assert result.valid and result.errors == ()
    assert (result.kind, result.profile_key, result.client_ref_id) == ("agent", "K1", ref.lower())
    assert record is not None and record.Ssn == "900000001"


def test_bare_records_in_either_spelling_get_a_new_guid():
    pascal = {"ProfileKey": "P1", "Ssn": "900000002",
              "BusinessAddress": {"StreetAddress1": "1 Main St", "City": "Austin",
                                  "State": "TX", "Zip": "73301"},
              "Demographic": {"EmpStatus": "7040", "FirstName": "Ada", "LastName": "Lane"}}  # fmt: skip
    for value, kind in ((agent("C1", 1), "agent"), (pascal, "agent"), (agency("F1", 1), "agency")):
        result, record = checked(value)
        assert result.valid, result.errors
        assert result.kind == kind and record is not None and record.kind == kind
        assert str(uuid.UUID(result.client_ref_id)) == result.client_ref_id
    assert checked(agent("C1", 1))[0].client_ref_id != checked(agent("C1", 1))[0].client_ref_id


def test_how_a_line_is_sent_follows_the_spelling_of_its_fields_not_of_its_values():
    """A line in the bulk spelling goes as written (SEND_AS 1, or 2/3 for a bare record),
    whatever a value or a DynamicData key of the user's own looks like; one field in the
    schema's spelling has it rebuilt (0)."""
    own = agent("S1", 1, jobTitle="Agent")
    own["businessAddress"] = {**own["businessAddress"], "dynamicData": {"Region": "South"}}
    schema = agent("S2", 2)
    schema["demographic"]["FirstName"] = schema["demographic"].pop("firstName")
    sent = {name: checked(value)[0].send_as for name, value in (
        ("own keys", envelope(own)), ("bare", own), ("agency", agency("S3", 3)),
        ("schema field", envelope(schema)), ("bare, schema field", schema))}  # fmt: skip
    assert sent == {"own keys": 1, "bare": 2, "agency": 3, "schema field": 0,
                    "bare, schema field": 0}  # fmt: skip


def test_errors_are_plain_paths_in_the_bulk_spelling_relative_to_the_line():
    bad = agent("K2", 2)
    del bad["demographic"]["firstName"]
    bad["businessAddress"]["city"] = ""
    result, record = checked(bad)
    assert record is None and result.kind == "agent" and result.profile_key == "K2"
    assert result.client_ref_id is None  # a bare record that is never sent needs no id
    assert set(result.errors) == {
        "businessAddress.city: is required",
        "demographic.firstName: is required",
    }
    result, _ = checked(envelope(bad, "not-a-guid"))
    assert "data.agent.demographic.firstName: is required" in result.errors
    assert any(e.startswith("clientRefId: must be a GUID") for e in result.errors)
    assert result.profile_key == "K2" and result.client_ref_id == "not-a-guid"


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ('{"profileKey": "K", "ssn": "900000001", "tin": "800000001"}', "has both ssn"),
        ('{"profileKey": "K"}', "has profileKey but neither ssn"),
        ('{"name": "x"}', "not a bulk line: expected an envelope"),
        ("[1, 2]", "line is not a JSON object"),
        ("{oops", "not valid JSON"),
        ('{"clientRefId": "3f2504e0-4f89-11d3-9a0c-0305e82c3301", "data": {}}', "data:"),
    ],
)
def test_lines_that_are_not_records_say_why(value: str, error: str):
    result, record = checked(value)
    assert record is None and not result.valid
    assert any(error in e for e in result.errors), result.errors


REF = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
REPEATED = {
    "profileKey": ('"profileKey":"T9"', '"profileKey":"T10"'),
    "ssn": ('"ssn":"900000001"', '"ssn":"900000002"'),
    "clientRefId": (
        f'"clientRefId":"{REF}"',
        '"clientRefId":"3f2504e0-4f89-11d3-9a0c-0305e82c3302"',
    ),
    "city": ('"city":', '"city":"Elsewhere"'),
}


def _repeating(key: str) -> str:
    where, repeat = REPEATED[key]
    raw = json.dumps(envelope(agent("T9", 1), REF), separators=(",", ":"))
    assert where in raw
    return raw.replace(where, f"{repeat},{where}", 1)


@pytest.mark.parametrize("key", ["profileKey", "ssn", "clientRefId"])
def test_an_identity_key_repeated_in_one_object_makes_the_line_invalid(key: str):
    # QA: profileKey "T9" then "T10" in one line was counted valid as T10, and sent as
    # written: the service may import T9 (JSON leaves open which value counts).
    result, record = checked(_repeating(key))  # from its bytes as parsed: the same
    assert record is None and not result.valid
    assert result.errors == (
        f"the key '{key}' appears twice in one object: the service may read either value",
    )


def test_any_key_repeated_is_refused_where_the_line_is_parsed():
    # A line read from its bytes is looked at for its identity keys only (three counts
    # of bytes); one parsed (another spelling, or to be sure) is refused for any repeat.
    (line,) = read_raw(io.BytesIO(_repeating("city").encode() + b"\n"))
    result, _ = check(line.parsed())
    assert result.errors == (
        "the key 'city' appears twice in one object: the service may read either value",
    )


def test_a_line_records_its_number_offset_and_crc():
    data = b"\n" + json.dumps(agent("K3", 3)).encode() + b"\n"
    (line,) = read_raw(io.BytesIO(data))
    result, _ = check(line)
    assert (result.number, result.offset) == (2, 1)
    assert result.crc == check(line)[0].crc != 0


# --- the file as a whole -----------------------------------------------------------------


def test_a_missing_file_a_folder_and_an_empty_file_are_refused(tmp_path: Path):
    empty = tmp_path / "empty.ndjson"
    empty.write_bytes(b"")
    blank = tmp_path / "blank.ndjson"
    blank.write_bytes(b"\n  \n\t\n")
    for path, words in (
        (tmp_path / "nope.ndjson", "no such file"),
        (tmp_path, "is a folder"),
        (empty, "is empty"),
        (blank, "is empty"),
    ):
        with pytest.raises(SourceError, match=words):
            inspect_file(path)


def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path: Path):
    with (
        named_pipe(tmp_path / "x.ndjson") as fifo,
        pytest.raises(SourceError, match="is a named pipe, not an NDJSON file"),
    ):
        inspect_file(fifo)


def test_a_device_is_refused_not_read_forever():
    with pytest.raises(SourceError, match="/dev/zero is a device, not an NDJSON file"):
        inspect_file(Path("/dev/zero"))


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ('{"a": "é"}\n'.encode("utf-16"), "contains NUL bytes"),
        (
            '{"a": "é"}\n'.encode("latin-1"),
            "line 1 is not UTF-8 text \\(byte 8 of the line, 0xe9\\)",
        ),
        # Seen: "byte 134", counted from the start of the file: the byte within its line.
        (
            b'{"a": 1}\n' * 14 + b'{"a": "\xe9"}\n',
            "line 15 is not UTF-8 text \\(byte 8 of the line",
        ),
        (b"\x1f\x8b\x08\x00\xff\xfe", "is not UTF-8 text"),
    ],
)
def test_a_file_that_is_not_utf8_text_is_refused(tmp_path: Path, content: bytes, words: str):
    path = tmp_path / "bad.ndjson"
    path.write_bytes(content)
    with pytest.raises(SourceError, match=words):
        inspect_file(path)


def test_a_character_cut_by_the_sniffed_sample_is_not_an_error(tmp_path: Path):
    path = tmp_path / "big.ndjson"
    prefix = b'{"a": "'
    line = prefix + b"x" * (SNIFF_BYTES - 1 - len(prefix)) + "é".encode() + b'"}\n'
    assert line[SNIFF_BYTES - 1 : SNIFF_BYTES + 1] == "é".encode()
    path.write_bytes(line)
    fingerprint = inspect_file(path)
    assert fingerprint.size == len(line) and len(fingerprint.sha256) == 64


def test_a_touched_file_still_matches_but_a_changed_one_does_not(tmp_path: Path):
    path = tmp_path / "f.ndjson"
    path.write_bytes(b'{"a": 1}\n')
    fingerprint = inspect_file(path)
    verify_unchanged(path, fingerprint)
    os.utime(path, ns=(fingerprint.mtime_ns + 10**9, fingerprint.mtime_ns + 10**9))
    verify_unchanged(path, fingerprint)  # same bytes: hashed again and accepted
    path.write_bytes(b'{"a": 2}\n')  # same size, other content
    with pytest.raises(SourceChanged, match="has changed"):
        verify_unchanged(path, fingerprint)
    path.unlink()
    with pytest.raises(SourceChanged, match="cannot read"):
        verify_unchanged(path, fingerprint)


def test_the_first_records_of_a_file_say_how_many_are_valid(tmp_path: Path):
    good = json.dumps(envelope(agent("F1", 1)))
    path = tmp_path / "f.ndjson"
    path.write_text("\n".join(["[1]", "", good, "{oops"] + [good] * 200) + "\n")
    assert first_records(path, count=3) == (3, 1, "line 1: line is not a JSON object")
    assert first_records(path)[:2] == (100, 98)
    with pytest.raises(SourceError, match="no such file"):
        first_records(tmp_path / "none.ndjson")
