"""The Python target's context for templates/python/: msgspec Structs for objects, enums, type
aliases for unions, the validation table the strict/lenient slow path interprets, the rule
tables, and the test corpus as data files. Python decisions (names, annotations, what msgspec
can express) are made here and in `symbols`; the templates own layout."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from ... import __version__
from ...binding import Binding, load_binding
from ...corpus import fixture_kinds
from ...family import Family, load_family
from ...errors import SpecError
from ...ir import model as M
from ...products import Products
from ...regex import ecma_to_python
from ...rules.diagram import as_context, diagrams
from ...accept_plan import accept_plan
from .residue import residue_plan
from ...validation_table import map_patterns, needs_vocabulary
from .. import Data, Plan
from .symbols import Symbols
from ...ir.naming import constant

RUNTIME_REQUIRES = ("msgspec>=0.19",)


def python_package(binding: Binding) -> str:
    """The package the bindings are generated as (`[python].package`)."""
    package = binding.target("python").get("package")
    if not isinstance(package, str) or not package.isidentifier():
        raise SpecError(binding.display(binding.spec_dir / "binding.toml"), "[python].package", "must be a Python identifier")
    return package


def build(products: Products, opts: dict[str, Any]) -> Plan:
    binding, ir = products.binding, products.ir
    package = python_package(binding)
    sym = Symbols(ir)
    ctx = _Context(binding, ir, sym)
    schema_bytes = binding.schema.read_bytes()
    fixtures = products.fixtures
    cases = products.cases
    rules = products.rules
    tables = None if rules is None else rules.tables_for(sym.field_name)
    slow = ctx.slow()
    carriers = ctx.carriers()  # first: the open twins of classes() and definitions() need it
    # a definition the typed decoder cannot check alone is checked by the compiled validator
    # (accept.py), which shares the general validator's helpers
    vocabulary = needs_vocabulary(ir, products.validation) or bool(slow)
    accept = None
    if slow:
        # what the typed read of each compiled definition leaves unchecked (residue.py): the
        # subschemas it checks are compiled beside the definitions
        residue, nodes, fill = residue_plan(ir, slow, ctx.recursive(), ctx.field_name, sym.py)
        accept = accept_plan(products.validation, ir.integers, ir.formats, slow, nodes)
        fill(accept.pop("nodes"))
        accept["residue"] = residue
        accept["patterns"] = [ecma_to_python(p) for p in accept["patterns"]]
    pointers = ctx.reference_pointers()
    family = load_family(binding.spec_dir)
    # without a map, the tests name a definition "#/$defs/" + its name, as it is
    reference_map = ir.draft != "2020-12" or any(p != "#/$defs/" + n for n, p in pointers.items())
    context = {
        "vocabulary": vocabulary,
        "integers": ir.integers,
        "formats": ir.formats,
        "slow": slow,
        "accept": accept,
        "reference_map": reference_map,
        "package": package,
        "protocol": binding.name,
        "protocol_version": binding.version,
        "source": binding.stable(binding.schema),
        "sha256": ir.sha256,
        "generator_version": __version__,
        "title": ir.title,
        "description": ir.description,
        "root": binding.root or ir.root or next(iter(ir.defs)),  # none named: the first definition
        "runtime_requires": RUNTIME_REQUIRES,
        "optional_requires": _optional_requires(binding, opts),
        "carriers": carriers,
        "carried": ctx.carried(),
        "enums": ctx.enums(),
        "plain_aliases": ctx.aliases(late=False),
        "classes": ctx.classes(),
        "late_aliases": ctx.aliases(late=True),
        "recursive_aliases": ctx.recursive_aliases(),
        "twin_classes": ctx.twin_classes(),
        "twin_aliases": ctx.twin_aliases(),
        "nesting": ctx.nesting(),
        "builds": ctx.builds(slow),
        "definitions": ctx.definitions(),
        "table": repr(map_patterns(products.validation, ecma_to_python)),
        "fixture_count": len(fixtures["fixtures"]),
        "family": None if family is None else _family(binding, family),
        "fixture_kinds": fixture_kinds(fixtures),
        "conformance_count": 0 if rules is None else len(products.conformance["streams"]),
        "conformance_gaps": list(binding.conformance_gaps),
        "case_count": len(cases),
        "rules": None
        if rules is None or tables is None
        else {
            "source": binding.stable(binding.rules) if binding.rules else rules.source,
            "sha256": rules.sha256,
            "table": repr(tables),
            "has_cases": any("cases" in row for rows in tables["machine"]["table"].values() for row in rows.values()),
            "two_party": bool(tables.get("parties")),
            "rules": [vars(r) | {"used": True} for r in rules.ast.rules.values()],
            "entities": [e.name for e in rules.ast.entities],
            "passed": rules.lint.passed,
            "diagrams": [as_context(d) for d in diagrams(rules.tables)],
            "parties": _parties(rules),
        },
    }
    data = [
        Data("schema.json", schema_bytes if ir.reference is None else _json(ir.reference)),
        Data("tests/fixtures.json", _json(fixtures)),
        Data("tests/cases.json", _json({"cases": cases})),
    ]
    if reference_map:
        draft = "draft-07" if ir.draft == "draft-07" and ir.reference is None else "2020-12"
        data.append(Data("tests/reference.json", _json({"draft": draft, "pointers": pointers})))
    if rules is not None:
        data.append(Data("tests/conformance.json", _json(products.conformance)))
        data.append(Data("tests/rule_examples.json", _json(products.rule_examples)))
    runtime: tuple[str, ...] = ("core",) if rules is None else ("core", "rules")
    runtime += ("vocabulary",) if vocabulary else ()
    runtime += ("family",) if family is not None else ()
    return Plan(package_dir=package, context=context, data=tuple(data), templates="python", runtime=runtime)


def _parties(rules: Any) -> dict[str, Any] | None:
    """What RULES.md says of a protocol of two parties: who sends what, what answers what, the
    facts and the correlation rules (None for one-way rules)."""
    tables = rules.tables
    if not tables.get("parties"):
        return None
    senders = {m: " and ".join(p for p in tables["parties"] if tables["messages"][p].get(m, {}).get("kind") == "request") for m in tables["results"]}
    results = [
        {"method": method, "senders": senders[method], "definition": alt["definition"], "name": alt["name"], "when": _shown(alt["when"])}
        for method, alts in tables["results"].items()
        for alt in alts
    ]
    facts: dict[str, dict[str, Any]] = {}
    for type_, declared in tables["facts"].items():
        for f in declared:
            facts.setdefault(f["name"], {"name": f["name"], "path": f["wire"], "types": []})["types"].append(f"`{type_}`")
    return {
        "names": tables["parties"],
        "mistyped": tables["exchanges"]["rules"]["mistyped"],
        "results": results,
        "facts": [{**f, "types": ", ".join(f["types"])} for f in facts.values()],
        "slots": sorted(tables["exchanges"]["rules"].items()),
    }


def _shown(e: Any) -> str:
    """An expression of the tables as the rules file writes it."""
    if e is None:
        return "otherwise"
    op = e["op"]
    if op == "lit":
        return json.dumps(e["value"])
    if op in ("field", "present", "absent", "length", "unique"):
        path = e["wire"]
        scoped = f"fact {path}" if e.get("scope") == "fact" else f"request {path}" if e.get("scope") == "request" else path
        return scoped if op == "field" else f"{op} {scoped}"
    args = [_shown(a) for a in e.get("args", [])]
    if op == "not":
        return f"not {args[0]}"
    if op == "cmp":
        return f"{args[0]} {e['cmp']} {args[1]}"
    return f"({args[0]} {'+' if op == 'add' else '-' if op == 'sub' else op} {args[1]})"


def _family(binding: Binding, family: Family) -> dict[str, Any]:
    """The family table as the home package holds it: with each revision's package name."""
    packages = {r.version: python_package(load_binding(r.spec_dir)) for r in family.revisions}
    return {
        "source": binding.stable(binding.spec_dir / "binding.toml"),
        "table": repr(family.table | {"packages": packages}),
        "versions": family.versions,
        "packages": [f"`{p}`" for p in packages.values()],
    }


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


class _Context:
    """The model declarations: enums, aliases in dependency order, Struct classes."""

    def __init__(self, binding: Binding, ir: M.IR, sym: Symbols) -> None:
        self.binding = binding
        self.ir = ir
        self.sym = sym
        self.py = sym.py
        self.field_name = sym.field_name
        self.ann = sym.ann
        self.refs = sym.refs

    def fail(self, at: str, message: str) -> SpecError:
        return SpecError(self.ir.source, at, message)

    # -- definitions ------------------------------------------------------------------------

    def enums(self) -> list[dict[str, Any]]:
        out = []
        for d in self.ir.defs.values():
            if isinstance(d, M.EnumDef):
                members = []
                taken: set[str] = set()
                last: dict[str, tuple[str, int]] = {}  # a spelling -> the name its last value took
                for v in d.values:
                    # values spelled alike as constants (Etc/GMT+1, Etc/GMT-1) are numbered in
                    # schema order: ETC_GMT_1, ETC_GMT_1_2. Every name up to the one a spelling's
                    # last value took is taken, so the search goes on from there (from the start,
                    # k values spelled alike tried k^2/2 names)
                    stem = constant(v)
                    name, i = last.get(stem, (stem, 2))
                    while name in taken:
                        name, i = f"{stem}_{i}", i + 1
                    last[stem] = (name, i)
                    taken.add(name)
                    members.append((name, v))
                out.append({"name": self.py[d.name], "doc": d.doc, "members": members})
        return out

    def recursive(self) -> set[str]:
        """Type aliases that name themselves through arrays, maps and unions (a JSON-value-like
        `Node = str | list[Node]`), directly or through other aliases: the IR validates each by
        its compiled schema (msgspec cannot decode into a recursive alias), so at run time each
        is the plain JSON value typed by the JSON types it admits; `IR.exact` keeps the exact
        type, which type checkers see."""
        return set(self.ir.exact)

    def recursive_aliases(self) -> list[dict[str, Any]]:
        """The recursive aliases: the exact recursive annotation for type checkers, the loose
        one for msgspec (see `recursive`)."""
        out = []
        for name in sorted(self.recursive(), key=list(self.ir.defs).index):
            d = self.ir.defs[name]
            assert isinstance(d, M.AliasDef)
            out.append({"name": self.py[name], "doc": d.doc, "annotation": self.ann(self.ir.exact[name]), "runtime": self.ann(d.type)})
        return out

    def aliases(self, late: bool) -> list[dict[str, Any]]:
        items = []
        recursive = self.recursive()
        for d in self.ir.defs.values():
            if isinstance(d, (M.AliasDef, M.UnionDef)) and d.name not in recursive:
                t = d.union if isinstance(d, M.UnionDef) else d.type
                deps = self.refs(t)  # one naming a recursive alias comes after it (late)
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
        return [self._class(d) for d in self.ir.defs.values() if isinstance(d, M.ObjectDef)]

    def _class(self, d: M.ObjectDef, names: dict[str, str] | None = None, called: str | None = None) -> dict[str, Any]:
        """A Struct class; with `names`, its open twin (see `twin_classes`); `called`: a twin's name."""
        if len({t[0] for t in d.tags}) > 1 or len(set(d.tags)) > 1:
            raise self.fail(d.loc, f"member of unions discriminated differently {d.tags}: msgspec allows one tag per struct")
        tag = d.tags[0] if d.tags else None
        fields = []
        for f in d.fields:
            if tag and f.wire == tag[0]:
                continue
            name = self.field_name(f.wire)
            ann = self.ann(f.type, names)
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
        return {
            "name": called or self.py[d.name],
            "of": self.py[d.name],
            "doc": d.doc,
            "closed": d.closed,
            "fragment": d.fragment,
            "tag_field": tag[0] if tag else None,
            "tag": tag[1] if tag else None,
            "tag_attr": self.field_name(tag[0]) if tag else None,
            "fields": fields,
        }

    # -- open twins -------------------------------------------------------------------------
    #
    # Every class refuses members its schema does not declare when msgspec decodes it, open
    # ones too: a document that decodes has no undeclared member anywhere, so the codec keeps
    # nothing and reads nothing again. A document with one (valid where its object is open) is
    # read through the open twins: the same fields, the same annotations naming twins, closed
    # only where the schema closes the object. The codec then makes the classes from what the
    # twins read and keeps the undeclared members beside them (codec_json._open_read).

    def twins(self) -> dict[str, str]:
        """Definition -> the Python name of its open twin: the classes an open object is
        reachable from (CARRIERS), and the aliases and unions that name one (after carriers())."""
        taken = set(self.py.values())
        out = {}
        for name in self._carrying:
            twin = "_Open_" + self.py[name]
            while twin in taken:
                twin = "_" + twin
            taken.add(twin)
            out[name] = twin
        return out

    def twin_classes(self) -> list[dict[str, Any]]:
        names = self.twins()
        deep = [self._class(d, names, names[d.name]) for d in self.ir.defs.values() if isinstance(d, M.ObjectDef) and d.name in names]
        tops = self.tops()
        return deep + [self._class(d, None, tops[d.name]) for d in self.ir.defs.values() if d.name in tops and isinstance(d, M.ObjectDef)]

    def tops(self) -> dict[str, str]:
        """Open class -> the Python name of its shallow twin: open itself, every class it names
        the class itself (closed). A document whose undeclared members are all at its top reads
        through it, and nothing below its top needs making again."""
        taken = set(self.py.values()) | set(self.twins().values())
        out = {}
        for d in self.ir.defs.values():
            if isinstance(d, M.ObjectDef) and not d.closed:
                name = "_Top_" + self.py[d.name]
                while name in taken:
                    name = "_" + name
                taken.add(name)
                out[d.name] = name
        return out

    def twin_aliases(self) -> list[dict[str, Any]]:
        """The twins of aliases and unions, each after the twins it names (evaluated at import)."""
        names = self.twins()
        pending = []
        for name in names:
            d = self.ir.defs[name]
            if isinstance(d, (M.AliasDef, M.UnionDef)):
                t = d.union if isinstance(d, M.UnionDef) else d.type
                pending.append((names[name], self.ann(t, names), {names[r] for r in self.refs(t) if r in names and not isinstance(self.ir.defs[r], M.ObjectDef)}))
        out: list[dict[str, Any]] = []
        done: set[str] = set()
        while pending:
            ready = [item for item in pending if item[2] <= done]
            if not ready:  # the aliases themselves are declared in an order: so are their twins
                raise self.fail(self.ir.defs[next(iter(names))].loc, "type aliases refer to each other in a cycle")
            for item in ready:
                out.append({"name": item[0], "annotation": item[1]})
                done.add(item[0])
                pending.remove(item)
        return out

    def carriers(self) -> list[str]:
        """Object definitions from which an open object is reachable (itself included)."""
        # a fixpoint, not a walk that stops where it was before: a definition reaching itself
        # (a tree of open nodes) carries what it holds as much as one reaching another
        carrying: set[str] = set()

        def reaches(t: M.TypeExpr | M.Definition) -> bool:
            if isinstance(t, M.TRef):
                return t.name in carrying
            if isinstance(t, M.ObjectDef):
                return not t.closed or any(reaches(f.type) for f in t.fields)
            if isinstance(t, M.UnionDef):
                return reaches(t.union)
            if isinstance(t, M.AliasDef):
                return reaches(t.type)
            if isinstance(t, M.TUnion):
                return any(reaches(m) for m in t.members)
            if isinstance(t, (M.TArray, M.TSchema)) and t.items is not None:
                return reaches(t.items)
            if isinstance(t, M.TMap) and t.values is not None:
                return reaches(t.values)
            return False

        grown = True
        while grown:
            grown = False
            for name, d in self.ir.defs.items():
                if name not in carrying and reaches(d):
                    carrying.add(name)
                    grown = True
        reach = {name: name in carrying for name, d in self.ir.defs.items() if isinstance(d, M.ObjectDef)}
        self._carrying = [
            name for name, d in self.ir.defs.items()
            if isinstance(d, (M.ObjectDef, M.UnionDef, M.AliasDef)) and name not in self.recursive() and name in carrying
        ]
        self._carried = {
            self.py[name]: [(self.field_name(f.wire), f.wire) for f in d.fields if reaches(f.type)]
            for name, d in self.ir.defs.items()
            if isinstance(d, M.ObjectDef) and reach.get(name)
        }
        return sorted(self.py[n] for n, r in reach.items() if r)

    def nesting(self) -> list[tuple[str, str]]:
        """(class, (the deepest its members whose types bound their depth nest: arrays and
        objects, its own object counting 1; the attributes whose types bound nothing: any JSON,
        a loose value, a type reaching itself or an open object)), or None for an open object
        (its undeclared members may nest as they like), as Python source. The codec checks how
        deep a long document nests only when one of those attributes holds an array or object."""

        def depth(t: M.TypeExpr | M.Definition, seen: frozenset[str]) -> int | None:
            if isinstance(t, M.TRef):
                return None if t.name in seen else depth(self.ir.defs[t.name], seen | {t.name})
            if isinstance(t, M.ObjectDef):
                if not t.closed:
                    return None
                inner = [depth(f.type, seen) for f in t.fields]
                bounded = [n for n in inner if n is not None]
                return None if len(bounded) < len(inner) else 1 + max(bounded, default=0)
            if isinstance(t, M.UnionDef):
                return depth(t.union, seen)
            if isinstance(t, M.AliasDef):
                return depth(t.type, seen)
            if isinstance(t, M.TUnion):
                inner = [depth(m, seen) for m in t.members]
                bounded = [n for n in inner if n is not None]
                return None if len(bounded) < len(inner) else max(bounded, default=0)
            if isinstance(t, M.TArray):
                items = depth(t.items, seen)
                return None if items is None else 1 + items
            if isinstance(t, M.TMap):
                values = None if t.values is None else depth(t.values, seen)
                return None if values is None else 1 + values
            if isinstance(t, (M.TAny, M.TSchema)):
                return None
            return 0  # a string, number, boolean, null, const or enum

        out: list[tuple[str, str]] = []
        for name, d in self.ir.defs.items():
            if not isinstance(d, M.ObjectDef):
                continue
            plan: tuple[int, tuple[str, ...]] | None = None
            if d.closed:
                depths = {self.field_name(f.wire): depth(f.type, frozenset({name})) for f in d.fields}
                free = tuple(attr for attr, n in depths.items() if n is None)
                plan = (1 + max((n for n in depths.values() if n is not None), default=0), free)
            out.append((self.py[name], repr(plan)))
        return sorted(out)

    def builds(self, slow: list[str]) -> dict[str, list[str]]:
        """How the compiled path makes the typed value of each definition in _SLOW from the
        document the compiled validator accepted: `plain` (its type holds plain JSON values
        only: the document is the value), `convert` (a Struct, or a union of tagged ones:
        msgspec.convert, whose type information the class caches), else msgspec's typed decoder
        from the bytes (convert would rebuild a list or dict alias's type on every call)."""
        recursive = self.recursive()

        def plain(t: Any, seen: frozenset[str]) -> bool:
            if isinstance(t, M.TRef):
                if t.name in seen or t.name in recursive:
                    return True
                d = self.ir.defs[t.name]
                if isinstance(d, M.AliasDef):
                    return plain(d.type, seen | {t.name})
                if isinstance(d, M.UnionDef):
                    return plain(d.union, seen | {t.name})
                return False  # a Struct class or a StrEnum: made by msgspec
            if isinstance(t, M.TArray):
                return plain(t.items, seen)
            if isinstance(t, M.TMap):
                return t.values is None or plain(t.values, seen)
            if isinstance(t, M.TUnion):
                return not t.discriminator and all(plain(m, seen) for m in t.members)
            return isinstance(t, (M.TSchema, M.TAny, M.TString, M.TInteger, M.TNumber, M.TBoolean, M.TNull, M.TConst, M.TEnum))

        out: dict[str, list[str]] = {"plain": [], "convert": []}
        for name in slow:
            d = self.ir.defs[name]
            if name in recursive or isinstance(d, M.AliasDef) and plain(d.type, frozenset({name})) or isinstance(d, M.UnionDef) and plain(d.union, frozenset({name})):
                out["plain"].append(name)
            elif isinstance(d, M.ObjectDef) or isinstance(d, M.UnionDef) and d.union.discriminator:
                out["convert"].append(name)
        return out

    def carrying(self) -> list[str]:
        """Definitions whose typed value may hold an open object (after carriers()): only their
        values are walked for undeclared members."""
        return self._carrying

    def carried(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """Per carrier class, the fields (attribute, wire name) whose value may hold an open
        object: the only ones the codec walks to keep undeclared members (after carriers())."""
        return [(cls, fields) for cls, fields in sorted(self._carried.items()) if fields]

    def _top_as(self, via: list[str], tops: dict[str, str]) -> list[str] | None:
        """The shallow twins a definition read as `via` reads through when the undeclared
        members of a document are all at its top: its classes (a discriminated union's
        members), each open one as its shallow twin; None where the top is not classes."""
        classes: list[str] = []
        for v in via:
            d = self.ir.defs[v]
            if isinstance(d, M.ObjectDef):
                classes.append(v)
            elif isinstance(d, M.UnionDef) and d.union.discriminator:
                classes += [member for _, member in d.union.tags]
            else:
                return None
        if not any(c in tops for c in classes):
            return None
        return [tops.get(c, self.py[c]) for c in dict.fromkeys(classes)]

    def reference_pointers(self) -> dict[str, str]:
        """Each definition's place in the schema the generated tests give jsonschema (the
        vendored file, or the document combined from an OpenAPI one and its overlays)."""
        out = {}
        combined = self.ir.reference is not None
        for name, d in self.ir.defs.items():
            loc = d.loc
            if combined:
                named = loc == "/components/schemas/" + name.replace("~", "~0").replace("/", "~1") or loc.startswith("/$defs/") and loc.count("/") == 2
                inline = isinstance(d, M.ObjectDef) and name in (self.ir.reference or {}).get("$defs", {})
                if named or inline:
                    loc = "/$defs/" + name.replace("~", "~0").replace("/", "~1")
                else:
                    loc = loc.replace("/components/schemas/", "/$defs/", 1)
            # a URI fragment: percent-encoded, or a name holding "%", a newline or a space names
            # another place, or none (jsonschema's resolver drops what a URI may not hold)
            out[name] = "#" + quote(loc, safe="/~!$&'()*+,;=:@")
        return out

    def slow(self) -> list[str]:
        """Definitions whose typed fast path is not exact: a value checked by the general
        validator (a loose annotation) or an object with assertions beyond its fields is
        reachable from them. Their documents are decoded by the table-driven validator."""
        memo: dict[str, bool] = {}

        def inexact(t: Any, seen: frozenset[str], member: bool = False) -> bool:
            if isinstance(t, M.TRef):
                d = self.ir.defs[t.name]
                if isinstance(d, M.ObjectDef) and d.tags and not member:
                    # msgspec reads a tagged class outside its union with the tag optional: a
                    # document missing the required tag member would be accepted
                    return True
                if t.name in seen:
                    return False
                if t.name in memo:
                    return memo[t.name]
                return definition(t.name, seen | {t.name})
            if isinstance(t, M.TSchema):
                return True
            if isinstance(t, M.TArray):
                return inexact(t.items, seen)
            if isinstance(t, M.TMap):
                return (t.values is not None and inexact(t.values, seen)) or (t.keys is not None and inexact(t.keys, seen))
            if isinstance(t, M.TUnion):
                return any(inexact(m, seen, member=t.discriminator is not None) for m in t.members)
            return False

        recursive = self.recursive()

        def definition(name: str, seen: frozenset[str]) -> bool:
            d = self.ir.defs[name]
            if name in recursive:
                found = True  # held as its JSON types: the validator checks the rest
            elif isinstance(d, M.ObjectDef):
                found = d.checks is not None or any(inexact(f.type, seen) for f in d.fields)
            elif isinstance(d, M.UnionDef):
                found = inexact(d.union, seen)
            elif isinstance(d, M.AliasDef):
                found = inexact(d.type, seen)
            else:
                found = False
            return found

        for name in self.ir.defs:
            memo[name] = definition(name, frozenset({name}))
        # a cycle can hide an inexact member from the first pass: close over references
        changed = True
        while changed:
            changed = False
            for name, d in self.ir.defs.items():
                if memo[name]:
                    continue
                refs = self.refs(d.union if isinstance(d, M.UnionDef) else d.type) if isinstance(d, (M.UnionDef, M.AliasDef)) else set().union(*(self.refs(f.type) for f in d.fields)) if isinstance(d, M.ObjectDef) else set()
                if any(memo.get(r) for r in refs):
                    memo[name] = changed = True
        return [n for n in self.ir.defs if memo[n]]

    def definitions(self) -> list[dict[str, Any]]:
        """Per definition: the types the fast path decodes with (one, or the members of a union),
        and the class the result must be. A union member is decoded through its union (a union
        definition, else an inline union that tags it), so a missing discriminator is caught:
        msgspec reads a tagged class alone without its tag."""
        unions: dict[str, list[str]] = {}
        for d in self.ir.defs.values():
            if isinstance(d, M.UnionDef) and d.union.discriminator:
                for _, member in d.union.tags:
                    unions.setdefault(member, [d.name])

        def inline(t: M.TypeExpr) -> None:
            if isinstance(t, M.TUnion):
                if t.discriminator:
                    members = [member for _, member in t.tags]
                    for member in members:
                        unions.setdefault(member, members)
                for m in t.members:
                    inline(m)
            elif isinstance(t, (M.TArray, M.TSchema)) and t.items is not None:
                inline(t.items)
            elif isinstance(t, M.TMap) and t.values is not None:
                inline(t.values)

        for d in self.ir.defs.values():
            if isinstance(d, M.ObjectDef):
                for f in d.fields:
                    inline(f.type)
            elif isinstance(d, M.UnionDef):
                inline(d.union)
            elif isinstance(d, M.AliasDef):
                inline(d.type)
        out = []
        twins = self.twins()
        tops = self.tops()
        for name, d in self.ir.defs.items():
            kind = type(d).__name__.removesuffix("Def").lower()
            through = unions.get(name)
            via = through or [name]
            out.append(
                {
                    "name": name,
                    "py": self.py[name],
                    "kind": kind,
                    "decode_as": [self.py[v] for v in via],
                    # what a document with undeclared members is read as (None: it has none):
                    # every open object open, or (top_as) those at its top alone
                    "open_as": [twins.get(v, self.py[v]) for v in via] if name in twins else None,
                    "top_as": self._top_as(via, tops) if name in twins else None,
                    "expect": self.py[name] if through else None,
                }
            )
        return out
