"""The validation table compiled to straight-line checks: one function per definition that only
answers whether a value is valid (the path every valid document takes), for every target to
print in its own language. The explaining pass (the table interpreter) still runs when a value is
refused, so pointers, keywords and messages stay exactly as they were.

Decisions made here, once, for every target:

- each definition is a function; `$ref` and a discriminator's member are direct calls;
- a subschema whose verdict is needed apart (an `anyOf`/`oneOf` member, `not`, `if`,
  `contains`, `propertyNames`) is a function of its own; every other subschema is inlined, its
  checks guarded by the JSON type they apply to;
- constants are hoisted: patterns (ECMA-262, as the schema wrote them: a target translates them),
  sets of names and of string values, JSON values compared by equality;
- JSON types are spelled as primitive tests (`int`, `float`, `integral-float`...) under the
  binding's integer rule, so a template prints a test and decides nothing;
- a definition whose own schema uses `unevaluatedProperties`/`unevaluatedItems` (which need the
  annotations of every subschema) is left to the interpreter: `interpret`.

The plan is plain data (docs/targets.md, "The compiled validator"):

    {"functions": [{"name", "definition" | None, "var", "body": [op...]}],
     "entry": {definition: function}, "patterns": [...], "sets": [[...]], "values": [...],
     "tags": [{tag: function}], "formats": [...], "depths": {definition: n}, "nodes": [[op...]]}

`depths`: for the definitions whose schema bounds how deep their valid values nest, that bound
(arrays and objects counted; `depth_bounds`): a target whose decoder refuses documents nesting
past a limit needs no depth scan of a document such a definition accepts, when n is within it.

Each op is a dict with `op` (and `var`, the variable it checks); a failing check returns false.
"""

from __future__ import annotations

import json
from typing import Any

Op = dict[str, Any]

# primitive type tests: what a template prints for each
PRIMITIVES = ("null", "bool", "int", "float", "integral-float", "str", "list", "dict")

# ops that read only their own `var` (no nested body, no variable of their own, no call): a
# definition whose body is a few of these (an enum, a bounded string...) is checked inline where
# it is referenced, with the referencing variable, instead of by a call to its function
LEAF_OPS = frozenset(
    {
        "false", "types", "not_null", "is", "equals_string", "equals", "enum_strings", "enum", "minimum", "maximum",
        "exclusive_minimum", "exclusive_maximum", "multiple_of", "min_length", "max_length", "pattern", "format",
        "min_items", "max_items", "min_properties", "max_properties", "unique", "required", "closed",
    }
)
INLINE_OPS = 3  # at most this many ops inlined per reference
# subschemas inlined inside one another in one function, at most: a deeper one is a function of its
# own. Each level may open a loop and a test or two, and compilers bound how deep blocks nest
# (CPython: 20 nested loops, 100 indentation levels), so a schema nesting arrays 25 deep once
# generated a module that did not compile
INLINE_DEPTH = 8


def _union_tests(kinds: list[str] | set[str]) -> list[str]:
    """A typed union's member test: the document's JSON type (an integral float is an
    "integer") in its kinds, "integer" also admitted by "number"."""
    out: set[str] = set()
    for k in kinds:
        out |= {"null": {"null"}, "boolean": {"bool"}, "integer": {"int", "integral-float"}, "number": {"int", "float"},
                "string": {"str"}, "array": {"list"}, "object": {"dict"}}[k]
    return _simplify(out)


def _narrowed(ops: list[Op], tested: dict[str, set[str]] | None = None, equal: dict[str, Any] | None = None) -> list[Op]:
    """A node's ops with each later JSON type test of a value it already tested by its type
    narrowed to what both admit (an inlined `$ref` beside a `type` sibling tests twice): a
    test that admits nothing is `false`, and what follows it is dropped; a test that admits
    only what the first one did is dropped; a string, boolean or null const that a value of
    the tested types cannot equal is `false` too, and so is a second const past a first
    (the value is the first); a block guarded by a type test the value cannot pass is dropped.
    What is known holds in the blocks on the same value (`when`, `when_has`, `if`). TypeScript
    narrows the value by the first test and refuses a second that cannot hold (`v instanceof
    PyFloat` of a string, `v !== "b"` of an object)."""
    out: list[Op] = []
    tested = dict(tested or {})
    equal = dict(equal or {})
    for op in ops:
        var: str = op.get("var", "")
        kind = _KIND_OF_CONST.get(op["op"], lambda _: None)(op)
        if kind is not None and var in tested and kind not in tested[var]:
            # a const of a type the value cannot have (`{$ref: "a" const, type: boolean}`)
            out.append({"op": "false", "var": var})
            break
        if kind is not None and op["op"] != "enum_strings":
            # past a const, the value is that const (TypeScript narrows it to the literal): a
            # later type test is judged by the const's type, a later const by equality
            if var in equal:
                if equal[var] == (kind, op["value"]):
                    continue
                out.append({"op": "false", "var": var})
                break
            equal[var] = (kind, op["value"])
        if kind is not None:
            tested[var] = {kind}
        if op["op"] == "types":
            before = tested.get(var)
            if before is not None and set(op["tests"]) != before:
                both = _widened(before) & _widened(set(op["tests"]))
                if not both:
                    out.append({"op": "false", "var": var})
                    break
                if both == _widened(before):
                    continue
                op = {**op, "tests": _simplify(both)}
            tested[var] = set(op["tests"])
        elif op["op"] == "when":
            inner = dict(tested)
            guard = _widened(set(op["tests"]))
            if var in tested:
                guard &= _widened(tested[var])
                if not guard:
                    continue  # the value is never of the guarded types: nothing to check
            inner[var] = set(_simplify(guard))
            op = {**op, "body": _narrowed(op["body"], inner, equal)}
        elif op["op"] == "when_has":
            op = {**op, "body": _narrowed(op["body"], tested, equal)}
        elif op["op"] == "if":
            op = {**op, "then": _narrowed(op["then"], tested, equal), "else": _narrowed(op["else"], tested, equal)}
        out.append(op)
    return out


_KIND_OF_CONST: dict[str, Any] = {
    "equals_string": lambda op: "str",
    "enum_strings": lambda op: "str",
    "is": lambda op: "null" if op["value"] is None else "bool",
}
"""The JSON type test a const op's value passes (the others compare by JSON equality)."""


def _widened(tests: set[str]) -> set[str]:
    """The tests with what "float" admits spelled out (an integral float is one)."""
    return tests | {"integral-float"} if "float" in tests else set(tests)


def _simplify(tests: set[str]) -> list[str]:
    if "float" in tests:
        tests.discard("integral-float")
    return [t for t in PRIMITIVES if t in tests]


class _Planner:
    def __init__(self, table: dict[str, Any], integers: str, formats: bool) -> None:
        self.table = table
        self.integers = integers
        self.formats = formats
        self.functions: list[dict[str, Any]] = []
        self.entry: dict[str, str] = {}  # definition -> its function, as reached
        self.numbers = {name: i for i, name in enumerate(table)}
        self.patterns: list[str] = []
        self.sets: list[list[str]] = []
        self.values: list[Any] = []
        self.tags: list[dict[str, str]] = []
        self.format_names: list[str] = []
        self.pooled: dict[int, dict[str, int]] = {}  # id of a pool above -> its items' keys -> index
        self.counter = 0
        self.interpreted: set[str] = {name for name, node in table.items() if _unevaluated(node)}
        self.leaves: dict[str, list[Op]] = {}  # definition -> its body, when it may be inlined
        self.depth = 0  # subschemas the one being compiled is inlined in, in its function

    # -- hoisted constants ------------------------------------------------------------------

    def _index(self, pool: list[Any], item: Any) -> int:
        key = json.dumps(item, sort_keys=True)  # exact: [0] and [false], 1 and 1.0 stay apart
        # each pool's items by key: a scan re-encoding the pool for every constant was
        # quadratic in a wide object's patterns and name sets
        keys = self.pooled.setdefault(id(pool), {})
        found = keys.get(key)
        if found is None:
            found = keys[key] = len(pool)
            pool.append(item)
        return found

    def pattern(self, source: str) -> int:
        return self._index(self.patterns, source)

    def names(self, names: list[str]) -> int:
        return self._index(self.sets, sorted(set(names)))

    def value(self, value: Any) -> int:
        return self._index(self.values, value)

    def fresh(self, stem: str = "v") -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    # -- type tests -------------------------------------------------------------------------

    def kind_tests(self, kinds: list[str]) -> list[str]:
        """`type` under the integer rule: an integral float is an integer only under JSON
        Schema's rule; "number" admits integers."""
        out: set[str] = set()
        for k in kinds:
            if k == "integer":
                out |= {"int", "integral-float"} if self.integers == "json-schema" else {"int"}
            elif k == "number":
                out |= {"int", "float"}
            else:
                out |= set(_union_tests([k]))
        return _simplify(out)

    # -- functions --------------------------------------------------------------------------

    def call(self, name: str) -> str:
        """The function of a definition, compiled when first reached."""
        found = self.entry.get(name)
        if found is None:
            found = self.entry[name] = f"d{self.numbers[name]}"
            slot: dict[str, Any] = {"name": found, "definition": name, "var": "v", "body": []}
            self.functions.append(slot)
            if name in self.interpreted:
                slot["body"] = [{"op": "interpret", "var": "v", "definition": name}]
            else:
                slot["body"] = self.body(self.table[name])
                if len(slot["body"]) <= INLINE_OPS and all(op["op"] in LEAF_OPS for op in slot["body"]):
                    self.leaves[name] = slot["body"]
        return found

    def reference(self, name: str, v: str) -> list[Op]:
        """The check of a reference: the definition's ops inline when it is a leaf (set once
        its function is compiled; a definition still being compiled, as a recursive one is, is
        called), else a call to its function (compiled when first reached, and kept: it is
        also the definition's entry)."""
        fn = self.call(name)
        leaf = self.leaves.get(name)
        if leaf is not None:
            return [{**op, "var": v} for op in leaf]
        return [{"op": "call", "var": v, "fn": fn}]

    def build(self, roots: list[str], nodes: list[tuple[dict[str, Any], str]]) -> dict[str, Any]:
        for name in roots:
            self.call(name)
        compiled = [self.node(node, var) for node, var in nodes]
        self.functions.sort(key=lambda f: (f["definition"] is None, self.numbers.get(f["definition"], 0), f["name"]))
        return {
            "functions": self.functions,
            "entry": {name: self.entry[name] for name in self.table if name in self.entry},
            "patterns": self.patterns,
            "sets": self.sets,
            "values": self.values,
            "tags": self.tags,
            "formats": self.format_names,
            "integers": self.integers,
            "depths": {name: d for name, d in depth_bounds(self.table).items() if name in self.entry},
            "nodes": compiled,
        }

    def function(self, node: dict[str, Any], keep: bool = True) -> Any:
        """A subschema whose verdict is needed apart: a function of its own (a reference is
        its definition's function). One that holds for every value is None unless `keep`."""
        if node.get("kind") == "ref":
            return self.call(node["name"])
        if node.get("kind") == "schema" and set(node) <= {"kind", "loc", "ref"} and "ref" in node:
            return self.call(node["ref"])
        slot: dict[str, Any] = {"name": self.fresh("s"), "definition": None, "var": "v", "body": []}
        self.functions.append(slot)
        slot["body"] = self.body(node)
        if not slot["body"] and not keep:
            self.functions.remove(slot)
            return None
        return slot["name"]

    # -- nodes ------------------------------------------------------------------------------

    def body(self, node: dict[str, Any]) -> list[Op]:
        """The ops of a function's own subschema, inlined from depth 0."""
        outer, self.depth = self.depth, 0
        try:
            return self.node(node, "v")
        finally:
            self.depth = outer

    def node(self, node: dict[str, Any], v: str) -> list[Op]:
        if self.depth >= INLINE_DEPTH:
            fn = self.function(node, keep=False)
            return [] if fn is None else [{"op": "call", "var": v, "fn": fn}]
        self.depth += 1
        try:
            return _narrowed(getattr(self, "k_" + node["kind"])(node, v))
        finally:
            self.depth -= 1

    def k_ref(self, node: dict[str, Any], v: str) -> list[Op]:
        return self.reference(node["name"], v)

    def k_object(self, node: dict[str, Any], v: str) -> list[Op]:
        ops: list[Op] = [{"op": "types", "var": v, "tests": ["dict"]}]
        fields = node["fields"]
        required = [name for name, spec in fields.items() if spec["required"] is not None]
        if required:
            ops.append(self.required(v, required))
        if node["closed"] is not None:
            ops.append({"op": "closed", "var": v, "set": self.names(list(fields))})
        for name, spec in fields.items():
            ops += self.member(v, name, spec["type"], name in required)
        return ops

    def member(self, v: str, name: str, sub: dict[str, Any], required: bool) -> list[Op]:
        x = self.fresh()
        body = self.node(sub, x)
        if not body:
            return []
        return [{"op": "property", "var": v, "name": name, "item": x, "present": required, "body": body}]

    def required(self, v: str, names: list[str]) -> Op:
        return {"op": "required", "var": v, "names": names, "set": self.names(names)}

    def k_tagged(self, node: dict[str, Any], v: str) -> list[Op]:
        self.tags.append({tag: self.call(member) for tag, member in sorted(node["tags"].items())})
        return [{"op": "tagged", "var": v, "field": node["field"], "tags": len(self.tags) - 1, "tag": self.fresh("t")}]

    def k_union(self, node: dict[str, Any], v: str) -> list[Op]:
        members = []
        for kinds, member in node["members"]:
            tests = _union_tests(kinds)
            body = self.node(member, v)
            if body and body[0]["op"] == "types" and set(tests) <= set(body[0]["tests"]):
                body = body[1:]  # the member's own type test: already true here
            members.append({"tests": tests, "body": body})
        return [{"op": "union", "var": v, "members": members}]

    def k_string(self, node: dict[str, Any], v: str) -> list[Op]:
        return [{"op": "types", "var": v, "tests": ["str"]}, *self.textual(node, v)]

    def k_integer(self, node: dict[str, Any], v: str) -> list[Op]:
        return [{"op": "types", "var": v, "tests": self.kind_tests(["integer"])}, *self.numeric(node, v)]

    def k_number(self, node: dict[str, Any], v: str) -> list[Op]:
        return [{"op": "types", "var": v, "tests": self.kind_tests(["number"])}, *self.numeric(node, v)]

    def k_enum(self, node: dict[str, Any], v: str) -> list[Op]:
        return [{"op": "enum_strings", "var": v, "set": self.names(node["values"])}]

    def k_const(self, node: dict[str, Any], v: str) -> list[Op]:
        return [self.const(v, node["value"])]

    def k_boolean(self, node: dict[str, Any], v: str) -> list[Op]:
        return [{"op": "types", "var": v, "tests": ["bool"]}]

    def k_null(self, node: dict[str, Any], v: str) -> list[Op]:
        return [{"op": "types", "var": v, "tests": ["null"]}]

    def k_any(self, node: dict[str, Any], v: str) -> list[Op]:
        return [{"op": "not_null", "var": v}] if node["nonnull"] else []

    def k_map(self, node: dict[str, Any], v: str) -> list[Op]:
        ops: list[Op] = [{"op": "types", "var": v, "tests": ["dict"]}]
        if node.get("keys") is not None:
            ops.append({"op": "property_names", "var": v, "fn": self.function(node["keys"]), "key": self.fresh("k")})
        if node["values"] is not None:
            x = self.fresh()
            body = self.node(node["values"], x)
            if body:
                ops.append({"op": "members", "var": v, "key": self.fresh("k"), "item": x, "known": None, "patterns": [], "rest": body})
        return ops

    def k_array(self, node: dict[str, Any], v: str) -> list[Op]:
        ops: list[Op] = [{"op": "types", "var": v, "tests": ["list"]}]
        if node.get("min_items"):
            ops.append({"op": "min_items", "var": v, "n": node["min_items"]})
        x = self.fresh()
        body = self.node(node["items"], x)
        if body:
            ops.append({"op": "items", "var": v, "start": 0, "item": x, "body": body})
        return ops

    # -- the general vocabulary ---------------------------------------------------------------

    def const(self, v: str, want: Any) -> Op:
        if want is None or want is True or want is False:
            return {"op": "is", "var": v, "value": want}
        if type(want) is str:
            return {"op": "equals_string", "var": v, "value": want}
        op: Op = {"op": "equals", "var": v, "value": self.value(want)}
        if type(want) in (int, float):
            # a number: equal when the value is a number of these types (a boolean never is)
            # and == it; a target may print that test instead of its JSON equality
            kinds = ("int", "float") if self.integers == "json-schema" else ("int",) if type(want) is int else ("float",)
            op |= {"number": want, "tests": list(kinds)}
        return op

    def k_schema(self, node: dict[str, Any], v: str) -> list[Op]:
        if node.get("bool") is False:
            return [{"op": "false"}]
        ops: list[Op] = []
        if "types" in node:
            tests = self.kind_tests(node["types"])
            if not {"null", "bool", "int", "float", "str", "list", "dict"} <= set(tests):
                ops.insert(0, {"op": "types", "var": v, "tests": tests})
        if "const" in node:
            ops.append(self.const(v, node["const"][0]))
        if "enum" in node:
            values = node["enum"]
            if len(values) == 1 and type(values[0]) is not str:
                ops.append(self.const(v, values[0]))
            elif all(type(x) is str for x in values):
                ops.append({"op": "enum_strings", "var": v, "set": self.names(values)})
            else:
                ops.append({"op": "enum", "var": v, "choices": self.value(list(values))})
        if "ref" in node:
            ops += self.reference(node["ref"], v)
        typed = set(ops[0]["tests"]) if ops and ops[0]["op"] == "types" else None
        for kind, found in (("number", self.numeric(node, v)), ("string", self.textual(node, v)), ("array", self.array(node, v)), ("object", self.object(node, v))):
            if found:
                guard = self.kind_tests([kind]) if kind != "number" else ["int", "float"]
                covered = set(guard) | ({"integral-float"} if "float" in guard else set())
                if typed is not None and typed <= covered:
                    ops += found  # `type` has already refused every other value
                else:
                    ops.append({"op": "when", "var": v, "tests": guard, "body": found})
        for sub in node.get("all_of", ()):
            ops += self.node(sub, v)
        if "any_of" in node:
            ops.append({"op": "any_of", "var": v, "fns": [self.function(s) for s in node["any_of"]]})
        if "one_of" in node:
            ops.append({"op": "one_of", "var": v, "fns": [self.function(s) for s in node["one_of"]]})
        if "not" in node:
            ops.append({"op": "not", "var": v, "fn": self.function(node["not"])})
        if "if" in node:
            then = self.node(node["then"], v) if "then" in node else []
            otherwise = self.node(node["else"], v) if "else" in node else []
            if then or otherwise:
                ops.append({"op": "if", "var": v, "fn": self.function(node["if"]), "then": then, "else": otherwise})
        deps = node.get("dependent_schemas")
        if deps:
            body = []
            for prop, sub in deps.items():
                inner = self.node(sub, v)
                if inner:
                    body.append({"op": "when_has", "var": v, "name": prop, "body": inner})
            if body:
                ops.append({"op": "when", "var": v, "tests": ["dict"], "body": body})
        return ops

    def numeric(self, node: dict[str, Any], v: str) -> list[Op]:
        ops: list[Op] = []
        for key in ("minimum", "maximum", "exclusive_minimum", "exclusive_maximum"):
            if node.get(key) is not None:
                ops.append({"op": key, "var": v, "bound": node[key]})
        if node.get("multiple_of") is not None:
            step = node["multiple_of"]
            ops.append({"op": "multiple_of", "var": v, "by": step, "integral": type(step) is int})
        return ops

    def textual(self, node: dict[str, Any], v: str) -> list[Op]:
        ops: list[Op] = []
        for key in ("min_length", "max_length"):
            if node.get(key) is not None:
                ops.append({"op": key, "var": v, "n": node[key]})
        if node.get("pattern") is not None:
            ops.append({"op": "pattern", "var": v, "rx": self.pattern(node["pattern"])})
        if self.formats and node.get("format") is not None:
            ops.append({"op": "format", "var": v, "format": self._index(self.format_names, node["format"])})
        return ops

    def array(self, node: dict[str, Any], v: str) -> list[Op]:
        ops: list[Op] = []
        for key in ("min_items", "max_items"):
            if node.get(key) is not None:
                ops.append({"op": key, "var": v, "n": node[key]})
        prefix = node.get("prefix_items") or []
        for i, sub in enumerate(prefix):
            x = self.fresh()
            body = self.node(sub, x)
            if body:
                ops.append({"op": "prefix", "var": v, "index": i, "item": x, "body": body})
        rest = node.get("items")
        if rest is not None:
            if rest.get("bool") is False:
                ops.append({"op": "max_items", "var": v, "n": len(prefix)})
            else:
                x = self.fresh()
                body = self.node(rest, x)
                if body:
                    ops.append({"op": "items", "var": v, "start": len(prefix), "item": x, "body": body})
        if node.get("contains") is not None:
            fn = self.function(node["contains"])
            ops.append({"op": "contains", "var": v, "fn": fn, "min": node.get("min_contains", 1), "max": node.get("max_contains"), "item": self.fresh()})
        if node.get("unique_items"):
            ops.append({"op": "unique", "var": v})
        return ops

    def object(self, node: dict[str, Any], v: str) -> list[Op]:
        ops: list[Op] = []
        if node.get("required"):
            ops.append(self.required(v, node["required"]))
        for prop, needed in (node.get("dependent_required") or {}).items():
            if needed:
                ops.append({"op": "when_has", "var": v, "name": prop, "body": [self.required(v, needed)]})
        for key in ("min_properties", "max_properties"):
            if node.get(key) is not None:
                ops.append({"op": key, "var": v, "n": node[key]})
        if node.get("property_names") is not None:
            fn = self.function(node["property_names"], keep=False)
            if fn is not None:
                ops.append({"op": "property_names", "var": v, "fn": fn, "key": self.fresh("k")})
        properties = node.get("properties") or {}
        patterns = node.get("pattern_properties") or []
        extra = node.get("additional_properties")
        required = set(node.get("required") or ())
        for name, sub in properties.items():
            ops += self.member(v, name, sub, name in required)
        if extra is not None and extra.get("bool") is False and not patterns:
            ops.append({"op": "closed", "var": v, "set": self.names(list(properties))})
        elif patterns or extra is not None:
            x = self.fresh()
            plans = [{"rx": self.pattern(p["pattern"]), "body": self.node(p["schema"], x)} for p in patterns]
            rest = None if extra is None else self.node(extra, x)
            if any(p["body"] for p in plans) or rest:
                ops.append(
                    {"op": "members", "var": v, "key": self.fresh("k"), "item": x, "known": self.names(list(properties)) if properties else None,
                     "patterns": plans, "rest": rest or None, "matched": self.fresh("m")}
                )
        return ops


def _unevaluated(node: Any) -> bool:
    if isinstance(node, dict):
        return "unevaluated_properties" in node or "unevaluated_items" in node or any(_unevaluated(v) for v in node.values())
    if isinstance(node, list):
        return any(_unevaluated(v) for v in node)
    return False


def accept_plan(table: dict[str, Any], integers: str, formats: bool, roots: list[str], nodes: list[tuple[dict[str, Any], str]] | None = None) -> dict[str, Any]:
    """The compiled validator of a validation table for the definitions `roots` (and those
    they reach); see the module docstring. `nodes`: subschemas also compiled, each to the ops
    checking the variable named beside it, given in `nodes` of the plan in the same order (a
    target's own use of them: they may call the plan's functions)."""
    return _Planner(table, integers, formats).build(roots, nodes or [])


def general_roots(table: dict[str, Any]) -> list[str]:
    """The definitions from which a `schema` node (the general validator's) is reachable, in
    table order: those a binding checks by the compiled validator."""
    refs: dict[str, set[str]] = {}
    found: set[str] = set()

    def walk(node: Any, name: str) -> None:
        if isinstance(node, list):
            for v in node:
                walk(v, name)
        elif isinstance(node, dict):
            if node.get("kind") == "schema":
                found.add(name)
            if node.get("kind") == "ref":
                refs[name].add(node["name"])
            if node.get("kind") == "schema" and "ref" in node:
                refs[name].add(node["ref"])
            if node.get("kind") == "tagged":
                refs[name].update(node["tags"].values())
            for v in node.values():
                walk(v, name)

    for name, node in table.items():
        refs[name] = set()
        walk(node, name)
    changed = True
    while changed:
        changed = False
        for name, targets in refs.items():
            if name not in found and targets & found:
                found.add(name)
                changed = True
    return [name for name in table if name in found]


def depth_bounds(table: dict[str, Any]) -> dict[str, int]:
    """How deep (arrays and objects) a valid value of each definition can nest, for the
    definitions whose schema bounds it: every member and item is constrained by a subschema that
    is itself bounded (no open object, no array without `items`, no value of any type, no
    recursion). A value that satisfies several subschemas (`allOf`, `$ref` beside other
    keywords) is bounded by the least of them; one that satisfies one of several (`anyOf`,
    `oneOf`, a union) by the greatest; `not`, `if`/`then`/`else` and the rest bound nothing."""
    memo: dict[str, int | None] = {}
    busy: set[str] = set()

    def definition(name: str) -> int | None:
        if name in memo:
            return memo[name]
        if name in busy or name not in table:
            return None  # recursion: a definition reaching itself nests without end
        busy.add(name)
        found = node(table[name])
        busy.discard(name)
        memo[name] = found
        return found

    def most(bounds: list[int | None]) -> int | None:
        return None if any(b is None for b in bounds) else max(bounds, default=0)  # type: ignore[type-var]

    def value(v: Any) -> int:
        if isinstance(v, dict):
            return 1 + max((value(x) for x in v.values()), default=0)
        if isinstance(v, list):
            return 1 + max((value(x) for x in v), default=0)
        return 0

    def node(n: dict[str, Any]) -> int | None:
        kind = n.get("kind")
        if kind == "ref":
            return definition(n["name"])
        if kind in ("string", "integer", "number", "enum", "boolean", "null"):
            return 0
        if kind == "const":
            return value(n["value"])
        if kind == "any":
            return None
        if kind == "object":
            if n["closed"] is None:
                return None
            inner = most([node(f["type"]) for f in n["fields"].values()])
            return None if inner is None else 1 + inner
        if kind == "map":
            if n["values"] is None:
                return None
            inner = node(n["values"])
            return None if inner is None else 1 + inner
        if kind == "array":
            inner = node(n["items"])
            return None if inner is None else 1 + inner
        if kind == "tagged":
            return most([definition(m) for m in n["tags"].values()])
        if kind == "union":
            return most([node(m) for _, m in n["members"]])
        if kind == "schema":
            return schema(n)
        return None

    def schema(n: dict[str, Any]) -> int | None:
        if n.get("bool") is False:
            return 0
        bounds: list[int] = []
        types = n.get("types")
        if types is not None and not {"object", "array"} & set(types):
            bounds.append(0)
        if "const" in n:
            bounds.append(value(n["const"][0]))
        if "enum" in n:
            bounds.append(max((value(x) for x in n["enum"]), default=0))
        for sub in ([{"kind": "ref", "name": n["ref"]}] if "ref" in n else []) + list(n.get("all_of", ())):
            b = node(sub)
            if b is not None:
                bounds.append(b)
        for key in ("any_of", "one_of"):
            if key in n:
                b = most([node(s) for s in n[key]])
                if b is not None:
                    bounds.append(b)
        own = structure(n, types)
        if own is not None:
            bounds.append(own)
        return min(bounds) if bounds else None

    def structure(n: dict[str, Any], types: list[str] | None) -> int | None:
        """The bound the schema's own object and array keywords set."""
        parts: list[int | None] = []
        if types is None or "object" in types:
            extra = n.get("additional_properties")
            if extra is None:
                return None
            subs = list((n.get("properties") or {}).values()) + [p["schema"] for p in n.get("pattern_properties") or []]
            if extra.get("bool") is not False:
                subs.append(extra)
            inner = most([node(s) for s in subs])
            parts.append(None if inner is None else 1 + inner)
        if types is None or "array" in types:
            rest = n.get("items")
            if rest is None:
                return None
            subs = list(n.get("prefix_items") or []) + ([] if rest.get("bool") is False else [rest])
            inner = most([node(s) for s in subs])
            parts.append(None if inner is None else 1 + inner)
        return most(parts)

    return {name: d for name in table if (d := definition(name)) is not None}
