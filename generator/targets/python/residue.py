"""The residue of a compiled definition: what msgspec's typed read of its model does not check.

A definition in `codec_json._SLOW` (a `TSchema` or an object's `checks` is reachable from it) was
read as plain JSON, checked whole by the compiled validator, then converted to its typed model.
Its model is exact everywhere but there (the invariant every fast path relies on: closed
objects, required fields, enums, consts, bounds and lengths, unions told apart by JSON type, maps
and arrays of typed values are msgspec's to check), so the typed read can check all of that and
build the value at once; what is left is a few checks on the value it built:

- a `TSchema` (the model holds it loosely: plain JSON, or an array of exactly typed scalars that
  is inexact only for its `uniqueItems`): its node's compiled function, on the value held;
- an object's `checks` (the schema beside its fields: `anyOf` of `required` lists...): what it
  asserts beyond its properties, as a formula over which fields are present, when it asserts
  nothing else (`presence`); properties whose fields are exact are the typed read's;
- a reference to another definition with a residue: that residue, on the value held.

A definition is given a residue only where every part of it is one of these (else None: the
plain read and the whole compiled check stay its path). The residue is sound by construction,
never complete: where it or the typed read refuses, the codec takes the old path, which decides
and explains (same errors as before). Values: the typed read builds what `convert` built from the
plain read (under JSON Schema's integer rule an integral float read where any JSON may be is made
an integer by the same hook); a position typed `int | float` would read `1.0` as a float where the
plain read made it 1, so under that rule the residue stores such a number back as the integer.

The plan (printed by templates/python/accept.py.j2 as `RESIDUE`):

    {"functions": [{"name", "definition", "body": [op...]}], "entry": {definition: function}}

ops: `check` (`var`, `fn`: a compiled validator's function, filled in once the accept plan has
compiled `node`), `residue` (`var`, `fn`), `attr` (`var`, `attr`, `item`, `optional`, `body`:
the field's value, when present), `each` (`var`, `item`, `index` or None, `body`: every item of
a list), `values` (`key`, `item`: every member of a dict), `integral` (`var`, `of` and `attr`,
`index` or `key`: under JSON Schema's integer rule, an integral float stored back as the integer
where it was read from, as the plain read's hook makes it), `when` (`var`, `tests`, `body`: a union member told apart by
its Python type), `presence` (`var`, `formula`: `{"has": attr}`, `{"all"|"any"|"one": [...]}`,
`{"not": f}`, `{"true": bool}`), `when_class` (`var`, `cls`, `body`: a tagged union's member,
told apart by its class).
"""

from __future__ import annotations

import json
from typing import Any, Callable

from ...ir import model as M

Op = dict[str, Any]

# keys of an object's `checks` node the typed read of its class already answers (its type, its
# properties through the fields' types, `additionalProperties` where the class is closed or only
# undeclared members would meet it: the class refuses those) or that only annotate
_OWN = {"kind", "loc", "types", "properties", "additional_properties", "required", "prefix_keyword", "items_keyword", "dependencies_keyword"}
# keys of a subschema of `checks` that a presence formula can state
_PRESENCE = {"kind", "loc", "types", "required", "all_of", "any_of", "one_of", "not"}
_SCALARS = (M.TString, M.TInteger, M.TBoolean, M.TConst, M.TEnum)


class _Residues:
    def __init__(self, ir: M.IR, slow: list[str], recursive: set[str], field_name: Callable[[str], str], py: dict[str, str]) -> None:
        self.ir = ir
        self.py = py
        self.slow = set(slow)
        self.recursive = recursive
        self.field_name = field_name
        self.functions: list[dict[str, Any]] = []
        self.entry: dict[str, str | None] = {}  # None: no residue (or being made: a cycle)
        self.nodes: list[dict[str, Any]] = []  # the TSchema nodes to compile, by `check` op
        self.checks: list[Op] = []
        self.counter = 0
        self.numbers = {name: i for i, name in enumerate(ir.defs)}
        self.floating: dict[str, bool] = {}

    def fresh(self, stem: str = "x") -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def check(self, node: dict[str, Any], v: str) -> Op:
        op: Op = {"op": "check", "var": v, "node": len(self.nodes)}
        self.nodes.append(node)
        self.checks.append(op)
        return op

    # -- definitions --------------------------------------------------------------------------

    def definition(self, name: str) -> str | None:
        """The residue function of a definition in _SLOW, or None where it has none."""
        if name in self.entry:
            return self.entry[name]
        self.entry[name] = None  # a definition reaching itself has none
        if name in self.recursive:
            return None
        d = self.ir.defs[name]
        body: list[Op] | None
        if isinstance(d, M.ObjectDef):
            body = self.object(d, "v")
        elif isinstance(d, M.AliasDef) and isinstance(d.type, M.TSchema) and d.type.items is None:
            body = self.type(d.type, "v")
            if body is not None:  # the whole value: the definition's own function
                body = [self.check({"kind": "ref", "name": name, "loc": d.loc}, "v")]
        elif isinstance(d, M.AliasDef):
            body = self.type(d.type, "v")
        elif isinstance(d, M.UnionDef):
            body = self.type(d.union, "v")
        else:
            body = None
        if body is None:
            return None
        fn = f"r{self.numbers[name]}"
        self.functions.append({"name": fn, "definition": name, "body": body})
        self.entry[name] = fn
        return fn

    def object(self, d: M.ObjectDef, v: str) -> list[Op] | None:
        tag = d.tags[0][0] if d.tags else None
        ops: list[Op] = []
        if d.checks is not None:
            node = d.checks
            if set(node) - _OWN - _PRESENCE or node.get("kind") != "schema" or node.get("pattern_properties"):
                return None
            if "types" in node and "object" not in node["types"]:
                return None
            extra = node.get("additional_properties")
            if d.closed != (extra is not None and extra.get("bool") is False):
                return None  # the class's closedness is not the schema's
            properties = node.get("properties") or {}
            if set(properties) != {f.wire for f in d.fields}:
                return None
            formula = self.formula({k: v for k, v in node.items() if k not in ("properties", "additional_properties")}, d, tag)
            if formula is None:
                return None
            if formula != {"true": True}:
                ops.append({"op": "presence", "var": v, "formula": formula})
        for f in d.fields:
            if f.wire == tag:
                continue
            x = self.fresh()
            attr = self.field_name(f.wire)
            sub = self.type(f.type, x, {"of": v, "attr": attr})
            if sub is None:
                return None
            if sub:
                ops.append({"op": "attr", "var": v, "attr": attr, "item": x, "optional": not f.required, "body": sub})
        return ops

    def formula(self, node: dict[str, Any], d: M.ObjectDef, tag: str | None) -> dict[str, Any] | None:
        """What a subschema of an object's `checks` asserts of the object, as a formula over its
        fields' presence (None where it asserts anything else)."""
        if node.get("bool") is False:
            return {"true": False}
        if node.get("bool") is True:
            return {"true": True}
        if set(node) - _OWN - _PRESENCE:
            return None
        if "types" in node and "object" not in node["types"]:
            return {"true": False}
        parts: list[dict[str, Any]] = []
        for wire in node.get("required") or ():
            f = d.field(wire)
            if f is None:
                return None
            if not f.required and wire != tag:
                parts.append({"has": self.field_name(wire)})
        for sub in node.get("all_of", ()):
            found = self.formula(sub, d, tag)
            if found is None:
                return None
            parts.append(found)
        for key, word in (("any_of", "any"), ("one_of", "one")):
            if key in node:
                subs = [self.formula(s, d, tag) for s in node[key]]
                if any(s is None for s in subs):
                    return None
                parts.append({word: subs})
        if "not" in node:
            found = self.formula(node["not"], d, tag)
            if found is None:
                return None
            parts.append({"not": found})
        parts = [p for p in parts if p != {"true": True}]
        if not parts:
            return {"true": True}
        return parts[0] if len(parts) == 1 else {"all": parts}

    # -- types --------------------------------------------------------------------------------

    def type(self, t: M.TypeExpr, v: str, store: dict[str, str] | None = None) -> list[Op] | None:
        """The residue of a value of type `t` held in `v` ([] where the typed read checks it all).
        `store`: where `v` was read from (`of` and `attr`, `index` or `key`), for a number the
        typed read gave as an integral float to be made the integer there (JSON Schema's rule)."""
        json_schema = self.ir.integers == "json-schema"
        if isinstance(t, M.TRef):
            if t.name not in self.slow and not (json_schema and self.floats(t.name)):
                return []
            fn = self.definition(t.name)
            return None if fn is None else [{"op": "residue", "var": v, "fn": fn}]
        if isinstance(t, M.TSchema):
            if t.items is not None and not isinstance(t.items, (*_SCALARS, M.TNumber)):
                return None  # items the check would meet as models: not plain JSON
            ops: list[Op] = []
            if json_schema and self.number(t):
                if t.items is not None:
                    items = self.type(t.items, self.fresh(), {"of": v, "index": self.fresh("i")})
                    if items is None:
                        return None
                    ops += self.each(v, items)
                else:
                    if store is None:
                        return None
                    ops.append({"op": "integral", "var": v, **store})
            return [*ops, self.check(t.node, v)]
        if isinstance(t, M.TNumber):
            if not json_schema:
                return []
            return None if store is None else [{"op": "integral", "var": v, **store}]
        if isinstance(t, M.TArray):
            x, i = self.fresh(), self.fresh("i")
            sub = self.type(t.items, x, {"of": v, "index": i})
            return None if sub is None else self.each(v, sub, x, i)
        if isinstance(t, M.TMap):
            if t.keys is not None and self.type(t.keys, v):
                return None
            if t.values is None:
                return []
            x, k = self.fresh(), self.fresh("k")
            sub = self.type(t.values, x, {"of": v, "key": k})
            return None if sub is None else [{"op": "values", "var": v, "item": x, "key": k, "body": sub}] if sub else []
        if isinstance(t, M.TUnion):
            return self.union(t, v, store)
        return []

    def each(self, v: str, sub: list[Op], x: str | None = None, i: str | None = None) -> list[Op]:
        """Every item of a list through `sub` (its ops read `x`; `i`, the index, where they
        store a number back)."""
        if not sub:
            return []
        if x is None:  # the item variable is the one the number op was made with
            x, i = sub[0]["var"], sub[0].get("index")
        return [{"op": "each", "var": v, "item": x, "index": i if i is not None and f'"index": "{i}"' in json.dumps(sub) else None, "body": sub}]

    def floats(self, name: str) -> bool:
        """Whether a value of the definition may hold a number typed `int | float` (a TNumber,
        or a loose annotation with numbers): read typed, 1.0 stays a float there."""
        found = self.floating.get(name)
        if found is None:
            self.floating[name] = False  # a cycle adds nothing
            d = self.ir.defs[name]
            types = [f.type for f in d.fields] if isinstance(d, M.ObjectDef) else [d.union] if isinstance(d, M.UnionDef) else [d.type] if isinstance(d, M.AliasDef) else []
            found = self.floating[name] = any(self.number(t) for t in types)
        return found

    def number(self, t: M.TypeExpr) -> bool:
        if isinstance(t, M.TNumber):
            return True
        if isinstance(t, M.TRef):
            return self.floats(t.name)
        if isinstance(t, M.TSchema):
            typed = t.items is None and "number" in t.types and not {"object", "array", "string", "number", "boolean", "null"} <= set(t.types)
            return typed or t.items is not None and self.number(t.items)
        if isinstance(t, M.TArray):
            return self.number(t.items)
        if isinstance(t, M.TMap):
            return t.values is not None and self.number(t.values)
        if isinstance(t, M.TUnion):
            return any(self.number(m) for m in t.members)
        return False

    def union(self, t: M.TUnion, v: str, store: dict[str, str] | None) -> list[Op] | None:
        """A union whose members with a residue are each told apart from the others by the
        Python type msgspec reads them as (a list, a dict); None where one is not."""
        subs = []
        for m in t.members:
            sub = self.type(m, v, store)
            if sub is None:
                return None
            subs.append((m, sub))
        if not any(sub for _, sub in subs):
            return []
        if t.discriminator:  # each member a class of its own: told apart by it
            return [{"op": "when_class", "var": v, "cls": self.py[m.name], "body": sub} for m, sub in subs if sub and isinstance(m, M.TRef)]
        kinds = [self.held(m) for m, _ in subs]
        if len(subs) == 2 and any(isinstance(m, M.TNull) for m, _ in subs):
            kinds = ["null" if isinstance(m, M.TNull) else "some" for m, _ in subs]
        ops: list[Op] = []
        for (m, sub), kind in zip(subs, kinds):
            if not sub:
                continue
            if all(op["op"] == "integral" for op in sub):  # its own test: a float
                ops += sub[:1]
                continue
            if kind is None or kinds.count(kind) > 1:
                return None
            ops.append({"op": "when", "var": v, "tests": [kind], "body": sub})
        return ops

    def held(self, t: M.TypeExpr) -> str | None:
        """The one Python type a value of `t` is read as, where it is a list or a plain dict."""
        if isinstance(t, M.TArray) or isinstance(t, M.TSchema) and (t.items is not None or tuple(t.types) == ("array",)):
            return "list"
        if isinstance(t, M.TMap) or isinstance(t, M.TSchema) and tuple(t.types) == ("object",):
            return "dict"
        if isinstance(t, M.TRef):
            d = self.ir.defs[t.name]
            if isinstance(d, M.AliasDef):
                return self.held(d.type)
        return None


def residue_plan(ir: M.IR, slow: list[str], recursive: set[str], field_name: Callable[[str], str], py: dict[str, str]) -> tuple[dict[str, Any], list[dict[str, Any]], Callable[[list[str]], None]]:
    """The residue plan of the definitions in `slow` (those that have one), the TSchema nodes its
    `check` ops need compiled, and the function that fills in their compiled functions' names
    (the accept plan's, in the nodes' order)."""
    r = _Residues(ir, slow, recursive, field_name, py)
    for name in slow:
        r.definition(name)
    kept = sorted((f for f in r.functions if r.entry.get(f["definition"]) == f["name"]), key=lambda f: r.numbers[f["definition"]])
    # a residue that is the whole check of the value gains nothing over the plain read and the
    # compiled check: such a definition keeps that path (its function serves references)
    whole = {f["definition"] for f in kept if [op["op"] for op in f["body"]] == ["check"] and f["body"][0]["var"] == "v"}
    plan = {"functions": kept, "entry": {n: fn for n, fn in r.entry.items() if fn is not None and n not in whole and n in r.slow}}
    checks: list[Op] = []

    def walk(body: list[Op]) -> None:
        for op in body:
            if op["op"] == "check":
                checks.append(op)
            walk(op.get("body", []))

    for f in kept:
        walk(f["body"])
    nodes = [r.nodes[op["node"]] for op in checks]

    def fill(names: list[str]) -> None:
        for op, fn in zip(checks, names):
            op.pop("node")
            op["fn"] = fn

    return plan, nodes, fill
