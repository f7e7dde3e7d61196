"""A file path field that completes like a shell: the rest of the name shows greyed as
you type, and Tab (or →) takes it."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable

from textual.suggester import Suggester

from tui_app.ui.widgets.text_input import TextInput

PREFERRED = (".ndjson", ".jsonl", ".json")
"""File endings offered before others: the ones a bulk import reads."""


class PathSuggester(Suggester):
    """Completes the last part of a path from the entries of its folder: folders (which
    get a trailing separator) and bulk files first, hidden entries only once a dot is
    typed. Several matches complete their common start; ``~`` is understood and kept."""

    def __init__(self, preferred: Iterable[str] = PREFERRED) -> None:
        super().__init__(use_cache=False, case_sensitive=True)  # folders change
        self.preferred = tuple(preferred)

    async def get_suggestion(self, value: str) -> str | None:
        if not value:
            return None
        return await asyncio.to_thread(self.complete, value)

    def complete(self, value: str) -> str | None:
        folder, prefix = os.path.split(os.path.expanduser(value))
        try:
            with os.scandir(folder or ".") as entries:
                matches = sorted(
                    (e.name, e.is_dir())
                    for e in entries
                    if e.name.startswith(prefix) and (prefix[:1] == "." or e.name[:1] != ".")
                )
        except OSError:
            return None
        if not matches:
            return None
        ranked = sorted(matches, key=lambda m: (not m[1], not m[0].endswith(self.preferred)))
        common = os.path.commonprefix([name for name, _ in matches])
        if len(matches) == 1 or len(common) == len(prefix):
            name, is_dir = ranked[0]
            completion = name + (os.sep if is_dir else "")
        else:
            completion = common
        if completion == prefix:
            return None
        return value + completion[len(prefix) :]


class PathInput(TextInput):
    """An :class:`Input` with path completion; Tab takes the completion when one shows,
    and moves on to the next field otherwise."""

    def __init__(self, value: str = "", **kwargs) -> None:
        super().__init__(value, suggester=PathSuggester(), **kwargs)

    def take_tab(self) -> bool:
        """Take the completion shown, if any (the app's Tab asks first)."""
        if not (self._suggestion and self.cursor_at_end):
            return False
        self.value = self._suggestion
        self.cursor_position = len(self.value)
        return True
