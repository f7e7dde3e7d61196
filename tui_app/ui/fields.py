"""What a form needs to know about a contract model's fields, read from the model itself.

No bound is copied here: lengths and patterns come from the fields' ``Bounds``, choices from
their ``Literal`` or enum types, nesting from nested models. This module has no Textual
import, so it is tested on its own.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from tui_app.contract.base import Bounds, Choices, Shape
from tui_app.contract.errors import FieldError, field_errors
from tui_app.field_docs import field_doc


@dataclass(frozen=True)
class FieldSpec:
    """One input of a form."""

    path: str
    """Dotted path in the model, e.g. ``tlq.juris``."""
    name: str
    kind: Literal["text", "int", "choice", "list"]
    required: bool
    choices: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    """Words for each choice, from the field's description (``I = individual``)."""
    hint: str = ""
    """The field's bounds in words, e.g. ``1 to 20 characters, letters and digits only``."""


@dataclass(frozen=True)
class GroupSpec:
    """A nested object: a collapsible group of inputs."""

    path: str
    name: str
    children: tuple[FieldSpec | GroupSpec, ...] = field(default_factory=tuple)


def _unwrap(annotation: Any) -> tuple[Any, list[Any], bool]:
    """(core type, metadata, nullable) of an annotation such as ``Annotated[str, text(80)] | None``."""
    meta: list[Any] = []
    nullable = False
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation, *extra = get_args(annotation)
            meta.extend(extra)
        elif origin in (Union, types.UnionType):
            args = [a for a in get_args(annotation) if a is not type(None)]
            nullable = nullable or len(args) < len(get_args(annotation))
            if len(args) != 1:
                return annotation, meta, nullable
            annotation = args[0]
        else:
            return annotation, meta, nullable


def _hint(bounds: Bounds | None, kind: str) -> str:
    if kind == "int":
        return "a whole number"
    if bounds is None:
        return ""
    means = bounds.means or ""
    if means.startswith("exactly "):  # says it all ("exactly 9 digits")
        return means
    lo, hi, unit = bounds.min_len, bounds.max_len, "characters"
    if means.endswith(" only"):  # the unit, "only" understood: "up to 20 letters and digits"
        unit, means = means.removesuffix(" only"), ""  # (the longer hint was cut on screen)
    if hi is None:
        size = f"at least {lo} {unit}" if lo > 1 else ""
    elif lo == hi:
        size = f"exactly {hi} {unit}"
    elif lo > 1:
        size = f"{lo} to {hi} {unit}"
    else:
        size = f"up to {hi} {unit}"
    return ", ".join(p for p in (size, means) if p)


def _labels(choices: tuple[str, ...], description: str | None) -> tuple[str, ...]:
    """``("I", "A")`` with "I = individual, A = agency" -> ``("I — individual", ...)``."""
    words = {"Y": "yes", "N": "no"} | dict(re.findall(r"\b(\w+) = ([^,.;]+)", description or ""))
    return tuple(f"{c} — {words[c].strip()}" if c in words else c for c in choices)


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


MORE = "more"
"""Name of the group holding the fields a layout does not put first."""


def describe(
    model: type[BaseModel],
    names: Iterable[str] | None = None,
    prefix: str = "",
    required: Iterable[str] = (),
    layout: Mapping[str, Sequence[str]] | None = None,
    exclude: frozenset[str] = frozenset(),
) -> tuple[FieldSpec | GroupSpec, ...]:
    """The form layout of ``model``: its fields (or ``names``, in that order) as specs.

    ``required`` marks fields the model requires only conditionally (e.g. per SearchType).
    ``layout`` maps a group's path (``""`` for the top) to the fields to show first; the
    group's other fields follow in a collapsed "more fields" group, still reachable.
    ``exclude`` names paths that get no input (their value is set elsewhere).
    Free-form objects (``DynamicData``) and lists of objects have no input here; a form
    keeps their values from the record it was loaded with.
    """
    layout = layout or {}
    first = layout.get(prefix.rstrip("."))
    if first is not None and names is None:
        rest = [n for n in model.model_fields if n not in first]
        shown = describe(model, first, prefix, required, layout, exclude)
        hidden = describe(model, rest, prefix, required, layout, exclude)
        return (*shown, GroupSpec(f"{prefix}{MORE}", "more fields", hidden)) if hidden else shown
    hints = typing.get_type_hints(model, include_extras=True)
    extra_required = set(required)
    specs: list[FieldSpec | GroupSpec] = []
    for name in names or model.model_fields:
        info = model.model_fields[name]
        path = f"{prefix}{name}"
        if path in exclude:
            continue
        core, meta, nullable = _unwrap(hints[name])
        bounds = next((m for m in meta if isinstance(m, Bounds)), None)
        is_required = info.is_required() or path in extra_required or name in extra_required
        if _is_model(core):
            children = describe(
                core, prefix=f"{path}.", required=required, layout=layout, exclude=exclude
            )
            specs.append(GroupSpec(path, name, children))
            continue
        origin = get_origin(core)
        codes = next((m for m in meta if isinstance(m, Choices)), None)
        if codes is not None:
            choices = tuple(code for code, _ in codes.words)
            labels = tuple(f"{code} — {words}" for code, words in codes.words)
            specs.append(FieldSpec(path, name, "choice", is_required, choices, labels))
        elif origin is list:
            item, item_meta, _ = _unwrap(get_args(core)[0])
            if _is_model(item):
                continue
            item_bounds = next((m for m in item_meta if isinstance(m, Bounds)), None)
            hint = "comma-separated" + (
                f"; each {_hint(item_bounds, 'text')}" if item_bounds else ""
            )
            specs.append(FieldSpec(path, name, "list", is_required, hint=hint))
        elif origin is Literal:
            choices = tuple(str(a) for a in get_args(core))
            labels = _labels(choices, field_doc(model, name))
            specs.append(FieldSpec(path, name, "choice", is_required, choices, labels))
        elif isinstance(core, type) and issubclass(core, Enum):
            specs.append(
                FieldSpec(path, name, "choice", is_required, tuple(str(m.value) for m in core))
            )
        elif core is int:
            specs.append(FieldSpec(path, name, "int", is_required, hint=_hint(None, "int")))
        elif core is str:
            shape = next((m.words for m in meta if isinstance(m, Shape)), "")
            hint = _hint(bounds, "text") or shape
            specs.append(FieldSpec(path, name, "text", is_required, hint=hint))
        # dict (DynamicData) and other shapes have no input: kept from the loaded record.
    return tuple(specs)


def flatten(specs: Iterable[FieldSpec | GroupSpec]) -> list[FieldSpec]:
    out: list[FieldSpec] = []
    for spec in specs:
        out.extend(flatten(spec.children) if isinstance(spec, GroupSpec) else [spec])
    return out


def groups(specs: Iterable[FieldSpec | GroupSpec]) -> list[GroupSpec]:
    """Every group of ``specs``, outer before inner."""
    out: list[GroupSpec] = []
    for spec in specs:
        if isinstance(spec, GroupSpec):
            out += [spec, *groups(spec.children)]
    return out


# --- values <-> model ----------------------------------------------------------------------


def to_text(spec: FieldSpec, value: Any) -> str:
    if value is None:
        return ""
    if spec.kind == "list" and isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value.value if isinstance(value, Enum) else value)


_VALUE = (str, int, float)


UNSHOWABLE = frozenset({"extra_forbidden", "string_type"})
"""Errors of the contract no form can show: a member that is no field has no input, and a
number or true where text belongs would silently become text in one."""


def misfits(
    model: type[BaseModel], data: Mapping[str, Any], closed: Iterable[str] = ()
) -> list[str]:
    """Where ``data`` (a file written by hand, say) has not the shape of ``model``'s form:
    an object or list where one value belongs, a value where an object does, a value of a
    ``closed`` path (one chosen outside the form) that is none of its choices, and the
    contract's :data:`UNSHOWABLE` errors, in the words the CLI uses. A form shows any other
    wrong value in its field and says what is wrong there; these it could only show by
    losing or inventing something. One line a path, naming it."""
    closed = set(closed)
    problems: dict[str, str] = {}
    for spec in flatten(describe(model)):
        parts = spec.path.split(".")
        node: Any = data
        for depth, part in enumerate(parts):
            if node is None:
                break
            if not isinstance(node, Mapping):
                where = ".".join(parts[:depth])
                problems.setdefault(where, f"{where}: must be an object, not {_shape(node)}")
                break
            node = node.get(part)
        else:
            problem = _misfit(spec, node, spec.path in closed)
            if problem:
                problems.setdefault(spec.path, f"{spec.path}: {problem}")
    try:
        model.model_validate(data)
    except ValidationError as exc:
        for err in field_errors(exc, only=UNSHOWABLE):
            # Inside a path named already (a list where a value belongs), it says no more.
            if not any(err.path == p or err.path.startswith((f"{p}.", f"{p}[")) for p in problems):
                problems[err.path] = str(err)
    return list(problems.values())


def _misfit(spec: FieldSpec, value: Any, closed: bool) -> str:
    if value is None:
        return ""
    if spec.kind == "list":  # a lone value stands for a list of one, as the contract reads it
        items = value if isinstance(value, list) else [value]
        return "" if all(isinstance(v, _VALUE) for v in items) else "must be a list of values"
    if not isinstance(value, _VALUE):
        return f"must be one value, not {_shape(value)}"
    if closed and str(value) not in spec.choices:
        return f"{value!r} is not one of {', '.join(spec.choices)}"
    return ""


def _shape(value: Any) -> str:
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return repr(value)


def from_text(spec: FieldSpec, text: str) -> Any:
    """An input's text as the value the model expects; ``None`` for an empty input, so an
    optional field left blank is absent rather than an empty string."""
    if text == "":
        return None
    if spec.kind == "list":
        return [part.strip() for part in text.split(",") if part.strip()] or None
    return text


def get_path(data: Mapping[str, Any], path: str) -> Any:
    node: Any = data
    for part in path.split("."):
        if not isinstance(node, Mapping):
            return None
        node = node.get(part)
    return node


def set_path(data: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    node = data
    for part in parents:
        node = node.setdefault(part, {})
    if value is None:
        node.pop(last, None)
    else:
        node[last] = value


def prune(data: dict[str, Any]) -> dict[str, Any]:
    """Drop nested objects left empty, so an untouched group does not become ``{}``."""
    out = {}
    for key, value in data.items():
        if isinstance(value, dict):
            value = prune(value)
            if not value:
                continue
        out[key] = value
    return out


M = TypeVar("M", bound=BaseModel)


def check(
    model: type[M], data: Mapping[str, Any], context: dict | None = None
) -> tuple[M | None, list[FieldError]]:
    """Validate form data against the model: the model, or the errors by field path."""
    try:
        return model.model_validate(data, context=context), []
    except ValidationError as exc:
        errors = field_errors(exc)
    rules = getattr(model, "rule_errors", None)
    for path, message in rules(data) if rules else ():
        found = FieldError(path, message)
        if found not in errors:
            errors.append(found)
    return None, errors
