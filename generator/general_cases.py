"""Documents derived from the general validator's nodes (the parts of a schema the typed model
does not capture): a sample each node accepts, and one probe per keyword that tries to break
it. Whether a probe is valid is decided by the validator itself, run here at generation time
(the Python runtime modules, loaded apart); the generated tests then check every document
against jsonschema, the reference, which is the proof.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import sys
import types
from typing import Any, Callable

from . import regex_sample, resources
from .regex import ecma_to_python
from .cases import spread
from .schema.loader import MAX_DERIVED
from .validation_table import json_type_of as _kind, map_patterns

_COUNTER = itertools.count()


class NoSample(Exception):
    pass


def load_validator(table: dict[str, Any], integers: str, formats: bool) -> Any:
    """The runtime's `vocabulary` module over `table`, loaded as a package of its own."""
    name = f"_specbind_validator_{next(_COUNTER)}"
    pkg = types.ModuleType(name)
    pkg.__path__ = []
    sys.modules[name] = pkg
    st = types.ModuleType(name + ".schema_table")
    st.DEFINITIONS = map_patterns(table, ecma_to_python)  # type: ignore[attr-defined]
    st.INTEGERS = integers  # type: ignore[attr-defined]
    st.FORMATS = formats  # type: ignore[attr-defined]
    sys.modules[name + ".schema_table"] = st
    module = None
    for mod, folder in (("errors", "core"), ("shown", "core"), ("limits", "core"), ("jsonscan", "core"), ("validation", "core"), ("vocabulary", "vocabulary")):
        spec = importlib.util.spec_from_file_location(f"{name}.{mod}", resources.runtime("python") / folder / f"{mod}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[f"{name}.{mod}"] = module
        spec.loader.exec_module(module)
    return module


class GeneralDeriver:
    """Samples and probes for `schema` nodes; `typed_sample(name)` gives a valid instance of a
    typed definition (the typed deriver's)."""

    def __init__(self, table: dict[str, Any], integers: str, formats: bool, typed_sample: Callable[[str], Any]) -> None:
        self.table = table
        self.runtime = load_validator(table, integers, formats)
        self.typed_sample = typed_sample
        self.depth = 0
        self.stack: list[str] = []

    # -- judging --------------------------------------------------------------------------

    def valid(self, value: Any, node: dict[str, Any]) -> bool:
        check = self.runtime.Validation()
        try:
            check.check(value, node, "", "")
        except RecursionError:
            return False
        return not check.errors

    def valid_as(self, value: Any, definition: str) -> bool:
        return self.valid(value, {"kind": "ref", "name": definition})

    # -- samples --------------------------------------------------------------------------

    def sample(self, node: dict[str, Any]) -> Any:
        for candidate in self.candidates(node):
            if self.valid(candidate, node):
                return candidate
        raise NoSample(node.get("loc", ""))

    def candidates(self, node: dict[str, Any]) -> list[Any]:
        kind = node.get("kind")
        if kind == "ref":
            return self.of_definition(node["name"])
        if kind != "schema":
            return self.of_typed(node)
        if node.get("bool") is False:
            return []
        self.depth += 1
        try:
            if self.depth > 12:
                return [None, {}, [], "", 0, False]
            return self._candidates(node)
        finally:
            self.depth -= 1

    def of_definition(self, name: str) -> list[Any]:
        if name in self.stack:
            return []
        self.stack.append(name)
        try:
            node = self.table[name]
            if node.get("kind") == "schema":
                return self.candidates(node)
            try:
                return [self.typed_sample(name)]
            except Exception:  # noqa: BLE001 - the typed sampler found none: no candidate
                return []
        finally:
            self.stack.pop()

    def of_typed(self, node: dict[str, Any]) -> list[Any]:
        kind = node["kind"]
        simple: dict[str, list[Any]] = {"null": [None], "boolean": [True], "any": [{"k": [1, "v"]}, 1]}
        if kind in simple:
            return simple[kind]
        if kind == "const":
            return [node["value"]]
        if kind == "enum":
            return list(node["values"][:1])
        if kind == "string":
            return self.strings(node)
        if kind in ("integer", "number"):
            return [self.number(node, kind == "integer")]
        if kind == "array":
            item = self.first(node["items"])
            return [[item] * (node.get("min_items") or 0)] if item is not _NONE else [[]]
        if kind == "map":
            return [{}]
        if kind == "union":
            return [c for _, member in node["members"] for c in self.candidates(member)[:1]]
        return []

    def first(self, node: dict[str, Any]) -> Any:
        try:
            return self.sample(node)
        except NoSample:
            return _NONE

    def _candidates(self, node: dict[str, Any]) -> list[Any]:
        out: list[Any] = []
        if "const" in node:
            return [node["const"][0]]
        if "enum" in node:
            return list(node["enum"])
        for key in ("any_of", "one_of"):
            for sub in node.get(key, ()):
                for c in self.candidates(sub)[:3]:
                    out.append(self.complete(c, node))
        if "ref" in node:
            out += [self.complete(c, node) for c in self.of_definition(node["ref"])[:3]]
        parts = [self.candidates(sub)[:2] for sub in node.get("all_of", ())]
        for found in parts:
            out += [self.complete(c, node) for c in found]
        if len(parts) > 1 and all(parts):
            # each part alone rarely satisfies the others (`allOf: [{$ref: Error}, {code: {const:
            # ...}}]`): their first samples merged too, the later part winning and then the earlier
            for later_wins in (True, False):
                merged = parts[0][0]
                for found in parts[1:]:
                    merged = _merged(merged, found[0], later_wins)
                out.append(self.complete(merged, node))
        if "then" in node:
            out += [self.complete(c, node) for c in self.candidates(node["then"])[:2]]
        kinds = node.get("types") or ["object", "string", "integer", "array", "boolean", "null", "number"]
        for kind in kinds:
            out += self.of_kind(kind, node)
        return out

    def complete(self, candidate: Any, node: dict[str, Any]) -> Any:
        """A candidate from a subschema, with what the node itself requires added."""
        if isinstance(candidate, dict) and any(k in node for k in ("properties", "required")):
            merged = dict(candidate)
            base = self.of_kind("object", node)
            if base:
                for k, v in base[0].items():
                    merged.setdefault(k, v)
            return merged
        return candidate

    def of_kind(self, kind: str, node: dict[str, Any]) -> list[Any]:
        if kind == "null":
            return [None]
        if kind == "boolean":
            return [True, False]
        if kind in ("integer", "number"):
            return [self.number(node, kind == "integer")]
        if kind == "string":
            return self.strings(node)
        if kind == "array":
            return self.array(node)
        if kind == "object":
            return self.object(node)
        return []

    def number(self, node: dict[str, Any], integer: bool) -> int | float:
        lo = node.get("minimum")
        hi = node.get("maximum")
        xlo, xhi = node.get("exclusive_minimum"), node.get("exclusive_maximum")
        if xlo is not None:
            above = math.floor(xlo) + 1 if integer else xlo + (node.get("multiple_of") or 1)
            lo = above if lo is None else max(lo, above)
        if xhi is not None:
            below = math.ceil(xhi) - 1 if integer else xhi - (node.get("multiple_of") or 1)
            hi = below if hi is None else min(hi, below)
        v: float = 0 if lo is None else max(0, lo)
        if hi is not None and v > hi:
            v = hi
        step = node.get("multiple_of")
        if step:
            v = math.ceil(v / step) * step
            if hi is not None and v > hi:
                v = math.floor(hi / step) * step
        if integer or (isinstance(v, float) and v.is_integer() and not isinstance(step, float)):
            return int(v)
        return v

    def strings(self, node: dict[str, Any]) -> list[Any]:
        least = node.get("min_length") or 0
        out = ["x" * max(1, least), "x" * least, "a@example.com", "2026-01-01T00:00:00Z", "https://example.com/x"]
        pattern = node.get("pattern")
        if pattern:
            derived = regex_sample.sample(ecma_to_python(pattern))
            if derived is not None:
                out.insert(0, derived)
                if len(derived) < least:
                    out.insert(1, derived + "x" * (least - len(derived)))
        most = node.get("max_length")
        if most is not None:
            out = [s for s in out if len(s) <= most] + ["x" * min(most, max(least, 1)), ""]
        return out

    def array(self, node: dict[str, Any]) -> list[Any]:
        out: list[Any] = []
        prefix = [self.first(s) for s in node.get("prefix_items", ())]
        if _NONE in prefix:
            prefix = prefix[: prefix.index(_NONE)]
        least = node.get("min_items") or 0
        items = node.get("items")
        extra = self.first(items) if items is not None and items.get("bool") is not False else _NONE
        contains = node.get("contains")
        doc = list(prefix)
        if extra is not _NONE:
            while len(doc) < least:
                doc.append(_vary(extra, len(doc)) if node.get("unique_items") else extra)
        if contains is not None:
            c = self.first(contains)
            if c is not _NONE:
                with_c = doc + [c] * max(1, node.get("min_contains") or 1)
                out.append(with_c)
        out += [doc, []]
        return out

    def object(self, node: dict[str, Any]) -> list[Any]:
        doc: dict[str, Any] = {}
        props = node.get("properties", {})
        needed = list(node.get("required", ()))
        for name in list(needed):
            for dep in node.get("dependent_required", {}).get(name, ()):
                if dep not in needed:
                    needed.append(dep)
        for name in needed:
            sub = props.get(name)
            if sub is None:
                for entry in node.get("pattern_properties", ()):
                    import re

                    if re.search(ecma_to_python(entry["pattern"]), name):
                        sub = entry["schema"]
                        break
            if sub is None:
                sub = node.get("additional_properties") or {"kind": "schema", "loc": ""}
            value = self.first(sub)
            doc[name] = value if value is not _NONE else None
        least = node.get("min_properties") or 0
        for name, sub in props.items():
            if len(doc) >= least:
                break
            if name not in doc:
                value = self.first(sub)
                if value is not _NONE:
                    doc[name] = value
        i = 0
        while len(doc) < least and i < least + 3:
            doc[f"k{i}"] = 1
            i += 1
        return [doc, {}]

    # -- probes ---------------------------------------------------------------------------

    def probes(self, node: dict[str, Any], valid: Any, depth: int = 0) -> list[tuple[str, Any, str]]:
        """(label, value, instance pointer below) documents that try to break each keyword of
        node, each built from a valid value."""
        if node.get("kind") == "ref":
            target = self.table[node["name"]]
            return self.probes(target, valid, depth) if target.get("kind") == "schema" and depth < 2 else []
        if node.get("kind") != "schema":
            return []
        out: list[tuple[str, Any, str]] = []
        kinds = node.get("types")
        if kinds is not None:
            for label, other in (("null", None), ("a-boolean", True), ("a-fraction", 1.5), ("a-string", "x"), ("an-array", []), ("an-object", {})):
                if _kind(other) not in kinds and not (_kind(other) == "integer" and "number" in kinds):
                    out.append((f"type-{label}", other, ""))
                    break
            if "integer" in kinds and "number" not in kinds:
                out.append(("type-integral-float", 1.0, ""))
        if "const" in node or "enum" in node:
            out.append(("not-a-member", "specbind-not-a-member", ""))
            if isinstance(valid, int) and not isinstance(valid, bool):
                out.append(("numerically-equal", float(valid), ""))
        for key, label, delta in (("minimum", "below-minimum", -1), ("maximum", "above-maximum", 1)):
            if key in node:
                out.append((label, node[key] + delta, ""))
        for key, label in (("exclusive_minimum", "at-exclusive-minimum"), ("exclusive_maximum", "at-exclusive-maximum")):
            if key in node:
                out.append((label, node[key], ""))
        if "multiple_of" in node and _is_number(valid):
            out.append(("not-a-multiple", valid + node["multiple_of"] / 2, ""))
            out.append(("another-multiple", valid + node["multiple_of"] * 3, ""))
        if "min_length" in node and node["min_length"] > 0:
            out.append(("too-short", "x" * (node["min_length"] - 1), ""))
        if "max_length" in node and node["max_length"] < MAX_DERIVED:
            out.append(("too-long", "x" * (node["max_length"] + 1), ""))
        if "pattern" in node:
            for c in ("x y", "", "~", "0"):
                out.append((f"pattern-{c!r}", c, ""))
        if isinstance(valid, list):
            if "min_items" in node and node["min_items"] > 0:
                out.append(("too-few-items", valid[: node["min_items"] - 1], ""))
            if "max_items" in node and node["max_items"] < MAX_DERIVED:
                filler = valid[0] if valid else None
                out.append(("too-many-items", [_vary(filler, i) for i in range(node["max_items"] + 1)], ""))
            if node.get("unique_items") and valid:
                out.append(("duplicate-items", [valid[0], valid[0]], ""))
            if "contains" in node:
                out.append(("no-contained-item", [], ""))
            if "prefix_items" in node or "items" in node:
                out.append(("extra-item", [*valid, "specbind-extra"], ""))
            if valid and "items" in node and depth < 2:
                for label, v, p in self.probes(node["items"], valid[-1], depth + 1)[:6]:
                    out.append((f"item-{label}", [*valid[:-1], v], f"/{len(valid) - 1}{p}"))
        if isinstance(valid, dict):
            for name in spread(list(node.get("required", ())), len(valid)):
                if name in valid:
                    out.append((f"missing-{name}", {k: v for k, v in valid.items() if k != name}, ""))
            out.append(("unknown-property", {**valid, "specbindUnknownProperty": True}, ""))
            if "min_properties" in node and valid:
                out.append(("too-few-properties", {}, ""))
            if "max_properties" in node and node["max_properties"] < MAX_DERIVED:
                out.append(("too-many-properties", {**valid, **{f"k{i}": 1 for i in range(node["max_properties"] + 1)}}, ""))
            for prop, needed in node.get("dependent_required", {}).items():
                if needed:
                    base = {k: v for k, v in valid.items() if k not in needed}
                    base.setdefault(prop, valid.get(prop, 1))
                    out.append((f"dependency-of-{prop}", base, ""))
            if "property_names" in node:
                out.append(("bad-property-name", {**valid, "~ bad name ~": 1}, ""))
            for entry in node.get("pattern_properties", ()):
                name = regex_sample.sample(ecma_to_python(entry["pattern"]))
                if name is not None:
                    out.append((f"pattern-property-{name}", {**valid, name: "specbind"}, ""))
                    out.append((f"pattern-property-{name}-number", {**valid, name: 1}, ""))
            if depth < 2:
                for prop, sub in spread(list(node.get("properties", {}).items()), len(valid)):
                    if prop in valid:
                        for label, v, p in self.probes(sub, valid[prop], depth + 1)[:8]:
                            out.append((f"{prop}-{label}", {**valid, prop: v}, "/" + prop.replace("~", "~0").replace("/", "~1") + p))
                    else:
                        sample = self.first(sub)
                        if sample is not _NONE:
                            out.append((f"{prop}-present", {**valid, prop: sample}, ""))
        for key in ("any_of", "one_of"):
            # each probe is judged against every member: on a wide union, members spread as an
            # object's are (each member's probe for 4,000 `const`s: init took 370 s)
            members = list(enumerate(node.get(key, ())))
            for i, sub in spread(members, len(members)):
                c = self.first(sub)
                if c is not _NONE:
                    out.append((f"{key}-{i}", c, ""))
        if "not" in node:
            c = self.first(node["not"])
            if c is not _NONE:
                out.append(("matches-not", c, ""))
        if "if" in node:
            c = self.first(node["if"])
            if c is not _NONE:
                out.append(("matches-if", c, ""))
        if "ref" in node and depth < 2:
            target = self.table[node["ref"]]
            if target.get("kind") == "schema":
                out += [(f"ref-{label}", v, p) for label, v, p in self.probes(target, valid, depth + 1)[:6]]
        return out


class _None:
    def __repr__(self) -> str:
        return "<no sample>"


_NONE: Any = _None()


def _merged(a: Any, b: Any, later_wins: bool) -> Any:
    """Two samples of one value (allOf parts), objects merged member by member."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = dict(a)
        for key, value in b.items():
            out[key] = _merged(out[key], value, later_wins) if key in out else value
        return out
    return b if later_wins else a


def _vary(value: Any, i: int) -> Any:
    """A value like `value`, different for each i (for unique items)."""
    if isinstance(value, bool) or value is None:
        return [True, False, None][i % 3] if i < 3 else i
    if isinstance(value, (int, float)):
        return value + i
    if isinstance(value, str):
        return value + ("x" * i)
    if isinstance(value, dict):
        return {**value, f"specbind{i}": i} if i else value
    if isinstance(value, list):
        return [*value, i] if i else value
    return value




def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
