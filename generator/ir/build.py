"""Schema document -> IR. Every decision about what a schema construct means is made here, once,
and anything this builder cannot represent exactly stops generation with its JSON pointer."""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from typing import Any

from ..errors import SpecError, pointer_join
from ..regex import Untranslatable, ecma_to_python
from ..schema import vocabulary as V
from ..schema.loader import SchemaDoc
from . import general as G
from . import model as M
from .naming import snake

# what a typed attempt raises when the typed model cannot say what a node means: the node is
# then compiled for the general validator instead (which re-checks the keyword values, so a
# malformed schema still stops generation with its pointer)
_TYPED_FAILS = (SpecError, TypeError, AttributeError, KeyError, ValueError, IndexError)

_DEFINITION_HOLDERS = frozenset({"$defs", "definitions"})
_MAP_KEYS = frozenset({"type", "additionalProperties", "propertyNames"})
"""The keywords of an object typed as a map."""
_OBJECT_KEYS = {"type", "properties", "required", "allOf", "unevaluatedProperties", "additionalProperties"}


def build_ir(doc: SchemaDoc, integers: str = "exact", formats: bool = False) -> M.IR:
    return _Builder(doc, integers, formats).build()


class _Builder:
    def __init__(self, doc: SchemaDoc, integers: str = "exact", formats: bool = False) -> None:
        self.doc = doc
        self.integers = integers
        self.formats = formats
        # the keywords that assert nothing here: `format` asserts where the binding says so, and a
        # schema holding one is then no "any" nor a typed node (the general validator checks it)
        self.annotation_keys = V.ANNOTATIONS - {"format"} if formats else V.ANNOTATIONS
        self.defs: dict[str, M.Definition] = {}
        self.building: list[str] = []
        self.synthesized: list[str] = []  # names given to inline objects, in creation order
        self.tag_log: list[tuple[str, tuple[str, str], str | None]] = []  # (object, tag, definition being built) as registered
        self.made_by: dict[str, str | None] = {}  # inline object -> the definition being built when it was named
        self.general = G.Compiler(doc.draft, doc.resolve, self.fail, doc.annotations, formats)
        self.fragments = self._find_fragments()

    # -- typed attempts ---------------------------------------------------------------------

    def _snapshot(self) -> tuple[int, int, list[str]]:
        return len(self.synthesized), len(self.tag_log), list(self.building)

    def _rollback(self, snap: tuple[int, int, list[str]]) -> None:
        """Forget what a failed typed attempt made: the inline objects it named, the tags it
        gave union members. What a definition the attempt built to the end made stays: that
        definition is kept (`definition` memoizes it) and refers to its inline objects and
        relies on its tags (an anyOf listed before its members builds them, then fails)."""
        n_syn, n_tags, building = snap
        kept = [name for name in self.synthesized[n_syn:] if self.made_by.get(name) in self.defs]
        for name in self.synthesized[n_syn:]:
            if name not in kept:
                self.defs.pop(name, None)
                self.doc.inline.pop(name, None)
                self.made_by.pop(name, None)
        self.synthesized[n_syn:] = kept
        kept_tags = [entry for entry in self.tag_log[n_tags:] if entry[2] in self.defs]
        for entry in self.tag_log[n_tags:]:
            if entry in kept_tags:
                continue
            owner, tag, _ = entry
            d = self.defs.get(owner)
            if isinstance(d, M.ObjectDef) and tag in d.tags:
                d.tags.remove(tag)
        self.tag_log[n_tags:] = kept_tags
        self.building[:] = building

    def compile_general(self, node: Any, at: str) -> dict[str, Any]:
        return self.general.compile(node, at)

    def general_types(self, compiled: dict[str, Any]) -> tuple[str, ...]:
        def safe(name: str) -> M.Definition:
            if name in self.defs:
                return self.defs[name]
            if name in self.building:  # still being built: it may be anything
                return M.AliasDef(name, "", None, M.TAny(""))
            return self.definition(name)

        def lookup(name: str) -> set[str]:
            return M.json_types(safe(name), safe)

        found = G.json_types(compiled, lookup)
        return tuple(t for t in M.JSON_TYPES if t in found)

    def schema_expr(self, node: Any, at: str) -> M.TSchema:
        compiled = self.compile_general(node, at)
        return M.TSchema(at, compiled, self.general_types(compiled))

    def fail(self, at: str, message: str) -> SpecError:
        return SpecError(self.doc.file_of(at), at, message)

    def build(self) -> M.IR:
        for name in self.doc.defs:
            self.definition(name)
        exact: dict[str, M.TypeExpr] = {}
        for name in self.recursive_aliases():
            typed = self.defs[name]
            assert isinstance(typed, (M.AliasDef, M.UnionDef))
            exact[name] = typed.union if isinstance(typed, M.UnionDef) else typed.type
            self.defs[name] = self.general_definition(name, self.doc.defs[name], self.doc.def_pointer(name))
        ordered = {name: self.defs[name] for name in [*self.doc.defs, *self.synthesized]}
        for name, d in ordered.items():
            self.alias_cycle(name, d, ordered)
        for d in ordered.values():
            d.tags.sort() if isinstance(d, M.ObjectDef) else None
        self.endless(ordered)
        raw = self.doc.raw
        return M.IR(
            reference=self.doc.combined(),
            source=self.doc.display,
            sha256=self.doc.sha256,
            title=raw.get("title") if isinstance(raw.get("title"), str) else None,
            description=raw.get("description") if isinstance(raw.get("description"), str) else None,
            root=self.doc.root_ref,
            defs=ordered,
            draft=self.doc.draft,
            integers=self.integers,
            formats=self.formats,
            exact=exact,
        )

    def endless(self, defs: dict[str, M.Definition]) -> None:
        """A definition that applies itself to the very value it validates (through $ref,
        allOf, anyOf, not, if...) without reaching into a member or item never terminates."""
        def same(t: Any) -> set[str]:
            if isinstance(t, dict):  # an object's checks: a general node
                return G.same_instance_refs(t)
            if isinstance(t, M.TSchema):
                return G.same_instance_refs(t.node)
            if isinstance(t, M.TRef):
                return {t.name}
            if isinstance(t, M.TUnion):  # every member is checked on the value itself
                return set().union(*(same(m) for m in t.members))
            return set()

        edges: dict[str, set[str]] = {}
        for name, d in defs.items():
            edges[name] = same(d.checks if isinstance(d, M.ObjectDef) else d.type if isinstance(d, M.AliasDef) else d.union if isinstance(d, M.UnionDef) else None)
        state: dict[str, int] = {}

        def visit(name: str, path: list[str]) -> None:
            state[name] = 1
            for nxt in sorted(edges.get(name, ())):
                if state.get(nxt) == 1:
                    cycle = path[path.index(nxt):] + [nxt] if nxt in path else [name, nxt]
                    raise self.fail(
                        self.doc.def_pointer(nxt),
                        f"definitions apply each other to the same value in a cycle that never ends: {' -> '.join(cycle)} "
                        "(each needs itself to be valid first): break the cycle, or make one step go into a property or item",
                    )
                if state.get(nxt) is None:
                    visit(nxt, path + [nxt])
            state[name] = 2

        for name in defs:
            if state.get(name) is None:
                visit(name, [name])

    def recursive_aliases(self) -> list[str]:
        """Type aliases and unions that contain themselves inside a map value or an array item,
        without passing through an object definition (a JSON value: a map or array of JSON
        values, or a scalar). A typed model would have to evaluate such an alias before itself;
        they are validated by their compiled schema instead, in every target alike. A cycle
        through bare references and union members alone never ends: `endless` and
        `alias_cycle` report it."""
        edges: dict[str, set[tuple[str, bool]]] = {}
        for name in self.doc.defs:
            d = self.defs[name]
            if isinstance(d, (M.AliasDef, M.UnionDef)):
                t = d.union if isinstance(d, M.UnionDef) else d.type
                edges[name] = {(r, inside) for r, inside in _type_refs(t, False) if isinstance(self.defs.get(r), (M.AliasDef, M.UnionDef))}
        cyclic: set[str] = set()
        for start in edges:
            seen: set[tuple[str, bool]] = set()
            todo = [(r, inside) for r, inside in edges[start]]
            while todo:
                node, inside = todo.pop()
                if node == start and inside:
                    cyclic.add(start)
                    break
                if (node, inside) not in seen:
                    seen.add((node, inside))
                    todo.extend((r, inside or deeper) for r, deeper in edges.get(node, ()))
        return [name for name in self.doc.defs if name in cyclic]

    def alias_cycle(self, name: str, d: M.Definition, defs: dict[str, M.Definition]) -> None:
        """A definition that is only a $ref to another, round and round, names no type."""
        chain = [name]
        while isinstance(d, M.AliasDef) and isinstance(d.type, M.TRef):
            nxt = d.type.name
            if nxt in chain:
                raise self.fail(self.doc.def_pointer(name), f"definitions refer to each other in a cycle: {' -> '.join(chain + [nxt])}")
            chain.append(nxt)
            d = defs[nxt]

    # -- definitions ------------------------------------------------------------------------

    def _find_fragments(self) -> set[str]:
        found: set[str] = set()

        def walk(node: Any, at: str) -> None:
            if isinstance(node, dict):
                subs = node.get("allOf", [])
                for i, sub in enumerate(subs if isinstance(subs, list) else []):
                    if isinstance(sub, dict) and "$ref" in sub:
                        found.add(self.doc.resolve(sub["$ref"], pointer_join(at, "allOf", i, "$ref")))
                for key, value in node.items():
                    if key in V.SCHEMA_MAPS and isinstance(value, dict):
                        for k, v in value.items():
                            walk(v, pointer_join(at, key, k))
                    elif key in V.SCHEMA_SINGLE:
                        walk(value, pointer_join(at, key))
                    elif key in V.SCHEMA_LISTS and isinstance(value, list):
                        for i, v in enumerate(value):
                            walk(v, pointer_join(at, key, i))

        walk(self.doc.raw, "")
        return found

    def definition(self, name: str) -> M.Definition:
        if name in self.defs:
            return self.defs[name]
        at = self.doc.def_pointer(name)
        if name in self.building:
            cycle = " -> ".join(self.building[self.building.index(name) :] + [name])
            raise self.fail(at, f"definitions compose themselves in a cycle: {cycle}")
        self.building.append(name)
        node = self.doc.defs[name]
        snap = self._snapshot()
        try:
            d = self.typed_definition(name, node, at)
        except _TYPED_FAILS:
            self._rollback(snap)
            d = self.general_definition(name, node, at)
        finally:
            if self.building and self.building[-1] == name:
                self.building.pop()
        self.defs[name] = d
        if isinstance(d, M.UnionDef) and d.union.discriminator:
            for tag, member in d.union.tags:
                obj = self.defs[member]
                assert isinstance(obj, M.ObjectDef)
                if (d.union.discriminator, tag) not in obj.tags:
                    obj.tags.append((d.union.discriminator, tag))
        return d

    def general_definition(self, name: str, node: Any, at: str) -> M.Definition:
        """A definition the typed model cannot say exactly: validated by its compiled schema;
        an object with properties keeps a (open) model of its fields."""
        doc = _text(node.get("description")) if isinstance(node, dict) else None
        checks = self.compile_general(node, at)
        if isinstance(node, dict) and node.get("type") == "object" and isinstance(node.get("properties"), dict):
            required = set(node["required"]) if isinstance(node.get("required"), list) else set()
            fields = []
            for wire, sub in node["properties"].items():
                p_at = pointer_join(at, "properties", wire)
                fields.append(
                    M.Field(
                        wire=wire,
                        name=snake(wire),
                        type=self.expr(sub, p_at),
                        required=wire in required,
                        loc=p_at,
                        required_loc=at + "/required" if wire in required else None,
                        doc=_text(sub.get("description")) if isinstance(sub, dict) else None,
                        default=sub.get("default", M.NO_DEFAULT) if isinstance(sub, dict) else M.NO_DEFAULT,
                    )
                )
            names = [f.name for f in fields]
            if len(set(names)) == len(names):
                closed, closed_loc = _general_closedness(node, at)
                return M.ObjectDef(name, at, doc, tuple(fields), closed, closed_loc, fragment=False, checks=checks)
        return M.AliasDef(name, at, doc, M.TSchema(at, checks, self.general_types(checks)))

    def typed_definition(self, name: str, node: Any, at: str) -> M.Definition:
        if not isinstance(node, dict):
            raise self.fail(at, "a boolean definition has no typed model")
        doc = node.get("description")
        if self.doc.draft == V.DRAFT_07 and "$ref" in node:
            node = {"$ref": node["$ref"]}  # draft-07: a $ref's siblings are ignored (an object's too)
        keys = set(node) - self.annotation_keys - self.extension_keys(node)
        d: M.Definition
        if keys & {"oneOf", "anyOf"}:
            extra = keys - {"oneOf", "anyOf", "type"}
            if extra or {"oneOf", "anyOf"} <= keys:
                raise self.fail(at, f"a union definition cannot also carry {sorted(extra or {'anyOf'})}")
            union = self.typed_expr(node, at)
            # a union of every JSON value is no union at all: an alias of any
            d = M.UnionDef(name, at, doc, union) if isinstance(union, M.TUnion) else M.AliasDef(name, at, doc, union)
        elif "enum" in keys and node.get("type") == "string":
            t = self.typed_expr(node, at)
            assert isinstance(t, M.TEnum)
            d = M.EnumDef(name, at, doc, t.values)
        elif node.get("type") == "object" and keys & {"properties", "allOf", "required"}:
            d = self.object_def(name, node, at, doc)
        else:
            d = M.AliasDef(name, at, doc, self.typed_expr(node, at))
        return d

    def extension_keys(self, node: dict[str, Any]) -> set[str]:
        """Keys that assert nothing about the instance: extensions, the document's own
        annotation keywords, and the folders of definitions a schema holds (the root schema's
        `$defs` beside its own properties)."""
        return {k for k in node if V.is_extension(k) or k in self.doc.annotations or k in _DEFINITION_HOLDERS}

    def object_def(self, name: str, node: dict[str, Any], at: str, doc: str | None) -> M.ObjectDef:
        extra = set(node) - self.annotation_keys - _OBJECT_KEYS - self.extension_keys(node)
        if extra:
            raise self.fail(pointer_join(at, sorted(extra)[0]), "keyword does not apply to an object with properties")
        fields: dict[str, M.Field] = {}
        required_at: dict[str, str] = {}
        composes: list[str] = []
        for i, sub in enumerate(node.get("allOf", [])):
            sub_at = pointer_join(at, "allOf", i)
            if set(sub) - self.annotation_keys - self.extension_keys(sub) != {"$ref"}:
                raise self.fail(sub_at, "allOf members must be plain $refs to object definitions")
            frag = self.definition(self.doc.resolve(sub["$ref"], sub_at + "/$ref"))
            if not isinstance(frag, M.ObjectDef) or frag.checks is not None:
                raise self.fail(sub_at, f"allOf member {frag.name!r} is not an object definition")
            composes.append(frag.name)
            for f in frag.fields:
                fields[f.wire] = self.merge(fields.get(f.wire), f, at)
                if f.required and f.required_loc:
                    required_at.setdefault(f.wire, f.required_loc)
        props = node.get("properties", {})
        own_required = node.get("required", [])
        if not isinstance(own_required, list) or not all(isinstance(r, str) for r in own_required):
            raise self.fail(at + "/required", "required must be an array of property names")
        for r in own_required:
            required_at[r] = at + "/required"
        for wire, sub in props.items():
            p_at = pointer_join(at, "properties", wire)
            default = sub.get("default", M.NO_DEFAULT) if isinstance(sub, dict) else M.NO_DEFAULT
            f = M.Field(
                wire=wire,
                name=snake(wire),
                type=self.expr(sub, p_at),
                required=False,
                loc=p_at,
                required_loc=None,
                doc=sub.get("description") if isinstance(sub, dict) else None,
                default=default,
            )
            fields[wire] = self.merge(fields.get(wire), f, at)
        for wire, loc in required_at.items():
            if wire not in fields:
                raise self.fail(loc, f"required property {wire!r} is not declared in properties")
            f = fields[wire]
            fields[wire] = M.Field(f.wire, f.name, f.type, True, f.loc, loc, f.doc, f.default)
        # the definition's own properties first, in its order; then what it composes
        fields = {w: fields[w] for w in [*props, *(w for w in fields if w not in props)]}
        clash = {n for n, k in Counter(f.name for f in fields.values()).items() if k > 1}
        if clash:
            raise self.fail(at + "/properties", f"properties map to the same snake_case name: {sorted(clash)}")
        closed, closed_loc = self.closedness(node, at)
        for frag_name in composes:
            frag = self.defs[frag_name]
            assert isinstance(frag, M.ObjectDef)
            if frag.closed and set(fields) - {f.wire for f in frag.fields}:
                # the member's own closing keyword refuses what the composition adds
                raise self.fail(at + "/allOf", f"allOf member {frag_name!r} is closed to the properties beside it")
        return M.ObjectDef(
            name=name,
            loc=at,
            doc=doc,
            fields=tuple(fields.values()),
            closed=closed,
            closed_loc=closed_loc,
            fragment=name in self.fragments,
            composes=tuple(composes),
        )

    def closedness(self, node: dict[str, Any], at: str) -> tuple[bool, str | None]:
        un = node.get("unevaluatedProperties", True)
        add = node.get("additionalProperties", True)
        un = True if un == {} else un
        add = True if add == {} else add
        if un is False and add not in (True, False):
            raise self.fail(at + "/additionalProperties", "additionalProperties as a schema beside unevaluatedProperties")
        if un is False:
            return True, at + "/unevaluatedProperties"
        if add is False:
            if "allOf" in node:
                # additionalProperties cannot see properties declared in allOf members: such an
                # object would reject its own inherited fields.
                raise self.fail(at + "/additionalProperties", "additionalProperties: false beside allOf; use unevaluatedProperties")
            return True, at + "/additionalProperties"
        if un is not True or add is not True:
            raise self.fail(at, "only true/false are supported for additional/unevaluatedProperties beside properties")
        return False, None

    def merge(self, inherited: M.Field | None, own: M.Field, at: str) -> M.Field:
        """A property declared again by the composing definition: both schemas apply, so the
        narrower must imply the wider (a const inside the inherited enum or string type)."""
        if inherited is None:
            return own
        a, b = inherited.type, own.type
        if _same_shape(a, b):
            chosen = b
        elif isinstance(b, M.TConst) and self.admits(a, b.value):
            chosen = b
        elif self.narrows_open(a, b):
            chosen = b
        else:
            raise self.fail(own.loc, f"redeclares {own.wire!r} incompatibly with its allOf member ({inherited.loc})")
        default = own.default if own.default is not M.NO_DEFAULT else inherited.default
        return M.Field(own.wire, own.name, chosen, False, own.loc, None, own.doc or inherited.doc, default)

    def narrows_open(self, wide: M.TypeExpr, narrow: M.TypeExpr) -> bool:
        """An object (or map) redeclaring an inherited open map of any JSON values, or any
        value redeclaring an inherited any: every instance of the narrow type is one of the wide."""
        w = M.resolve(wide, self.definition)
        n = M.resolve(narrow, self.definition)
        if isinstance(w, M.TAny):
            return not w.nonnull or "null" not in M.json_types(narrow, self.definition)
        if isinstance(w, M.TMap) and (w.values is None or self.universal(w.values)):
            return isinstance(n, (M.ObjectDef, M.TMap))
        return False

    def admits(self, t: M.TypeExpr, value: Any) -> bool:
        if isinstance(t, M.TRef):
            d = self.definition(t.name)
            if isinstance(d, M.EnumDef):
                return value in d.values
            if isinstance(d, M.AliasDef):
                return self.admits(d.type, value)
            return False
        if isinstance(t, M.TString):
            return isinstance(value, str) and (t.pattern is None or _ecma_search(t.pattern, value))
        if isinstance(t, M.TEnum):
            return value in t.values
        return False

    # -- type expressions -------------------------------------------------------------------

    def expr(self, node: Any, at: str) -> M.TypeExpr:
        """The type of a subschema: typed where the typed model says exactly what it means,
        else checked by its compiled schema."""
        snap = self._snapshot()
        try:
            return self.typed_expr(node, at)
        except _TYPED_FAILS:
            self._rollback(snap)
            return self.items_hint(node, at, self.schema_expr(node, at))

    def items_hint(self, node: Any, at: str, checked: M.TSchema) -> M.TSchema:
        """An array the typed model cannot check exactly only for its `uniqueItems` keeps the
        type of its items, so that targets type it by them (a list of strings, not of any JSON);
        the compiled schema still checks it."""
        if not (isinstance(node, dict) and node.get("uniqueItems") is True and node.get("type") == "array"):
            return checked
        snap = self._snapshot()
        try:
            typed = self.typed_expr({k: v for k, v in node.items() if k != "uniqueItems"}, at)
        except _TYPED_FAILS:
            self._rollback(snap)
            return checked
        return M.TSchema(checked.loc, checked.node, checked.types, typed.items) if isinstance(typed, M.TArray) else checked

    def typed_expr(self, node: Any, at: str) -> M.TypeExpr:
        if node is True:
            return M.TAny(at)
        if not isinstance(node, dict):
            raise self.fail(at, "only the boolean schema true is supported here")
        keys = set(node) - self.annotation_keys - self.extension_keys(node)
        if "type" in keys and isinstance(node["type"], list):
            return self.type_list(node, keys, at)
        if "$ref" in keys:
            return self.ref_expr(node, keys, at)
        if "const" in keys:
            self.only(node, keys, {"const", "type"}, at)
            value = node["const"]
            if value is None and node.get("type", "null") == "null":
                return M.TNull(at, "type" if "type" in node else "const")
            if not isinstance(value, (str, int, bool)) or isinstance(value, float):
                raise self.fail(at + "/const", "only string, integer and boolean consts are supported")
            if type(value) is int and not -(2**63) <= value < 2**63:
                # msgspec's Literal holds 64-bit integers only
                raise self.fail(at + "/const", "const beyond 64-bit integers: checked by the general validator")
            if "type" in node and G._type_of(value) != node["type"] and not (node["type"] == "number" and G._type_of(value) == "integer"):
                raise self.fail(at + "/type", "the const is not of the type beside it")
            return M.TConst(at, value)
        if "enum" in keys:
            self.only(node, keys, {"enum", "type"}, at)
            values = node["enum"]
            if node.get("type", "string") != "string" or not all(isinstance(v, str) for v in values):
                raise self.fail(at + "/enum", "only enums of strings (with type: string) are supported")
            if len(set(values)) != len(values):
                raise self.fail(at + "/enum", "enum values repeat")
            return M.TEnum(at, tuple(values), typed="type" in node)
        for combinator in ("oneOf", "anyOf"):
            if combinator in keys:
                self.only(node, keys, {combinator, "type"}, at)
                subs = node[combinator]
                members = tuple(self.expr(sub, pointer_join(at, combinator, i)) for i, sub in enumerate(subs))
                union = self.union(members, at, combinator)
                if isinstance(union, M.TEnum) and "type" in node:
                    union = dataclasses.replace(union, typed=True)
                if "type" in node:
                    allowed = set(node["type"] if isinstance(node["type"], list) else [node["type"]])
                    allowed |= {"integer"} if "number" in allowed else set()
                    if not self.json_types(union) <= allowed:
                        raise self.fail(at + "/type", f"{combinator} members admit JSON types the `type` beside it does not")
                return union
        if "not" in keys:
            self.only(node, keys, {"not"}, at)
            if node["not"] != {"type": "null"}:
                raise self.fail(at + "/not", "only `not: {type: null}` is supported")
            return M.TAny(at, nonnull=True)
        if "type" not in keys:
            if keys:
                raise self.fail(pointer_join(at, sorted(keys)[0]), "keyword needs a `type` beside it")
            return M.TAny(at)
        kind = node["type"]
        if kind == "null":
            self.only(node, keys, {"type"}, at)
            return M.TNull(at)
        if kind == "string":
            self.only(node, keys, {"type", "pattern", "minLength", "maxLength"}, at)
            bounds = {}
            for k in ("minLength", "maxLength"):
                v = node.get(k)
                if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
                    raise self.fail(at + "/" + k, f"{k} must be a non-negative integer")
                bounds[k] = v
            pattern = node.get("pattern")
            if pattern is not None:
                try:
                    re.compile(ecma_to_python(pattern))
                except (re.error, TypeError, Untranslatable) as exc:
                    raise self.fail(at + "/pattern", f"pattern does not compile: {exc}") from None
            examples = tuple(e for e in node.get("examples", []) if isinstance(e, str)) if isinstance(node.get("examples"), list) else ()
            fmt = node.get("format") if isinstance(node.get("format"), str) else None
            if fmt is not None and self.formats:
                raise self.fail(at + "/format", "an asserted format is checked by the general validator")
            return M.TString(at, pattern, examples, bounds["minLength"], bounds["maxLength"], fmt)
        if kind in ("integer", "number"):
            names = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
            self.only(node, keys, {"type", *names}, at)
            lo, hi, xlo, xhi = (node.get(k) for k in names)
            for k, v in zip(names, (lo, hi, xlo, xhi)):
                if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
                    raise self.fail(at + "/" + k, f"{k} must be a number")
                if kind == "integer" and isinstance(v, float) and k in ("minimum", "maximum"):
                    raise self.fail(at + "/" + k, f"{k} of an integer must be an integer")
                if v is not None and not -(2**63) <= v < 2**63:
                    # msgspec bounds an int by a 64-bit integer only
                    raise self.fail(at + "/" + k, f"{k} beyond 64-bit integers: checked by the general validator")
            return (M.TInteger if kind == "integer" else M.TNumber)(at, lo, hi, xlo, xhi)
        if kind == "boolean":
            self.only(node, keys, {"type"}, at)
            return M.TBoolean(at)
        if kind == "array":
            self.only(node, keys, {"type", "items", "minItems"}, at)
            items = self.expr(node["items"], at + "/items") if "items" in node else M.TAny(at + "/items")
            mi = node.get("minItems")
            if mi is not None and (isinstance(mi, bool) or not isinstance(mi, int) or mi < 0):
                raise self.fail(at + "/minItems", "minItems must be a non-negative integer")
            return M.TArray(at, items, mi)
        if kind == "object":
            if node.get("properties") == {} and node.get("additionalProperties") is not False and keys <= _MAP_KEYS | {"properties"}:
                # `properties: {}` declares no member: the object is the map it is without it
                # (a class with no field would only make its members undeclared ones to keep)
                keys = keys - {"properties"}
            elif keys & {"properties", "required", "allOf"}:
                return M.TRef(self.inline_object(node, at), at)
            self.only(node, keys, _MAP_KEYS, at)
            add = node.get("additionalProperties", True)
            if add is False:
                raise self.fail(at + "/additionalProperties", "an object that admits no property at all is not supported")
            values = None if add is True else self.expr(add, at + "/additionalProperties")
            return M.TMap(at, values, self.property_names(node, at))
        raise self.fail(at + "/type", f"unsupported type {json.dumps(kind)}")

    # which keywords apply to which JSON type, for `type` arrays
    _TYPE_KEYS = {
        "null": set(),
        "boolean": set(),
        "string": {"pattern", "minLength", "maxLength"},
        "integer": {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"},
        "number": {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"},
        "array": {"items", "minItems"},
        "object": {"properties", "required", "allOf", "unevaluatedProperties", "additionalProperties", "propertyNames"},
    }

    def type_list(self, node: dict[str, Any], keys: set[str], at: str) -> M.TypeExpr:
        """`type: [a, b]`: a union told apart by JSON type, each member carrying the keywords
        that apply to its type (a keyword of another type says nothing about it)."""
        kinds = node["type"]
        if not kinds or not all(isinstance(k, str) for k in kinds) or len(set(kinds)) != len(kinds):
            raise self.fail(at + "/type", "type must be a type name or an array of distinct ones")
        if "integer" in kinds and "number" in kinds:
            kinds = [k for k in kinds if k != "integer"]
        if len(kinds) == 1:
            return self.typed_expr({**node, "type": kinds[0]}, at)
        applying = set().union(*(self._TYPE_KEYS.get(k, set()) for k in kinds))
        self.only(node, keys, {"type", *applying}, at)
        members = []
        for k in kinds:
            sub = {key: v for key, v in node.items() if key in self._TYPE_KEYS.get(k, set()) or key in self.annotation_keys or key == "type"}
            sub["type"] = k
            members.append(self.typed_expr(sub, at))
        return self.union(tuple(members), at, "type")

    def property_names(self, node: dict[str, Any], at: str) -> M.TString | None:
        """The `propertyNames` of a map as a string type; None when it admits every name (a
        member name is always a string, so `{type: string}` says nothing)."""
        if "propertyNames" not in node or node["propertyNames"] is True:
            return None
        sub = node["propertyNames"]
        sub_at = at + "/propertyNames"
        if not isinstance(sub, dict) or (set(sub) - self.annotation_keys - self.extension_keys(sub)) - {"type", "minLength", "maxLength", "pattern"}:
            raise self.fail(sub_at, "propertyNames is supported as a string schema (type, minLength, maxLength, pattern)")
        if sub.get("type", "string") != "string":
            raise self.fail(sub_at + "/type", "a property name is a string: propertyNames of another type admits no member")
        t = self.typed_expr({**sub, "type": "string"}, sub_at)
        assert isinstance(t, M.TString)
        return None if _trivially_full(t) else t

    def inline_object(self, node: dict[str, Any], at: str) -> str:
        """An object declared in place becomes a definition of its own, named after its owner
        and the property path (`Execution.error` -> `ExecutionError`)."""
        owner = self.building[-1] if self.building else "Inline"
        base = self.doc.def_pointer(owner)
        rest = at[len(base):].split("/") if at.startswith(base) else at.split("/")
        words = _path_words(rest)
        name = owner + "".join(w[:1].upper() + w[1:] for w in (snake(x).replace("_", " ").title().replace(" ", "") for x in words))
        # a name taken, or being built (an object nested in its namesake: MCP's inputSchema holds
        # `properties` whose values are objects) is made unique
        if name in self.doc.defs or name in self.defs or name in self.building:
            # a union's inline members: named after their tag (a required const string), or numbered
            required = set(node["required"]) if isinstance(node.get("required"), list) else set()
            tags: list[str] = [p["const"] for k, p in (node.get("properties") or {}).items() if k in required and isinstance(p, dict) and isinstance(p.get("const"), str)]
            stem = name + (_pascal(tags[0]) if tags else "")
            name, i = stem, 2
            while name in self.doc.defs or name in self.defs:
                name, i = f"{stem}{i}", i + 1
        self.doc.containers.setdefault(name, self.doc.containers.get(owner, self.doc.defs_pointer))
        self.doc.origin.setdefault(name, self.doc.origin.get(owner, self.doc.display))
        self.defs[name] = self.object_def(name, node, at, node.get("description"))
        self.synthesized.append(name)
        self.made_by[name] = self.building[-1] if self.building else None
        self.doc.inline[name] = node
        return name

    def only(self, node: dict[str, Any], keys: set[str], allowed: set[str] | frozenset[str], at: str) -> None:
        extra = keys - allowed
        if extra:
            first = sorted(extra)[0]
            raise self.fail(pointer_join(at, first), f"keyword {first!r} is not supported beside {sorted(keys & allowed)}")

    def ref_expr(self, node: dict[str, Any], keys: set[str], at: str) -> M.TypeExpr:
        name = self.doc.resolve(node["$ref"], at + "/$ref")
        others = keys - {"$ref"}
        if not others or self.doc.draft == V.DRAFT_07:  # draft-07: a $ref's siblings are ignored
            return M.TRef(name, at)
        target = self.definition(name)
        if others == {"not"} and node["not"] == {"type": "null"}:
            if isinstance(target, M.AliasDef) and isinstance(target.type, M.TAny):
                return M.TAny(at, nonnull=True)
        raise self.fail(at, "beside $ref only `not: {type: null}` on an any-JSON definition is supported")

    def universal(self, t: M.TypeExpr | M.Definition, seen: frozenset[str] = frozenset()) -> bool:
        """Whether t admits every JSON value. A reference still being built is assumed to (the
        greatest fixpoint), which is what makes recursive `JsonValue` definitions universal."""
        if isinstance(t, M.TRef):
            if t.name in self.building or t.name in seen:
                return True
            return self.universal(self.definition(t.name), seen | {t.name})
        if isinstance(t, M.AliasDef):
            return self.universal(t.type, seen)
        if isinstance(t, M.TAny):
            return not t.nonnull
        if isinstance(t, M.TUnion):
            if M.json_types(t, self.definition) != set(M.JSON_TYPES):
                return False
            members = list(t.members)
            for m in members:
                r = m
                while isinstance(r, M.TRef) and r.name not in self.building and r.name not in seen:
                    d = self.definition(r.name)
                    r = d.type if isinstance(d, M.AliasDef) else d  # type: ignore[assignment]
                if isinstance(r, M.TArray) and not self.universal(r.items, seen):
                    return False
                if isinstance(r, M.TMap) and r.values is not None and not self.universal(r.values, seen):
                    return False
                if isinstance(r, (M.ObjectDef, M.TString, M.TInteger, M.TNumber, M.TConst, M.TEnum)) and not _trivially_full(r):
                    return False
                if isinstance(r, (M.TSchema, M.UnionDef, M.EnumDef)) or isinstance(r, M.TMap) and r.keys is not None:
                    return False
                if isinstance(r, M.TUnion):  # a union inside (a oneOf of one member): its members are these
                    members.extend(r.members)
            return True
        return False

    def union(self, members: tuple[M.TypeExpr, ...], at: str, combinator: str = "oneOf") -> M.TypeExpr:
        """oneOf or anyOf: the two mean the same when no value can match two members, which is
        what a discriminator or disjoint JSON types guarantee; either is required here."""
        if combinator != "type" and members and all(isinstance(m, M.TConst) and isinstance(m.value, str) for m in members):
            values = [m.value for m in members]  # type: ignore[union-attr]
            if len(set(values)) == len(values):
                # distinct string consts: exactly one matches, as in an enum
                return M.TEnum(at, tuple(values), combinator, typed=False)  # type: ignore[arg-type]
        if all(isinstance(m, M.TRef) and isinstance(self.definition(m.name), M.ObjectDef) for m in members):
            objs = [self.definition(m.name) for m in members if isinstance(m, M.TRef)]
            # one member needs no discriminator (and msgspec would not require its tag)
            found = self.discriminator(objs) if len(objs) > 1 else None  # type: ignore[arg-type]
            if found:
                prop, tags = found
                # msgspec gives a class one tag: a member tagged otherwise by another union
                # cannot be tagged by this one too
                clash = any(t != (prop, tag) for tag, member in tags for t in self.defs[member].tags)  # type: ignore[union-attr]
                if not clash:
                    for tag, member in tags:
                        obj = self.defs[member]
                        assert isinstance(obj, M.ObjectDef)
                        if (prop, tag) not in obj.tags:
                            obj.tags.append((prop, tag))
                            self.tag_log.append((member, (prop, tag), self.building[-1] if self.building else None))
                    return M.TUnion(at, members, prop, tags, combinator)
        candidate = M.TUnion(at, members, keyword=combinator)
        kinds = [self.json_types(m) for m in members]
        disjoint = all(not (kinds[i] & kinds[j]) for i in range(len(kinds)) for j in range(i + 1, len(kinds)))
        if (combinator != "oneOf" or disjoint) and self.universal(candidate):
            return M.TAny(at)  # e.g. a recursive JsonValue: exactly "any JSON value"
        kinds = [self.json_types(m) for m in members]
        for i in range(len(kinds)):
            for j in range(i + 1, len(kinds)):
                if kinds[i] & kinds[j]:
                    raise self.fail(
                        at,
                        f"{combinator} has no discriminator strategy: no property is a required, distinct const "
                        f"in every member, and members {i} and {j} overlap on JSON type {sorted(kinds[i] & kinds[j])}",
                    )
        return candidate

    def discriminator(self, objs: list[M.ObjectDef]) -> tuple[str, tuple[tuple[str, str], ...]] | None:
        for f in objs[0].fields:
            tags = []
            for o in objs:
                g = o.field(f.wire)
                if g is None or not g.required or not isinstance(g.type, M.TConst) or not isinstance(g.type.value, str):
                    break
                tags.append((g.type.value, o.name))
            else:
                if len({t for t, _ in tags}) == len(tags):
                    return f.wire, tuple(tags)
        return None

    def json_types(self, t: M.TypeExpr) -> set[str]:
        return M.json_types(t, self.definition)


def _trivially_full(t: Any) -> bool:
    """A member that admits every value of its JSON type."""
    if isinstance(t, M.TString):
        return t.pattern is None and not t.min_length and t.max_length is None
    if isinstance(t, (M.TInteger, M.TNumber)):
        return t.minimum is t.maximum is t.exclusive_minimum is t.exclusive_maximum is None
    return False


_PATH_KEYWORDS = frozenset({"properties", "items", "additionalProperties", "oneOf", "anyOf", "allOf"})


def _path_words(tokens: list[str]) -> list[str]:
    """The property names along a schema path, for naming what is declared there: keywords and
    indexes are left out, but a property named like a keyword (`properties` in a schema of
    schemas) is a name."""
    words: list[str] = []
    name_next = False
    for token in tokens:
        if not token:
            continue
        if name_next:
            words.append(token)
            name_next = False
        elif token == "properties":
            name_next = True
        elif token not in _PATH_KEYWORDS and not token.isdigit():
            words.append(token)
    return words


def _same_shape(a: M.TypeExpr, b: M.TypeExpr) -> bool:
    def strip(t: M.TypeExpr) -> dict[str, Any]:
        return {k: v for k, v in vars(t).items() if k != "loc"}

    return type(a) is type(b) and strip(a) == strip(b)


def _ecma_search(pattern: str, value: str) -> bool:
    return re.search(ecma_to_python(pattern), value) is not None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _pascal(text: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in re.split(r"[^0-9A-Za-z]+", text) if w)


def _type_refs(t: M.TypeExpr, inside: bool) -> set[tuple[str, bool]]:
    """The definitions a type expression names, through arrays, map values and union members,
    each with whether it is reached inside an array item or a map value."""
    if isinstance(t, M.TRef):
        return {(t.name, inside)}
    if isinstance(t, M.TArray):
        return _type_refs(t.items, True)
    if isinstance(t, M.TMap) and t.values is not None:
        return _type_refs(t.values, True)
    if isinstance(t, M.TUnion):
        return set().union(*(_type_refs(m, inside) for m in t.members))
    return set()


def _general_closedness(node: dict[str, Any], at: str) -> tuple[bool, str | None]:
    """Whether an object the general validator checks admits no property beyond its
    `properties`, and the keyword that says so: `additionalProperties: false` without
    `patternProperties`, or `unevaluatedProperties: false` with nothing else that could
    evaluate a property (no pattern, no applicator, no other `additionalProperties`)."""
    if "patternProperties" in node:
        return False, None
    if node.get("additionalProperties") is False:
        return True, at + "/additionalProperties"
    others = {"allOf", "anyOf", "oneOf", "if", "then", "else", "not", "dependentSchemas", "dependencies", "$ref", "$dynamicRef", "additionalProperties"}
    if node.get("unevaluatedProperties") is False and not others & set(node):
        return True, at + "/unevaluatedProperties"
    return False, None
