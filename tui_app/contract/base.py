"""Building blocks shared by every contract model.

Field names in the models are the spec's own names (``SearchType``, ``clientOrderNum``,
``StreetAddress1``) so that a model reads like the spec's table. Bounds are declared once,
with :class:`Bounds`, which both validates (with a plain-language message) and publishes the
bound for JSON Schema and for the generated forms.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, ClassVar, Self

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    model_validator,
)
from pydantic_core import PydanticCustomError, core_schema

from tui_app.field_docs import docs_into_json_schema

DIGITS = r"[0-9]+"


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


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
        if self.min_len and not value:
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
        if self.pattern and value and not _compiled(self.pattern).fullmatch(value):
            raise PydanticCustomError("pattern", "must contain {means}", {"means": self.means})
        return value

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> core_schema.CoreSchema:
        schema = handler(source)
        exact = self.max_len is not None and self.min_len == self.max_len
        if not exact and not self.pattern and schema.get("type") == "str":
            # Length only: pydantic-core checks it, with no Python call per value (a bulk
            # record has dozens of such fields); errors.field_errors words its errors as
            # check() would.
            if self.min_len:
                schema = {**schema, "min_length": self.min_len}
            if self.max_len is not None:
                schema = {**schema, "max_length": self.max_len}
            return schema
        return core_schema.no_info_after_validator_function(self.check, schema)

    def __get_pydantic_json_schema__(self, schema: Any, handler: Any) -> dict[str, Any]:
        out = handler(schema)
        if self.min_len:
            out["minLength"] = self.min_len
        if self.max_len is not None:
            out["maxLength"] = self.max_len
        if self.pattern:
            out["pattern"] = f"^{self.pattern}$"
        return out


@dataclass(frozen=True)
class Choices:
    """The codes a field takes, with their words, where its type cannot say so (a number
    from a fixed set): forms offer them as a picker, as they do a ``Literal``."""

    words: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Shape:
    """What a field's value looks like, in words, where its type has no bounds to say it
    (a form shows it in the empty field): ``Shape("2 letters, such as CA")``."""

    words: str


@dataclass(frozen=True)
class Habit:
    """A habit of ours beyond the spec, attached to a field: never a refusal, only a
    warning shown on the field (``ok`` is false for a value that breaks the habit).

    The spec blocks a request only by the rules it states; what we merely expect (9-digit
    SSNs, a known state code, a ZIP pattern) is said by :func:`warnings`.
    """

    ok: Callable[[Any], bool]
    message: str


NINE_DIGITS = Habit(
    lambda v: not isinstance(v, str) or (len(v) == 9 and v.isdigit()),
    "is usually 9 digits; it is sent as typed and the service decides",
)
"""An SSN or TIN: the spec says only "string" (a search's Ssn: up to 12 digits)."""


def text(
    max_len: int | None = None,
    min_len: int = 0,
    *,
    pattern: str | None = None,
    means: str | None = None,
) -> Bounds:
    """The bounds of a string field, to annotate it: ``Annotated[str, text(80)] | None``."""
    return Bounds(min_len, max_len, pattern, means)


def digits(max_len: int | None = None, min_len: int = 0) -> Bounds:
    return text(max_len, min_len, pattern=DIGITS, means="digits only")


Required = Annotated[str, text(min_len=1)]
"""A required string: present and not empty (spec convention 2). Whitespace-only text
is not refused (the spec says "non-empty"); :func:`warnings` mentions it."""


def _not_blank(value: Any) -> bool:
    return not isinstance(value, str) or value == "" or bool(value.strip())


BLANK = Habit(_not_blank, "holds only spaces; the service may treat it as empty")


XML_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"""Characters XML 1.0 cannot carry: a value holding one can be sent as JSON but never
read back as XML, so forms flag it (the sandbox refuses it with a 400 naming the field).
Control characters but tab, new line and return; surrogates; U+FFFE and U+FFFF. (Written
as the complement of what XML allows, the class took 5 ms to compile, at every start.)"""

_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")


def is_iso_datetime(value: Any) -> bool:
    if not isinstance(value, str):
        return True
    try:
        if not _DATE_TIME.match(value):
            return False
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _check_iso_datetime(value: Any, info: ValidationInfo) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    # The spec makes bulk date-times ISO 8601 (convention 3) but says only "Dates in the
    # XML are strings": in an XML document any text passes, with a warning.
    xml = (info.context or {}).get("format") == "xml"
    if isinstance(value, str) and not xml and not is_iso_datetime(value):
        raise PydanticCustomError(
            "datetime", "must be an ISO 8601 date-time such as 2024-05-31T00:00:00"
        )
    return value


ISO_HABIT = Habit(is_iso_datetime, "is not an ISO 8601 date-time such as 2024-05-31T00:00:00")

IsoDateTime = Annotated[
    str, BeforeValidator(_check_iso_datetime), ISO_HABIT, Shape("a date-time: 2024-05-31T00:00:00")
]
"""A date-time kept as the text it arrived as, so that round trips lose nothing: ISO 8601
in bulk records (the spec's date-time), any text in XML documents (with a warning)."""


def _refuse_bool(value: Any) -> Any:
    # JSON true would otherwise pass as 1 through pydantic's lax int.
    if isinstance(value, bool):
        raise PydanticCustomError("int_type", "must be a whole number")
    return value


def _positive(value: object) -> bool:
    """Whether an NPN as sent (a number, or the text of one) is positive; what is no
    number is the type check's to say."""
    try:
        return int(value) > 0  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return True


NpnNumber = Annotated[
    int,
    BeforeValidator(_refuse_bool),
    Field(ge=-(2**31), le=2**31 - 1),
    Habit(_positive, "an NPN is a positive number"),
]
"""A national producer number: an int32 (the spec's bound); not positive only warns."""


def rule_error(fields: list[str] | tuple[str, ...], each: str) -> PydanticCustomError:
    """A cross-field rule's failure, reported by :func:`field_errors` on every field named."""
    return PydanticCustomError(
        "rule", "{fields}: {each}", {"fields": ",".join(fields), "each": each}
    )


class ContractModel(BaseModel):
    """Base of request bodies and records: unknown fields are refused, so a misspelt key
    is reported instead of silently dropped."""

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
        validate_default=False,
        json_schema_extra=docs_into_json_schema,
    )

    json_rules: ClassVar[bool] = False
    """Whether :meth:`enforce_format` has rules for JSON too (most models' are XML's)."""

    @model_validator(mode="after")
    def _format_rules(self, info: ValidationInfo) -> Self:
        # The one Python call of a model's validation, with the rules of every level in
        # it: a bulk record makes it for each of its sections, 100,000 records a job.
        if info.context is not None and info.context.get("format") == "xml":
            self.enforce_format(xml=True)
        elif self.json_rules:
            self.enforce_format(xml=False)
        return self

    def enforce_format(self, xml: bool) -> None:
        """Raise the rule errors of the format the model is bound for: ``xml`` for an XML
        document (an import; a request to an environment that speaks XML), else JSON.
        Subclasses add their own rules after these."""
        if not xml:
            return
        # A value XML cannot carry is refused here, naming its field, not found while
        # the document is written (that ended the app). In JSON it only warns.
        for name in type(self).model_fields:
            value = getattr(self, name)
            for text in value if isinstance(value, list) else [value]:
                if isinstance(text, str) and (bad := XML_UNSAFE.search(text)):
                    raise rule_error(
                        [name], f"holds a character XML cannot carry ({bad.group()!r})"
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
    """Base of response bodies, read tolerantly (ARCHITECTURE.md, "Talking to a service we
    have never seen"): unknown members are kept (``model_extra``, shown by the screens), a
    member the spec does not define is optional, ``null`` where we default to a value
    (``[]``, ``0``, ``False``) means that default, and a lone value where we expect a list
    is a list of one."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    _repairs: ClassVar[tuple[tuple[str, bool], ...]] = ()
    """(key, whether a lone value becomes a list) of each member whose ``null`` means its
    default: worked out once per model, as a status poll reads a hundred items."""

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        repairs = []
        for name, info in cls.model_fields.items():
            if not info.is_required() and info.default is not None:
                wrap = isinstance(info.default, list)
                repairs += [(key, wrap) for key in dict.fromkeys((name, info.alias)) if key]
        cls._repairs = tuple(repairs)

    @model_validator(mode="before")
    @classmethod
    def _tolerate(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        out: dict[str, Any] | None = None
        for key, wrap in cls._repairs:
            if key not in data:
                continue
            value = data[key]
            if value is None:
                out = out if out is not None else dict(data)
                del out[key]
            elif wrap and not isinstance(value, list):
                out = out if out is not None else dict(data)
                out[key] = [value]
        return data if out is None else out

    def unknown(self) -> dict[str, Any]:
        """Members no model field names, as the service sent them."""
        return dict(self.model_extra or {})


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

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls.json_rules = bool(cls.bulk_only_required)

    def enforce_format(self, xml: bool) -> None:
        super().enforce_format(xml)
        if xml:
            present = sorted(n for n in self.xml_omits if getattr(self, n) is not None)
            if present:
                raise rule_error(present, "is not part of the XML document")
        elif self.bulk_only_required:
            missing = sorted(n for n in self.bulk_only_required if not getattr(self, n))
            if missing:
                raise rule_error(missing, "is required")


# --- warnings: our habits beyond the spec ---------------------------------------------------


def _unwrap(annotation: Any) -> tuple[Any, list[Any]]:
    """(core type, metadata) of an annotation such as ``Annotated[str, text(80)] | None``."""
    import types
    import typing

    meta: list[Any] = []
    while True:
        origin = typing.get_origin(annotation)
        if origin is Annotated:
            annotation, *extra = typing.get_args(annotation)
            meta.extend(extra)
        elif origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(args) != 1:
                return annotation, meta
            annotation = args[0]
        else:
            return annotation, meta


@functools.cache
def _hints(model: type[BaseModel]) -> dict[str, Any]:
    import typing

    return typing.get_type_hints(model, include_extras=True)


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def warnings(
    model: type[BaseModel], data: Any, context: dict | None = None, prefix: str = ""
) -> list[tuple[str, str]]:
    """What a request breaks of our habits, as (field path, message) pairs: warnings
    shown on the field, never a refusal. ``data`` is raw (a dict, as a form or a file
    gives it) or a model; fields of the wrong type are left to validation."""
    import typing

    if isinstance(data, BaseModel):
        data = data.model_dump(by_alias=False)
    if not isinstance(data, Mapping):
        return []
    found: list[tuple[str, str]] = []
    hints = _hints(model)
    for name, info in model.model_fields.items():
        value = data.get(name)
        if value is None and info.alias:
            value = data.get(info.alias)
        if value is None:
            continue
        path = _join(prefix, name)
        core, meta = _unwrap(hints[name])
        items: list[tuple[str, Any]] = [(path, value)]
        if typing.get_origin(core) is list and isinstance(value, list):
            core, item_meta = _unwrap(typing.get_args(core)[0])
            meta = item_meta
            items = [(f"{path}[{i}]", v) for i, v in enumerate(value)]
        for where, each in items:
            if isinstance(core, type) and issubclass(core, BaseModel):
                found += warnings(core, each, context, where)
                continue
            for habit in meta:
                if isinstance(habit, Habit) and not habit.ok(each):
                    found.append((where, habit.message))
            if (
                isinstance(each, str)
                and any(isinstance(m, Bounds) and m.min_len for m in meta)
                and not _not_blank(each)
            ):
                found.append((where, BLANK.message))
            if isinstance(each, str) and (bad := XML_UNSAFE.search(each)):
                found.append((where, f"holds a character XML cannot carry ({bad.group()!r}); "
                                     "the service may refuse it"))  # fmt: skip
    extra = getattr(model, "habit_warnings", None)
    if extra is not None:
        found += [(_join(prefix, p), m) for p, m in extra(data, context)]
    return found
