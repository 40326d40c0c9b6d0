"""Test documents derived from the IR alone, for every target's generated tests: a minimal and a
full valid instance of every definition, and one invalid instance per constraint (missing
required, wrong type, unknown property, out-of-enum, const, bounds, pattern, minItems, null where
null is not allowed), each with the keyword and instance location the failure must be reported at.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Sequence, TypeVar

from . import regex_sample
from .errors import SpecError, pointer_join
from .ir import model as M
from .regex import ecma_to_python
from .schema.loader import MAX_DERIVED

UNKNOWN_PROPERTY = "specbindUnknownProperty"
UNKNOWN_TAG = "specbind-unknown-member"

Case = dict[str, Any]


class Sampler:
    def __init__(self, ir: M.IR) -> None:
        self.ir = ir
        self.stack: list[str] = []
        self.general: Any = None  # a GeneralDeriver, when the IR has general nodes

    def general_sample(self, node: dict[str, Any], loc: str) -> Any:
        from .general_cases import NoSample

        try:
            return self.general.sample(node)
        except NoSample:
            raise SpecError(
                self.ir.source,
                loc,
                "no sample document fits this schema, so no test can be derived from it: give it an `examples` entry that does",
            ) from None

    def of(self, t: M.TypeExpr | M.Definition) -> Any:
        if isinstance(t, M.TRef):
            if t.name in self.stack:
                raise SpecError(
                    self.ir.source,
                    self.ir.defs[t.name].loc,
                    f"required fields form a cycle through {' -> '.join(self.stack + [t.name])}: no finite instance exists",
                )
            self.stack.append(t.name)
            try:
                return self.of(self.ir.defs[t.name])
            finally:
                self.stack.pop()
        if isinstance(t, M.ObjectDef) and t.checks is not None:
            return self.general_sample(t.checks, t.loc)
        if isinstance(t, M.TSchema):
            return self.general_sample(t.node, t.loc)
        if isinstance(t, M.ObjectDef):
            return {f.wire: self.of(f.type) for f in t.fields if f.required}
        if isinstance(t, M.UnionDef):
            return self.of(t.union)
        if isinstance(t, M.EnumDef):
            return t.values[0]
        if isinstance(t, M.AliasDef):
            return self.of(t.type)
        if isinstance(t, M.TNull):
            return None
        if isinstance(t, M.TString):
            return self.string(t)
        if isinstance(t, (M.TInteger, M.TNumber)):
            return number_in(t)
        if isinstance(t, M.TBoolean):
            return True
        if isinstance(t, M.TConst):
            return t.value
        if isinstance(t, M.TEnum):
            return t.values[0]
        if isinstance(t, M.TAny):
            return {"k": [1, "v"]}
        if isinstance(t, M.TMap):
            return {} if t.values is None else {self.key(t): self.of(t.values)}
        if isinstance(t, M.TArray):
            return [self.of(t.items) for _ in range(t.min_items or 0)]
        if isinstance(t, M.TUnion):
            # the first member with a finite instance (a recursive member may have none)
            for member in t.members[:-1]:
                try:
                    return self.of(member)
                except SpecError:
                    continue
            return self.of(t.members[-1])
        raise AssertionError(t)

    def string(self, t: M.TString) -> str:
        """A string the type accepts: the schema's examples first, then a value in its format,
        then plain text, then one derived from the pattern itself."""
        size = max(1, t.min_length or 0)
        candidates = [*t.examples, *FORMAT_SAMPLES.get(t.format or "", ()), "x" * size, "", "/x"]
        if t.pattern:
            derived = regex_sample.sample(ecma_to_python(t.pattern))
            candidates += [derived] if derived is not None else []
        for c in candidates:
            if string_fits(t, c):
                return c
        raise SpecError(
            self.ir.source,
            t.loc + ("/pattern" if t.pattern else ""),
            "no sample string fits this string type: give the schema node an `examples` entry that does",
        )

    def key(self, t: M.TMap) -> str:
        return "k" if t.keys is None or string_fits(t.keys, "k") else self.string(t.keys)

    def full(self, d: M.ObjectDef) -> dict[str, Any]:
        doc = {}
        for f in d.fields:
            v = self.of(f.type)
            if isinstance(f.type, M.TArray) and not v:
                v = [self.of(f.type.items)]
            doc[f.wire] = v
        return doc


# Values in the common `format`s, tried first so samples read like real data (format is an
# annotation: nothing asserts it).
FORMAT_SAMPLES: dict[str, tuple[str, ...]] = {
    "date-time": ("2026-01-01T00:00:00Z",),
    "date": ("2026-01-01",),
    "time": ("00:00:00Z",),
    "email": ("a@example.com",),
    "uri": ("https://example.com/x",),
    "uri-reference": ("/x",),
    "uuid": ("00000000-0000-4000-8000-000000000000",),
    "hostname": ("example.com",),
    "ipv4": ("192.0.2.1",),
    "ipv6": ("2001:db8::1",),
}


def string_fits(t: M.TString, value: str) -> bool:
    if t.min_length is not None and len(value) < t.min_length:
        return False
    if t.max_length is not None and len(value) > t.max_length:
        return False
    return t.pattern is None or re.search(ecma_to_python(t.pattern), value) is not None


def number_in(t: M.TInteger | M.TNumber) -> int | float:
    """The value nearest 0 the bounds admit (exclusive bounds included)."""
    integer = isinstance(t, M.TInteger)
    lo: float | None = t.minimum
    hi: float | None = t.maximum
    if t.exclusive_minimum is not None:
        above = math.floor(t.exclusive_minimum) + 1 if integer else t.exclusive_minimum + 1
        lo = above if lo is None else max(lo, above)
    if t.exclusive_maximum is not None:
        below = math.ceil(t.exclusive_maximum) - 1 if integer else t.exclusive_maximum - 1
        hi = below if hi is None else min(hi, below)
    v: float = 0 if lo is None else max(0, lo)
    if hi is not None and v > hi:
        v = hi if lo is None or not integer or hi >= lo else lo
    if not integer and t.exclusive_minimum is not None and v <= t.exclusive_minimum:
        v = (t.exclusive_minimum + (hi if hi is not None else t.exclusive_minimum + 2)) / 2
    return int(v) if integer else v


def matching(pattern: str, candidates: list[str]) -> str | None:
    rx = re.compile(ecma_to_python(pattern))
    for c in candidates:
        if rx.search(c):
            return c
    return None


def not_matching(pattern: str) -> str | None:
    rx = re.compile(ecma_to_python(pattern))
    for c in ("x y", "x", "", "~", " "):
        if not rx.search(c):
            return c
    return None


class Deriver:
    def __init__(self, ir: M.IR) -> None:
        self.ir = ir
        self.sample = Sampler(ir)

    def resolve(self, t: M.TypeExpr) -> M.TypeExpr | M.Definition:
        return M.resolve(t, self.ir.defs.__getitem__)

    def wrong(self, t: M.TypeExpr, seen: frozenset[str] = frozenset()) -> list[tuple[str, Any, str, str]]:
        """(label, bad value, keyword, pointer below the value) for one value slot; `seen`, the
        definitions already entered on the way here: a recursive type is broken once, not
        followed forever (`A = array of A`)."""
        r: M.TypeExpr | M.Definition = t
        while isinstance(r, (M.TRef, M.AliasDef)):
            if isinstance(r, M.TRef):
                if r.name in seen:
                    return []
                seen = seen | {r.name}
                r = self.ir.defs[r.name]
            else:
                r = r.type
        out: list[tuple[str, Any, str, str]] = []
        if isinstance(r, M.ObjectDef) or isinstance(r, M.TMap):
            out += [("not-an-object", 42, "type", ""), ("null", None, "type", "")]
            if isinstance(r, M.TMap) and r.values is not None:
                k = self.sample.key(r)
                out += [(f"value-{label}", {k: v}, kw, "/" + k + p) for label, v, kw, p in self.wrong(r.values, seen)]
            if isinstance(r, M.TMap) and r.keys is not None:
                bad = self.bad_string(r.keys)
                if bad is not None:
                    value = None if r.values is None else self.sample.of(r.values)
                    out.append(("bad-property-name", {bad: value}, "propertyNames", ""))
        elif isinstance(r, M.TSchema):
            valid = self.sample.of(r)
            out += [(label, v, PROBE, p) for label, v, p in self.sample.general.probes(r.node, valid)]
        elif isinstance(r, (M.UnionDef, M.TUnion)):
            u = r.union if isinstance(r, M.UnionDef) else r
            if "null" not in self._kinds(u):
                out += [("null", None, u.keyword, "")]
            if u.discriminator:
                out += [("not-an-object", 42, u.keyword, "")]
                out += [("unknown-member", {u.discriminator: UNKNOWN_TAG}, u.keyword, "")]
            else:
                kinds = set().union(*(self._kinds(m) for m in u.members))
                for label, value, kind in (("a-number", 1.5, "number"), ("a-boolean", True, "boolean"), ("an-object", {}, "object")):
                    if kind not in kinds:
                        out.append((label, value, u.keyword, ""))
                        break
        elif isinstance(r, M.EnumDef) or isinstance(r, M.TEnum):
            keyword, typed = (r.keyword, r.typed) if isinstance(r, M.TEnum) else ("enum", True)
            out += [("not-a-member", "specbind-not-a-member", keyword, ""), ("not-a-string", 1, "type" if typed else keyword, ""), ("null", None, "type" if typed else keyword, "")]
        elif isinstance(r, M.TNull):
            out += [("not-null", 0, r.keyword, "")]
        elif isinstance(r, M.TString):
            out += [("not-a-string", 42, "type", ""), ("null", None, "type", "")]
            if r.min_length and not r.pattern:
                out.append(("too-short", "x" * (r.min_length - 1), "minLength", ""))
            if r.max_length is not None and r.max_length < MAX_DERIVED and not r.pattern:
                out.append(("too-long", "x" * (r.max_length + 1), "maxLength", ""))
            if r.pattern and (bad := not_matching(r.pattern)) is not None:
                out.append(("pattern-mismatch", bad, "pattern", ""))
        elif isinstance(r, (M.TInteger, M.TNumber)):
            out += [("a-string", "1", "type", ""), ("a-boolean", True, "type", ""), ("null", None, "type", "")]
            if isinstance(r, M.TInteger):
                out.append(("a-fraction", 1.5, "type", ""))
            if r.minimum is not None:
                out.append(("below-minimum", r.minimum - 1, "minimum", ""))
            if r.maximum is not None:
                out.append(("above-maximum", r.maximum + 1, "maximum", ""))
            if r.exclusive_minimum is not None:
                out.append(("at-exclusive-minimum", r.exclusive_minimum, "exclusiveMinimum", ""))
            if r.exclusive_maximum is not None:
                out.append(("at-exclusive-maximum", r.exclusive_maximum, "exclusiveMaximum", ""))
        elif isinstance(r, M.TBoolean):
            out += [("a-number", 1, "type", ""), ("a-string", "true", "type", ""), ("null", None, "type", "")]
        elif isinstance(r, M.TConst):
            v = r.value
            other: Any = (not v) if isinstance(v, bool) else (v + 1 if isinstance(v, int) else v + "-other")
            out += [("other-value", other, "const", ""), ("null", None, "const", "")]
        elif isinstance(r, M.TAny):
            if r.nonnull:
                out.append(("null", None, "not", ""))
        elif isinstance(r, M.TArray):
            out += [("not-an-array", "x", "type", ""), ("null", None, "type", "")]
            if r.min_items:
                out.append(("too-few-items", [self.sample.of(r.items)] * (r.min_items - 1), "minItems", ""))
            for label, v, kw, p in self.wrong(r.items, seen):
                if r.min_items and label.endswith(("unknown-member", "not-a-member")):
                    label += "-leaving-too-few"  # dropping the one item breaks minItems: an error
                out.append((f"item-{label}", [v], kw, "/0" + p))
        return out

    def bad_string(self, t: M.TString) -> str | None:
        """A string the type refuses, when there is one."""
        if t.min_length:
            return "x" * (t.min_length - 1) if not t.pattern or not string_fits(t, "") else ""
        if t.max_length is not None and t.max_length < MAX_DERIVED:
            return "x" * (t.max_length + 1)
        return not_matching(t.pattern) if t.pattern else None

    def _kinds(self, t: M.TypeExpr) -> set[str]:
        return M.json_types(t, self.ir.defs.__getitem__)

    def cases(self) -> list[Case]:
        out: list[Case] = []
        for name, d in self.ir.defs.items():
            out += self.for_definition(name, d)
        return out

    def for_definition(self, name: str, d: M.Definition) -> list[Case]:
        if self.sample.general is not None:
            try:
                return self.judged(name, d, self.typed_cases(name, d))
            except SpecError:
                # no document fits (a schema that admits nothing, or nothing the sampler finds):
                # plain values of every JSON type, judged by the validator, are the cases
                cases = []
                for label, doc in (("null", None), ("true", True), ("zero", 0), ("fraction", 1.5), ("text", "x"), ("array", []), ("object", {})):
                    ok = self.sample.general.valid_as(doc, name)
                    cases.append(valid(name, label, doc) if ok else invalid(name, label, doc, None, None))
                return cases
        return self.typed_cases(name, d)

    def judged(self, name: str, d: M.Definition, cases: list[Case]) -> list[Case]:
        """Cases of a schema with general nodes: probes (and every case of a definition the
        general validator checks) judged by that validator, the rest as the typed deriver says."""
        general = self.sample.general
        whole = isinstance(d, M.ObjectDef) and d.checks is not None or isinstance(d, M.AliasDef) and isinstance(d.type, M.TSchema)
        out = []
        for case in cases:
            if case["valid"] and not whole and case.get("keyword") != PROBE:
                out.append(case)
                continue
            if not case["valid"] and case["keyword"] != PROBE and not whole:
                out.append(case)
                continue
            label = case["name"].split("/", 2)[2]
            if general.valid_as(case["document"], name):
                out.append(valid(name, label, case["document"]))
            else:
                out.append(invalid(name, label, case["document"], None, None))
        if whole:
            node = d.checks if isinstance(d, M.ObjectDef) else d.type.node  # type: ignore[union-attr]
            base = cases[0]["document"]
            seen = {json.dumps(c["document"], sort_keys=True) for c in out}
            for label, v, p in general.probes(node, base):
                key = json.dumps(v, sort_keys=True)
                if key in seen:
                    continue
                seen.add(key)
                if general.valid_as(v, name):
                    out.append(valid(name, f"probe-{label}", v))
                else:
                    out.append(invalid(name, f"probe-{label}", v, None, None))
        if self.ir.integers == "json-schema":
            for case in out:  # a probe written with 1.0 where an integer is reads back as 1
                if case["valid"] and "normalized" not in case:
                    plain = _integral(case["document"])
                    if json.dumps(plain) != json.dumps(case["document"]):
                        case["normalized"] = plain
        names = set()
        for case in out:  # labels may repeat across probes: keep names unique
            n, i = case["name"], 2
            while case["name"] in names:
                case["name"] = f"{n}-{i}"
                i += 1
            names.add(case["name"])
        return out

    def typed_cases(self, name: str, d: M.Definition) -> list[Case]:
        base = self.sample.of(d)
        cases: list[Case] = [valid(name, "minimal", base)]
        if isinstance(d, M.EnumDef):
            cases += [valid(name, f"member-{v}", v) for v in d.values[1:]]
        if isinstance(d, M.UnionDef):
            cases += [valid(name, f"member-{m.name}", self.sample.of(m)) for m in d.union.members[1:] if isinstance(m, M.TRef)]
        if isinstance(d, (M.UnionDef, M.EnumDef, M.AliasDef)) or d.checks is not None:
            t: M.TypeExpr = M.TRef(name, d.loc)
            if isinstance(d, M.ObjectDef) or isinstance(d, M.AliasDef) and isinstance(d.type, M.TSchema):
                return cases  # probes come from the general validator's node
            for label, v, kw, p in self.wrong(t):
                cases.append(invalid(name, label, v, kw, p, lenient=_lenient(label, p, top=True)))
            return cases
        assert isinstance(d, M.ObjectDef)
        cases.append(valid(name, "full", self.sample.full(d)))
        for f in spread(d.fields, len(base)):
            if f.required:
                doc = {k: v for k, v in base.items() if k != f.wire}
                cases.append(invalid(name, f"missing-{f.wire}", doc, "required", ""))
            for label, v, kw, p in self.wrong(f.type):
                doc = dict(base)
                doc[f.wire] = v
                ptr = pointer_join("", f.wire) + p
                lenient = _lenient(label, p, top=False, required=f.required)
                cases.append(invalid(name, f"{f.wire}-{label}", doc, kw, ptr, lenient=lenient))
            if isinstance(self.resolve(f.type), M.TInteger):
                doc = dict(base)
                doc[f.wire] = 1.0
                if self.ir.integers == "json-schema":
                    case = valid(name, f"{f.wire}-integral-float", doc)
                    case["normalized"] = {**doc, f.wire: 1}
                else:
                    case = invalid(name, f"{f.wire}-integral-float", doc, "type", pointer_join("", f.wire))
                    case["reference"] = "accepts"
                    case["why"] = "JSON Schema counts 1.0 as an integer; specbind keeps integers integers (1 and 1.0 told apart)"
                cases.append(case)
        if d.closed:
            doc = dict(base)
            doc[UNKNOWN_PROPERTY] = True
            cases.append(invalid(name, "unknown-property", doc, d.closed_by or "unevaluatedProperties", "", lenient="strip"))
        return cases


# Each case of one member of an object holds the object's other members, so deriving them for
# every member of a wide object is quadratic (2,000 required names: 87 s and 4 GB to init). Past
# CASE_MEMBERS members over those documents, the members given cases of their own are spread
# evenly over the object: every kind of case is still derived, on fewer of its members.
CASE_MEMBERS = 1 << 16
T = TypeVar("T")


def spread(members: Sequence[T], width: int) -> Sequence[T]:
    """The members whose own cases are derived when each case's document holds `width` members."""
    room = max(1, CASE_MEMBERS // max(1, width))
    if len(members) <= room:
        return members
    return [members[i * len(members) // room] for i in range(room)]


def _lenient(label: str, below: str, top: bool, required: bool = True) -> str:
    """What lenient decoding does with an unrecognised member of a union or of a closed set of
    strings: inside a list item (`/0`) or a map value (`/k`) that element is dropped and the rest
    survives; an optional property holding one is stripped; in a required one the value holding
    it is removed instead, here the whole document; a whole document of one is dropped."""
    if not label.endswith(("unknown-member", "not-a-member")):
        return "error"
    if below:  # under an array item (`/0`) or a map value (`/k`)
        return "strip"
    if top:
        return "drop"
    return "drop" if required else "strip"


def _integral(doc: Any) -> Any:
    """A document with every integral float as an int: how the json-schema integer rule
    decodes it."""
    if isinstance(doc, float) and doc.is_integer():
        return int(doc)
    if isinstance(doc, dict):
        return {k: _integral(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_integral(v) for v in doc]
    return doc


def valid(definition: str, label: str, doc: Any) -> Case:
    return {"definition": definition, "name": f"{definition}/valid/{label}", "document": doc, "valid": True}


PROBE = "?probe"  # a document whose validity the general validator decides


def invalid(definition: str, label: str, doc: Any, keyword: str | None, pointer: str | None, lenient: str = "error") -> Case:
    return {
        "definition": definition,
        "name": f"{definition}/invalid/{label}",
        "document": doc,
        "valid": False,
        "keyword": keyword,
        "pointer": pointer,
        "lenient": lenient,
        "reference": "rejects",
    }


def derive_cases(ir: M.IR, table: dict[str, Any] | None = None) -> list[Case]:
    deriver = Deriver(ir)
    if ir.integers != "exact" or ir.formats or any(_general(d) for d in ir.defs.values()):
        from .general_cases import GeneralDeriver
        from .validation_table import validation_table

        deriver.sample.general = GeneralDeriver(
            table if table is not None else validation_table(ir),
            ir.integers,
            ir.formats,
            lambda name: deriver.sample.of(M.TRef(name, ir.defs[name].loc)),
        )
    return deriver.cases()


def _general(d: M.Definition) -> bool:
    if isinstance(d, M.ObjectDef):
        return d.checks is not None or any(_has_schema(f.type) for f in d.fields)
    if isinstance(d, M.UnionDef):
        return _has_schema(d.union)
    if isinstance(d, M.AliasDef):
        return _has_schema(d.type)
    return False


def _has_schema(t: M.TypeExpr) -> bool:
    if isinstance(t, M.TSchema):
        return True
    if isinstance(t, M.TArray):
        return _has_schema(t.items)
    if isinstance(t, M.TMap):
        return t.values is not None and _has_schema(t.values)
    if isinstance(t, M.TUnion):
        return any(_has_schema(m) for m in t.members)
    return False
