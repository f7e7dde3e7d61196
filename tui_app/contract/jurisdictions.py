"""Filing jurisdictions: the 50 states and DC, plus PR, VI, GU, AS and MP (DOMAIN.md)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator
from pydantic_core import PydanticCustomError

JURISDICTIONS: tuple[str, ...] = (
    "AK", "AL", "AR", "AS", "AZ", "CA", "CO", "CT", "DC", "DE", "FL", "GA", "GU", "HI", "IA",
    "ID", "IL", "IN", "KS", "KY", "LA", "MA", "MD", "ME", "MI", "MN", "MO", "MP", "MS", "MT",
    "NC", "ND", "NE", "NH", "NJ", "NM", "NV", "NY", "OH", "OK", "OR", "PA", "PR", "RI", "SC",
    "SD", "TN", "TX", "UT", "VA", "VI", "VT", "WA", "WI", "WV", "WY",
)  # fmt: skip

_KNOWN = frozenset(JURISDICTIONS)


def _check(value: Any) -> Any:
    # Upper-casing is a convenience for typing; anything else is refused, not guessed.
    if isinstance(value, str):
        if len(value) != 2:
            raise PydanticCustomError(
                "length", "must be exactly 2 characters, not {got}", {"got": len(value)}
            )
        if value.upper() not in _KNOWN:
            raise PydanticCustomError(
                "jurisdiction",
                "must be a two-letter state code such as CA, not {value}",
                {"value": value},
            )
        return value.upper()
    return value


Jurisdiction = Annotated[str, BeforeValidator(_check)]
"""A two-letter jurisdiction code from :data:`JURISDICTIONS` (the spec's "exactly 2 chars")."""
