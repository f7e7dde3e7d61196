"""The keys: every binding active where the user was, plus the global ones."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from tui_app.ui.widgets.plain_table import PlainTable


def key_rows(bindings: dict) -> list[tuple[str, str, str]]:
    """(keys, what it does, binding id) for each active binding, one row per action."""
    seen: dict[tuple[str, str], list[str]] = {}
    for key, active in bindings.items():
        binding = active.binding
        what = binding.description or binding.action
        seen.setdefault((what, binding.id or ""), []).append(_display(key))
    # The app's own actions (which have ids) first, then the widgets' standard keys.
    return sorted(
        ((", ".join(keys), what, bid) for (what, bid), keys in seen.items()),
        key=lambda row: (not row[2], row[1].lower()),
    )


def _display(key: str) -> str:
    return {"question_mark": "?", "slash": "/", "escape": "esc"}.get(key, key)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss", "Close", id="help.close")]

    def __init__(self, bindings: dict) -> None:
        super().__init__()
        self.rows = key_rows(bindings)

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Static(
                "[b]Keys[/b]  (remap any of them by its id under \\[keys] in the config)",
                id="help-title",
            )
            table = PlainTable(cursor_type="row", zebra_stripes=True, id="help-table")
            table.add_columns("Key", "Action", "Binding id")
            table.add_rows(self.rows)  # as written: a key remapped in the config too
            yield table
            yield Static(
                "Esc closes. Ctrl+P opens the command palette with every action.", classes="hint"
            )
