"""What a config names that the UI does not have: a binding id under ``[keys]`` no
binding carries, a theme no file or Textual defines. The app still starts (Textual would
ignore them without a word); ``config check`` and the app say so."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Collection, Iterator

from textual.binding import BindingsMap
from textual.dom import DOMNode
from textual.theme import BUILTIN_THEMES

from tui_app.config import Config
from tui_app.ui.themes import load_themes


def _subclasses(cls: type[DOMNode]) -> Iterator[type[DOMNode]]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def binding_ids() -> set[str]:
    """The id of every binding of the app, its screens and its widgets."""
    from tui_app.ui import app, screens, widgets

    for package in (screens, widgets):
        for module in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"{package.__name__}.{module.name}")
    nodes = [app.ProducerApp, *_subclasses(DOMNode)]
    return {
        binding.id
        for node in nodes
        if node.__module__.startswith("tui_app.")
        for _, binding in BindingsMap(node.__dict__.get("BINDINGS", []))
        if binding.id
    }


def config_problems(config: Config, themes: Collection[str] | None = None) -> list[str]:
    """Each as a line naming its key. ``themes``: those known, if the caller has them
    (the app registered them as it started), else Textual's and the theme files'."""
    problems = []
    if config.keys:
        known = binding_ids()
        problems += [
            f"keys: no binding has the id {binding_id!r} (? lists every key with its id)"
            for binding_id in config.keys
            if binding_id not in known
        ]
    if themes is None:
        themes = {*BUILTIN_THEMES, *(theme.name for theme in load_themes(lambda _: None))}
    if config.theme is not None and config.theme not in themes:
        problems.append(
            f"theme: no theme named {config.theme!r} (known: {', '.join(sorted(themes))})"
        )
    return problems
