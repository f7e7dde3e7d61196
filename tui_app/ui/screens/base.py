"""Common frame of every area: the status bar on top, the footer below."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer

from tui_app.ui.widgets.status_bar import StatusBar


class AreaScreen(Screen):
    """An area of the app. Subclasses set ``AREA`` and implement ``compose_body``."""

    AREA = ""

    def compose(self) -> ComposeResult:
        yield StatusBar(self.AREA)
        yield from self.compose_body()
        yield Footer()

    def compose_body(self) -> ComposeResult:
        yield from ()
