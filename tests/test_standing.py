from datetime import date

import pytest

from tui_app.standing import license_standing, parse_us_date

TODAY = date(2026, 11, 21)


@pytest.mark.parametrize(
    ("active", "expiration", "words", "level"),
    [
        (True, "11/20/2026", "EXPIRED 1 day ago", "bad"),
        (False, "01/01/2020", "EXPIRED 2516 days ago", "bad"),
        (False, "01/01/2030", "INACTIVE", "none"),
        (True, "11/21/2026", "EXPIRES TODAY", "warn"),
        (True, "01/20/2027", "EXPIRES IN 60 days", "warn"),
        (True, "01/21/2027", "ACTIVE", "ok"),
        (True, None, "ACTIVE", "ok"),
        (True, "2027-01-01", "ACTIVE", "ok"),
    ],
)
def test_license_standing_in_words(active, expiration, words, level):
    assert license_standing(active, expiration, TODAY) == (words, level)


def test_parse_us_date_refuses_other_shapes():
    assert parse_us_date("02/29/2024") == date(2024, 2, 29)
    assert parse_us_date("02/30/2024") is None
    assert parse_us_date("") is None
