"""A field's docstring is its description, read only when asked for (tui_app.field_docs)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from tui_app.config import Auth, Environment
from tui_app.contract.order import OrderData
from tui_app.field_docs import docs_into_json_schema, field_doc


class Base(BaseModel):
    kind: str = "x"
    """What it is."""

    plain: int = 0

    def method(self) -> None:
        """A method's docstring documents no field."""

    after_method: int = 1


class Child(Base):
    model_config = ConfigDict(json_schema_extra=docs_into_json_schema)

    code: str = Field("A", alias="Code")
    """A = agent, F = firm."""

    kind: str = "y"
    """What the child is."""

    given: str = Field("", description="said in Field")
    """Not this one."""

    class Inner(BaseModel):
        depth: int = 0
        """How deep."""


def test_the_string_under_a_field_is_its_description() -> None:
    assert field_doc(Base, "kind") == "What it is."
    assert field_doc(Child.Inner, "depth") == "How deep."  # a nested class, by its qualname


def test_a_field_without_its_own_string_has_none() -> None:
    assert field_doc(Base, "plain") is None
    assert field_doc(Base, "after_method") is None  # a string inside a method is not under it
    assert field_doc(Base, "no_such_field") is None


def test_a_subclass_reads_its_own_string_first_then_its_bases() -> None:
    assert field_doc(Child, "kind") == "What the child is."
    assert field_doc(Child, "plain") is None
    assert field_doc(Child, "code") == "A = agent, F = firm."


def test_a_description_given_in_field_wins() -> None:
    assert field_doc(Child, "given") == "said in Field"


def test_a_model_without_source_has_no_descriptions() -> None:
    made = type("Made", (BaseModel,), {"__annotations__": {"x": int}, "__module__": "nowhere"})
    assert field_doc(made, "x") is None


def test_the_json_schema_carries_the_docstrings_under_their_aliases() -> None:
    properties = Child.model_json_schema()["properties"]
    assert properties["Code"]["description"] == "A = agent, F = firm."
    assert properties["given"]["description"] == "said in Field"
    assert "description" not in properties["plain"]


def test_the_contract_and_the_config_are_documented_by_their_docstrings() -> None:
    assert field_doc(OrderData, "taxId") == "Applicant's SSN or FEIN."
    assert field_doc(Auth, "token_env") == (
        "bearer: name of the environment variable holding the token."
    )
    assert field_doc(Environment, "timeout") == "Seconds to wait for a response."
    schema = OrderData.model_json_schema()["properties"]
    assert schema["taxId"]["description"] == "Applicant's SSN or FEIN."


def test_only_the_modules_that_declare_a_field_are_read(monkeypatch) -> None:
    """An undocumented field costs no parse of pydantic's own modules (15 ms for
    pydantic.main), which declare none of ours."""
    import tui_app.field_docs as field_docs

    read: list[str] = []
    module_docs = field_docs._module_docs
    monkeypatch.setattr(
        field_docs, "_module_docs", lambda name: read.append(name) or module_docs(name)
    )
    assert field_doc(Child, "plain") is None
    assert read == [__name__]
