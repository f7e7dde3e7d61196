"""``TextInput``: the app's text field."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input


class TextInput(Input):
    """An :class:`Input` that puts the cursor at the end of its text when Tab (or a key)
    brings the focus, selecting nothing: Textual selects it all, so the first key typed
    erased what was there."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("select_on_focus", False)
        super().__init__(*args, **kwargs)
