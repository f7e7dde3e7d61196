"""Tests for tui_app.config: paths, first run, round trip, URLs, secrets and error messages."""

import subprocess
import sys
from datetime import date
from pathlib import Path
from textwrap import dedent

import keyring
import platformdirs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from tui_app.config import (
    GROUPS,
    Auth,
    Config,
    ConfigConflict,
    ConfigError,
    Environment,
    commented_copy,
    config_path,
    data_dir,
    default_config,
    load_config,
    looks_like_secret,
    name_problem,
    save_change,
    save_config,
    user_themes_dir,
)

FULL = dedent("""\
    active = "staging"
    theme = "producer-dark"
    mask_pii = false

    [keys]
    search = "1"
    help = "f1,question_mark"

    [environments.sandbox]
    embedded = true
    seed = 7

    [environments.staging]
    base_url = "https://registry.example.test/"
    format = "xml"
    timeout = 12.5

    [environments.staging.base_urls]
    import = "https://import.example.test:8443/gateway"

    [environments.staging.auth]
    type = "oauth2"
    token_url = "https://login.example.test/token"
    client_id = "producer-tui"
    client_secret_env = "REGISTRY_CLIENT_SECRET"
    scope = "registry.read registry.write"
    keyring_service = "producer-tui"
""")


def load_error(config_file: Path, text: str) -> str:
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config()
    assert caught.value.exit_code == 2
    return str(caught.value)


def test_an_environment_name_with_control_characters_is_refused(config_file: Path) -> None:
    """Seen: `config check` printed such a name raw, escape sequences and all."""
    text = 'active = "sandbox"\n[environments.sandbox]\nembedded = true\n'
    text += '[environments."ab\\u001b[31mred"]\nembedded = true\n'
    message = load_error(config_file, text)
    assert "'ab\\x1b[31mred' must be printable text" in message and "\x1b" not in message


def test_config_check_checks_the_environment_env_names(config_file: Path, capsys) -> None:
    # QA: `--env nope config check` said "OK; active environment sandbox", exit 0.
    from tui_app.cli import main

    assert main(["--env", "nope", "config", "check"]) == 2
    assert capsys.readouterr().err.endswith("--env: no environment named nope\n")
    assert main(["--env", "sandbox", "config", "check"]) == 0
    assert capsys.readouterr().out.endswith(": OK; environment sandbox (embedded sandbox)\n")


def test_a_config_saved_with_a_byte_order_mark_is_read(config_file: Path) -> None:
    # Found beside QA's BOM order file: "(top level): invalid TOML: Invalid statement".
    config_file.parent.mkdir(parents=True)
    config_file.write_bytes(
        b'\xef\xbb\xbfactive = "sandbox"\n[environments.sandbox]\nembedded = true\n'
    )
    assert load_config() == default_config()


# --- paths --------------------------------------------------------------------------------


def test_config_path_follows_env_var(config_file: Path) -> None:
    assert config_path() == config_file
    assert user_themes_dir() == config_file.parent / "themes"


def test_paths_default_to_platform_dirs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PRODUCER_TUI_CONFIG")
    monkeypatch.delenv("PRODUCER_TUI_DATA")
    expected = platformdirs.user_config_path("producer-tui", appauthor=False) / "config.toml"
    assert config_path() == expected
    assert data_dir() == platformdirs.user_data_path("producer-tui", appauthor=False)


def test_data_dir_follows_env_var(tmp_path: Path) -> None:
    assert data_dir() == tmp_path / "data"


# --- first run and round trip -------------------------------------------------------------


def test_first_run_writes_default_sandbox_config(config_file: Path) -> None:
    assert not config_file.exists()
    config = load_config()
    name, env = config.active_env()
    assert (name, env.embedded, env.seed) == ("sandbox", True, 42)
    assert config.mask_pii is True
    # Only what was set is written: no noise of defaults.
    assert (
        config_file.read_text() == 'active = "sandbox"\n\n[environments.sandbox]\nembedded = true\n'
    )
    assert load_config() == config


def test_round_trip_keeps_every_setting(config_file: Path) -> None:
    config_file.parent.mkdir(parents=True)
    config_file.write_text(FULL)
    first = load_config()
    save_config(first)
    second = load_config()
    assert second == first
    assert second.keys == {"search": "1", "help": "f1,question_mark"}
    assert second.environments["staging"].auth.scope == "registry.read registry.write"
    saved = config_file.read_text()
    assert "seed = 7" in saved
    assert "seed = 42" not in saved  # staging never set a seed
    assert not list(config_file.parent.glob("*.tmp"))  # the atomic write cleaned up


def test_a_save_over_a_commented_file_keeps_that_file_aside(config_file: Path) -> None:
    # tomli-w writes no comments: a theme chosen in the app dropped a hand-written
    # config's notes without a word.
    config_file.parent.mkdir(parents=True)
    written = (
        '# our team\'s set-up\nactive = "sandbox"  # the default\ntheme = "nord"\n'
        "[environments.sandbox]\nembedded = true\n"
    )
    config_file.write_text(written)
    kept = save_config(load_config().model_copy(update={"theme": "gruvbox"}))
    assert kept == commented_copy(config_file) == config_file.parent / "config.toml.commented"
    assert kept.read_text() == written and kept.stat().st_mode & 0o777 == 0o600
    assert "#" not in config_file.read_text() and load_config().theme == "gruvbox"
    # The next save replaces a file without comments: the copy stays the commented one.
    assert save_config(load_config().model_copy(update={"theme": "nord"})) is None
    assert kept.read_text() == written


def test_a_hash_inside_a_string_is_no_comment(config_file: Path) -> None:
    config_file.parent.mkdir(parents=True)
    config_file.write_text(
        'active = "sandbox"\ntheme = "x#1"\n[environments."s#1"]\nbase_url = \'http://h.example\'\n'
        "[environments.sandbox]\nembedded = true\n"
    )
    assert save_config(load_config()) is None
    assert not commented_copy(config_file).exists()


def test_save_creates_parent_folders(config_file: Path) -> None:
    config = Config(
        environments={"local": Environment(base_url="http://127.0.0.1:8080")}, active="local"
    )
    save_config(config)
    assert load_config() == config


@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.text(min_size=1, max_size=12).filter(lambda s: name_problem(s) is None),
    seed=st.integers(min_value=-(2**63), max_value=2**63 - 1),
    timeout=st.floats(min_value=0.001, max_value=1e6),
    mask=st.booleans(),
)
def test_round_trip_property(
    config_file: Path, name: str, seed: int, timeout: float, mask: bool
) -> None:
    config = Config(
        environments={
            name: Environment(embedded=True, seed=seed),
            "remote": Environment(base_url="https://r.example.test", timeout=timeout),
        },
        active=name,
        mask_pii=mask,
    )
    save_config(config)
    assert load_config() == config


# --- group URLs ---------------------------------------------------------------------------


def test_group_url_uses_overrides_then_base_url(config_file: Path) -> None:
    config_file.parent.mkdir(parents=True)
    config_file.write_text(FULL)
    _, env = load_config().active_env()
    assert {group: env.group_url(group) for group in GROUPS} == {
        "search": "https://registry.example.test/producerpdbsearch/v1",
        "transaction": "https://registry.example.test/producertransaction/v1",
        "import": "https://import.example.test:8443/gateway/producerimport/v1",
        "bulk": "https://registry.example.test/bulk/v1",
        "export": "https://registry.example.test/producerexport/v1",
    }


def test_group_urls_without_base_url_when_all_five_are_overridden() -> None:
    env = Environment.model_validate(
        {"base_urls": {group: f"https://{group}.example.test/" for group in GROUPS}}
    )
    assert env.group_url("import") == "https://import.example.test/producerimport/v1"
    assert env.group_url("bulk") == "https://bulk.example.test/bulk/v1"


def test_embedded_group_url_can_never_reach_a_real_host() -> None:
    url = Environment(embedded=True).group_url("search")
    assert url.endswith(".invalid/producerpdbsearch/v1")


# --- broken configs -----------------------------------------------------------------------

BROKEN = {
    "toml syntax": (
        'active = "staging"\n[environments.staging]\nbase_url = "https://a.test"\nformat = json\n',
        "4: environments.staging.format: invalid TOML",
    ),
    "unknown active environment": (
        'active = "prod"\n\n[environments.sandbox]\nembedded = true\n',
        "1: active: no environment named 'prod' (known: sandbox)",
    ),
    "missing URL": (
        'active = "staging"\n\n[environments.staging]\nformat = "json"\n'
        '[environments.staging.base_urls]\nsearch = "https://s.test"\n',
        "3: environments.staging: needs base_url, or base_urls for every group "
        "(no URL for: transaction, import, bulk, export)",
    ),
    "bad format value": (
        'active = "staging"\n[environments.staging]\nbase_url = "https://a.test"\nformat = "yaml"\n',
        "4: environments.staging.format: must be one of json, xml",
    ),
    "unknown key": (
        'active = "staging"\n[environments.staging]\nbase_url = "https://a.test"\n\nfromat = "xml"\n',
        "5: environments.staging.fromat: unknown key",
    ),
    "clear-text secret": (
        'active = "staging"\n[environments.staging]\nbase_url = "https://a.test"\n'
        '[environments.staging.auth]\ntype = "bearer"\ntoken_env = "T"\ntoken = "abc123"\n',
        "7: environments.staging.auth.token: a secret must not be stored in the config file; "
        "put it in an environment variable and name that variable with token_env",
    ),
    "credentials in URL": (
        'active = "staging"\n[environments.staging]\nbase_url = "https://me:pw@a.test"\n',
        "3: environments.staging.base_url: must not contain credentials",
    ),
    "query string in URL": (
        'active = "staging"\n[environments.staging]\nbase_url = "https://a.test/?api_key=x"\n',
        "3: environments.staging.base_url: must not carry a query string",
    ),
    "not an http URL": (
        'active = "s"\n[environments.s.base_urls]\nbulk = "ftp://a.test"\n',
        "3: environments.s.base_urls.bulk: 'ftp://a.test' must be an http(s) URL with a host",
    ),
    "spec path in base URL": (
        'active = "s"\n[environments.s]\nbase_url = "https://a.test/bulk/v1/"\n',
        "3: environments.s.base_url: leave out /bulk/v1",
    ),
    "bad auth type": (
        'active = "s"\n[environments.s]\nbase_url = "https://a.test"\nauth.type = "digest"\n',
        "4: environments.s.auth.type: must be one of none, bearer, basic, oauth2",
    ),
    "auth missing its settings": (
        'active = "s"\n[environments.s]\nbase_url = "https://a.test"\n'
        '[environments.s.auth]\ntype = "basic"\n',
        "4: environments.s.auth: type basic needs username, password_env",
    ),
    "auth setting of another type": (
        'active = "s"\n[environments.s]\nembedded = true\n[environments.s.auth]\ntoken_env = "T"\n',
        "4: environments.s.auth: token_env does not apply to type none",
    ),
    "secret pasted as a variable name": (
        'active = "s"\n[environments.s]\nembedded = true\n'
        '[environments.s.auth]\ntype = "bearer"\ntoken_env = "eyJhbGciOi.J9-x"\n',
        "6: environments.s.auth.token_env: must be the name of an environment variable",
    ),
    "key pasted as a variable name": (
        'active = "s"\n[environments.s]\nembedded = true\n'
        '[environments.s.auth]\ntype = "bearer"\n'
        'token_env = "sk_live_51HxYzAbCdEf0123456789abcdef"\n',
        "6: environments.s.auth.token_env: looks like a secret",
    ),
    "URL on an embedded environment": (
        'active = "s"\n[environments.s]\nembedded = true\nbase_url = "https://a.test"\n',
        "2: environments.s: an embedded environment runs in-process",
    ),
    "wrong type": (
        'active = "s"\nmask_pii = "yes"\n[environments.s]\nembedded = true\n',
        "2: mask_pii: must be a valid boolean",
    ),
    "request size limit below one record": (
        'active = "s"\n[environments.s]\nembedded = true\nbulk_max_request_bytes = 10\n',
        "4: environments.s.bulk_max_request_bytes: must be greater than or equal to 1024",
    ),
    "quoted environment name": (
        'active = "my env"\n[environments."my env"]\nbase_url = "https://a.test"\ntimeout = 0\n',
        "4: environments.my env.timeout: must be greater than 0",
    ),
}


@pytest.mark.parametrize("text, expected", BROKEN.values(), ids=BROKEN.keys())
def test_broken_config_names_file_line_and_key(config_file: Path, text: str, expected: str) -> None:
    message = load_error(config_file, text)
    assert message.startswith(f"{config_file}:{expected}")
    assert "\n" not in message  # one problem, one line


def test_every_problem_gets_its_own_line_in_file_order(config_file: Path) -> None:
    text = 'active = "s"\nmask_pii = 1\n[environments.s]\nembedded = true\nformat = "csv"\n'
    assert load_error(config_file, text).splitlines() == [
        f"{config_file}:2: mask_pii: must be a valid boolean",
        f"{config_file}:5: environments.s.format: must be one of json, xml",
    ]


def test_missing_required_key_names_file_and_key(config_file: Path) -> None:
    message = load_error(config_file, "[environments.sandbox]\nembedded = true\n")
    assert message == f"{config_file}: active: is required"


def test_a_table_declared_twice_is_named_as_written(config_file: Path) -> None:
    """Seen (QA): "Cannot declare ('environments', 'sandbox') twice", a Python tuple."""
    text = 'active = "s"\n[environments.s]\nembedded = true\n[environments.s]\nseed = 1\n'
    message = load_error(config_file, text)
    assert message.endswith("invalid TOML: Cannot declare environments.s twice")


def test_syntax_error_in_broken_header_names_the_header(config_file: Path) -> None:
    """Seen: a broken header was said to be at "(top level)", not where the user looks."""
    message = load_error(config_file, 'active = "s"\n[environments.s\n')
    assert message.startswith(f"{config_file}:2: [environments.s: invalid TOML: Expected ']'")


def test_a_file_that_is_not_utf8_is_named_by_its_line(config_file: Path) -> None:
    """Seen: "can't decode byte 0xe9 in position 31", a position nobody can find."""
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_bytes(b'active = "sandbox"\ntheme = "caf\xe9"\n')
    with pytest.raises(ConfigError) as caught:
        load_config()
    assert str(caught.value) == (
        f"{config_file}: line 2 is not UTF-8 text (byte 13 of the line, 0xe9); "
        "save the file as UTF-8"
    )


def test_secret_keys_are_refused_when_built_in_code() -> None:
    with pytest.raises(ValueError, match="must not be stored in the config file"):
        Auth.model_validate({"type": "basic", "username": "u", "password": "hunter2"})


# --- secrets ------------------------------------------------------------------------------


def test_bearer_secret_from_env_var(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REGISTRY_TOKEN", "tok-123")
    assert Auth(type="bearer", token_env="REGISTRY_TOKEN").secret() == "tok-123"


def test_each_type_reads_its_own_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PW", "password")
    monkeypatch.setenv("CS", "client-secret")
    basic = Auth(type="basic", username="u", password_env="PW")
    oauth2 = Auth(
        type="oauth2", token_url="https://t.test/token", client_id="c", client_secret_env="CS"
    )
    assert (basic.secret(), oauth2.secret()) == ("password", "client-secret")


def test_missing_env_var_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REGISTRY_TOKEN", raising=False)
    with pytest.raises(ConfigError, match="environment variable REGISTRY_TOKEN is not set"):
        Auth(type="bearer", token_env="REGISTRY_TOKEN").secret()


def test_auth_none_has_no_secret() -> None:
    with pytest.raises(ConfigError, match="no secret"):
        Auth().secret()


def test_secret_from_keyring_when_env_var_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REGISTRY_TOKEN", raising=False)
    asked = []

    def fake_get_password(service: str, username: str) -> str:
        asked.append((service, username))
        return "from-keyring"

    monkeypatch.setattr(keyring, "get_password", fake_get_password)
    auth = Auth(type="bearer", token_env="REGISTRY_TOKEN", keyring_service="producer-tui")
    assert auth.secret() == "from-keyring"
    assert asked == [("producer-tui", "REGISTRY_TOKEN")]


def test_env_var_wins_over_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REGISTRY_TOKEN", "from-env")
    monkeypatch.setattr(keyring, "get_password", lambda *_: pytest.fail("keyring was asked"))
    auth = Auth(type="bearer", token_env="REGISTRY_TOKEN", keyring_service="producer-tui")
    assert auth.secret() == "from-env"


def test_missing_keyring_entry_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REGISTRY_TOKEN", raising=False)
    monkeypatch.setattr(keyring, "get_password", lambda *_: None)
    auth = Auth(type="bearer", token_env="REGISTRY_TOKEN", keyring_service="producer-tui")
    with pytest.raises(
        ConfigError, match="keyring service 'producer-tui' has no entry for REGISTRY_TOKEN"
    ):
        auth.secret()


def test_keyring_not_installed_is_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REGISTRY_TOKEN", raising=False)
    monkeypatch.setitem(sys.modules, "keyring", None)  # makes `import keyring` fail
    auth = Auth(type="bearer", token_env="REGISTRY_TOKEN", keyring_service="producer-tui")
    with pytest.raises(ConfigError, match=r"REGISTRY_TOKEN is not set.*producer-tui\[keyring\]"):
        auth.secret()


# --- import cost ----------------------------------------------------------------------------


def test_config_imports_no_ui_or_optional_packages() -> None:
    code = (
        "import sys, tui_app.config; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'rich', 'keyring', 'tomli_w'}))"
    )
    root = Path(__file__).parents[1]  # `-c` puts the working folder on sys.path
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root
    )
    assert result.stdout.strip() == "[]"


# --- issue 10: date_format and the sandbox dialect -------------------------------------------


def test_date_format_and_dialect_are_read_and_default_sensibly(config_file: Path) -> None:
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text(
        dedent("""\
        active = "sandbox"
        [environments.sandbox]
        embedded = true
        dialect = "minimal"
        date_format = "YYYY-MM-DD"
        [environments.staging]
        base_url = "https://registry.example.test"
        """),
        encoding="utf-8",
    )
    config = load_config()
    sandbox, staging = config.environments["sandbox"], config.environments["staging"]
    assert (sandbox.dialect, sandbox.date_format) == ("minimal", "YYYY-MM-DD")
    assert (staging.dialect, staging.date_format) == ("native", "MM/DD/YYYY")


def test_the_date_formats_offered_are_those_the_client_can_send() -> None:
    from typing import get_args

    from tui_app.contract.dates import DATE_FORMATS

    offered = get_args(Environment.model_fields["date_format"].annotation)
    assert set(offered) == set(DATE_FORMATS)


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ('date_format = "DD/MM/YYYY"', "environments.sandbox.date_format: must be one of"),
        ('dialect = "fancy"', "environments.sandbox.dialect: must be one of native, minimal"),
    ],
)
def test_a_bad_date_format_or_dialect_is_named(
    config_file: Path, setting: str, expected: str
) -> None:
    text = f'active = "sandbox"\n[environments.sandbox]\nembedded = true\n{setting}\n'
    assert expected in load_error(config_file, text)


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("sk_live_51HxYzAbCdEf0123456789abcdef", True),  # seen saved in clear
        ("ghp_abc", True),
        ("AKIAIOSFODNN7EXAMPLE", True),
        ("xoxb_123", True),
        ("a1b2c3d4e5f6g7h8i9j0", True),  # a random run: letters and digits
        ("ABCDEFGH12345678", True),
        ("REGISTRY_TOKEN", False),
        ("my_token", False),
        ("REGISTRY_TOKEN_2024_PRODUCTION", False),  # words between underscores
        ("my_registry_token_for_production", False),
        ("registry_token_v2_prod_2025", False),  # a name, merely unset in this terminal
        ("a1b2c3d4e5f6g7h", False),  # 15 characters
    ],
)
def test_a_secret_pasted_where_a_variable_name_goes_is_told_apart(name, secret, monkeypatch):
    monkeypatch.delenv(name, raising=False)
    assert looks_like_secret(name) is secret
    if secret:
        with pytest.raises(ValidationError, match="looks like a secret"):
            Auth(type="bearer", token_env=name)
    # A variable that is set is one, whatever its name.
    monkeypatch.setenv(name, "x")
    assert not looks_like_secret(name)
    assert Auth(type="bearer", token_env=name).token_env == name


# --- saving over a file changed since it was read -------------------------------------------


def changed(config: Config, **update) -> Config:
    return config.model_copy(update=update)


def with_env(config: Config, name: str, env: Environment) -> Config:
    return changed(config, environments={**config.environments, name: env})


def test_a_change_keeps_what_another_instance_saved_since(config_file: Path) -> None:
    """Seen: toggling masking in one instance wrote back the config it read at start, so
    the environment another instance had added since was lost."""
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text(FULL)
    base = load_config()
    other = with_env(base, "fromA", Environment(embedded=True, seed=9))
    save_config(other)
    saved = save_change(base, changed(base, mask_pii=True))
    assert saved == load_config()
    assert saved.environments["fromA"].seed == 9
    assert saved.mask_pii is True


def test_an_environment_changed_here_and_there_is_a_conflict(config_file: Path) -> None:
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text(FULL)
    base = load_config()
    staging = base.environments["staging"]
    save_config(with_env(base, "staging", staging.model_copy(update={"timeout": 10.0})))
    on_disk = config_file.read_text()
    mine = with_env(base, "staging", staging.model_copy(update={"timeout": 45.0}))
    mine = with_env(mine, "new", Environment(embedded=True))
    with pytest.raises(
        ConfigConflict, match=r"since it was read, in environments\.staging\.timeout too$"
    ):
        save_change(base, mine)
    assert config_file.read_text() == on_disk  # nothing written
    saved = save_change(base, mine, overwrite=True)
    assert saved.environments["staging"].timeout == 45.0 and "new" in saved.environments
    assert load_config() == saved


def test_settings_of_one_environment_changed_here_and_there_are_both_kept(
    config_file: Path,
) -> None:
    """Seen (QA): keys added by hand to an environment (watch_days, today) while the app
    changed its timeout were lost: the two were a conflict, and "Overwrite" wrote the
    app's whole environment. Each side's own settings are kept, without a question."""
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text(FULL)
    base = load_config()
    staging = base.environments["staging"]
    save_config(with_env(base, "staging", staging.model_copy(update={"watch_days": 90})))
    mine = with_env(base, "staging", staging.model_copy(update={"timeout": 45.0}))
    saved = save_change(base, mine).environments["staging"]
    assert (saved.timeout, saved.watch_days) == (45.0, 90)
    assert load_config().environments["staging"] == saved


def test_an_environment_renamed_here_is_never_blended_with_the_one_of_its_new_name(
    config_file: Path,
) -> None:
    """Seen (review): sandbox renamed lab and staging renamed sandbox here, while a hand
    edit added watch_days to sandbox in the file: the staging server took the sandbox's
    watch_days. A renamed environment is merged whole: a change there too is asked about."""
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text(FULL)
    base = load_config()
    sandbox, staging = base.environments["sandbox"], base.environments["staging"]
    save_config(with_env(base, "sandbox", sandbox.model_copy(update={"watch_days": 7})))
    mine = changed(base, environments={"lab": sandbox, "sandbox": staging}, active="sandbox")
    with pytest.raises(ConfigConflict, match=r"in environments\.sandbox too$"):
        save_change(base, mine, renamed={"lab", "sandbox"})
    saved = save_change(base, mine, renamed={"lab", "sandbox"}, overwrite=True)
    assert saved.environments["sandbox"] == staging  # the server, with nothing of the sandbox's


def test_overwrite_saves_an_environment_whose_two_sides_do_not_fit_together(
    config_file: Path,
) -> None:
    """Seen (review): the sandbox turned into a server here while a hand edit gave it a
    date: the blend was invalid, and "Overwrite" asked the same question again, for ever."""
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text(FULL)
    base = load_config()
    sandbox = base.environments["sandbox"]
    dated = sandbox.model_copy(update={"today": date(2026, 1, 1)})
    save_config(with_env(base, "sandbox", dated))
    server = Environment(base_url="https://other.example.test")
    mine = with_env(base, "sandbox", server)
    with pytest.raises(ConfigConflict, match="do not fit together"):
        save_change(base, mine)
    assert save_change(base, mine, overwrite=True).environments["sandbox"] == server


def test_a_change_over_a_file_broken_since_is_refused(config_file: Path) -> None:
    base = load_config()
    config_file.write_text("active = ")
    with pytest.raises(ConfigError, match="was changed and has problems now: .*invalid TOML"):
        save_change(base, changed(base, theme="nord"))
    assert config_file.read_text() == "active = "


# --- URLs in messages -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("ftp://user:hunter2@x.example.com", "'ftp://***@x.example.com' must be an http(s) URL"),
        ("http//x.example.com/?api_key=SECRETVALUE", "'http//x.example.com/?…' must be an http"),
        ("ftp://x.example.com/#token=SECRETVALUE", "'ftp://x.example.com/#…' must be an http"),
        ("user:hunter2@x.example.com:8443", "'user:***@x.example.com:8443' must be an http"),
    ],
)
def test_a_bad_url_is_named_without_its_credentials_or_query(
    config_file: Path, url: str, shown: str
) -> None:
    """Seen: `config check` and start-up echoed ftp://user:hunter2@... in full."""
    message = load_error(config_file, f'active = "prod"\n[environments.prod]\nbase_url = "{url}"\n')
    assert f"config.toml:3: environments.prod.base_url: {shown}" in message
    assert "hunter2" not in message and "SECRETVALUE" not in message


@pytest.mark.parametrize("value", ["inf", "+inf", "nan", "1e309", "-inf"])
@pytest.mark.parametrize(
    ("key", "table"),
    [("timeout", "staging"), ("watch_rate", "staging"), ("bulk_fail_rate", "sandbox")],
)
def test_a_number_that_is_not_finite_is_refused(
    config_file: Path, key: str, table: str, value: str
) -> None:
    """Seen: timeout = inf was accepted, and a request then waited forever."""
    lines = {"sandbox": "embedded = true", "staging": 'base_url = "https://x.example.test"'}
    lines[table] += f"\n{key} = {value}"
    text = 'active = "sandbox"\n' + "".join(
        f"[environments.{name}]\n{body}\n" for name, body in lines.items()
    )
    message = load_error(config_file, text)
    assert message.endswith(f": environments.{table}.{key}: must be a finite number")


def test_a_config_file_that_is_a_link_stays_one(config_file: Path, tmp_path: Path) -> None:
    """Seen: a save replaced a link into a dotfiles folder by a file of its own, so the
    kept copy stopped receiving changes."""
    target = tmp_path / "dotfiles" / "producer-tui.toml"
    target.parent.mkdir()
    save_config(default_config(), target)
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.symlink_to(target)
    save_config(default_config().model_copy(update={"theme": "nord"}))
    assert config_file.is_symlink() and load_config(target).theme == "nord"
