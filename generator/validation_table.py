"""The IR as the table a generic validator interprets: one node per definition, each a dict with
a `kind` and what that kind checks, every node carrying `loc` (its schema pointer) so errors name
the keyword that failed. Patterns are ECMA-262, as the schema wrote them: a target translates
them to its own regex dialect. The format is documented in docs/targets.md."""

from __future__ import annotations

import dataclasses
from typing import Any

from .ir import model as M


def validation_table(ir: M.IR) -> dict[str, Any]:
    return _Table(ir).build()


class _Table:
    def __init__(self, ir: M.IR) -> None:
        self.ir = ir

    def build(self) -> dict[str, Any]:
        return {name: self.definition(d) for name, d in self.ir.defs.items()}

    def definition(self, d: M.Definition) -> dict[str, Any]:
        if isinstance(d, M.ObjectDef) and d.checks is not None:
            return dict(d.checks)
        if isinstance(d, M.ObjectDef):
            return {
                "kind": "object",
                "loc": d.loc,
                "closed": d.closed_loc,
                "fields": {
                    f.wire: {"type": self.node(f.type), "required": f.required_loc if f.required else None}
                    for f in d.fields
                },
            }
        if isinstance(d, M.UnionDef):
            return self.node(d.union)
        if isinstance(d, M.EnumDef):
            return {"kind": "enum", "loc": d.loc, "values": list(d.values)}
        return self.node(d.type)

    def node(self, t: M.TypeExpr) -> dict[str, Any]:
        if isinstance(t, M.TSchema):
            return dict(t.node)
        if isinstance(t, M.TRef):
            return {"kind": "ref", "name": t.name}
        if isinstance(t, M.TString):
            n: dict[str, Any] = {"kind": "string", "loc": t.loc}
            if t.pattern is not None:
                n["pattern"] = t.pattern
            if t.min_length:
                n["min_length"] = t.min_length
            if t.max_length is not None:
                n["max_length"] = t.max_length
            return n
        if isinstance(t, M.TNull):
            return {"kind": "null", "loc": t.loc}
        if isinstance(t, (M.TInteger, M.TNumber)):
            n = {"kind": "integer" if isinstance(t, M.TInteger) else "number", "loc": t.loc}
            for key, bound in (
                ("minimum", t.minimum),
                ("maximum", t.maximum),
                ("exclusive_minimum", t.exclusive_minimum),
                ("exclusive_maximum", t.exclusive_maximum),
            ):
                if bound is not None:
                    n[key] = bound
            return n
        if isinstance(t, M.TBoolean):
            return {"kind": "boolean", "loc": t.loc}
        if isinstance(t, M.TConst):
            return {"kind": "const", "loc": t.loc, "value": t.value}
        if isinstance(t, M.TEnum):
            return {"kind": "enum", "loc": t.loc, "values": list(t.values)}
        if isinstance(t, M.TAny):
            return {"kind": "any", "loc": t.loc, "nonnull": t.nonnull}
        if isinstance(t, M.TMap):
            n = {"kind": "map", "loc": t.loc, "values": None if t.values is None else self.node(t.values)}
            if t.keys is not None:
                n["keys"] = self.node(t.keys)
            return n
        if isinstance(t, M.TArray):
            return {"kind": "array", "loc": t.loc, "items": self.node(t.items), "min_items": t.min_items}
        if isinstance(t, M.TUnion):
            if t.discriminator:
                return {"kind": "tagged", "loc": t.loc, "keyword": t.keyword, "field": t.discriminator, "tags": dict(t.tags)}
            return {
                "kind": "union",
                "loc": t.loc,
                "keyword": t.keyword,
                "members": [[sorted(M.json_types(m, self.ir.defs.__getitem__)), self.node(m)] for m in t.members],
            }
        raise AssertionError(t)


def uses_general(table: dict[str, Any]) -> bool:
    """Whether any node of a table is of the `schema` kind (the general validator's)."""

    def walk(node: Any) -> bool:
        if isinstance(node, dict):
            return node.get("kind") == "schema" or any(walk(v) for v in node.values())
        if isinstance(node, list):
            return any(walk(v) for v in node)
        return False

    return walk(table)


def typed_objects(ir: M.IR, table: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The objects whose table node is their schema as a whole (`checks`: it asserts more than
    their fields) that a typed read can still read field by field: `{definition: object node}`,
    the node the table gives an object without `checks` (its fields' types are exact but where a
    `schema` node stands), with `rest`: the schema beside its properties, a `schema` node checked
    on the object read (its `properties` are the fields; `additionalProperties` the object's
    closedness). Left out where the schema's properties are not the fields, where its
    additionalProperties is not the object's closedness, and where the rest needs the
    annotations of the properties (`unevaluatedProperties`)."""
    found: dict[str, dict[str, Any]] = {}
    maker = _Table(ir)
    for name, d in ir.defs.items():
        if not isinstance(d, M.ObjectDef) or d.checks is None or d.checks.get("kind") != "schema":
            continue
        node = d.checks
        extra = node.get("additional_properties")
        if set(node.get("properties") or {}) != {f.wire for f in d.fields} or d.closed != (extra is not None and extra.get("bool") is False):
            continue
        if "unevaluated_properties" in node or "ref" in node or "types" in node and "object" not in node["types"]:
            continue
        rest = {k: v for k, v in node.items() if k not in ("properties", "additional_properties")}
        if d.closed != (d.closed_loc is not None):
            continue
        typed = maker.definition(dataclasses.replace(d, checks=None))
        found[name] = {**typed, "rest": {**rest, "loc": f"#{name}"}}
    return found


def general_nodes(table: dict[str, Any]) -> list[dict[str, Any]]:
    """The `schema` nodes of a table that are not inside another one, in table order, one per
    schema location: what a typed read of the rest leaves to the general validator (its residue).
    A location two different nodes share is left out (a reader keyed by location cannot tell
    them apart: the definitions meeting it keep the whole check)."""
    return list(_by_location(list(table.values()), inner=False).values())


def _by_location(roots: list[Any], inner: bool) -> dict[str, dict[str, Any]]:
    """The `schema` nodes under `roots` by location (`inner`: those inside another one too), a
    location two different nodes share left out."""
    by_loc: dict[str, dict[str, Any] | None] = {}

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for v in node:
                walk(v)
        elif isinstance(node, dict):
            if node.get("kind") == "schema":
                loc = node.get("loc")
                if isinstance(loc, str):
                    by_loc[loc] = node if by_loc.get(loc, node) == node else None
                if not inner:
                    return
            for v in node.values():
                walk(v)

    walk(roots)
    return {loc: node for loc, node in by_loc.items() if node is not None}


def needs_vocabulary(ir: M.IR, table: dict[str, Any]) -> bool:
    """Whether a binding needs the general validator (every target's `vocabulary` runtime): a
    `schema` node, JSON Schema's integer rule, or asserted formats."""
    return uses_general(table) or ir.integers != "exact" or bool(ir.formats)


_PATTERNED = ("string", "schema", "pattern")


def map_patterns(node: Any, translate: Any) -> Any:
    """A copy of a table (or node) with every string pattern translated by `translate`; the
    schema's own spelling is kept as `source` where it differs, for messages to quote."""
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for k, v in node.items():
            if k == "pattern" and node.get("kind") in _PATTERNED and isinstance(v, str):
                out["pattern"] = translate(v)
                if out["pattern"] != v:
                    out["source"] = v
            else:
                out[k] = map_patterns(v, translate)
        return out
    if isinstance(node, list):
        return [map_patterns(v, translate) for v in node]
    return node


# -- the typed read of `schema` nodes (read.ts) ----------------------------------------------------

_ALL_TYPES = ("array", "boolean", "null", "number", "object", "string")  # "number" holds "integer"
_META = {"kind", "loc", "items_keyword", "prefix_keyword", "dependencies_keyword", "source"}
_BY_TYPE = {
    "string": {"min_length", "max_length", "pattern"},
    "number": {"minimum", "maximum", "exclusive_minimum", "exclusive_maximum"},
    "integer": {"minimum", "maximum", "exclusive_minimum", "exclusive_maximum"},
    "array": {"items", "min_items", "max_items", "unique_items"},
    "object": {"properties", "required", "additional_properties", "property_names"},
    "boolean": set(),
    "null": set(),
}
_SCALAR = (str, int, bool, type(None))


def json_type_of(value: Any) -> str:
    """The JSON type of a JSON value ("integer" for an int, "number" for a float)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _json_type(value: Any) -> str | None:
    """The JSON type of a scalar as the typed nodes name it (None: a float or a container)."""
    t = json_type_of(value)
    return None if t in ("number", "array", "object") else t


def _overlap(a: set[str], b: set[str]) -> bool:
    """Whether a value may have a type of both sets ("number" holds "integer")."""
    return bool(_wide(a) & _wide(b))


def _wide(types: set[str]) -> set[str]:
    return types | {"integer"} if "number" in types else types


class _Typed:
    """The `schema` nodes of a table as typed nodes (`typed_schemas`)."""

    def __init__(self, table: dict[str, Any], objects: dict[str, dict[str, Any]]) -> None:
        self.table = table
        self.objects = objects
        self.done: dict[int, dict[str, Any] | None] = {}

    def child(self, node: dict[str, Any]) -> dict[str, Any]:
        """A subschema as a typed node holds it: a `schema` node by its location alone (the read
        looks it up: its typed node, else its residue), any other node as it is."""
        return {"kind": "schema", "loc": node["loc"]} if node.get("kind") == "schema" else node

    def definition(self, name: str) -> dict[str, Any] | None:
        return self.objects.get(name) or self.table.get(name)

    def types(self, node: dict[str, Any] | None, seen: frozenset[str] = frozenset()) -> set[str]:
        """The JSON types a node admits, or more ("integer" apart only where "number" is not)."""
        every = set(_ALL_TYPES) | {"integer"}
        if node is None:
            return every
        kind = node.get("kind")
        if kind == "ref":
            name = node["name"]
            return every if name in seen else self.types(self.definition(name), seen | {name})
        if kind in ("object", "map", "tagged"):
            return {"object"}
        if kind == "array":
            return {"array"}
        if kind in ("string", "enum"):
            return {"string"}
        if kind in ("integer", "number", "boolean", "null"):
            return {kind}
        if kind == "const":
            t = _json_type(node["value"])
            return every if t is None else {t}
        if kind == "any":
            return every - {"null"} if node.get("nonnull") else every
        if kind == "union":
            return set().union(*(set(kinds) for kinds, _ in node["members"]))
        if kind != "schema":
            return every
        if node.get("bool") is False:
            return set()
        found = every
        if "types" in node:
            found = set(node["types"]) | ({"integer"} if "number" in node["types"] else set())
        if "ref" in node and node["ref"] not in seen:
            found &= self.types(self.definition(node["ref"]), seen | {node["ref"]})
        for key in ("const", "enum"):
            if key in node:
                values = node[key]
                kinds = {_json_type(v) for v in values}
                if None not in kinds:
                    found &= {k for k in kinds if k is not None} | ({"number"} if "integer" in kinds else set())
        for key in ("any_of", "one_of"):
            if key in node:
                found &= set().union(*(self.types(m, seen) for m in node[key]))
        for m in node.get("all_of", []):
            found &= self.types(m, seen)
        return found

    def translate(self, node: dict[str, Any]) -> dict[str, Any] | None:
        key = id(node)
        if key not in self.done:
            self.done[key] = None  # a node met again inside itself: none
            self.done[key] = self._translate(node)
        return self.done[key]

    def _translate(self, node: dict[str, Any]) -> dict[str, Any] | None:
        keys = set(node) - _META
        loc = node["loc"]
        if not keys:
            return {"kind": "any", "loc": loc, "nonnull": False}
        if keys == {"bool"}:
            return {"kind": "any", "loc": loc, "nonnull": False} if node["bool"] else None
        if keys == {"ref"}:
            return {"kind": "ref", "name": node["ref"]}
        if keys in ({"any_of"}, {"one_of"}):
            return self.union(node, keys.pop())
        if keys & {"const", "enum"}:
            return self.constant(node, keys)
        types = sorted(node.get("types", _ALL_TYPES))
        if "number" in types and "integer" in types:
            types.remove("integer")
        if keys - {"types"} - set().union(*(_BY_TYPE[t] for t in types)):
            return None  # a keyword the typed nodes do not state (or of a type not admitted)
        members: list[tuple[list[str], dict[str, Any]]] = []
        for t in types:
            typed = self.of_type(node, t)
            if typed is None:
                return None
            members.append(([t], typed))
        if len(members) == 1:
            return members[0][1]
        return {"kind": "union", "loc": loc, "keyword": "type", "members": [list(m) for m in members]}

    def constant(self, node: dict[str, Any], keys: set[str]) -> dict[str, Any] | None:
        if keys - {"const", "enum", "types"} or len(keys & {"const", "enum"}) != 1:
            return None
        values = node.get("enum", node.get("const"))
        if not values or not all(isinstance(v, _SCALAR) and not (isinstance(v, int) and abs(v) > 2**53 - 1) for v in values):
            return None
        admitted = set(node.get("types", _ALL_TYPES))
        kinds = {_json_type(v) for v in values}
        if not all(k in admitted or k == "integer" and "number" in admitted for k in kinds):
            return None
        if len(values) == 1:
            return {"kind": "const", "loc": node["loc"], "value": values[0]}
        if kinds == {"string"}:
            return {"kind": "enum", "loc": node["loc"], "values": list(values)}
        return None

    def of_type(self, node: dict[str, Any], t: str) -> dict[str, Any] | None:
        loc = node["loc"]
        if t in ("boolean", "null"):
            return {"kind": t, "loc": loc}
        if t in ("string", "integer", "number"):
            return {"kind": t, "loc": loc, **{k: node[k] for k in _BY_TYPE[t] if k in node}}
        if t == "array":
            items = node.get("items")
            typed: dict[str, Any] = {"kind": "array", "loc": loc, "items": {"kind": "any", "loc": loc, "nonnull": False} if items is None else self.child(items), "min_items": node.get("min_items")}
            if node.get("max_items") is not None:
                typed["max_items"] = node["max_items"]
            if node.get("unique_items"):
                if items is None or self.types(items) != {"string"}:
                    return None  # unique strings only: a Set tells them apart as the rule does
                typed["unique_strings"] = True
            return typed
        properties: dict[str, Any] = node.get("properties") or {}
        required: list[str] = node.get("required") or []
        extra = node.get("additional_properties")
        names = node.get("property_names")
        closed = None
        if extra is not None and extra.get("kind") == "schema" and set(extra) - _META == {"bool"}:
            closed = extra["loc"] if extra["bool"] is False else None
            extra = None
        if names is not None or (extra is not None and not properties and not required):
            if properties or required or closed is not None:
                return None
            typed = {"kind": "map", "loc": loc, "values": None if extra is None else self.child(extra)}
            if names is not None:
                typed["keys"] = self.child(names)
            return typed
        if closed is not None and set(required) - set(properties):
            return None  # nothing is valid: a required name no member may have
        fields = {w: {"type": self.child(s), "required": f"{loc}/required" if w in required else None} for w, s in properties.items()}
        for w in required:
            rest = {"kind": "any", "loc": loc, "nonnull": False} if extra is None else self.child(extra)
            fields.setdefault(w, {"type": rest, "required": f"{loc}/required"})
        typed = {"kind": "object", "loc": loc, "closed": closed, "fields": fields}
        if extra is not None:
            typed["extra"] = self.child(extra)
        return typed

    def union(self, node: dict[str, Any], keyword: str) -> dict[str, Any] | None:
        members = [(self.types(m), self.child(m)) for m in node[keyword]]
        members = [m for m in members if m[0]]  # nothing is valid: never the one
        disjoint = all(not _overlap(a[0], b[0]) for i, a in enumerate(members) for b in members[i + 1 :])
        kw = "anyOf" if keyword == "any_of" else "oneOf"
        if disjoint:
            return {"kind": "union", "loc": node["loc"], "keyword": kw, "members": [[sorted(t), c] for t, c in members]}
        # members a JSON type does not tell apart (objects of several shapes): measured slower read
        # one by one than read whole and checked (bench/README.md), so such a union keeps its check
        return None


def schema_nodes(table: dict[str, Any], objects: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every `schema` node of a table and of its typed objects' fields, inner ones too, by
    location; a location two different nodes share is left out."""
    fields = [{k: v for k, v in node.items() if k != "rest"} for node in objects.values()]
    return _by_location([*table.values(), *fields], inner=True)


def typed_schemas(table: dict[str, Any], objects: dict[str, dict[str, Any]]) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """What the typed read reads a `schema` node as, where the typed nodes state exactly what it
    checks: `{location: typed node}` (a subschema in it is `{"kind": "schema", "loc"}`, read
    as its own location says), and the `schema` nodes such nodes (and the typed objects' fields)
    hold that are not read typed (their residue: each checked by its compiled function on the
    plain value read).

    A node of `types` with keywords of those types alone (string lengths and pattern, number
    bounds, `items` with `minItems`/`maxItems`, `uniqueItems` of strings, `properties` with
    `required` and `additionalProperties`, or `additionalProperties` with `propertyNames`: a
    map) is the typed node of each type, a union by JSON type where it admits several; a
    `const` or `enum` of scalars a `const` or string `enum`; a bare `$ref` a reference; an
    `anyOf`/`oneOf` alone a union by JSON type where no two members admit a type in common."""
    maker = _Typed(table, objects)
    nodes = schema_nodes(table, objects)
    translated = {loc: t for loc, node in nodes.items() if (t := maker.translate(node)) is not None}
    # only what a typed read meets: from every definition's node (a typed object's fields, not
    # its `rest`), through the nodes read typed; a `schema` node it meets otherwise is residue
    typed: dict[str, dict[str, Any]] = {}
    held: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for v in node:
                walk(v)
        elif isinstance(node, dict):
            if node.get("kind") == "schema":
                loc = node["loc"]
                if loc in translated:
                    if loc not in typed:
                        typed[loc] = translated[loc]
                        walk(typed[loc])
                else:
                    held.add(loc)
                return
            for k, v in node.items():
                if k != "rest":
                    walk(v)

    walk([objects.get(name, node) for name, node in table.items()])
    return typed, [nodes[loc] for loc in sorted(held) if loc not in typed and loc in nodes]
