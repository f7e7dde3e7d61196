"""Settings: environments (add, edit, delete, set active), the theme and PII masking.

The screen holds the drafts and composes three widgets that talk to it by messages: the
list (:class:`EnvironmentList`), the editor (:class:`EnvironmentEditor`) and the
preferences (:class:`Preferences`). The drafts are validated as the user types by building
the config models themselves (``Environment`` with its ``Auth``), whose messages show under
the fields they name; no rule of the config is copied here. Edits to environments are a
draft until saved (Ctrl+S, ``s`` or the Save button); the theme and the masking default
apply and persist at once. Secrets are never asked for: the config only names the
environment variables holding them, and the editor says whether each variable is set,
never what it holds.
"""

from __future__ import annotations

from dataclasses import replace

from pydantic import ValidationError
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widget import Widget
from textual.widgets import Button, Input, Static

from tui_app.config import Config, ConfigConflict, ConfigError, Environment
from tui_app.contract.errors import field_errors
from tui_app.environment_form import Draft, values_of
from tui_app.ui.screens.base import BACK_KEY, AreaScreen
from tui_app.ui.screens.dialogs import ConfirmScreen
from tui_app.ui.widgets.environment_editor import EnvironmentEditor
from tui_app.ui.widgets.environment_list import EnvironmentList
from tui_app.ui.widgets.preferences import Preferences


class SettingsScreen(AreaScreen):
    AREA = "Settings"
    # fmt: off
    BINDINGS = [
        Binding("n", "new", "New env", tooltip="Add an environment", id="settings.new"),
        Binding("e", "edit", "Edit", tooltip="Change the highlighted environment", id="settings.edit"),
        Binding("d", "delete", "Delete", tooltip="Delete the highlighted environment", id="settings.delete"),
        Binding("a", "activate", "Set active", tooltip="Use the highlighted environment", id="settings.activate"),
        Binding("ctrl+s,s", "save", "Save", tooltip="Write the config file", id="settings.save"),
        Binding("t", "theme", "Theme", tooltip="Choose the colours", id="settings.theme"),
        Binding("m", "mask", "Masking", tooltip="Mask personal data by default, or not", id="settings.mask"),
        replace(BACK_KEY, description="Back to list", id="settings.back"),
    ]
    # fmt: on

    def __init__(self) -> None:
        super().__init__()
        config: Config = self.app.config
        self._take(config)
        self.current: Draft = self.active
        self.mask_pii = config.mask_pii
        self._check()
        self._saved = self._snapshot()
        self._dirty_shown: bool | None = None

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="settings-main"):
            with VerticalScroll(id="settings-left"):
                yield Static("[b]Environments[/b]", classes="settings-title")
                yield EnvironmentList(id="env-list")
                yield Static(
                    "n new · e or Enter edit · d delete · a set active · Esc back here",
                    classes="set-hint",
                    id="env-keys",
                )
                with Horizontal(id="save-bar"):
                    yield Button("Save", id="save", variant="primary")
                    yield Static("", id="save-state", markup=False)
                yield Preferences()
            yield EnvironmentEditor(id="env-editor")

    @property
    def env_list(self) -> EnvironmentList:
        return self.query_one(EnvironmentList)

    @property
    def editor(self) -> EnvironmentEditor:
        return self.query_one(EnvironmentEditor)

    def on_mount(self) -> None:
        self.env_list.show(self.drafts, self.active)
        self.env_list.highlight(self.current)
        self._load(self.current)
        self.env_list.focus()
        # A connection's secret prompt may set a variable: the editor says so once it has
        # (only the editor: the list keeps its place while the health check ticks).
        self.watch(self.app, "service_state", self._show_editor, init=False)

    # --- the drafts, shown ---

    def _take(self, config: Config) -> None:
        """Edit ``config``'s environments; it is the base the next save changes."""
        self.base = config
        self.drafts: list[Draft] = [
            Draft(name, env, values_of(env), saved_name=name)
            for name, env in config.environments.items()
        ]
        self.active: Draft = next(d for d in self.drafts if d.name == config.active)

    def _check(self) -> None:
        for draft in self.drafts:
            draft.revalidate(self.drafts)

    def _load(self, draft: Draft) -> None:
        self.current = draft
        self.editor.load(draft)
        self._refresh()

    def _refresh(self) -> None:
        """Check every draft (each name against the others) and show the outcome."""
        self._check()
        self._show_editor()
        self.env_list.show(self.drafts, self.active)
        dirty = self._dirty
        if dirty != self._dirty_shown:
            self._dirty_shown = dirty
            state = self.query_one("#save-state", Static)
            state.update("unsaved changes" if dirty else "all saved")
            state.set_class(dirty, "-dirty")

    @property
    def _dirty(self) -> bool:
        """Changed since loaded or last saved."""
        return self._snapshot() != self._saved

    def _show_editor(self, _state: str = "") -> None:
        self.editor.show(active=self.current is self.active)

    def _snapshot(self) -> tuple:
        envs = tuple(
            (d.name, d.env.model_dump(exclude_unset=True) if d.env else ("invalid", dict(d.values)))
            for d in self.drafts
        )
        return envs, self.active.name

    @on(EnvironmentList.Chosen)
    def _chosen(self, event: EnvironmentList.Chosen) -> None:
        if event.draft is not self.current and event.draft in self.drafts:  # not one deleted
            self._load(event.draft)

    @on(EnvironmentList.Opened)
    def _opened(self) -> None:
        self.action_edit()

    @on(EnvironmentEditor.Edited)
    def _edited(self) -> None:
        self._refresh()

    # --- actions ---

    def action_new(self) -> None:
        names = {d.name.strip() for d in self.drafts}
        name = next(n for n in ("new", *(f"new-{i}" for i in range(2, 1000))) if n not in names)
        draft = Draft.new(name)
        self.drafts.append(draft)
        self._load(draft)
        self.env_list.highlight(draft)
        self.editor.focus_field("name")
        # The suggested name is selected: the first key typed replaces it.
        self.editor.query_one("#set-name", Input).select_all()

    def action_edit(self) -> None:
        self.editor.focus_field("name")

    def action_delete(self) -> None:
        draft = self.env_list.highlighted_draft or self.current
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

        question = f"Delete the environment {name}?\nIt leaves the config file when you save."
        self.app.push_screen(ConfirmScreen(question, yes="Delete"), answered)

    def _remove(self, draft: Draft) -> None:
        index = self.drafts.index(draft)
        self.drafts.remove(draft)
        shown = self.drafts[min(index, len(self.drafts) - 1)]
        self._load(shown)
        self.env_list.highlight(shown)
        self.env_list.focus()
        self.notify(f"{draft.name.strip()} deleted; save to write it to the file.")

    def action_activate(self) -> None:
        draft = self.env_list.highlighted_draft or self.current
        name = draft.name.strip()
        if draft is self.active and name == self.app.config.active:
            self.notify(f"{name} is the active environment already.")  # QA: "will be", it said
            return
        self.active = draft
        self._refresh()
        self.notify(f"{name} will be the active environment once you save.")

    def action_theme(self) -> None:
        self.query_one(Preferences).focus_theme()

    def action_mask(self) -> None:
        self.query_one(Preferences).toggle_mask()

    def unsaved(self) -> str | None:
        return "the settings have changes not saved" if self._dirty else None

    def field_home(self, field: Widget) -> Widget | None:
        return self.env_list

    def back_out(self) -> None:
        self.set_focus(self.env_list)

    async def action_save(self) -> None:
        self.editor.read()  # the last keystroke's Edited may still be on its way
        self._check()
        # The one on show first: a problem elsewhere takes the editor to that one.
        for draft in sorted(self.drafts, key=lambda d: d is not self.current):
            if draft.errors:
                self._show_problem(draft)
                return
        base = self.base
        data = {name: getattr(base, name) for name in base.model_fields_set}
        data["environments"] = {d.name.strip(): d.env for d in self.drafts}
        data["active"] = self.active.name.strip()
        if self.mask_pii != base.mask_pii:  # its own save failed
            data["mask_pii"] = self.mask_pii
        try:
            config = Config.model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(map(str, field_errors(exc)))
            self.notify(problems, title="Settings not saved", severity="error", timeout=10)
            return
        self._write(config)

    def _write(self, config: Config, overwrite: bool = False) -> None:
        """Save ``config`` over what the file holds now (another instance's save, an
        edit): kept, unless it changed what this one did, which the user settles."""
        base = self.base
        try:
            renamed = {d.name.strip() for d in self.drafts if d.name.strip() != d.saved_name}
            saved = self.app.write_config(config, base, overwrite=overwrite, renamed=renamed)
        except ConfigConflict as exc:

            def answered(yes: bool | None) -> None:
                if yes:
                    self._write(config, overwrite=True)

            question = f"{exc}.\nSave your version of them over the file's?"
            self.app.push_screen(ConfirmScreen(question, yes="Overwrite"), answered)
            return
        except ConfigError as exc:
            self.notify(str(exc), title="Settings not saved", severity="error", timeout=10)
            return
        if (saved.environments, saved.active) == (config.environments, config.active):
            self.base = saved
            for draft in self.drafts:
                draft.name = draft.saved_name = draft.name.strip()
                draft.original = saved.environments[draft.name]
        else:  # the file brought environments of its own: show them
            current = self.current.name.strip()
            self._take(saved)
            shown = next((d for d in self.drafts if d.name == current), self.active)
            self._load(shown)
            self.env_list.highlight(shown)
        self._saved = self._snapshot()
        self._refresh()
        name, env = saved.active_env()
        if (name, env) != base.active_env():
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
        self.env_list.highlight(draft)
        self._load(draft)
        self.editor.focus_field(key)

    @work(exclusive=True, group="settings-reconnect")
    async def reconnect(self, name: str, env: Environment) -> None:
        await self.app.switch_environment(name, env)

    @on(Button.Pressed, "#save")
    async def _save_pressed(self) -> None:
        await self.action_save()

    # --- preferences: applied and saved at once ---

    @on(Preferences.ThemeChosen)
    def _theme_chosen(self, event: Preferences.ThemeChosen) -> None:
        self.app.theme = event.theme  # the app saves the choice

    @on(Preferences.MaskChanged)
    def _mask_changed(self, event: Preferences.MaskChanged) -> None:
        self.mask_pii = mask = event.mask
        self.app.reveal_pii = not mask
        config = self.app.config
        if config.mask_pii != mask or "mask_pii" not in config.model_fields_set:
            self.app.save_settings(config.model_copy(update={"mask_pii": mask}))
        self.notify("Personal data masked by default" if mask else "Personal data shown by default")

    # --- command palette ---
