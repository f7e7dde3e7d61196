"""JSON bodies of the contract models: the spec's field names, nulls left out."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import from_json

from tui_app.wire.errors import WireError

M = TypeVar("M", bound=BaseModel)

MAX_VALUES = 100_000
"""A JSON text with more commas than this (roughly, values) is refused before it is
parsed: 16 MiB of ``[0,0,0,…]`` would otherwise become millions of Python objects. The
contract's largest documents hold a few thousand values; commas inside strings count too,
which only a text of 100,000 commas in its strings could notice."""


def too_many_values(data: bytes | str) -> str | None:
    """Why ``data`` is refused for its size in values, or None (a C-speed count)."""
    count = data.count(b",") if isinstance(data, bytes) else data.count(",")
    if count >= MAX_VALUES:
        return f"JSON documents of more than {MAX_VALUES:,} values are refused"
    return None


def dump_json(model: BaseModel) -> bytes:
    """``model`` as compact UTF-8 JSON keyed by field name, without ``None`` values."""
    return model.model_dump_json(by_alias=False, exclude_none=True).encode("utf-8")


def load_json(data: bytes | str, model_cls: type[M], *, context: dict[str, Any] | None = None) -> M:
    """Parse and validate ``data`` as ``model_cls``.

    Text that is not JSON raises :class:`WireError` with the position; JSON that breaks the
    contract raises pydantic's ``ValidationError``. More than :data:`MAX_VALUES` values
    raise :class:`WireError` before parsing.
    """
    if problem := too_many_values(data):
        raise WireError(problem)
    try:
        return model_cls.model_validate_json(data, context=context)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        if first["type"] == "json_invalid":  # parsing failed, so it is the only error
            raise WireError(f"not valid JSON: {first['ctx']['error']}") from None
        raise


def load_json_value(data: bytes | str) -> Any:
    """Any JSON value, parsed without a model (for error bodies and the like). Text that is
    not JSON, or nests deeper than about 200 levels, raises :class:`WireError`: the parser
    (pydantic-core's) never recurses without bound, so no body can overflow the stack.
    More than :data:`MAX_VALUES` values raise it too."""
    if problem := too_many_values(data):
        raise WireError(problem)
    try:
        return from_json(data)
    except ValueError as exc:
        raise WireError(f"not valid JSON: {exc}") from None
