"""Typed TOML settings: where the config file lives, what it may say, and how it is checked.

The file is read once at start-up with ``tomllib`` into nested pydantic models and written
back with ``tomli_w``. Every problem is reported as ``file:line: key.path: message`` so a
user can fix the file without reading a traceback. Secrets never live in the file: it names
environment variables (or keyring entries) that hold them.
"""

from __future__ import annotations

import os
import re
import tempfile
import tomllib
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Annotated, Literal, Self, get_args
from urllib.parse import urlsplit

import platformdirs
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import ErrorDetails, PydanticCustomError

from tui_app.bulk import MIN_REQUEST_BYTES

APP_NAME = "producer-tui"

Group = Literal["search", "transaction", "import", "bulk", "export"]
GROUPS: tuple[Group, ...] = get_args(Group)
GROUP_PREFIXES: dict[Group, str] = {
    "search": "/producerpdbsearch/v1",
    "transaction": "/producertransaction/v1",
    "import": "/producerimport/v1",
    "bulk": "/bulk/v1",
    "export": "/producerexport/v1",
}

# Base address of the in-process sandbox. The ``.invalid`` top-level domain is reserved
# (RFC 2606), so a request that escaped the in-process transport could never reach a host.
EMBEDDED_BASE_URL = "http://sandbox.invalid"

# Keys that would put a secret in clear text in the file, and the setting to use instead.
SECRET_KEYS = {
    "token": "token_env",
    "password": "password_env",
    "client_secret": "client_secret_env",
    "secret": "token_env, password_env or client_secret_env",
    "api_key": "token_env",
}


class ConfigError(Exception):
    """A config problem the user must fix; the CLI prints the message and exits 2."""

    exit_code = 2


# --- where files live -------------------------------------------------------------------


def config_path() -> Path:
    """The config file: ``$PRODUCER_TUI_CONFIG`` if set, else the platform's config dir."""
    if override := os.environ.get("PRODUCER_TUI_CONFIG"):
        return Path(override)
    return platformdirs.user_config_path(APP_NAME, appauthor=False) / "config.toml"


def data_dir() -> Path:
    """Where the sandbox database and bulk journal live: ``$PRODUCER_TUI_DATA`` or platform's."""
    if override := os.environ.get("PRODUCER_TUI_DATA"):
        return Path(override)
    return platformdirs.user_data_path(APP_NAME, appauthor=False)


def user_themes_dir() -> Path:
    """User theme files sit next to the config file."""
    return config_path().parent / "themes"


# --- value checks -------------------------------------------------------------------------


_URL_RE = re.compile(r"((?:[A-Za-z][A-Za-z0-9+.-]*:)?(?://)?)([^?#]*@)?([^?#]*)([?#]?)")


def redact_url(url: str) -> str:
    """``url`` fit to show in a message: any credentials (up to the last ``@`` before the
    query, however malformed the URL) become ``***`` and a query or fragment ``…``."""
    match = _URL_RE.match(url)
    assert match is not None  # every part is optional
    start, userinfo, rest, query = match.groups()
    return f"{start}{'***@' if userinfo else ''}{rest}{query and query + '…'}"


def _check_url(url: str) -> str:
    if any(c.isspace() for c in url):  # "https://x.test/ path" was kept, space and all
        raise ValueError(f"{redact_url(url)!r} holds white space; a URL has none")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(
            f"{redact_url(url)!r} must be an http(s) URL with a host, e.g. "
            "https://registry.example.com"
        )
    if "@" in parts.netloc:
        raise ValueError(
            "must not contain credentials (user:password@); set them in the auth table "
            "through environment variables"
        )
    if parts.query or parts.fragment:
        raise ValueError("must not carry a query string or fragment; secrets never go in URLs")
    try:
        parts.port  # noqa: B018 - accessing it is what validates the port
    except ValueError:
        raise ValueError(f"{redact_url(url)!r} has an invalid port") from None
    for prefix in GROUP_PREFIXES.values():
        if parts.path.rstrip("/").endswith(prefix):
            raise ValueError(f"leave out {prefix}: the group's path is appended automatically")
    return url


SECRET_PREFIXES = ("sk_", "pk_", "ghp_", "xox", "AKIA", "eyJ")
"""How well-known keys and tokens begin (Stripe, GitHub, Slack, AWS, a JWT)."""


def looks_like_secret(name: str) -> bool:
    """Whether ``name``, set as no environment variable here, reads as a pasted secret
    rather than a variable's name: a known key prefix, or a run of 16+ characters without an
    underscore that mixes letters and digits, as a key's random part does. A variable's
    name is words between underscores (``REGISTRY_TOKEN``, ``registry_token_v2_prod``), and
    one that is merely unset in this terminal must not be refused."""
    if name in os.environ:
        return False
    return name.startswith(SECRET_PREFIXES) or any(
        len(run) >= 16 and any(c.isdigit() for c in run) and any(c.isalpha() for c in run)
        for run in name.split("_")
    )


def _check_env_name(name: str) -> str:
    # Catches the easy mistake of pasting the secret itself where its variable's name
    # goes: saved, it would sit in clear text in the file.
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ValueError(
            "must be the name of an environment variable (letters, digits, _), not the secret"
        )
    if looks_like_secret(name):
        raise ValueError(
            "looks like a secret, and no environment variable has this name: put the secret "
            "in an environment variable and write that variable's name here"
        )
    return name


Url = Annotated[str, AfterValidator(_check_url)]
EnvName = Annotated[str, AfterValidator(_check_env_name)]


# --- the models ---------------------------------------------------------------------------


class _Model(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        allow_inf_nan=False,  # TOML has inf and nan: a timeout of inf waits forever
        validate_assignment=True,
        validate_by_name=True,
        validate_by_alias=True,
    )

    @model_validator(mode="before")
    @classmethod
    def _refuse_secrets(cls, data: object) -> object:
        if isinstance(data, dict):
            for key in data:
                if key in SECRET_KEYS:
                    # The key travels in ctx so the error can point at its own line.
                    raise PydanticCustomError(
                        "secret_in_config",
                        "a secret must not be stored in the config file; put it in an "
                        "environment variable and name that variable with {use}",
                        {"key": key, "use": SECRET_KEYS[key]},
                    )
        return data


class Auth(_Model):
    """How requests to an environment authenticate. Holds names of secrets, never secrets."""

    type: Literal["none", "bearer", "basic", "oauth2"] = "none"
    """The scheme: none, bearer (a token), basic (user and password) or oauth2 (client
    credentials grant)."""
    token_env: EnvName | None = None
    """bearer: name of the environment variable holding the token."""
    username: str | None = None
    """basic: the user name (not a secret, so it may be written here)."""
    password_env: EnvName | None = None
    """basic: name of the environment variable holding the password."""
    token_url: Url | None = None
    """oauth2: the token endpoint of the authorisation server."""
    client_id: str | None = None
    """oauth2: the client id (not a secret)."""
    client_secret_env: EnvName | None = None
    """oauth2: name of the environment variable holding the client secret."""
    scope: str | None = None
    """oauth2: optional space-separated scopes to request."""
    keyring_service: str | None = None
    """Optional keyring service to look the secret up in (username: the variable's name)
    when its environment variable is unset. Needs the optional ``keyring`` package."""

    @model_validator(mode="after")
    def _fields_match_type(self) -> Self:
        required, optional = AUTH_REQUIRED[self.type], AUTH_OPTIONAL[self.type]
        given = {name for name in type(self).model_fields if getattr(self, name) is not None}
        if missing := [name for name in required if name not in given]:
            raise ValueError(f"type {self.type} needs {', '.join(missing)}")
        if extra := sorted(given - {"type", *required, *optional}):
            raise ValueError(f"{', '.join(extra)} does not apply to type {self.type}")
        return self

    @property
    def secret_env(self) -> str | None:
        """The environment variable that holds this scheme's secret (none for type none)."""
        return getattr(self, AUTH_REQUIRED[self.type][-1]) if self.type != "none" else None

    def secret(self) -> str:
        """The secret this scheme needs: from its environment variable, else the keyring."""
        name = self.secret_env
        if name is None:
            raise ConfigError("auth type none has no secret")
        if value := os.environ.get(name):
            return value
        if self.keyring_service is None:
            raise ConfigError(f"environment variable {name} is not set (the {self.type} secret)")
        if value := _keyring_secret(self.keyring_service, name):
            return value
        raise ConfigError(
            f"environment variable {name} is not set and keyring service "
            f"{self.keyring_service!r} has no entry for {name} (the {self.type} secret)"
        )


# Settings each auth type needs; the last one names the secret.
AUTH_REQUIRED: dict[str, tuple[str, ...]] = {
    "none": (),
    "bearer": ("token_env",),
    "basic": ("username", "password_env"),
    "oauth2": ("token_url", "client_id", "client_secret_env"),
}
AUTH_OPTIONAL: dict[str, tuple[str, ...]] = {
    "none": (),
    "bearer": ("keyring_service",),
    "basic": ("keyring_service",),
    "oauth2": ("scope", "keyring_service"),
}


def _keyring_secret(service: str, name: str) -> str | None:
    # Imported here: keyring is an optional dependency and costly to import.
    try:
        import keyring
        from keyring.errors import KeyringError
    except ImportError:
        raise ConfigError(
            f"environment variable {name} is not set, and keyring_service needs the keyring "
            "package: pip install 'producer-tui[keyring]'"
        ) from None
    try:
        return keyring.get_password(service, name)
    except KeyringError as exc:
        raise ConfigError(
            f"keyring lookup of {name} in service {service!r} failed: {exc}"
        ) from None


class GroupUrls(_Model):
    """Per-group base URLs that override the environment's ``base_url``."""

    search: Url | None = None
    """Base URL of the producer database search group."""
    transaction: Url | None = None
    """Base URL of the producer transaction group."""
    import_: Url | None = Field(None, alias="import")
    """Base URL of the single profile import group."""
    bulk: Url | None = None
    """Base URL of the bulk profile import group."""
    export: Url | None = None
    """Base URL of the producer export group."""

    def get(self, group: Group) -> str | None:
        """The override for ``group``, if any."""
        return getattr(self, "import_" if group == "import" else group)


class Environment(_Model):
    """One place the app can talk to: the embedded sandbox or a real service."""

    embedded: bool = False
    """True for the in-process sandbox, which needs no URLs."""
    seed: int = 42
    """Embedded only: seed of the sandbox's synthetic registry, so its data is the same
    every run."""
    bulk_fail_rate: float = Field(0.0, ge=0.0, le=1.0)
    """Embedded only: share of bulk records the sandbox fails transiently (retryable), to
    see how retries, ``bulk retry`` and reports behave."""
    base_url: Url | None = None
    """Host part of every group's address (scheme, host, optional port and path prefix);
    the group's spec path such as /producerpdbsearch/v1 is appended."""
    base_urls: GroupUrls | None = None
    """Optional per-group overrides of ``base_url``."""
    format: Literal["json", "xml"] = "json"
    """Body format for operations that accept either."""
    timeout: float = Field(30.0, gt=0)
    """Seconds to wait for a response."""
    auth: Auth = Auth()
    """How to authenticate; no authentication if absent."""
    bulk_max_request_bytes: int | None = Field(None, ge=MIN_REQUEST_BYTES)
    """Largest bulk request body to send, in bytes, if the service has a limit (at least
    1024: a request holds at least one whole record); a 413 teaches the app the limit
    anyway."""
    date_format: Literal["MM/DD/YYYY", "YYYY-MM-DD", "MM-DD-YYYY", "YYYYMMDD"] = "MM/DD/YYYY"
    """How order dates (dateOfBirth, dateEffective) are sent; forms accept MM/DD/YYYY or
    ISO as typed. The spec does not say which format the service reads."""
    dialect: Literal["native", "minimal"] = "native"
    """Embedded only: how the sandbox answers. ``minimal`` gives the barest shapes the spec
    allows, plus members no model knows (to try the app as a stranger's service would)."""
    today: date | None = Field(None, strict=False)
    """Embedded only: the sandbox's date (YYYY-MM-DD). Its registry is dated from the day it
    is first seeded; a later date here shows the records as they stand then (licenses
    expire), so a watch sees what changed. The app judges licenses by this date too."""
    watch_days: int = Field(60, ge=0, le=3650)
    """Watch: a license expiring within this many days is a finding."""
    watch_rate: float = Field(10.0, ge=0)
    """Watch: full records read per second at most during a check (0: no pacing)."""

    @model_validator(mode="after")
    def _check_urls(self) -> Self:
        if not self.embedded and self.dialect != "native":
            raise ValueError("dialect is a setting of the embedded sandbox (embedded = true)")
        if not self.embedded and self.today is not None:
            raise ValueError("today is a setting of the embedded sandbox (embedded = true)")
        if self.embedded:
            if self.base_url or self.base_urls:
                raise ValueError(
                    "an embedded environment runs in-process and takes no base_url or "
                    "base_urls; set embedded = false to use a server"
                )
        elif missing := [g for g in GROUPS if self._base_for(g) is None]:
            raise ValueError(
                f"needs base_url, or base_urls for every group (no URL for: {', '.join(missing)})"
            )
        return self

    def _base_for(self, group: Group) -> str | None:
        override = self.base_urls.get(group) if self.base_urls else None
        return override or self.base_url

    def group_url(self, group: Group) -> str:
        """The full base address of ``group``, e.g. https://host/producerpdbsearch/v1."""
        base = EMBEDDED_BASE_URL if self.embedded else self._base_for(group)
        assert base is not None  # guaranteed by _check_urls
        return base.rstrip("/") + GROUP_PREFIXES[group]


EMBEDDED_ONLY = ("seed", "bulk_fail_rate", "dialect", "today")
"""The settings of the embedded sandbox alone (a server environment has no use for them)."""


KEY_NAME = re.compile(r"((ctrl|shift|alt|meta|super|hyper)\+)*([a-z0-9_]+|[^\s,+])")
"""A key in Textual's notation: modifiers, then a name (``f5``, ``question_mark``) or one
printable character."""


def _keys_spec(spec: str) -> str:
    bad = [key for key in spec.split(",") if not KEY_NAME.fullmatch(key.strip())]
    if bad:
        raise ValueError(
            f"{bad[0].strip()!r} is no key name (Textual's notation: "
            '"f5", "ctrl+s", "question_mark", or one character; commas between keys)'
        )
    return spec


KeysSpec = Annotated[str, AfterValidator(_keys_spec)]
"""One or more keys, by Textual's names, separated by commas. Checked per entry, so that
a problem is named at its own line of the file (it was named at the [keys] header)."""


def name_problem(name: str) -> str | None:
    """What is wrong with an environment's name, if anything: it is shown on screen and
    printed by the CLI, where control characters (ESC, BEL) would steer the terminal."""
    if not name.strip():
        return "is required"
    if not name.isprintable():
        return "must be printable text (no control characters)"
    return None


class Config(_Model):
    """The whole config file."""

    # Declared before ``active`` so that its validator can see the validated environments.
    environments: dict[str, Environment]
    """The environments by name, e.g. [environments.sandbox]."""
    active: str
    """Name of the environment to use at start-up."""
    theme: str | None = None
    """UI theme name; the app's default theme if absent."""
    mask_pii: bool = True
    """Mask tax ids and other personal data on screen."""
    keys: dict[str, KeysSpec] = {}
    """Key remapping: binding id -> key, or several keys separated by commas (Textual's
    notation), e.g. search = "1"."""

    @field_validator("environments")
    @classmethod
    def _printable_names(cls, environments: dict[str, Environment]) -> dict[str, Environment]:
        for name in environments:
            if problem := name_problem(name):
                raise ValueError(f"the environment name {name!r} {problem}")
        return environments

    @field_validator("active")
    @classmethod
    def _active_exists(cls, active: str, info: ValidationInfo) -> str:
        environments = info.data.get("environments")
        if environments is not None and active not in environments:
            known = ", ".join(environments) or "none defined"
            raise ValueError(f"no environment named {active!r} (known: {known})")
        return active

    def active_env(self) -> tuple[str, Environment]:
        """The active environment's name and settings."""
        return self.active, self.environments[self.active]

    def chosen(self, name: str | None) -> tuple[str, Environment]:
        """The name and settings of the environment ``--env`` names, or of the active one;
        :class:`ConfigError` for a name the config does not have."""
        name = name or self.active
        if name not in self.environments:
            raise ConfigError(f"{config_path()}: --env: no environment named {name}")
        return name, self.environments[name]


def default_config() -> Config:
    """What a first run writes: just the embedded sandbox, so the app works offline."""
    return Config(environments={"sandbox": Environment(embedded=True)}, active="sandbox")


# --- reading and writing ------------------------------------------------------------------


class ConfigConflict(ConfigError):
    """The file was changed elsewhere since it was read, and where this change is too."""


def load_config(path: Path | None = None) -> Config:
    """Read the config file, creating the default one on first run."""
    path = path or config_path()
    config = _read_config(path)
    if config is None:
        config = default_config()
        save_config(config, path)
    return config


def _read_config(path: Path) -> Config | None:
    """The config in the file; ``None`` if there is no file."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config file: {exc}") from None
    try:
        text = raw.decode("utf-8-sig")  # a byte order mark, as Notepad writes, is no statement
    except UnicodeDecodeError as exc:
        from tui_app.wire.errors import not_utf8

        raise ConfigError(f"{path}: {not_utf8(raw, exc)}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(_syntax_problem(path, text, exc)) from None
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_problems(path, text, exc)) from None


def save_config(config: Config, path: Path | None = None) -> Path | None:
    """Write the config atomically, leaving out settings that were never set. A file
    being replaced that holds comments (which tomli-w cannot keep) is kept first, as
    :func:`commented_copy`: its path is returned, else None."""
    import tomli_w  # only needed when writing, which is rare

    path = path or config_path()
    # Python mode, so a date stays a TOML date rather than becoming a string.
    data = config.model_dump(by_alias=True, exclude_none=True, exclude_unset=True)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        kept = _keep_comments(path)
        _replace_file(path, tomli_w.dumps(data))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot write the config file: {exc}") from None
    return kept


_QUOTED = r"\"(?:[^\"\\]|\\.)*\"|'[^']*'"
"""A TOML basic or literal string on one line: a ``#`` in one is no comment, and a quoted
key is one."""


def has_comments(path: Path) -> bool:
    """Whether the config file holds a comment (a ``#`` outside a string)."""
    return _commented(_text_of(path))


def _text_of(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _commented(text: str) -> bool:
    return any("#" in re.sub(_QUOTED, "", line) for line in text.splitlines())


def commented_copy(path: Path) -> Path:
    """Where a config file with comments is kept when a save replaces it."""
    return path.with_name(f"{path.name}.commented")


def _keep_comments(path: Path) -> Path | None:
    # A hand-written config's comments are the user's notes: a save (a theme chosen, an
    # environment added) must not lose them silently. Only the file they were in is kept.
    text = _text_of(path)
    if not _commented(text):
        return None
    kept = commented_copy(path)
    _replace_file(kept, text)
    return kept


def save_change(
    base: Config,
    mine: Config,
    path: Path | None = None,
    *,
    overwrite: bool = False,
    renamed: Collection[str] = (),
) -> Config:
    """Write ``mine``, this instance's change of ``base`` (the config as it read it), and
    return what was written. The file is read again first: whatever another instance or a
    hand edit changed there since is kept. A setting both changed, differently, is a
    :class:`ConfigConflict` (nothing written) unless ``overwrite`` says ``mine`` wins it.
    ``renamed``: names in ``mine`` given to an environment that had another name (merged
    whole, never setting by setting with the one the name belonged to)."""
    path = path or config_path()
    try:
        disk = _read_config(path)
    except ConfigError as exc:
        raise ConfigError(f"the config file was changed and has problems now: {exc}") from None
    if disk is not None and disk != base:
        mine = _merge(base, mine, disk, path, overwrite, renamed)
    save_config(mine, path)
    return mine


def _merge(
    base: Config, mine: Config, disk: Config, path: Path, overwrite: bool, renamed: Collection[str]
) -> Config:
    """Three-way merge, setting by setting (an environment's too): a setting this instance
    left as it read it takes the file's value, one it changed takes its own."""
    conflicts: list[str] = []

    def mine_wins(key: str, b: object, m: object, d: object) -> bool:
        if m == b:
            return False
        if d not in (b, m):
            conflicts.append(key)
        return True

    def merged(model: type[_Model], key: str, b: _Model, m: _Model, d: _Model) -> dict:
        data: dict[str, object] = {}
        for name in model.model_fields.keys() - {"environments"}:  # merged one by one below
            values = (getattr(b, name), getattr(m, name), getattr(d, name))
            chosen = m if mine_wins(f"{key}{name}", *values) else d
            if name in chosen.model_fields_set:
                data[name] = getattr(chosen, name)
        return data

    data = merged(Config, "", base, mine, disk)
    envs: dict[str, object] = {}
    blended: list[str] = []
    for name in dict.fromkeys([*mine.environments, *disk.environments]):
        b, m, d = (c.environments.get(name) for c in (base, mine, disk))
        if (
            b is not None
            and m is not None
            and d is not None
            and b not in (m, d)
            and (name not in renamed)
        ):
            # Changed on both sides: each keeps its own settings (a key added by hand
            # beside a timeout changed here); only the same setting changed twice clashes.
            envs[name] = merged(Environment, f"environments.{name}.", b, m, d)
            blended.append(name)
        elif (env := m if mine_wins(f"environments.{name}", b, m, d) else d) is not None:
            envs[name] = env
    data["environments"] = envs
    changed = f"{path} was changed elsewhere (another producer-tui, or an edit) since it was read"
    if conflicts and not overwrite:
        raise ConfigConflict(f"{changed}, in {', '.join(conflicts)} too")
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {_message(e)}" for e in exc.errors())
        if not overwrite:
            raise ConfigConflict(
                f"{changed}, and the two do not fit together: {problems}"
            ) from None
    # Told to overwrite: an environment whose settings from both sides do not fit together
    # (a server here, a sandbox's date added there) is saved as it is here.
    for name in blended:
        envs[name] = mine.environments[name]
    try:
        return Config.model_validate(data)
    except ValidationError:
        raise ConfigError(f"{changed}, and the two do not fit together: {problems}") from None


def _replace_file(path: Path, text: str) -> None:
    # Write a sibling temp file and rename it over the old one, so a crash mid-write never
    # leaves a truncated config behind. A link (dotfiles kept in a repository) stays a
    # link: its target is the file replaced.
    path = path.resolve() if path.is_symlink() else path
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


# --- error messages -----------------------------------------------------------------------

_BARE_KEY = r"[A-Za-z0-9_-]+"
_KEY_PART = rf"(?:{_QUOTED}|{_BARE_KEY})"
_DOTTED_KEY = rf"{_KEY_PART}(?:\s*\.\s*{_KEY_PART})*"
_HEADER_RE = re.compile(rf"\s*\[\[?\s*({_DOTTED_KEY})\s*\]")
_ASSIGN_RE = re.compile(rf"\s*({_DOTTED_KEY})\s*=")

KeyPath = tuple[str, ...]


@dataclass(frozen=True)
class _KeyLine:
    path: KeyPath
    """Full key path of the header or key on this line."""
    line: int
    table: KeyPath
    """The table this line belongs to (for a header, the table it opens)."""


def _split_key(dotted: str) -> KeyPath:
    parts = re.findall(_KEY_PART, dotted)
    return tuple(p[1:-1] if p[0] in "\"'" else p for p in parts)


def _key_lines(text: str) -> list[_KeyLine]:
    """Every table header and key in the file with its line number, in file order.

    A best-effort line scanner, not a TOML parser: it only has to point a person at the
    right line, and a config file is simple enough for that.
    """
    found = []
    table: KeyPath = ()
    for lineno, line in enumerate(text.splitlines(), start=1):
        if match := _HEADER_RE.match(line):
            table = _split_key(match[1])
            found.append(_KeyLine(table, lineno, table))
        elif match := _ASSIGN_RE.match(line):
            found.append(_KeyLine(table + _split_key(match[1]), lineno, table))
    return found


def key_line_finder(path: Path) -> Callable[[str], int | None]:
    """The line of a key path (``theme``, ``environments.staging``) in the config file at
    ``path``, for problems found after loading that name it: the file is read once."""
    try:
        keys = _key_lines(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        keys = []
    return lambda dotted: _line_of(keys, _split_key(dotted))


def _line_of(keys: list[_KeyLine], loc: KeyPath) -> int | None:
    """The line of ``loc``: its own line, else the first line inside it, else its parent's."""
    while loc:
        if lines := [k.line for k in keys if k.path[: len(loc)] == loc]:
            exact = [k.line for k in keys if k.path == loc]
            return (exact or lines)[0]
        loc = loc[:-1]
    return None


def _message(error: ErrorDetails) -> str:
    kind, ctx = error["type"], error.get("ctx", {})
    if kind == "literal_error":
        return "must be one of " + ctx["expected"].replace("'", "").replace(" or ", ", ")
    if kind == "extra_forbidden":
        return "unknown key (check its spelling and the table it is in)"
    if kind == "missing":
        return "is required"
    if kind == "value_error":
        return str(ctx["error"])
    return re.sub(r"^Input should be", "must be", error["msg"])


def _problems(path: Path, text: str, exc: ValidationError) -> str:
    """One ``file:line: key.path: message`` line per problem, in file order."""
    keys = _key_lines(text)
    problems = []
    for error in exc.errors():
        loc = tuple(str(part) for part in error["loc"])
        if error["type"] == "secret_in_config":
            loc += (error["ctx"]["key"],)
        problems.append((_line_of(keys, loc), loc, _message(error)))
    problems.sort(key=lambda p: p[0] or 0)
    return "\n".join(
        f"{path}{f':{line}' if line else ''}: {'.'.join(loc)}: {message}"
        for line, loc, message in problems
    )


def _syntax_problem(path: Path, text: str, exc: tomllib.TOMLDecodeError) -> str:
    # Python 3.11's TOMLDecodeError has no lineno attribute; the message carries it.
    message = str(exc)
    match = re.search(r"\s*\(at line (\d+), column \d+\)$", message)
    if match is None:  # "(at end of document)"
        line = text.count("\n") + 1
        message = re.sub(r"\s*\(at end of document\)$", "", message)
    else:
        line = int(match[1])
        message = message[: match.start()]
    # tomllib names a table as a Python tuple: ('environments', 'sandbox') reads as written.
    message = re.sub(
        r"\(((?:'[^']*'(?:, )?)+)\)", lambda m: ".".join(re.findall(r"'([^']*)'", m[1])), message
    )
    # Name the key on that line if the scanner can read it, else the table it sits in.
    keys = _key_lines(text)
    here = [k.path for k in keys if k.line == line]
    before = [k.table for k in keys if k.line < line]
    key = here[0] if here else before[-1] if before else ()
    lines = text.splitlines()
    written = lines[line - 1].strip() if line <= len(lines) else ""
    if not here and written.startswith("["):  # a broken table header: name it as written
        where = written if len(written) <= 60 else written[:59] + "…"
    else:
        where = ".".join(key) or "(top level)"
    return f"{path}:{line}: {where}: invalid TOML: {message}"
