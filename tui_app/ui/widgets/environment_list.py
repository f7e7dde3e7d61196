"""The Settings area's list of environments: each draft's name, whether it is the active
one or needs fixing, and where it points. Moving the highlight posts :class:`Chosen`,
Enter posts :class:`Opened`; the screen decides what follows."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui_app.environment_form import Draft


def _prompt(draft: Draft, active: bool) -> Text:
    line = Text(draft.name.strip() or "(no name)", style="bold")
    if active:
        line.append("  active")
    if draft.errors:
        line.append("  ✗ needs fixing")
    line.append("\n  ")
    line.append(draft.where(), style="dim")
    return line


class EnvironmentList(OptionList):
    class Chosen(Message):
        """The highlight moved to ``draft``."""

        def __init__(self, draft: Draft) -> None:
            super().__init__()
            self.draft = draft

    class Opened(Message):
        """Enter (or a click) on ``draft``: the user wants to edit it."""

        def __init__(self, draft: Draft) -> None:
            super().__init__()
            self.draft = draft

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.drafts: tuple[Draft, ...] = ()
        """The drafts as last shown, one option each, in order."""

    def show(self, drafts: Sequence[Draft], active: Draft) -> None:
        """Show ``drafts`` as they are now; only prompts that changed are redrawn."""
        self.drafts = tuple(drafts)
        if self.option_count != len(drafts):
            highlighted = self.highlighted
            self.clear_options()
            self.add_options(Option(_prompt(d, d is active)) for d in drafts)
            if highlighted is not None:
                # Back where it was, quietly: the screen moves it to the draft it shows.
                with self.prevent(OptionList.OptionHighlighted):
                    self.highlighted = min(highlighted, len(drafts) - 1)
            return
        for index, draft in enumerate(drafts):
            prompt = _prompt(draft, draft is active)
            if self.get_option_at_index(index).prompt != prompt:
                self.replace_option_prompt_at_index(index, prompt)

    def highlight(self, draft: Draft) -> None:
        self.highlighted = self.drafts.index(draft)

    @property
    def highlighted_draft(self) -> Draft | None:
        index = self.highlighted
        return self.drafts[index] if index is not None else None

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self.post_message(self.Chosen(self.drafts[event.option_index]))

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.Opened(self.drafts[event.option_index]))
