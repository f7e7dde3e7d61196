"""Counts and times in words."""

from __future__ import annotations

import pytest

from tui_app.words import counted, file_name_part, utc_time


def test_counts_are_singular_for_one_only():
    assert [counted(n, "record") for n in (0, 1, 2, 25_000)] == [
        "0 records", "1 record", "2 records", "25,000 records",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "seconds", "words"),
    [
        ("2026-11-23T17:29:15.262029+00:00", True, "2026-11-23 17:29:15 UTC"),
        ("2026-11-23T17:29:15.262029+00:00", False, "2026-11-23 17:29 UTC"),
        ("2026-11-23T12:29:15-05:00", True, "2026-11-23 17:29:15 UTC"),
        ("2026-11-23T17:29:15Z", False, "2026-11-23 17:29 UTC"),
        ("2026-11-23T17:29:15", True, "2026-11-23 17:29:15"),  # no offset: no zone claimed
        ("2026-11-23", True, "2026-11-23"),
        ("23/11/2026 17:29", True, "23/11/2026 17:29"),  # a service's own format, kept
    ],
)
def test_times_are_shown_to_the_minute_or_second_in_utc(text, seconds, words):
    assert utc_time(text, seconds=seconds) == words


@pytest.mark.parametrize(
    ("text", "part"),
    [
        ("AG-1", "AG-1"),
        ("../../tmp/evil k", "____tmp_evil_k"),
        ("..", "_"),
        ("a/b\\c:d", "a_b_c_d"),
        ("jane.doe+1@x", "jane.doe+1@x"),
        ("Zoë 7", "Zoë_7"),
    ],
)
def test_a_file_name_part_has_no_folder_in_it(text, part):
    assert file_name_part(text) == part
    assert "/" not in part and ".." not in part
