import pytest

from tui_app.pii import format_dob, format_fein, format_ssn, mask_tree, mask_value, pii_kind


def test_ssn_shows_only_last_four_unless_revealed():
    assert format_ssn("000121234") == "***-**-1234"
    assert format_ssn("000121234", reveal=True) == "000-12-1234"
    assert format_ssn("1234") == "***-**-1234"


def test_fein_shows_only_last_four_unless_revealed():
    assert format_fein("000000001") == "**-***0001"
    assert format_fein("00-0000001", reveal=True) == "00-0000001"


def test_birth_date_hidden_whole():
    assert format_dob("01/02/1980") == "**/**/****"
    assert format_dob("01/02/1980", reveal=True) == "01/02/1980"
    assert format_dob(None) == ""


def test_mask_tree_masks_every_spelling_and_keeps_the_rest():
    tree = {
        "Biographic": {"Ssn": "000121234", "DateOfBirth": "01/02/1980", "LastName": "Sample"},
        "data": [{"taxId": "000121234", "feinNumber": "123456789"}],
    }
    masked = mask_tree(tree)
    text = repr(masked)
    assert "000121234" not in text and "01/02/1980" not in text and "123456789" not in text
    assert masked["Biographic"]["LastName"] == "Sample"
    assert masked["data"][0]["feinNumber"] == "**-***6789"
    assert mask_tree(tree, reveal=True) == tree
    assert mask_value("City", "Springfield") == "Springfield"


@pytest.mark.parametrize(
    ("name", "kind"),
    [("Ssn", "ssn"), ("SsnLast4", "ssn"), ("SocialSecurityNumber", "ssn"),
     ("social_security_no", "ssn"), ("SSN", "ssn"), ("Fein", "fein"), ("FeinNumber", "fein"),
     ("FEIN", "fein"), ("EmployerTIN", "fein"), ("employersFein", "fein"), ("taxId", "ssn"),
     ("TaxId", "ssn"), ("DateOfBirth", "dob"), ("BirthDate", "dob"), ("birthdate", "dob"),
     ("DOB", "dob"), ("Setting", None), ("Listing", None), ("Destination", None),
     ("BirthPlace", None), ("LastName", None)],
)  # fmt: skip
def test_personal_data_is_known_by_the_words_of_its_name(name, kind):
    """Seen: a service's ``SocialSecurityNumber`` was shown in clear (only names ending in
    a known word were masked), and the bulk spelling ``employersFein`` was not masked."""
    assert pii_kind(name) == kind


def test_each_kind_is_masked_in_its_own_form():
    assert mask_value("SocialSecurityNumber", "000121234") == "***-**-1234"
    assert mask_value("FEIN", "123456789") == "**-***6789"
    assert mask_value("BirthDate", "1980-01-31") == "**/**/****"
    assert mask_value("Ssn", {"nested": 1}) == {"nested": 1}  # its members masked by name
