"""Small modal dialogs: a yes/no question and a file path prompt, the question before
replacing files, and the words for a file that cannot be read or written."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from tui_app.ui.widgets.text_input import TextInput


class ConfirmScreen(ModalScreen[bool]):
    """Ask a question; y/Enter answers yes, n/Esc no."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, question: str, yes: str = "Yes") -> None:
        super().__init__()
        self.question = question
        self.yes = yes

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.question, classes="dialog-text", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.yes} (y)", id="yes", variant="warning")
                yield Button("No (n)", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


class PathScreen(ModalScreen[Path | None]):
    """Ask for a file path; Enter accepts, Esc cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="path.cancel")]

    def __init__(self, title: str, default: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(
                self.title_text, classes="dialog-text", markup=False
            )  # wraps, as a Label does not
            # Selected, so typing replaces the suggested name; editing keys act as they
            # arrive (Ctrl+U, a path and Enter pasted at once loaded nothing: see TextInput).
            yield TextInput(
                self.default, id="path-input", placeholder="path/to/file", select_on_focus=True
            )
            yield Static("Enter accepts, Esc cancels.", classes="hint")

    @on(Input.Submitted)
    def _accept(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        self.dismiss(Path(text).expanduser() if text else None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class SecretScreen(ModalScreen[str | None]):
    """Ask for a secret whose variable is unset, masked; Enter uses it, Esc goes on
    without. The caller keeps it for this run of the app only: it is never saved."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="secret.cancel")]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.question, classes="dialog-text", markup=False)
            yield TextInput(id="secret-input", password=True, placeholder="paste it here")
            yield Static(
                "Enter uses it until you quit (it is not saved); Esc goes on without it.",
                classes="hint",
            )

    @on(Input.Submitted)
    def _accept(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


async def may_replace(app: App, paths: Iterable[Path]) -> bool:
    """Whether to write ``paths``: at once when none exists, else as the user answers
    (asked from a worker: it waits for the answer). A "no" is confirmed on screen."""
    existing = [p for p in paths if p.exists()]
    if not existing:
        return True
    names, one = ", ".join(str(p) for p in existing), len(existing) == 1
    if await app.push_screen_wait(
        ConfirmScreen(f"{names} already exist{'s' * one}. Replace?", yes="Replace")
    ):
        return True
    app.notify(
        f"Not saved: {names} {'is' if one else 'are'} left as {'it was' if one else 'they were'}."
    )
    return False


def file_problem(path: Path, exc: OSError | ValueError) -> str:
    """Why ``path`` could not be used, in words (not ``[Errno 2] ...``)."""
    if isinstance(exc, FileNotFoundError) and not path.parent.is_dir():
        return f"Cannot use {path}: the folder {path.parent} does not exist."
    if isinstance(exc, OSError):
        return f"Cannot use {exc.filename or path}: {(exc.strerror or str(exc)).lower()}."
    return f"Cannot use {path}: {exc}"
