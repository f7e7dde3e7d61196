"""The sandbox's HTTP layer: a FastAPI app serving all five groups under one base URL.

Bodies are decoded here by content type with the same contract models and wire formats as
the client, so the sandbox refuses exactly what the contract refuses. Error bodies are
JSON: ``{"message": "...", "errors": [{"path": "tlq.juris", "message": "..."}]}``.
"""

from __future__ import annotations

import asyncio
import random
import threading
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, TypeVar

from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError

from tui_app.contract.errors import FieldError, field_errors
from tui_app.contract.export import AgencyExportRequest, AgentExportRequest, ExportResponse
from tui_app.contract.order import Order, OrderResponse, OrderStatusQuery
from tui_app.contract.profile import AgencyRecord, AgentRecord, ImportResult
from tui_app.contract.search import (
    AgencySearch,
    AgencySearchResponse,
    AgentSearch,
    AgentSearchResponse,
    FullRecordQuery,
    FullRecordResponse,
)
from tui_app.sandbox import bulk, orders, profiles, registry
from tui_app.sandbox.db import Database
from tui_app.wire.errors import WireError
from tui_app.wire.json import load_json
from tui_app.wire.xml import dump_xml, load_xml

M = TypeVar("M", bound=BaseModel)

XML_TYPES = ("application/xml", "text/xml")
REQUEST_MODELS = (
    AgentSearch,
    AgencySearch,
    Order,
    AgentRecord,
    AgencyRecord,
    AgentExportRequest,
    AgencyExportRequest,
)
NDJSON_TYPES = ("application/x-ndjson", "application/ndjson", "application/jsonl")


@dataclass
class SandboxSettings:
    db_path: Path | str
    seed: int = 42
    size: int = 5000
    """Individuals in the synthetic registry; firms are a fifth of that."""
    token: str | None = None
    """When set, every request needs ``Authorization: Bearer <token>``."""
    fail_rate: float = 0.0
    """Share of requests answered 503 with Retry-After, and of bulk records failing
    transiently (retryable)."""
    latency_ms: int = 0
    step_seconds: float = 3.0
    """How long an order stays in each stage of its lifecycle."""
    max_body: int = 16 * 1024 * 1024
    import_rules: Path | None = None
    today: date | None = None
    """Anchors the synthetic licenses' dates; by default the date of first seeding."""


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
            step_seconds=s.step_seconds,
        )
        self.profiles = profiles.Profiles(
            self.db, profiles.load_import_rules(s.import_rules), lookup=self._lookup
        )
        self.bulk = bulk.BulkJobs(self.db, self.profiles, fail_rate=s.fail_rate, seed=s.seed)
        self._stop = threading.Event()
        self._worker: threading.Thread | None = None
        self._chaos = random.Random(s.seed)

    def _lookup(self, kind: str, npn: int):
        found = self.registry.full_record(kind, npn)
        return found.NiprFullInfo if found else None

    def _lookup_npn(self, npn: int):
        return self._lookup("agent", npn) or self._lookup("agency", npn)

    def start(self) -> None:
        """Seed the registry (once per database) and start the bulk worker."""
        s = self.settings
        self.registry.ensure_seeded(s.seed, s.size, max(1, s.size // 5), today=s.today)
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
    def __init__(self, status: int, message: str, errors: list[FieldError] | None = None):
        self.status, self.message, self.errors = status, message, errors or []


def _error(
    status: int,
    message: str,
    errors: list[FieldError] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    body: dict[str, Any] = {"message": message}
    if errors:
        body["errors"] = [e.as_dict() for e in errors]
    return JSONResponse(body, status_code=status, headers=headers)


def _media_type(request: Request) -> str:
    return request.headers.get("content-type", "").split(";")[0].strip().lower()


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
        return load_json(data, model, context=context)
    except WireError as exc:
        raise HttpError(400, str(exc)) from None
    except ValidationError as exc:
        raise HttpError(400, f"invalid {root}", field_errors(exc)) from None


def _query(model: type[M], params: dict[str, Any]) -> M:
    try:
        return model.model_validate({k: v for k, v in params.items() if v is not None})
    except ValidationError as exc:
        raise HttpError(400, "invalid query", field_errors(exc)) from None


def _answer(
    request: Request, model: BaseModel, status: int = 200, *, xml: bool = False
) -> Response:
    """JSON, or XML when asked for (``Accept: application/xml``); the XML root is the
    response model's name."""
    if xml or "xml" in request.headers.get("accept", ""):
        return Response(dump_xml(model, type(model).__name__), status, media_type="application/xml")
    return Response(model.model_dump_json(exclude_none=True), status, media_type="application/json")


def _doc(model: type[BaseModel], xml_root: str | None = None) -> dict[str, Any]:
    """OpenAPI request body for a route that decodes its body by hand."""
    content: dict[str, Any] = {}
    schema = {"$ref": f"#/components/schemas/{model.__name__}"}
    if xml_root is None or xml_root != "only":
        content["application/json"] = {"schema": schema}
    content["application/xml"] = {"schema": schema}
    return {"requestBody": {"required": True, "content": content}}


# --- the app -------------------------------------------------------------------------------


def create_app(sandbox: Sandbox, *, manage: bool = True) -> FastAPI:
    """The ASGI app. With ``manage`` the app's lifespan starts and stops the sandbox (as
    under uvicorn); the embedded sandbox is started by its owner instead."""

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if manage:
            await asyncio.to_thread(sandbox.start)
        yield
        if manage:
            sandbox.stop()

    app = FastAPI(
        title="Producer Registry Services (sandbox)",
        version="v1",
        description="A faithful stand-in of the Producer Registry Services API for "
        "learning, training and integration tests. Synthetic data only.",
        lifespan=lifespan,
        separate_input_output_schemas=False,
    )
    settings = sandbox.settings

    @app.exception_handler(HttpError)
    async def _http_error(request: Request, exc: HttpError) -> JSONResponse:
        return _error(exc.status, exc.message, exc.errors)

    @app.middleware("http")
    async def _gate(request: Request, call_next):
        if settings.latency_ms:
            await asyncio.sleep(settings.latency_ms / 1000)
        public = request.url.path in ("/openapi.json", "/docs", "/docs/oauth2-redirect")
        authorized = request.headers.get("authorization") == f"Bearer {settings.token}"
        if settings.token and not public and not authorized:
            return _error(
                401, "missing or wrong bearer token", headers={"WWW-Authenticate": "Bearer"}
            )
        length = request.headers.get("content-length")
        if length and length.isdigit() and int(length) > settings.max_body:
            return _error(413, f"request body larger than {settings.max_body} bytes")
        if not public and sandbox.flaky():
            return _error(
                503,
                "the sandbox is injecting a transient failure; retry",
                headers={"Retry-After": "0"},
            )
        return await call_next(request)

    def openapi() -> dict[str, Any]:
        # The bodies are decoded by hand (JSON or XML), so their models are added here.
        if app.openapi_schema is None:
            from fastapi.openapi.utils import get_openapi

            schema = get_openapi(
                title=app.title, version=app.version, description=app.description, routes=app.routes
            )
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            for model in REQUEST_MODELS:
                found = model.model_json_schema(ref_template="#/components/schemas/{model}")
                components.update(found.pop("$defs", {}))
                components[model.__name__] = found
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

    # --- producer database search ---

    @app.post(
        "/producerpdbsearch/v1/agent/search",
        response_model=AgentSearchResponse,
        openapi_extra=_doc(AgentSearch),
        tags=["search"],
    )
    async def agent_search(request: Request) -> Response:
        query = await _body(request, AgentSearch, "AgentSearch")
        return _answer(request, await asyncio.to_thread(sandbox.registry.search_agents, query))

    @app.post(
        "/producerpdbsearch/v1/agency/search",
        response_model=AgencySearchResponse,
        openapi_extra=_doc(AgencySearch),
        tags=["search"],
    )
    async def agency_search(request: Request) -> Response:
        query = await _body(request, AgencySearch, "AgencySearch")
        try:
            found = await asyncio.to_thread(sandbox.registry.search_agencies, query)
        except registry.SearchRefused as exc:
            raise HttpError(400, str(exc), exc.errors) from None
        return _answer(request, found)

    async def _full(request: Request, kind: str, Npn: Any, CostCenter: str | None) -> Response:
        query = _query(FullRecordQuery, {"Npn": Npn, "CostCenter": CostCenter})
        found = await asyncio.to_thread(sandbox.registry.full_record, kind, query.Npn)
        if found is None:
            raise HttpError(404, f"no {kind} with NPN {query.Npn}")
        return _answer(request, found)

    @app.get("/producerpdbsearch/v1/agent", response_model=FullRecordResponse, tags=["search"])
    async def agent_record(request: Request, Npn: str, CostCenter: str | None = None):
        return await _full(request, "agent", Npn, CostCenter)

    @app.get("/producerpdbsearch/v1/agency", response_model=FullRecordResponse, tags=["search"])
    async def agency_record(request: Request, Npn: str, CostCenter: str | None = None):
        return await _full(request, "agency", Npn, CostCenter)

    # --- producer transaction ---

    @app.post(
        "/producertransaction/v1/order",
        response_model=OrderResponse,
        openapi_extra=_doc(Order),
        tags=["transaction"],
    )
    async def submit_order(request: Request) -> Response:
        order = await _body(request, Order, "Order")
        try:
            result = await asyncio.to_thread(sandbox.orders.submit, order)
        except orders.OrderFinal as exc:
            raise HttpError(409, str(exc)) from None
        return _answer(request, result, 200 if result.order.orderDetails.updated else 201)

    @app.get(
        "/producertransaction/v1/order/status", response_model=OrderResponse, tags=["transaction"]
    )
    async def order_status(request: Request, order_num: str | None = None) -> Response:
        query = _query(OrderStatusQuery, {"order_num": order_num})
        found = await asyncio.to_thread(sandbox.orders.status, query.order_num)
        if found is None:
            raise HttpError(404, f"no order with client order number {query.order_num}")
        return _answer(request, found)

    # --- single profile import (XML) ---

    async def _import(request: Request, model: type[M], root: str) -> Response:
        try:
            record = await _body(request, model, root, xml_only=True, context={"format": "xml"})
        except HttpError as exc:
            if exc.status != 400 or not exc.errors:
                raise
            # Well-formed but invalid: the spec answers 200 with Success false.
            return _answer(request, profiles.validation_result(exc.errors), xml=True)
        result = await asyncio.to_thread(sandbox.profiles.import_record, record)
        return _answer(request, result, xml=True)

    @app.post(
        "/producerimport/v1/agents",
        response_model=ImportResult,
        openapi_extra=_doc(AgentRecord, "only"),
        tags=["import"],
    )
    async def import_agent(request: Request) -> Response:
        return await _import(request, AgentRecord, "Agent")

    @app.post(
        "/producerimport/v1/agencies",
        response_model=ImportResult,
        openapi_extra=_doc(AgencyRecord, "only"),
        tags=["import"],
    )
    async def import_agency(request: Request) -> Response:
        return await _import(request, AgencyRecord, "Agency")

    # --- bulk profile import (NDJSON) ---

    @app.post(
        "/bulk/v1/{itemType}",
        status_code=202,
        tags=["bulk"],
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
            }
        },
    )
    async def bulk_submit(request: Request, itemType: str) -> Response:
        if itemType != "profile":
            raise HttpError(404, f"unknown item type {itemType}; the only one is profile")
        if _media_type(request) not in NDJSON_TYPES:
            raise HttpError(415, "send the records as application/x-ndjson")
        body = await request.body()
        try:
            job = await asyncio.to_thread(sandbox.bulk.accept, body)
        except bulk.BulkRejected as exc:
            errors = [FieldError(f"line {n}", message) for n, message in exc.lines]
            raise HttpError(400, "the bulk request has bad lines", errors) from None
        return JSONResponse({"bulkRequestId": job}, status_code=202)

    @app.get("/bulk/v1/status/{bulkRequestId}", tags=["bulk"])
    async def bulk_status(bulkRequestId: str) -> Response:
        found = await asyncio.to_thread(sandbox.bulk.status, bulkRequestId)
        if found is None:
            raise HttpError(404, f"no bulk request {bulkRequestId}")
        return Response(found.model_dump_json(), media_type="application/json")

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

    @app.post(
        "/producerexport/v1/agents/export",
        response_model=ExportResponse,
        openapi_extra=_doc(AgentExportRequest),
        tags=["export"],
    )
    async def export_agent(request: Request) -> Response:
        return await _export(request, AgentExportRequest, "agent")

    @app.post(
        "/producerexport/v1/agencies/export",
        response_model=ExportResponse,
        openapi_extra=_doc(AgencyExportRequest),
        tags=["export"],
    )
    async def export_agency(request: Request) -> Response:
        return await _export(request, AgencyExportRequest, "agency")

    return app
