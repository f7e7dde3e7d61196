"""Themes from TOML files: the project's own (``themes/``) and the user's (``themes/``
beside the config file). A broken file is reported by name and skipped, never fatal."""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path

from textual.theme import Theme

from tui_app.config import user_themes_dir

PROJECT_THEMES = Path(__file__).resolve().parents[2] / "themes"
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


def theme_from_file(path: Path) -> Theme:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise ValueError(f"unknown keys {', '.join(unknown)}")
    if "name" not in data or "primary" not in data:
        raise ValueError("a theme needs at least name and primary")
    return Theme(**data)


def load_themes(report: Callable[[str], None]) -> Iterator[Theme]:
    for folder in (PROJECT_THEMES, user_themes_dir()):
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.toml")):
            try:
                yield theme_from_file(path)
            except (OSError, ValueError, TypeError) as exc:
                report(f"Theme {path} skipped: {exc}")
