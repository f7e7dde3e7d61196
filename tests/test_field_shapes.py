"""A hand-written file's shape against a form's fields (``fields.misfits``) and how a value
is shown in its field (``fields.to_text``)."""

import pytest

from tui_app.contract.order import Order
from tui_app.ui.fields import FieldSpec, misfits, to_text

FILING = ("tlq.pType", "tlq.fType")


@pytest.mark.parametrize(
    ("draft", "problems"),
    [
        ({"tlq": "x", "data": "y"},
         ["tlq: must be an object, not 'x'", "data: must be an object, not 'y'"]),
        ({"tlq": {"pType": ["I"]}}, ["tlq.pType: must be one value, not a list"]),
        ({"tlq": {"pType": "Z"}}, ["tlq.pType: 'Z' is not one of I, A"]),
        ({"tlq": {"fType": "X"}}, ["tlq.fType: 'X' is not one of A, T"]),
        ({"data": {"firstName": {"a": 1}}}, ["data.firstName: must be one value, not an object"]),
        ({"data": {"loa": [{"a": 1}]}}, ["data.loa: must be a list of values"]),
        # Seen: these loaded "successfully", then F5 was refused with no field marked.
        ({"data": {"termReasonTxt": "x", "costCentre1": "y"}},
         ["data.termReasonTxt: is not a field of this record",
          "data.costCentre1: is not a field of this record"]),
        ({"bogus": 1, "tlq": {"juris": "Texas"}}, ["bogus: is not a field of this record"]),
        # Seen: a number loaded as text; the CLI refuses it, in these words.
        ({"data": {"firstName": 5, "loa": ["Life", 1]}},
         ["data.firstName: must be text", "data.loa[1]: must be text"]),
    ],
)  # fmt: skip
def test_a_misfit_is_named_by_its_path(draft, problems):
    assert misfits(Order, draft, closed=FILING) == problems


def test_what_a_form_can_show_is_no_misfit():
    """Wrong values the form shows in their field, marked: a bad state code, a lone value
    for a list, a code that is none of an open choice's; and whatever the draft leaves out."""
    draft = {"tlq": {"pType": "A", "fType": "T", "juris": "Texas", "lType": 5},
             "data": {"loa": "Life", "firstName": "x" * 81}}  # fmt: skip
    assert misfits(Order, draft, closed=FILING) == []
    assert misfits(Order, {}, closed=FILING) == []


def test_an_open_choice_is_no_misfit():
    """Only the closed paths must hold one of their choices: another choice field shows a
    wrong code and says so."""
    assert misfits(Order, {"tlq": {"pType": "Z"}}) == []


def test_a_lone_value_of_a_list_field_is_shown_whole():
    """Seen: a draft holding "loa": "10" filled the field with "1, 0"."""
    spec = FieldSpec("data.loa", "loa", "list", False)
    assert to_text(spec, "10") == "10"
    assert to_text(spec, ["Life", "Casualty"]) == "Life, Casualty"


def test_a_profiles_dates_and_tax_ids_say_their_shape_in_the_empty_field():
    # QA: DateOfBirth said its format (an ISO date-time) only after a wrong entry; Ssn and
    # Tin said nothing.
    from tui_app.contract.profile import AgencyRecord, AgentRecord
    from tui_app.ui.fields import describe, flatten

    hints = {f.path: f.hint for m in (AgentRecord, AgencyRecord) for f in flatten(describe(m))}
    assert hints["Demographic.DateOfBirth"] == "a date-time: 2024-05-31T00:00:00"
    assert hints["Ssn"] == hints["Tin"] == "usually 9 digits"
