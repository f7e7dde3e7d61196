"""Build a :class:`RegistryClient` for a configured environment.

A remote environment gets its group URLs and auth from the config, its secret from an
environment variable or the keyring. The embedded sandbox runs in this process: the client
talks to its ASGI app through httpx's in-process transport (no socket, about four times
cheaper than loopback), and its database lives in the user data directory.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

from tui_app.client.auth import BearerAuth, OAuth2ClientCredentials
from tui_app.client.registry import RegistryClient, RequestLog
from tui_app.config import GROUPS, Auth, Environment, data_dir
from tui_app.locked_sqlite import UnusableDatabase, unusable

if TYPE_CHECKING:
    from starlette.types import ASGIApp

    from tui_app.sandbox.app import Sandbox


def build_auth(auth: Auth) -> httpx.Auth | None:
    """The httpx auth of an environment; raises ``ConfigError`` if its secret is missing."""
    if auth.type == "none":
        return None
    if auth.type == "bearer":
        return BearerAuth(auth.secret())
    if auth.type == "basic":
        return httpx.BasicAuth(auth.username or "", auth.secret())
    return OAuth2ClientCredentials(
        auth.token_url or "", auth.client_id or "", auth.secret(), auth.scope
    )


@dataclass
class Connection:
    """A client and, for the embedded environment, the sandbox behind it."""

    client: RegistryClient
    sandbox: Sandbox | None = None

    async def aclose(self) -> None:
        await self.client.aclose()
        if self.sandbox is not None:
            await asyncio.to_thread(self.sandbox.stop)


async def connect(
    env: Environment,
    *,
    on_request: Callable[[RequestLog], None] | None = None,
    today: date | None = None,
) -> Connection:
    """Open a connection to an environment. The embedded sandbox is created, seeded and
    started in a thread, so the caller's event loop (and the app's first frame) never
    waits for it."""
    urls: dict[str, str] = {group: env.group_url(group) for group in GROUPS}
    if not env.embedded:
        client = RegistryClient(
            urls,
            format=env.format,
            auth=build_auth(env.auth),
            timeout=env.timeout,
            on_request=on_request,
            date_format=env.date_format,
        )
        return Connection(client)
    sandbox, app = await asyncio.to_thread(_embedded, env, today or env.today)
    transport = httpx.ASGITransport(app=app)
    client = RegistryClient(
        urls,
        format=env.format,
        transport=transport,
        timeout=env.timeout,
        on_request=on_request,
        date_format=env.date_format,
    )
    return Connection(client, sandbox)


def _embedded(env: Environment, today: date | None) -> tuple[Sandbox, ASGIApp]:
    """The started sandbox and its ASGI app in the environment's dialect, on plain
    Starlette (no docs pages in-process, so no FastAPI to import)."""
    from tui_app.sandbox.app import create_app
    from tui_app.sandbox.dialect import wrap

    sandbox = start_embedded_sandbox(env.seed, today, bulk_fail_rate=env.bulk_fail_rate)
    return sandbox, wrap(create_app(sandbox, manage=False, web_docs=False), env.dialect)


def embedded_db(seed: int) -> Path:
    """The embedded sandbox's database: the app's, a bulk worker's and its served one's."""
    return data_dir() / f"sandbox-{seed}.db"


def start_embedded_sandbox(seed: int, today: date | None = None, **settings) -> Sandbox:
    """The in-process sandbox; ``today`` fixes its licenses' dates (tests, screenshots) and
    ``settings`` are further :class:`SandboxSettings` (e.g. a faster order lifecycle)."""
    from tui_app.sandbox.app import Sandbox, SandboxSettings

    path = embedded_db(seed)
    try:
        sandbox = Sandbox(SandboxSettings(db_path=path, seed=seed, today=today, **settings))
    except (OSError, sqlite3.Error) as exc:  # said as one line, by the CLI and the TUI
        raise UnusableDatabase(unusable("the sandbox's database", path, exc)) from None
    sandbox.start(bulk_worker=False, seed_in_background=True)
    return sandbox
