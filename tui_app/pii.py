"""Personal data on screen: SSN, FEIN/TIN and date of birth are masked unless revealed.

Only the last four digits of an SSN or FEIN are ever shown masked; a birth date is hidden
whole. These helpers are the one place that decides what a masked value looks like.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

PII_FIELDS = frozenset({
    "Ssn", "ssn", "SsnLast4", "Fein", "FeinLast4", "FirmFein", "Tin", "tin", "taxId",
    "feinNumber", "DateOfBirth", "dateOfBirth", "EmployersFein",
})  # fmt: skip
"""Field names, in every spelling the contract uses, that hold personal data."""


def _digits(value: str) -> str:
    return "".join(ch for ch in value if ch.isdigit())


def format_ssn(value: str, reveal: bool = False) -> str:
    """``000121234`` -> ``***-**-1234`` (revealed: ``000-12-1234``)."""
    d = _digits(value)
    if reveal and len(d) == 9:
        return f"{d[:3]}-{d[3:5]}-{d[5:]}"
    return f"***-**-{d[-4:]}" if d else ""


def format_fein(value: str, reveal: bool = False) -> str:
    """``000000001`` -> ``**-***0001`` (revealed: ``00-0000001``)."""
    d = _digits(value)
    if reveal and len(d) == 9:
        return f"{d[:2]}-{d[2:]}"
    return f"**-***{d[-4:]}" if d else ""


def format_dob(value: str | None, reveal: bool = False) -> str:
    if not value:
        return ""
    return value if reveal else "**/**/****"


def mask_value(name: str, value: object, reveal: bool = False) -> object:
    """Mask one field of a record by its name; other fields pass through."""
    if reveal or value in (None, "") or name not in PII_FIELDS:
        return value
    text = str(value)
    if "DateOfBirth" in name or name == "dateOfBirth":
        return format_dob(text)
    if "Fein" in name or name in ("Tin", "tin", "feinNumber"):
        return format_fein(text)
    return format_ssn(text)


def mask_tree(
    value: Any, reveal: bool = False, mask: Callable[[str, Any], Any] = mask_value
) -> Any:
    """A copy of a JSON-like tree with every personal field masked by ``mask`` (for raw
    views)."""
    if reveal:
        return value
    if isinstance(value, dict):
        return {k: mask_tree(mask(k, v), reveal, mask) for k, v in value.items()}
    if isinstance(value, list):
        return [mask_tree(v, reveal, mask) for v in value]
    return value
    if isinstance(value, dict):
        return {k: mask_tree(mask_value(k, v), reveal) for k, v in value.items()}
    if isinstance(value, list):
        return [mask_tree(v, reveal) for v in value]
    return value
