"""``TextInput``: the app's text field."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Input


class TextInput(Input):
    """An :class:`Input` that puts the cursor at the end of its text when Tab (or a key)
    brings the focus, selecting nothing (Textual selects it all, so the first key typed
    erased what was there), and whose editing keys act as they arrive."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("select_on_focus", False)
        super().__init__(*args, **kwargs)

    def _on_focus(self, event: events.Focus) -> None:
        # Before Input's own handler (Textual calls each class's): the cursor goes to the
        # end of the text, wherever it was left (QA: Left, Tab away, Tab back, and a key
        # typed landed mid-word). Not when the terminal regains its focus, nor over a
        # selection made on purpose (a suggested name, to be typed over).
        if not event.from_app_focus and self.selection.is_empty:
            self.cursor_position = len(self.value)

    def _watch_value(self, value: str) -> None:
        # Input's watcher sets the text's width as its virtual size (its scroll bounds), a
        # reactive that lays the whole screen out: on every key, as the text grows. A
        # field sized by its CSS, not by its text, needs only the new bounds, set here
        # first so the watcher finds them in place (an order form: 31 ms of CPU a key).
        if not self.styles.auto_dimensions:
            self.set_reactive(Widget.virtual_size, Size(self.content_width, 1))
        super()._watch_value(value)

    def _on_paste(self, event: events.Paste) -> None:
        # Input keeps a paste's first line (and runs after this): the rest is said, not
        # dropped in silence (QA: "Line1⏎Line2" pasted into ProfileKey left "Line1").
        lines = event.text.splitlines()
        if any(line.strip() for line in lines[1:]):
            self.notify(
                f"Only the first of the {len(lines)} lines pasted went in: a field holds one line.",
                severity="warning",
            )

    async def _on_key(self, event: events.Key) -> None:
        # Textual runs a widget's key bindings only once the key has bubbled up to the
        # app, after the characters queued behind it were typed: Ctrl+U then "xyz",
        # arriving together (a paste, SSH), typed xyz and then erased everything.
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                event.stop()
                event.prevent_default()  # handled: not Input's own key handling too
                self._restart_blink()  # as that handling would: the cursor shows as it moves
                return
