"""A config naming what the UI does not have (a binding id, a theme) passed `config check`
and was ignored without a word (seen: "nonexistent.binding" = "x", theme =
"no-such-theme"); a key no terminal sends ("not a key!!") took Settings' key away."""

from __future__ import annotations

import pytest
from ui_support import SIZE, settle, shown

from tui_app.cli import main
from tui_app.config import Config, ConfigError, Environment, load_config, save_config
from tui_app.ui.config_problems import binding_ids, config_problems


def config(**changes) -> Config:
    return Config(environments={"sandbox": Environment(embedded=True)}, active="sandbox", **changes)


def test_every_binding_of_every_area_is_known_by_its_id() -> None:
    ids = binding_ids()
    assert {"area.settings", "quit", "focus.next", "bulk.submit", "settings.back"} <= ids
    assert {"path.cancel", "record.reveal", "help.close"} <= ids  # dialogs, pushed screens


def test_an_unknown_binding_id_or_theme_is_a_problem_and_known_ones_are_not() -> None:
    assert config_problems(config(keys={"area.settings": "f12"}, theme="nord")) == []
    problems = config_problems(config(keys={"nonexistent.binding": "x"}, theme="no-such-theme"))
    assert problems[0].startswith("keys: no binding has the id 'nonexistent.binding'")
    assert problems[1].startswith("theme: no theme named 'no-such-theme' (known: ")
    assert "producer-dark" in problems[1]


def test_a_key_no_terminal_sends_is_refused_naming_its_binding() -> None:
    with pytest.raises(ValueError, match="area.settings`\n.*'not a key!!' is no key name"):
        config(keys={"area.settings": "not a key!!"})
    assert config(keys={"help": "question_mark,f1", "quit": "ctrl+q", "x": "?"}).keys


def test_config_check_names_them_and_fails(config_file, capsys) -> None:
    save_config(config(keys={"nonexistent.binding": "x"}, theme="no-such-theme"))
    assert main(["config", "check"]) == 2
    err = capsys.readouterr().err
    lines = config_file.read_text().splitlines()
    # At the line of the key they name (QA: no line, where every other problem has one).
    at_keys, at_theme = lines.index("[keys]") + 1, lines.index('theme = "no-such-theme"') + 1
    assert (f"producer-tui: {config_file}:{at_keys}: keys: no binding has the id "
            "'nonexistent.binding'") in err  # fmt: skip
    assert f"producer-tui: {config_file}:{at_theme}: theme: no theme named 'no-such-theme'" in err
    config_file.write_text(config_file.read_text().replace('"x"', '"not a key!!"'))
    line = config_file.read_text().splitlines().index('"nonexistent.binding" = "not a key!!"') + 1
    # Named at its own line (QA: it was named at the [keys] header's).
    with pytest.raises(ConfigError, match=f"config.toml:{line}: keys.nonexistent.binding: 'not a"):
        load_config()


async def test_the_app_starts_and_says_so(ui_app) -> None:
    save_config(config(keys={"nonexistent.binding": "x"}, theme="no-such-theme"))
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        notes = [n.message for n in shown(app)]
        assert any(n.startswith("keys: no binding has the id 'nonexistent.binding'") for n in notes)
        assert any(n.startswith("theme: no theme named 'no-such-theme'") for n in notes)


def test_a_key_taken_from_another_binding_is_a_problem_and_swapped_keys_are_not() -> None:
    """Seen (QA): ``orders.submit = "f6"`` passed `config check`, and Save draft was then
    left with no key at all, without a word."""
    assert config_problems(config(keys={"orders.submit": "f6"})) == [
        "keys: orders.submit = 'f6' takes f6 from orders.save_draft, which is left without a key"
    ]
    swapped = {"orders.submit": "f6", "orders.save_draft": "f5"}
    assert config_problems(config(keys=swapped)) == []


def bad_theme(config_file) -> None:
    """A theme file beside the config whose primary is no colour (seen in QA: the app
    ended with a ColorParseError as the theme was applied; config check said OK)."""
    themes = config_file.parent / "themes"
    themes.mkdir(parents=True, exist_ok=True)
    (themes / "mine.toml").write_text('name = "mine"\ndark = true\nprimary = "notacolor"\n')


def test_config_check_names_a_theme_file_with_a_bad_colour(config_file, capsys) -> None:
    save_config(config())
    bad_theme(config_file)
    assert main(["config", "check"]) == 2
    err = capsys.readouterr().err
    assert "mine.toml skipped: primary: 'notacolor' is no colour" in err


async def test_the_app_starts_without_a_theme_whose_colour_is_bad(ui_app, config_file) -> None:
    save_config(config(theme="mine"))
    bad_theme(config_file)
    app = ui_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        notes = [n.message for n in shown(app)]
        assert any("mine.toml skipped: primary: 'notacolor' is no colour" in n for n in notes)
        assert "mine" not in app.available_themes
    assert app.return_code in (None, 0)


def test_sandbox_settings_on_a_server_environment_are_named() -> None:
    """Seen (QA): seed and bulk_fail_rate on a server environment passed config check."""
    server = Environment(base_url="https://registry.example.test", seed=7, bulk_fail_rate=0.5)
    problems = config_problems(
        Config(environments={"prod": server, "sb": Environment(embedded=True)}, active="sb")
    )
    assert problems == [
        "environments.prod: seed, bulk_fail_rate: settings of the embedded sandbox, unused "
        "by a server environment"
    ]


def test_a_url_with_white_space_is_refused() -> None:
    with pytest.raises(ValueError, match="holds white space"):
        Environment(base_url="https://x.example.test/ path")


def test_an_app_wide_key_taken_by_a_screen_is_named() -> None:
    """Seen (QA): ``record.copy = "1"`` passed config check, and in a record 1 then
    copied the NPN instead of opening Search."""
    assert config_problems(config(keys={"record.copy": "1"})) == [
        "keys: 1 is both area.search and, on the screen of each, record.copy: there the "
        "screen's wins"
    ]
    [shadowed] = config_problems(config(keys={"area.search": "f5"}))
    assert shadowed.startswith("keys: f5 is both area.search and, on the screen of each, ")
    assert "orders.submit" in shadowed and "bulk.submit" in shadowed


@pytest.mark.parametrize(
    ("line", "words"),
    [('primary = 5', "primary: 5 is no colour"), ('name = 3', "name: 3 is not text"),
     ('primary = "#fff"\n[variables]\nx = 1', "variables: a table of CSS variables")],
)  # fmt: skip
def test_a_theme_file_of_the_wrong_types_is_named_not_a_traceback(config_file, capsys, line, words):
    """Seen (review): ``primary = 5`` raised an AttributeError out of config check."""
    save_config(config())
    themes = config_file.parent / "themes"
    themes.mkdir(parents=True, exist_ok=True)
    body = line if line.startswith("name") else f'name = "t"\n{line}'
    if "primary" not in body:
        body += '\nprimary = "#ffffff"'
    (themes / "t.toml").write_text(body + "\n")
    assert main(["config", "check"]) == 2
    assert words in capsys.readouterr().err


def test_a_key_that_acts_before_the_fields_remapped_to_a_character_is_named() -> None:
    """Seen (review): Save draft acts as it arrives (so a path pasted after it goes to
    its dialog); remapped to "s", no field of Orders could take an s, without a word."""
    assert config_problems(config(keys={"orders.save_draft": "s"})) == [
        "keys: orders.save_draft = 's': it acts before any field sees the key, so s could no "
        "longer be typed on its screen"
    ]
    assert config_problems(config(keys={"orders.save_draft": "ctrl+s"})) == []
