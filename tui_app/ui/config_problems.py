"""What a config names that the UI does not have: a binding id under ``[keys]`` no
binding carries, a key given to a binding that takes it from another, a theme no file or
Textual defines. The app still starts (Textual would ignore them without a word);
``config check`` and the app say so."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Collection, Iterator, Mapping

from textual.binding import BindingsMap
from textual.dom import DOMNode
from textual.theme import BUILTIN_THEMES

from tui_app.config import Config
from tui_app.ui.themes import load_themes


def _subclasses(cls: type[DOMNode]) -> Iterator[type[DOMNode]]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def _nodes() -> list[type[DOMNode]]:
    """The app, and every screen and widget class of ours."""
    from tui_app.ui import app, screens, widgets

    for package in (screens, widgets):
        for module in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"{package.__name__}.{module.name}")
    nodes: list[type[DOMNode]] = [app.ProducerApp, *_subclasses(DOMNode)]
    return [node for node in nodes if node.__module__.startswith("tui_app.")]


def binding_ids() -> set[str]:
    """The id of every binding of the app, its screens and its widgets."""
    return {
        binding.id
        for node in _nodes()
        for _, binding in BindingsMap(node.__dict__.get("BINDINGS", []))
        if binding.id
    }


def key_clashes(keymap: Mapping[str, str]) -> list[str]:
    """Bindings that ``keymap`` leaves without a key, as lines: it gave their key to
    another binding of the same screen (``orders.submit = "f6"`` took F6 from Save draft,
    which then had none; Textual says nothing: its own clash report misses this case)."""
    problems = set()
    for node in _nodes():
        if node._merged_bindings is None:
            continue
        before = {binding.id: key for key, binding in node._merged_bindings if binding.id}
        remapped = node._merged_bindings.copy()
        remapped.apply_keymap(keymap)
        kept = {binding.id for _, binding in remapped}
        for lost in before.keys() - kept:
            takers = [
                f"{taker} = {keys!r}"
                for taker, keys in keymap.items()
                if before[lost] in keys.split(",")
            ]
            problems.add(
                f"keys: {' and '.join(takers)} takes {before[lost]} from {lost}, "
                "which is left without a key"
            )
    return sorted(problems)


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
        problems += key_clashes(config.keys)
    if themes is None:
        # As the app would find them: a theme file it would skip is a problem too.
        found = [theme.name for theme in load_themes(problems.append)]
        themes = {*BUILTIN_THEMES, *found}
    if config.theme is not None and config.theme not in themes:
        problems.append(
            f"theme: no theme named {config.theme!r} (known: {', '.join(sorted(themes))})"
        )
    return problems
