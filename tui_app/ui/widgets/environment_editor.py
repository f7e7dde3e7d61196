"""The Settings area's environment editor: one :class:`Draft` as fields, its errors under
the fields they name, and whether each secret's variable is set (never its value).

The editor writes what the user types into its draft and posts :class:`Edited`; the
screen, which holds every draft, checks them all (names must differ) and asks the editor
to :meth:`~EnvironmentEditor.show` the outcome.
"""

from __future__ import annotations

import os

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Collapsible, Input, Label, Select, Static, Switch

from tui_app.config import GROUPS, Auth, Environment
from tui_app.environment_form import (
    AUTH_FIELDS,
    AUTH_TYPES,
    FORMATS,
    TEXT_KEYS,
    Draft,
    auth_fields_for,
    is_required,
)
from tui_app.field_docs import field_doc
from tui_app.ui.widgets.snug_static import SnugStatic
from tui_app.ui.widgets.text_input import TextInput

SECRET_HINT = (
    "Secrets live in environment variables: give the variable's NAME here, never "
    "the secret. The config file stores only names."
)


def _wid(key: str) -> str:
    """Widget id of an editor field: ``auth.token_env`` -> ``set-auth-token_env``."""
    return "set-" + key.replace(".", "-")


def _description(key: str) -> str | None:
    if key.startswith("auth."):
        return field_doc(Auth, key[5:])
    if key.startswith("base_urls."):
        return None
    return field_doc(Environment, key)


class EnvironmentEditor(VerticalScroll):
    class Edited(Message):
        """The user changed a field; ``draft`` holds the new values, not yet checked."""

        def __init__(self, draft: Draft) -> None:
            super().__init__()
            self.draft = draft

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._draft: Draft | None = None
        self._shown: dict[str, str | Text] = {}

    @property
    def draft(self) -> Draft:
        """The draft on show (one is loaded when the screen mounts)."""
        if self._draft is None:
            raise LookupError("no environment loaded in the editor yet")
        return self._draft

    # --- layout ---

    def compose(self) -> ComposeResult:
        yield Static("", id="editor-title", classes="settings-title", markup=False)
        yield from self._row("name", TextInput(id=_wid("name"), placeholder="e.g. staging"))
        with self._row_box("embedded"):
            yield Label("embedded", classes="set-label", id=_wid("embedded") + "-label")
            with Vertical(classes="set-control"):
                with Horizontal(classes="set-inline"):
                    yield Switch(id=_wid("embedded"))
                    yield Static("", classes="set-switch-hint", id="embedded-state")
                yield SnugStatic(
                    "", classes="set-error", id=_wid("embedded") + "-error", markup=False
                )
        yield from self._row("seed", TextInput(id=_wid("seed"), type="integer"))
        yield from self._row(
            "base_url",
            TextInput(id=_wid("base_url"), placeholder="e.g. https://registry.example.com"),
        )
        with Collapsible(
            title="per-group URLs (optional, override base_url)", id="group-urls", collapsed=True
        ):
            for group in GROUPS:
                yield from self._row(
                    f"base_urls.{group}",
                    TextInput(id=_wid(f"base_urls.{group}"), placeholder="(uses base_url)"),
                    label=group,
                )
        yield from self._row(
            "format", Select([(f, f) for f in FORMATS], id=_wid("format"), allow_blank=False)
        )
        yield from self._row(
            "timeout", TextInput(id=_wid("timeout"), type="number"), label="timeout (s)"
        )
        yield Static(SECRET_HINT, classes="set-hint", id="secret-hint")
        yield from self._row(
            "auth.type",
            Select([(t, t) for t in AUTH_TYPES], id=_wid("auth.type"), allow_blank=False),
            label="auth type",
        )
        for name in AUTH_FIELDS:
            yield from self._row(
                f"auth.{name}", TextInput(id=_wid(f"auth.{name}")), status=name.endswith("_env")
            )

    def _row_box(self, key: str) -> Horizontal:
        return Horizontal(classes="set-row", id=_wid(key) + "-row")

    def _row(
        self, key: str, control: Widget, *, label: str | None = None, status: bool = False
    ) -> ComposeResult:
        description = _description(key)
        if description:
            control.tooltip = description
        with self._row_box(key):
            yield Label(
                label or key.rpartition(".")[2], classes="set-label", id=_wid(key) + "-label"
            )
            with Vertical(classes="set-control"):
                yield control
                if status:
                    yield SnugStatic(
                        "", classes="env-status", id=_wid(key) + "-status", markup=False
                    )
                yield SnugStatic("", classes="set-error", id=_wid(key) + "-error", markup=False)

    # --- the draft in, the user's edits out ---

    def load(self, draft: Draft) -> None:
        """Show ``draft`` in the fields (not an edit: no :class:`Edited` is posted)."""
        self._draft = draft
        values = draft.values
        with self.prevent(Input.Changed, Select.Changed, Switch.Changed):
            self.query_one("#" + _wid("name"), Input).value = draft.name
            self.query_one("#" + _wid("embedded"), Switch).value = values["embedded"]
            for key in TEXT_KEYS:
                self.query_one("#" + _wid(key), Input).value = values[key]
            self.query_one("#" + _wid("format"), Select).value = values["format"]
            self.query_one("#" + _wid("auth.type"), Select).value = values["auth.type"]
        self.query_one("#group-urls", Collapsible).collapsed = not any(
            values[f"base_urls.{g}"] for g in GROUPS
        )

    def read(self) -> None:
        """Copy every field into the draft (idempotent, so a late event after switching
        drafts only re-reads what the new draft already holds)."""
        draft = self.draft
        draft.name = self.query_one("#" + _wid("name"), Input).value
        draft.values["embedded"] = self.query_one("#" + _wid("embedded"), Switch).value
        for key in TEXT_KEYS:
            draft.values[key] = self.query_one("#" + _wid(key), Input).value
        for key in ("format", "auth.type"):
            draft.values[key] = self.query_one("#" + _wid(key), Select).value

    @on(Input.Changed)
    @on(Select.Changed)
    @on(Switch.Changed)
    def _edited(self, event: Input.Changed | Select.Changed | Switch.Changed) -> None:
        event.stop()
        if self._draft is None:
            return  # a field settling as it mounts, before a draft is loaded: no edit
        self.read()
        self.post_message(self.Edited(self.draft))

    def focus_field(self, key: str) -> None:
        """Focus the field of ``key`` (``name``, ``auth.token_env``...), opening its group."""
        if key.startswith("base_urls."):
            self.query_one("#group-urls", Collapsible).collapsed = False
        self.query_one("#" + _wid(key)).focus()

    # --- showing the draft's state ---

    def show(self, *, active: bool) -> None:
        """Show the draft as last checked: which rows apply, its errors, its variables."""
        draft = self.draft
        values = draft.values
        title = draft.name.strip() or "(no name)"
        self._update(
            "#editor-title",
            Text.assemble("Environment ", (title, "bold"), "  (active)" if active else ""),
        )
        embedded = bool(values["embedded"])
        self._update(
            "#embedded-state",
            "yes: the sandbox runs in-process; no URL"
            if embedded
            else "no: a server at the URLs below",
        )
        self._show_row("seed", embedded)
        self._show_row("base_url", not embedded)
        self.query_one("#group-urls").display = not embedded
        relevant = set(auth_fields_for(values["auth.type"]))
        for name in AUTH_FIELDS:
            self._show_row(f"auth.{name}", name in relevant)
            required = is_required(values["auth.type"], name)
            self._update("#" + _wid(f"auth.{name}") + "-label", f"{name} *" if required else name)
        self.query_one("#secret-hint").display = values["auth.type"] != "none"
        for key in ("name", "embedded", "format", "auth.type", *TEXT_KEYS):
            messages = draft.errors.get(key, [])
            self.query_one("#" + _wid(key) + "-row").set_class(bool(messages), "-invalid")
            self._update(
                "#" + _wid(key) + "-error",
                Text("\n".join(f"✗ {m}" for m in messages)),
                shown=bool(messages),
            )
        for name in AUTH_FIELDS:
            if name.endswith("_env"):
                self._show_env_status(
                    name,
                    values[f"auth.{name}"].strip(),
                    keyring=values["auth.keyring_service"].strip(),
                    has_error=bool(draft.errors.get(f"auth.{name}")),
                )

    def _show_row(self, key: str, shown: bool) -> None:
        row = self.query_one("#" + _wid(key) + "-row")
        if row.display != shown:
            row.display = shown

    def _update(self, selector: str, content: str | Text, *, shown: bool = True) -> None:
        """Update a label only when its words change: every update costs a repaint (a
        plain Static's a layout pass too), and this runs on each keystroke."""
        widget = self.query_one(selector, Static)
        if self._shown.get(selector) != content:
            self._shown[selector] = content
            widget.update(content)
        if widget.display != shown:
            widget.display = shown

    def _show_env_status(self, name: str, variable: str, *, keyring: str, has_error: bool) -> None:
        """Whether the named variable is set, in words; its value is never read out."""
        wid = "#" + _wid(f"auth.{name}") + "-status"
        if not variable or has_error:
            self._update(wid, "", shown=False)
            return
        is_set = bool(os.environ.get(variable))
        if is_set:
            words = f"{variable} is set"
        elif keyring:
            words = f"{variable} is not set in this terminal; the keyring ({keyring}) is asked"
        else:
            words = f"{variable} is not set in this terminal"
        self._update(wid, Text(words))
        status = self.query_one(wid)
        status.set_class(is_set, "-set")
        status.set_class(not is_set, "-unset")
