"""The start-up baseline: a minimal Textual app with a header, a footer and a 10-row table.

``bench_startup.py`` runs it next to ``python -m tui_app``; our budget is this plus a little.
Run it by hand with ``python benchmarks/minimal_app.py`` (Ctrl+Q quits).
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import DataTable, Footer, Header

ROWS = 10
LAST_CELL = f"row-{ROWS}"
"""Text of a cell in the last row: once it is on screen the whole table is painted."""


class MinimalApp(App[None]):
    TITLE = "minimal"

    def compose(self) -> ComposeResult:
        yield Header()
        yield DataTable(cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("name", "kind", "state")
        table.add_rows((f"row-{i}", "agent", "active") for i in range(1, ROWS + 1))


if __name__ == "__main__":
    MinimalApp().run()
