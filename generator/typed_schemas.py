"""The typed read of `schema` nodes (the TypeScript binding's read.ts): where the typed nodes of
the validation table state exactly what a `schema` node checks, that node read as them, the rest
left to its compiled check (the residue). Decisions only: docs/targets.md, "The typed read and
its residue", says how a target reads what this decides."""

from __future__ import annotations

from typing import Any

from .validation_table import json_type_of, nodes_by_location

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
    return nodes_by_location([*table.values(), *fields], inner=True)


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
