"""Personal data on screen: SSN, FEIN/TIN and date of birth are masked unless revealed.

Only the last four digits of an SSN or FEIN are ever shown masked; a birth date is hidden
whole. These helpers are the one place that decides what a masked value looks like.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

PiiKind = Literal["ssn", "fein", "dob"]

_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
"""The words of a field's name: ``SocialSecurityNumber``, ``EmployerTIN``, ``tax_id``."""


def pii_kind(name: str) -> PiiKind | None:
    """Which personal data a field holds, read from the words of its name: the contract's
    spellings (``Ssn``, ``taxId``, ``DateOfBirth``) and those a real service may add
    (``SocialSecurityNumber``, ``FeinNumber``, ``BirthDate``). Short codes must be whole
    words, so ``Setting`` holds no TIN."""
    words = {word.lower() for word in _WORDS.findall(name)}
    joined = name.lower().replace("_", "").replace("-", "")
    # A tax id names a person as often as a firm (an order's taxId is the agent's SSN):
    # masked as an SSN, as the contract's own ``taxId`` always was.
    if words & {"ssn", "itin"} or any(
        w in joined for w in ("socialsecurity", "taxid", "taxpayerid")
    ):
        return "ssn"
    if words & {"fein", "tin", "ein"}:
        return "fein"
    if "dob" in words or "dateofbirth" in joined or "birthdate" in joined:
        return "dob"
    return None


def digits_of(value: str) -> str:
    """The digits of an SSN, FEIN or TIN as written (``000-12-1234`` -> ``000121234``)."""
    return "".join(ch for ch in value if ch.isdigit())


def format_ssn(value: str, reveal: bool = False) -> str:
    """``000121234`` -> ``***-**-1234`` (revealed: ``000-12-1234``)."""
    d = digits_of(value)
    if reveal and len(d) == 9:
        return f"{d[:3]}-{d[3:5]}-{d[5:]}"
    return f"***-**-{d[-4:]}" if d else ""


def format_fein(value: str, reveal: bool = False) -> str:
    """``000000001`` -> ``**-***0001`` (revealed: ``00-0000001``)."""
    d = digits_of(value)
    if reveal and len(d) == 9:
        return f"{d[:2]}-{d[2:]}"
    return f"**-***{d[-4:]}" if d else ""


def format_dob(value: str | None, reveal: bool = False) -> str:
    if not value:
        return ""
    return value if reveal else "**/**/****"


def mask_value(
    name: str, value: object, reveal: bool = False, kinds: Mapping[str, PiiKind] | None = None
) -> object:
    """Mask one field of a record by its name (``kinds`` says what a name holds where its
    words do not: an agency's order ``taxId`` is a FEIN); other fields (and objects, whose
    members are masked by their own names) pass through."""
    if reveal or value in (None, "") or isinstance(value, dict | list):
        return value
    kind = (kinds or {}).get(name) or pii_kind(name)
    if kind is None:
        return value
    return {"ssn": format_ssn, "fein": format_fein, "dob": format_dob}[kind](str(value))


def mask_tree(value: Any, reveal: bool = False, kinds: Mapping[str, PiiKind] | None = None) -> Any:
    """A copy of a JSON-like tree with every personal field masked (for raw views)."""
    if reveal:
        return value
    if isinstance(value, dict):
        return {
            k: mask_tree(mask_value(k, v, kinds=kinds), reveal, kinds) for k, v in value.items()
        }
    if isinstance(value, list):
        return [mask_tree(v, reveal, kinds) for v in value]
    return value
