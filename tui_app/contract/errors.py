"""Validation errors as a path to the field and a plain message.

``tlq.juris: must be exactly 2 characters`` is what a user sees, in a form, in a CLI
report and in the sandbox's 400 body alike.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError


@dataclass(frozen=True)
class FieldError:
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path, "message": self.message}


def _plain(err: dict[str, Any]) -> str:
    kind, ctx = err["type"], err.get("ctx") or {}
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return "is not a field of this record"
    if kind in ("literal_error", "enum"):
        expected = str(ctx.get("expected", "")).replace("'", "")
        return f"must be one of {expected}"
    if kind in ("int_parsing", "int_type", "int_from_float"):
        return "must be a whole number"
    if kind in ("bool_parsing", "bool_type"):
        return "must be true or false"
    if kind == "greater_than":
        return f"must be greater than {ctx['gt']}"
    if kind == "greater_than_equal":
        return f"must be at least {ctx['ge']}"
    if kind == "less_than":
        return f"must be less than {ctx['lt']}"
    if kind == "less_than_equal":
        return f"must be at most {ctx['le']}"
    if kind in ("string_type", "model_type", "model_attributes_type", "dict_type", "list_type"):
        wanted = {"string_type": "text", "list_type": "a list"}.get(kind, "an object")
        return f"must be {wanted}"
    if kind == "uuid_parsing" or kind == "uuid_type":
        return "must be a GUID such as 3f2504e0-4f89-11d3-9a0c-0305e82c3301"
    if kind == "value_error":
        return str(ctx.get("error", err["msg"]))
    if kind in ("string_too_short", "string_too_long"):  # a Bounds checked natively
        got = len(err["input"]) if isinstance(err.get("input"), str) else 0
        if kind == "string_too_long":
            return f"must be at most {ctx['max_length']} characters, not {got}"
        return (
            f"must be at least {ctx['min_length']} characters, not {got}" if got else "is required"
        )
    return err["msg"]


def _join(loc: Iterable[Any]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def field_errors(
    exc: ValidationError, prefix: str = "", only: Collection[str] | None = None
) -> list[FieldError]:
    """Flatten a pydantic error into one :class:`FieldError` per failing field.

    A cross-field rule (see :func:`tui_app.contract.base.rule_error`) becomes one error on
    each field it names, so a form can show it beside every one of them. ``only``: just
    the errors of these pydantic types (``extra_forbidden``, say).
    """
    found: list[FieldError] = []
    for err in exc.errors(include_url=False):
        if only is not None and err["type"] not in only:
            continue
        loc = [p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-"))]
        base = _join(([prefix] if prefix else []) + loc)
        if err["type"] == "rule":
            ctx = err["ctx"]
            for name in ctx["fields"].split(","):
                found.append(FieldError(f"{base}.{name}" if base else name, ctx["each"]))
        else:
            found.append(FieldError(base, _plain(dict(err))))
    return found


class ContractError(ValueError):
    """A body that does not satisfy the contract, with every failing field."""

    def __init__(self, errors: list[FieldError], what: str = "request") -> None:
        self.errors = errors
        super().__init__(f"invalid {what}: " + "; ".join(map(str, errors)))

    @classmethod
    def from_validation(cls, exc: ValidationError, what: str = "request") -> ContractError:
        return cls(field_errors(exc), what)


def parse_validations(text: str | None) -> list[FieldError]:
    """An import's Validations text, one ``path: message`` per line, as field errors (a
    line without a path becomes an error of the whole profile)."""
    errors = []
    for line in filter(None, (raw.strip() for raw in (text or "").splitlines())):
        path, sep, message = line.partition(": ")
        errors.append(
            FieldError(path, message) if sep and " " not in path else FieldError("", line)
        )
    return errors
