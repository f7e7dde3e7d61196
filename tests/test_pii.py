from tui_app.pii import format_dob, format_fein, format_ssn, mask_tree, mask_value


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
