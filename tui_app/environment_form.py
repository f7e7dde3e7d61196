"""The environment editor's model, without a screen: an environment as the editor's raw
values (text, bools, choices), back into the config's ``Environment``, and each error
keyed by the editor field it belongs to.

The config models are the only rules: values are validated by building ``Environment``
itself, so no bound of the config is restated here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, get_args

from pydantic import ValidationError

from tui_app.config import (
    AUTH_OPTIONAL,
    AUTH_REQUIRED,
    EMBEDDED_ONLY,
    GROUPS,
    Auth,
    Environment,
    name_problem,
    redact_url,
)
from tui_app.contract.errors import field_errors

AUTH_TYPES: tuple[str, ...] = get_args(Auth.model_fields["type"].annotation)
FORMATS: tuple[str, ...] = get_args(Environment.model_fields["format"].annotation)
AUTH_FIELDS: tuple[str, ...] = tuple(name for name in Auth.model_fields if name != "type")
TEXT_KEYS: tuple[str, ...] = (
    "seed",
    "base_url",
    *(f"base_urls.{g}" for g in GROUPS),
    "timeout",
    *(f"auth.{name}" for name in AUTH_FIELDS),
)
"""The editor's text fields, by key (``auth.token_env``); the others are ``name``,
``embedded`` (a switch), ``format`` and ``auth.type`` (choices)."""
SHOWN = frozenset({"embedded", "seed", "base_url", "base_urls", "format", "timeout", "auth"})
"""The ``Environment`` settings the editor shows; the others are kept as the file has them."""


def _default(name: str) -> Any:
    return Environment.model_fields[name].default


def values_of(env: Environment) -> dict[str, Any]:
    """The editor's raw values (text, bools, choices) for ``env``."""
    values: dict[str, Any] = {
        "embedded": env.embedded,
        "seed": str(env.seed),
        "base_url": env.base_url or "",
        "format": env.format,
        "timeout": f"{env.timeout:g}",
        "auth.type": env.auth.type,
    }
    for group in GROUPS:
        values[f"base_urls.{group}"] = (env.base_urls.get(group) if env.base_urls else None) or ""
    for name in AUTH_FIELDS:
        values[f"auth.{name}"] = getattr(env.auth, name) or ""
    return values


def auth_fields_for(auth_type: str) -> tuple[str, ...]:
    """The auth settings that apply to ``auth_type``, required ones first."""
    return (*AUTH_REQUIRED[auth_type], *AUTH_OPTIONAL[auth_type])


def is_required(auth_type: str, name: str) -> bool:
    return name in AUTH_REQUIRED[auth_type]


def _as_number(text: str, kind: type) -> Any:
    # Unparseable text goes to the model as it is, so the model words the complaint.
    try:
        return kind(text)
    except ValueError:
        return text


def data_of(values: dict[str, Any], original: Environment | None) -> dict[str, Any]:
    """The input for ``Environment``: only what applies, and defaults only where the saved
    environment set them, so the file keeps saying no more than the user said. Settings
    the editor does not show (``watch_days``, ``today``…) are kept as saved, except the
    sandbox's own when the user turns a sandbox into a server: they no longer apply, and
    the model refuses some of them there."""
    was_set = original.model_fields_set if original is not None else set()
    embedded = bool(values["embedded"])
    dropped = EMBEDDED_ONLY if original is not None and original.embedded and not embedded else ()
    data: dict[str, Any] = {
        name: getattr(original, name) for name in was_set - SHOWN if name not in dropped
    }

    def put(name: str, value: Any) -> None:
        if value != _default(name) or name in was_set:
            data[name] = value

    put("embedded", embedded)
    if embedded:
        put("seed", _as_number(values["seed"].strip(), int))
    else:
        if base := values["base_url"].strip():
            data["base_url"] = base
        groups = {g: values[f"base_urls.{g}"].strip() for g in GROUPS}
        if groups := {g: url for g, url in groups.items() if url}:
            data["base_urls"] = groups
    put("format", values["format"])
    put("timeout", _as_number(values["timeout"].strip(), float))
    auth_type = values["auth.type"]
    auth: dict[str, Any] = {"type": auth_type}
    for name in auth_fields_for(auth_type):
        if text := values[f"auth.{name}"].strip():
            auth[name] = text
    if auth_type != "none" or "auth" in was_set:
        data["auth"] = auth
    return data


def _plain(message: str) -> str:
    return re.sub(r"^Input should be", "must be", message)


def check_environment(
    values: dict[str, Any], original: Environment | None
) -> tuple[Environment | None, dict[str, list[str]]]:
    """Validate with the config model; errors keyed by the editor field they belong to."""
    try:
        return Environment.model_validate(data_of(values, original)), {}
    except ValidationError as exc:
        errors: dict[str, list[str]] = {}
        for error in field_errors(exc):
            errors.setdefault(_owner(error.path, values), []).append(_plain(error.message))
        return None, errors


def _owner(path: str, values: dict[str, Any]) -> str:
    if path in TEXT_KEYS or path in ("embedded", "format", "auth.type"):
        return path
    if path == "auth" or path.startswith("auth."):
        return "auth.type"  # a rule across the auth settings, e.g. "type bearer needs ..."
    if path.startswith("base_urls"):
        return "base_url"
    # A rule across the whole environment (URLs missing, or given to an embedded one).
    return "embedded" if values["embedded"] else "base_url"


@dataclass(eq=False)
class Draft:
    """One environment as edited, before it is saved."""

    name: str
    original: Environment | None
    """The environment as last saved; ``None`` for one added in this session."""
    values: dict[str, Any]
    env: Environment | None = None
    errors: dict[str, list[str]] = field(default_factory=dict)
    saved_name: str | None = None
    """Its name in the file; ``None`` for one added in this session."""

    @classmethod
    def new(cls, name: str) -> Draft:
        """A draft of an environment not saved yet, with the config's defaults."""
        return cls(name, None, values_of(Environment.model_construct()))

    def revalidate(self, drafts: Iterable[Draft]) -> None:
        """Check the values, and the name against the other ``drafts``."""
        self.env, self.errors = check_environment(self.values, self.original)
        name = self.name.strip()
        clash = [d for d in drafts if d is not self and d.name.strip() == name]
        if problem := name_problem(name):
            self.errors.setdefault("name", []).append(problem)
        elif clash and not (self.saved_name == name and all(d.saved_name != name for d in clash)):
            # Only the one given the name is wrong, not the one that had it all along.
            self.errors.setdefault("name", []).append(
                f"another environment is already named {name}"
            )

    def where(self) -> str:
        """Where the environment points, in words."""
        if self.values["embedded"]:
            return "embedded sandbox"
        if base := self.values["base_url"].strip():
            return redact_url(base)  # a password typed into it is not shown on the list
        return (
            "per-group URLs" if any(self.values[f"base_urls.{g}"] for g in GROUPS) else "no URL yet"
        )
