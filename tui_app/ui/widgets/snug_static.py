"""``SnugStatic``: a ``Static`` that lays the screen out only when its height changes.

A ``Static`` lays out the whole screen on every ``update``, in case its height changed. A
form's error line changes as the user types ("must be at least 9 characters, not 4",
then "not 5"): in the order form each key cost a layout, about 15 ms of CPU. Its height
changes only when the message wraps to more or fewer rows, or appears, or goes.
"""

from __future__ import annotations

from textual.visual import VisualType
from textual.widgets import Static


class SnugStatic(Static):
    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        """Show ``content``, laying the screen out if its height is no longer the one it
        has (``layout`` is decided here, so not used). Hidden, it lays out when shown."""
        super().update(content, layout=False)
        if not self.display:
            return
        width, height = self.content_size
        sized_by_text = self.styles.width is not None and self.styles.width.is_auto
        if (
            not width
            or sized_by_text
            or self.get_content_height(self.size, self.size, width) != height
        ):
            self.refresh(layout=True)
