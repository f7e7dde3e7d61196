"""A model field's docstring, the string written under it, read when it is asked for.

The contract and the config document each field with a docstring under it. Pydantic's
``use_attribute_docstrings`` would copy them into ``FieldInfo.description`` as each class
is built, but before Python 3.13 it finds a class's source by walking frames and
tokenising: 40 ms of every start (the app's first frame, each CLI command, the checking
process). Here a module's source is parsed once, and only when a form, the settings
editor or the sandbox's OpenAPI document wants a description.
"""

from __future__ import annotations

import ast
import inspect
import sys
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel


def field_doc(model: type[BaseModel], name: str) -> str | None:
    """The description of ``model``'s field ``name``: given in ``Field(description=...)``,
    else the docstring under the field in ``model`` or the nearest base that has one."""
    info = model.model_fields.get(name)
    if info is not None and info.description:
        return info.description
    # Only the classes that declare the field: the rest (pydantic's BaseModel among them)
    # cannot document it, and parsing their modules would cost a start for nothing.
    for cls in model.__mro__:
        if name in cls.__dict__.get("__annotations__", {}):
            found = _module_docs(cls.__module__).get(cls.__qualname__, {}).get(name)
            if found is not None:
                return found
    return None


def docs_into_json_schema(schema: dict[str, Any], model: type[BaseModel]) -> None:
    """A model's ``json_schema_extra``: its fields' docstrings as their descriptions."""
    properties = schema.get("properties", {})
    for name, info in model.model_fields.items():
        key = next(
            (k for k in (info.serialization_alias, info.alias, name) if k in properties), None
        )
        doc = field_doc(model, name)
        if key is not None and doc and "description" not in properties[key]:
            properties[key]["description"] = doc


@cache
def _module_docs(module_name: str) -> dict[str, dict[str, str]]:
    """Each class of a module, by qualified name: its fields' docstrings, by field name."""
    file = getattr(sys.modules.get(module_name), "__file__", None)
    if file is None:
        return {}  # a module made at run time, or a built-in one
    try:
        tree = ast.parse(Path(file).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return {}  # a module run without its source
    found: dict[str, dict[str, str]] = {}
    _collect(tree.body, "", found)
    return found


def _collect(body: list[ast.stmt], prefix: str, found: dict[str, dict[str, str]]) -> None:
    for node in body:
        if isinstance(node, ast.ClassDef):
            name = prefix + node.name
            found[name] = _attribute_docs(node.body)
            _collect(node.body, name + ".", found)


def _attribute_docs(body: list[ast.stmt]) -> dict[str, str]:
    """``x: int`` followed at once by a string statement: that string documents ``x``."""
    docs = {}
    for node, after in zip(body, body[1:], strict=False):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[node.target.id] = inspect.cleandoc(after.value.value)
    return docs
