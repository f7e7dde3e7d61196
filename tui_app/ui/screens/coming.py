"""Placeholder areas, filled by later work."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Center, Middle
from textual.widgets import Static

from tui_app.ui.screens.base import AreaScreen

PLANS = {
    "Orders": "Appointment and termination orders with live validation, and order tracking.",
    "Profiles": "Edit agent and agency profiles and import them.",
    "Bulk": "Submit NDJSON bulk imports and follow the jobs, even after reconnecting.",
    "Export": "Browse a profile's exported data sets and save them as JSON or CSV.",
    "Settings": "Environments, themes and masking.",
}


class ComingScreen(AreaScreen):
    def __init__(self, area: str) -> None:
        super().__init__()
        self.AREA = area

    def compose_body(self) -> ComposeResult:
        with Middle(), Center():
            yield Static(
                f"[b]{self.AREA}[/b] is coming.\n\n{PLANS[self.AREA]}\n\n"
                "Press 1 for Search or ? for the keys.",
                classes="coming",
            )
