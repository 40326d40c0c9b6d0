"""The TypeScript target's context for templates/typescript/: a type per definition (interfaces
for objects, literal unions for enums, union types for unions), the validation table and the rule
tables as TypeScript literals (wire names, ECMA-262 patterns as they are), and the test corpus as
data files. TypeScript decisions (identifiers, property spelling, type expressions) are made
here; the templates own layout."""

from __future__ import annotations

import json
import re
import textwrap
from typing import Any

from ... import __version__
from ...binding import Binding, load_binding
from ...family import load_family
from ...errors import SpecError
from ...ir import model as M
from ...products import Products
from ...accept_plan import accept_plan, general_roots
from ...typed_schemas import typed_schemas
from ...validation_table import general_nodes, needs_vocabulary, typed_objects
from .. import Data, Plan

# Words a type name may not be (TypeScript's reserved words and the names the modules bind).
RESERVED = frozenset(
    """break case catch class const continue debugger default delete do else enum export extends
    false finally for function if import in instanceof new null return super switch this throw true
    try typeof var void while with implements interface let package private protected public static
    yield any boolean number string symbol never unknown object undefined bigint type
    JsonValue NonNullJson Definitions DEFINITIONS""".split()
)
_IDENT = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
_PACKAGE = re.compile(r"^(@[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]*$")


def identifier(name: str) -> str:
    s = re.sub(r"[^0-9A-Za-z_$]", "_", name) or "_"
    if s[0].isdigit():
        s = "_" + s
    return s + "_" if s in RESERVED else s


def prop(wire: str) -> str:
    """A property name as written in a type: bare when it is an identifier, else quoted."""
    return wire if _IDENT.match(wire) else json.dumps(wire)


def ts_literal(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def typescript_package(binding: Binding) -> str:
    package = binding.target("typescript").get("package")
    if not isinstance(package, str) or not _PACKAGE.match(package) or "/" in package.lstrip("@").split("/", 1)[-1]:
        raise SpecError(binding.display(binding.spec_dir / "binding.toml"), "[typescript].package", "must be an npm package name (lower case; the folder under generated/)")
    return package


class Types:
    """TypeScript names and type expressions for one IR."""

    def __init__(self, ir: M.IR) -> None:
        self.ir = ir
        self.ts: dict[str, str] = {}
        seen: dict[str, str] = {}
        for name, d in ir.defs.items():
            ts = identifier(name)
            if ts in seen:
                raise SpecError(ir.source, d.loc, f"definitions {seen[ts]!r} and {name!r} both become the TypeScript name {ts!r}")
            seen[ts] = name
            self.ts[name] = ts

    def expr(self, t: M.TypeExpr) -> str:
        if isinstance(t, M.TRef):
            return self.ts[t.name]
        if isinstance(t, M.TString):
            return "string"
        if isinstance(t, M.TNull):
            return "null"
        if isinstance(t, (M.TInteger, M.TNumber)):
            return "number"
        if isinstance(t, M.TBoolean):
            return "boolean"
        if isinstance(t, M.TConst):
            return ts_literal(t.value)
        if isinstance(t, M.TEnum):
            return " | ".join(ts_literal(v) for v in t.values)
        if isinstance(t, M.TAny):
            return "NonNullJson" if t.nonnull else "JsonValue"
        if isinstance(t, M.TMap):
            return f"{{ [key: string]: {'JsonValue' if t.values is None else self.expr(t.values)} }}"
        if isinstance(t, (M.TArray, M.TSchema)) and t.items is not None:
            inner = self.expr(t.items)
            return f"({inner})[]" if "|" in inner or inner.startswith("{") else f"{inner}[]"
        if isinstance(t, M.TUnion):
            return " | ".join(dict.fromkeys(self.expr(m) for m in t.members))
        if isinstance(t, M.TSchema):
            return loose(t.types)
        raise AssertionError(t)


_LOOSE = (
    ("object", "{ [key: string]: JsonValue }"),
    ("array", "JsonValue[]"),
    ("string", "string"),
    ("number", "number"),
    ("boolean", "boolean"),
    ("null", "null"),
)


def loose(types: tuple[str, ...]) -> str:
    """A value the general validator checks (`TSchema`), typed as the JSON value it may be: the
    package's `JsonValue` when it may be any, else the JSON types it admits (`integer` is a
    `number`, as everywhere in the package; past 2^53 - 1 a `bigint`)."""
    kinds = {"number" if k == "integer" else k for k in types}
    if kinds >= {k for k, _ in _LOOSE}:
        return "JsonValue"
    if not kinds:
        return "never"  # nothing is valid: the type is never reached
    return " | ".join(ts for kind, ts in _LOOSE if kind in kinds)


_FLOAT = "\u0000float:"
_BIG = "\u0000big:"


_ORDER = "\u0000order"
_INDEX = re.compile(r"0|[1-9][0-9]{0,9}")


def _ordered(node: Any) -> Any:
    """The table with `_ORDER: [names]` in each object whose names JavaScript lists otherwise."""
    if isinstance(node, list):
        return [_ordered(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: _ordered(v) for k, v in node.items()}
    names = list(node)
    indices = [k for k in names if _INDEX.fullmatch(k) and int(k) < 2**32 - 1]
    numeric = set(indices)  # a list's `in` made an object of n array-index names cost n^2
    if names != sorted(indices, key=int) + [k for k in names if k not in numeric]:
        out[_ORDER] = names
    return out


def ts_table(table: Any, exact_floats: bool, keep_order: bool = True) -> tuple[str, bool]:
    """The validation table as a TypeScript literal, and whether it holds a `PyFloat`. With
    `exact_floats` (the general validator's packages), a number the schema wrote as an integral
    float (`minimum: 1.0`, `const: 2.0`) is `new PyFloat(...)`, as the reader holds one: it is
    then shown as the reference binding shows it (`1.0`), and the integer rule tells it apart."""
    found = False

    def mark(node: Any) -> Any:
        nonlocal found
        if isinstance(node, float) and node.is_integer():
            found = True
            return _FLOAT + repr(node)
        if type(node) is int and abs(node) > 2**53 - 1:
            return _BIG + str(node)
        if isinstance(node, dict):
            return {k: mark(v) for k, v in node.items()}
        if isinstance(node, list):
            return [mark(v) for v in node]
        return node

    marked = mark(table) if exact_floats else table
    text = json.dumps(_ordered(marked) if keep_order else marked, indent=1, ensure_ascii=False)
    # an object whose names JavaScript would list in another order than the schema's (array
    # indices first) says the schema's, as the reader does for a document's (json.ts: ORDER)
    text = text.replace(json.dumps(_ORDER) + ":", "[ORDER]:")
    if found:
        text = re.sub(r'"\\u0000float:([^"]+)"', r"new PyFloat(\1)", text)
    # an integer a double cannot hold is a bigint, as the reader holds one: it keeps its value
    text = re.sub(r'"\\u0000big:(-?[0-9]+)"', r"\1n", text)
    # a member named __proto__ in an object literal would set the prototype: a computed key
    # defines it (json.dumps writes no `":` after a string value)
    return text.replace('"__proto__":', '["__proto__"]:'), found


def _comment(text: str | None, width: int = 92) -> list[str]:
    """A doc comment's lines, wrapped; an empty line between paragraphs."""
    if not text:
        return []
    lines: list[str] = []
    for para in (p for p in text.split("\n\n") if p.strip()):
        if lines:
            lines.append("")
        lines += textwrap.wrap(" ".join(para.split()).replace("*/", "*\\/"), width=width) or [""]
    return lines


def build(products: Products, opts: dict[str, Any]) -> Plan:
    binding, ir = products.binding, products.ir
    package = typescript_package(binding)
    types = Types(ir)
    rules = products.rules
    declarations = []
    for name, d in ir.defs.items():
        entry: dict[str, Any] = {"name": types.ts[name], "wire": name, "doc": _comment(d.doc)}
        if isinstance(d, M.ObjectDef):
            entry["kind"] = "object"
            entry["open"] = not d.closed  # an object with `checks` is open (its schema checked the rest)
            entry["fields"] = [
                {
                    "prop": prop(f.wire),
                    "wire": f.wire,
                    "type": types.expr(f.type),
                    "optional": not f.required,
                    "doc": _comment(f.doc),
                }
                for f in d.fields
            ]
        elif isinstance(d, M.UnionDef):
            entry["kind"] = "alias"
            entry["type"] = types.expr(d.union)
            entry["tagged"] = d.union.discriminator
        elif isinstance(d, M.EnumDef):
            entry["kind"] = "enum"
            entry["type"] = " | ".join(ts_literal(v) for v in d.values)
            entry["literals"] = ts_literal(list(d.values))
        else:
            entry["kind"] = "alias"
            # a recursive alias is exact (TypeScript names a type inside itself); its value is
            # the plain JSON one its compiled schema checked
            entry["type"] = types.expr(ir.exact.get(name, d.type))
            entry["tagged"] = None
        declarations.append(entry)
    root = binding.root or ir.root or next(iter(ir.defs))  # none named: the first definition
    # the general validator (runtime/typescript/vocabulary), as the Python target decides it
    vocabulary = needs_vocabulary(ir, products.validation)
    table, floats = ts_table(products.validation, exact_floats=vocabulary)
    # the definitions the general validator checks take the compiled validator (accept.ts), printed
    # from the plan the Python binding's accept.py comes from
    roots = general_roots(products.validation) if vocabulary else []
    # the typed read (read.ts) checks the rest of the table as it reads; what it leaves to the
    # general validator, its `schema` nodes, is checked by their compiled functions (`RESIDUE`)
    residue = general_nodes(products.validation) if roots else []
    # an object whose schema asserts more than its fields is read field by field, the rest of
    # its schema checked on the object read (`rest`, a residue keyed `#definition`)
    typed = typed_objects(ir, products.validation) if roots else {}
    residue += [node["rest"] for node in typed.values()]
    # a general node the typed nodes state exactly is read as those (`TYPED_SCHEMAS`); the
    # general nodes inside such ones that are not are checked by their residue too
    schemas, held = typed_schemas(products.validation, typed) if roots else ({}, [])
    known = {node["loc"] for node in residue}
    residue += [node for node in held if node["loc"] not in known]
    accept = accept_plan(products.validation, ir.integers, ir.formats, roots, [(node, "v") for node in residue]) if roots else None
    if accept is not None:
        accept["residue"] = [{"loc": node["loc"], "body": body} for node, body in zip(residue, accept.pop("nodes"))]
    # values compared whole (const, enum): their names' order matters to nothing
    values_ts = [ts_table(v, exact_floats=True, keep_order=False)[0] for v in accept["values"]] if accept else []
    context = {
        "vocabulary": vocabulary,
        "integers": ir.integers,
        "formats": ir.formats,
        "package": package,
        "protocol": binding.name,
        "protocol_version": binding.version,
        "source": binding.stable(binding.schema),
        "sha256": ir.sha256,
        "generator_version": __version__,
        "title": ir.title,
        "root": root,
        "root_ts": types.ts[root] if root else None,
        "declarations": declarations,
        "definition_names": ts_literal(list(ir.defs)),
        "table": table,
        "table_floats": floats,
        # what the typed read reads an object of the table's `schema` kind as (read.ts)
        "typed_schemas": ts_table(schemas, exact_floats=vocabulary)[0],
        "typed_objects": ts_table({name: {**node, "rest": node["rest"]["loc"]} for name, node in typed.items()}, exact_floats=vocabulary)[0],
        "accept": accept,
        "values_ts": values_ts,
        "fixture_count": len(products.fixtures["fixtures"]),
        "case_count": len(products.cases),
        "conformance_count": 0 if rules is None else len(products.conformance["streams"]),
        "rules": None
        if rules is None
        else {
            "source": binding.stable(binding.rules) if binding.rules else rules.source,
            "sha256": rules.sha256,
            "table": json.dumps(rules.tables, indent=1, ensure_ascii=False),
            "events_ts": types.ts[rules.tables["events_definition"]] if rules.tables["events_definition"] else None,
            "two_party": bool(rules.tables.get("parties")),
            "count": len(rules.tables["rules"]),
        },
    }
    context["table_order"] = any(re.search(r"^ *\[ORDER\]:", text, re.M) for text in (table, context["typed_schemas"], context["typed_objects"]) if isinstance(text, str))
    data = [
        Data("tests/fixtures.json", _json(products.fixtures)),
        Data("tests/cases.json", _json({"cases": products.cases})),
    ]
    if rules is not None:
        data.append(Data("tests/conformance.json", _json(products.conformance)))
        data.append(Data("tests/rule_examples.json", _json(products.rule_examples)))
    family = load_family(binding.spec_dir)
    if family is not None:
        packages = {r.version: typescript_package(load_binding(r.spec_dir)) for r in family.revisions}
        context["family"] = {
            "source": binding.stable(binding.spec_dir / "binding.toml"),
            "table": json.dumps(family.table | {"packages": packages}, indent=1, ensure_ascii=False),
        }
    else:
        context["family"] = None
    runtime: tuple[str, ...] = ("core",) if rules is None else ("core", "rules")
    runtime += ("vocabulary",) if vocabulary else ()
    runtime += ("family",) if family is not None else ()
    return Plan(package_dir=package, context=context, data=tuple(data), templates="typescript", runtime=runtime)


def _json(obj: Any) -> bytes:
    return (json.dumps(obj, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
