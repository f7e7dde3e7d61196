"""The sandbox's published OpenAPI document, made true by hand.

The routes decode their bodies and parameters themselves (JSON or XML by content type,
NDJSON for bulk), so FastAPI cannot see what they take or answer. This module writes it:
every parameter with the contract's bounds, every request body in each media type it is
accepted in (XML with its root element), and every status code an operation can answer
with its body — the one error shape ``{"message", "errors": [{"path", "message"}]}``
included. A fuzzer reading this document (the test suite runs schemathesis on it) should
find nothing the sandbox does that the document does not say.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from tui_app.contract.bulk import BulkAccepted, BulkStatus
from tui_app.contract.export import AgencyExportRequest, AgentExportRequest, ExportResponse
from tui_app.contract.order import Order, OrderResponse
from tui_app.contract.profile import AgencyRecord, AgentRecord, ImportResult
from tui_app.contract.record import FullRecordResponse
from tui_app.contract.search import (
    AgencySearch,
    AgencySearchResponse,
    AgentSearch,
    AgentSearchResponse,
)
from tui_app.sandbox.synthetic import demo_order
from tui_app.wire.json import MAX_VALUES
from tui_app.wire.xml import INPUT_MAX_DEPTH, MAX_DEPTH, MAX_ELEMENTS

if TYPE_CHECKING:
    from fastapi import FastAPI

    from tui_app.sandbox.app import SandboxSettings

JSON, XML, NDJSON = "application/json", "application/xml", "application/x-ndjson"
XML_TEXT = "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\uFFFE\\uFFFF]*$"
"""Text XML 1.0 can carry: what every string field of a request may hold (the sandbox
refuses the rest with 400, since what it stores is read back as XML)."""
XML_NAME = "^[A-Za-z_][A-Za-z0-9_.\\-]*$"
DYNAMIC = {
    "type": "object",
    "description": f"Free-form object; keys are XML element names, nesting at most "
    f"{INPUT_MAX_DEPTH} levels.",
    "propertyNames": {"pattern": XML_NAME},
    "additionalProperties": {
        "anyOf": [
            {"type": "string", "pattern": XML_TEXT},
            {"type": "number"},
            {"type": "boolean"},
            {"type": "null"},
            {"$ref": "#/components/schemas/DynamicData"},
        ]
    },
}
_NUMERIC = {"ge": "minimum", "le": "maximum", "gt": "exclusiveMinimum", "lt": "exclusiveMaximum"}

ERROR_SCHEMA = {
    "type": "object",
    "title": "Error",
    "description": "Every error answer: a message and, for a validation failure, one entry "
    "per failing field (path in the request's own spelling, e.g. tlq.juris or line 3).",
    "required": ["message", "errors"],
    "properties": {
        "message": {"type": "string"},
        "errors": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["path", "message"],
                "properties": {"path": {"type": "string"}, "message": {"type": "string"}},
            },
        },
    },
}

ERRORS = {
    400: "Invalid request: a body that is not well-formed JSON / XML / NDJSON, a field, "
    "parameter or line that breaks the contract (each named in `errors`), or text XML "
    f"cannot carry (control characters, nesting deeper than {INPUT_MAX_DEPTH} levels in "
    f"JSON or {MAX_DEPTH} elements in XML), or a document too large to read safely (more "
    f"than {MAX_ELEMENTS:,} XML elements, more than {MAX_VALUES:,} JSON values)",
    401: "Missing or wrong bearer token (only when the sandbox runs with a token)",
    404: "Not found",
    405: "Method not allowed on this path",
    409: "Conflict with the current state",
    413: "Request too large: a body over the byte limit, or a bulk request over the record limit",
    415: "Unsupported content type",
    500: "The sandbox failed on this request (a bug: please report it)",
    503: "Transient failure injected by --fail-rate; retry after Retry-After seconds",
}


def _fix(node: Any, request: bool) -> Any:
    """Pydantic writes some numeric bounds as ``ge`` / ``le``; JSON Schema says
    ``minimum`` / ``maximum``. In requests, free text gets the XML-text pattern, and
    ``DynamicData`` the free-form object's schema."""
    if isinstance(node, dict):
        out = {
            _NUMERIC.get(k, k) if k in _NUMERIC and "type" in node else k: _fix(v, request)
            for k, v in node.items()
        }
        if not request:
            return out
        if out.get("type") == "string" and not {"pattern", "enum", "format", "const"} & set(out):
            out["pattern"] = XML_TEXT
        props = out.get("properties")
        if isinstance(props, dict):
            for name in ("DynamicData", "dynamicData"):
                if name in props:
                    props[name] = {
                        "anyOf": [{"$ref": "#/components/schemas/DynamicData"}, {"type": "null"}]
                    }
        return out
    if isinstance(node, list):
        return [_fix(v, request) for v in node]
    return node


_NAMES: dict[Any, str] = {}
"""Model -> its schema's name."""
"""Component name of each model (pydantic qualifies a name two models share)."""


def _ref(model: type[BaseModel] | str) -> dict[str, str]:
    name = model if isinstance(model, str) else _NAMES.get(model, model.__name__)
    return {"$ref": f"#/components/schemas/{name}"}


def _refs(node: Any) -> list[str]:
    """Names of the components ``node`` refers to."""
    if isinstance(node, dict):
        out = [node["$ref"].rsplit("/", 1)[1]] if isinstance(node.get("$ref"), str) else []
        return out + [n for v in node.values() for n in _refs(v)]
    if isinstance(node, list):
        return [n for v in node for n in _refs(v)]
    return []


def _xml(model: type[BaseModel], root: str) -> dict[str, Any]:
    return {"allOf": [_ref(model)], "xml": {"name": root}}


def _error_responses(*codes: int, retry: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for code in (*codes, 401, 405, 500, *((503,) if retry else ())):
        answer: dict[str, Any] = {
            "description": ERRORS[code],
            "content": {JSON: {"schema": _ref("Error")}},
        }
        if code == 503:
            answer["headers"] = {"Retry-After": {"schema": {"type": "string"}}}
        if code == 401:
            answer["headers"] = {"WWW-Authenticate": {"schema": {"type": "string"}}}
        if code == 405:
            answer["headers"] = {"Allow": {"schema": {"type": "string"}}}
        out[str(code)] = answer
    return dict(sorted(out.items()))


def _ok(model: type[BaseModel], description: str, *, xml_only: bool = False) -> dict[str, Any]:
    content: dict[str, Any] = {}
    if not xml_only:
        content[JSON] = {"schema": _ref(model)}
    content[XML] = {"schema": _xml(model, model.__name__)}
    return {"description": description, "content": content}


def _body(
    model: type[BaseModel], root: str, example: dict[str, Any], *, xml_only: bool = False
) -> dict[str, Any]:
    content: dict[str, Any] = {}
    if not xml_only:
        content[JSON] = {"schema": _ref(model), "example": example}
    content[XML] = {"schema": _xml(model, root), "example": _xml_example(root, example)}
    return {"required": True, "content": content}


def _param(
    name: str, where: str, schema: dict[str, Any], required: bool, text: str, example: Any = None
) -> dict:
    found = {"name": name, "in": where, "required": required, "schema": schema, "description": text}
    if example is not None:
        found["example"] = example
    return found


ORDER_LINKS = {
    "status": {
        "operationId": "get_producertransaction_v1_order_status",
        "parameters": {"order_num": "$request.body#/tlq/clientOrderNum"},
    }
}
NPN = {"type": "integer", "minimum": -(2**31), "maximum": 2**31 - 1}
COST_CENTER = {"type": "string", "maxLength": 50}
ACCEPT_NOTE = " The answer is JSON, or XML when the request says `Accept: application/xml`."


def operations(settings: SandboxSettings) -> dict[tuple[str, str], dict[str, Any]]:
    """Parameters, request body and responses of every operation, by (method, path)."""

    def lookup(npn: int) -> list[dict[str, Any]]:
        return [
            _param("Npn", "query", NPN, True, "national producer number (int32)", npn),
            _param("CostCenter", "query", COST_CENTER, False, "account specific cost center"),
        ]

    bulk_body = {
        "type": "array",
        "description": "NDJSON: one JSON object per line (shown here as an array of the "
        "lines). The request is refused (400, naming each line) only for its envelopes: a "
        "line that is not a JSON object, a missing, malformed or repeated clientRefId, or "
        "a data member that is no object. Each record inside data (one of agent or "
        "agency: components AgentRecord and AgencyRecord, in camelCase) is validated "
        "when it is processed; a bad record FAILS in the status, naming its fields.",
        "minItems": 1,
        "maxItems": settings.max_bulk_records,
        "uniqueItems": True,
        "items": _ref("BulkEnvelope"),
        "example": [EXAMPLE_ENVELOPE],
    }
    return {
        ("post", "/producerpdbsearch/v1/agent/search"): {
            "summary": "Search individual producers",
            "description": "SearchType selects the fields evaluated." + ACCEPT_NOTE,
            "requestBody": _body(
                AgentSearch,
                "AgentSearch",
                {"SearchType": "NAME", "FirstName": "Avery", "LastName": "Sample"},
            ),
            "responses": {
                "200": _ok(AgentSearchResponse, "Matching individuals"),
                **_error_responses(400, 413, 415),
            },
        },
        ("post", "/producerpdbsearch/v1/agency/search"): {
            "summary": "Search firms",
            "description": "SearchType selects the fields evaluated; SSN and NPN are "
            "answered 400 (read a firm by NPN with GET /agency)." + ACCEPT_NOTE,
            "requestBody": _body(
                AgencySearch,
                "AgencySearch",
                {"SearchType": "NAME", "FirmName": "Sample Risk", "FirmFein": "000000001"},
            ),
            "responses": {
                "200": _ok(AgencySearchResponse, "Matching firms"),
                **_error_responses(400, 413, 415),
            },
        },
        ("get", "/producerpdbsearch/v1/agent"): {
            "summary": "Full record of an individual by NPN",
            "description": ACCEPT_NOTE.strip(),
            "parameters": lookup(19000001),
            "responses": {
                "200": _ok(FullRecordResponse, "The full record"),
                **_error_responses(400, 404),
            },
        },
        ("get", "/producerpdbsearch/v1/agency"): {
            "summary": "Full record of a firm by NPN",
            "description": ACCEPT_NOTE.strip(),
            "parameters": lookup(19000002),
            "responses": {
                "200": _ok(FullRecordResponse, "The full record"),
                **_error_responses(400, 404),
            },
        },
        ("post", "/producertransaction/v1/order"): {
            "summary": "File an appointment or termination order",
            "description": "A new clientOrderNum creates the order (201); an existing one "
            "updates it (200) unless it is final (409)." + ACCEPT_NOTE,
            "requestBody": _body(Order, "Order", EXAMPLE_ORDER),
            "responses": {
                "200": {
                    **_ok(OrderResponse, "An existing order was updated"),
                    "links": ORDER_LINKS,
                },
                "201": {**_ok(OrderResponse, "The order was created"), "links": ORDER_LINKS},
                **_error_responses(400, 409, 413, 415),
            },
        },
        ("get", "/producertransaction/v1/order/status"): {
            "summary": "Status of an order by the client's order number",
            "description": ACCEPT_NOTE.strip(),
            "parameters": [
                _param(
                    "order_num",
                    "query",
                    {"type": "string", "maxLength": 20},
                    False,
                    "the clientOrderNum the order was filed with",
                    "EXAMPLE1",
                )
            ],
            "responses": {"200": _ok(OrderResponse, "The order"), **_error_responses(400, 404)},
        },
        ("post", "/producerimport/v1/agents"): {
            "summary": "Import one agent profile (XML)",
            "description": "A well-formed document that breaks the contract is answered "
            "200 with Success false and one `path: message` per line in Validations.",
            "requestBody": _body(AgentRecord, "Agent", EXAMPLE_AGENT, xml_only=True),
            "responses": {
                "200": _ok(ImportResult, "Import result", xml_only=True),
                **_error_responses(400, 413, 415),
            },
        },
        ("post", "/producerimport/v1/agencies"): {
            "summary": "Import one agency profile (XML)",
            "description": "As for agents.",
            "requestBody": _body(AgencyRecord, "Agency", EXAMPLE_AGENCY, xml_only=True),
            "responses": {
                "200": _ok(ImportResult, "Import result", xml_only=True),
                **_error_responses(400, 413, 415),
            },
        },
        ("post", "/bulk/v1/{itemType}"): {
            "summary": "Submit a bulk request of agent and agency records (NDJSON)",
            "description": "Accepted at once; the records are processed in the background "
            "and read with the status operation. A request of more than "
            f"{settings.max_bulk_records:,} records is answered 413 (the interface "
            "recommends 100 or fewer).",
            "parameters": [
                _param(
                    "itemType",
                    "path",
                    {"type": "string", "enum": ["profile"]},
                    True,
                    "the only item type is profile",
                )
            ],
            "requestBody": {"required": True, "content": {NDJSON: {"schema": bulk_body}}},
            "responses": {
                "202": {
                    "description": "Accepted",
                    "content": {JSON: {"schema": _ref(BulkAccepted)}},
                    "links": {
                        "status": {
                            "operationId": "get_bulk_v1_status_bulkRequestId",
                            "parameters": {"bulkRequestId": "$response.body#/bulkRequestId"},
                        }
                    },
                },
                **_error_responses(400, 413, 415),
            },
        },
        ("get", "/bulk/v1/status/{bulkRequestId}"): {
            "summary": "Status of a bulk request, one entry per record",
            "parameters": [
                _param(
                    "bulkRequestId",
                    "path",
                    {"type": "string", "format": "uuid"},
                    True,
                    "returned by the submission",
                )
            ],
            "responses": {
                "200": {
                    "description": "Where the request stands",
                    "content": {JSON: {"schema": _ref(BulkStatus)}},
                },
                **_error_responses(400, 404),
            },
        },
        ("post", "/producerexport/v1/agents/export"): {
            "summary": "Export data sets of an agent profile",
            "description": ACCEPT_NOTE.strip(),
            "requestBody": _body(
                AgentExportRequest,
                "Export",
                {"profileKey": "EXAMPLE-AGENT-1", "dataSets": ["Address", "Demographic"]},
            ),
            "responses": {
                "200": _ok(ExportResponse, "The data sets"),
                **_error_responses(400, 404, 409, 413, 415),
            },
        },
        ("post", "/producerexport/v1/agencies/export"): {
            "summary": "Export data sets of an agency profile",
            "description": ACCEPT_NOTE.strip(),
            "requestBody": _body(
                AgencyExportRequest,
                "Export",
                {"profileKey": "EXAMPLE-AGENCY-1", "dataSets": ["Firm"]},
            ),
            "responses": {
                "200": _ok(ExportResponse, "The data sets"),
                **_error_responses(400, 404, 409, 413, 415),
            },
        },
    }


# --- examples: working requests against the demo records (a fuzzer starts from them) ---

EXAMPLE_ADDRESS = {
    "StreetAddress1": "1 Main St",
    "City": "Sacramento",
    "State": "CA",
    "Zip": "95814",
}
EXAMPLE_AGENT = {
    "ProfileKey": "EXAMPLE-AGENT-1",
    "Ssn": "000459999",
    "BusinessAddress": EXAMPLE_ADDRESS,
    "Demographic": {"EmpStatus": "7040", "FirstName": "Rowan", "LastName": "Example"},
}
EXAMPLE_AGENCY = {
    "ProfileKey": "EXAMPLE-AGENCY-1",
    "Tin": "000009999",
    "Demographic": {"FirmName": "Example Agency LLC", "Status": 7040},
}
EXAMPLE_ORDER = demo_order("EXAMPLE1", user="example")
EXAMPLE_ENVELOPE = {
    "clientRefId": "3f2504e0-4f89-41d3-9a0c-0305e82c3301",
    "data": {
        "agent": {
            "profileKey": "EXAMPLE-AGENT-2",
            "ssn": "000459998",
            "businessAddress": {
                "streetAddress1": "1 Main St",
                "city": "Sacramento",
                "state": "CA",
                "zip": "95814",
            },
            "demographic": {"empStatus": "7040", "firstName": "Rowan", "lastName": "Example"},
        }
    },
}


def _xml_example(root: str, data: dict[str, Any]) -> str:
    from tui_app.wire.xml import dump_xml_dict

    return dump_xml_dict(root, data).decode("utf-8")


# --- the search types' required fields (interface rule 1) as JSON Schema ---

_FILLED = {"type": "string", "pattern": "\\S"}
_JURISDICTION = _FILLED  # any code: an unknown one finds nothing (the contract warns)


def _when(kind: str, then: dict[str, Any] | bool) -> dict[str, Any]:
    return {
        "if": {"properties": {"SearchType": {"const": kind}}, "required": ["SearchType"]},
        "then": then,
    }


def _needs(**fields: dict[str, Any]) -> dict[str, Any]:
    return {"required": sorted(fields), "properties": fields}


SEARCH_RULES = {
    AgentSearch: [
        _when("NAME", _needs(FirstName=_FILLED, LastName=_FILLED)),
        _when("SSN", _needs(LastName=_FILLED, Ssn=_FILLED)),
        _when("NPN", _needs(Npn={"type": "integer"})),
        _when("LICENSE", _needs(LicenseJurisdiction=_JURISDICTION, LicenseNumber=_FILLED)),
    ],
    AgencySearch: [
        _when("NAME", _needs(FirmName=_FILLED, FirmFein={"type": "string", "minLength": 1})),
        _when("SSN", _needs(FirmFein={**_FILLED, "pattern": "[0-9]"})),
        _when("NPN", False),  # no field for the number: read the firm with GET /agency
        _when("LICENSE", _needs(LicenseJurisdiction=_JURISDICTION, LicenseNumber=_FILLED)),
    ],
}
"""Which fields each SearchType needs (non-blank), as the sandbox checks them."""


BULK_ENVELOPE = {
    "type": "object",
    "required": ["clientRefId", "data"],
    "properties": {
        "clientRefId": {
            "type": "string",
            "format": "uuid",
            "description": "unique within the request",
        },
        "data": {"type": "object", "description": "exactly one of agent or agency"},
    },
}

REQUEST_MODELS = (
    AgentSearch,
    AgencySearch,
    Order,
    AgentRecord,
    AgencyRecord,
    AgentExportRequest,
    AgencyExportRequest,
)
RESPONSE_MODELS = (
    AgentSearchResponse,
    AgencySearchResponse,
    FullRecordResponse,
    OrderResponse,
    ImportResult,
    BulkAccepted,
    BulkStatus,
    ExportResponse,
)


def document(app: FastAPI, settings: SandboxSettings) -> dict[str, Any]:
    from fastapi.openapi.utils import get_openapi

    doc = get_openapi(
        title=app.title, version=app.version, description=app.description, routes=app.routes
    )
    from pydantic.json_schema import JsonSchemaMode, models_json_schema

    pairs: list[tuple[type[BaseModel], JsonSchemaMode]] = [
        *((m, "validation") for m in REQUEST_MODELS),
        *((m, "serialization") for m in RESPONSE_MODELS),
    ]
    keys, found = models_json_schema(pairs, ref_template="#/components/schemas/{model}")
    schemas: dict[str, Any] = found["$defs"]
    for (model, _mode), ref in keys.items():
        _NAMES[model] = ref["$ref"].rsplit("/", 1)[1]
    # Request schemas (and what they use) get the request-only rules.
    todo = [_NAMES[m] for m in REQUEST_MODELS]
    reached: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo.extend(_refs(schemas[name]))
    schemas = {name: _fix(schema, name in reached) for name, schema in schemas.items()}
    for searched, rules in SEARCH_RULES.items():
        schemas[_NAMES[searched]]["allOf"] = rules
    schemas["BulkEnvelope"] = BULK_ENVELOPE
    schemas["DynamicData"] = DYNAMIC
    schemas["Error"] = ERROR_SCHEMA
    doc["components"] = {"schemas": schemas}
    for (method, path), operation in operations(settings).items():
        tags = doc["paths"][path][method].get("tags", [])
        doc["paths"][path][method] = {
            "tags": tags,
            **operation,
            "operationId": f"{method}_{path.strip('/')}".replace("/", "_")
            .replace("{", "")
            .replace("}", ""),
        }
    if settings.token:
        doc["components"]["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
        doc["security"] = [{"bearer": []}]
    return doc
