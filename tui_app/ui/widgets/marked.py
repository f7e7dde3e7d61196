"""Toggles whose state shows without colour: Textual draws a chosen and an unchosen one
with the same mark (``X``, ``●``), told apart by its colour alone, which a 16-colour or
NO_COLOR terminal barely shows (QA: under NO_COLOR only the grey level changed)."""

from __future__ import annotations

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import RadioButton, SelectionList
from textual.widgets._toggle_button import ToggleButton  # not exported; Textual is pinned
from textual.widgets.option_list import OptionDoesNotExist


class MarkedRadioButton(RadioButton):
    """A radio button whose mark is there only when it is on."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]  # noqa: N802 (Textual's name)
        return "●" if self.value else " "


class MarkedSelectionList(SelectionList[str]):
    """A selection list whose box is empty for an item not chosen."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        try:
            option = self.get_option_at_index(self.scroll_offset.y + y)
        except OptionDoesNotExist:
            return strip
        segments = list(strip)
        if option.value in self.selected or len(segments) < 2:
            return strip
        inner = segments[1]
        if inner.text != ToggleButton.BUTTON_INNER:
            return strip
        segments[1] = Segment(" ", inner.style, inner.control)
        return Strip(segments, strip.cell_length)
