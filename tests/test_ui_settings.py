"""The Settings area, driven with real keys: environments, live validation, save, theme
and masking. The config file is the one the autouse fixture points at a temporary folder."""

from __future__ import annotations

import gc
import os
import tomllib
from datetime import date

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Select, Static
from ui_support import SIZE, layouts_asked, quit_asks, settle, wait_for

from tui_app.config import Auth, Environment, config_path, default_config, load_config, save_config
from tui_app.ui.app import ProducerApp
from tui_app.ui.screens.dialogs import ConfirmScreen, SecretScreen
from tui_app.ui.screens.settings import SettingsScreen

STAGING_URL = "https://staging.example.com"

pytestmark = pytest.mark.usefixtures("seeded_data")  # apps here start on the embedded sandbox


def on_disk() -> dict:
    return tomllib.loads(config_path().read_text(encoding="utf-8"))


def write_two_environments() -> None:
    """A config with the sandbox (active) and a staging server using bearer auth."""
    save_config(
        default_config().model_copy(
            update={
                "environments": {
                    "sandbox": Environment(embedded=True),
                    "staging": Environment(
                        base_url=STAGING_URL, auth=Auth(type="bearer", token_env="REGISTRY_TOKEN")
                    ),
                }
            }
        )
    )


async def open_settings(pilot: Pilot) -> SettingsScreen:
    await pilot.pause()
    # The first screen may focus an input that would take the digit; start from no focus.
    pilot.app.screen.set_focus(None)
    await pilot.press("6")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, SettingsScreen)
    return screen


def focused_id(pilot: Pilot) -> str | None:
    return pilot.app.focused.id if pilot.app.focused is not None else None


def error_text(screen: SettingsScreen, key: str) -> str:
    widget = screen.query_one(f"#set-{key.replace('.', '-')}-error", Static)
    return str(widget.render()) if widget.display else ""


async def type_text(pilot: Pilot, text: str) -> None:
    await pilot.press(*text)
    await pilot.pause()


async def clear_input(pilot: Pilot) -> None:
    await pilot.press("end", "ctrl+u")


async def paste(pilot: Pilot, text: str) -> None:
    """Put ``text`` in the focused input at once, as a paste does (one change, where
    typing is not what a test is about)."""
    pilot.app.focused.value = text
    await pilot.pause()


@pytest.fixture
def notes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every notification's message, in order."""
    seen: list[str] = []
    original = ProducerApp.notify

    def notify(self, message, *args, **kwargs):
        seen.append(str(message))
        return original(self, message, *args, **kwargs)

    monkeypatch.setattr(ProducerApp, "notify", notify)
    return seen


async def test_add_environment_with_live_errors_and_save(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REGISTRY_TOKEN", "s3cret-token-value")
    app = ProducerApp(load_config())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        assert focused_id(pilot) == "env-list"

        await pilot.press("n")
        assert focused_id(pilot) == "set-name"
        await type_text(pilot, "staging")  # replaces the suggested name, selected on focus
        assert screen.query_one("#set-name", Input).value == "staging"

        await pilot.press("tab", "tab")
        assert focused_id(pilot) == "set-base_url"
        # An empty server environment already says what it needs.
        assert "needs base_url" in error_text(screen, "base_url")
        await type_text(pilot, "ftp://x")
        assert "must be an http(s) URL with a host" in error_text(screen, "base_url")
        await paste(pilot, "https://user:pass@staging.example.com")
        assert "must not contain credentials" in error_text(screen, "base_url")
        assert screen.query_one("#set-base_url-row").has_class("-invalid")
        await paste(pilot, STAGING_URL)
        assert error_text(screen, "base_url") == ""
        assert not screen.query_one("#set-base_url-row").has_class("-invalid")

        # Only the settings of the chosen auth type are on show.
        assert not screen.query_one("#set-auth-token_env-row").display
        await pilot.press("tab", "tab", "tab", "tab")
        assert focused_id(pilot) == "set-auth-type"
        await pilot.press("enter", "down", "enter")
        await pilot.pause()
        assert screen.query_one("#set-auth-type", Select).value == "bearer"
        assert screen.query_one("#set-auth-token_env-row").display
        assert not screen.query_one("#set-auth-username-row").display
        assert "needs token_env" in error_text(screen, "auth.type")

        await pilot.press("tab")
        assert focused_id(pilot) == "set-auth-token_env"
        await paste(pilot, "REGISTRY_TOKEN")
        assert error_text(screen, "auth.type") == ""
        status = str(screen.query_one("#set-auth-token_env-status", Static).render())
        assert status == "REGISTRY_TOKEN is set"

        await pilot.press("escape")
        assert focused_id(pilot) == "env-list"
        await pilot.press("ctrl+s")
        await pilot.pause()

        data = on_disk()
        assert data["environments"]["staging"] == {
            "base_url": STAGING_URL,
            "auth": {"type": "bearer", "token_env": "REGISTRY_TOKEN"},
        }
        assert data["environments"]["sandbox"] == {"embedded": True}
        assert data["active"] == "sandbox"
        assert "s3cret-token-value" not in config_path().read_text(encoding="utf-8")
        assert app.config.environments["staging"].auth.token_env == "REGISTRY_TOKEN"
        await settle(app, pilot)


async def test_env_status_says_when_the_variable_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("REGISTRY_TOKEN", raising=False)
    write_two_environments()
    app = ProducerApp(load_config())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        await pilot.press("down")
        await pilot.pause()
        status = screen.query_one("#set-auth-token_env-status", Static)
        assert str(status.render()) == "REGISTRY_TOKEN is not set in this terminal"
        # The words follow each key typed, drawn in place: each key laid the screen out.
        field = screen.query_one("#set-auth-token_env", Input)
        field.focus()
        await pilot.press("end")
        status_asked, field_asked = layouts_asked(status), layouts_asked(field)
        await type_text(pilot, "_2")
        assert str(status.render()) == "REGISTRY_TOKEN_2 is not set in this terminal"
        assert status_asked and not any(status_asked + field_asked)
        await settle(app, pilot)


async def test_field_errors_come_from_the_config_models() -> None:
    app = ProducerApp(load_config())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        await pilot.press("n", *"qa", "tab", "tab")
        screen.query_one("#set-base_url", Input).value = STAGING_URL  # pasted
        screen.query_one("#set-timeout", Input).focus()
        await clear_input(pilot)
        await type_text(pilot, "0")
        assert error_text(screen, "timeout").startswith("✗ must be greater than 0")
        await clear_input(pilot)
        await type_text(pilot, "12.5")
        assert error_text(screen, "timeout") == ""

        screen.query_one("#set-auth-type", Select).value = "basic"
        await pilot.pause()
        assert screen.query_one("#set-auth-username-row").display
        assert screen.query_one("#set-auth-password_env-row").display
        assert not screen.query_one("#set-auth-token_env-row").display
        screen.query_one("#set-auth-password_env", Input).focus()
        await type_text(pilot, "my password")
        assert "must be the name of an environment variable" in error_text(
            screen, "auth.password_env"
        )
        await settle(app, pilot)


async def test_invalid_edits_are_not_saved(notes: list[str]) -> None:
    app = ProducerApp(load_config())
    async with app.run_test(size=SIZE) as pilot:
        await open_settings(pilot)
        before = config_path().read_text(encoding="utf-8")
        await pilot.press("n", *"broken", "tab", "tab", *"ftp://x")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert config_path().read_text(encoding="utf-8") == before
        assert any(n.startswith("broken: base_url: ") and "http(s)" in n for n in notes)
        assert focused_id(pilot) == "set-base_url"  # taken to the field to fix
        await settle(app, pilot)


async def test_set_active_saves_and_reconnects(monkeypatch: pytest.MonkeyPatch) -> None:
    # Unset, so the reconnect stops at the missing secret and never reaches the network.
    monkeypatch.delenv("REGISTRY_TOKEN", raising=False)
    write_two_environments()
    app = ProducerApp(load_config())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        await pilot.press("down", "a")
        await pilot.pause()
        assert "active" in str(
            screen.query_one("#env-list", OptionList).get_option_at_index(1).prompt
        )
        await pilot.press("s")
        # The token may be typed for this run; Esc goes on without it. The question comes
        # from the reconnecting worker, so on a loaded machine it may take a while.
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, SecretScreen) and app.screen.query("#secret-input"),
            "the token question",
        )
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.pause()
        assert load_config().active == "staging"
        assert app.env_name == "staging"
        assert app.env.base_url == STAGING_URL
        assert app.connection is None  # the sandbox connection was closed
        assert app.service_state == "○ not connected"
        assert str(screen.query_one("#env-name").render()) == "env: staging"


async def test_licenses_are_judged_as_of_the_environment_switched_to() -> None:
    config = load_config()
    sandbox = config.environments[config.active]
    later = sandbox.model_copy(update={"today": date(2030, 1, 2)})
    app = ProducerApp(config)
    async with app.run_test(size=SIZE) as pilot:
        assert app.today == (sandbox.today or date.today())
        await app.switch_environment("later", later)
        # The first connection, if still opening, is cancelled by design: wait for the rest.
        await settle(app, pilot)
        assert app.today == date(2030, 1, 2)  # it stayed at the first one's


async def test_setting_the_active_environment_active_says_it_is_already(notes: list[str]) -> None:
    # QA: "a" on the active sandbox said it "will be the active environment once you save".
    write_two_environments()
    app = ProducerApp(load_config())
    async with app.run_test(size=SIZE) as pilot:
        await open_settings(pilot)
        await pilot.press("a")  # the sandbox, highlighted and active
        await pilot.pause()
        assert notes[-1] == "sandbox is the active environment already."
        await pilot.press("down", "a", "up", "a")  # staging chosen, then the sandbox again
        await pilot.pause()
        assert notes[-2:] == [
            "staging will be the active environment once you save.",
            "sandbox will be the active environment once you save.",
        ]


async def test_deleting_the_active_environment_is_refused(notes: list[str]) -> None:
    write_two_environments()
    app = ProducerApp(load_config())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        await pilot.press("d")  # the sandbox, highlighted and active
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)
        assert any("sandbox is the active environment" in n for n in notes)
        assert [d.name for d in screen.drafts] == ["sandbox", "staging"]

        await pilot.press("down", "d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")  # keep it
        await pilot.pause()
        assert [d.name for d in screen.drafts] == ["sandbox", "staging"]

        await pilot.press("d")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert [d.name for d in screen.drafts] == ["sandbox"]
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert list(on_disk()["environments"]) == ["sandbox"]

        await pilot.press("d")  # now the last one as well as the active one
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)
        assert [d.name for d in screen.drafts] == ["sandbox"]
        await settle(app, pilot)


async def test_mask_toggle_applies_and_persists() -> None:
    app = ProducerApp(load_config())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        assert app.reveal_pii is False
        await pilot.press("m")
        await pilot.pause()
        assert on_disk()["mask_pii"] is False
        assert load_config().mask_pii is False
        assert app.reveal_pii is True
        assert "off" in str(screen.query_one("#mask-label").render())
        await pilot.press("m")
        await pilot.pause()
        assert load_config().mask_pii is True
        assert app.reveal_pii is False
        await settle(app, pilot)


async def test_theme_select_applies_and_persists() -> None:
    app = ProducerApp(load_config())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        await pilot.press("t")
        assert focused_id(pilot) == "theme"
        await pilot.press("enter")
        await pilot.pause()
        overlay = screen.query_one("#theme").query_one(OptionList)
        names = [str(overlay.get_option_at_index(i).prompt) for i in range(overlay.option_count)]
        assert {
            "ansi-dark",
            "ansi-light",
            "producer-dark",
            "producer-light",
            "textual-dark",
        } <= set(names)
        await pilot.press(*"nord", "enter")
        await pilot.pause()
        assert app.theme == "nord"
        assert on_disk()["theme"] == "nord"
        assert load_config().theme == "nord"
        await settle(app, pilot)


def test_settings_screen_with_a_live_error(snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        await pilot.app.client()  # connected (it starts a moment after the first frame)
        await pilot.app.workers.wait_for_complete()
        await open_settings(pilot)
        await pilot.press("n", *"staging", "tab", "tab", *"https://user:pass@host.example")
        await pilot.press("escape")  # back to the list; no blinking cursor in the picture
        await pilot.app.workers.wait_for_complete()
        pilot.app.service_state = "● online"
        await pilot.pause()

    assert snap_compare(ProducerApp(load_config()), terminal_size=SIZE, run_before=run_before)


async def test_a_token_unset_at_start_can_be_typed_for_this_run(monkeypatch) -> None:
    monkeypatch.setenv("REGISTRY_TOKEN", "restored-after-the-test")
    monkeypatch.delenv("REGISTRY_TOKEN")
    save_config(
        default_config().model_copy(
            update={
                "active": "closed",
                "environments": {
                    "closed": Environment(  # a refused port: never the network
                        base_url="http://127.0.0.1:9",
                        auth=Auth(type="bearer", token_env="REGISTRY_TOKEN"),
                    )
                },
            }
        )
    )
    app = ProducerApp(load_config())
    gc.disable()  # as the CLI starts the app: the collector is not off while the user types
    try:
        async with app.run_test(size=SIZE) as pilot:
            # The connection opens just after the first frame; wait till it asks, composed.
            await wait_for(
                pilot,
                lambda: isinstance(app.screen, SecretScreen) and app.screen.query(".dialog-text"),
                "the token question",
            )
            assert gc.isenabled()
            question = str(app.screen.query_one(".dialog-text").render())
            assert "REGISTRY_TOKEN is not set" in question
            assert app.screen.query_one("#secret-input", Input).password  # masked as typed
            await pilot.press(*"tok-123", "enter")
            await settle(app, pilot)
            await pilot.pause()
            assert app.connection is not None  # connected with it, no restart
            assert os.environ["REGISTRY_TOKEN"] == "tok-123"
    finally:
        gc.enable()
    assert "tok-123" not in config_path().read_text(encoding="utf-8")  # never saved


HAND_WRITTEN = """\
active = "sandbox"

[environments.sandbox]
embedded = true
today = 2026-12-21
dialect = "minimal"
watch_days = 30
bulk_fail_rate = 0.3

[environments.staging]
base_url = "https://staging.example.com"
date_format = "YYYY-MM-DD"
bulk_max_request_bytes = 50000
watch_rate = 2.0
"""


async def test_saving_keeps_the_settings_the_editor_does_not_show(notes: list[str]) -> None:
    """Seen: changing staging's timeout dropped today, dialect, watch_days... everywhere, and
    said the active environment was reconnecting."""
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text(HAND_WRITTEN, encoding="utf-8")
    expected = tomllib.loads(HAND_WRITTEN)
    expected["environments"]["staging"]["timeout"] = 45.0
    app = ProducerApp(load_config())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        await save_staging_timeout(pilot, screen, "45")
        assert on_disk() == expected
        assert "Settings saved." in notes
        assert not any("reconnecting" in n for n in notes)
        await settle(app, pilot)


async def save_staging_timeout(pilot: Pilot, screen: SettingsScreen, timeout: str) -> None:
    """Pick staging (listed second), type its timeout and press Ctrl+S."""
    await pilot.press("down")
    await pilot.pause()
    screen.query_one("#set-timeout", Input).focus()
    await clear_input(pilot)
    await type_text(pilot, timeout)
    await pilot.press("ctrl+s")
    await pilot.pause()


def another_instance_saves(**env_update) -> None:
    """What a second producer-tui (or a hand edit) does to the file meanwhile: adds the
    environment fromA, and changes staging as ``env_update`` says."""
    config = load_config()
    staging = config.environments["staging"].model_copy(update=env_update)
    environments = {**config.environments, "staging": staging, "fromA": Environment(embedded=True)}
    save_config(config.model_copy(update={"environments": environments}))


async def test_a_mask_toggle_keeps_what_another_instance_saved() -> None:
    """Seen: m wrote back the config this instance read at start: fromA was gone."""
    write_two_environments()
    app = ProducerApp(load_config())
    async with app.run_test(size=SIZE) as pilot:
        await open_settings(pilot)
        another_instance_saves()
        await pilot.press("m")
        await pilot.pause()
        assert set(on_disk()["environments"]) == {"sandbox", "staging", "fromA"}
        assert on_disk()["mask_pii"] is False
        await settle(app, pilot)


async def test_environments_saved_over_another_instances_change(notes: list[str]) -> None:
    write_two_environments()
    app = ProducerApp(load_config())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        another_instance_saves()
        await save_staging_timeout(pilot, screen, "45")
        assert list(on_disk()["environments"]) == ["sandbox", "staging", "fromA"]
        assert on_disk()["environments"]["staging"]["timeout"] == 45.0
        assert [d.name for d in screen.drafts] == ["sandbox", "staging", "fromA"]
        assert screen.current.name == "staging"
        assert str(screen.query_one("#save-state", Static).render()) == "all saved"
        assert "Settings saved." in notes
        await settle(app, pilot)


async def test_an_environment_changed_here_and_elsewhere_is_asked_about() -> None:
    write_two_environments()
    app = ProducerApp(load_config())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        another_instance_saves(timeout=10.0)
        await save_staging_timeout(pilot, screen, "45")
        assert isinstance(app.screen, ConfirmScreen)
        assert "in environments.staging.timeout too" in app.screen.question
        await pilot.press("n")  # keep the file's; the edit stays on screen
        await pilot.pause()
        assert on_disk()["environments"]["staging"]["timeout"] == 10.0
        assert screen.query_one("#set-timeout", Input).value == "45"
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert on_disk()["environments"]["staging"]["timeout"] == 45.0
        assert "fromA" in on_disk()["environments"]  # the rest of their change is kept
        await settle(app, pilot)


async def test_quitting_with_unsaved_settings_asks_first() -> None:
    """Seen: Ctrl+Q with "unsaved changes" on screen quit at once and lost them."""
    app = ProducerApp(load_config())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        await pilot.press("ctrl+q")  # nothing changed yet: no question
        await pilot.pause()
        assert not app.is_running
    app = ProducerApp(load_config())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        await pilot.press("e")
        await pilot.pause()
        screen.query_one("#set-timeout", Input).value = "45"
        await pilot.pause()
        assert "unsaved changes" in str(screen.query_one("#save-state", Static).render())
        await quit_asks(app, pilot, "settings have changes not saved")
        await pilot.press("n")
        await pilot.pause()
        assert app.is_running and app.screen is screen
        await pilot.press("ctrl+q", "y")
        await pilot.pause()
        assert not app.is_running


async def test_a_secret_typed_at_the_prompt_shows_as_set_in_the_editor(monkeypatch) -> None:
    """Seen: after the secret was typed at the connect prompt, the editor still said
    "REGISTRY_TOKEN is not set in this terminal"."""
    monkeypatch.setenv("REGISTRY_TOKEN", "restored-after-the-test")
    monkeypatch.delenv("REGISTRY_TOKEN")
    closed = Environment(
        base_url="http://127.0.0.1:9", auth=Auth(type="bearer", token_env="REGISTRY_TOKEN")
    )
    save_config(
        default_config().model_copy(
            update={"environments": {"sandbox": Environment(embedded=True), "closed": closed}}
        )
    )
    app = ProducerApp(load_config())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        await pilot.press("down", "a", "ctrl+s")  # make "closed" the active one: it connects
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, SecretScreen) and app.screen.query("#secret-input"),
            "the token question",
        )
        assert isinstance(app.screen, SecretScreen)
        await pilot.press(*"tok-123", "enter")
        await settle(app, pilot)
        await pilot.pause()
        assert app.screen is screen and screen.current.name == "closed"
        status = str(screen.query_one("#set-auth-token_env-status", Static).render())
        assert status == "REGISTRY_TOKEN is set"


async def test_a_name_refused_then_changed_renames_the_environment_being_edited(
    notes: list[str],
) -> None:
    """Seen (QA): staging renamed to "sandbox" was refused, and the editor then showed
    the *other* environment named sandbox, the embedded one; typing "stage2" and saving
    renamed the embedded sandbox, and the staging server was saved as "sandbox"."""
    write_two_environments()
    app = ProducerApp(load_config())
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_settings(pilot)
        await pilot.press("down", "e")
        await pilot.pause()
        assert focused_id(pilot) == "set-name"
        await clear_input(pilot)
        await paste(pilot, "sandbox")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert any(
            n == "sandbox: name: another environment is already named sandbox" for n in notes
        )
        assert screen.query_one("#set-base_url", Input).value == STAGING_URL  # still staging
        assert not screen.drafts[0].errors  # the sandbox had its name all along
        assert focused_id(pilot) == "set-name"
        await clear_input(pilot)
        await paste(pilot, "stage2")
        await pilot.press("ctrl+s")
        await pilot.pause()
        environments = on_disk()["environments"]
        assert environments["sandbox"] == {"embedded": True}
        assert environments["stage2"]["base_url"] == STAGING_URL
        await settle(app, pilot)
