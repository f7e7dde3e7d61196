"""httpx auth for the environments' auth types. Secrets are resolved by the caller (from
environment variables or the keyring) and held only in memory; none ever enters a URL."""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, Callable

import httpx

from tui_app.client.errors import AuthError


class BearerAuth(httpx.Auth):
    def __init__(self, token: str) -> None:
        self._header = f"Bearer {token}"

    def auth_flow(self, request: httpx.Request):
        request.headers["Authorization"] = self._header
        yield request


class OAuth2ClientCredentials(httpx.Auth):
    """OAuth2 client-credentials grant. The token is cached until shortly before it
    expires (vendors throttle clients that fetch one per call) and fetched again once
    if the service answers 401."""

    requires_response_body = True

    def __init__(
        self,
        token_url: str,
        client_id: str,
        client_secret: str,
        scope: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._token_url = token_url
        self._form = {
            "grant_type": "client_credentials",
            "client_id": client_id,
            "client_secret": client_secret,
        }
        if scope:
            self._form["scope"] = scope
        self._clock = clock
        self._token: str | None = None
        self._expires = 0.0

    def _token_request(self) -> httpx.Request:
        return httpx.Request("POST", self._token_url, data=self._form)

    def _take(self, response: httpx.Response) -> None:
        if response.status_code != 200:
            raise AuthError(
                f"the token service refused the client credentials ({response.status_code})",
                response.status_code,
            )
        try:
            body = response.json()
            self._token = str(body["access_token"])
            lifetime = float(body.get("expires_in", 3600))
        except (ValueError, KeyError, TypeError):
            raise AuthError("the token service answered without an access token", 502) from None
        self._expires = self._clock() + max(lifetime - 60, lifetime / 2)

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        if self._token is None or self._clock() >= self._expires:
            self._take((yield self._token_request()))
        request.headers["Authorization"] = f"Bearer {self._token}"
        response = yield request
        if response.status_code == 401:
            self._take((yield self._token_request()))
            request.headers["Authorization"] = f"Bearer {self._token}"
            yield request
