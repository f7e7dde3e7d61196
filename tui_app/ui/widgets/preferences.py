"""The Settings area's preferences: the theme and the masking default. Unlike the
environments, which are a draft until saved, each applies and is saved at once: the widget
posts :class:`Preferences.ThemeChosen` or :class:`Preferences.MaskChanged`, and the screen
applies and saves it."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Label, Select, Static, Switch

from tui_app.ui.typed_app import OfProducerApp


def _mask_words(mask: bool) -> str:
    return f"Mask personal data by default: {'on' if mask else 'off'}"


class Preferences(OfProducerApp, Vertical):
    DEFAULT_CSS = "Preferences { height: auto; }"

    class ThemeChosen(Message):
        """The user picked ``theme`` from the list."""

        def __init__(self, theme: str) -> None:
            super().__init__()
            self.theme = theme

    class MaskChanged(Message):
        """Personal data masked by default (``mask``), or shown."""

        def __init__(self, mask: bool) -> None:
            super().__init__()
            self.mask = mask

    def compose(self) -> ComposeResult:
        yield Static("[b]Preferences[/b]", classes="settings-title")
        yield Label("Theme (applies and is saved at once)", classes="set-pref-label")
        yield Select(
            [(name, name) for name in sorted(self.app.available_themes)],
            id="theme",
            allow_blank=False,
            value=self.app.theme,
        )
        with Horizontal(id="mask-row"):
            yield Switch(value=self.app.config.mask_pii, id="mask-pii")
            yield Label(_mask_words(self.app.config.mask_pii), id="mask-label")

    def on_mount(self) -> None:
        self.watch(self.app, "theme", self._theme_shown, init=False)

    def focus_theme(self) -> None:
        self.query_one("#theme", Select).focus()

    def toggle_mask(self) -> None:
        switch = self.query_one("#mask-pii", Switch)
        switch.toggle()
        switch.scroll_visible()

    def _theme_shown(self, theme: str) -> None:
        """The theme chosen elsewhere (the command palette) shows here too."""
        select = self.query_one("#theme", Select)
        if select.value != theme:
            with select.prevent(Select.Changed):
                select.value = theme

    @on(Select.Changed, "#theme")
    def _theme_chosen(self, event: Select.Changed) -> None:
        event.stop()
        if event.value is not Select.NULL and event.value != self.app.theme:
            self.post_message(self.ThemeChosen(str(event.value)))

    @on(Switch.Changed, "#mask-pii")
    def _mask_changed(self, event: Switch.Changed) -> None:
        event.stop()
        self.query_one("#mask-label", Label).update(_mask_words(event.value))
        self.post_message(self.MaskChanged(event.value))
