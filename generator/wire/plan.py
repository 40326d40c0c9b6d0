"""The wire planner: IR + the spec's `[proto]` table + its ledger -> proto3 messages and enums, each
field knowing which part of the JSON document it carries.

Everything protocol-specific comes from the spec folder: which definitions are roots, the wire
names that differ from the schema's, how each discriminated union travels, which fragments ride
in a sub-message of their own, which string enums are protobuf enums, how a property admitting
several JSON types is split, and the numbers (the ledger). This module only knows protobuf and
the IR.

How a discriminated union travels (`[proto.unions]`):

- `oneof`: a message holding one field per member, all in one oneof; a member's message leaves
  its discriminator out (the arm says it) unless a fragment sub-message carries it.
- `merge`: one message with every member's fields; the discriminator is a field of it (a string,
  or a protobuf enum named by `enum`).
- `inline`: no message of its own. The property holding the union carries the discriminator
  (an empty string meaning absent) and the members' other fields become fields of the parent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..binding import CONFIG, Binding
from ..errors import LedgerWouldGrow, SpecError
from ..ir import model as M
from ..ir.naming import constant, snake
from . import ledger as L

SCALARS = {"string": 2, "int64": 0, "double": 1, "bool": 0, "enum": 0}
WIRE_TYPES = {**SCALARS, "message": 2, "value": 2, "struct": 2}
KIND_OVERRIDES = ("string", "int64", "double", "bool", "value", "struct")
VALUE_TYPE = "google.protobuf.Value"
STRUCT_TYPE = "google.protobuf.Struct"
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_JSON_KIND = {"string": "string", "integer": "number", "number": "number", "boolean": "boolean", "array": "array", "object": "object"}


@dataclass(frozen=True)
class Route:
    """Which part of the JSON object a wire field carries.

    kind: `prop` (property `key`), `fragment` (a sub-message made of the properties `keys`),
    `split` (property `key` when its JSON type is `jkind`), `tag` (the discriminator `key` of a
    merged union), `inline` (property `key` holds an inline union: this is its discriminator,
    the member property `member_key`), `promoted` (member property `member_key` of the inline
    union at `key`), `arm` (the oneof arm for the member whose discriminator is `tag`)."""

    kind: str
    key: str = ""
    keys: tuple[str, ...] = ()
    jkind: str = ""
    member_key: str = ""
    tag: str = ""


@dataclass
class WField:
    name: str
    kind: str  # string int64 double bool enum message value struct
    route: Route
    ref: str | None = None  # message or enum name (kinds message and enum)
    repeated: bool = False
    optional: bool = False  # proto3 explicit presence on a scalar
    required: bool = False  # the JSON property is required (drives decode defaults)
    oneof: str | None = None
    doc: str | None = None
    number: int = 0
    loc: str = ""
    # an inline union's discriminator: per member tag, what decoding fills in when the wire is
    # silent (an empty array for a required array property of that member)
    tag_defaults: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def wire_type(self) -> int:
        return WIRE_TYPES[self.kind]

    @property
    def tag(self) -> int:
        return self.number << 3 | self.wire_type

    @property
    def proto_type(self) -> str:
        if self.kind in ("message", "enum"):
            assert self.ref is not None
            return self.ref
        return {"value": VALUE_TYPE, "struct": STRUCT_TYPE}.get(self.kind, self.kind)

    def shape(self) -> tuple[Any, ...]:
        return (self.kind, self.ref, self.repeated, self.route)


@dataclass
class WEnum:
    name: str
    doc: str | None
    values: list[tuple[str, int, str]] = field(default_factory=list)  # (NAME, number, JSON string)
    reserved: list[tuple[int, str]] = field(default_factory=list)


@dataclass
class WMessage:
    name: str  # full name; a nested message is `Outer.Inner`
    definition: str  # the schema definition it binds
    strategy: str  # object, merge, oneof
    doc: str | None
    fields: list[WField] = field(default_factory=list)
    oneof: str | None = None
    discriminator: str | None = None  # JSON key of the discriminator (merge, oneof; object: a dropped const)
    constant: str | None = None  # object: the discriminator value the wire leaves out
    members: dict[str, str] = field(default_factory=dict)  # tag -> member definition (merge, oneof)
    carried: bool = False  # oneof: the members carry the discriminator themselves
    defaults: dict[str, dict[str, Any]] = field(default_factory=dict)  # tag ("" = any) -> {key: default}
    reserved: list[tuple[int, str]] = field(default_factory=list)

    @property
    def simple(self) -> str:
        return self.name.rsplit(".", 1)[-1]

    @property
    def parent(self) -> str | None:
        return self.name.rsplit(".", 1)[0] if "." in self.name else None


@dataclass
class WirePlan:
    package: str
    ledger_path: Path
    ledger_shown: str
    ledger: L.Ledger
    ledger_text: str  # as read
    new_slots: list[tuple[str, int]]
    messages: dict[str, WMessage]
    enums: dict[str, WEnum]
    definitions: dict[str, str]  # schema definition -> message that carries it
    roots: list[str]

    @property
    def ledger_changed(self) -> bool:
        return self.ledger.render() != self.ledger_text


@dataclass(frozen=True)
class _Union:
    strategy: str
    oneof: str | None
    enum: str | None


class _Planner:
    def __init__(self, binding: Binding, ir: M.IR, ledger_text: str | None, allow_new: bool) -> None:
        self.binding = binding
        self.ir = ir
        self.config_file = binding.display(binding.spec_dir / CONFIG)
        self.allow_new = allow_new
        cfg = binding.target("proto")
        self.cfg = cfg
        self.package = self._string("package")
        if not all(_IDENT.fullmatch(p) for p in self.package.split(".")):
            raise self.config("[proto].package", f"{self.package!r} is not a protobuf package name")
        ledger_name = self._string("ledger")
        self.ledger_path = binding.spec_dir / ledger_name
        self.ledger_shown = binding.display(self.ledger_path)
        if ledger_text is None:
            self.ledger = L.read(self.ledger_path, self.ledger_shown)
            self.ledger_text = self.ledger_path.read_text(encoding="utf-8")
        else:
            self.ledger = L.parse(ledger_text, self.ledger_shown)
            self.ledger_text = ledger_text
        roots = cfg.get("roots")
        if not isinstance(roots, list) or not roots or not all(isinstance(r, str) for r in roots):
            raise self.config("[proto].roots", "must be a non-empty list of definition names")
        self.roots = roots
        self.names = self._table("names")
        self.fragments = self._table("fragments")
        self.enum_names = self._table("enums")
        self.kinds = self._table("kinds")
        self.splits: dict[str, dict[str, str]] = {}
        for key, value in self._table("split", nested=True).items():
            self.splits[key] = value
        self.unions: dict[str, _Union] = {}
        for name, spec in self._table("unions", nested=True).items():
            strategy = spec.get("as")
            if strategy not in ("oneof", "merge", "inline"):
                raise self.config(f"[proto.unions].{name}", "`as` must be oneof, merge or inline")
            if strategy == "oneof" and not _IDENT.fullmatch(str(spec.get("oneof", ""))):
                raise self.config(f"[proto.unions].{name}", "a oneof union names its oneof: oneof = \"...\"")
            extra = set(spec) - {"as", "oneof", "enum"}
            if extra:
                raise self.config(f"[proto.unions].{name}", f"unknown keys {sorted(extra)}")
            self.unions[name] = _Union(strategy, spec.get("oneof"), spec.get("enum"))
        for table, names in (("names", self.names), ("fragments", self.fragments), ("enums", self.enum_names), ("unions", self.unions)):
            for name in names:
                if name not in ir.defs:
                    raise self.config(f"[proto.{table}].{name}", "names no definition of the schema")
        for name in self.roots:
            if name not in ir.defs:
                raise self.config("[proto].roots", f"{name!r} names no definition of the schema")
        for key, kind in self.kinds.items():
            owner, _, prop = key.partition(".")
            d = ir.defs.get(owner)
            if not isinstance(d, M.ObjectDef) or d.field(prop) is None:
                raise self.config(f"[proto.kinds].\"{key}\"", "names no property of an object definition")
            if kind not in KIND_OVERRIDES:
                raise self.config(f"[proto.kinds].\"{key}\"", f"kind must be one of {list(KIND_OVERRIDES)}")
        for name, union in self.unions.items():
            d = ir.defs[name]
            if not isinstance(d, M.UnionDef) or not d.union.discriminator:
                raise self.config(f"[proto.unions].{name}", "is not a discriminated union of object definitions")
        self.messages: dict[str, WMessage] = {}
        self.enums: dict[str, WEnum] = {}
        self.by_def: dict[str, str] = {}
        self.building: set[str] = set()
        self.member_of: dict[str, str] = {}
        for name, union in self.unions.items():
            d = ir.defs[name]
            assert isinstance(d, M.UnionDef)
            for _, member in d.union.tags:
                self.member_of.setdefault(member, name)

    # -- config --------------------------------------------------------------------------------

    def config(self, where: str, message: str) -> SpecError:
        return SpecError(self.config_file, where, message)

    def schema(self, loc: str, message: str) -> SpecError:
        return SpecError(self.ir.source, loc, message)

    def _string(self, key: str) -> str:
        value = self.cfg.get(key)
        if not isinstance(value, str) or not value:
            raise self.config(f"[proto].{key}", "missing or not a string")
        return value

    def _table(self, key: str, nested: bool = False) -> dict[str, Any]:
        value = self.cfg.get(key, {})
        if not isinstance(value, dict):
            raise self.config(f"[proto.{key}]", "must be a table")
        for k, v in value.items():
            if nested and not isinstance(v, dict):
                raise self.config(f"[proto.{key}].{k}", "must be a table")
            if not nested and not isinstance(v, str):
                raise self.config(f"[proto.{key}].{k}", "must be a string")
        return value

    # -- names ----------------------------------------------------------------------------------

    def wire_name(self, definition: str) -> str:
        name = str(self.names.get(definition, definition))
        if not all(_IDENT.fullmatch(p) and p[0].isupper() for p in name.split(".")):
            raise self.config(f"[proto.names].{definition}", f"{name!r} is not a protobuf message name (Capitalised, dotted when nested)")
        return name

    def composes(self, d: M.ObjectDef) -> list[str]:
        out: list[str] = []
        for name in d.composes:
            frag = self.ir.defs[name]
            if isinstance(frag, M.ObjectDef):
                out += [n for n in self.composes(frag) if n not in out]
            if name not in out:
                out.append(name)
        return out

    def resolve(self, t: M.TypeExpr) -> M.TypeExpr | M.Definition:
        return M.resolve(t, self.ir.defs.__getitem__)

    # -- messages -------------------------------------------------------------------------------

    def message_for(self, definition: str, loc: str) -> str:
        """The message that carries a definition, planned on first use."""
        if definition in self.by_def:
            return self.by_def[definition]
        d = self.ir.defs[definition]
        owner = self.member_of.get(definition)
        if owner is not None and self.unions[owner].strategy == "merge":
            name = self.message_for(owner, loc)
            self.by_def[definition] = name
            return name
        if owner is not None and self.unions[owner].strategy == "inline":
            raise self.schema(loc, f"{definition} travels inline in its parent ([proto.unions].{owner}): it has no message of its own")
        name = self.wire_name(definition)
        if name in self.messages or name in self.enums:
            raise self.config(f"[proto.names].{definition}", f"{name!r} is already the wire name of another definition")
        self.by_def[definition] = name
        if isinstance(d, M.ObjectDef):
            msg = WMessage(name, definition, "object", d.doc)
            self.messages[name] = msg
            self.object_fields(msg, d)
        elif isinstance(d, M.UnionDef) and d.name in self.unions:
            union = self.unions[d.name]
            msg = WMessage(name, definition, union.strategy, d.doc)
            self.messages[name] = msg
            if union.strategy == "oneof":
                self.oneof_fields(msg, d, union)
            elif union.strategy == "merge":
                self.merge_fields(msg, d, union)
            else:
                raise self.schema(loc, f"{definition} travels inline ([proto.unions]): only a property can hold it")
        elif isinstance(d, M.UnionDef):
            raise self.config("[proto.unions]", f"union {definition} ({d.loc}) is on the wire but says nothing of how it travels")
        else:
            raise self.schema(d.loc, f"{definition} is not an object or a union: it cannot be a protobuf message")
        return name

    def object_fields(self, msg: WMessage, d: M.ObjectDef, keep_discriminator: bool = False) -> None:
        msg.fields = self.fields_of(d, keep_discriminator, msg)
        owner = self.member_of.get(d.name)
        if owner is not None and not keep_discriminator:
            disc = self.ir.defs[owner]
            assert isinstance(disc, M.UnionDef) and disc.union.discriminator
            key = disc.union.discriminator
            carried = any(f.route.kind == "fragment" and key in f.route.keys for f in msg.fields)
            if not carried:
                f = d.field(key)
                assert f is not None and isinstance(f.type, M.TConst)
                msg.discriminator = key
                msg.constant = str(f.type.value)
        self.static_defaults(msg, d)

    def fields_of(self, d: M.ObjectDef, keep_discriminator: bool, msg: WMessage, split_keys: set[str] | None = None) -> list[WField]:
        out: list[WField] = []
        routed: set[str] = set()
        for frag in self.composes(d):
            if frag not in self.fragments:
                continue
            fd = self.ir.defs[frag]
            assert isinstance(fd, M.ObjectDef)
            keys = tuple(f.wire for f in fd.fields)
            sub = self.fragments[frag]
            if not _IDENT.fullmatch(sub):
                raise self.config(f"[proto.fragments].{frag}", f"{sub!r} is not a protobuf field name")
            out.append(WField(sub, "message", Route("fragment", keys=keys), ref=self.message_for(frag, fd.loc), required=True, doc=fd.doc, loc=fd.loc))
            routed |= set(keys)
        drop = None
        owner = self.member_of.get(d.name)
        if owner is not None and not keep_discriminator:
            u = self.ir.defs[owner]
            assert isinstance(u, M.UnionDef)
            drop = u.union.discriminator
        for f in d.fields:
            if f.wire in routed or f.wire == drop:
                continue
            out += self.field_for(d, f, split_keys or set())
        return out

    def field_for(self, d: M.ObjectDef, f: M.Field, split_keys: set[str]) -> list[WField]:
        override = self.kinds.get(f"{d.name}.{f.wire}")
        name = snake(f.wire)
        if override:
            return [WField(name, override, Route("prop", f.wire), required=f.required, optional=override in SCALARS and not f.required, doc=f.doc, loc=f.loc)]
        target = self.resolve(f.type)
        if isinstance(target, M.UnionDef) and target.name in self.unions and self.unions[target.name].strategy == "inline":
            return self.inline_fields(f, target)
        kinds = self.json_kinds(f.type)
        if len(kinds) > 1 or f.wire in split_keys:
            return self.split_fields(d, f)
        kind, ref, repeated = self.kind_of(f.type, f.loc)
        return [
            WField(name, kind, Route("prop", f.wire), ref=ref, repeated=repeated, required=f.required, optional=kind in SCALARS and not repeated and not f.required, doc=f.doc, loc=f.loc)
        ]

    def json_kinds(self, t: M.TypeExpr) -> set[str]:
        """The JSON kinds (string, number, boolean, array, object, any) a property admits."""
        target = self.resolve(t)
        if isinstance(target, M.TUnion) and not target.discriminator:
            return set().union(*(self.json_kinds(m) for m in target.members))
        if isinstance(target, M.TAny):
            return {"any"}
        kinds = M.json_types(target, self.ir.defs.__getitem__)
        return {_JSON_KIND[k] for k in kinds if k != "null"}

    def split_fields(self, d: M.ObjectDef, f: M.Field) -> list[WField]:
        table = self.splits.get(f.wire)
        if table is None:
            raise self.config(
                f"[proto.split].{f.wire}",
                f"{d.name}.{f.wire} ({f.loc}) admits several JSON types: name a wire field for each (string = ..., array = ...)",
            )
        target = self.resolve(f.type)
        members = target.members if isinstance(target, M.TUnion) and not target.discriminator else (f.type,)
        out = []
        for m in members:
            (jkind,) = self.json_kinds(m) or {"?"}
            wire = table.get(jkind)
            if wire is None or not _IDENT.fullmatch(wire):
                raise self.config(f"[proto.split].{f.wire}", f"names no wire field for the JSON type {jkind} of {d.name}.{f.wire}")
            kind, ref, repeated = self.kind_of(m, f.loc)
            out.append(WField(wire, kind, Route("split", f.wire, jkind=jkind), ref=ref, repeated=repeated, required=f.required, optional=kind in SCALARS and not repeated, doc=f.doc, loc=f.loc))
        return out

    def inline_fields(self, f: M.Field, union: M.UnionDef) -> list[WField]:
        spec = self.unions[union.name]
        disc = union.union.discriminator
        assert disc is not None
        tag_kind, tag_ref = ("enum", self.tag_enum(union, spec.enum)) if spec.enum else ("string", None)
        head = WField(snake(f.wire), tag_kind, Route("inline", f.wire, member_key=disc), ref=tag_ref, required=False, doc=f.doc, loc=f.loc)
        out = [head]
        promoted: dict[str, WField] = {}
        for tag, member in union.union.tags:
            if tag == "":
                raise self.schema(union.loc, "an inline union's discriminator values must not be empty: empty means absent on the wire")
            md = self.ir.defs[member]
            assert isinstance(md, M.ObjectDef)
            for g in md.fields:
                if g.required and g.wire != disc and "array" in self.json_kinds(g.type):
                    head.tag_defaults.setdefault(tag, {})[g.wire] = []
            for g in md.fields:
                if g.wire == disc:
                    continue
                for w in self.field_for(md, g, set()):
                    route = Route("promoted", f.wire, member_key=g.wire, jkind=w.route.jkind)
                    w = WField(w.name, w.kind, route, ref=w.ref, repeated=w.repeated, optional=w.kind in SCALARS and not w.repeated, doc=w.doc, loc=w.loc)
                    seen = promoted.get(w.name)
                    if seen is not None and seen.shape() != w.shape():
                        raise self.schema(g.loc, f"{w.name!r} means different things in the members of {union.name}")
                    promoted.setdefault(w.name, w)
        return out + list(promoted.values())

    def tag_enum(self, union: M.UnionDef, name: str) -> str:
        if not _IDENT.fullmatch(name):
            raise self.config(f"[proto.unions].{union.name}", f"enum {name!r} is not a protobuf name")
        if name not in self.enums:
            e = WEnum(name, f"The discriminator of {union.name}.")
            for tag, _ in union.union.tags:
                e.values.append((constant(tag), 0, tag))
            self.enums[name] = e
        return name

    def _any_json(self, t: M.TypeExpr) -> bool:
        """A value type that admits any JSON value (an alias of any): its map is a Struct."""
        r = self.resolve(t)
        return isinstance(r, M.TAny) and not r.nonnull

    def kind_of(self, t: M.TypeExpr, loc: str) -> tuple[str, str | None, bool]:
        if isinstance(t, M.TArray):
            kind, ref, repeated = self.kind_of(t.items, t.loc)
            if repeated:
                raise self.schema(t.loc, "an array of arrays has no protobuf form")
            if kind in ("int64", "double", "bool", "enum"):
                raise self.schema(t.loc, "repeated numbers are not supported by the wire planner yet")
            return kind, ref, True
        if isinstance(t, M.TRef):
            d = self.ir.defs[t.name]
            if isinstance(d, M.AliasDef):
                return self.kind_of(d.type, d.loc)
            if isinstance(d, M.EnumDef):
                if d.name in self.enum_names:
                    return "enum", self.enum_for(d), False
                return "string", None, False
            return "message", self.message_for(d.name, t.loc), False
        if isinstance(t, (M.TString, M.TEnum)):
            return "string", None, False
        if isinstance(t, M.TConst):
            v = t.value
            return ("bool" if isinstance(v, bool) else "int64" if isinstance(v, int) else "string"), None, False
        if isinstance(t, M.TInteger):
            return "int64", None, False
        if isinstance(t, M.TNumber):
            return "double", None, False
        if isinstance(t, M.TBoolean):
            return "bool", None, False
        if isinstance(t, M.TAny):
            return "value", None, False
        if isinstance(t, M.TMap):
            if t.values is not None and not self._any_json(t.values):
                raise self.schema(t.loc, "a map with typed values has no wire form in the planner yet")
            return "struct", None, False
        raise self.schema(t.loc, "no protobuf form for this type here (a union of JSON types only travels as a property split by [proto.split])")

    def enum_for(self, d: M.EnumDef) -> str:
        name = str(self.enum_names[d.name])
        if not _IDENT.fullmatch(name):
            raise self.config(f"[proto.enums].{d.name}", f"{name!r} is not a protobuf name")
        if name not in self.enums:
            e = WEnum(name, d.doc)
            for v in d.values:
                e.values.append((constant(v), 0, v))
            self.enums[name] = e
        return name

    def oneof_fields(self, msg: WMessage, d: M.UnionDef, union: _Union) -> None:
        assert union.oneof is not None and d.union.discriminator
        msg.oneof = union.oneof
        msg.discriminator = d.union.discriminator
        for tag, member in d.union.tags:
            arm = snake(tag)
            if not _IDENT.fullmatch(arm):
                raise self.schema(d.loc, f"discriminator value {tag!r} makes no protobuf field name")
            ref = self.message_for(member, d.loc)
            md = self.messages[ref]
            msg.members[tag] = member
            msg.fields.append(WField(arm, "message", Route("arm", tag=tag), ref=ref, oneof=union.oneof, doc=md.doc, loc=self.ir.defs[member].loc))
        msg.carried = all(self.messages[f.ref].constant is None for f in msg.fields if f.ref)

    def merge_fields(self, msg: WMessage, d: M.UnionDef, union: _Union) -> None:
        disc = d.union.discriminator
        assert disc is not None
        msg.discriminator = disc
        members: list[tuple[str, M.ObjectDef]] = []
        for tag, member in d.union.tags:
            md = self.ir.defs[member]
            assert isinstance(md, M.ObjectDef)
            members.append((tag, md))
            msg.members[tag] = member
            self.by_def[member] = msg.name
        # a property whose JSON types differ across members is split for all of them
        kinds: dict[str, set[str]] = {}
        for _, md in members:
            for f in md.fields:
                if f.wire != disc:
                    kinds.setdefault(f.wire, set()).update(self.json_kinds(f.type))
        split_keys = {k for k, v in kinds.items() if len(v) > 1}
        if union.enum:
            tag_field = WField(snake(disc), "enum", Route("tag", disc), ref=self.tag_enum(d, union.enum), required=True)
        else:
            tag_field = WField(snake(disc), "string", Route("tag", disc), required=True)
        merged: dict[str, WField] = {tag_field.name: tag_field}
        required_in: dict[str, int] = {}
        for tag, md in members:
            fields = self.fields_of(md, True, msg, split_keys)
            for w in fields:
                if w.route.kind == "prop" and w.route.key == disc:
                    continue
                seen = merged.get(w.name)
                if seen is not None and seen.shape() != w.shape():
                    raise self.schema(w.loc, f"{w.name!r} means different things in the members of {d.name} ({seen.loc})")
                if seen is None:
                    merged[w.name] = w
                if w.required:
                    required_in[w.name] = required_in.get(w.name, 0) + 1
            self.static_defaults(msg, md, tag)
        for w in merged.values():
            if w is tag_field:
                continue
            w.required = required_in.get(w.name, 0) == len(members)
            w.optional = w.kind in SCALARS and not w.repeated and (not w.required or w.route.kind == "split")
        msg.fields = list(merged.values())

    def static_defaults(self, msg: WMessage, d: M.ObjectDef, tag: str = "") -> None:
        """What decoding fills in when the wire is silent: an empty array for a required array
        property (protobuf cannot tell an empty repeated field from an absent one)."""
        for f in d.fields:
            if f.required and "array" in self.json_kinds(f.type):
                target = self.resolve(f.type)
                if isinstance(target, M.UnionDef) and target.name in self.unions:
                    continue
                msg.defaults.setdefault(tag, {})[f.wire] = []

    # -- numbers --------------------------------------------------------------------------------

    def number(self) -> list[tuple[str, int]]:
        scopes: dict[str, str] = {m: "message" for m in self.messages}
        scopes.update({e: "enum" for e in self.enums})
        L.check_numbers(self.ledger, scopes)
        wanted: list[tuple[str, str, Any, int]] = []  # (key, scope, holder, index)
        for name in sorted(self.messages):
            msg = self.messages[name]
            keys = set()
            for i, f in enumerate(msg.fields):
                key = f"{name}.{f.oneof}.{f.name}" if f.oneof else f"{name}.{f.name}"
                if key in keys:
                    raise self.schema(f.loc, f"two fields of message {name} are named {f.name!r}")
                keys.add(key)
                wanted.append((key, name, f, i))
        for name in sorted(self.enums):
            e = self.enums[name]
            for i, (vname, _, json_value) in enumerate(e.values):
                wanted.append((f"{name}.{vname}", name, e, i))
        enum_names: dict[str, str] = {}
        for e in self.enums.values():
            for vname, _, _ in e.values:
                if vname in enum_names:
                    raise self.config("[proto.enums]", f"enum value {vname} is in both {enum_names[vname]} and {e.name}: protobuf scopes enum values by package")
                enum_names[vname] = e.name
        new: list[tuple[str, int]] = []
        missing = [key for key, _, _, _ in wanted if key not in self.ledger.entries]
        if missing and not self.allow_new:
            shown = ", ".join(missing[:8]) + (f" and {len(missing) - 8} more" if len(missing) > 8 else "")
            raise LedgerWouldGrow(
                self.ledger_shown,
                missing[0],
                f"{len(missing)} new wire slot{'s' if len(missing) != 1 else ''} need{'' if len(missing) != 1 else 's'} a number ({shown}): "
                "run `specbind generate --allow-new-slots` to append them to the ledger",
            )
        for key, scope, holder, i in wanted:
            if key not in self.ledger.entries:
                n = L.next_number(self.ledger, scope, scopes[scope], set(scopes))
                self.ledger.entries[key] = n
                new.append((key, n))
            n = self.ledger.entries[key]
            if isinstance(holder, WMessage):
                holder.fields[i].number = n
            elif isinstance(holder, WEnum):
                vname, _, json_value = holder.values[i]
                holder.values[i] = (vname, n, json_value)
            else:
                holder.number = n
        if new:
            L.check_numbers(self.ledger, scopes)
        used = {key for key, _, _, _ in wanted}
        for key, n in self.ledger.entries.items():
            if key in used:
                continue
            found = L.scope_of(key, set(scopes))
            if found is None:
                continue
            scope, rest = found
            if scope in self.messages:
                self.messages[scope].reserved.append((n, rest.rsplit(".", 1)[-1]))
            else:
                self.enums[scope].reserved.append((n, rest))
        for m in self.messages.values():
            m.fields.sort(key=lambda f: f.number)
            m.reserved.sort()
        for e in self.enums.values():
            e.values.sort(key=lambda v: v[1])
            e.reserved.sort()
            if e.values[0][1] != 0:
                raise SpecError(self.ledger_shown, f"{e.name}.{e.values[0][0]}", f"enum {e.name} has no value numbered 0: proto3 needs one")
        return new

    def plan(self) -> WirePlan:
        for root in self.roots:
            d = self.ir.defs[root]
            self.message_for(root, d.loc)
        for name in self.messages:
            parent = self.messages[name].parent
            if parent is not None and parent not in self.messages:
                raise self.config("[proto.names]", f"{name} is nested in {parent}, which is no message of the wire")
        new = self.number()
        return WirePlan(
            package=self.package,
            ledger_path=self.ledger_path,
            ledger_shown=self.ledger_shown,
            ledger=self.ledger,
            ledger_text=self.ledger_text,
            new_slots=new,
            messages=dict(sorted(self.messages.items())),
            enums=dict(sorted(self.enums.items())),
            definitions=dict(self.by_def),
            roots=list(self.roots),
        )


def plan(binding: Binding, ir: M.IR, ledger_text: str | None = None, allow_new: bool = False) -> WirePlan:
    """The wire plan of a spec. `ledger_text` replaces the ledger file's content; without
    `allow_new` a slot the ledger lacks is an error naming it."""
    return _Planner(binding, ir, ledger_text, allow_new).plan()
