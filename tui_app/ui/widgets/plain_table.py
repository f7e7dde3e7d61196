"""``PlainTable``: a ``DataTable`` that shows a string cell as it is.

Textual reads a string cell as markup, so a cell holding ``[/x]`` (a ProfileKey from a
file, a service's message quoting a member's name) ended the app as its row was drawn.
Every table of the app is one of these; rich ``Text`` cells pass unchanged. It also draws
its rows again once their columns are widened for them (see ``_update_dimensions``).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, RowKey


def _plain(cell: Any) -> Any:
    return Text(cell) if isinstance(cell, str) else cell


class PlainTable(DataTable[Any]):
    def _update_dimensions(self, new_rows: Any) -> None:
        # Textual widens the columns for new rows here, at the table's next idle, and keeps
        # each row as drawn until the table's update count changes, which widening does
        # not do. A row drawn before (the cursor moved straight after a page was shown,
        # under load) stayed at the narrower widths: the Watch findings were seen cut to
        # their labels' widths, "License" for "License expired". Drawn again here.
        super()._update_dimensions(new_rows)
        self._clear_caches()
        self.refresh()

    @property
    def cursor_key(self) -> str | None:
        """The key of the row under the cursor; None in an empty table (where Textual's
        ``coordinate_to_cell_key`` raises)."""
        if not self.row_count:
            return None
        return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value

    def add_row(
        self,
        *cells: Any,
        height: int | None = 1,
        key: str | None = None,
        label: Any = None,
    ) -> RowKey:
        return super().add_row(*map(_plain, cells), height=height, key=key, label=label)

    def update_cell(
        self,
        row_key: RowKey | str,
        column_key: ColumnKey | str,
        value: Any,
        *,
        update_width: bool = False,
    ) -> None:
        super().update_cell(row_key, column_key, _plain(value), update_width=update_width)
