"""``SteadyStatic``: a ``Static`` that changes often without laying the screen out again.

A ``Static`` lays out the whole screen on every ``update``, in case its height changed.
The Bulk area's panel under the jobs table changes on every key that moves the cursor
and twice a second while a job runs: each layout took about 8 ms on an idle machine and
20 to 40 ms while the job's processes shared the cores (issue 12: keys while a job ran,
p95 68 ms). Its height also flipped between jobs whose words wrap to more or fewer rows,
and the table above jumped with it.

This one grows to the height its content needs (a max-height still caps it) and keeps it
while its width stays the same, so an update that fits is drawn in place. :meth:`fit`
gives up the rows kept, for a moment when the screen may move (a job ended, say). Rows
are not kept while the table beside it is short (a small terminal): there the table's
rows matter more than a still screen (QA, 60x20: a job's lines table showed no row).
"""

from __future__ import annotations

from textual import events
from textual.visual import VisualType
from textual.widgets import Static

ROWS_BESIDE = 6
"""Rows the widget named by ``beside`` must have for rows to be kept."""


class SteadyStatic(Static):
    def __init__(self, *args, beside: str, **kwargs) -> None:
        """``beside``: a selector of the widget (a table) that gives up rows for this one."""
        super().__init__(*args, **kwargs)
        self.beside = beside
        self._width = 0
        """The width the rows kept were needed at."""

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        """Show ``content``; whether the screen is laid out is decided here, by the height
        it needs, so ``layout`` is not used."""
        super().update(content, layout=False)
        width, height = self.content_size
        if not width:  # not laid out yet: its first layout sizes it
            self.refresh(layout=True)
            return
        needed = self.get_content_height(self.size, self.size, width)
        if needed > height:
            # The style lays the screen out once; later updates that fit do not.
            self.styles.min_height = needed + self.styles.gutter.height
        elif needed < height and self._beside_is_short():
            self.fit()

    def _beside_is_short(self) -> bool:
        # A query, not query_one: the table may be gone already while its screen closes.
        return any(w.size.height < ROWS_BESIDE for w in self.screen.query(self.beside))

    def fit(self) -> None:
        """Take the height the content needs now, giving up rows kept for earlier content."""
        self.styles.min_height = None
        self.refresh(layout=True)

    def on_resize(self, event: events.Resize) -> None:
        if self._width not in (0, event.size.width):  # the words wrap anew
            self.fit()
        self._width = event.size.width
