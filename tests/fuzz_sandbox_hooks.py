"""Schemathesis hooks for the fuzz test (loaded with ``SCHEMATHESIS_HOOKS``): how the
sandbox's two non-JSON request formats go on the wire.

- ``application/x-ndjson``: the document shows the body as an array of lines; each item
  goes out as one JSON line.
- ``application/xml``: the project's XML conventions (README, "The contract where the spec
  is silent"), which JSON Schema's ``xml`` keyword cannot state: null is an absent
  element, a list is a wrapper element with one child per item. Written by the project's
  own wire layer; the root element is the one the document names.
"""

from __future__ import annotations

import json
from typing import Any

import schemathesis

from tui_app.wire.errors import WireError
from tui_app.wire.xml import dump_xml_dict


@schemathesis.serializer("application/x-ndjson")
def ndjson(ctx: Any, value: Any) -> bytes:
    lines = value if isinstance(value, list) else [value]
    return b"".join(json.dumps(line).encode("utf-8") + b"\n" for line in lines)


def _root(ctx: Any) -> str:
    body = ctx.case.operation.definition.raw.get("requestBody", {})
    schema = body.get("content", {}).get("application/xml", {}).get("schema", {})
    return schema.get("xml", {}).get("name", "Document")


@schemathesis.serializer("application/xml")
def xml(ctx: Any, value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str) and value.lstrip().startswith("<"):
        return value.encode("utf-8")  # an example: already a document
    root = _root(ctx)
    if isinstance(value, dict):
        try:
            return dump_xml_dict(root, value)
        except WireError:
            pass  # a key no element can be named after: sent as text, to be refused
    text = json.dumps(value).replace("&", "&amp;").replace("<", "&lt;")
    return f"<{root}>{text}</{root}>".encode()
