"""The environment editor's model without a screen: raw values to ``Environment`` and back,
errors keyed by the field the editor shows them on, and drafts' names."""

from __future__ import annotations

from datetime import date

from tui_app.config import Auth, Environment
from tui_app.environment_form import (
    Draft,
    auth_fields_for,
    check_environment,
    data_of,
    is_required,
    values_of,
)

STAGING = Environment(
    base_url="https://staging.example.com", auth=Auth(type="bearer", token_env="REGISTRY_TOKEN")
)


def test_values_round_trip_to_the_same_environment():
    env, errors = check_environment(values_of(STAGING), STAGING)
    assert errors == {}
    assert env == STAGING
    assert env.model_dump(exclude_unset=True) == STAGING.model_dump(exclude_unset=True)


def test_values_are_text_for_text_fields_and_choices_for_the_rest():
    values = values_of(Environment(embedded=True, seed=7, timeout=2.5))
    assert values["seed"] == "7" and values["timeout"] == "2.5"
    assert values["embedded"] is True and values["format"] == "json"
    assert values["auth.type"] == "none" and values["auth.token_env"] == ""
    assert values["base_urls.search"] == ""


def test_defaults_are_left_out_unless_the_saved_environment_set_them():
    values = values_of(Environment(embedded=True))
    assert data_of(values, None) == {"embedded": True}
    explicit = Environment(embedded=True, timeout=30.0)
    assert data_of(values_of(explicit), explicit) == {"embedded": True, "timeout": 30.0}


def test_an_embedded_environment_keeps_no_urls_and_a_remote_one_no_seed():
    values = values_of(STAGING) | {"seed": "9", "base_urls.search": " https://s.example.com "}
    data = data_of(values, None)
    assert "seed" not in data
    assert data["base_urls"] == {"search": "https://s.example.com"}
    values |= {"embedded": True}
    data = data_of(values, None)
    assert data["seed"] == 9 and "base_url" not in data and "base_urls" not in data


def test_only_the_settings_of_the_chosen_auth_type_are_sent():
    values = values_of(STAGING) | {"auth.username": "kim", "auth.token_env": " TOKEN "}
    assert data_of(values, None)["auth"] == {"type": "bearer", "token_env": "TOKEN"}
    assert auth_fields_for("basic") == ("username", "password_env", "keyring_service")
    assert is_required("basic", "username") and not is_required("basic", "keyring_service")


def test_unparseable_numbers_are_worded_by_the_model_on_their_field():
    env, errors = check_environment(values_of(STAGING) | {"timeout": "soon"}, STAGING)
    assert env is None
    assert list(errors) == ["timeout"]
    assert errors["timeout"][0].startswith("must be a valid number")


def test_rules_across_fields_land_on_the_field_the_editor_shows_them_on():
    _, errors = check_environment(values_of(STAGING) | {"auth.token_env": ""}, STAGING)
    assert list(errors) == ["auth.type"]  # "type bearer needs token_env"
    assert "token_env" in errors["auth.type"][0]
    _, errors = check_environment(values_of(STAGING) | {"base_url": ""}, STAGING)
    assert list(errors) == ["base_url"]  # a remote environment without any URL


def test_a_draft_needs_a_name_no_other_draft_has():
    first, second = Draft("staging", STAGING, values_of(STAGING)), Draft.new(" staging ")
    drafts = [first, second]
    second.revalidate(drafts)
    assert second.errors["name"] == ["another environment is already named staging"]
    second.name = "  "
    second.revalidate(drafts)
    assert second.errors["name"] == ["is required"]
    second.name = "ab\x1b[31mred"  # pasted: control characters would steer the terminal
    second.revalidate(drafts)
    assert second.errors["name"] == ["must be printable text (no control characters)"]
    second.name = "prod"
    second.revalidate(drafts)
    assert "name" not in second.errors


def test_a_draft_says_where_it_points():
    draft = Draft("staging", STAGING, values_of(STAGING))
    assert draft.where() == "https://staging.example.com"
    draft.values["base_url"] = "https://bob:hunter2@registry.example.com/?api_key=k"
    assert draft.where() == "https://***@registry.example.com/?…"  # seen while typing
    draft.values |= {"base_url": "", "base_urls.bulk": "https://b.example.com"}
    assert draft.where() == "per-group URLs"
    draft.values["base_urls.bulk"] = ""
    assert draft.where() == "no URL yet"
    assert Draft.new("new").where() == "no URL yet"  # not embedded unless said


def test_a_key_typed_as_the_variable_name_is_an_error_on_its_field(monkeypatch):
    """Seen: sk_live_... only warned "is not set in this terminal" and was saved in clear."""
    key = "sk_live_51HxYzAbCdEf0123456789abcdef"
    monkeypatch.delenv(key, raising=False)
    env, errors = check_environment(values_of(STAGING) | {"auth.token_env": key}, STAGING)
    assert env is None  # nothing to save
    assert list(errors) == ["auth.token_env"]
    assert errors["auth.token_env"][0].startswith("looks like a secret")
    env, errors = check_environment(values_of(STAGING) | {"auth.token_env": "my_token"}, STAGING)
    assert env is not None and not errors


def test_settings_the_editor_does_not_show_are_kept_as_saved():
    """Seen: saving in Settings dropped today, dialect, watch_days... of every environment."""
    sandbox = Environment(
        embedded=True,
        today=date(2026, 12, 21),
        dialect="minimal",
        watch_days=30,
        bulk_fail_rate=0.3,
    )
    env, errors = check_environment(values_of(sandbox), sandbox)
    assert not errors and env is not None
    assert env.model_dump(exclude_unset=True) == sandbox.model_dump(exclude_unset=True)
    staging = STAGING.model_copy(
        update={"date_format": "YYYY-MM-DD", "bulk_max_request_bytes": 50000, "watch_rate": 2.0}
    )
    staging = Environment.model_validate(staging.model_dump(exclude_unset=True))
    env, errors = check_environment(values_of(staging) | {"timeout": "45"}, staging)
    assert not errors and env is not None
    assert env.model_dump(exclude_unset=True) == staging.model_dump(exclude_unset=True) | {
        "timeout": 45.0
    }


def test_a_sandbox_turned_server_leaves_the_sandbox_settings_behind():
    sandbox = Environment(embedded=True, today=date(2026, 12, 21), dialect="minimal", watch_days=30)
    values = values_of(sandbox) | {"embedded": False, "base_url": "https://s.example.com"}
    env, errors = check_environment(values, sandbox)
    assert not errors and env is not None
    assert env.model_dump(exclude_unset=True) == {
        "embedded": False,
        "base_url": "https://s.example.com",
        "watch_days": 30,
    }


def test_a_bad_url_typed_in_the_editor_is_named_without_its_credentials():
    values = values_of(STAGING) | {"base_url": "ftp://user:hunter2@x.example.com"}
    _, errors = check_environment(values, STAGING)
    assert errors["base_url"] == [
        "'ftp://***@x.example.com' must be an http(s) URL with a host, "
        "e.g. https://registry.example.com"
    ]


def test_a_timeout_too_large_to_be_a_number_is_an_error_on_its_field():
    """Seen: 1e309 typed as the timeout was saved as inf."""
    env, errors = check_environment(values_of(STAGING) | {"timeout": "1e309"}, STAGING)
    assert env is None
    assert errors == {"timeout": ["must be a finite number"]}
