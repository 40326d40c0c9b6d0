"""Compare two IRs: definitions, properties, enum values, types, presence and constraints."""

from __future__ import annotations

import json

from ..ir import model as M
from . import renames as R
from .model import Change, Report
from .reach import reached
from .sides import Side
from .types import NARROWER, OTHER, WIDER, Diff, Renames, compare_types, describe

KIND_NAMES = {M.ObjectDef: "object", M.UnionDef: "union", M.EnumDef: "enum", M.AliasDef: "alias"}


def breaks_of(relation: str, both_ledgers: bool = False, retyped: bool = False) -> tuple[str, ...]:
    """Who a difference of this direction breaks."""
    if relation == WIDER:
        return ("old-readers",)
    if relation == NARROWER:
        return ("new-readers",)
    if relation == OTHER:
        return ("old-readers", "new-readers", "json-wire") + (("proto-wire",) if both_ledgers and retyped else ())
    return ()


class _Compare:
    def __init__(self, a: Side, b: Side, report: Report) -> None:
        self.a, self.b, self.report = a, b, report
        self.old, self.new = a.ir, b.ir
        self.both_ledgers = a.ledger is not None and b.ledger is not None
        found = R.definition_renames(self.old, self.new)
        self.renamed = found
        self.renames = Renames({o: n for o, (n, _) in found.items()}, self.old.defs, self.new.defs)

    def run(self) -> None:
        old, new = self.old, self.new
        back = {n: o for o, n in self.renames.items()}
        for name, d in new.defs.items():
            if name in old.defs:
                self.definition(old.defs[name], d)
            elif name in back:
                o = old.defs[back[name]]
                conf = self.renamed[o.name][1]
                self.add(
                    "definition-renamed", name, f"renamed from {o.name} ({_certainty(conf)} confidence {conf:.2f})",
                    (), o.name, name, o.loc, d.loc, confidence=conf,
                )
                self.definition(o, d)
            else:
                self.add("definition-added", name, f"new {KIND_NAMES[type(d)]} definition", (), None, name, None, d.loc)
        # Without a root (the schema's own, or the spec folder's [protocol].root) every
        # definition is an entry point: consumers name it to decode
        # (`decode(doc, "B")`, `validate --as B`), so a NEW reader can no longer read what an OLD
        # writer sent as it. With a root, the audiences judge documents of the root: a definition
        # the root reaches is read through the properties and union members that reference it,
        # and those report what breaks; one it does not reach is in no document of the root, so
        # its removal breaks no reader of one. Either way the generated API loses the class and
        # decoding it by name, which the report says (docs/upgrading.md, "Removed definitions").
        root = self.a.root
        removal_breaks = ("new-readers",) if root is None else ()
        reaches = reached(old, root) if root is not None else set()
        gone = self.report.removed = {"root": root, "reached": [], "unreached": [], "noRoot": []}
        for name, d in old.defs.items():
            if name not in new.defs and name not in self.renames:
                what = f"{KIND_NAMES[type(d)]} definition removed"
                inside = None if root is None else name in reaches
                if root is None:
                    what += " (the schema has no root: consumers name its definitions)"
                elif inside:
                    what += f" (the root {root} reaches it: the references to it say what breaks)"
                else:
                    what += f" (the root {root} does not reach it: no document of {root} contains it; only decoding it by name is gone)"
                self.add("definition-removed", name, what, removal_breaks, name, None, d.loc, None)
                self.report.changes[-1].reached = inside
                gone["noRoot" if root is None else "reached" if inside else "unreached"].append(name)
        if old.root != new.root and old.root and new.root and self.renames.get(old.root, old.root) != new.root:
            self.add("root", "(root)", f"the document's root definition {old.root} -> {new.root}", ("old-readers", "new-readers"), old.root, new.root)
        elif old.root and not new.root:
            # a NEW reader has no definition to read a document by when none is named
            self.add("root", "(root)", f"the document's root definition {old.root} -> none", ("new-readers",), old.root, None)

    def add(self, kind: str, subject: str, message: str, breaks: tuple[str, ...], old: object = None, new: object = None,
            old_loc: str | None = None, new_loc: str | None = None, confidence: float | None = None) -> None:
        self.report.add(
            Change(
                kind, subject, message, breaks, old, new, confidence,
                self.a.loc(old_loc) if old_loc is not None else None,
                self.b.loc(new_loc) if new_loc is not None else None,
            )
        )

    def diffs(self, subject: str, diffs: list[Diff], old_loc: str, new_loc: str, prefix: str = "") -> None:
        for kind, message, rel in diffs:
            self.add(kind, subject, prefix + message, breaks_of(rel, self.both_ledgers, kind == "type"), None, None, old_loc, new_loc)

    # -- definitions ------------------------------------------------------------------------

    def definition(self, o: M.Definition, n: M.Definition) -> None:
        if type(o) is not type(n):
            if not self.union_and_member(o, n):
                self.add("definition-kind", n.name, f"{KIND_NAMES[type(o)]} -> {KIND_NAMES[type(n)]}", breaks_of(OTHER), None, None, o.loc, n.loc)
            return
        if isinstance(o, M.ObjectDef) and isinstance(n, M.ObjectDef):
            self.object(o, n)
        elif isinstance(o, M.UnionDef) and isinstance(n, M.UnionDef):
            self.diffs(n.name, compare_types(o.union, n.union, self.renames), o.loc, n.loc)
        elif isinstance(o, M.EnumDef) and isinstance(n, M.EnumDef):
            self.enum(o, n)
        elif isinstance(o, M.AliasDef) and isinstance(n, M.AliasDef):
            self.diffs(n.name, compare_types(o.type, n.type, self.renames), o.loc, n.loc)

    def union_and_member(self, o: M.Definition, n: M.Definition) -> bool:
        """A discriminated union that became one of its members (an object whose discriminator is
        a const the union had), or the reverse: the other members removed (or added), and the
        member compared with the object. False when the two are not so related."""
        union, obj = (o, n) if isinstance(o, M.UnionDef) else (n, o)
        if not (isinstance(union, M.UnionDef) and isinstance(obj, M.ObjectDef) and union.union.discriminator):
            return False
        field = obj.field(union.union.discriminator)
        tags = dict(union.union.tags)
        if field is None or not isinstance(field.type, M.TConst) or field.type.value not in tags:
            return False
        tag = field.type.value
        others = ", ".join(f"{json.dumps(t)} ({m})" for t, m in union.union.tags if t != tag)
        member = (self.old if union is o else self.new).defs[tags[tag]]
        if union is o:
            text, rel = f"union -> object: its member {json.dumps(tag)} ({tags[tag]}) alone; the others removed: {others}", NARROWER
        else:
            text, rel = f"object -> union: its members {others} added beside {json.dumps(tag)} ({tags[tag]})", WIDER
        self.add("definition-kind", n.name, text, breaks_of(rel), None, None, o.loc, n.loc)
        if isinstance(member, M.ObjectDef):
            self.object(member, obj) if union is o else self.object(obj, member)
        return True

    def enum(self, o: M.EnumDef, n: M.EnumDef) -> None:
        removed = [v for v in o.values if v not in n.values]
        added = [v for v in n.values if v not in o.values]
        pairs = R.value_renames(removed, added)
        for old_v, new_v, conf in pairs:
            self.add(
                "enum-value-renamed", f"{n.name}.{new_v}", f"renamed from {old_v} ({_certainty(conf)} confidence {conf:.2f})",
                breaks_of(OTHER), old_v, new_v, o.loc, n.loc, confidence=conf,
            )
        paired_old = {p[0] for p in pairs}
        paired_new = {p[1] for p in pairs}
        for v in added:
            if v not in paired_new:
                self.add("enum-value-added", f"{n.name}.{v}", "value added", breaks_of(WIDER), None, v, o.loc, n.loc)
        for v in removed:
            if v not in paired_old:
                self.add("enum-value-removed", f"{n.name}.{v}", "value removed", breaks_of(NARROWER), v, None, o.loc, n.loc)

    def object(self, o: M.ObjectDef, n: M.ObjectDef) -> None:
        name = n.name
        if o.closed != n.closed:
            rel = NARROWER if n.closed else WIDER
            what = "now closed: undeclared properties are refused" if n.closed else "now open: undeclared properties are accepted"
            self.add("closedness", name, what, breaks_of(rel), o.closed, n.closed, o.closed_loc or o.loc, n.closed_loc or n.loc)
        old_composes = [self.renames.get(c, c) for c in o.composes]
        recomposed = old_composes != list(n.composes)
        if recomposed:
            gone = [c for c in old_composes if c not in n.composes]
            new = [c for c in n.composes if c not in old_composes]
            parts = ([f"composes {', '.join(new)}"] if new else []) + ([f"no longer composes {', '.join(gone)}"] if gone else [])
            self.add("composition", name, "; ".join(parts) or "composes in another order", (), list(o.composes), list(n.composes), o.loc, n.loc)

        def own(d: M.ObjectDef, f: M.Field) -> bool:
            # a property inherited from a composed fragment is reported at the fragment
            return recomposed or f.loc.startswith(d.loc + "/")

        new_fields = {f.wire: f for f in n.fields}
        old_fields = {f.wire: f for f in o.fields}
        removed = [f for w, f in old_fields.items() if w not in new_fields and own(o, f)]
        added = [f for w, f in new_fields.items() if w not in old_fields and own(n, f)]
        pairs = R.field_renames(removed, added, self.renames)
        for of, nf, conf in pairs:
            self.add(
                "field-renamed", f"{name}.{nf.wire}", f"renamed from {of.wire} ({_certainty(conf)} confidence {conf:.2f})",
                breaks_of(OTHER), of.wire, nf.wire, of.loc, nf.loc, confidence=conf,
            )
            self.field(name, of, nf, o, n)
        paired_old = {id(p[0]) for p in pairs}
        paired_new = {id(p[1]) for p in pairs}
        for f in added:
            if id(f) in paired_new:
                continue
            breaks: tuple[str, ...] = ()
            if f.required:
                breaks += ("new-readers",)  # old data lacks it
            if o.closed:
                breaks += ("old-readers",)  # a strict old reader refuses the unknown property
            presence = "required" if f.required else "optional"
            self.add("field-added", f"{name}.{f.wire}", f"{presence} property added ({describe(f.type)})", breaks, None, f.wire, None, f.loc)
        for f in removed:
            if id(f) in paired_old:
                continue
            breaks = ()
            if f.required:
                breaks += ("old-readers",)  # new data lacks what an old reader requires
            if n.closed:
                breaks += ("new-readers",)  # old data still carries it
            presence = "required" if f.required else "optional"
            self.add("field-removed", f"{name}.{f.wire}", f"{presence} property removed ({describe(f.type)})", breaks, f.wire, None, f.loc, None)
        for wire, nf in new_fields.items():
            same = old_fields.get(wire)
            if same is not None and (own(o, same) or own(n, nf)):
                self.field(name, same, nf, o, n)

    def field(self, owner: str, of: M.Field, nf: M.Field, o: M.ObjectDef, n: M.ObjectDef) -> None:
        subject = f"{owner}.{nf.wire}"
        if of.required != nf.required:
            rel = NARROWER if nf.required else WIDER
            what = "optional -> required" if nf.required else "required -> optional"
            self.add("presence", subject, what, breaks_of(rel), of.required, nf.required, of.required_loc or of.loc, nf.required_loc or nf.loc)
        self.diffs(subject, compare_types(of.type, nf.type, self.renames), of.loc, nf.loc)


def _certainty(conf: float) -> str:
    return "high" if conf >= 0.8 else "medium" if conf >= 0.65 else "low"


def compare_irs(a: Side, b: Side, report: Report) -> dict[str, str]:
    """Add every schema change to `report`; the definition renames found (old -> new)."""
    c = _Compare(a, b, report)
    c.run()
    return c.renames


__all__ = ["compare_irs"]
