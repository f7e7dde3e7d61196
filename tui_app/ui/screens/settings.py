"""Settings: environments (add, edit, delete, set active), the theme and PII masking.

The editor validates as the user types by building the config models themselves
(``Environment`` with its ``Auth``) and showing their messages under the fields they name;
no rule of the config is copied here. Edits to environments are a draft until saved (Ctrl+S,
``s`` or the Save button); the theme and the masking default apply and persist at once.
Secrets are never asked for: the config only names the environment variables holding them,
and this screen says whether each variable is set, never what it holds.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from pydantic import ValidationError
from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import (
    Button,
    Collapsible,
    Input,
    Label,
    OptionList,
    Select,
    Static,
    Switch,
)
from textual.widgets.option_list import Option

from tui_app.config import GROUPS, Auth, Config, Environment
from tui_app.contract.errors import field_errors
from tui_app.environment_form import (
    AUTH_FIELDS,
    AUTH_TYPES,
    FORMATS,
    TEXT_KEYS,
    Draft,
    auth_fields_for,
    is_required,
    values_of,
)
from tui_app.ui.screens.base import AreaScreen
from tui_app.ui.screens.dialogs import ConfirmScreen
from tui_app.ui.widgets.preferences import Preferences

SECRET_HINT = (
    "Secrets live in environment variables: give the variable's NAME here, never "
    "the secret. The config file stores only names."
)


def _wid(key: str) -> str:
    """Widget id of an editor field: ``auth.token_env`` -> ``set-auth-token_env``."""
    return "set-" + key.replace(".", "-")


class SettingsScreen(AreaScreen):
    AREA = "Settings"
    BINDINGS = [
        Binding("n", "new", "New env", id="settings.new"),
        Binding("e", "edit", "Edit", id="settings.edit"),
        Binding("d", "delete", "Delete", id="settings.delete"),
        Binding("a", "activate", "Set active", id="settings.activate"),
        Binding("ctrl+s,s", "save", "Save", id="settings.save"),
        Binding("t", "theme", "Theme", id="settings.theme"),
        Binding("m", "mask", "Masking", id="settings.mask"),
        Binding("escape", "back", "Back to list", id="settings.back", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        config: Config = self.app.config
        self.drafts: list[Draft] = [
            Draft(name, env, values_of(env)) for name, env in config.environments.items()
        ]
        for draft in self.drafts:
            draft.revalidate(self.drafts)
        self.active: Draft = next(d for d in self.drafts if d.name == config.active)
        self.current: Draft = self.active
        self._shown: dict[str, str | Text] = {}
        self._saved = self._snapshot()

    # --- layout ---

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="settings-main"):
            with VerticalScroll(id="settings-left"):
                yield Static("[b]Environments[/b]", classes="settings-title")
                yield OptionList(id="env-list")
                yield Static(
                    "n new · e or Enter edit · d delete · a set active · Esc back here",
                    classes="set-hint",
                    id="env-keys",
                )
                with Horizontal(id="save-bar"):
                    yield Button("Save", id="save", variant="primary")
                    yield Static("", id="save-state")
                yield Preferences()
            with VerticalScroll(id="env-editor"):
                yield Static("", id="editor-title", classes="settings-title")
                yield from self._row("name", Input(id=_wid("name"), placeholder="e.g. staging"))
                with self._row_box("embedded"):
                    yield Label("embedded", classes="set-label", id=_wid("embedded") + "-label")
                    with Vertical(classes="set-control"):
                        with Horizontal(classes="set-inline"):
                            yield Switch(id=_wid("embedded"))
                            yield Static("", classes="set-switch-hint", id="embedded-state")
                        yield Static("", classes="set-error", id=_wid("embedded") + "-error")
                yield from self._row("seed", Input(id=_wid("seed"), type="integer"))
                yield from self._row(
                    "base_url",
                    Input(id=_wid("base_url"), placeholder="e.g. https://registry.example.com"),
                )
                with Collapsible(
                    title="per-group URLs (optional, override base_url)",
                    id="group-urls",
                    collapsed=True,
                ):
                    for group in GROUPS:
                        yield from self._row(
                            f"base_urls.{group}",
                            Input(id=_wid(f"base_urls.{group}"), placeholder="(uses base_url)"),
                            label=group,
                        )
                yield from self._row(
                    "format",
                    Select([(f, f) for f in FORMATS], id=_wid("format"), allow_blank=False),
                )
                yield from self._row(
                    "timeout", Input(id=_wid("timeout"), type="number"), label="timeout (s)"
                )
                yield Static(SECRET_HINT, classes="set-hint", id="secret-hint")
                yield from self._row(
                    "auth.type",
                    Select([(t, t) for t in AUTH_TYPES], id=_wid("auth.type"), allow_blank=False),
                    label="auth type",
                )
                for name in AUTH_FIELDS:
                    yield from self._row(
                        f"auth.{name}", Input(id=_wid(f"auth.{name}")), status=name.endswith("_env")
                    )

    def _row_box(self, key: str) -> Horizontal:
        return Horizontal(classes="set-row", id=_wid(key) + "-row")

    def _row(
        self, key: str, control: Widget, *, label: str | None = None, status: bool = False
    ) -> ComposeResult:
        name = key.rpartition(".")[2]
        description = self._description(key)
        if description:
            control.tooltip = description
        with self._row_box(key):
            yield Label(label or name, classes="set-label", id=_wid(key) + "-label")
            with Vertical(classes="set-control"):
                yield control
                if status:
                    yield Static("", classes="env-status", id=_wid(key) + "-status")
                yield Static("", classes="set-error", id=_wid(key) + "-error")

    @staticmethod
    def _description(key: str) -> str | None:
        if key.startswith("auth."):
            return Auth.model_fields[key[5:]].description
        if key.startswith("base_urls."):
            return None
        info = Environment.model_fields.get(key)
        return info.description if info else None

    def on_mount(self) -> None:
        self._render_list()
        self.query_one("#env-list", OptionList).highlighted = self.drafts.index(self.current)
        self._load(self.current)
        self.query_one("#env-list").focus()

    # --- the list ---

    def _prompt(self, draft: Draft) -> Text:
        line = Text(draft.name.strip() or "(no name)", style="bold")
        if draft is self.active:
            line.append("  active")
        if draft.errors:
            line.append("  ✗ needs fixing")
        line.append("\n  ")
        line.append(draft.where(), style="dim")
        return line

    def _render_list(self) -> None:
        options = self.query_one("#env-list", OptionList)
        if options.option_count != len(self.drafts):
            highlighted = options.highlighted
            options.clear_options()
            options.add_options(Option(self._prompt(d)) for d in self.drafts)
            if highlighted is not None:
                options.highlighted = min(highlighted, len(self.drafts) - 1)
        else:
            for index, draft in enumerate(self.drafts):
                prompt = self._prompt(draft)
                if options.get_option_at_index(index).prompt != prompt:
                    options.replace_option_prompt_at_index(index, prompt)
        self._show_save_state()

    def _show_save_state(self) -> None:
        dirty = self._snapshot() != self._saved
        self._update("#save-state", "unsaved changes" if dirty else "all saved")
        self.query_one("#save-state").set_class(dirty, "-dirty")

    def _snapshot(self) -> tuple:
        envs = tuple(
            (d.name, d.env.model_dump(exclude_unset=True) if d.env else ("invalid", dict(d.values)))
            for d in self.drafts
        )
        return envs, self.active.name

    @on(OptionList.OptionHighlighted, "#env-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        draft = self.drafts[event.option_index]
        if draft is not self.current:
            self._load(draft)

    @on(OptionList.OptionSelected, "#env-list")
    def _selected(self) -> None:
        self.action_edit()

    # --- the editor ---

    def _load(self, draft: Draft) -> None:
        self.current = draft
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
        self._show_editor()

    def _read(self) -> None:
        """Copy every editor widget into the current draft (idempotent, so a late event
        after switching drafts only re-reads what the new draft already holds)."""
        draft = self.current
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
        wid = event.control.id or ""
        if not wid.startswith("set-"):
            return
        self._read()
        self._show_editor()

    def _show_editor(self) -> None:
        for draft in self.drafts:
            draft.revalidate(self.drafts)
        draft = self.current
        values = draft.values
        title = draft.name.strip() or "(no name)"
        self._update(
            "#editor-title",
            Text.assemble(
                "Environment ", (title, "bold"), "  (active)" if draft is self.active else ""
            ),
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
        self._render_list()

    def _show_row(self, key: str, shown: bool) -> None:
        row = self.query_one("#" + _wid(key) + "-row")
        if row.display != shown:
            row.display = shown

    def _update(self, selector: str, content: str | Text, *, shown: bool = True) -> None:
        """Update a label only when its words change: every update costs a layout pass,
        and this runs on each keystroke."""
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

    # --- actions ---

    def action_new(self) -> None:
        names = {d.name.strip() for d in self.drafts}
        name = next(n for n in ("new", *(f"new-{i}" for i in range(2, 1000))) if n not in names)
        draft = Draft.new(name)
        self.drafts.append(draft)
        draft.revalidate(self.drafts)
        self._render_list()
        self.query_one("#env-list", OptionList).highlighted = len(self.drafts) - 1
        self._load(draft)
        self.query_one("#" + _wid("name"), Input).focus()

    def action_edit(self) -> None:
        self.query_one("#" + _wid("name"), Input).focus()

    def action_delete(self) -> None:
        draft = self._highlighted_draft()
        name = draft.name.strip() or "(no name)"
        if len(self.drafts) == 1:
            self.notify(
                f"{name} is the only environment, and one is needed.",
                title="Not deleted",
                severity="warning",
            )
            return
        if draft is self.active:
            self.notify(
                f"{name} is the active environment. Set another one active first "
                "(a), then delete this one.",
                title="Not deleted",
                severity="warning",
            )
            return

        def answered(yes: bool | None) -> None:
            if yes and draft in self.drafts:
                self._remove(draft)

        question = (
            f"Delete the environment [b]{escape(name)}[/b]?\n"
            "It leaves the config file when you save."
        )
        self.app.push_screen(ConfirmScreen(question, yes="Delete"), answered)

    def _remove(self, draft: Draft) -> None:
        index = self.drafts.index(draft)
        self.drafts.remove(draft)
        self._render_list()
        options = self.query_one("#env-list", OptionList)
        options.highlighted = min(index, len(self.drafts) - 1)
        self._load(self.drafts[options.highlighted])
        options.focus()
        self.notify(f"{draft.name.strip()} deleted; save to write it to the file.")

    def _highlighted_draft(self) -> Draft:
        index = self.query_one("#env-list", OptionList).highlighted
        return self.drafts[index] if index is not None else self.current

    def action_activate(self) -> None:
        draft = self._highlighted_draft()
        self.active = draft
        self._show_editor()
        self.notify(f"{draft.name.strip()} will be the active environment once you save.")

    def action_theme(self) -> None:
        self.query_one(Preferences).focus_theme()

    def action_mask(self) -> None:
        self.query_one(Preferences).toggle_mask()

    def action_back(self) -> None:
        self.query_one("#env-list").focus()

    async def action_save(self) -> None:
        self._read()
        for draft in self.drafts:
            draft.revalidate(self.drafts)
        for draft in self.drafts:
            if draft.errors:
                self._show_problem(draft)
                return
        old: Config = self.app.config
        data = {name: getattr(old, name) for name in old.model_fields_set}
        data["environments"] = {d.name.strip(): d.env for d in self.drafts}
        data["active"] = self.active.name.strip()
        data["mask_pii"] = self.query_one(Preferences).mask_pii
        try:
            config = Config.model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(map(str, field_errors(exc)))
            self.notify(problems, title="Settings not saved", severity="error", timeout=10)
            return
        if not self.app.save_settings(config):
            return  # the app has said why
        for draft in self.drafts:
            draft.name = draft.name.strip()
            draft.original = config.environments[draft.name]
        self._saved = self._snapshot()
        self._show_editor()
        name, env = config.active_env()
        if (name, env) != old.active_env():
            self.notify(f"Active environment is now {name}: reconnecting…", title="Saved")
            self.reconnect(name, env)
        else:
            self.notify("Settings saved.", title="Saved")

    def _show_problem(self, draft: Draft) -> None:
        key, messages = next(iter(draft.errors.items()))
        field_name = "auth" if key == "auth.type" else key.removeprefix("auth.")
        name = draft.name.strip() or "(no name)"
        self.notify(
            f"{name}: {field_name}: {messages[0]}",
            title="Settings not saved",
            severity="error",
            timeout=10,
        )
        self.query_one("#env-list", OptionList).highlighted = self.drafts.index(draft)
        self._load(draft)
        if key.startswith("base_urls."):
            self.query_one("#group-urls", Collapsible).collapsed = False
        self.query_one("#" + _wid(key)).focus()

    @work(exclusive=True, group="settings-reconnect")
    async def reconnect(self, name: str, env: Environment) -> None:
        await self.app.switch_environment(name, env)

    @on(Button.Pressed, "#save")
    async def _save_pressed(self) -> None:
        await self.action_save()

    # --- command palette ---

    def commands(self) -> Iterator[SystemCommand]:
        yield SystemCommand("New environment", "Add an environment (n)", self.action_new)
        yield SystemCommand(
            "Delete environment", "Delete the highlighted one (d)", self.action_delete
        )
        yield SystemCommand(
            "Set active environment", "Use the highlighted one (a)", self.action_activate
        )
        yield SystemCommand(
            "Save settings", "Write the config file (Ctrl+S or s)", self.action_save
        )
