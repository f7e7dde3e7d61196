"""The top bar: where the app is connected and whether the service answers, in words."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label

from tui_app.ui.typed_app import OfProducerApp


class StatusBar(OfProducerApp, Horizontal):
    """Area name, environment (with a SANDBOX badge) and the service's state."""

    def __init__(self, area: str) -> None:
        super().__init__(id="status-bar")
        self.area = area

    def compose(self) -> ComposeResult:
        yield Label("producer-tui", id="app-name")
        yield Label(self.area, id="area-name")
        yield Label("", id="env-name", markup=False)
        yield Label("SANDBOX", id="sandbox-badge")
        yield Label("", id="service-state", markup=False)

    def on_mount(self) -> None:
        self.watch(self.app, "env_name", self._show_env)
        self.watch(self.app, "service_state", self._show_state)

    def _show_env(self, name: str) -> None:
        self.query_one("#env-name", Label).update(f"env: {name}")
        self.query_one("#sandbox-badge").display = self.app.env.embedded

    def _show_state(self, state: str) -> None:
        label = self.query_one("#service-state", Label)
        label.update(state)
        label.set_class(state.startswith("● online"), "-online")
        label.set_class(state.startswith("○"), "-offline")
