"""Themes from TOML files: the project's own (``themes/``) and the user's (``themes/``
beside the config file). A broken file is reported by name and skipped, never fatal."""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterator
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from textual.color import Color, ColorParseError
from textual.theme import Theme

from tui_app.config import user_themes_dir

CHECKOUT_THEMES = Path(__file__).resolve().parents[2] / "themes"
"""The repository's top-level ``themes/``, used by a checkout or an editable install."""
FIELDS = (
    "name",
    "primary",
    "secondary",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "success",
    "warning",
    "error",
    "boost",
    "dark",
    "variables",
)
COLOURS = FIELDS[1:12]
"""The settings that are colours: Textual parses them only when the theme is applied, and
a bad one ended the app then (QA: ``primary = "notacolor"`` chosen in Settings)."""


def project_themes() -> Traversable:
    """The themes shipped with the app: ``tui_app/themes`` inside an installed wheel
    (pyproject copies the top-level folder there), else the checkout's own folder."""
    shipped = resources.files("tui_app") / "themes"
    return shipped if shipped.is_dir() else CHECKOUT_THEMES


def theme_from_file(path: Traversable) -> Theme:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise ValueError(f"unknown keys {', '.join(unknown)}")
    if "name" not in data or "primary" not in data:
        raise ValueError("a theme needs at least name and primary")
    if not isinstance(data["name"], str):
        raise ValueError(f"name: {data['name']!r} is not text")
    for key in COLOURS:
        if key in data:
            try:
                Color.parse(data[key])
            except (ColorParseError, AttributeError, TypeError, ValueError):  # 5, not "5"
                raise ValueError(
                    f"{key}: {data[key]!r} is no colour (#rrggbb, rgb(r, g, b) or a colour name)"
                ) from None
    if not isinstance(data.get("dark", True), bool):
        raise ValueError(f"dark: {data['dark']!r} is not true or false")
    variables = data.get("variables", {})
    if not isinstance(variables, dict) or not all(isinstance(v, str) for v in variables.values()):
        raise ValueError("variables: a table of CSS variables, each a text ([variables])")
    return Theme(**data)


def load_themes(report: Callable[[str], None]) -> Iterator[Theme]:
    for folder in (project_themes(), user_themes_dir()):
        if not folder.is_dir():
            continue
        files = (p for p in folder.iterdir() if p.name.endswith(".toml"))
        for path in sorted(files, key=lambda p: p.name):
            try:
                yield theme_from_file(path)
            except (OSError, ValueError, TypeError) as exc:
                report(f"Theme {path} skipped: {exc}")
