"""Context for templates/python/: msgspec Structs for objects, StrEnums, type aliases for unions,
and the validation table the strict/lenient slow path interprets. Python-specific decisions
(annotations, keywords, what msgspec can express) are made here; the templates own layout."""

from __future__ import annotations

import json
import keyword
import re
from typing import Any

from .. import __version__
from ..binding import Binding
from ..cases import derive_cases
from ..errors import SpecError
from ..ir import model as M
from ..regex import ecma_to_python
from ..ir.naming import constant, snake
from ..rules.load import load_rules
from . import Data, Plan
from .fixtures import load_conformance, load_fixtures, load_rule_examples

RUNTIME_REQUIRES = ("msgspec>=0.19",)


def python_package(binding: Binding) -> str:
    """The package the bindings are generated as (`[python].package`)."""
    package = binding.target("python").get("package")
    if not isinstance(package, str) or not package.isidentifier():
        raise SpecError(binding.display(binding.spec_dir / "binding.toml"), "[python].package", "must be a Python identifier")
    return package


def build(binding: Binding, ir: M.IR) -> Plan:
    opts = binding.target("python")
    package = python_package(binding)
    ctx = _Context(binding, ir)
    schema_bytes = binding.schema.read_bytes()
    fixtures = load_fixtures(binding, ir.defs)
    cases = derive_cases(ir)
    rules = load_rules(binding, ir, ctx.field_name)
    context = {
        "package": package,
        "protocol": binding.name,
        "protocol_version": binding.version,
        "source": binding.stable(binding.schema),
        "sha256": ir.sha256,
        "generator_version": __version__,
        "title": ir.title,
        "description": ir.description,
        "root": binding.root or ir.root,
        "runtime_requires": RUNTIME_REQUIRES,
        "optional_requires": _optional_requires(binding, opts),
        "enums": ctx.enums(),
        "plain_aliases": ctx.aliases(late=False),
        "classes": ctx.classes(),
        "late_aliases": ctx.aliases(late=True),
        "carriers": ctx.carriers(),
        "definitions": ctx.definitions(),
        "table": ctx.table(),
        "fixture_count": len(fixtures["fixtures"]),
        "conformance_count": 0 if rules is None else len(load_conformance(binding)["streams"]),
        "conformance_gaps": list(binding.conformance_gaps),
        "case_count": len(cases),
        "rules": None
        if rules is None
        else {
            "source": binding.stable(binding.rules) if binding.rules else rules.source,
            "sha256": rules.sha256,
            "table": repr(rules.tables),
            "has_cases": any(
                "cases" in row for rows in rules.tables["machine"]["table"].values() for row in rows.values()
            ),
            "rules": [vars(r) | {"used": True} for r in rules.ast.rules.values()],
            "entities": [e.name for e in rules.ast.entities],
            "passed": rules.lint.passed,
        },
    }
    data = [
        Data("schema.json", schema_bytes if ir.reference is None else _json(ir.reference)),
        Data("tests/fixtures.json", _json(fixtures)),
        Data("tests/cases.json", _json({"cases": cases})),
    ]
    if rules is not None:
        data.append(Data("tests/conformance.json", _json(load_conformance(binding))))
        data.append(Data("tests/rule_examples.json", _json(load_rule_examples(binding, rules.ast))))
    return Plan(package_dir=package, context=context, data=tuple(data))


def _optional_requires(binding: Binding, opts: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """`[python].optional_requires`: module -> requirements that module alone imports."""
    raw = opts.get("optional_requires", {})
    where = binding.display(binding.spec_dir / "binding.toml")
    if not isinstance(raw, dict):
        raise SpecError(where, "[python].optional_requires", "must be a table of module = [requirements]")
    for module, reqs in raw.items():
        if not isinstance(reqs, list) or not all(isinstance(r, str) for r in reqs):
            raise SpecError(where, f"[python].optional_requires.{module}", "must be a list of requirement strings")
    return [(module, list(raw[module])) for module in sorted(raw)]


def _json(obj: Any) -> bytes:
    return (json.dumps(obj, indent=1, ensure_ascii=False, sort_keys=False) + "\n").encode("utf-8")


# Names models.py binds at module level, and builtins its annotations use: a definition or a
# field spelled like one would shadow it (msgspec resolves annotations in the class namespace).
RESERVED = frozenset(
    {"enum", "annotations", "Annotated", "Any", "ClassVar", "Literal", "TypeAlias", "UNSET", "Meta",
     "Struct", "UnsetType", "field", "JSONValue", "NonNullJSON", "DEFINITIONS",
     "str", "int", "float", "bool", "list", "dict", "None", "True", "False"}
)


def identifier(name: str) -> str:
    """A Python identifier for a schema name: invalid characters become `_`, a leading digit
    gets a `_` in front, and keywords and reserved names get a trailing `_`."""
    s = re.sub(r"[^0-9A-Za-z_]", "_", name) or "_"
    if s[0].isdigit():
        s = "_" + s
    return s + "_" if keyword.iskeyword(s) or s in RESERVED else s


def py_name(name: str) -> str:
    return identifier(name)


def py_literal(value: str | int | bool) -> str:
    return repr(value) if isinstance(value, (bool, int)) else json.dumps(value, ensure_ascii=False)


class _Context:
    def __init__(self, binding: Binding, ir: M.IR) -> None:
        self.binding = binding
        self.ir = ir
        self.py: dict[str, str] = {}
        seen: dict[str, str] = {}
        for name, d in ir.defs.items():
            py = identifier(name)
            if py in seen:
                raise SpecError(ir.source, d.loc, f"definitions {seen[py]!r} and {name!r} both become the Python name {py!r}")
            seen[py] = name
            self.py[name] = py

    def field_name(self, wire: str) -> str:
        """The attribute a wire name becomes; it never shadows a definition's Python name."""
        name = identifier(snake(wire))
        return name + "_" if name in seen_names(self.py) else name

    def fail(self, at: str, message: str) -> SpecError:
        return SpecError(self.ir.source, at, message)

    # -- annotations ------------------------------------------------------------------------

    def ann(self, t: M.TypeExpr) -> str:
        if isinstance(t, M.TRef):
            return self.py[t.name]
        if isinstance(t, M.TString):
            meta = [f"pattern={ecma_to_python(t.pattern)!r}"] if t.pattern is not None else []
            meta += [f"min_length={t.min_length}"] if t.min_length else []
            meta += [f"max_length={t.max_length}"] if t.max_length is not None else []
            return f"Annotated[str, Meta({', '.join(meta)})]" if meta else "str"
        if isinstance(t, M.TNull):
            return "None"
        if isinstance(t, (M.TInteger, M.TNumber)):
            base = "int" if isinstance(t, M.TInteger) else "float"
            bounds = (("ge", t.minimum), ("le", t.maximum), ("gt", t.exclusive_minimum), ("lt", t.exclusive_maximum))
            meta = [f"{k}={v!r}" for k, v in bounds if v is not None]
            return f"Annotated[{base}, Meta({', '.join(meta)})]" if meta else base
        if isinstance(t, M.TBoolean):
            return "bool"
        if isinstance(t, M.TConst):
            return f"Literal[{py_literal(t.value)}]"
        if isinstance(t, M.TEnum):
            return f"Literal[{', '.join(py_literal(v) for v in t.values)}]"
        if isinstance(t, M.TAny):
            return "NonNullJSON" if t.nonnull else "JSONValue"
        if isinstance(t, M.TMap):
            keys = "str" if t.keys is None else self.ann(t.keys)
            return f"dict[{keys}, {'JSONValue' if t.values is None else self.ann(t.values)}]"
        if isinstance(t, M.TArray):
            inner = f"list[{self.ann(t.items)}]"
            return f"Annotated[{inner}, Meta(min_length={t.min_items})]" if t.min_items else inner
        if isinstance(t, M.TUnion):
            return " | ".join(self.ann(m) for m in t.members)
        raise AssertionError(t)

    def refs(self, t: M.TypeExpr) -> set[str]:
        if isinstance(t, M.TRef):
            return {t.name}
        if isinstance(t, M.TArray):
            return self.refs(t.items)
        if isinstance(t, M.TMap) and t.values is not None:
            return self.refs(t.values)
        if isinstance(t, M.TUnion):
            return set().union(*(self.refs(m) for m in t.members))
        return set()

    # -- definitions ------------------------------------------------------------------------

    def enums(self) -> list[dict[str, Any]]:
        out = []
        for d in self.ir.defs.values():
            if isinstance(d, M.EnumDef):
                members = [(constant(v), v) for v in d.values]
                if len({m for m, _ in members}) != len(members):
                    raise self.fail(d.loc, "enum values collide as Python constant names")
                out.append({"name": self.py[d.name], "doc": d.doc, "members": members})
        return out

    def aliases(self, late: bool) -> list[dict[str, Any]]:
        items = []
        for d in self.ir.defs.values():
            if isinstance(d, (M.AliasDef, M.UnionDef)):
                t = d.union if isinstance(d, M.UnionDef) else d.type
                deps = self.refs(t)
                if bool(deps) == late:
                    items.append((d, t, deps))
        if not late:
            return [{"name": self.py[d.name], "doc": d.doc, "annotation": self.ann(t)} for d, t, _ in items]
        # an alias is evaluated at import: it must come after every alias it names
        names = {d.name for d, _, _ in items}
        done: list[str] = []
        out = []
        pending = list(items)
        while pending:
            for i, (d, t, deps) in enumerate(pending):
                if not (deps & names) - set(done):
                    out.append({"name": self.py[d.name], "doc": d.doc, "annotation": self.ann(t)})
                    done.append(d.name)
                    pending.pop(i)
                    break
            else:
                raise self.fail(pending[0][0].loc, "type aliases refer to each other in a cycle")
        return out

    def classes(self) -> list[dict[str, Any]]:
        out = []
        for d in self.ir.defs.values():
            if not isinstance(d, M.ObjectDef):
                continue
            if len({t[0] for t in d.tags}) > 1 or len(set(d.tags)) > 1:
                raise self.fail(d.loc, f"member of unions discriminated differently {d.tags}: msgspec allows one tag per struct")
            tag = d.tags[0] if d.tags else None
            fields = []
            for f in d.fields:
                if tag and f.wire == tag[0]:
                    continue
                name = self.field_name(f.wire)
                ann = self.ann(f.type)
                fields.append(
                    {
                        "name": name,
                        "wire": f.wire,
                        "renamed": name != f.wire,
                        "annotation": ann if f.required else f"{ann} | UnsetType",
                        "required": f.required,
                        "doc": f.doc,
                        "default": None if f.default is M.NO_DEFAULT else json.dumps(f.default),
                    }
                )
            out.append(
                {
                    "name": self.py[d.name],
                    "doc": d.doc,
                    "closed": d.closed,
                    "fragment": d.fragment,
                    "tag_field": tag[0] if tag else None,
                    "tag": tag[1] if tag else None,
                    "tag_attr": self.field_name(tag[0]) if tag else None,
                    "fields": fields,
                }
            )
        return out

    def carriers(self) -> list[str]:
        """Object definitions from which an open object is reachable (itself included)."""
        reach: dict[str, bool] = {}

        def reaches(t: M.TypeExpr | M.Definition, seen: frozenset[str]) -> bool:
            if isinstance(t, M.TRef):
                if t.name in seen:
                    return False
                return reaches(self.ir.defs[t.name], seen | {t.name})
            if isinstance(t, M.ObjectDef):
                return not t.closed or any(reaches(f.type, seen) for f in t.fields)
            if isinstance(t, M.UnionDef):
                return reaches(t.union, seen)
            if isinstance(t, M.AliasDef):
                return reaches(t.type, seen)
            if isinstance(t, M.TUnion):
                return any(reaches(m, seen) for m in t.members)
            if isinstance(t, M.TArray):
                return reaches(t.items, seen)
            if isinstance(t, M.TMap) and t.values is not None:
                return reaches(t.values, seen)
            return False

        for name, d in self.ir.defs.items():
            if isinstance(d, M.ObjectDef):
                reach[name] = reaches(d, frozenset({name}))
        return sorted(self.py[n] for n, r in reach.items() if r)

    def definitions(self) -> list[dict[str, Any]]:
        """Per definition: the type the fast path decodes with, and the class the result must be.
        A union member is decoded through its union, so a missing discriminator is caught."""
        unions = {}
        for d in self.ir.defs.values():
            if isinstance(d, M.UnionDef) and d.union.discriminator:
                for _, member in d.union.tags:
                    unions.setdefault(member, d.name)
        out = []
        for name, d in self.ir.defs.items():
            kind = type(d).__name__.removesuffix("Def").lower()
            via = unions.get(name)
            out.append(
                {
                    "name": name,
                    "py": self.py[name],
                    "kind": kind,
                    "decode_as": self.py[via or name],
                    "expect": self.py[name] if via else None,
                }
            )
        return out

    # -- validation table -------------------------------------------------------------------

    def table(self) -> str:
        """The IR as plain data for the generic validator: a Python literal, formatted by black."""
        return repr({name: self.node_def(d) for name, d in self.ir.defs.items()})

    def node_def(self, d: M.Definition) -> dict[str, Any]:
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
        if isinstance(t, M.TRef):
            return {"kind": "ref", "name": t.name}
        if isinstance(t, M.TString):
            n: dict[str, Any] = {"kind": "string", "loc": t.loc}
            if t.pattern is not None:
                n["pattern"] = ecma_to_python(t.pattern)
                if n["pattern"] != t.pattern:
                    n["source"] = t.pattern  # what messages quote: the schema's spelling
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
                "members": [[sorted(self.json_kinds(m)), self.node(m)] for m in t.members],
            }
        raise AssertionError(t)

    def json_kinds(self, t: M.TypeExpr) -> set[str]:
        return M.json_types(t, self.ir.defs.__getitem__)


def seen_names(py: dict[str, str]) -> frozenset[str]:
    return frozenset(py.values())
