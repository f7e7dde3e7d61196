"""The sandbox's HTTP layer: an ASGI app serving all five groups under one base URL
(FastAPI when served, with its OpenAPI document; plain Starlette when embedded).

Bodies are decoded here by content type with the same contract models and wire formats as
the client, so the sandbox refuses exactly what the contract refuses. Error bodies are
JSON: ``{"message": "...", "errors": [{"path": "tlq.juris", "message": "..."}]}``.
"""

from __future__ import annotations

import asyncio
import hmac
import random
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tui_app.contract.errors import FieldError, field_errors
from tui_app.contract.export import AgencyExportRequest, AgentExportRequest
from tui_app.contract.order import Order, OrderStatusQuery
from tui_app.contract.profile import AgencyRecord, AgentRecord
from tui_app.contract.record import FullRecordResponse
from tui_app.contract.search import (
    AgencySearch,
    AgentSearch,
    FullRecordQuery,
)
from tui_app.sandbox import bulk, orders, profiles, registry
from tui_app.sandbox.db import Database
from tui_app.wire.errors import WireError
from tui_app.wire.json import load_json
from tui_app.wire.xml import dump_xml, load_xml, may_have_xml_problems, xml_problems

M = TypeVar("M", bound=BaseModel)

XML_TYPES = ("application/xml", "text/xml")
NDJSON_TYPES = ("application/x-ndjson", "application/ndjson", "application/jsonl")


@dataclass
class SandboxSettings:
    db_path: Path | str
    seed: int = 42
    size: int = 5000
    """Individuals in the synthetic registry; firms are a fifth of that."""
    token: str | None = None
    """When set, every request needs ``Authorization: Bearer <token>`` (the scheme word
    in any case), ``/openapi.json`` included, and the ``/docs`` pages are off."""
    fail_rate: float = 0.0
    """Share of requests answered 503 with Retry-After, and of bulk records failing
    transiently (retryable)."""
    bulk_fail_rate: float | None = None
    """Share of bulk records failing transiently, if not ``fail_rate`` (the embedded
    sandbox's setting fails records only, never whole requests)."""
    latency_ms: int = 0
    step_seconds: float = 3.0
    """How long an order stays in each stage of its lifecycle."""
    max_body: int = 16 * 1024 * 1024
    """Request bodies over this many bytes get 413, counted as they are read (any transfer
    encoding), so a body is never held beyond this size."""
    max_bulk_records: int = 1000
    """Bulk requests of more records get 413 (the interface recommends 100 or fewer)."""
    import_rules: Path | None = None
    today: date | None = None
    """Anchors the synthetic licenses' dates; by default the date of first seeding."""
    clock: profiles.Clock = profiles.utc_now
    """The time orders move by (a test moves it by hand, and nothing sleeps)."""


@dataclass
class Sandbox:
    """The service's state: one database, the five groups' logic and the bulk worker."""

    settings: SandboxSettings
    db: Database = field(init=False)

    def __post_init__(self) -> None:
        s = self.settings
        self.db = Database(
            s.db_path, schemas=(registry.SCHEMA, orders.SCHEMA, profiles.SCHEMA, bulk.SCHEMA)
        )
        self.registry = registry.Registry(self.db)
        self.orders = orders.Orders(
            self.db,
            lookup=self._lookup_npn,
            clock=s.clock,
            step_seconds=s.step_seconds,
        )
        self.profiles = profiles.Profiles(
            self.db, profiles.load_import_rules(s.import_rules), lookup=self._lookup
        )
        record_rate = s.fail_rate if s.bulk_fail_rate is None else s.bulk_fail_rate
        self.bulk = bulk.BulkJobs(self.db, self.profiles, fail_rate=record_rate, seed=s.seed)
        self._stop = threading.Event()
        self._worker: threading.Thread | None = None
        self._chaos = random.Random(s.seed)

    def record(self, kind: Literal["agent", "agency"], npn: int) -> FullRecordResponse | None:
        """The registry's record of an NPN as the orders approved so far have changed it."""
        found = self.registry.full_record(kind, npn)
        if found is not None:
            found.NiprFullInfo = self.orders.apply_to(found.NiprFullInfo)
        return found

    def _lookup(self, kind: str, npn: int):
        found = self.record("agency" if kind == "agency" else "agent", npn)
        return found.NiprFullInfo if found else None

    def _lookup_npn(self, npn: int):
        return self._lookup("agent", npn) or self._lookup("agency", npn)

    def start(self, *, bulk_worker: bool = True, seed_in_background: bool = False) -> None:
        """Seed the registry and the demo profiles (once per database) and start the bulk worker, or (with
        ``bulk_worker`` false) leave it to start on the first bulk request. The embedded
        sandbox waits: the app's own process never sends bulk requests (a detached worker
        does, with its own sandbox over the same file), so it must not take the database's
        bulk work, and the interface stays as quick while a job runs as when none does.
        With ``seed_in_background`` a registry still to generate is seeded on a thread
        (reads of it wait), so the sandbox answers at once."""
        s = self.settings
        self.profiles.ensure_demo()
        self.registry.ensure_seeded(
            s.seed, s.size, max(1, s.size // 5), today=s.today, background=seed_in_background
        )
        if bulk_worker:
            self.bulk_worker()

    def bulk_worker(self) -> None:
        """Start the bulk worker thread if it is not running."""
        if self._worker is None:
            self._worker = threading.Thread(
                target=self.bulk.run_worker, args=(self._stop,), name="sandbox-bulk", daemon=True
            )
            self._worker.start()

    def stop(self) -> None:
        self._stop.set()
        if self._worker is not None:
            self._worker.join(timeout=5)
            self._worker = None
        self.db.close()

    def flaky(self) -> bool:
        return self.settings.fail_rate > 0 and self._chaos.random() < self.settings.fail_rate


# --- helpers -----------------------------------------------------------------------------


class HttpError(Exception):
    def __init__(
        self,
        status: int,
        message: str,
        errors: list[FieldError] | None = None,
        headers: dict[str, str] | None = None,
    ):
        self.status, self.message, self.errors = status, message, errors or []
        self.headers = headers


class BodyTooLarge(Exception):
    """Raised while a request body is read, once it passes ``max_body`` bytes."""


def error_body(message: str, errors: list[FieldError] | None = None) -> dict[str, Any]:
    """The one shape of every error answer: ``{"message", "errors": [{"path", "message"}]}``."""
    return {"message": message, "errors": [e.as_dict() for e in errors or ()]}


def _error(
    status: int,
    message: str,
    errors: list[FieldError] | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    return JSONResponse(error_body(message, errors), status_code=status, headers=headers)


def _media_type(request: Request) -> str:
    return request.headers.get("content-type", "").split(";")[0].strip().lower()


def check_xml_safe(value: Any, prefix: str = "") -> list[FieldError]:
    """One :class:`FieldError` per value XML could not carry (see
    :func:`tui_app.wire.xml.xml_problems`): refused at input, because whatever is stored
    is read back as XML later."""
    return [FieldError(path, message) for path, message in xml_problems(value, prefix)]


async def _body(
    request: Request,
    model: type[M],
    root: str,
    *,
    xml_only: bool = False,
    context: dict | None = None,
) -> M:
    """Decode and validate a request body by its content type."""
    kind = _media_type(request)
    if kind not in XML_TYPES and (xml_only or kind != "application/json"):
        wanted = "application/xml" if xml_only else "application/json or application/xml"
        raise HttpError(415, f"unsupported content type {kind or '(none)'}; send {wanted}")
    data = await request.body()
    try:
        if kind in XML_TYPES:
            return load_xml(data, model, root=root, context=context)
        found = load_json(data, model, context=context)
    except WireError as exc:
        raise HttpError(400, str(exc)) from None
    except ValidationError as exc:
        raise HttpError(400, f"invalid {root}", field_errors(exc)) from None
    # An XML body cannot hold what XML cannot carry; a JSON body can, and is checked.
    if may_have_xml_problems(data):
        bad = check_xml_safe(found.model_dump(mode="json", exclude_none=True))
        if bad:
            raise HttpError(400, f"invalid {root}", bad)
    return found


def _query(request: Request, model: type[M], names: tuple[str, ...]) -> M:
    """Validate the query parameters ``names`` with ``model``; any other parameter is
    refused too, so that a misspelt one is not silently ignored."""
    params = request.query_params
    errors = [
        FieldError(k, "is not a parameter of this operation") for k in params if k not in names
    ]
    for name in names:
        if len(params.getlist(name)) > 1:
            errors.append(FieldError(name, "is given more than once"))
    try:
        found = model.model_validate({k: params[k] for k in names if k in params})
    except ValidationError as exc:
        errors = field_errors(exc) + errors
    if errors:
        raise HttpError(400, "invalid query", errors)
    return found


def _answer(
    request: Request, model: BaseModel, status: int = 200, *, xml: bool = False
) -> Response:
    """JSON, or XML when asked for (``Accept: application/xml``); the XML root is the
    response model's name."""
    if xml or "xml" in request.headers.get("accept", ""):
        return Response(dump_xml(model, type(model).__name__), status, media_type="application/xml")
    return Response(model.model_dump_json(exclude_none=True), status, media_type="application/json")


# --- the gate: a pure ASGI middleware ------------------------------------------------------


class Gate:
    """Every request passes here first: latency, bearer token, body size (counted as it is
    read, for both Content-Length and chunked bodies) and injected failures. A pure ASGI
    middleware: no per-request task or body copy, unlike ``@app.middleware("http")``."""

    def __init__(self, app: ASGIApp, sandbox: Sandbox) -> None:
        self.app, self.sandbox = app, sandbox
        token = sandbox.settings.token
        self._token = token.encode("utf-8") if token else None

    def _authorized(self, header: bytes | None) -> bool:
        if self._token is None:
            return True
        scheme, _, credentials = (header or b"").strip().partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(credentials.strip(), self._token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        settings = self.sandbox.settings
        if settings.latency_ms:
            await asyncio.sleep(settings.latency_ms / 1000)
        headers = dict(scope["headers"])
        if not self._authorized(headers.get(b"authorization")):
            await _error(
                401, "missing or wrong bearer token", headers={"WWW-Authenticate": "Bearer"}
            )(scope, receive, send)
            return
        limit = settings.max_body
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            status = 413 if length.isdigit() else 400
            message = (
                f"request body larger than {limit} bytes"
                if status == 413
                else "Content-Length is not a number"
            )
            await _error(status, message)(scope, receive, send)
            return
        if self.sandbox.flaky():
            await _error(
                503,
                "the sandbox is injecting a transient failure; retry",
                headers={"Retry-After": "0"},
            )(scope, receive, send)
            return
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge
            return message

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, tracked)
        except BodyTooLarge:
            if started:
                raise
            await _error(413, f"request body larger than {limit} bytes")(scope, receive, send)
        except ClientDisconnect:
            # The client went while sending its body (a Ctrl-C, a killed worker): there is
            # no one to answer, and nothing went wrong here (QA: three tracebacks a time).
            return


# --- the app -------------------------------------------------------------------------------


Endpoint = Callable[[Request], Awaitable[Response]]


def create_app(sandbox: Sandbox, *, manage: bool = True, web_docs: bool = True) -> ASGIApp:
    """The ASGI app. With ``manage`` the app's lifespan starts and stops the sandbox (as
    under uvicorn); the embedded sandbox is started by its owner instead. With
    ``web_docs`` a FastAPI app, which also serves its OpenAPI document and docs pages;
    without (the embedded sandbox, which nobody browses) the same routes and handlers on
    plain Starlette, which imports in about a sixth of FastAPI's time."""

    @asynccontextmanager
    async def lifespan(app: ASGIApp) -> AsyncIterator[None]:
        if manage:
            await asyncio.to_thread(sandbox.start)
        yield
        if manage:
            sandbox.stop()

    settings = sandbox.settings

    async def _http_error(request: Request, exc: HttpError) -> JSONResponse:
        return _error(exc.status, exc.message, exc.errors, exc.headers)

    async def _too_large(request: Request, exc: BodyTooLarge) -> JSONResponse:
        return _error(413, f"request body larger than {settings.max_body} bytes")

    async def _starlette(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _error(exc.status_code, str(exc.detail), headers=exc.headers)

    async def _crash(request: Request, exc: Exception) -> JSONResponse:
        # Logged by the server; the client gets the one error shape, never a reset.
        return _error(500, "the sandbox failed on this request")

    handlers: dict[Any, Callable[..., Any]] = {
        HttpError: _http_error,
        BodyTooLarge: _too_large,
        StarletteHTTPException: _starlette,
        Exception: _crash,
    }
    routes: list[tuple[str, str, str, Endpoint]] = []  # (method, path, tag, endpoint)

    def route(method: str, path: str, tag: str) -> Callable[[Endpoint], Endpoint]:
        def register(endpoint: Endpoint) -> Endpoint:
            routes.append((method, path, tag, endpoint))
            return endpoint

        return register

    # --- producer database search ---

    @route("POST", "/producerpdbsearch/v1/agent/search", "search")
    async def agent_search(request: Request) -> Response:
        query = await _body(request, AgentSearch, "AgentSearch")
        return _answer(request, await asyncio.to_thread(sandbox.registry.search_agents, query))

    @route("POST", "/producerpdbsearch/v1/agency/search", "search")
    async def agency_search(request: Request) -> Response:
        query = await _body(request, AgencySearch, "AgencySearch")
        try:
            found = await asyncio.to_thread(sandbox.registry.search_agencies, query)
        except registry.SearchRefused as exc:
            raise HttpError(400, str(exc), exc.errors) from None
        return _answer(request, found)

    async def _full(request: Request, kind: Literal["agent", "agency"]) -> Response:
        query = _query(request, FullRecordQuery, ("Npn", "CostCenter"))
        found = await asyncio.to_thread(sandbox.record, kind, query.Npn)
        if found is None:
            raise HttpError(404, f"no {kind} with NPN {query.Npn}")
        return _answer(request, found)

    @route("GET", "/producerpdbsearch/v1/agent", "search")
    async def agent_record(request: Request) -> Response:
        return await _full(request, "agent")

    @route("GET", "/producerpdbsearch/v1/agency", "search")
    async def agency_record(request: Request) -> Response:
        return await _full(request, "agency")

    # --- producer transaction ---

    @route("POST", "/producertransaction/v1/order", "transaction")
    async def submit_order(request: Request) -> Response:
        order = await _body(request, Order, "Order")
        try:
            result = await asyncio.to_thread(sandbox.orders.submit, order)
        except orders.OrderFinal as exc:
            raise HttpError(409, str(exc)) from None
        return _answer(request, result, 200 if result.order.orderDetails.updated else 201)

    @route("GET", "/producertransaction/v1/order/status", "transaction")
    async def order_status(request: Request) -> Response:
        query = _query(request, OrderStatusQuery, ("order_num",))
        found = await asyncio.to_thread(sandbox.orders.status, query.order_num)
        if found is None:
            raise HttpError(404, f"no order with client order number {query.order_num}")
        return _answer(request, found)

    # --- single profile import (XML) ---

    async def _import(
        request: Request, model: type[AgentRecord] | type[AgencyRecord], root: str
    ) -> Response:
        try:
            record = await _body(request, model, root, xml_only=True, context={"format": "xml"})
        except HttpError as exc:
            if exc.status != 400 or not exc.errors:
                raise
            # Well-formed but invalid: the spec answers 200 with Success false.
            return _answer(request, profiles.validation_result(exc.errors), xml=True)
        result = await asyncio.to_thread(sandbox.profiles.import_record, record)
        return _answer(request, result, xml=True)

    @route("POST", "/producerimport/v1/agents", "import")
    async def import_agent(request: Request) -> Response:
        return await _import(request, AgentRecord, "Agent")

    @route("POST", "/producerimport/v1/agencies", "import")
    async def import_agency(request: Request) -> Response:
        return await _import(request, AgencyRecord, "Agency")

    # --- bulk profile import (NDJSON) ---

    @route("POST", "/bulk/v1/{itemType}", "bulk")
    async def bulk_submit(request: Request) -> Response:
        item_type = request.path_params["itemType"]
        if item_type != "profile":
            raise HttpError(
                400,
                "invalid path",
                [
                    FieldError(
                        "itemType", f"must be profile (the only item type), not {item_type!r}"
                    )
                ],
            )
        if _media_type(request) not in NDJSON_TYPES:
            raise HttpError(415, "send the records as application/x-ndjson")
        body = await request.body()
        sandbox.bulk_worker()
        try:
            job = await asyncio.to_thread(sandbox.bulk.accept, body, settings.max_bulk_records)
        except bulk.TooManyRecords as exc:
            raise HttpError(413, str(exc)) from None
        except bulk.BulkRejected as exc:
            errors = [FieldError(f"line {n}", message) for n, message in exc.lines]
            raise HttpError(400, "the bulk request has bad lines", errors) from None
        return JSONResponse({"bulkRequestId": job}, status_code=202)

    @route("GET", "/bulk/v1/status/{bulkRequestId}", "bulk")
    async def bulk_status(request: Request) -> Response:
        job = request.path_params["bulkRequestId"]
        if not bulk.is_request_id(job):
            raise HttpError(
                400,
                "invalid path",
                [
                    FieldError(
                        "bulkRequestId",
                        "must be a bulkRequestId: a UUID returned by the submission",
                    )
                ],
            )
        sandbox.bulk_worker()  # a request left by an earlier process is finished
        found = await asyncio.to_thread(sandbox.bulk.status_json, job)
        if found is None:
            raise HttpError(404, f"no bulk request {job}")
        return Response(found, media_type="application/json")

    # --- producer export ---

    async def _export(request: Request, model, kind: str) -> Response:
        query = await _body(request, model, "Export")
        try:
            found = await asyncio.to_thread(
                sandbox.profiles.export, kind, query.profileKey, query.dataSets
            )
        except profiles.AmbiguousProfile as exc:
            raise HttpError(409, str(exc)) from None
        if found is None:
            raise HttpError(404, f"no {kind} profile with ProfileKey {query.profileKey}")
        return _answer(request, found)

    @route("POST", "/producerexport/v1/agents/export", "export")
    async def export_agent(request: Request) -> Response:
        return await _export(request, AgentExportRequest, "agent")

    @route("POST", "/producerexport/v1/agencies/export", "export")
    async def export_agency(request: Request) -> Response:
        return await _export(request, AgencyExportRequest, "agency")

    if web_docs:
        return _documented_app(sandbox, routes, handlers, lifespan)
    app = Starlette(
        routes=[Route(path, endpoint, methods=[method]) for method, path, _, endpoint in routes],
        exception_handlers=handlers,
        lifespan=lifespan,
    )
    app.add_middleware(Gate, sandbox=sandbox)
    return app


def _documented_app(
    sandbox: Sandbox,
    routes: list[tuple[str, str, str, Endpoint]],
    handlers: dict[Any, Callable[..., Any]],
    lifespan: Callable[[Any], Any],
) -> ASGIApp:
    """The FastAPI app of ``routes``: /openapi.json (see :mod:`openapi`) and, while no
    token is required, the /docs and /redoc pages (they cannot send a token)."""
    from fastapi import FastAPI
    from fastapi.exceptions import RequestValidationError

    from tui_app.sandbox.openapi import document

    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [
            FieldError(
                ".".join(str(p) for p in e["loc"][1:]) or str(e["loc"][0]),
                "is required" if e["type"] == "missing" else e["msg"],
            )
            for e in exc.errors()
        ]
        return _error(400, "invalid request", errors)

    settings = sandbox.settings
    docs = settings.token is None
    app = FastAPI(
        title="Producer Registry Services (sandbox)",
        version="v1",
        description="A faithful stand-in of the Producer Registry Services API for "
        "learning, training and integration tests. Synthetic data only.",
        lifespan=lifespan,
        separate_input_output_schemas=False,
        docs_url="/docs" if docs else None,
        redoc_url="/redoc" if docs else None,
        exception_handlers={**handlers, RequestValidationError: _invalid},
    )
    for method, path, tag, endpoint in routes:
        app.add_api_route(path, endpoint, methods=[method], tags=[tag])
    app.add_middleware(Gate, sandbox=sandbox)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = document(app, settings)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app
