"""Sandbox dialects: how the sandbox's answers are shaped.

``native`` is the sandbox as it is: every member the models know, our status words, our
date formats. ``minimal`` answers as a stranger's service may while still following the
interface (ARCHITECTURE.md, "Talking to a service we have never seen"):

- only the members the interface names, plus a few members of its own that no model
  knows (``ReportSource``, ``SandboxHitId``, ``gatewayRef``, ...);
- members the interface leaves "not shown" are left out where the app can live without
  them (a hit's license states, the producer's entity type, an address's type, an order's
  numbers, history and ``updated`` flag, ...);
- other words: ``IN_PROGRESS`` while a bulk request runs, ``FAILED`` when every record of
  it failed;
- other date formats: ISO dates (``2027-05-31``) in the registry record where the native
  sandbox writes MM/DD/YYYY, and ``2026-11-21 10:00:00`` for an order's status date;
- ``null`` for empty lists, and XML answers under other root elements.

It is a pure ASGI wrapper that rewrites response bodies, so the sandbox's own logic does
not know about it: ``wrap(app, "minimal")``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

DIALECTS = ("native", "minimal")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
ASGIApp = Callable[
    [Scope, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]], Awaitable[None]
]

_US_DATE = re.compile(r"(\d{2})/(\d{2})/(\d{4})")
_ISO_STAMP = re.compile(r"(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?")
_XML_ROOT = re.compile(rb"<([A-Za-z_][\w.-]*)([\s>/])")

XML_ROOTS = {
    "ImportResult": "ImportResponse",
    "OrderResponse": "OrderResult",
    "AgentSearchResponse": "SearchResponse",
    "AgencySearchResponse": "SearchResponse",
    "FullRecordResponse": "NiprReport",
    "ExportResponse": "ExportResult",
}
"""The minimal dialect's XML root elements (the interface names none)."""

# Members the minimal dialect leaves out, by the object that carries them.
_HIT_DROPS = ("MiddleName", "LicenseStates", "ResidentState")
_ENTITY_DROPS = ("Truncated", "ResultCount")
_PRODUCER_DROPS = ("EntityType",)
_ADDRESS_DROPS = ("Type",)
_ORDER_DROPS = ("orderNum", "clientOrderNum", "history", "updated", "totalFee")


def wrap(app: ASGIApp, dialect: str = "native") -> ASGIApp:
    """``app`` answering in ``dialect``."""
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}; known: {', '.join(DIALECTS)}")
    return app if dialect == "native" else MinimalDialect(app)


class MinimalDialect:
    """ASGI middleware rewriting 2xx JSON and XML bodies into the minimal dialect."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    def __getattr__(self, name: str) -> Any:
        # Keep the wrapped app's attributes (FastAPI's state, routes) reachable.
        return getattr(self.app, name)

    async def __call__(self, scope: Scope, receive, send) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        start: Message | None = None
        chunks: list[bytes] = []

        async def capture(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
                return
            if message["type"] != "http.response.body" or start is None:
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            body = b"".join(chunks)
            headers = list(start.get("headers", []))
            kind = _header(headers, b"content-type")
            if 200 <= start["status"] < 300 and body:
                body = rewrite(path, kind, body)
            headers = [(k, v) for k, v in headers if k.lower() != b"content-length"]
            headers.append((b"content-length", str(len(body)).encode()))
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": body, "more_body": False})

        await self.app(scope, receive, capture)


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> str:
    for key, value in headers:
        if key.lower() == name:
            return value.decode("latin-1")
    return ""


def rewrite(path: str, content_type: str, body: bytes) -> bytes:
    """A native answer's body in the minimal dialect (unchanged if it cannot be read)."""
    if "xml" in content_type:
        return _rename_root(body)
    if "json" not in content_type:
        return body
    try:
        data = json.loads(body)
    except ValueError:
        return body
    if not isinstance(data, dict):
        return body
    data = _minimal(path, data)
    return json.dumps(_nulls_for_empty_lists(data), separators=(",", ":")).encode()


def _rename_root(body: bytes) -> bytes:
    # The first start tag is the root: "<?xml" and "<!--" do not match the pattern.
    found = _XML_ROOT.search(body)
    if found is None:
        return body
    old = found.group(1).decode()
    new = XML_ROOTS.get(old, "Response").encode()
    renamed = body[: found.start(1)] + new + body[found.end(1) :]
    head, sep, tail = renamed.rpartition(f"</{old}>".encode())
    return head + b"</" + new + b">" + tail if sep else renamed


def _minimal(path: str, data: dict[str, Any]) -> dict[str, Any]:
    if path.endswith("/search"):
        return _search(data)
    if path.startswith("/producerpdbsearch/"):
        return _full_record(data)
    if path.startswith("/producertransaction/"):
        return _order(data)
    if path.startswith("/bulk/v1/status/"):
        return _bulk_status(data)
    if path.startswith("/bulk/"):
        return {**data, "acceptedBy": "sandbox-minimal"}
    if path.startswith("/producerexport/"):
        return _export(data)
    return data


def _drop(obj: Any, names: tuple[str, ...]) -> Any:
    if isinstance(obj, dict):
        for name in names:
            obj.pop(name, None)
    return obj


def _search(data: dict[str, Any]) -> dict[str, Any]:
    for block, items in (
        ("IndividualsSummaryInfo", "Individuals"),
        ("NiprFirmsSummaryInfo", "Firms"),
    ):
        hits = (data.get(block) or {}).get(items) or []
        for hit in hits:
            _drop(hit, _HIT_DROPS)
            hit["SandboxHitId"] = f"hit-{hit.get('Npn', '')}"
    _drop((data.get("AdditionalInfo") or {}).get("Entity"), _ENTITY_DROPS)
    return data


def _full_record(data: dict[str, Any]) -> dict[str, Any]:
    info = data.get("NiprFullInfo")
    if not isinstance(info, dict):
        return data
    _drop(info.get("Producer"), _PRODUCER_DROPS)
    for address in (info.get("AddressInfo") or {}).get("Addresses") or []:
        _drop(address, _ADDRESS_DROPS)
    for lic in (info.get("LicenseData") or {}).get("Licenses") or []:
        lic["LicenseStatusCode"] = "A" if lic.get("Active") else "I"
    info["ReportSource"] = {
        "System": "sandbox-minimal",
        "Version": "1",
        "Notes": ["members no model knows", "ISO dates"],
    }
    data["NiprFullInfo"] = _iso_dates(info)
    return data


def _iso_dates(value: Any) -> Any:
    """MM/DD/YYYY strings anywhere in ``value`` as ISO dates (YYYY-MM-DD)."""
    if isinstance(value, dict):
        return {k: _iso_dates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_iso_dates(v) for v in value]
    if isinstance(value, str) and (m := _US_DATE.fullmatch(value)):
        return f"{m.group(3)}-{m.group(1)}-{m.group(2)}"
    return value


def _order(data: dict[str, Any]) -> dict[str, Any]:
    details = (data.get("order") or {}).get("orderDetails")
    if isinstance(details, dict):
        updated = details.get("updated")
        _drop(details, _ORDER_DROPS)
        stamp = details.get("statusDate")
        m = _ISO_STAMP.fullmatch(stamp) if isinstance(stamp, str) else None
        if m:
            details["statusDate"] = f"{m.group(1)} {m.group(2)}"
        details["gatewayRef"] = {"system": "sandbox-minimal", "updatedExisting": bool(updated)}
    return data


def _bulk_status(data: dict[str, Any]) -> dict[str, Any]:
    if data.get("processingStatus") in ("PENDING", "PROCESSING"):
        data["processingStatus"] = "IN_PROGRESS"
    details = data.get("operationDetails")
    if isinstance(details, dict):
        if details.get("status") == "FAILURE":
            details["status"] = "FAILED"
        for item in details.get("requestItems") or []:
            if isinstance(item, dict) and item.get("status") == "PENDING":
                item["status"] = "IN_PROGRESS"
    data["x-sandbox-dialect"] = "minimal"
    return data


def _export(data: dict[str, Any]) -> dict[str, Any]:
    data["exportedBy"] = {"system": "sandbox-minimal"}
    return data


def _nulls_for_empty_lists(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: (None if v == [] else _nulls_for_empty_lists(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_nulls_for_empty_lists(v) for v in value]
    return value
