"""Typed client errors, each with a message a screen can show as it is."""

from __future__ import annotations

from tui_app.contract.errors import FieldError


class ClientError(Exception):
    """Base of every error the client raises; ``str(err)`` is plain language."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidInput(ClientError):
    """The request does not satisfy the contract; nothing was sent."""

    def __init__(self, errors: list[FieldError]) -> None:
        self.errors = errors
        super().__init__("Please correct: " + "; ".join(map(str, errors)))


class Unavailable(ClientError):
    """The service could not be reached, or did not answer in time."""


class Unreachable(Unavailable):
    """No connection could be made: the request was never sent (nor any retry of it)."""


class AuthError(ClientError):
    """The service refused our credentials (401) or the action (403)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class Rejected(ClientError):
    """The service refused the request (4xx), with its field messages where it gave any."""

    def __init__(self, message: str, status: int, errors: list[FieldError] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.errors = errors or []


class NotFound(Rejected):
    """404: no such producer, order, bulk request or profile."""


class Conflict(Rejected):
    """409: the request conflicts with the resource's state (e.g. a final order)."""


class ServerError(ClientError):
    """The service failed (5xx)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class BadResponse(ClientError):
    """The service answered, but not with what the contract promises. ``body`` keeps
    (the start of) what it said, so a screen can show it rather than lose it."""

    def __init__(self, message: str, body: str = "") -> None:
        super().__init__(message)
        self.body = body
