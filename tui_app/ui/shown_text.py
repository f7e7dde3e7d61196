"""Text from outside (a service's answer, a file, a draft) may hold characters a terminal
obeys instead of showing: an ESC sequence recoloured a field loaded from an order draft,
and could as well retitle the window or write the clipboard (OSC 52) of a user on SSH.

Rich and Textual already pass every string they render through a translation table as
they build a ``Text`` or a ``Content``, dropping five (BEL, BS, VT, FF, CR) and passing
the rest. :func:`install` sets both tables to :data:`tui_app.words.OBEYED`, so every
widget (tables, fields, choices, trees, notifications) shows each such character as a
picture of it, one cell for one character: a field's cursor stays where its text says
(a dropped character moved it one place off)."""

from __future__ import annotations

from rich import control as rich_control
from textual import content as textual_content

from tui_app.words import OBEYED


def install() -> None:
    """Show, never send, what a terminal would obey. Fails loudly (an AttributeError as
    the app starts) if either library no longer keeps its table there."""
    for table in (rich_control._CONTROL_STRIP_TRANSLATE, textual_content._CONTROL_STRIP_TRANSLATE):
        table.update(OBEYED)  # type: ignore[arg-type]
