"""The footer of keys, redrawn only when the keys it shows change."""

from __future__ import annotations

from collections.abc import Hashable

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # not exported; Textual is pinned


class KeysFooter(Footer):
    """Textual's footer, which rebuilds every key in it each time the focus moves: a new
    widget per key, each restyled twice as it mounts (its ``compact`` starts true and is
    then bound to false). Moving between two fields of a form shows the same keys, so the
    footer stays as it is unless what it would show differs; and a key is born with the
    footer's ``compact``."""

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
        for widget in super().compose():
            if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
                # A key starts compact and is then bound to the footer's (not compact):
                # born with the footer's, it is styled once as it mounts, not twice more.
                # (The palette's key is not bound, and stays compact.)
                widget.set_reactive(FooterKey.compact, self.compact)
            yield widget
