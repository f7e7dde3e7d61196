"""``RegistryClient``: one async httpx client with a method per endpoint of the spec.

Every method takes and returns contract models. Requests are validated before anything
is sent; bodies go as JSON or XML as the environment says (the single import is always
XML, the bulk import always NDJSON). Reads, searches and exports are retried with backoff
on connection failures, timeouts and 429/502/503/504 (honouring ``Retry-After``). Orders
and imports change state on the server, so they are retried only when the request surely
was not processed: the connection was never made, or the service said 429 or 503.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from tui_app import __version__
from tui_app.client.errors import (
    AuthError,
    BadResponse,
    ClientError,
    Conflict,
    InvalidInput,
    NotFound,
    Rejected,
    ServerError,
    Unavailable,
    Unreachable,
)
from tui_app.config import GROUPS
from tui_app.contract.bulk import BulkAccepted, BulkItem, BulkStatus
from tui_app.contract.dates import DATE_FORMATS, DEFAULT_DATE_FORMAT, format_date
from tui_app.contract.errors import FieldError, field_errors
from tui_app.contract.export import AgencyExportRequest, AgentExportRequest, ExportResponse
from tui_app.contract.order import Order, OrderResponse, OrderStatusQuery
from tui_app.contract.profile import AgencyRecord, AgentRecord, ImportResult
from tui_app.contract.record import FullRecordResponse
from tui_app.contract.search import (
    AgencySearch,
    AgencySearchResponse,
    AgentSearch,
    AgentSearchResponse,
    FullRecordQuery,
)
from tui_app.wire.errors import WireError

M = TypeVar("M", bound=BaseModel)

ORDER_DATES = ("dateOfBirth", "dateEffective")

XML = "application/xml"
JSON = "application/json"
NDJSON = "application/x-ndjson"
MAX_ANSWER_BYTES = 64 * 2**20
"""The largest answer read: a bulk status of 1,000 items is about 0.2 MiB, an export of
a large agency a few MiB."""


@dataclass(frozen=True)
class RequestLog:
    """What the request log hook receives. Never a body, a header or a secret: bodies
    carry SSNs, FEINs and birth dates, headers carry credentials."""

    method: str
    url: str
    status: int | None
    elapsed_ms: float
    attempt: int
    error: str | None = None


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 3
    base_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 60.0
    """A ``Retry-After`` longer than this is not waited for; the error is raised."""

    def backoff(self, attempt: int) -> float:
        # Full jitter keeps many clients from retrying in step.
        return random.uniform(0, min(self.max_delay, self.base_delay * 2 ** (attempt - 1)))


def retry_after(response: httpx.Response) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date)."""
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


class RegistryClient:
    """Async client of all five groups. ``urls`` maps each group (``search``,
    ``transaction``, ``import``, ``bulk``, ``export``) to its full base URL, path prefix
    included, e.g. ``https://host/producerpdbsearch/v1``."""

    def __init__(
        self,
        urls: Mapping[str, str],
        *,
        format: str = "json",
        auth: httpx.Auth | None = None,
        timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
        retry: RetryPolicy = RetryPolicy(),
        on_request: Callable[[RequestLog], None] | None = None,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        date_format: str = DEFAULT_DATE_FORMAT,
    ) -> None:
        missing = [g for g in GROUPS if g not in urls]
        if missing:
            raise ValueError(f"no URL for {', '.join(missing)}")
        if format not in ("json", "xml"):
            raise ValueError("format must be json or xml")
        self.urls: dict[str, str] = {g: urls[g].rstrip("/") for g in GROUPS}
        if date_format not in DATE_FORMATS:
            raise ValueError(f"date_format must be one of {', '.join(DATE_FORMATS)}")
        self.format = format
        self.date_format = date_format
        """How order dates typed MM/DD/YYYY or ISO are sent (the environment's setting)."""
        self.timeout = timeout
        self._retry = retry
        self._on_request = on_request
        self._sleep = sleep
        self._http = httpx.AsyncClient(
            auth=auth,
            timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
            transport=transport,
            headers={"User-Agent": f"producer-tui/{__version__}"},
        )

    def on_response(self, hook: Callable[[httpx.Response], Awaitable[None]]) -> Callable[[], None]:
        """Have ``hook`` called with every answer as it was received, before it is read
        into a model (the shell's ``--format json`` prints the service's own words).
        Returns a function that removes the hook again (a watch check's, when it ends)."""
        hooks = self._http.event_hooks["response"]
        hooks.append(hook)
        return lambda: hooks.remove(hook)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> RegistryClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # --- producer database search ---------------------------------------------------

    async def search_agents(self, request: AgentSearch | Mapping) -> AgentSearchResponse:
        body = self._encode(_valid(AgentSearch, request, self._context), "AgentSearch")
        return await self._call(
            "POST", "search", "/agent/search", AgentSearchResponse, body=body, safe=True
        )

    async def search_agencies(self, request: AgencySearch | Mapping) -> AgencySearchResponse:
        body = self._encode(_valid(AgencySearch, request, self._context), "AgencySearch")
        return await self._call(
            "POST", "search", "/agency/search", AgencySearchResponse, body=body, safe=True
        )

    async def get_agent(self, npn: int, cost_center: str | None = None) -> FullRecordResponse:
        return await self._full_record("/agent", npn, cost_center)

    async def get_agency(self, npn: int, cost_center: str | None = None) -> FullRecordResponse:
        return await self._full_record("/agency", npn, cost_center)

    async def _full_record(self, path: str, npn: int, cost_center: str | None):
        query = _valid(FullRecordQuery, {"Npn": npn, "CostCenter": cost_center})
        params = query.model_dump(exclude_none=True)
        return await self._call("GET", "search", path, FullRecordResponse, params=params, safe=True)

    # --- producer transaction ---------------------------------------------------------

    async def submit_order(self, order: Order | Mapping) -> OrderResponse:
        """File an order. Its dates, typed MM/DD/YYYY or ISO, are sent in the environment's
        ``date_format``; other date text is sent as typed (the spec does not say)."""
        valid = _valid(Order, order, self._context)
        for name in ORDER_DATES:
            value = getattr(valid.data, name)
            if value:
                setattr(valid.data, name, format_date(value, self.date_format))
        body = self._encode(valid, "Order")
        answer = await self._call(
            "POST", "transaction", "/order", OrderResponse, body=body, safe=False
        )
        return _with_order_num(answer, valid.tlq.clientOrderNum)

    async def order_status(self, order_num: str) -> OrderResponse:
        query = _valid(OrderStatusQuery, {"order_num": order_num})
        answer = await self._call(
            "GET",
            "transaction",
            "/order/status",
            OrderResponse,
            params=query.model_dump(),
            safe=True,
        )
        return _with_order_num(answer, order_num)

    # --- single profile import (always XML) -------------------------------------------

    async def import_agent(self, record: AgentRecord | Mapping) -> ImportResult:
        return await self._import(AgentRecord, record, "Agent", "/agents")

    async def import_agency(self, record: AgencyRecord | Mapping) -> ImportResult:
        return await self._import(AgencyRecord, record, "Agency", "/agencies")

    async def _import(self, model: type[M], record: M | Mapping, root: str, path: str):
        from tui_app.wire.xml import dump_xml

        valid = _valid(model, record, context={"format": "xml"})
        body = (dump_xml(valid, root), XML)
        return await self._call(
            "POST", "import", path, ImportResult, body=body, safe=False, accept=XML
        )

    # --- bulk profile import (NDJSON) -------------------------------------------------

    async def bulk_submit(
        self, items: Iterable[BulkItem], item_type: str = "profile"
    ) -> BulkAccepted:
        """Submit one bulk request. Items are contract models, validated when built."""
        lines = b"".join(
            json.dumps(item.to_line(), separators=(",", ":")).encode() + b"\n" for item in items
        )
        if not lines:
            raise InvalidInput([FieldError("items", "a bulk request needs at least one record")])
        return await self._call(
            "POST",
            "bulk",
            f"/{item_type}",
            BulkAccepted,
            body=(lines, NDJSON),
            safe=False,
            accept=JSON,
        )

    async def bulk_submit_lines(
        self, lines: Sequence[bytes], item_type: str = "profile"
    ) -> BulkAccepted:
        """Submit one bulk request of NDJSON lines already encoded and validated (the bulk
        pipeline's fast path: each line is a checked envelope, sent as written)."""
        if not lines:
            raise InvalidInput([FieldError("items", "a bulk request needs at least one record")])
        body = b"\n".join(lines) + b"\n"
        return await self._call(
            "POST", "bulk", f"/{item_type}", BulkAccepted, body=(body, NDJSON), safe=False,
            accept=JSON,
        )  # fmt: skip

    async def bulk_status(self, bulk_request_id: str) -> BulkStatus:
        return await self._call(
            "GET", "bulk", f"/status/{bulk_request_id}", BulkStatus, safe=True, accept=JSON
        )

    # --- producer export --------------------------------------------------------------

    async def export_agent(self, request: AgentExportRequest | Mapping) -> ExportResponse:
        body = self._encode(_valid(AgentExportRequest, request, self._context), "Export")
        return await self._call(
            "POST", "export", "/agents/export", ExportResponse, body=body, safe=True
        )

    async def export_agency(self, request: AgencyExportRequest | Mapping) -> ExportResponse:
        body = self._encode(_valid(AgencyExportRequest, request, self._context), "Export")
        return await self._call(
            "POST", "export", "/agencies/export", ExportResponse, body=body, safe=True
        )

    # --- health -----------------------------------------------------------------------

    async def ping(self) -> float:
        """Whether the service answers: milliseconds for any HTTP answer from the search
        group's base URL (no billable lookup). Raises :class:`Unavailable` or
        :class:`AuthError`."""
        start = time.perf_counter()
        try:
            response = await self._send("GET", self.urls["search"], {}, None, None, 1)
        except _Retryable as failure:
            raise failure.error from None
        if response.status_code in (401, 403):
            raise _auth_error(response.status_code)
        return (time.perf_counter() - start) * 1000

    # --- plumbing ---------------------------------------------------------------------

    @property
    def _context(self) -> dict | None:
        """Validation context of a request body: in XML, what XML cannot carry is an
        error of the field holding it (writing the document failed on it otherwise)."""
        return {"format": "xml"} if self.format == "xml" else None

    def _encode(self, model: BaseModel, root: str) -> tuple[bytes, str]:
        if self.format == "xml":
            from tui_app.wire.xml import dump_xml

            return dump_xml(model, root), XML
        return model.model_dump_json(exclude_none=True).encode(), JSON

    async def _call(
        self,
        method: str,
        group: str,
        path: str,
        model: type[M],
        *,
        safe: bool,
        params: dict[str, Any] | None = None,
        body: tuple[bytes, str] | None = None,
        accept: str | None = None,
    ) -> M:
        url = self.urls[group] + path
        headers = {"Accept": accept or (XML if self.format == "xml" else JSON)}
        content = None
        if body is not None:
            content, headers["Content-Type"] = body
        # One deadline for the whole operation, retries and their waits included: the
        # user waits ``timeout`` seconds at most, not that much per attempt.
        begun = time.monotonic()
        deadline = begun + self.timeout
        attempt = 0
        while True:
            attempt += 1
            try:
                response = await self._send(
                    method, url, headers, params, content, attempt, begun, deadline
                )
            except _Retryable as failure:
                wait = self._retry.backoff(attempt)
                if (
                    (safe or failure.unsent)
                    and attempt < self._retry.attempts
                    and wait < deadline - time.monotonic()
                ):
                    await self._sleep(wait)
                    continue
                raise failure.error from None
            if _should_retry(response.status_code, safe) and attempt < self._retry.attempts:
                asked = retry_after(response)
                wait = self._retry.backoff(attempt) if asked is None else asked
                if wait <= self._retry.max_retry_after and wait < deadline - time.monotonic():
                    await self._sleep(wait)
                    continue
            return _decode(response, model)

    async def _send(
        self,
        method,
        url,
        headers,
        params,
        content,
        attempt,
        begun: float | None = None,
        deadline: float | None = None,
    ) -> httpx.Response:
        start = time.perf_counter()
        begun = time.monotonic() if begun is None else begun
        deadline = begun + self.timeout if deadline is None else deadline
        left = max(deadline - time.monotonic(), 0.001)
        timeout = httpx.Timeout(left, connect=min(left, 10.0))
        request = self._http.build_request(
            method, url, headers=headers, params=params, content=content, timeout=timeout
        )
        try:
            # httpx's timeouts bound each read, so an answer sent a byte at a time (or a
            # token service that never answers: its request has none) went on for ever
            # (QA): the deadline bounds the whole exchange.
            async with asyncio.timeout(left):
                response = await self._receive(request)
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            # The connection was never made, so nothing was received: any method may retry.
            self._log(method, url, None, start, attempt, "connection failed")
            raise _Retryable(Unreachable(_unreachable(url, exc)), unsent=True) from None
        except (httpx.TimeoutException, TimeoutError):
            self._log(method, url, None, start, attempt, "timed out")
            waited = time.monotonic() - begun  # the true time, every attempt included
            raise _Retryable(
                Unavailable(f"{_where(url)} did not answer within {_seconds(waited)}"),
                unsent=False,
            ) from None
        except httpx.TransportError as exc:
            self._log(method, url, None, start, attempt, type(exc).__name__)
            raise _Retryable(
                Unavailable(f"the connection to {_where(url)} failed ({type(exc).__name__})"),
                unsent=False,
            ) from None
        except ClientError:
            raise  # raised by an auth flow, e.g. the token service refused
        except RuntimeError:
            if not self._http.is_closed:
                raise
            # Closed under a request still to be sent: the app switched environment (it
            # closes the old connection) while an area's search or order was on its way.
            raise Unreachable(
                f"the connection to {_where(url)} was closed: another environment is in use"
            ) from None
        self._log(method, url, response.status_code, start, attempt, None)
        return response

    async def _receive(self, request: httpx.Request) -> httpx.Response:
        """The answer to ``request``, its body read to at most :data:`MAX_ANSWER_BYTES`
        (QA: a 2 GB answer was read whole, to 4.5 GB of memory)."""
        response = await self._http.send(request, stream=True)
        try:
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > MAX_ANSWER_BYTES:
                    raise BadResponse(
                        f"the answer of {_where(str(request.url))} is larger than"
                        f" {MAX_ANSWER_BYTES // 2**20} MiB, more than any answer of the"
                        " interface holds: not read",
                        bytes(body[:200]).decode("utf-8", "replace"),
                    )
        finally:
            await response.aclose()
        response._content = bytes(body)  # what ``aread`` sets: the body, decoded
        return response

    def _log(self, method, url, status, start, attempt, error) -> None:
        if self._on_request is not None:
            elapsed = (time.perf_counter() - start) * 1000
            self._on_request(RequestLog(method, url, status, elapsed, attempt, error))


def _with_order_num(answer: OrderResponse, client_order_num: str) -> OrderResponse:
    """The spec does not say what ``orderDetails`` holds: when the service leaves out the
    client's order number, it is the one this request named."""
    details = answer.order.orderDetails
    if details.clientOrderNum is None:
        details.clientOrderNum = client_order_num
    return answer


class _Retryable(Exception):
    def __init__(self, error: ClientError, unsent: bool) -> None:
        self.error = error
        self.unsent = unsent


def _should_retry(status: int, safe: bool) -> bool:
    # 429 and 503 mean "not processed, come back later": safe for any method.
    return status in (429, 503) or (safe and status in (502, 504))


def _valid(model: type[M], value: M | Mapping, context: dict | None = None) -> M:
    """Validate (again) before sending: a model built with ``model_construct`` or edited
    after construction must not slip through."""
    data = value.model_dump(exclude_none=True) if isinstance(value, BaseModel) else value
    try:
        return model.model_validate(data, context=context)
    except ValidationError as exc:
        raise InvalidInput(field_errors(exc)) from None


def _decode(response: httpx.Response, model: type[M]) -> M:
    status = response.status_code
    if 200 <= status < 300:
        return _parse(response, model)
    if status in (401, 403):
        raise _auth_error(status)
    message, errors = _error_body(response)
    if status == 404:
        raise NotFound(message or "not found", status, errors)
    if status == 409:
        raise Conflict(message or "the request conflicts with the current state", status, errors)
    if status == 413:
        raise Rejected("the request is too large for the service", status, errors)
    if status == 429:
        raise Rejected("the service is busy and asks to try again later", status, errors)
    if 400 <= status < 500:
        summary = message or "the service refused the request"
        raise Rejected(summary, status, errors)
    text = "the service is temporarily unavailable" if status == 503 else "the service failed"
    raise ServerError(f"{text} ({status}){': ' + message if message else ''}", status)


def _parse(response: httpx.Response, model: type[M]) -> M:
    """The answer as ``model``, read tolerantly: an XML answer may have any root element
    (the spec does not name them), and response models keep what they do not know. A body
    that is not JSON or XML, or lacks the members the spec names, is a
    :class:`BadResponse` that carries the raw body."""
    what = model.__name__
    try:
        if "xml" in response.headers.get("Content-Type", ""):
            from tui_app.wire.xml import load_xml, load_xml_dict

            root, _ = load_xml_dict(response.content)
            return load_xml(response.content, model, root=root)
        return model.model_validate_json(response.content)
    except ValidationError as exc:
        problems = "; ".join(str(e) for e in field_errors(exc)[:3])
        raise BadResponse(
            f"the service's answer is not a valid {what}: {problems}", _raw(response)
        ) from None
    except WireError as exc:
        raise BadResponse(
            f"the service's answer is not a valid {what}: {exc}", _raw(response)
        ) from None
    except (RecursionError, ValueError) as exc:
        raise BadResponse(
            f"the service's answer is not a valid {what}: {type(exc).__name__}", _raw(response)
        ) from None


RAW_LIMIT = 64 * 1024
"""How much of a bad answer's body a :class:`BadResponse` keeps to show."""


def _raw(response: httpx.Response) -> str:
    return response.content[:RAW_LIMIT].decode("utf-8", errors="replace")


def _error_body(response: httpx.Response) -> tuple[str | None, list[FieldError]]:
    """The message and field errors of an error body: ``{"message", "errors": [{"path",
    "message"}]}`` as the sandbox writes it, or FastAPI's ``{"detail": ...}``. A body that
    is not JSON, or nests too deeply to read safely, gives neither."""
    from tui_app.wire.json import load_json_value

    try:
        body = load_json_value(response.content)
    except WireError:
        return None, []
    if not isinstance(body, dict):
        return None, []
    message = body.get("message") or body.get("detail")
    errors = [
        FieldError(str(e.get("path", "")), str(e.get("message", "")))
        for e in body.get("errors") or []
        if isinstance(e, dict)
    ]
    return (message if isinstance(message, str) else None), errors


def _auth_error(status: int) -> AuthError:
    if status == 401:
        return AuthError(
            "the service did not accept the credentials (401): check the "
            "environment's auth settings and its secret variable",
            status,
        )
    return AuthError("the service refused this action for these credentials (403)", status)


def _where(url: str) -> str:
    """Host and port, so that a wrong port is seen in the message (``host:8765``)."""
    parsed = httpx.URL(url)
    if not parsed.host:
        return url
    port = parsed.port or {"https": 443, "http": 80}.get(parsed.scheme)
    return f"{parsed.host}:{port}" if port else parsed.host


def _seconds(value: float) -> str:
    return f"{value:.1f} s" if value < 10 else f"{value:.0f} s"


def _unreachable(url: str, exc: Exception) -> str:
    reason = (
        "timed out connecting"
        if isinstance(exc, httpx.ConnectTimeout)
        else "refused or unreachable"
    )
    return f"cannot reach {_where(url)}: connection {reason}"
