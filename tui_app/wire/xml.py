"""Model-directed XML for the contract models.

The contract's XML documents are plain element trees, so they are written from a model's
dump and read by walking the model's fields, without a schema:

- Element names are the models' Python field names, which are the spec's names
  (``SearchType``, ``clientOrderNum``, ``StreetAddress1``). Reading also accepts a field's
  alias (the camelCase bulk spelling of a record). Namespaces are ignored: elements are
  matched by their local names.
- ``None`` is left out. ``""`` is an empty element, and an empty element reads back as
  ``""``, or as an empty list / object where the field is a list, dict or nested model.
- Booleans are written ``true`` / ``false`` and numbers as decimal text; on reading every
  leaf is text, which pydantic's lax mode turns into ints, bools and the like.
- Objects (nested models and ``dict`` fields) are nested elements; dict keys must be XML
  names (letters, digits, ``_``, ``-``, ``.``; not starting with a digit).
- Lists: a wrapper element named as the field holds one element per item. The item's name
  is the field name's singular when it ends in a single "s" (``Contacts`` -> ``Contact``,
  ``Individuals`` -> ``Individual``, ``dataSets`` -> ``dataSet``) and ``item`` otherwise
  (``loa`` -> ``item``). Reading accepts any item name. A ``None`` item is written
  ``<item nil="true"/>``; any element with a ``nil="true"`` attribute (``xsi:nil`` too)
  reads as ``None``.
- Where the model does not say (``Any``, a ``dict`` of ``Any``, an unknown element), an
  element with children reads as a dict whose repeated names become lists. So inside a
  free-form object only nested objects of text round-trip exactly: a list comes back as
  ``{"<item name>": [...]}`` (or a single value) and an empty object as ``""``.

Parsing goes through defusedxml with DTDs, entity declarations and external references
refused, so no document can expand entities or make the parser read a file or URL. A
document nested deeper than :data:`MAX_DEPTH` elements or holding more than
:data:`MAX_ELEMENTS` elements is refused while it is parsed (a :class:`WireError`), so
neither memory nor the reader's recursion can be driven by the document.

:func:`xml_problems` says which values of a JSON body XML could not carry (control
characters, keys that are no element names, nesting too deep), so that a service can
refuse them at input instead of failing every XML read of them later.
"""

from __future__ import annotations

import re
import types
from collections.abc import Collection, Mapping
from functools import cache
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin
from xml.etree.ElementTree import Element, ParseError, TreeBuilder, indent, tostring
from xml.parsers.expat import ErrorString

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser, fromstring
from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from tui_app.contract.base import XML_UNSAFE
from tui_app.wire.errors import WireError

M = TypeVar("M", bound=BaseModel)

REFUSED = "XML documents with a DTD or entity declarations are refused"
MAX_DEPTH = 64
"""Elements nested deeper than this refuse the document (the contract's deepest document,
an export response holding a profile's DynamicData, is far shallower)."""
MAX_ELEMENTS = 100_000
"""More elements than this refuse the document (a full registry record has a few
thousand)."""
INPUT_MAX_DEPTH = 48
"""How deep a JSON value may nest (see :func:`xml_problems`): shallower than
:data:`MAX_DEPTH`, so that the value still fits when a response wraps it (an export's
data set, an order's echo)."""

_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
_NAME = re.compile(r"[^\W\d][\w.\-]*")  # an XML name without a namespace prefix
_ILLEGAL = XML_UNSAFE  # the contract's forms flag the same characters
# A raw \r would come back as \n (parsers normalise line ends), so it is written as a reference.
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#13;"})
_LISTS = (list, tuple, set, frozenset)


# --- writing ---------------------------------------------------------------------------


def dump_xml(model: BaseModel, root: str) -> bytes:
    """``model`` as a UTF-8 XML document whose root element is ``root``."""
    return _document(root, model.model_dump(mode="json", by_alias=False, exclude_none=True))


def dump_xml_dict(root: str, data: Mapping[str, Any]) -> bytes:
    """A free-form mapping (such as export data sets) as a UTF-8 XML document.

    Models inside it are written by field name, like :func:`dump_xml`.
    """
    return _document(root, to_jsonable_python(dict(data), by_alias=False, exclude_none=True))


def _document(root: str, plain: dict[str, Any]) -> bytes:
    return (_DECLARATION + _element(root, plain, "")).encode("utf-8")


def _element(name: Any, value: Any, parent: str) -> str:
    path = f"{parent}/{name}" if parent else str(name)
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise WireError(f"{name!r} cannot be an XML element name (at {path})")
    if value is None:
        return f'<{name} nil="true"/>'
    if isinstance(value, dict):
        inner = "".join(_element(k, v, path) for k, v in value.items() if v is not None)
    elif isinstance(value, list):
        item = _item_name(name)
        inner = "".join(_element(item, v, path) for v in value)
    else:
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        bad = _ILLEGAL.search(text)
        if bad:
            raise WireError(f"{path} holds a character XML cannot carry: {bad.group()!r}")
        inner = text.translate(_ESCAPES)
    return f"<{name}>{inner}</{name}>" if inner else f"<{name}/>"


def _item_name(list_name: str) -> str:
    if len(list_name) > 1 and list_name.endswith("s") and not list_name.endswith("ss"):
        return list_name[:-1]
    return "item"


# --- reading ---------------------------------------------------------------------------


def load_xml(
    data: bytes | str,
    model_cls: type[M],
    root: str | Collection[str],
    *,
    context: dict[str, Any] | None = None,
) -> M:
    """Parse ``data`` into ``model_cls``; the root element must be (one of) ``root``.

    Validation runs with ``{"format": "xml"}`` in its context (merged under ``context``),
    so that records apply their XML-document rules. A malformed or refused document raises
    :class:`WireError`; a document that breaks the contract raises pydantic's
    ``ValidationError``.
    """
    return model_cls.model_validate(
        load_xml_data(data, model_cls, root), context={"format": "xml", **(context or {})}
    )


def load_xml_data(
    data: bytes | str, model_cls: type[BaseModel], root: str | Collection[str]
) -> dict[str, Any]:
    """The document as the dict ``model_cls`` would validate, without validating it (for
    drafts, which may be incomplete). Raises :class:`WireError` like :func:`load_xml`."""
    element = _parse(data)
    roots = (root,) if isinstance(root, str) else tuple(root)
    found = _local(element.tag)
    if found not in roots:
        expected = " or ".join(f"<{r}>" for r in roots)
        raise WireError(f"expected the root element {expected}, found <{found}>")
    if len(element) == 0 and (element.text or "").strip():
        raise WireError(f"<{found}> holds text; its fields go in child elements")
    return _model_dict(element, model_cls)


def load_xml_dict(data: bytes | str) -> tuple[str, dict[str, Any]]:
    """The root element's name and its children as a dict, without a model to direct it:
    leaves are text and repeated child names become lists."""
    element = _parse(data)
    return _local(element.tag), _children(element, Any)


class _TooBig(Exception):
    pass


class _Builder:
    """A tree builder that stops the parse at :data:`MAX_DEPTH` / :data:`MAX_ELEMENTS`."""

    def __init__(self, max_depth: int, max_elements: int) -> None:
        self._tree = TreeBuilder()
        self._depth = self._count = 0
        self._max_depth, self._max_elements = max_depth, max_elements
        self.data, self.close = self._tree.data, self._tree.close

    def start(self, tag: str, attrib: dict[str, str]) -> Element:
        self._depth += 1
        self._count += 1
        if self._depth > self._max_depth:
            raise _TooBig(f"XML nested deeper than {self._max_depth} elements is refused")
        if self._count > self._max_elements:
            raise _TooBig(f"XML documents of more than {self._max_elements:,} elements are refused")
        return self._tree.start(tag, attrib)

    def end(self, tag: str) -> Element:
        self._depth -= 1
        return self._tree.end(tag)


def _parse(
    data: bytes | str, *, max_depth: int | None = None, max_elements: int | None = None
) -> Element:
    builder = _Builder(max_depth or MAX_DEPTH, max_elements or MAX_ELEMENTS)
    parser = DefusedXMLParser(
        target=builder, forbid_dtd=True, forbid_entities=True, forbid_external=True
    )
    try:
        parser.feed(data)
        return parser.close()
    except _TooBig as exc:
        raise WireError(str(exc)) from None
    except DefusedXmlException:
        raise WireError(REFUSED) from None
    except ParseError as exc:
        line, column = exc.position
        why = f"not well-formed XML at line {line}, column {column + 1}: {ErrorString(exc.code)}"
        raise WireError(why + _not_utf8(data, line)) from None


def _not_utf8(data: bytes | str, line: int) -> str:
    """Why a document fails at ``line`` when the reason is its encoding: bytes that are
    not UTF-8 there (a Latin-1 file that declares no encoding), else nothing."""
    if isinstance(data, str):
        return ""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if data.count(b"\n", 0, exc.start) + 1 == line:
            return f" (byte {data[exc.start]:#04x} is not UTF-8: save the file as UTF-8)"
    return ""


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def _is_nil(element: Element) -> bool:
    return any(_local(k) == "nil" and v.strip() in ("true", "1") for k, v in element.items())


@cache
def _fields(model_cls: type[BaseModel]) -> dict[str, tuple[str, Any]]:
    """Element name -> (field name, annotation), for field names and their aliases."""
    names: dict[str, tuple[str, Any]] = {}
    for name, field in model_cls.model_fields.items():
        for spelling in (field.alias, field.validation_alias, name):  # the name wins a clash
            if isinstance(spelling, str):
                names[spelling] = (name, field.annotation)
    return names


def _model_dict(element: Element, model_cls: type[BaseModel]) -> dict[str, Any]:
    fields = _fields(model_cls)
    out: dict[str, Any] = {}
    for child in element:
        tag = _local(child.tag)
        # Unknown elements go through as they are, for the model to accept or refuse.
        key, annotation = fields.get(tag, (tag, Any))
        if key in out:
            raise WireError(f"<{tag}> appears more than once in <{_local(element.tag)}>")
        out[key] = _convert(child, annotation)
    return out


def _convert(element: Element, annotation: Any) -> Any:
    """The value of ``element`` for a field declared as ``annotation``."""
    if _is_nil(element):
        return None
    shape = _unwrap(annotation)
    origin = get_origin(shape) or shape
    args = get_args(shape)
    if len(element) == 0 and (element.text or "").strip():
        return element.text  # text even where a list or object is due: pydantic says so
    if isinstance(origin, type) and issubclass(origin, BaseModel):
        return _model_dict(element, origin)
    if origin in _LISTS:
        item = args[0] if args else Any
        return [_convert(child, item) for child in element]
    if origin is dict or len(element):
        return _children(element, args[1] if origin is dict and args else Any)
    return element.text or ""


def _children(element: Element, annotation: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    repeated: set[str] = set()
    for child in element:
        tag, value = _local(child.tag), _convert(child, annotation)
        if tag in repeated:
            out[tag].append(value)
        elif tag in out:
            out[tag] = [out[tag], value]
            repeated.add(tag)
        else:
            out[tag] = value
    return out


def _unwrap(annotation: Any) -> Any:
    """The shape of a field: without ``Annotated`` and ``None``; a wider union is ``Any``."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _unwrap(get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        arms = [a for a in get_args(annotation) if a is not type(None)]
        return _unwrap(arms[0]) if len(arms) == 1 else Any
    return annotation


# --- what XML cannot carry ---------------------------------------------------------------


def xml_problems(
    value: Any, path: str = "", *, max_depth: int = INPUT_MAX_DEPTH
) -> list[tuple[str, str]]:
    """(path, message) for every part of a plain JSON value (dicts, lists, text, numbers)
    that could not be written as XML: text with a character XML 1.0 cannot carry (such as
    ``\\x01``), an object key that is no XML element name, and nesting deeper than
    ``max_depth`` objects and lists. Paths are spelled like
    :class:`tui_app.contract.errors.FieldError` paths (``data.lastName``,
    ``Contacts[0].EmailAddress``). Walks without recursion, so any depth is safe."""
    found: list[tuple[str, str]] = []
    stack: list[tuple[Any, str, int]] = [(value, path, 0)]
    while stack:
        item, where, depth = stack.pop()
        if isinstance(item, str):
            bad = _ILLEGAL.search(item)
            if bad:
                found.append((where, f"holds a character XML cannot carry: {bad.group()!r}"))
            continue
        if not isinstance(item, (dict, list)):
            continue
        if depth >= max_depth:
            found.append((where, f"is nested deeper than {max_depth} levels"))
            continue
        if isinstance(item, dict):
            for key, child in item.items():
                name = f"{where}.{key}" if where else str(key)
                if not isinstance(key, str) or not _NAME.fullmatch(key):
                    found.append(
                        (
                            name,
                            "is not a valid XML element name (letters, digits, "
                            "_ - . ; not starting with a digit)",
                        )
                    )
                stack.append((child, name, depth + 1))
        else:
            stack.extend((child, f"{where}[{i}]", depth + 1) for i, child in enumerate(item))
    return sorted(found)


_MARKS = ("\\u", "ynamicData", "\ufffe", "\uffff")


def may_have_xml_problems(raw: bytes | str) -> bool:
    """A fast pre-check of a JSON text that parsed, for :func:`xml_problems`: False means
    no value in it can have one (no ``\\u`` escape, no free-form ``DynamicData`` object,
    no raw U+FFFE / U+FFFF; other raw control characters are not valid JSON), so the walk
    over the decoded value can be skipped."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    return any(mark in text for mark in _MARKS)


def readable_xml(document: bytes) -> str:
    """An XML document indented, one element per line (the import sends it compact)."""
    root = fromstring(document)
    indent(root)
    return tostring(root, encoding="unicode") + "\n"
