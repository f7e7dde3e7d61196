"""Common frame of every area: the status bar on top, the footer below, and the keyboard
habits every area shares: Esc leaves a text field first and backs out second."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import events, messages
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingsMap
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, TextArea

from tui_app.ui.screens.dialogs import ConfirmScreen, PathScreen
from tui_app.ui.typed_app import OfProducerApp
from tui_app.ui.widgets.keys_footer import KeysFooter
from tui_app.ui.widgets.status_bar import StatusBar

HELP_KEY = Binding("question_mark,f1", "app.help", "Keys", id="help", key_display="?")
"""The app's help key, first in a screen's footer so that a narrow terminal keeps it."""
TEXT_FIELDS = (Input, TextArea)
"""Widgets that take printable keys: while one has focus, 1-6 and letters are typed."""
BACK_KEY = Binding("escape", "back", "Back", id="area.back", show=False, priority=True)
"""Esc acts as it arrives (priority): keys typed with it (together over SSH: Esc then an
area key) then find the focus where Esc put it, not in the field it left."""


def binds_key(widget: Widget | None, key: str) -> bool:
    """Whether ``widget``'s own class binds ``key`` (a menu's Esc closes the menu)."""
    return widget is not None and any(
        key in BindingsMap(cls.__dict__.get("BINDINGS", [])).key_to_bindings
        for cls in type(widget).__mro__
    )


class ProducerScreen(OfProducerApp, Screen):
    """A screen of this app, styled once as it mounts rather than three more times."""

    def __init__(self, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        # A screen is built on its first visit and styled as it mounts. Textual counts a
        # new screen's styles as stale and so re-parses the whole stylesheet twice on
        # that first visit (a quarter of a second each), then restyles every widget once
        # for each resume event (two for an area: 0.8 s for the order form). None of it
        # can change anything before the screen has been away; a theme chosen meanwhile
        # bumps the app's count, and Textual refreshes the screen on its next visit.
        self._css_update_count = self.app._css_update_count
        self._styles_current = True

    def notify(self, message: str, **options: Any) -> None:
        """The app's: plain text unless asked. (Textual's own widget ``notify`` asks for
        markup, so a path holding ``[/x]`` in a message ended the app.)"""
        self.app.notify(message, **options)

    def key(self, binding_id: str) -> str:
        """How the key of this screen's binding ``binding_id`` shows now ("F5"): hints,
        buttons and messages name keys by it, so a key remapped under ``[keys]`` is
        named as it is (they said F5 after Submit had moved to F12)."""
        return self.app.key_of(self, binding_id)

    def ask_path(self, title: str, default: str, then: Callable[[Path | None], object]) -> None:
        """Ask for a file's path, then pass it (``None``: cancelled) to ``then``, a worker.
        The dialog shows at once, not from that worker: keys typed straight after the key
        that asked (a path pasted, over SSH) go to it, not to the field behind (QA). Its
        key must be a priority binding, so that it acts as it arrives too. Asked again
        while a dialog is up (a button clicked twice), nothing more opens."""
        if self.app.screen is not self:
            return
        self.app.push_screen(PathScreen(title, default), then)  # type: ignore[arg-type]

    def _on_screen_suspend(self) -> None:
        self._styles_current = False

    def _on_prune(self, event: messages.Prune) -> None:
        # Closing (the app quitting, the screen dismissed): Textual removes the widgets
        # first and cancels the screen's workers last, so a worker waking in between
        # (a periodic refresh) found its widgets gone and raised. Stop the work first.
        self.workers.cancel_node(self)

    def _update_focus_styles(
        self, focused: Widget | None = None, blurred: Widget | None = None
    ) -> None:
        # Textual restyles everything under the outermost `:focus-within` ancestor of
        # either widget on every focus move. Every Collapsible has such a rule, so a Tab
        # between two fields of a form restyled the whole form (some 70 ms in Orders).
        # Only a widget whose focus-within state changes, and what it holds, can look
        # different: restyle those.
        before = set(blurred.ancestors_with_self) if blurred is not None else set()
        after = set(focused.ancestors_with_self) if focused is not None else set()
        widgets: set[DOMNode] = set()
        for node in before ^ after:
            if node._has_focus_within:
                widgets.update(node.walk_children(with_self=True))
        if widgets:
            self.app.stylesheet.update_nodes(widgets, animate=True)

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        # Runs before Screen's own handler: Textual calls each class's, in MRO order.
        if self._styles_current:
            event.refresh_styles = False


class AreaScreen(ProducerScreen):
    """An area of the app. Subclasses set ``AREA`` (and ``AUTO_FOCUS``, the first useful
    widget), implement ``compose_body``, and may refine ``field_home`` and ``back_out``."""

    AREA = ""
    BINDINGS = [HELP_KEY, BACK_KEY]
    REVEAL_NOTE = ""
    """What revealing personal data (Ctrl+R) changes here, where it is not plain to see."""

    def __init__(self) -> None:
        # Born with the breakpoint class of the terminal's width (-narrow or -wide), which
        # Textual would add on the first resize instead, restyling every widget of the
        # area once more (about a quarter of the time the order form takes to open).
        width = self.app.size.width
        breakpoints = sorted(self.app.HORIZONTAL_BREAKPOINTS or (), reverse=True)
        super().__init__(classes=next((name for at, name in breakpoints if width >= at), None))
        self.app.areas.append(self)

    def compose(self) -> ComposeResult:
        yield StatusBar(self.AREA)
        yield from self.compose_body()
        yield KeysFooter()

    def compose_body(self) -> ComposeResult:
        yield from ()

    def leave_field(self) -> bool:
        """Out of the focused text field to its home (so the next key is a command again);
        False if no text field with a home has the focus."""
        focused = self.focused
        home = self.field_home(focused) if isinstance(focused, TEXT_FIELDS) else None
        if home is not None:
            self.set_focus(home)
        return home is not None

    def action_back(self) -> None:
        """Esc: out of the text field if in one, else the focused widget's if it binds Esc
        (an open menu closes), else back out of whatever the area has open."""
        if self.leave_field():
            return
        if binds_key(self.focused, "escape"):
            raise SkipAction()
        self.back_out()

    def field_home(self, field: Widget) -> Widget | None:
        """Where focus goes when Esc leaves ``field``: the area's first useful widget."""
        if self.AUTO_FOCUS:
            found = self.query(self.AUTO_FOCUS)
            if found:
                return found.first()
        return None

    def unsaved(self) -> str | None:
        """What quitting now would lose, in words (``None``: nothing)."""
        return None

    async def may_discard(self) -> bool:
        """Whether what :meth:`unsaved` names may be lost (a file loaded over it, say): at
        once if nothing, else as the user answers (asked from a worker: it waits)."""
        if (changes := self.unsaved()) is None:
            return True
        return await self.app.push_screen_wait(
            ConfirmScreen(f"{changes.capitalize()}. Discard them?", yes="Discard")
        )

    def back_out(self) -> None:
        """The second Esc: close what the area has open. Nothing, by default."""
