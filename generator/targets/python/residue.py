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

    {"functions": [{"name", "definition", "body": [op...]}], "entry": {definition: function},
     "floating": [definition]}

`floating`: the definitions whose model reads a number as a float somewhere (msgspec's typed
read of a float with a large positive exponent, `1e+300`, takes ~8 us where the plain read's hook
takes ~0.3: a document of these holding a `+` takes the plain read and the whole check).

ops: `check` (`var`, `body`: the compiled validator's ops checking `var` by the subschema, filled
in once the accept plan has compiled it), `residue` (`var`, `fn`), `attr` (`var`, `attr`, `item`, `optional`, `body`:
the field's value, when present), `each` (`var`, `item`, `index` or None, `body`: every item of
a list), `values` (`key`, `item`: every member of a dict), `integral` (`var`, `of` and `attr`,
`index` or `key`: under JSON Schema's integer rule, an integral float stored back as the integer
where it was read from, as the plain read's hook makes it), `when` (`var`, `tests`, `body`: a union member told apart by
its Python type), `presence` (`var`, `formula`: `{"has": attr}`, `{"all"|"any"|"one": [...]}`,
`{"not": f}`, `{"true": bool}`), `when_class` (`var`, `cls`, `body`: a tagged union's member,
told apart by its class); and, for what an object's `checks` assert of its fields' values
(`shaped`: a subschema read off the model), `false`, `any`/`one` (`fns`), `none` (`fn`: not),
`cond` (`fn`, `then`, `else`), whose functions (`q...`, `definition` None) check a subschema on
the typed value.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, Callable

from ...ir import model as M

Op = dict[str, Any]

# keys of an object's `checks` node the typed read of its class already answers (its type, its
# properties through the fields' types, `additionalProperties` where the class is closed or only
# undeclared members would meet it: the class refuses those) or that only annotate
_OWN = {"kind", "loc", "types", "properties", "additional_properties", "required", "prefix_keyword", "items_keyword", "dependencies_keyword"}
# keys of a subschema of `checks` that a presence formula can state
_PRESENCE = {"kind", "loc", "types", "required", "all_of", "any_of", "one_of", "not"}
# keys of a subschema of `checks` checked on the typed value itself (`shaped`)
_SHAPED = _PRESENCE | {"properties", "additional_properties", "if", "then", "else", "items", "min_items", "max_items", "unique_items"}
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
            if set(node) - _OWN - _SHAPED or node.get("kind") != "schema" or node.get("pattern_properties"):
                return None
            if "types" in node and "object" not in node["types"]:
                return None
            extra = node.get("additional_properties")
            if d.closed != (extra is not None and extra.get("bool") is False):
                return None  # the class's closedness is not the schema's
            properties = node.get("properties") or {}
            if set(properties) != {f.wire for f in d.fields}:
                return None
            rest = {k: x for k, x in node.items() if k not in ("properties", "additional_properties")}
            formula = self.formula(rest, d, tag)
            if formula is None:  # it asserts more than presence: checked on the value's fields
                found = self.shaped_object(rest, d, v)
                if found is None:
                    return None
                ops += found
            elif formula != {"true": True}:
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

    # -- a subschema on a typed value ----------------------------------------------------------

    def shaped(self, node: dict[str, Any], t: M.TypeExpr, v: str, depth: int = 0) -> list[Op] | None:
        """The ops checking the subschema `node` on the value of type `t` the typed read made
        (held in `v`; the typed read has checked `t` there): the compiled validator's own ops
        where that value is plain JSON; on a model, its keywords through the model's fields
        (None where a keyword cannot be read off a model)."""
        if depth > 8:
            return None
        if node.get("bool") is True:
            return []
        if node.get("bool") is False:
            return [{"op": "false", "var": v}]
        t = self.resolved(t)
        if self.plain(t):
            return [self.check(node, v)]
        if node.get("kind") == "ref" or node.get("kind") == "schema" and set(node) <= {"kind", "loc", "ref"} and "ref" in node:
            name = node.get("name") or node["ref"]
            if isinstance(t, M.TRef) and t.name == name:
                return []  # the value is of that definition: its residue is checked where it is held
            return self.shaped(self.table_node(name), t, v, depth + 1)
        if node.get("kind") != "schema" or set(node) - _OWN - _SHAPED or node.get("pattern_properties"):
            return None
        if isinstance(t, M.TRef) and isinstance(self.ir.defs[t.name], M.ObjectDef):
            return self.shaped_object(node, self.ir.defs[t.name], v, depth)  # type: ignore[arg-type]
        if isinstance(t, M.TArray) or isinstance(t, M.TSchema) and t.items is not None:
            return self.shaped_array(node, t.items, v, depth)  # type: ignore[arg-type]
        return None

    def shaped_object(self, node: dict[str, Any], d: M.ObjectDef, v: str, depth: int = 0) -> list[Op] | None:
        if set(node) - _OWN - _SHAPED or {"items", "min_items", "max_items", "unique_items"} & set(node) or node.get("pattern_properties"):
            return None
        if "types" in node and "object" not in node["types"]:
            return [{"op": "false", "var": v}]
        tag = d.tags[0][0] if d.tags else None
        ops: list[Op] = []
        present = []
        for wire in node.get("required") or ():
            f = d.field(wire)
            if f is None:  # never a member of the value the typed read made (it refuses undeclared ones)
                return [{"op": "false", "var": v}]
            if not f.required and wire != tag:
                present.append({"has": self.field_name(wire)})
        if present:
            ops.append({"op": "presence", "var": v, "formula": present[0] if len(present) == 1 else {"all": present}})
        for wire, sub in (node.get("properties") or {}).items():
            f = d.field(wire)
            if f is None:
                continue  # absent from every value the typed read made
            if wire == tag:
                return None
            x = self.fresh()
            body = self.shaped(sub, f.type, x, depth + 1)
            if body is None:
                return None
            if body:
                ops.append({"op": "attr", "var": v, "attr": self.field_name(wire), "item": x, "optional": not f.required, "body": body})
        t = M.TRef(d.name, d.loc)
        return self.applicators(node, t, v, ops, depth)

    def shaped_array(self, node: dict[str, Any], items: M.TypeExpr, v: str, depth: int) -> list[Op] | None:
        if set(node) - _OWN - _SHAPED or {"properties", "required", "additional_properties"} & set(node):
            return None
        if "types" in node and "array" not in node["types"]:
            return [{"op": "false", "var": v}]
        ops: list[Op] = []
        counted: dict[str, Any] = {k: node[k] for k in ("min_items", "max_items", "unique_items") if k in node}
        if counted:
            if "unique_items" in counted and not self.plain(self.resolved(items)):
                return None
            ops.append(self.check({"kind": "schema", "loc": node.get("loc", ""), **counted}, v))
        if "items" in node:
            x = self.fresh()
            body = self.shaped(node["items"], items, x, depth + 1)
            if body is None:
                return None
            if body:
                ops.append({"op": "each", "var": v, "item": x, "index": None, "body": body})
        return self.applicators(node, M.TArray("", items), v, ops, depth)

    def applicators(self, node: dict[str, Any], t: M.TypeExpr, v: str, ops: list[Op], depth: int) -> list[Op] | None:
        """`allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else` of a subschema, on the typed value."""
        for sub in node.get("all_of", ()):
            found = self.shaped(sub, t, v, depth + 1)
            if found is None:
                return None
            ops += found
        d = self.ir.defs[t.name] if isinstance(t, M.TRef) else None
        if isinstance(d, M.ObjectDef):  # what is only about presence: one expression, no calls
            tag = d.tags[0][0] if d.tags else None
            node = dict(node)
            for key, word in (("any_of", "any"), ("one_of", "one"), ("not", "not")):
                if key in node:
                    subs = [self.formula(sub, d, tag) for sub in (node[key] if key != "not" else [node[key]])]
                    if all(sub is not None for sub in subs):
                        ops.append({"op": "presence", "var": v, "formula": {word: subs} if key != "not" else {"not": subs[0]}})
                        del node[key]
        for key, word in (("any_of", "any"), ("one_of", "one")):
            if key in node:
                fns = [self.verdict(sub, t, depth) for sub in node[key]]
                if any(fn is None for fn in fns):
                    return None
                ops.append({"op": word, "var": v, "fns": fns})
        if "not" in node:
            fn = self.verdict(node["not"], t, depth)
            if fn is None:
                return None
            ops.append({"op": "none", "var": v, "fn": fn})
        if "if" in node:
            fn = self.verdict(node["if"], t, depth)
            then = self.shaped(node["then"], t, v, depth + 1) if "then" in node else []
            otherwise = self.shaped(node["else"], t, v, depth + 1) if "else" in node else []
            if fn is None or then is None or otherwise is None:
                return None
            if then or otherwise:
                ops.append({"op": "cond", "var": v, "fn": fn, "then": then, "else": otherwise})
        return ops

    def verdict(self, node: dict[str, Any], t: M.TypeExpr, depth: int) -> str | None:
        """A function of its own answering whether the typed value satisfies `node`."""
        body = self.shaped(node, t, "v", depth + 1)
        if body is None:
            return None
        fn = self.fresh("q")
        self.functions.append({"name": fn, "definition": None, "body": body})
        return fn

    def resolved(self, t: M.TypeExpr) -> M.TypeExpr:
        while isinstance(t, M.TRef) and isinstance(self.ir.defs[t.name], M.AliasDef) and t.name not in self.recursive:
            t = self.ir.defs[t.name].type  # type: ignore[union-attr]
        return t

    def plain(self, t: M.TypeExpr) -> bool:
        """Whether the typed read makes a value of `t` plain JSON (no model, no StrEnum)."""
        t = self.resolved(t)
        if isinstance(t, (*_SCALARS, M.TNumber, M.TNull, M.TAny)):
            return True
        if isinstance(t, M.TSchema):
            return t.items is None or self.plain(t.items)
        if isinstance(t, M.TArray):
            return self.plain(t.items)
        if isinstance(t, M.TMap):
            return t.values is None or self.plain(t.values)
        if isinstance(t, M.TUnion):
            return not t.discriminator and all(self.plain(m) for m in t.members)
        return False

    def table_node(self, name: str) -> dict[str, Any]:
        """A definition's schema where a model is checked against it: an object's `checks`
        (any other definition is not read off a model here)."""
        d = self.ir.defs[name]
        return dict(d.checks) if isinstance(d, M.ObjectDef) and d.checks is not None else {"kind": name}

    # -- types --------------------------------------------------------------------------------

    def type(self, t: M.TypeExpr, v: str, store: dict[str, str] | None = None, member: bool = False) -> list[Op] | None:
        """The residue of a value of type `t` held in `v` ([] where the typed read checks it all).
        `store`: where `v` was read from (`of` and `attr`, `index` or `key`), for a number the
        typed read gave as an integral float to be made the integer there (JSON Schema's rule)."""
        json_schema = self.ir.integers == "json-schema"
        if isinstance(t, M.TRef) and not member:
            d = self.ir.defs[t.name]
            if isinstance(d, M.ObjectDef) and d.tags:
                return None  # a tagged class outside its union: msgspec does not require the tag
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
            node = t.node
            if t.items is not None:  # a list of exactly typed items, as the typed read made it
                node = {k: x for k, x in node.items() if k not in ("items", "types")}
            return [*ops, self.check(node, v)]
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
        or a loose annotation with numbers): read typed, 1.0 stays a float there, and msgspec
        reads a large exponent slowly."""
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
            sub = self.type(m, v, store, member=t.discriminator is not None)
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
        held = Counter(kinds)  # counted once: a count per member was quadratic in a wide union
        for (m, sub), kind in zip(subs, kinds):
            if not sub:
                continue
            if all(op["op"] == "integral" for op in sub):  # its own test: a float
                ops += sub[:1]
                continue
            if kind is None or held[kind] > 1:
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


def residue_plan(ir: M.IR, slow: list[str], recursive: set[str], field_name: Callable[[str], str], py: dict[str, str]) -> tuple[dict[str, Any], list[tuple[dict[str, Any], str]], Callable[[list[list[Op]]], None]]:
    """The residue plan of the definitions in `slow` (those that have one), the subschemas its
    `check` ops need compiled (each with the variable it checks), and the function that fills in
    their compiled ops (the accept plan's, in the same order)."""
    r = _Residues(ir, slow, recursive, field_name, py)
    for name in slow:
        r.definition(name)
    # the definitions' functions and the verdicts they call (a definition given up on may have
    # made some that nothing calls)
    named = {f["name"]: f for f in r.functions}
    reached: dict[str, dict[str, Any]] = {}

    def reach(fn: str) -> None:
        if fn in reached:
            return
        reached[fn] = named[fn]
        stack = list(named[fn]["body"])
        while stack:
            op = stack.pop()
            for called in ([op["fn"]] if "fn" in op else []) + op.get("fns", []):
                reach(called)
            for key in ("body", "then", "else"):
                stack += op.get(key) or []

    for name, fn in r.entry.items():
        if fn is not None:
            reach(fn)
    kept = sorted(reached.values(), key=lambda f: (r.numbers.get(f["definition"], len(r.numbers)), f["name"]))
    # a residue that is the whole check of the value gains nothing over the plain read and the
    # compiled check: such a definition keeps that path (its function serves references)
    whole = {f["definition"] for f in kept if [op["op"] for op in f["body"]] == ["check"] and f["body"][0]["var"] == "v"}
    # so does one whose model holds plain JSON only (the typed read is the plain read)
    whole |= {name for name in r.slow if isinstance(d := ir.defs[name], M.AliasDef) and r.plain(d.type) or isinstance(d, M.UnionDef) and r.plain(d.union)}
    plan: dict[str, Any] = {"functions": kept, "entry": {n: fn for n, fn in r.entry.items() if fn is not None and n not in whole and n in r.slow}}
    # msgspec reads a number typed float with a large positive exponent slowly (1e+300: ~8 us,
    # against ~0.3 us for the plain read's hook): such a document of these takes the plain read
    plan["floating"] = sorted(n for n in plan["entry"] if r.floats(n))
    checks: list[Op] = []

    def walk(body: list[Op]) -> None:
        for op in body:
            if op["op"] == "check":
                checks.append(op)
            for key in ("body", "then", "else"):
                walk(op.get(key) or [])

    for f in kept:
        walk(f["body"])
    nodes = [(r.nodes[op["node"]], op["var"]) for op in checks]

    def fill(compiled: list[list[Op]]) -> None:
        for op, body in zip(checks, compiled):
            op.pop("node")
            op["body"] = body

    return plan, nodes, fill
