"""Text from outside (a service's answer, a file, a draft) may hold characters a terminal
obeys instead of showing: an ESC sequence recoloured a field loaded from an order draft,
and could as well retitle the window or write the clipboard (OSC 52) of a user on SSH.

Rich and Textual already pass every string they render through a translation table as
they build a ``Text`` or a ``Content``, dropping five (BEL, BS, VT, FF, CR) and passing
the rest. :func:`install` adds :data:`tui_app.words.OBEYED` to both tables, so every
widget (tables, fields, choices, trees, notifications) shows each such character as a
picture of it, one cell for one character; those five stay dropped (a CR of a service's
CRLF text would show as ␍ at every line's end)."""

from __future__ import annotations

from rich import control as rich_control
from textual import content as textual_content

from tui_app.words import OBEYED


def install() -> None:
    """Show, never send, what a terminal would obey. Fails loudly (an AttributeError as
    the app starts) if either library no longer keeps its table there."""
    for table in (rich_control._CONTROL_STRIP_TRANSLATE, textual_content._CONTROL_STRIP_TRANSLATE):
        table.update({code: shown for code, shown in OBEYED.items() if code not in table})  # type: ignore[misc]
