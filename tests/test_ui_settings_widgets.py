"""The Settings area's three widgets and their messages: each posts its message on the
user's action (in a bare host app, so nothing else answers), and the screen reacts to each
(posted from the widget it comes from, as the widget would)."""

from __future__ import annotations

import tomllib

from textual import on
from textual.app import App, ComposeResult
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Label, Select, Static
from ui_support import SIZE

from tui_app.config import Environment, config_path, default_config, load_config
from tui_app.environment_form import Draft, values_of
from tui_app.ui.screens.settings import SettingsScreen
from tui_app.ui.widgets.environment_editor import EnvironmentEditor
from tui_app.ui.widgets.environment_list import EnvironmentList
from tui_app.ui.widgets.preferences import Preferences

STAGING_URL = "https://staging.example.com"


def draft(name: str, env: Environment) -> Draft:
    return Draft(name, env, values_of(env))


class Host(App):
    """One widget alone; every settings message that reaches the app is kept in order."""

    def __init__(self, widget: Widget) -> None:
        super().__init__()
        self.widget = widget
        self.config = default_config()  # what Preferences reads from ProducerApp
        self.seen: list[Message] = []

    def compose(self) -> ComposeResult:
        yield self.widget

    @on(EnvironmentList.Chosen)
    @on(EnvironmentList.Opened)
    @on(EnvironmentEditor.Edited)
    @on(Preferences.ThemeChosen)
    @on(Preferences.MaskChanged)
    def _seen(self, message: Message) -> None:
        self.seen.append(message)


async def test_the_list_posts_chosen_when_the_highlight_moves_and_opened_on_enter() -> None:
    sandbox = draft("sandbox", Environment(embedded=True))
    staging = draft("staging", Environment(base_url=STAGING_URL))
    staging.errors = {"base_url": ["needs base_url"]}
    env_list = EnvironmentList(id="env-list")
    app = Host(env_list)
    async with app.run_test(size=SIZE) as pilot:
        env_list.show([sandbox, staging], sandbox)
        env_list.highlight(sandbox)
        env_list.focus()
        await pilot.pause()
        assert "active" in str(env_list.get_option_at_index(0).prompt)
        assert "needs fixing" in str(env_list.get_option_at_index(1).prompt)
        app.seen.clear()

        await pilot.press("down")
        await pilot.pause()
        assert [(type(m), m.draft) for m in app.seen] == [(EnvironmentList.Chosen, staging)]
        assert env_list.highlighted_draft is staging

        await pilot.press("enter")
        await pilot.pause()
        assert [(type(m), m.draft) for m in app.seen[1:]] == [(EnvironmentList.Opened, staging)]

        # One more draft: the list redraws quietly; the screen says which to highlight.
        app.seen.clear()
        env_list.show([sandbox, staging, draft("qa", Environment(embedded=True))], sandbox)
        await pilot.pause()
        assert env_list.option_count == 3
        assert app.seen == []


async def test_the_editor_posts_edited_with_what_was_typed_in_its_draft() -> None:
    editor = EnvironmentEditor(id="env-editor")
    app = Host(editor)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.seen == []  # fields settling as they mount are no edit
        staging = draft("staging", Environment(base_url=STAGING_URL))
        editor.load(staging)
        await pilot.pause()
        assert editor.query_one("#set-base_url", Input).value == STAGING_URL
        assert app.seen == []  # nor is showing a draft

        editor.query_one("#set-base_url", Input).focus()
        await pilot.press("end", "/", "v", "2")
        await pilot.pause()
        assert app.seen and all(
            isinstance(m, EnvironmentEditor.Edited) and m.draft is staging for m in app.seen
        )
        assert staging.values["base_url"] == STAGING_URL + "/v2"

        editor.query_one("#set-auth-type", Select).value = "bearer"
        await pilot.pause()
        assert staging.values["auth.type"] == "bearer"


async def test_preferences_post_their_choices_and_leave_applying_them_to_the_screen() -> None:
    preferences = Preferences()
    app = Host(preferences)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        preferences.toggle_mask()
        await pilot.pause()
        assert [(type(m), m.mask) for m in app.seen] == [(Preferences.MaskChanged, False)]
        assert "off" in str(preferences.query_one("#mask-label", Label).render())
        assert app.config.mask_pii is True  # not the widget's to save

        app.seen.clear()
        preferences.query_one("#theme", Select).value = "nord"
        await pilot.pause()
        assert [(type(m), m.theme) for m in app.seen] == [(Preferences.ThemeChosen, "nord")]
        assert app.theme != "nord"  # not the widget's to apply


async def test_the_screen_reacts_to_each_widgets_message(ui_app) -> None:
    app = ui_app()  # on the sandbox seeded once per session
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.screen.set_focus(None)
        await pilot.press("6")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        env_list, editor = screen.env_list, screen.editor
        assert [d.name for d in screen.drafts] == ["sandbox"]
        staging = draft("staging", Environment(base_url=STAGING_URL))
        screen.drafts.append(staging)

        env_list.post_message(EnvironmentList.Chosen(staging))
        await pilot.pause()
        assert screen.current is staging
        assert editor.query_one("#set-base_url", Input).value == STAGING_URL
        assert [d.name for d in env_list.drafts] == ["sandbox", "staging"]

        env_list.post_message(EnvironmentList.Opened(staging))
        await pilot.pause()
        assert app.focused is editor.query_one("#set-name", Input)

        staging.name = "sandbox"  # as the editor's fields would write it
        editor.post_message(EnvironmentEditor.Edited(staging))
        await pilot.pause()
        assert "another environment is already named sandbox" in str(
            editor.query_one("#set-name-error", Static).render()
        )
        assert "needs fixing" in str(env_list.get_option_at_index(1).prompt)
        assert str(screen.query_one("#save-state", Static).render()) == "unsaved changes"

        preferences = screen.query_one(Preferences)
        preferences.post_message(Preferences.MaskChanged(False))
        await pilot.pause()
        assert app.reveal_pii is True
        on_disk = tomllib.loads(config_path().read_text(encoding="utf-8"))
        assert on_disk["mask_pii"] is False

        preferences.post_message(Preferences.ThemeChosen("nord"))
        await pilot.pause()
        assert app.theme == "nord"
        assert load_config().theme == "nord"
        await app.workers.wait_for_complete()


async def test_the_editor_explains_each_field_by_its_docstring_in_the_config() -> None:
    """A field's tooltip is the docstring under it in tui_app.config (tui_app.field_docs)."""
    editor = EnvironmentEditor(id="env-editor")
    app = Host(editor)
    async with app.run_test(size=SIZE) as pilot:
        editor.load(draft("staging", Environment(base_url=STAGING_URL)))
        await pilot.pause()
        assert editor.query_one("#set-timeout").tooltip == "Seconds to wait for a response."
        assert editor.query_one("#set-auth-token_env").tooltip == (
            "bearer: name of the environment variable holding the token."
        )
