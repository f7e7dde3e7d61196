"""Filing jurisdictions: the 50 states and DC, plus PR, VI, GU, AS and MP (DOMAIN.md)."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BeforeValidator
from pydantic_core import PydanticCustomError

from tui_app.contract.base import Habit, Shape

JURISDICTIONS: tuple[str, ...] = (
    "AK", "AL", "AR", "AS", "AZ", "CA", "CO", "CT", "DC", "DE", "FL", "GA", "GU", "HI", "IA",
    "ID", "IL", "IN", "KS", "KY", "LA", "MA", "MD", "ME", "MI", "MN", "MO", "MP", "MS", "MT",
    "NC", "ND", "NE", "NH", "NJ", "NM", "NV", "NY", "OH", "OK", "OR", "PA", "PR", "RI", "SC",
    "SD", "TN", "TX", "UT", "VA", "VI", "VT", "WA", "WI", "WV", "WY",
)  # fmt: skip

_KNOWN = frozenset(JURISDICTIONS)


def known(value: Any) -> bool:
    return not isinstance(value, str) or value.upper() in _KNOWN


UNKNOWN = "is not one of the 56 jurisdictions we know (such as CA); the service decides"
STATE_HABIT = Habit(known, UNKNOWN)

_ZIP = re.compile(r"[0-9]{5}(-?[0-9]{4})?")
ZIP_HABIT = Habit(
    lambda v: not isinstance(v, str) or bool(_ZIP.fullmatch(v)),
    "is not a US ZIP code (5 digits or ZIP+4)",
)
"""Warnings only: an address's state and ZIP are text in the spec, and a foreign
address has neither."""


def _upper_known(value: Any) -> Any:
    # Upper-casing a known code is a convenience for typing; anything else is kept as typed.
    if isinstance(value, str) and value.upper() in _KNOWN:
        return value.upper()
    return value


def _exactly_two(value: Any) -> Any:
    if isinstance(value, str) and len(value) != 2:
        raise PydanticCustomError(
            "length", "must be exactly 2 characters, not {got}", {"got": len(value)}
        )
    return value


Jurisdiction = Annotated[
    str,
    BeforeValidator(_upper_known),
    BeforeValidator(_exactly_two),
    STATE_HABIT,
    Shape("2 letters, such as CA"),
]
"""A two-letter code where the spec says "exactly 2 chars" (``juris``, ``insStateDomicile``,
``residentStateText``). A code outside :data:`JURISDICTIONS` only warns."""

JurisdictionText = Annotated[
    str, BeforeValidator(_upper_known), STATE_HABIT, Shape("a state code such as CA")
]
"""A state where the spec gives no bound (``LicenseJurisdiction``, the nested state members
of an order): any text, a code outside :data:`JURISDICTIONS` only warns."""
