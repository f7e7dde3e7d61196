"""What a config names that the UI does not have: a binding id under ``[keys]`` no
binding carries, a key given to a binding that takes it from another, a theme no file or
Textual defines. The app still starts (Textual would ignore them without a word);
``config check`` and the app say so."""

from __future__ import annotations

import importlib
import pkgutil
import unicodedata
from collections.abc import Collection, Iterator, Mapping

from textual.binding import BindingsMap
from textual.dom import DOMNode
from textual.screen import Screen
from textual.theme import BUILTIN_THEMES

from tui_app.config import EMBEDDED_ONLY, Config
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


def _typed(key: str) -> bool:
    """Whether ``key`` (Textual's name) types a character into a field: ``s``, ``space``,
    ``question_mark``; not ``f6`` or ``ctrl+s``."""
    if "+" in key:
        return False
    try:
        char = key if len(key) == 1 else unicodedata.lookup(key.replace("_", " "))
    except KeyError:
        return False
    return char.isprintable()


def _remapped(node: type[DOMNode], keymap: Mapping[str, str]) -> BindingsMap:
    remapped = (node._merged_bindings or BindingsMap()).copy()
    remapped.apply_keymap(keymap)
    return remapped


def key_clashes(keymap: Mapping[str, str]) -> list[str]:
    """What ``keymap`` makes of keys that two bindings want, as lines: a binding left
    without a key, its key given to another of the same screen (``orders.submit = "f6"``
    took F6 from Save draft; Textual says nothing: its own clash report misses this), and
    an app-wide key a screen takes for itself (``record.copy = "1"``: in a record, 1 no
    longer opened Search)."""
    from tui_app.ui.app import ProducerApp

    problems = set()
    app_wide = {key: b.id for key, b in _remapped(ProducerApp, keymap) if b.id and not b.priority}
    shadowed: dict[tuple[str, str], set[str]] = {}
    for node in _nodes():
        if node._merged_bindings is None:
            continue
        before = {binding.id: key for key, binding in node._merged_bindings if binding.id}
        remapped = _remapped(node, keymap)
        screen = issubclass(node, Screen)
        for key, binding in remapped:
            if not binding.id:
                continue
            if binding.priority and binding.id in keymap and _typed(key):
                problems.add(
                    f"keys: {binding.id} = {keymap[binding.id]!r}: it acts before any field "
                    f"sees the key, so {key} could no longer be typed on its screen"
                )
            other = app_wide.get(key) if screen else None
            if other and (binding.id in keymap or other in keymap):
                shadowed.setdefault((key, other), set()).add(binding.id)
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
    for (key, other), ids in shadowed.items():
        problems.add(
            f"keys: {key} is both {other} and, on the screen of each, {', '.join(sorted(ids))}: "
            "there the screen's wins"
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
    for name, env in config.environments.items():
        # Refused outright they would stop configs that worked from loading: said instead.
        unused = [key for key in EMBEDDED_ONLY if key in env.model_fields_set]
        if unused and not env.embedded:
            problems.append(
                f"environments.{name}: {', '.join(unused)}: settings of the embedded sandbox, "
                "unused by a server environment"
            )
    if themes is None:
        # As the app would find them: a theme file it would skip is a problem too.
        found = [theme.name for theme in load_themes(problems.append)]
        themes = {*BUILTIN_THEMES, *found}
    if config.theme is not None and config.theme not in themes:
        problems.append(
            f"theme: no theme named {config.theme!r} (known: {', '.join(sorted(themes))})"
        )
    return problems
