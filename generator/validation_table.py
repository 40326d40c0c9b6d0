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
            return {"kind": "null", "loc": t.loc} | ({} if t.keyword == "type" else {"keyword": t.keyword})
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
            n = {"kind": "enum", "loc": t.loc, "values": list(t.values)}
            if t.keyword != "enum":
                n["keyword"] = t.keyword
            if not t.typed:
                n["untyped"] = True
            return n
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
    additionalProperties is not the object's closedness (`false`, or absent or `true`: open), and where the rest needs the
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
        if extra is not None and extra.get("bool") is not False and set(extra) - {"kind", "loc"}:
            continue  # a schema for the undeclared members: the rest would drop what it asserts
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
    return list(nodes_by_location(list(table.values()), inner=False).values())


def nodes_by_location(roots: list[Any], inner: bool) -> dict[str, dict[str, Any]]:
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
