"""The footer of keys, redrawn only when the keys it shows change."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # not exported; Textual is pinned


class KeysFooter(Footer):
    """Textual's footer, which rebuilds every key in it each time the focus moves: a new
    widget per key, each restyled twice as it mounts (its ``compact`` starts true and is
    then bound to false). Moving between two fields of a form shows the same keys, so the
    footer stays as it is unless what it would show differs; and a key is born with the
    footer's ``compact``.

    Keys that do not fit the width are left out whole, from the last, once the compact
    style has given each a cell back: Textual cuts the last one mid-word ("f7 S" at 80
    columns). The first key, ``?``, lists them all."""

    _shown: Hashable = None

    def _keys(self, screen: Screen) -> Hashable:
        """What the footer shows for ``screen``: each key, how it is written, whether it is
        enabled, and its tooltip (the command palette's key too, shown or not)."""
        app = screen.app
        return tuple(
            (binding, app.get_key_display(binding), enabled, tooltip)
            for key, (_, binding, enabled, tooltip) in screen.active_bindings.items()
            if binding.show or key == app.COMMAND_PALETTE_BINDING
        )

    def bindings_changed(self, screen: Screen) -> None:
        if self.is_attached and screen is self.screen and self._keys(screen) == self._shown:
            return  # the keys shown already
        super().bindings_changed(screen)

    def compose(self) -> ComposeResult:
        # Textual's footer composes empty and waits for the screen's first bindings
        # update, then a refresh, then composes its keys: a second layout and paint before
        # the first full frame. The screen's keys are known as it mounts, so they are
        # drawn with it; the update redraws the footer only if the focus changed them.
        self._bindings_ready = True
        self._shown = self._keys(self.screen)
        widgets = list(super().compose())
        self._fit(widgets, self.size.width or self.app.size.width)
        yield from widgets

    def on_resize(self, event: events.Resize) -> None:
        self._fit(list(self.children), event.size.width)

    def _fit(self, widgets: Sequence[object], width: int) -> None:
        keys = [w for w in widgets if isinstance(w, FooterKey)]
        palette = [k for k in keys if k.has_class("-command-palette")]
        keys = [k for k in keys if k not in palette]
        compact, shown = fitting(
            [(k.key_display, k.description) for k in keys],
            [(k.key_display, k.description) for k in palette],
            width,
        )
        self.set_reactive(Footer.compact, compact)
        self.set_class(compact, "-compact")
        for n, key in enumerate(keys):
            # A key starts compact and is then bound to the footer's (not compact): born
            # with the footer's, it is styled once as it mounts, not twice more. (The
            # palette's key is not bound, and stays compact.)
            key.set_reactive(FooterKey.compact, compact)
            key.set_class(compact, "-compact")
            key.display = n < shown


KEY_CELLS = 3
"""Cells around a key's text and its description: Textual's padding of the two (``0 1``
and ``0 1 0 0``); in the compact style one fewer (``0`` and ``0 0 0 1``, a margin of 1).
The palette's key, compact always, is docked right behind a border, with a padding of 1
on its right unless the footer is compact: as many cells around it."""


def fitting(
    keys: Sequence[tuple[str, str]], palette: Sequence[tuple[str, str]], width: int
) -> tuple[bool, int]:
    """(compact or not, how many of ``keys`` to show) so that they and the palette's key
    fit ``width`` cells."""
    sizes = [cell_len(key) + cell_len(description) for key, description in keys]
    right = sum(cell_len(key) + cell_len(description) for key, description in palette)
    if sum(sizes) + right + KEY_CELLS * (len(sizes) + len(palette)) <= width:
        return False, len(keys)
    room, shown = width - right - (KEY_CELLS - 1) * len(palette), 0
    for size in sizes:
        room -= size + KEY_CELLS - 1
        if room < 0:
            break
        shown += 1
    return True, shown
