"""``JobsTable``: the Bulk area's jobs, a row a job, changed cell by cell as they run."""

from __future__ import annotations

from rich.text import Text

from tui_app.bulk.worker import Attached
from tui_app.ui.bulk_words import clip, progress_text
from tui_app.ui.widgets.plain_table import PlainTable

STATE_WIDTH = 16
"""Room for "awaiting results"; longer words (a worker that died) are whole in the panel."""
# What a job is doing comes first, then the file that names it for people, then the
# numbers, which the panel below repeats: at 80 columns the table shows all but the
# numbers (QA: the file before the state cut the progress to "100").
JOB_COLUMNS = [
    ("job", "Job"),
    ("env", "Env"),
    ("state", "State"),
    ("progress", "Progress"),
    ("file", "File"),
    ("lines", "Lines"),
    ("invalid", "Invalid"),
    ("sent", "Sent"),
    ("completed", "Completed"),
    ("failed", "Failed"),
    ("superseded", "Superseded"),  # a later line of the same profile went instead
    ("unknown", "Unknown"),  # sent, but the answer was lost: verify settles them
]


def cells(seen: Attached) -> tuple[str | Text, ...]:
    """A job's row, in the order of :data:`JOB_COLUMNS`."""
    job, c = seen.job, seen.job.counts
    numbers = (c.lines, c.invalid, c.sent_so_far, c.completed, c.failed, c.superseded,
               c.unknown)  # fmt: skip
    return (
        job.id,
        clip(job.env, 12),
        clip(seen.words(), STATE_WIDTH),
        progress_text(job),
        clip(job.path.name, 24),
        *(Text(f"{n:,}", justify="right") for n in numbers),
    )


class JobsTable(PlainTable):
    """The jobs as last read. A refresh that brings the same jobs changes only the cells
    that moved (a whole table rebuilt twice a second was most of the area's drawing)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.row_ids: list[str] = []
        """The jobs' ids, in the order of the rows."""
        self._shown: dict[str, tuple[str | Text, ...]] = {}

    def on_mount(self) -> None:
        for key, label in JOB_COLUMNS:
            # The state's words change as a job runs: a fixed width keeps the table still.
            self.add_column(label, key=key, width=STATE_WIDTH if key == "state" else None)

    @property
    def selected_id(self) -> str | None:
        if not self.row_count:
            return None
        index = min(self.cursor_row, len(self.row_ids) - 1)
        return self.row_ids[index] if index >= 0 else None

    def fill(self, jobs: list[Attached], select: str | None = None) -> bool:
        """Show ``jobs``, the cursor kept on its job, or moved to ``select``. True when
        the rows are other jobs than before (the table rebuilt)."""
        ids = [seen.job.id for seen in jobs]
        if ids != self.row_ids:
            selected = select or self.selected_id
            self.clear()
            self._shown.clear()
            for seen in jobs:
                row = cells(seen)
                self.add_row(*row, key=seen.job.id)
                self._shown[seen.job.id] = row
            self.row_ids = ids
            if selected in ids:
                self.move_cursor(row=ids.index(selected), animate=False)
            return True
        for seen in jobs:
            self._update_row(seen)
        if select in ids:
            self.move_cursor(row=ids.index(select), animate=False)
        return False

    def _update_row(self, seen: Attached) -> None:
        row = cells(seen)
        before = self._shown.get(seen.job.id)
        if row == before:
            return
        for (key, _), cell, old in zip(JOB_COLUMNS, row, before or [None] * len(row),
                                       strict=True):  # fmt: skip
            if cell != old:
                self.update_cell(seen.job.id, key, cell, update_width=True)
        self._shown[seen.job.id] = row
