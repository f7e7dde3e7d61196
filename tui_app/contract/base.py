"""Building blocks shared by every contract model.

Field names in the models are the spec's own names (``SearchType``, ``clientOrderNum``,
``StreetAddress1``) so that a model reads like the spec's table. Bounds are declared once,
with :class:`Bounds`, which both validates (with a plain-language message) and publishes the
bound for JSON Schema and for the generated forms.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, ClassVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    model_validator,
)
from pydantic_core import PydanticCustomError, core_schema

DIGITS = r"[0-9]+"


@dataclass(frozen=True)
class Bounds:
    """Length and pattern bounds of a string field, with the pattern said in words.

    ``min_len`` of 1 or more makes the field required in the spec's sense: present and
    not empty. The check raises one plain message per failure, e.g. "must be exactly 2
    characters" or "must contain digits only".
    """

    min_len: int = 0
    max_len: int | None = None
    pattern: str | None = None
    means: str | None = None  # the pattern in words, e.g. "digits only"

    def check(self, value: str) -> str:
        n = len(value)
        if self.min_len and not value.strip():
            raise PydanticCustomError("required", "is required")
        if self.max_len is not None and self.min_len == self.max_len and n != self.max_len:
            raise PydanticCustomError(
                "length", "must be exactly {n} characters, not {got}", {"n": self.max_len, "got": n}
            )
        if n < self.min_len:
            raise PydanticCustomError(
                "length",
                "must be at least {n} characters, not {got}",
                {"n": self.min_len, "got": n},
            )
        if self.max_len is not None and n > self.max_len:
            raise PydanticCustomError(
                "length", "must be at most {n} characters, not {got}", {"n": self.max_len, "got": n}
            )
        if self.pattern and value and not re.fullmatch(self.pattern, value):
            raise PydanticCustomError("pattern", "must contain {means}", {"means": self.means})
        return value

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(self.check, handler(source))

    def __get_pydantic_json_schema__(self, schema: Any, handler: Any) -> dict[str, Any]:
        out = handler(schema)
        if self.min_len:
            out["minLength"] = self.min_len
        if self.max_len is not None:
            out["maxLength"] = self.max_len
        if self.pattern:
            out["pattern"] = f"^{self.pattern}$"
        return out


def text(
    max_len: int | None = None,
    min_len: int = 0,
    *,
    pattern: str | None = None,
    means: str | None = None,
) -> Any:
    """A string type with the given bounds (use ``text(...) | None`` for nullable)."""
    return Annotated[str, Bounds(min_len, max_len, pattern, means)]


def digits(max_len: int | None = None, min_len: int = 0) -> Any:
    return text(max_len, min_len, pattern=DIGITS, means="digits only")


Required = text(min_len=1)
"""A required string: present and not empty (spec convention 2)."""


_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")


def _check_iso_datetime(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, str):
        try:
            if not _DATE_TIME.match(value):
                raise ValueError
            datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise PydanticCustomError(
                "datetime", "must be an ISO 8601 date-time such as 2024-05-31T00:00:00"
            ) from None
    return value


IsoDateTime = Annotated[str, BeforeValidator(_check_iso_datetime)]
"""A date-time kept as the ISO 8601 text it arrived as, so that round trips lose nothing."""

def _refuse_bool(value: Any) -> Any:
    # JSON true would otherwise pass as 1 through pydantic's lax int.
    if isinstance(value, bool):
        raise PydanticCustomError("int_type", "must be a whole number")
    return value


NpnNumber = Annotated[int, BeforeValidator(_refuse_bool), Field(gt=0, le=2**31 - 1)]
"""A national producer number: a positive int32."""


def rule_error(fields: list[str] | tuple[str, ...], each: str) -> PydanticCustomError:
    """A cross-field rule's failure, reported by :func:`field_errors` on every field named."""
    return PydanticCustomError(
        "rule", "{fields}: {each}", {"fields": ",".join(fields), "each": each}
    )


class ContractModel(BaseModel):
    """Base of request bodies and records: unknown fields are refused, so a misspelt key
    is reported instead of silently dropped."""

    model_config = ConfigDict(
        extra="forbid", populate_by_name=True, validate_default=False,
        use_attribute_docstrings=True,
    )

    @classmethod
    def rule_errors(cls, data: Mapping[str, Any]) -> list[tuple[str, str]]:
        """The model's cross-field rules checked on raw data, as (field, message) pairs.

        Pydantic runs a model's own validators only once every field is valid; a form
        calls this too, so a rule's message shows while another field is still wrong.
        Models with rules override it and enforce it with :func:`enforce_rules`."""
        return []


def enforce_rules(model: ContractModel) -> None:
    """Raise the model's rule errors, for its ``model_validator``. All errors of one
    rule share its message."""
    errors = model.rule_errors(model.model_dump(by_alias=False))
    if errors:
        raise rule_error([path for path, _ in errors], errors[0][1])


class ResponseModel(BaseModel):
    """Base of response bodies: unknown fields are kept (a newer server must not break us)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)


def lower_first(name: str) -> str:
    """Bulk NDJSON spelling of a spec field name: ``ProfileKey`` -> ``profileKey``."""
    return name[:1].lower() + name[1:]


class RecordModel(ContractModel):
    """A profile record section. Python field names are the PascalCase XML/schema names;
    the camelCase bulk names are accepted too and are what ``by_alias=True`` writes.

    Sections whose XML form differs from the bulk form list the differences here, and
    validation applies them when ``context={"format": "xml"}`` is passed:

    - ``xml_omits``: fields the XML document does not carry (refused there);
    - ``bulk_only_required``: fields required in bulk that the XML omits.
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
        alias_generator=lower_first,
        serialize_by_alias=False,
        loc_by_alias=False,
    )

    xml_omits: ClassVar[frozenset[str]] = frozenset()
    bulk_only_required: ClassVar[frozenset[str]] = frozenset()

    @model_validator(mode="after")
    def _format_rules(self, info: ValidationInfo) -> RecordModel:
        xml = (info.context or {}).get("format") == "xml"
        if xml:
            present = sorted(n for n in self.xml_omits if getattr(self, n) is not None)
            if present:
                raise rule_error(present, "is not part of the XML document")
        else:
            missing = sorted(n for n in self.bulk_only_required if not getattr(self, n))
            if missing:
                raise rule_error(missing, "is required")
        return self
