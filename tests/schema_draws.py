"""Generated JSON Schemas, differentially checked (issue 23: exact on every schema it generates).

`schemas()` is a hypothesis strategy drawing small schema documents (draft-07 or 2020-12) from
the vocabulary `specbind init` reads: types and unions of types, objects (properties, required,
additionalProperties true/false/a schema, patternProperties, propertyNames), arrays (items,
prefixItems or draft-07's tuple items, min/maxItems, uniqueItems, contains), enum/const (1
beside 1.0, objects, null), numeric bounds and multipleOf, string lengths, patterns and formats,
anyOf/oneOf/allOf/not, if/then/else, `$ref` to definitions (recursive ones too: an alias of
itself through arrays, maps and unions, two definitions in a cycle), nullable unions,
definition and property names that are Python or TypeScript keywords or collide once normalised,
anchors and `$id`s with references through them (and their refused forms), a root schema with
`$ref: "#"`, and bindings asserting formats (`x-fuzz-formats: "assert"`: `formats = "assert"`).

`check_batch` puts each drawn schema through `specbind init` alone (a refusal must be exit 2
with a located message, and `generate` must refuse it too), generates the accepted ones
together as one spec (each schema's definitions under a prefix of its own, so one package and
one TypeScript compilation serve a batch), then decodes documents (the package's own
strategies' documents and mutants, random JSON values, mutations of valid documents) and
compares: the Python strict verdict with jsonschema's (patterns read by ECMA-262, as the
package reads them: the only difference the project keeps, encoded in `_reference`), the
TypeScript binding's whole answer (verdict, errors, warnings, strict and lenient) with
Python's, and for a valid document the round trip the package promises (encode gives the
document back, lenient decoding warns of nothing and gives the same value).

Used by tests/test_generated_schemas.py (bounded, seeded) and fuzz/schemas.py (long runs)."""

from __future__ import annotations

import importlib
import json
import math
import random
import shutil
import sys
import traceback
from fractions import Fraction
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from referencing.exceptions import Unresolvable

REPO = Path(__file__).resolve().parents[1]
for _entry in (REPO, REPO / "tests"):
    if str(_entry) not in sys.path:
        sys.path.insert(0, str(_entry))

DRAFT07 = "http://json-schema.org/draft-07/schema#"
DRAFT2020 = "https://json-schema.org/draft/2020-12/schema"

# Names that are keywords (Python, TypeScript), builtins, or that collide once normalised
# (snake_case, PascalCase); property names that are troublesome in JavaScript objects.
DEFINITION_NAMES = [
    "Node", "node", "Item", "item_list", "ItemList", "item-list", "class", "from", "None", "type",
    "interface", "default", "delete", "Value", "value", "string", "number", "Object", "list", "dict",
    "A", "a", "B", "Any", "self", "async", "enum", "__init__", "X1", "x_1",
]
PROPERTY_NAMES = [
    "a", "b", "id", "type", "class", "from", "def", "None", "true", "import", "constructor",
    "__proto__", "toString", "hasOwnProperty", "0", "1", "", "x-y", "x_y", "xY", "XY", "a b",
    "é", "$ref", "self", "kind", "value", "items", "default",
]
# Patterns that mean the same to ECMA-262 and to Python once translated (the package's
# reading), and some that do not without the translation (\d, \s, \w, \b on non-ASCII text).
PATTERNS = ["^a", "b$", "^[a-c]+$", "x", "^x-", "^[0-9]+$", r"^\d+$", r"\s", r"^\w*$", r"\bfoo", "^.$", "^(ab|c)*$", "é", "[^a]"]
FORMATS = ["date-time", "date", "email", "uri", "uuid", "ipv4", "hostname", "regex", "time", "ipv6"]
# the formats `formats = "assert"` checks (docs/schemas.md)
ASSERTED_FORMATS = ("date-time", "date", "time", "email", "uri", "hostname", "ipv4", "ipv6", "uuid", "regex")
# A drawn schema's root member saying its binding asserts formats (`formats = "assert"`): an
# `x-` keyword, which init and generate read as an annotation, so the schema alone is its reproducer.
FORMATS_MARK = "x-fuzz-formats"
# anchor names (2020-12's `$anchor`, draft-07's `$id: "#name"`), and some that are none
ANCHORS = ["foo", "Node", "a.b", "_x", "item-1", "A"]
NOT_ANCHORS = ["1a", "a b", "a/b", ""]
# `$id`s of definitions: relative to the document's base (one folder: they resolve alike from
# each other), and URNs; the root's, when it has one (refs then may go through it)
IDS = ["item.json", "node.json", "a.json", "urn:sb:x", "urn:sb:y"]
ROOT_ID = "https://example.com/root.json"
TYPES = ["null", "boolean", "integer", "number", "string", "array", "object"]

# strings on either side of the asserted formats' edges (and where checkers differ)
FORMAT_TEXTS = [
    "2020-01-01T00:00:00Z", "2020-02-30T00:00:00Z", "2020-01-01t00:00:00z", "2020-01-01 00:00:00Z", "2020-01-01T00:00:00",
    "2016-12-31T23:59:60Z", "2020-01-01T23:59:60Z", "2020-01-01T00:00:00.5+01:00", "2020-01-01T00:00:00+24:00", "2020-01-01\n",
    "0000-01-01", "2020-1-01", "١٢٣٤-٠١-٠١", "12:00:00Z", "23:59:60Z", "12:00:00", "12:00:00.123-05:00", "24:00:00Z", "12:00:00Z\n",
    "a@b", "a@b@c", "@", "a @b", "a\x1c@b", "a\ufeff@b", "é@é", "mailto:a@b", "http://a/b", "a:b c", "a:", "http://a/%zz", "urn:x:y",
    "http://[::1]/", "x", "//a/b", "http://é.com/", "example.com", "a..b", "-a.com", "a-.com", "1.2.3.4", "a.b.", "é.com", "a" * 64 + ".com",
    "127.0.0.1", "1.2.3", "01.2.3.4", "256.1.1.1", "1.2.3.4\n", "::1", "::", "1::2:3:4:5:6:7", "::ffff:1.2.3.4", "fe80::1%eth0",
    "1:2:3:4:5:6:7:8:9", "12345678-1234-1234-1234-123456789abc", "12345678-1234-1234-1234-123456789ABC", "{12345678-1234-1234-1234-123456789abc}",
    "12345678123412341234123456789abc", "12345678-1234-1234-1234-1234_6789abc", " 2345678-1234-1234-1234-123456789abc",
    "+2345678-1234-1234-1234-123456789abc", "12345678-1234-1234-1234-123456789abc-", "12345678-1234-1234-1234-12345678\u0669abc", "^a+$", "[", "(?i)a", "a{,3}", "(?P<n>a)", r"\p{L}", r"\d+", "(?<n>a)", "a**", ")",
]
# numbers that tell JSON Schema's integer rule and float handling apart
NUMBERS = [0, 1, 1.0, -1, 2, 2.5, 0.1, -0.0, 3, 10, 1e3, 2**53, 2**53 + 1, 2**63, -(2**63) - 1, 1e300, 0.5, 100]


@dataclass
class Draw:
    """What a schema under construction needs to know: its draft and its definitions' names."""

    draft: str
    names: list[str]
    # the definitions a $ref may name where it applies to the same value as the definition
    # being drawn (not inside a property or item): the later ones only, so that most drawn
    # schemas have no cycle that never ends (which generate refuses; `loops` draws some)
    later: list[str] = field(default_factory=list)
    loops: bool = False
    # definition -> its anchor / its `$id` (draws of references by anchor and by URI)
    anchors: dict[str, str] = field(default_factory=dict)
    ids: dict[str, str] = field(default_factory=dict)
    root_id: bool = False
    formats: bool = False  # the binding asserts formats: strings get one often
    # the definition being drawn: inside one with an `$id`, `#...` names that resource's places
    here: str | None = None


def _names(draw: Any, pool: list[str], lo: int, hi: int) -> list[str]:
    return draw(st.lists(st.sampled_from(pool), min_size=lo, max_size=hi, unique=True))


def _number(draw: Any) -> Any:
    return draw(st.sampled_from(NUMBERS))


def _literal(draw: Any, depth: int = 0) -> Any:
    """A JSON value for enum/const: numbers like 1 and 1.0, strings, null, objects, arrays."""
    kind = draw(st.sampled_from(["num", "num", "str", "str", "null", "bool", "obj", "arr"] if depth < 2 else ["num", "str", "null", "bool"]))
    if kind == "num":
        return _number(draw)
    if kind == "str":
        return draw(st.sampled_from(["a", "b", "", "x-y", "1", "é", "null", "A", "😀", "a😀"]))
    if kind == "null":
        return None
    if kind == "bool":
        return draw(st.booleans())
    if kind == "obj":
        keys = _names(draw, PROPERTY_NAMES[:8], 0, 2)
        return {k: _literal(draw, depth + 1) for k in keys}
    return [_literal(draw, depth + 1) for _ in range(draw(st.integers(0, 2)))]


def _ref(ctx: Draw, name: str, draw: Any = None) -> dict[str, Any]:
    """A reference to a definition (`#`: the document's root, or the resource's it is in), spelt
    one of the ways that reach it from here: its pointer, through the root's `$id`, its anchor, its
    `$id`, its `$id` and anchor; 1 in 10 any spelling, perhaps one that does not resolve (inside an
    `$id`, a pointer names that resource's place), which init and generate must refuse alike."""
    if name == "#":
        return {"$ref": "#"}
    pointer = f"#/{'definitions' if ctx.draft == DRAFT07 else '$defs'}/{_escape(name)}"
    if draw is None or not (ctx.anchors or ctx.ids or ctx.root_id):
        return {"$ref": pointer}
    inside = ctx.here in ctx.ids
    anchor, ident = ctx.anchors.get(name), ctx.ids.get(name)
    reach = [] if inside else [pointer]
    if ctx.root_id:
        reach.append("root.json" + pointer)
    if anchor is not None and (ident is None and not inside or name == ctx.here):
        reach.append("#" + anchor)
    if ident is not None:
        reach += [ident] + ([f"{ident}#{anchor}"] if anchor is not None else [])
    if not reach or draw(st.integers(0, 9)) == 5:  # (hypothesis draws the ends of a range often)
        reach = [pointer] + ([f"#{anchor}"] if anchor is not None else [])
    return {"$ref": draw(st.sampled_from(reach))}


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _typed(draw: Any, ctx: Draw, depth: int, kind: str) -> dict[str, Any]:
    """A schema of one JSON type, with some of that type's keywords."""
    node: dict[str, Any] = {"type": kind}
    if kind in ("integer", "number"):
        for key in draw(st.lists(st.sampled_from(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]), max_size=2, unique=True)):
            node[key] = draw(st.sampled_from([0.5, 2, 3, 0.1, 1.5])) if key == "multipleOf" else _number(draw)
    elif kind == "string":
        for key in draw(st.lists(st.sampled_from(["minLength", "maxLength", "pattern", "format"]), max_size=2, unique=True)):
            node[key] = draw(st.integers(0, 3)) if key.endswith("Length") else draw(st.sampled_from(PATTERNS)) if key == "pattern" else draw(st.sampled_from(FORMATS))
        if ctx.formats and "format" not in node and draw(st.booleans()):
            node["format"] = draw(st.sampled_from(FORMATS))
    elif kind == "array":
        _array(draw, ctx, depth, node)
    elif kind == "object":
        _object(draw, ctx, depth, node)
    return node


def _array(draw: Any, ctx: Draw, depth: int, node: dict[str, Any]) -> None:
    shape = draw(st.sampled_from(["items", "items", "tuple", "none"]))
    if shape == "items":
        node["items"] = _schema(draw, ctx, depth + 1)
    elif shape == "tuple":
        parts = [_schema(draw, ctx, depth + 1) for _ in range(draw(st.integers(1, 2)))]
        rest = draw(st.sampled_from([None, False, True, "schema"]))
        rest_value = _schema(draw, ctx, depth + 1) if rest == "schema" else rest
        if ctx.draft == DRAFT07:
            node["items"] = parts
            if rest is not None:
                node["additionalItems"] = rest_value
        else:
            node["prefixItems"] = parts
            if rest is not None:
                node["items"] = rest_value
    for key in draw(st.lists(st.sampled_from(["minItems", "maxItems", "uniqueItems", "contains"]), max_size=2, unique=True)):
        node[key] = draw(st.integers(0, 3)) if key.endswith("Items") and key != "uniqueItems" else True if key == "uniqueItems" else _schema(draw, ctx, depth + 1)
    if "contains" in node and ctx.draft != DRAFT07 and draw(st.booleans()):
        node[draw(st.sampled_from(["minContains", "maxContains"]))] = draw(st.integers(0, 2))
    if ctx.draft != DRAFT07 and "prefixItems" in node and "items" not in node and draw(st.integers(0, 3)) == 0:
        node["unevaluatedItems"] = draw(st.sampled_from([False, {"type": "integer"}]))


def _object(draw: Any, ctx: Draw, depth: int, node: dict[str, Any]) -> None:
    props = _names(draw, PROPERTY_NAMES, 0, 3)
    if props:
        node["properties"] = {p: _schema(draw, ctx, depth + 1) for p in props}
        required = draw(st.lists(st.sampled_from(props), unique=True, max_size=len(props)))
        if required:
            node["required"] = required
    extra = draw(st.sampled_from([None, None, False, True, "schema"]))
    if extra is not None:
        node["additionalProperties"] = _schema(draw, ctx, depth + 1) if extra == "schema" else extra
    for key in draw(st.lists(st.sampled_from(["patternProperties", "propertyNames", "minProperties", "maxProperties", "dependent", "unevaluated"]), max_size=1)):
        if key == "dependent" and props:
            # draft-07 says `dependencies` (names or a schema), 2020-12 dependentRequired/-Schemas
            first = props[0]
            if draw(st.booleans()):
                node["dependencies" if ctx.draft == DRAFT07 else "dependentRequired"] = {first: _names(draw, PROPERTY_NAMES[:6], 1, 2)}
            else:
                node["dependencies" if ctx.draft == DRAFT07 else "dependentSchemas"] = {first: _schema(draw, ctx, depth + 1)}
        elif key == "unevaluated" and ctx.draft != DRAFT07:
            node["unevaluatedProperties"] = draw(st.sampled_from([False, {"type": "string"}]))
        elif key == "patternProperties":
            node[key] = {draw(st.sampled_from(PATTERNS)): _schema(draw, ctx, depth + 1)}
        elif key == "propertyNames":
            node[key] = draw(st.sampled_from([{"pattern": "^[a-z]+$"}, {"maxLength": 3}, {"enum": ["a", "b", "id"]}, {"minLength": 1}, _ref(ctx, draw(st.sampled_from(ctx.names)), draw)]))
        elif key in ("minProperties", "maxProperties"):
            node[key] = draw(st.integers(0, 2))


# annotation values: text that is code in the generated docstrings and comments if not escaped
TEXTS = ["a title", 'say """ and \'\'\' here', "ends */ a comment", "back\\slash \\n", "line\nbreak\n\nparagraph", "${x} `tick` {{ jinja }}", "😀 é \u2028 sep", ""]


def _annotated(draw: Any, node: Any) -> Any:
    """A schema with some annotations beside its keywords (most schemas have none)."""
    if not isinstance(node, dict) or draw(st.integers(0, 3)) != 0:
        return node
    for key in draw(st.lists(st.sampled_from(["title", "description", "default", "examples", "deprecated", "readOnly", "$comment", "x-note"]), min_size=1, max_size=3, unique=True)):
        if key in ("title", "description", "$comment"):
            node[key] = draw(st.sampled_from(TEXTS))
        elif key == "default":
            node[key] = _literal(draw)  # not always valid: JSON Schema does not require it
        elif key == "examples":
            node[key] = [_literal(draw) for _ in range(draw(st.integers(0, 2)))]
        elif key == "x-note":
            node[key] = {"any": [1, "thing"]}
        else:
            node[key] = draw(st.booleans())
    return node


def _schema(draw: Any, ctx: Draw, depth: int, guarded: bool = True) -> Any:
    """One schema (a subschema of a definition, or a definition)."""
    return _annotated(draw, _bare(draw, ctx, depth, guarded))


def _bare(draw: Any, ctx: Draw, depth: int, guarded: bool = True) -> Any:
    if ctx.formats and draw(st.integers(0, 3)) == 1:
        # a binding asserting formats: a format, with or without `type: string` (it applies to
        # strings alone either way)
        return {"format": draw(st.sampled_from(FORMATS)), **({"type": "string"} if draw(st.booleans()) else {})}
    if depth >= 3:
        choices = ["type", "ref", "bool", "const"]
    else:
        choices = ["type", "type", "type", "ref", "ref", "union", "nullable", "anyOf", "oneOf", "allOf", "not", "if", "enum", "const", "bool", "refsib", "tagged", "extends", "deepref"]
    kind = draw(st.sampled_from(choices))
    if kind == "tagged":
        return _tagged(draw, ctx, depth)
    if kind == "extends":
        # allOf of a definition and an object of more properties, unevaluatedProperties
        # (2020-12) closing what neither declares
        pool = ctx.names if guarded or ctx.loops else ctx.later
        parts = [_ref(ctx, draw(st.sampled_from(pool)), draw)] if pool else []
        parts.append(_typed(draw, ctx, depth + 1, "object"))
        node = {"allOf": parts}
        if ctx.draft != DRAFT07 and draw(st.booleans()):
            node["unevaluatedProperties"] = draw(st.sampled_from([False, {"type": "string"}, True]))
        return node
    if kind == "deepref":
        # a $ref to a place inside a definition (its properties, items, a union's member)
        pool = ctx.names if guarded or ctx.loops else ctx.later
        if not pool:
            return _typed(draw, ctx, depth, draw(st.sampled_from(TYPES)))
        name = draw(st.sampled_from(pool))
        if name == "#":
            return _ref(ctx, name)
        key = "definitions" if ctx.draft == DRAFT07 else "$defs"
        tail = draw(st.sampled_from(["properties/a", "items", "anyOf/0", "additionalProperties"]))
        return {"$ref": f"#/{key}/{_escape(name)}/{tail}"}
    if kind == "type":
        return _typed(draw, ctx, depth, draw(st.sampled_from(TYPES)))
    if kind in ("ref", "refsib"):
        pool = ctx.names if guarded or ctx.loops else ctx.later
        if not pool:
            return _typed(draw, ctx, depth, draw(st.sampled_from(TYPES)))
        if kind == "ref":
            return _ref(ctx, draw(st.sampled_from(pool)), draw)
        # $ref beside other keywords: both apply in 2020-12, siblings ignored in draft-07
        return {**_ref(ctx, draw(st.sampled_from(pool)), draw), **_typed(draw, ctx, depth + 1, draw(st.sampled_from(TYPES)))}
    if kind == "bool":
        return draw(st.booleans())
    if kind == "const":
        return {"const": _literal(draw)}
    if kind == "enum":
        return {"enum": [_literal(draw) for _ in range(draw(st.integers(1, 4)))]}
    if kind == "union":
        kinds = draw(st.lists(st.sampled_from(TYPES), min_size=2, max_size=3, unique=True))
        node = {"type": kinds}
        if "string" in kinds and draw(st.booleans()):
            node["maxLength"] = 2
        if "string" in kinds and ctx.formats and draw(st.booleans()):
            node["format"] = draw(st.sampled_from(FORMATS))
        if "array" in kinds and draw(st.booleans()):
            node["items"] = _schema(draw, ctx, depth + 1)
        if "object" in kinds and draw(st.booleans()):
            node["additionalProperties"] = _schema(draw, ctx, depth + 1)
        return node
    if kind == "nullable":
        pool = ctx.names if guarded or ctx.loops else ctx.later
        inner = _ref(ctx, draw(st.sampled_from(pool)), draw) if pool and draw(st.booleans()) else _typed(draw, ctx, depth + 1, draw(st.sampled_from(TYPES[1:])))
        return {draw(st.sampled_from(["anyOf", "oneOf"])): [inner, {"type": "null"}]}
    if kind in ("anyOf", "oneOf", "allOf"):
        return {kind: [_schema(draw, ctx, depth + 1, guarded) for _ in range(draw(st.integers(1, 3)))]}
    if kind == "not":
        return {"not": _schema(draw, ctx, depth + 1, guarded)}
    node = {"if": _schema(draw, ctx, depth + 1, guarded)}
    for key in draw(st.lists(st.sampled_from(["then", "else"]), max_size=2, unique=True)):
        node[key] = _schema(draw, ctx, depth + 1, guarded)
    return node


def _tagged(draw: Any, ctx: Draw, depth: int) -> dict[str, Any]:
    """A oneOf/anyOf of objects each with a required property of a distinct string const (the
    tag), some properties of their own; sometimes not distinct, sometimes not required."""
    tag = draw(st.sampled_from(["type", "kind", "0", "__proto__"]))
    values = _names(draw, ["a", "b", "A", "é", "", "1"], 1, 3)
    if draw(st.integers(0, 5)) == 0:
        values.append(values[0])  # a tag given twice: no discriminator
    members = []
    for value in values:
        member = _typed(draw, ctx, depth + 1, "object")
        member.setdefault("properties", {})[tag] = {"const": value} if draw(st.integers(0, 3)) else {"type": "string", "enum": [value]}
        if draw(st.integers(0, 5)):
            member["required"] = sorted({*member.get("required", []), tag})
        members.append(member)
    return {draw(st.sampled_from(["oneOf", "anyOf"])): members}


def _recursive(draw: Any, ctx: Draw, name: str) -> dict[str, Any]:
    """A definition reaching itself through a container: the shapes real schemas use for tree-
    and JSON-value-like types."""
    me = _ref(ctx, name, draw)
    shape = draw(st.sampled_from(["array", "map", "union", "tree", "json"]))
    if shape == "array":
        return {"type": "array", "items": me}
    if shape == "map":
        return {"type": "object", "additionalProperties": me}
    if shape == "union":
        return {"anyOf": [{"type": "string"}, {"type": "array", "items": me}]}
    if shape == "tree":
        return {"type": "object", "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": me}}, "required": ["value"]}
    return {"anyOf": [{"type": ["null", "boolean", "number", "string"]}, {"type": "array", "items": me}, {"type": "object", "additionalProperties": me}]}


@st.composite
def schemas(draw: Any, draft: str | None = None) -> dict[str, Any]:
    """A small schema document: 1-4 definitions, some recursive, referring to each other."""
    chosen = draft or draw(st.sampled_from([DRAFT07, DRAFT2020]))
    names = _names(draw, DEFINITION_NAMES, 1, 4)
    ctx = Draw(chosen, names, loops=draw(st.integers(0, 9)) == 0)
    # 1 in 4: anchors and `$id`s on definitions, references through them; 1 in 6: a root schema
    # beside the definitions (`$ref: "#"` its recursion), or `#` named in a document without one
    # (which is then `true`); 1 in 5: the binding asserts formats
    identified, rooted, asserted = draw(st.integers(0, 3)) == 2, draw(st.integers(0, 5)), draw(st.integers(0, 4)) == 2
    ctx.formats = asserted
    if identified:
        _identify(draw, ctx)
    if rooted in (2, 3):
        ctx.names = [*names, "#"]
    defs: dict[str, Any] = {}
    for n, name in enumerate(names):
        ctx.later = names[n + 1 :]
        ctx.here = name
        body = _recursive(draw, ctx, name) if draw(st.integers(0, 4)) == 0 else _schema(draw, ctx, 0, guarded=False)
        defs[name] = _labelled(draw, ctx, name, body)
    document: dict[str, Any] = {"$schema": chosen}
    if ctx.root_id:
        document["$id"] = ROOT_ID
    if asserted:
        document[FORMATS_MARK] = "assert"
    if rooted == 2:
        ctx.here, ctx.later = None, []
        root = _recursive(draw, ctx, "#") if draw(st.booleans()) else _schema(draw, ctx, 0, guarded=False)
        if isinstance(root, dict):
            document.update({k: v for k, v in root.items() if k not in document})
    document["definitions" if chosen == DRAFT07 else "$defs"] = defs
    return document


def _identify(draw: Any, ctx: Draw) -> None:
    """Which definitions have an anchor, which an `$id` (draft-07: one or the other, both spelt
    `$id`), and whether the root has an `$id`; 1 in 12 anchors is no anchor name."""
    for name in ctx.names:
        if draw(st.booleans()):
            ctx.anchors[name] = draw(st.sampled_from(NOT_ANCHORS if draw(st.integers(0, 11)) == 5 else ANCHORS))
        if draw(st.integers(0, 2)) == 0 and (ctx.draft != DRAFT07 or name not in ctx.anchors):
            ctx.ids[name] = draw(st.sampled_from(IDS))
    ctx.root_id = draw(st.booleans())


def _labelled(draw: Any, ctx: Draw, name: str, body: Any) -> Any:
    """A definition with its anchor and `$id` (an anchor of draft-07 in the wrong draft's
    spelling 1 in 10, and of 2020-12 1 in 10 too: both refused)."""
    anchor, ident = ctx.anchors.get(name), ctx.ids.get(name)
    if anchor is None and ident is None or not isinstance(body, dict):
        return body
    labels: dict[str, Any] = {}
    if ident is not None:
        labels["$id"] = ident
    if anchor is not None:
        wrong = draw(st.integers(0, 9)) == 5
        labels["$anchor" if (ctx.draft == DRAFT2020) != wrong else "$id"] = anchor if (ctx.draft == DRAFT2020) != wrong else "#" + anchor
    return {**labels, **body}


# -- documents ------------------------------------------------------------------------------------


def random_json(rnd: random.Random, depth: int = 0) -> Any:
    """A random JSON value, biased to what the drawn schemas name."""
    kind = rnd.randrange(9 if depth < 3 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rnd.random() < 0.5
    if kind == 2:
        return rnd.choice(NUMBERS)
    if kind == 3:
        return rnd.randint(-5, 5)
    if kind in (4, 5):
        if rnd.random() < 0.3:
            return rnd.choice(FORMAT_TEXTS)
        return rnd.choice(["", "a", "b", "ab", "x-y", "foo", "١٢", "12", "é", "a\u00a0", " ", "abc", "2020-01-01", "null", "id", "😀", "a😀", "😀😀", "e\u0301", "A"])
    if kind in (6, 7):
        return {rnd.choice(PROPERTY_NAMES): random_json(rnd, depth + 1) for _ in range(rnd.randrange(4))}
    return [random_json(rnd, depth + 1) for _ in range(rnd.randrange(4))]


def mutate(document: Any, rnd: random.Random) -> Any:
    """A copy of a document changed in one place: a value replaced, a member dropped or added, an
    item duplicated or dropped, a number turned into its float twin."""
    doc = json.loads(json.dumps(document))
    holders: list[Any] = []

    def walk(node: Any) -> None:
        if isinstance(node, (dict, list)):
            holders.append(node)
            for child in node.values() if isinstance(node, dict) else node:
                walk(child)

    walk(doc)
    if not holders or rnd.random() < 0.1:
        return random_json(rnd)
    node = rnd.choice(holders)
    keys: list[Any] = list(node) if isinstance(node, dict) else list(range(len(node)))
    action = rnd.randrange(5)
    if action == 0 and keys:
        node[rnd.choice(keys)] = random_json(rnd, 2)
    elif action == 1 and keys:
        del node[rnd.choice(keys)]
    elif action == 2:
        if isinstance(node, dict):
            node[rnd.choice(PROPERTY_NAMES)] = random_json(rnd, 2)
        else:
            node.insert(rnd.randrange(len(node) + 1), random_json(rnd, 2) if not node or rnd.random() < 0.5 else node[0])
    elif action == 3 and keys:
        key = rnd.choice(keys)
        value = node[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            node[key] = rnd.choice(NUMBERS)
        else:
            node[key] = float(value) if isinstance(value, int) and abs(value) < 2**53 else int(value) if isinstance(value, float) and math.isfinite(value) and value.is_integer() else value + 1
    else:
        return random_json(rnd)
    return doc


# -- the check ------------------------------------------------------------------------------------


@dataclass
class Finding:
    kind: str  # init-crash, init-unlocated, init-generate, generate, reference, typescript, round-trip, docgen-crash
    schema: Any
    detail: str
    definition: str | None = None
    document: Any = None
    package: str | None = None


@dataclass
class Report:
    schemas: int = 0
    refused: int = 0
    documents: int = 0
    accepted: int = 0
    unjudged: int = 0  # documents jsonschema could not judge (NoReference)
    typescript: str = "not run"
    findings: list[Finding] = field(default_factory=list)


# the members of a drawn document that are not its root schema
_NOT_ROOT = ("$schema", "$id", "definitions", "$defs", FORMATS_MARK)


def root_of(schema: dict[str, Any]) -> dict[str, Any]:
    """The root schema's own keywords (none: the document only holds definitions)."""
    return {k: v for k, v in schema.items() if k not in _NOT_ROOT}


def prefixed(schema: dict[str, Any], prefix: str, literal_root: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    """The schema's definitions renamed with a prefix, and its anchors and `$id`s with them (and
    every `$ref` to them), so that the schemas of a batch can share one document; and its root
    schema's keywords. The root stays the batch's root where `literal_root`, else it becomes the
    definition `<prefix>Root` (`{}` for a document that has no root schema: `#` names the
    document, whose definitions assert nothing) and `$ref: "#"` names that."""
    key = "definitions" if "definitions" in schema else "$defs"
    draft07 = schema.get("$schema") == DRAFT07

    def ident(uri: str) -> str:
        if uri in ("", "root.json", ROOT_ID):
            return uri
        return f"urn:sb:{prefix}{uri[7:]}" if uri.startswith("urn:sb:") else prefix + uri

    def ref(text: str, inside: bool) -> str:
        uri, _, fragment = text.partition("#")
        # a pointer into another resource (an `$id`'s) names its own places, which keep their names
        document = uri in ("root.json", ROOT_ID) or not uri and not inside
        if fragment.startswith("/") and not document:
            pass
        elif fragment.startswith(f"/{key}/"):
            fragment = f"/{key}/{prefix}{fragment[len(key) + 2 :]}"
        elif fragment.startswith("/") and not uri and not inside and not literal_root:
            fragment = f"/{key}/{prefix}Root{fragment}"  # a place in the root, now a definition
        elif fragment and not fragment.startswith("/"):
            fragment = prefix + fragment
        elif not uri and not inside and not literal_root:
            return f"#/{key}/{prefix}Root"
        return ident(uri) + ("#" + fragment if fragment or "#" in text else "")

    def walk(node: Any, inside: bool) -> Any:
        if isinstance(node, list):
            return [walk(v, inside) for v in node]
        if not isinstance(node, dict):
            return node
        own = node.get("$id")
        # draft-07 ignores an `$id` beside `$ref`; a `#name` one is an anchor
        resource = isinstance(own, str) and not own.startswith("#") and not (draft07 and "$ref" in node)
        out: dict[str, Any] = {}
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str):
                out[k] = ref(v, inside)
            elif k == "$id" and isinstance(v, str):
                out[k] = "#" + prefix + v[1:] if v.startswith("#") else ident(v)
            elif k == "$anchor" and isinstance(v, str):
                out[k] = prefix + v
            else:
                out[k] = walk(v, inside or resource)
        return out

    defs = {f"{prefix}{name}": walk(body, False) for name, body in schema[key].items()}
    root = walk(root_of(schema), False)
    if not literal_root and (root or '"#"' in json.dumps(schema[key])):
        defs[f"{prefix}Root"] = root
        root = {}
    return defs, root


def _cli() -> Any:
    from conftest import run_cli

    return run_cli


def _binding(name: str, package: str, schema: dict[str, Any]) -> str:
    """The binding.toml init writes: JSON Schema's integer rule, unknown keywords as annotations."""
    from generator.init import unknown_keywords

    annotations = unknown_keywords(schema, False)
    return (
        f'[protocol]\nname = "{name}"\nversion = "1"\nschema = "schema.json"\nintegers = "json-schema"\n'
        + ('formats = "assert"\n' if schema.get(FORMATS_MARK) == "assert" else "")
        + (f"annotations = {json.dumps(annotations)}\n" if annotations else "")
        + "\n"
        f'[python]\npackage = "{package}"\n\n[typescript]\npackage = "{package.replace("_", "-")}-ts"\n'
    )


def _output(result: Any) -> str:
    text = str(result.output)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        text += "".join(traceback.format_exception(result.exception))
    return text


def draw_schemas(count: int, seed: int) -> list[dict[str, Any]]:
    """`count` schemas drawn by hypothesis from a seed (the same on every run)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as seeded

    drawn: list[dict[str, Any]] = []

    @seeded(seed)
    @settings(max_examples=count, phases=[Phase.generate], database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(schemas())
    def collect(schema: dict[str, Any]) -> None:
        drawn.append(schema)

    collect()
    return drawn[:count]


def init_verdict(schema: dict[str, Any], folder: Path, name: str) -> tuple[int, str]:
    """`specbind init` on one schema: (exit code, output), and the findings it makes by itself
    (a crash, a refusal without its file or pointer) left to the caller."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps(schema, ensure_ascii=False), encoding="utf-8")
    result = _cli()("init", str(path), "--name", name, "--spec-dir", str(folder / "spec"))
    return result.exit_code, _output(result)


def generate_verdict(schema: dict[str, Any], folder: Path, name: str) -> tuple[int, str]:
    """`specbind generate` on a spec folder written by hand (as init would) for one schema."""
    spec = folder / "spec-by-hand" / name
    shutil.rmtree(spec, ignore_errors=True)
    spec.mkdir(parents=True)
    (spec / "schema.json").write_text(json.dumps(schema, ensure_ascii=False), encoding="utf-8")
    (spec / "binding.toml").write_text(_binding(name, name, schema), encoding="utf-8")
    result = _cli()("generate", "--spec", str(spec), "--out", str(folder / "out-by-hand"))
    return result.exit_code, _output(result)


# where the reference finds a package's document that names no `$id` (specbind's own base for it)
BASE = "https://specbind.invalid/document.json"


class NoReference(Exception):
    """jsonschema cannot judge: a format the binding asserts has no checker here (rfc3339-validator,
    rfc3986-validator, fqdn not installed)."""


def _reference(package: str, draft: str) -> Callable[[str, Any], bool]:
    """jsonschema's verdict, patterns read by ECMA-262 (the package's translation of them): the
    one reading where the package departs from the Python `re` jsonschema would use. Where the
    binding asserts formats, jsonschema's FormatChecker of the draft for the formats specbind
    asserts; where it has no checker for one the package's schema uses, NoReference."""
    import jsonschema
    from jsonschema import _keywords, validators
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT7, DRAFT202012

    from generator.regex import ecma_to_python

    module = importlib.import_module(package)
    folder = Path(module.__file__).parent  # type: ignore[arg-type]
    schema = json.loads((folder / "schema.json").read_text(encoding="utf-8"))
    where = folder / "tests" / "reference.json"
    # without the map, every definition is where 2020-12 keeps it
    pointers = json.loads(where.read_text(encoding="utf-8"))["pointers"] if where.is_file() else {}
    base = jsonschema.Draft7Validator if draft == DRAFT07 else jsonschema.Draft202012Validator

    def pattern(validator: Any, patrn: str, instance: Any, schema: Any) -> Any:
        return _keywords.pattern(validator, ecma_to_python(patrn), instance, schema)

    def pattern_properties(validator: Any, props: dict[str, Any], instance: Any, schema: Any) -> Any:
        return _keywords.patternProperties(validator, {ecma_to_python(k): v for k, v in props.items()}, instance, schema)

    def multiple_of(validator: Any, by: int | float, instance: Any, schema: Any) -> Any:
        # the package's reading (vocabulary.multiple): exact on the decimal values written, where
        # jsonschema divides floats (0.3 is a multiple of 0.1; 2**53 is none of 1.5)
        if validator.is_type(instance, "number") and not _multiple(instance, by):
            yield jsonschema.ValidationError(f"{instance!r} is not a multiple of {by!r}")

    cls = validators.extend(base, {"pattern": pattern, "patternProperties": pattern_properties, "multipleOf": multiple_of})
    resource: Any = Resource(contents=schema, specification=DRAFT7 if draft == DRAFT07 else DRAFT202012)
    # the document where its `$id` says (relative `$id`s and references resolve against it)
    uri = schema["$id"] if isinstance(schema.get("$id"), str) else BASE
    registry: Any = Registry().with_resource(uri, resource)
    checker = None
    unchecked: list[str] = []
    if schema.get(FORMATS_MARK) == "assert":
        checker = jsonschema.FormatChecker([f for f in ASSERTED_FORMATS if f in base.FORMAT_CHECKER.checkers])
        checker.checkers = {f: base.FORMAT_CHECKER.checkers[f] for f in checker.checkers}
        text = json.dumps(schema)
        unchecked = [f for f in ASSERTED_FORMATS if f not in checker.checkers and f'"format": "{f}"' in text]
    cache: dict[str, Any] = {}

    def verdict(definition: str, document: Any) -> bool:
        if unchecked:
            raise NoReference(f"no checker for {unchecked}")
        if definition not in cache:
            cache[definition] = cls({"$ref": uri + pointers.get(definition, "#/$defs/" + _escape(definition))}, registry=registry, format_checker=checker)
        return bool(cache[definition].is_valid(document))

    return verdict


def _multiple(value: int | float, by: int | float) -> bool:
    exact = [Fraction(repr(v)) if isinstance(v, float) else Fraction(v) for v in (value, by)]
    return (exact[0] / exact[1]).denominator == 1


def _documents(strategies: Any, definition: str, seeds: int, rnd: random.Random, report: Report, schema: Any) -> list[Any]:
    out: list[Any] = []
    for seed in range(seeds):
        for make in (strategies.document, strategies.mutant):
            try:
                out.append(make(definition, seed=seed))
            except strategies.GenerationError:
                pass  # a best-effort general node: documented, not a disagreement
            except Exception:  # noqa: BLE001 - a crash of the package's own strategies is a finding
                report.findings.append(Finding("docgen-crash", schema, traceback.format_exc()[-2000:], definition))
                return out
    valid = list(out)
    for _ in range(seeds):
        out.append(random_json(rnd))
        if valid:
            out.append(mutate(rnd.choice(valid), rnd))
    return out


def check_batch(drawn: list[dict[str, Any]], folder: Path, tag: str, seeds: int = 4, typescript: bool = True, rnd_seed: int = 0, extra: list[tuple[int, str, Any]] = ()) -> Report:  # type: ignore[assignment]
    """Every check above on a batch of drawn schemas; `tag` names the batch's package (unique per
    process: packages are imported); `extra`: more documents, (schema's index, its definition,
    document)."""
    report = Report(schemas=len(drawn))
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    rnd = random.Random(rnd_seed)
    accepted: list[tuple[int, dict[str, Any]]] = []
    for i, schema in enumerate(drawn):
        code, text = init_verdict(schema, folder / "init", f"{tag}_s{i}")
        if code == 0:
            accepted.append((i, schema))
            continue
        report.refused += 1
        if code != 2 or "Traceback" in text:
            report.findings.append(Finding("init-crash", schema, f"exit {code}: {text[-3000:]}"))
            continue
        if f"{tag}_s{i}.json" not in text:
            report.findings.append(Finding("init-unlocated", schema, text[-2000:]))
        gcode, gtext = generate_verdict(schema, folder, f"{tag}_g{i}")
        if gcode == 0:
            report.findings.append(Finding("init-generate", schema, f"init refused (exit 2) but generate succeeded:\n{text[-2000:]}"))
        elif gcode != 2 or "Traceback" in gtext:
            report.findings.append(Finding("generate-crash", schema, f"exit {gcode}: {gtext[-3000:]}"))
    if not accepted:
        return report
    # one package per draft and formats reading (the binding's)
    by_draft: dict[tuple[str, bool], list[tuple[int, dict[str, Any]]]] = {}
    for i, schema in accepted:
        by_draft.setdefault((schema["$schema"], schema.get(FORMATS_MARK) == "assert"), []).append((i, schema))
    for n, ((draft, formats), members) in enumerate(sorted(by_draft.items())):
        mine = [(f"s{i}_{definition}" if definition != ROOT else _root_name(i, members), document) for i, definition, document in extra if any(i == j for j, _ in members)]
        _check_draft(draft, formats, members, folder / f"d{n}", f"{tag}_d{n}", seeds, typescript, rnd, report, mine)
    return report


ROOT = "Root"  # init's name of a root schema (`[protocol].root_name`)


def _literal_root(members: list[tuple[int, dict[str, Any]]]) -> int | None:
    """The one schema of a package whose root schema stays the package document's root."""
    return next((i for i, schema in members if root_of(schema)), None)


def _root_name(i: int, members: list[tuple[int, dict[str, Any]]]) -> str:
    return ROOT if _literal_root(members) == i else f"s{i}_{ROOT}"


def _check_draft(draft: str, formats: bool, members: list[tuple[int, dict[str, Any]]], folder: Path, package: str, seeds: int, typescript: bool, rnd: random.Random, report: Report, extra: list[tuple[str, Any]]) -> None:
    key = "definitions" if draft == DRAFT07 else "$defs"
    defs: dict[str, Any] = {}
    owner: dict[str, dict[str, Any]] = {}
    document: dict[str, Any] = {"$schema": draft}
    literal = _literal_root(members)
    for i, schema in members:
        if "$id" in schema:
            document["$id"] = schema["$id"]  # every drawn root `$id` is ROOT_ID
        mine, root = prefixed(schema, f"s{i}_", literal_root=i == literal)
        if i == literal:
            document.update(root)
            owner[ROOT] = schema
        for name, body in mine.items():
            defs[name] = body
            owner[name] = schema
    if formats:
        document[FORMATS_MARK] = "assert"
    document[key] = defs
    spec = folder / "spec"
    shutil.rmtree(folder, ignore_errors=True)
    spec.mkdir(parents=True)
    (spec / "schema.json").write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    (spec / "binding.toml").write_text(_binding(package, package, document), encoding="utf-8")
    result = _cli()("generate", "--spec", str(spec), "--out", str(folder / "out"))
    if result.exit_code != 0:
        text = _output(result)
        # which schema: each alone (init accepted every one of them)
        for i, schema in members:
            gcode, gtext = generate_verdict(schema, folder, f"{package}_alone{i}")
            if gcode != 0:
                report.findings.append(Finding("init-generate" if gcode == 2 else "generate-crash", schema, f"init accepted, generate exit {gcode}: {gtext[-3000:]}"))
                return
        report.findings.append(Finding("generate", {"batch": [s for _, s in members]}, f"the batch failed, each alone generated: {text[-3000:]}"))
        return
    out = folder / "out"
    sys.path.insert(0, str(out))
    try:
        module = importlib.import_module(package)
        strategies = importlib.import_module(f"{package}.strategies")
        codec = importlib.import_module(f"{package}.codec_json")
        validation = importlib.import_module(f"{package}.validation")
    except Exception:  # noqa: BLE001 - a generated package that does not import
        text = traceback.format_exc()[-3000:]
        for i, schema in members:  # which schema: each alone
            alone = f"{package}_alone{i}"
            if generate_verdict(schema, folder, alone)[0] == 0 and _imports(folder / "out-by-hand", alone):
                continue
            report.findings.append(Finding("import", schema, text))
            return
        report.findings.append(Finding("import", {"batch": [s for _, s in members]}, text))
        return
    reference = _reference(package, draft)
    docs: list[tuple[str, str, Any]] = []
    for definition in strategies.definitions():
        schema = owner.get(definition)
        if schema is None:
            continue
        for k, document in enumerate(_documents(strategies, definition, seeds, rnd, report, schema)):
            docs.append((f"{definition}:{k}", definition, document))
    docs += [(f"extra:{k}", definition, document) for k, (definition, document) in enumerate(extra)]
    crashed: set[str] = set()
    for name, definition, document in docs:
        report.documents += 1
        data = json.dumps(document, ensure_ascii=False).encode("utf-8")
        schema = owner[definition]
        try:
            value = codec.decode(data, definition)
            mine = True
        except module.DecodeError as exc:
            mine = False
            refusal = exc
        except Exception:  # noqa: BLE001
            report.findings.append(Finding("decode-crash", schema, traceback.format_exc()[-2000:], definition, document))
            crashed.add(name)
            continue
        try:
            theirs = reference(definition, document)
        except RecursionError:
            continue  # jsonschema's own limit on a deep recursive document: no reference verdict
        except NoReference:
            report.unjudged += 1
            continue
        except Unresolvable as exc:
            # init accepted a reference jsonschema cannot follow: the two read the schema apart
            report.findings.append(Finding("unresolvable", schema, f"jsonschema: {exc!r}", definition, document, package))
            continue
        if mine != theirs:
            said = "" if mine else "; ".join(f"{e.pointer} {e.keyword}: {e.message}" for e in refusal.errors[:4])
            report.findings.append(Finding("reference", schema, f"python {'accepts' if mine else 'refuses'}, jsonschema {'accepts' if theirs else 'refuses'} {said}", definition, document, package))
            continue
        if not mine:
            places = _places(document)
            bad = [e for e in refusal.errors if e.pointer not in places]
            if bad or not refusal.errors:
                report.findings.append(Finding("pointer", schema, f"errors at no place of the document: {[e.as_dict() for e in bad] or 'none'}", definition, document))
            # each error is under a keyword the schema uses (a boolean schema `false` apart)
            unnamed = [e for e in refusal.errors if e.keyword not in keywords(schema) | {"false"}]
            if unnamed:
                report.findings.append(Finding("keyword", schema, f"errors under keywords the schema does not use: {[e.as_dict() for e in unnamed]}", definition, document))
            continue
        report.accepted += 1
        problem = _round_trip(codec, validation, definition, data, value, document)
        if problem:
            report.findings.append(Finding("round-trip", schema, problem, definition, document))
    if typescript:
        # a document Python crashed on is a finding already, and would crash the comparison
        said = _typescript(package, out, folder, [d for d in docs if d[0] not in crashed], owner, report)
        report.typescript = said if report.typescript == "not run" else f"{report.typescript}; {said}"


def _imports(out: Path, package: str) -> bool:
    import subprocess

    done = subprocess.run([sys.executable, "-c", f"import {package}.codec_json, {package}.strategies"], cwd=out, capture_output=True)
    return done.returncode == 0


def keywords(schema: Any) -> set[str]:
    """Every key of every object in a schema (enough to say which keywords it uses)."""
    if isinstance(schema, dict):
        return set(schema).union(*(keywords(v) for v in schema.values()))
    if isinstance(schema, list):
        return set().union(*(keywords(v) for v in schema))
    return set()


def _places(document: Any, at: str = "") -> set[str]:
    """Every JSON Pointer of a document (where an error may point)."""
    found = {at}
    if isinstance(document, dict):
        for key, value in document.items():
            found |= _places(value, f"{at}/{_escape(key)}")
    elif isinstance(document, list):
        for n, value in enumerate(document):
            found |= _places(value, f"{at}/{n}")
    return found


def _round_trip(codec: Any, validation: Any, definition: str, data: bytes, value: Any, document: Any) -> str:
    """What the package promises of a valid document (its generated property tests): encoding
    gives the document back, decoding that gives the value again, lenient decoding warns of
    nothing and gives the same value."""
    try:
        encoded = codec.encode(value, definition)
        if not validation.json_equal(json.loads(encoded), document):
            return f"encode gives {encoded!r}"
        again = codec.decode(encoded, definition)
        if not validation.json_equal(codec.to_builtins(again), codec.to_builtins(value)):
            return f"decoding the encoding gives {codec.to_builtins(again)!r}"
        lenient = codec.decode_lenient(data, definition)
        if lenient.warnings or lenient.dropped or not validation.json_equal(codec.to_builtins(lenient.value), codec.to_builtins(value)):
            return f"lenient decode: {lenient.warnings} dropped={lenient.dropped}"
    except Exception:  # noqa: BLE001
        return traceback.format_exc()[-2000:]
    return ""


def _typescript(package: str, out: Path, folder: Path, docs: list[tuple[str, str, Any]], owner: dict[str, Any], report: Report) -> str:
    import typescript_agreement as agree
    from generator.targets.typescript import node as ts_node

    reason = ts_node.missing()
    if reason is not None:
        return f"SKIPPED: {reason}"
    spec = package.replace("_", "-")
    agree.register(spec, out, package, f"{spec}-ts")
    extra = [(name, definition, json.dumps(document, ensure_ascii=False)) for name, definition, document in docs]
    by_name = {name: (definition, document) for name, definition, document in docs}
    try:
        agree.built(spec)
    except RuntimeError as exc:  # tsc refused the package
        report.findings.append(Finding("typescript-build", {"batch": sorted({json.dumps(s) for s in owner.values()})}, str(exc)[-3000:]))
        return "tsc refused the package"
    try:
        result = agree.compare_documents(spec, folder, extra, base=False)
    except AssertionError:  # the Node process failed: the first document it fails on
        while len(extra) > 1:
            half = extra[: len(extra) // 2]
            try:
                agree.compare_documents(spec, folder, half, base=False)
            except AssertionError as again:
                extra, exc = half, again
            else:
                extra = extra[len(half) :]
        definition, document = by_name[extra[0][0]]
        report.findings.append(Finding("typescript-crash", owner[definition], str(exc)[-2000:], definition, document))
        return "the Node process failed"
    for difference in result["differences"]:
        definition, document = by_name[difference["document"]]
        report.findings.append(Finding("typescript", owner[definition], json.dumps({k: difference[k] for k in ("mode", "python", "typescript")}, ensure_ascii=False)[:3000], definition, document))
    return f"{result['documents']} documents compared"
