"""Read a JSON Schema document, pin its keyword vocabulary and resolve its references.

The loader knows JSON Schema, not any protocol: it hands the IR builder a document whose every
`$ref` is known to land on a definition. Named definitions are those under `$defs` or
`definitions` (either draft may use either) or an OpenAPI document's `components/schemas`; a
`$ref` to any other place in the document (a property of a definition, the root, a `$id` or an
anchor) names that place, which becomes a definition of its own, named after its path. A
reference out of the document (another file, a URL) is refused: vendor what it names.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin

from ..errors import SpecError, pointer_escape, pointer_join
from . import vocabulary as V

_DEF_REF = re.compile(r"^#/(?:\$defs|definitions|components/schemas)/([^/]+)$")
_ANCHOR_REF = re.compile(r"^#([A-Za-z_][A-Za-z0-9_.:-]*)$")
_ANCHOR_NAME = re.compile(r"^[A-Za-z_][-A-Za-z0-9._]*\Z")
# the base URI of a document that names none: references resolve against it, and a reference
# that leaves it is remote
_BASE = "https://specbind.invalid/document.json"
# How deep subschemas may nest in the document, and counted through `$ref`s (a reference that comes
# back to a schema it is inside of ends the count: that is recursion, which generates). Every pass
# of the generator walks schemas recursively, and the generated Python module holds each
# definition's schema as one nested literal, which CPython's parser bounds (200 nested brackets,
# two a level). The vendored schemas nest 6 (in the document) and 43 (through references) at most.
MAX_SCHEMA_DEPTH = 64
MAX_REFERENCE_DEPTH = 128
# How deep arrays and objects may nest in a JSON or YAML file specbind reads (the top-level
# value is 1). Python's json stops near 990 levels, where the stack it is called from ends, so
# the limit moved with the caller; and a schema's data nested 450 deep (a `const`, a `default`)
# ended init in a RecursionError (exit 70) in the passes that walk it, where 300 generates.
# Schemas nest 3 levels a subschema at most (64 subschemas: 192); documents a package decodes,
# MAX_DEPTH = 128.
MAX_FILE_DEPTH = 256
# How deep a value a schema holds (a `const`, each value of an `enum` or `examples`, a `default`)
# may nest. The generated modules hold it as a literal, inside the definition's own in the schema
# table, and CPython's parser stops at 200 nested brackets: a const 110 deep in the deepest
# subschema allowed made a package that did not import (SyntaxError: too many nested
# parentheses), 64 imports. A document nests MAX_DEPTH = 128 at most, so a const deeper than
# that matched nothing anyway.
MAX_VALUE_DEPTH = 64
_VALUES = ("const", "default")
_LISTED_VALUES = ("enum", "examples")
# The generated tests derive documents at each bound (a valid one of minItems items, one of
# maxItems + 1): past this size they would be the schema's numbers, not its size (maxItems 10^30
# took 23 GB before it was killed). A minimum past it is refused; a maximum past it keeps its
# check, and its derived document over the bound is left out.
MAX_DERIVED = 10_000
_MINIMA = ("minLength", "minItems", "minProperties", "minContains")
_TYPED_ANNOTATIONS: dict[str, tuple[type | tuple[type, ...], str]] = {
    **{key: (str, "a string") for key in ("title", "description", "$comment", "format", "$id", "$anchor")},
    **{key: (bool, "true or false") for key in ("deprecated", "readOnly", "writeOnly")},
    "examples": (list, "an array of example values"),
}
ROOT_NAME = "Root"


@dataclass
class SchemaDoc:
    """A loaded schema: its definitions by name, and where each came from."""

    path: Path
    display: str  # the path as reported in errors and banners (relative to the repo when possible)
    sha256: str
    raw: dict[str, Any]
    defs: dict[str, dict[str, Any]]
    defs_pointer: str  # JSON pointer of the container of named definitions, e.g. "/$defs"
    root_ref: str | None = None
    anchors: dict[str, str] = field(default_factory=dict)
    # per definition: the container it sits in ("/$defs", "/components/schemas") and its file
    containers: dict[str, str] = field(default_factory=dict)
    origin: dict[str, str] = field(default_factory=dict)
    overlays: list[tuple[str, str]] = field(default_factory=list)  # (display, sha256)
    inline: dict[str, Any] = field(default_factory=dict)  # names given to inline objects -> node
    draft: str = V.DRAFT_2020
    openapi: str | None = None  # the OpenAPI version, for an OpenAPI document
    # definitions that are not `container/name`: the root, and places a $ref names
    pointers: dict[str, str] = field(default_factory=dict)
    # pointer -> definition name, for every definition
    by_pointer: dict[str, str] = field(default_factory=dict)
    # absolute URI (no fragment) -> pointer of the (sub)schema that $id names; "uri#name" -> pointer
    ids: dict[str, str] = field(default_factory=dict)
    id_anchors: dict[str, str] = field(default_factory=dict)
    id_bases: list[tuple[str, str]] = field(default_factory=list)  # (pointer, base URI), longest first
    annotations: frozenset[str] = frozenset()  # keywords the binding reads as annotations
    root_name: str = ROOT_NAME
    converted: bool = False  # raw was rewritten on load (OpenAPI 3.0): the reference is `raw`

    def combined(self) -> dict[str, Any] | None:
        """One JSON Schema document with every definition under $defs (refs rewritten), for
        a reference validator; None when the source already is one."""
        if self.openapi is None and not self.overlays:
            return None

        def rewrite(node: Any) -> Any:
            if isinstance(node, dict):
                return {
                    k: (v.replace("#/components/schemas/", "#/$defs/") if k == "$ref" and isinstance(v, str) else rewrite(v))
                    for k, v in node.items()
                }
            if isinstance(node, list):
                return [rewrite(v) for v in node]
            return node

        defs = {name: rewrite(node) for name, node in [*self.defs.items(), *self.inline.items()] if name not in self.pointers}
        return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}

    def def_pointer(self, name: str) -> str:
        if name in self.pointers:
            return self.pointers[name]
        return pointer_join(self.containers.get(name, self.defs_pointer), name)

    def file_of(self, pointer: str) -> str:
        """The file a pointer into a definition belongs to (overlays add definitions)."""
        for name in self.origin:
            base = self.def_pointer(name)
            if pointer == base or pointer.startswith(base + "/"):
                return self.origin[name]
        return self.display

    def node_at(self, pointer: str) -> Any:
        node: Any = self.raw
        for token in pointer.split("/")[1:]:
            token = token.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                raise KeyError(pointer)
        return node

    def base_at(self, pointer: str) -> str:
        for at, base in self.id_bases:
            if pointer == at or pointer.startswith(at + "/"):
                return base
        return _BASE

    def resolve(self, ref: Any, at: str) -> str:
        """The definition name a `$ref` names, or a SpecError naming the dangling reference."""
        if not isinstance(ref, str):
            raise SpecError(self.file_of(at), at, f"$ref must be a string, got {json.dumps(ref)}")
        m = _DEF_REF.match(ref)
        # inside a subschema with an `$id` of its own, `#/...` is a place in that resource
        if m and self.base_at(at) == self.base_at(""):
            name = m.group(1).replace("~1", "/").replace("~0", "~")
            name = unquote(name)
            if name in self.defs and name not in self.pointers:
                return name
        m = _ANCHOR_REF.match(ref)
        if m and m.group(1) in self.anchors and self.base_at(at) == _BASE:
            return self.anchors[m.group(1)]
        return self.by_pointer_of(self.locate(ref, at), ref, at)

    def locate(self, ref: str, at: str) -> str:
        """The JSON Pointer (into this document) of what a `$ref` names."""
        where = self.file_of(at)
        target = _join(self.base_at(at), ref)
        uri, fragment = urldefrag(target)
        if uri not in self.ids:
            raise SpecError(
                where,
                at,
                f"unsupported $ref {ref!r}: it names another document ({uri}); only references within this "
                "document are supported: copy what it names into this document's $defs and refer to it there",
            )
        base = self.ids[uri]
        if fragment == "" and not target.endswith("#") and "#" not in ref:
            return base
        if fragment == "":
            return base
        if fragment.startswith("/"):
            pointer = base + unquote(fragment)
            try:
                self.node_at(pointer)
            except KeyError:
                raise SpecError(where, at, f"dangling $ref {ref!r}: nothing at {pointer or '/'} (no definition named {fragment.rsplit('/', 1)[-1]!r})") from None
            return pointer
        key = f"{uri}#{fragment}"
        if key not in self.id_anchors:
            raise SpecError(where, at, f"dangling $ref {ref!r}: no $anchor {fragment!r}")
        return self.id_anchors[key]

    def by_pointer_of(self, pointer: str, ref: str, at: str) -> str:
        """The definition at a pointer, made one (named after its path) if it is not yet."""
        if pointer in self.by_pointer:
            return self.by_pointer[pointer]
        node = self.node_at(pointer)
        if not isinstance(node, (dict, bool)):
            raise SpecError(self.file_of(at), at, f"$ref {ref!r} names {pointer or '/'}, which is not a schema")
        words = [w for w in pointer.split("/")[1:] if w not in ("$defs", "definitions", "components", "schemas", "properties")]
        stem = "".join(_camel(w.replace("~1", "/").replace("~0", "~")) for w in words) or self.root_name
        name, i = stem, 2
        while name in self.defs:
            name, i = f"{stem}{i}", i + 1
        self.defs[name] = node  # type: ignore[assignment]
        self.pointers[name] = pointer
        self.by_pointer[pointer] = name
        self.origin[name] = self.file_of(pointer) if pointer else self.display
        return name


def _join(base: str, ref: str) -> str:
    """A reference resolved against a base URI (RFC 3986; also for URNs, which urljoin
    does not resolve against)."""
    if ref.startswith("#"):
        return urldefrag(base)[0] + ref
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", ref):
        return ref
    return urljoin(base, ref)


def _camel(word: str) -> str:
    parts = re.split(r"[^0-9A-Za-z]+", word)
    return "".join(p[:1].upper() + p[1:] for p in parts if p)


def read_document(path: Path, display: str) -> tuple[Any, bytes]:
    """JSON, or YAML for .yaml/.yml files (OpenAPI documents usually are), read with the YAML
    1.2 core schema (see yaml12)."""
    if path.suffix not in (".yaml", ".yml"):
        value, data = read_json(path, display)
        if _SURROGATE.search(data):
            _check_surrogates(data.decode("utf-8-sig"), display)
        return value, data
    import yaml

    from . import yaml12

    data = _read_bytes(path, display)
    try:
        return yaml12.load(data), data
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1} column {mark.column + 1}" if mark else ""
        raise SpecError(display, where, str(exc.problem or exc)) from None
    except yaml.YAMLError as exc:
        raise SpecError(display, "", f"not valid YAML: {exc}") from None


def _read_bytes(path: Path, display: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise SpecError(display, "", f"cannot read: {exc.strerror}") from None


def read_json(path: Path, display: str) -> tuple[Any, bytes]:
    """A JSON file: UTF-8 (a byte order mark tolerated), errors at their line and column."""
    data = _read_bytes(path, display)
    return parse_json_file(data, display), data


def parse_json_file(data: bytes, display: str) -> Any:
    # decoded here, not by json.loads: it would read UTF-16 and UTF-32 too, and place a
    # decoding error at a character of the wrong encoding
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        wide = data[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in data[:4]
        why = "not valid UTF-8" + (" (UTF-16 or UTF-32 text? JSON files are UTF-8)" if wide else "")
        raise SpecError(display, f"byte {exc.start}", why) from None
    if not text.strip():
        raise SpecError(display, "", "empty: a JSON file holds one value" if not text else "only whitespace: a JSON file holds one value")
    try:
        value = json.loads(text, parse_constant=_not_a_number, parse_float=_finite, object_pairs_hook=_members)
    except json.JSONDecodeError as exc:
        raise SpecError(display, f"line {exc.lineno} column {exc.colno}", f"not JSON: {exc.msg}") from None
    except RecursionError:
        # the text up to where json gave up is JSON, and nests past the limit before it
        raise SpecError(display, *_deeper_than(text)) from None
    except _BadNumber as exc:
        raise SpecError(display, _place(text, exc.token), exc.why) from None
    except _Repeated as exc:
        raise SpecError(display, _repeated_at(text), f"the member {exc.name!r} is given twice in one object (json.loads would keep the last silently)") from None
    except ValueError:  # an integer past Python's 4,300 digits (int_max_str_digits)
        long = re.search(r"[0-9]{4301,}", text)
        digits = len(long.group()) if long else 0
        raise SpecError(display, _place(text, long.group() if long else ""), f"an integer of {digits:,} digits: specbind reads integers of up to 4,300 (as the generated packages do)") from None
    if text.count("[") + text.count("{") > MAX_FILE_DEPTH and _depth(value) > MAX_FILE_DEPTH:
        raise SpecError(display, *_deeper_than(text))
    return value


# an escape of a UTF-16 surrogate, which json.loads reads alone too: a lone one is no Unicode
# text (RFC 8259 §8.2), and a schema string holding one ended generate in a UnicodeEncodeError
# (exit 70) when the package was written. Schemas only: a document (a fixture, an --input) may
# hold one for the package to refuse.
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")


def _check_surrogates(text: str, display: str) -> None:
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"', text):
        if _SURROGATE.search(m.group().encode()):
            try:
                json.loads(m.group()).encode("utf-8")
            except UnicodeEncodeError:
                at = _line_column(text, m.start())
                raise SpecError(display, at, f"the string {m.group()[:40]} holds a lone surrogate (an escape of half a UTF-16 pair), which no Unicode text holds") from None


def _line_column(text: str, at: int) -> str:
    return f"line {text.count(chr(10), 0, at) + 1} column {at - text.rfind(chr(10), 0, at)}"


def too_deep(depth: int) -> str:
    return f"arrays and objects nest {depth} deep here, and specbind reads files nested at most {MAX_FILE_DEPTH} deep (docs/limits.md)"


def _depth(value: Any) -> int:
    """How deep arrays and objects nest in a value (a loop: the value may nest deeper than
    Python recurses)."""
    most = 0
    todo = [(value, 1)] if isinstance(value, (dict, list)) else []
    while todo:
        node, depth = todo.pop()
        most = max(most, depth)
        todo += [(v, depth + 1) for v in (node.values() if isinstance(node, dict) else node) if isinstance(v, (dict, list))]
    return most


def _deeper_than(text: str) -> tuple[str, str]:
    """`line L column C` of the bracket that opens level MAX_FILE_DEPTH + 1, and why, in a text
    that is JSON up to there (a scan of its strings and brackets suffices)."""
    depth = 0
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
        token = m.group()
        if token in "[{":
            depth += 1
            if depth > MAX_FILE_DEPTH:
                return _line_column(text, m.start()), too_deep(depth)
        elif token in "]}":
            depth -= 1
    return "", "not readable: nested too deeply"


class _Repeated(ValueError):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def _members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        raise _Repeated(next(k for k, _ in pairs if k in seen or seen.add(k)))  # type: ignore[func-returns-value]
    return out


def _repeated_at(text: str) -> str:
    """`line L column C` of the first member name given twice in one object (a text json.loads
    read, so a scan of its strings and brackets suffices)."""
    names: list[set[str] | None] = []  # per open bracket: an object's names so far, None for an array
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"\s*:?|[\[\]{}]', text):
        token = m.group()
        if token in "[{":
            names.append(set() if token == "{" else None)
        elif token in "]}":
            names.pop()
        elif token.endswith(":") and names and names[-1] is not None:
            name = json.loads(token[:-1].rstrip())
            if name in names[-1]:
                return _line_column(text, m.start())
            names[-1].add(name)
    return ""


class _BadNumber(ValueError):
    def __init__(self, token: str, why: str) -> None:
        super().__init__(why)
        self.token, self.why = token, why


def _not_a_number(token: str) -> Any:
    # json.loads reads NaN and Infinity, which JSON does not have; the generated modules could not
    # hold them either (a schema_table naming `nan` did not import)
    raise _BadNumber(token, f"not JSON: {token} is not a JSON number")


def _finite(token: str) -> float:
    value = float(token)
    if math.isinf(value):
        raise _BadNumber(token, f"the number {token} is beyond a double's range")
    return value


def _place(text: str, token: str) -> str:
    """Where a token first stands outside a string, as `line L column C`."""
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|' + re.escape(token), text) if token else ():
        if m.group() == token:
            return _line_column(text, m.start())
    return ""


# Root keywords that make the document itself a schema of something (beyond holding definitions).
_CONTAINER_KEYS = {"$schema", "$id", "$defs", "definitions", "$comment", "title", "description", "$ref", "$anchor", "$vocabulary", "examples", "default", "deprecated", "readOnly", "writeOnly"}


def load_schema(
    path: Path,
    display: str | None = None,
    overlays: list[tuple[Path, str]] | None = None,
    annotations: frozenset[str] = frozenset(),
    root_name: str = ROOT_NAME,
) -> SchemaDoc:
    """A JSON Schema document (draft 2020-12 or draft-07; definitions under $defs or definitions,
    and/or a root schema) or an OpenAPI 3.x document (under components/schemas), plus overlays:
    JSON Schema documents whose $defs add definitions to the same namespace, so a vendored file
    stays byte-identical to its source."""
    shown = display or str(path)
    raw, data = read_document(path, shown)
    if not isinstance(raw, dict):
        raise SpecError(shown, "", "a schema document must be a JSON object (JSON Schema, or OpenAPI 3.x with components/schemas)")
    draft = V.DRAFT_2020
    openapi: str | None = None
    converted = False
    if "openapi" in raw or "swagger" in raw:
        version = str(raw.get("openapi", raw.get("swagger")))
        if not re.match(r"^3\.[01](\.|$)", version):
            raise SpecError(shown, "/openapi" if "openapi" in raw else "/swagger", f"OpenAPI {version}: only OpenAPI 3.0 and 3.1 documents are supported")
        openapi = version
        if version.startswith("3.0"):
            raw = copy.deepcopy(raw)
            converted = True
        container = "/components/schemas"
        defs = (raw.get("components") or {}).get("schemas")
        if not isinstance(defs, dict) or not defs:
            raise SpecError(shown, container, "the document has no named definitions (components/schemas)")
        if version.startswith("3.0"):
            for name in list(defs):
                defs[name] = _from_openapi30(defs[name], shown, pointer_join(container, name))
        all_defs = dict(defs)
        containers = {name: container for name in defs}
    else:
        if "$schema" in raw:
            found = V.draft_of(raw["$schema"])
            if found is None:
                raise SpecError(
                    shown,
                    "/$schema",
                    f"$schema {raw['$schema']!r}: only draft 2020-12 and draft-07 (or -06) documents are read; "
                    "for another draft, port the document to one of those (draft-04: boolean exclusive bounds become numbers, `id` becomes `$id`)",
                )
            draft = found
        all_defs = {}
        containers = {}
        for key in ("$defs", "definitions"):
            found_defs = raw.get(key)
            if found_defs is None:
                continue
            if not isinstance(found_defs, dict):
                raise SpecError(shown, "/" + key, f"{key} must be an object of named schemas")
            for name, node in found_defs.items():
                if name in all_defs:
                    raise SpecError(shown, pointer_join("/" + key, name), f"{name!r} is defined under both $defs and definitions")
                all_defs[name] = node
                containers[name] = "/" + key
        container = "/$defs" if "$defs" in raw or "definitions" not in raw else "/definitions"
        has_root = bool(set(raw) - _CONTAINER_KEYS - {k for k in raw if V.is_extension(k) or k in annotations})
        has_root = has_root or ("$ref" in raw and not all_defs)
        if not all_defs and not has_root:
            raise SpecError(shown, container, f"the document has no named definitions ({container.lstrip('/')}) and no root schema")
    doc = SchemaDoc(
        path=path,
        display=shown,
        sha256=hashlib.sha256(data).hexdigest(),
        raw=raw,
        defs=all_defs,
        defs_pointer=container,
        draft=draft,
        openapi=openapi,
        annotations=annotations,
        root_name=root_name,
        converted=converted,
    )
    for name in all_defs:
        doc.containers[name] = containers[name]
        doc.origin[name] = shown
        doc.by_pointer[pointer_join(containers[name], name)] = name
    if openapi is None:
        check_nesting(shown, raw, "")
        check_vocabulary(doc, raw, "")
    else:
        for name, node in all_defs.items():
            check_nesting(shown, node, doc.def_pointer(name))
            check_vocabulary(doc, node, doc.def_pointer(name))
    for overlay_path, overlay_shown in overlays or []:
        extra, extra_data = read_document(overlay_path, overlay_shown)
        if not isinstance(extra, dict) or not isinstance(extra.get("$defs"), dict):
            raise SpecError(overlay_shown, "/$defs", "an overlay is a JSON Schema document with $defs")
        doc.overlays.append((overlay_shown, hashlib.sha256(extra_data).hexdigest()))
        for name, node in extra["$defs"].items():
            if name in doc.defs:
                raise SpecError(overlay_shown, pointer_join("/$defs", name), f"{name!r} is already defined in {doc.origin[name]}")
            doc.defs[name] = node
            doc.containers[name] = "/$defs"
            doc.origin[name] = overlay_shown
        overlay_doc = SchemaDoc(overlay_path, overlay_shown, "", extra, extra["$defs"], "/$defs", annotations=annotations)
        check_nesting(overlay_shown, extra, "")
        check_vocabulary(overlay_doc, extra, "")
    for name, node in doc.defs.items():
        at = doc.def_pointer(name)
        if not isinstance(node, (dict, bool)):
            raise SpecError(doc.origin[name], at, "a definition must be a JSON Schema (an object or a boolean)")
    _index_ids(doc)
    if openapi is None and has_root:
        if root_name in doc.defs:
            raise SpecError(shown, "", f"the root schema would be the definition {root_name!r}, which is taken: name the root otherwise ([protocol].root_name)")
        doc.defs = {root_name: raw, **doc.defs}
        doc.pointers[root_name] = ""
        doc.by_pointer[""] = root_name
        doc.origin[root_name] = shown
        doc.root_ref = root_name
    elif "$ref" in raw and openapi is None:
        doc.root_ref = doc.resolve(raw["$ref"], "/$ref")
    for name in list(doc.defs):
        check_refs(doc, doc.defs[name], doc.def_pointer(name))
    check_reference_depth(doc)
    return doc


def _too_deep(depth: int, most: int, how: str) -> str:
    return (
        f"subschemas nest {depth} deep here{how}, and specbind reads at most {most} (docs/limits.md): "
        "name the inner schemas as definitions, or flatten them"
    )


def check_nesting(display: str, node: Any, at: str) -> None:
    """Subschemas nested past MAX_SCHEMA_DEPTH in the document itself, refused at the first such
    place (before any recursive pass reads them; a loop, as deep documents are what it is for)."""
    todo: list[tuple[Any, str, int]] = [(node, at, 1)]
    while todo:
        node, at, depth = todo.pop()
        if depth > MAX_SCHEMA_DEPTH:
            raise SpecError(display, at, _too_deep(depth, MAX_SCHEMA_DEPTH, ""))
        if isinstance(node, dict):
            for key in (*_VALUES, *_LISTED_VALUES):
                if key in node:
                    values = enumerate(node[key]) if key in _LISTED_VALUES and isinstance(node[key], list) else [(None, node[key])]
                    for i, value in values:
                        _check_value_depth(display, value, pointer_join(at, key) if i is None else pointer_join(at, key, i))
            for key in sorted(node, reverse=True):
                inner = 1 if key in ("$defs", "definitions") else depth + 1  # definitions nest in nothing
                todo += [(sub, sub_at, inner) for sub, sub_at in reversed(_subschemas(key, node[key], at))]


def _check_value_depth(display: str, value: Any, at: str) -> None:
    todo: list[tuple[Any, str, int]] = [(value, at, 1)]
    while todo:
        node, where, depth = todo.pop()
        if not isinstance(node, (dict, list)):
            continue
        if depth > MAX_VALUE_DEPTH:
            raise SpecError(
                display,
                where,
                f"a value nested {depth} deep here, and specbind reads values (const, enum, default, examples) nested at most {MAX_VALUE_DEPTH} deep (docs/limits.md)",
            )
        items = node.items() if isinstance(node, dict) else enumerate(node)
        todo += [(v, pointer_join(where, k), depth + 1) for k, v in items if isinstance(v, (dict, list))]


def check_reference_depth(doc: SchemaDoc) -> None:
    """Subschemas nested past MAX_REFERENCE_DEPTH through `$ref`s (a chain of definitions, each
    referring to the next), refused at the reference that leads past it. A reference back to a
    definition the chain is inside of is recursion and ends the count: the generator stops there
    too. Each definition is measured once, so the cost is linear in the document."""
    refs: dict[str, list[tuple[int, str, str]]] = {}  # definition -> (depth, target, pointer) of each $ref in it
    own: dict[str, int] = {}  # definition -> how deep its own subschemas nest
    for name, node in doc.defs.items():
        found: list[tuple[int, str, str]] = []
        deepest = 1
        todo: list[tuple[Any, str, int]] = [(node, doc.def_pointer(name), 1)]
        while todo:
            sub, at, depth = todo.pop()
            if not isinstance(sub, dict):
                continue
            deepest = max(deepest, depth)
            if isinstance(sub.get("$ref"), str):
                found.append((depth + 1, doc.resolve(sub["$ref"], pointer_join(at, "$ref")), pointer_join(at, "$ref")))
            for key in sub:
                if key not in ("$defs", "definitions"):  # definitions of their own, reached by reference
                    todo += [(s, s_at, depth + 1) for s, s_at in _subschemas(key, sub[key], at)]
        refs[name] = sorted(found)
        own[name] = deepest
    total: dict[str, int] = {}
    via: dict[str, tuple[str, str]] = {}  # definition -> (the $ref its deepest chain leaves by, its target)
    for start in doc.defs:
        if start in total:
            continue
        best = {start: own[start]}
        stack: list[tuple[str, int]] = [(start, 0)]
        while stack:
            name, i = stack[-1]
            if i < len(refs[name]):
                stack[-1] = (name, i + 1)
                target = refs[name][i][1]
                if target not in total and target not in best:  # not measured, not in the chain
                    best[target] = own[target]
                    stack.append((target, 0))
                    continue
                if target in total:
                    step = refs[name][i][0] + total[target]
                    if step > best[name]:
                        best[name], via[name] = step, (refs[name][i][2], target)
                continue
            stack.pop()
            total[name] = best.pop(name)
            if total[name] > MAX_REFERENCE_DEPTH:
                chain, at = [name], via[name][0] if name in via else doc.def_pointer(name)
                while chain[-1] in via and len(chain) < 6:
                    chain.append(via[chain[-1]][1])
                shown = " -> ".join(chain) + (" -> ..." if chain[-1] in via else "")
                raise SpecError(doc.file_of(at), at, _too_deep(total[name], MAX_REFERENCE_DEPTH, f" through $ref ({shown})"))
            if stack:
                parent, j = stack[-1]
                step = refs[parent][j - 1][0] + total[name]
                if step > best[parent]:
                    best[parent], via[parent] = step, (refs[parent][j - 1][2], name)


def _index_ids(doc: SchemaDoc) -> None:
    """Every `$id` (absolute, after resolution against its parent's) and anchor in the
    document, so references by URI and by anchor resolve to pointers."""
    doc.ids[_BASE] = ""
    root_id = doc.raw.get("$id") if isinstance(doc.raw.get("$id"), str) and "$ref" not in doc.raw or doc.draft != V.DRAFT_07 else None
    root_base = urldefrag(_join(_BASE, root_id))[0] if isinstance(root_id, str) and not root_id.startswith("#") else _BASE

    def walk(node: Any, at: str, base: str) -> None:
        if not isinstance(node, dict):
            return
        ident = node.get("$id")
        if doc.draft == V.DRAFT_07 and "$ref" in node:
            ident = None  # draft-07: every keyword beside $ref is ignored, $id included
        if isinstance(ident, str):
            if ident.startswith("#") and doc.draft == V.DRAFT_07:
                doc.id_anchors[f"{base}#{ident[1:]}"] = at
                if base == root_base:
                    _anchor(doc, ident[1:], at)
            else:
                base = urldefrag(_join(base, ident))[0]
                doc.ids.setdefault(base, at)
                doc.id_bases.append((at, base))
        anchor = node.get("$anchor")
        if isinstance(anchor, str):
            key = f"{base}#{anchor}"
            if key in doc.id_anchors and doc.id_anchors[key] != at:
                raise SpecError(doc.file_of(at), at, f"duplicate $anchor {anchor!r}")
            doc.id_anchors[key] = at
            if base == root_base:
                _anchor(doc, anchor, at)
        for key, value in node.items():
            for sub, sub_at in _subschemas(key, value, at):
                walk(sub, sub_at, base)

    walk(doc.raw, "", _BASE)
    for name, node in doc.defs.items():
        if doc.origin.get(name) != doc.display and isinstance(node, dict) and isinstance(node.get("$anchor"), str):
            _anchor(doc, node["$anchor"], doc.def_pointer(name), name)
    doc.id_bases.sort(key=lambda p: -len(p[0]))


def _anchor(doc: SchemaDoc, anchor: str, at: str, name: str | None = None) -> None:
    """`#Anchor` references to a definition resolve to its name directly."""
    owner = name or doc.by_pointer.get(at)
    if owner is not None:
        if anchor in doc.anchors and doc.anchors[anchor] != owner:
            raise SpecError(doc.file_of(at), at, f"duplicate $anchor {anchor!r}")
        doc.anchors[anchor] = owner


def _subschemas(key: str, value: Any, at: str) -> list[tuple[Any, str]]:
    """The subschemas under one keyword (never inside `enum`, `const`, `default` or `examples`,
    which are data)."""
    where = pointer_join(at, key)
    if key in V.SCHEMA_MAPS or key == "dependencies":
        if isinstance(value, dict):
            return [(v, pointer_join(where, k)) for k, v in value.items() if isinstance(v, (dict, bool))]
        return []
    if key in V.SCHEMA_SINGLE:
        return [(value, where)]
    if key in V.SCHEMA_LISTS or key == "items":
        if isinstance(value, list):
            return [(v, pointer_join(where, i)) for i, v in enumerate(value)]
        return [(value, where)] if key == "items" else []
    return []


def check_vocabulary(doc: SchemaDoc, node: Any, at: str) -> None:
    """Every keyword must be one specbind implements, in the document's draft; fail on the first
    that is not."""
    if isinstance(node, bool):
        return
    if not isinstance(node, dict):
        raise SpecError(doc.display, at, f"a schema must be an object or a boolean, got {json.dumps(node)[:40]}")
    for key in sorted(node):
        value = node[key]
        where = pointer_join(at, key)
        if key in V.REFUSED:
            raise SpecError(doc.display, where, V.REFUSED[key])
        if V.is_extension(key) or key in doc.annotations:
            continue
        if key not in V.KNOWN:
            raise SpecError(
                doc.display,
                where,
                f"unsupported JSON Schema keyword {key!r}: if it only annotates, list it in binding.toml "
                f"([protocol].annotations = [{json.dumps(key)}]); `specbind init` does so for every such keyword it finds",
            )
        if doc.draft == V.DRAFT_07 and key in V.ONLY_2020 and doc.openapi is None:
            raise SpecError(doc.display, where, f"{key!r} is a draft 2020-12 keyword, but the document is draft-07 ({V.ONLY_2020[key]}): port the document to 2020-12 or spell it the draft-07 way")
        if doc.draft == V.DRAFT_2020 and key in V.ONLY_07:
            raise SpecError(doc.display, where, f"{key!r} is a draft-07 keyword, but the document is draft 2020-12 ({V.ONLY_07[key]})")
        if doc.draft == V.DRAFT_2020 and key == "items" and isinstance(value, list):
            raise SpecError(doc.display, where, "`items` as an array is draft-07's tuple form: in draft 2020-12 it is `prefixItems`")
        if key in _TYPED_ANNOTATIONS and not isinstance(value, _TYPED_ANNOTATIONS[key][0]):
            # the meta-schema's types: a description of 3 once ended init in an AttributeError (exit 70)
            raise SpecError(doc.display, where, f"{key} must be {_TYPED_ANNOTATIONS[key][1]}, got {json.dumps(value)[:40]}")
        if key == "$anchor" and isinstance(value, str) and not _ANCHOR_NAME.match(value):
            # 2020-12's meta-schema: such an anchor is no plain-name fragment, and `#name` could
            # not reach it (a reference with "/" would even read it as a pointer)
            raise SpecError(doc.display, where, f"$anchor {json.dumps(value)[:40]} is not an anchor name (2020-12: a letter or '_', then letters, digits, '-', '.', '_')")
        if key == "$id" and isinstance(value, str) and doc.draft == V.DRAFT_2020 and value.partition("#")[2]:
            # 2020-12's meta-schema: an `$id` has no fragment (an anchor is `$anchor`); readers
            # disagree on what `#name` here would name (jsonschema: a resource of its own)
            raise SpecError(doc.display, where, f"$id {json.dumps(value)[:60]} has a fragment, which draft 2020-12 does not allow in $id: name the place with $anchor")
        if key in _MINIMA and isinstance(value, (int, float)) and not isinstance(value, bool) and value > MAX_DERIVED:
            raise SpecError(
                doc.display,
                where,
                f"{key} {value}: the generated tests would hold documents that large, and specbind reads minimum sizes up to {MAX_DERIVED:,} (docs/limits.md)",
            )
        if key in V.SCHEMA_MAPS or key == "dependencies":
            if not isinstance(value, dict):
                raise SpecError(doc.display, where, f"{key} must be an object")
            for name, sub in value.items():
                if key == "dependencies" and isinstance(sub, list):
                    if not all(isinstance(s, str) for s in sub):
                        raise SpecError(doc.display, pointer_join(where, name), "dependencies: an array must list property names")
                    continue
                check_vocabulary(doc, sub, pointer_join(where, name))
        elif key in V.SCHEMA_SINGLE or (key == "items" and not isinstance(value, list)):
            check_vocabulary(doc, value, where)
        elif key == "enum":
            if not isinstance(value, list):
                raise SpecError(doc.display, where, "enum must be an array of the values it admits")
            if not value:
                raise SpecError(doc.display, where, "an empty enum admits no value (JSON Schema: it SHOULD list one at least): write `false` for a schema nothing matches")
        elif key in V.SCHEMA_LISTS or key == "items":
            if not isinstance(value, list) or (not value and key != "prefixItems" and key != "items"):
                raise SpecError(doc.display, where, f"{key} must be a non-empty array of schemas")
            for i, sub in enumerate(value):
                check_vocabulary(doc, sub, pointer_join(where, i))


def check_refs(doc: SchemaDoc, node: Any, at: str) -> None:
    """Resolve every $ref once up front so a dangling one fails with its own pointer."""
    if isinstance(node, dict):
        for key in sorted(node):
            value = node[key]
            where = pointer_join(at, key)
            if key == "$ref":
                doc.resolve(value, where)
            elif key in ("$defs", "definitions") and at != "" and doc.by_pointer.get(at) is None:
                continue  # nested definitions are reached by the references that name them
            else:
                for sub, sub_at in _subschemas(key, value, at):
                    check_refs(doc, sub, sub_at)


def _from_openapi30(node: Any, shown: str, at: str) -> Any:
    """An OpenAPI 3.0 schema object as the 2020-12 schema it means: `nullable: true` admits null
    (beside the type, or the enum), boolean `exclusiveMinimum`/`exclusiveMaximum` (draft-04's
    form) make `minimum`/`maximum` exclusive, and a `$ref`'s siblings are dropped (3.0 ignores
    them)."""
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return {"$ref": node["$ref"]}
    out: dict[str, Any] = {}
    for key, value in node.items():
        where = pointer_join(at, key)
        if key in ("properties", "patternProperties") and isinstance(value, dict):
            out[key] = {k: _from_openapi30(v, shown, pointer_join(where, k)) for k, v in value.items()}
        elif key in ("allOf", "anyOf", "oneOf") and isinstance(value, list):
            out[key] = [_from_openapi30(v, shown, pointer_join(where, i)) for i, v in enumerate(value)]
        elif key in ("items", "not", "additionalProperties") and isinstance(value, dict):
            out[key] = _from_openapi30(value, shown, where)
        else:
            out[key] = value
    for bound, flag in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if isinstance(out.get(flag), bool):
            if out.pop(flag) and bound in out:
                out[flag] = out.pop(bound)
    if out.pop("nullable", False) is True:
        t = out.get("type")
        if isinstance(t, str):
            out["type"] = [t, "null"]
        if isinstance(out.get("enum"), list) and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
        if "type" not in out and "enum" not in out:
            pass  # no type: null is admitted already
        elif not isinstance(t, str) and "enum" not in out:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


__all__ = ["SchemaDoc", "load_schema", "read_document", "read_json", "parse_json_file", "check_vocabulary", "check_refs", "ROOT_NAME", "pointer_escape"]
