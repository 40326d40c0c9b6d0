"""Compare two type expressions: each difference with its direction.

`wider`: the new type admits everything the old one did and more (old readers of new data may
refuse); `narrower`: the reverse (new readers of old data may refuse); `incompatible`: neither
contains the other. Definitions referenced by name compare equal when the name is the same or
the old one was renamed to the new one: what changed inside a definition is reported there.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ..ir import model as M

SAME, WIDER, NARROWER, OTHER = "same", "wider", "narrower", "incompatible"

# (kind, message, relation)
Diff = tuple[str, str, str]


def combine(a: str, b: str) -> str:
    if a == SAME:
        return b
    if b == SAME or a == b:
        return a
    return OTHER


def relation_of(diffs: list[Diff]) -> str:
    rel = SAME
    for _, _, r in diffs:
        rel = combine(rel, r)
    return rel


def _v(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def describe(t: M.TypeExpr | None) -> str:
    if t is None:
        return "nothing"
    if isinstance(t, M.TRef):
        return t.name
    if isinstance(t, M.TString):
        extra = [f"pattern {_v(t.pattern)}"] if t.pattern else []
        extra += [f"minLength {t.min_length}"] if t.min_length is not None else []
        extra += [f"maxLength {t.max_length}"] if t.max_length is not None else []
        return "string" + (f" ({', '.join(extra)})" if extra else "")
    if isinstance(t, (M.TInteger, M.TNumber)):
        kind = "integer" if isinstance(t, M.TInteger) else "number"
        lo, hi, xlo, xhi = _bounds(t)
        if lo is None and hi is None and xlo is None and xhi is None:
            return kind
        left = f"({xlo}" if xlo is not None else f"[{'' if lo is None else lo}"
        right = f"{xhi})" if xhi is not None else f"{'' if hi is None else hi}]"
        return f"{kind} {left}..{right}"
    if isinstance(t, M.TBoolean):
        return "boolean"
    if isinstance(t, M.TNull):
        return "null"
    if isinstance(t, M.TConst):
        return f"const {_v(t.value)}"
    if isinstance(t, M.TEnum):
        return "enum " + "|".join(t.values)
    if isinstance(t, M.TAny):
        return "any JSON but null" if t.nonnull else "any JSON"
    if isinstance(t, M.TMap):
        names = "" if t.keys is None else f" named by {describe(t.keys)}"
        return "map of " + ("any JSON" if t.values is None else describe(t.values)) + names
    if isinstance(t, M.TArray):
        return f"array of {describe(t.items)}" + (f" (minItems {t.min_items})" if t.min_items is not None else "")
    if isinstance(t, M.TUnion):
        if t.discriminator:
            return f"one of {len(t.members)} by {t.discriminator}"
        return " | ".join(describe(m) for m in t.members)
    if isinstance(t, M.TSchema):
        return "a value its schema checks (" + (" or ".join(t.types) or "nothing") + ")"
    raise AssertionError(t)


def split_null(t: M.TypeExpr) -> tuple[M.TypeExpr | None, bool]:
    """The type without null, and whether it admits null."""
    if isinstance(t, M.TNull):
        return None, True
    if isinstance(t, M.TAny) and not t.nonnull:
        return M.TAny(t.loc, nonnull=True), True
    if isinstance(t, M.TUnion) and not t.discriminator and any(isinstance(m, M.TNull) for m in t.members):
        rest = tuple(m for m in t.members if not isinstance(m, M.TNull))
        if not rest:
            return None, True
        return (rest[0] if len(rest) == 1 else M.TUnion(t.loc, rest)), True
    return t, False


class Renames(dict[str, str]):
    """Definition renames (old name -> new name), with both sides' definitions so that a
    reference to an alias can be compared with the type it stands for."""

    def __init__(self, renames: dict[str, str], old: dict[str, M.Definition], new: dict[str, M.Definition]) -> None:
        super().__init__(renames)
        self.old_defs, self.new_defs = old, new


def _unalias(t: M.TypeExpr, defs: dict[str, M.Definition] | None) -> M.TypeExpr:
    """What a reference stands for, where that is a type on its own: an alias's type, or an
    enum definition's values (a named enum and an inline one with the same values are the
    same type)."""
    seen: set[str] = set()
    while defs is not None and isinstance(t, M.TRef) and t.name not in seen:
        seen.add(t.name)
        d = defs.get(t.name)
        if isinstance(d, M.EnumDef):
            return M.TEnum(d.loc, d.values)
        if not isinstance(d, M.AliasDef):
            break
        t = d.type
    return t


def compare_types(old: M.TypeExpr, new: M.TypeExpr, renames: dict[str, str]) -> list[Diff]:
    out: list[Diff] = []
    same_ref = isinstance(old, M.TRef) and isinstance(new, M.TRef) and renames.get(old.name, old.name) == new.name
    if not same_ref and isinstance(renames, Renames):
        # a reference on one side only (or to another definition): compare what an alias means
        old, new = _unalias(old, renames.old_defs), _unalias(new, renames.new_defs)
    o, o_null = split_null(old)
    n, n_null = split_null(new)
    if o_null != n_null:
        out.append(("nullability", "null is now allowed" if n_null else "null is no longer allowed", WIDER if n_null else NARROWER))
    if o is None and n is None:
        return out
    if o is None or n is None:
        return out + [("type", f"{describe(old)} -> {describe(new)}", WIDER if o is None else NARROWER)]
    return out + _compare(o, n, renames, "")


def _bound(label: str, old: Any, new: Any, is_min: bool, at: str) -> list[Diff]:
    if old == new:
        return []
    if old is None:
        rel = NARROWER
    elif new is None:
        rel = WIDER
    elif is_min:
        rel = NARROWER if new > old else WIDER
    else:
        rel = NARROWER if new < old else WIDER
    return [("constraint", f"{at}{label} {_bound_text(old)} -> {_bound_text(new)}", rel)]


def _bound_text(value: Any) -> str:
    return "none" if value is None else _v(value)


def _compare(o: M.TypeExpr, n: M.TypeExpr, renames: dict[str, str], at: str) -> list[Diff]:
    if type(o) is not type(n):
        return [("type", f"{at}{describe(o)} -> {describe(n)}", _subsumes(o, n, renames))]
    out: list[Diff] = []
    if isinstance(o, M.TRef) and isinstance(n, M.TRef):
        if renames.get(o.name, o.name) != n.name:
            out.append(("type", f"{at}{o.name} -> {n.name}", _subsumes(o, n, renames)))
    elif isinstance(o, M.TString) and isinstance(n, M.TString):
        if o.pattern != n.pattern:
            rel = NARROWER if o.pattern is None else WIDER if n.pattern is None else OTHER
            out.append(("constraint", f"{at}pattern {_bound_text(o.pattern)} -> {_bound_text(n.pattern)}", rel))
        out += _bound("minLength", o.min_length, n.min_length, True, at)
        out += _bound("maxLength", o.max_length, n.max_length, False, at)
    elif isinstance(o, (M.TInteger, M.TNumber)) and isinstance(n, (M.TInteger, M.TNumber)):
        (olo, ohi, oxlo, oxhi), (nlo, nhi, nxlo, nxhi) = _bounds(o), _bounds(n)
        out += _bound("minimum", olo, nlo, True, at)
        out += _bound("maximum", ohi, nhi, False, at)
        out += _bound("exclusiveMinimum", oxlo, nxlo, True, at)
        out += _bound("exclusiveMaximum", oxhi, nxhi, False, at)
    elif isinstance(o, M.TConst) and isinstance(n, M.TConst):
        if o.value != n.value or type(o.value) is not type(n.value):
            out.append(("constraint", f"{at}const {_v(o.value)} -> {_v(n.value)}", OTHER))
    elif isinstance(o, M.TEnum) and isinstance(n, M.TEnum):
        added = [v for v in n.values if v not in o.values]
        removed = [v for v in o.values if v not in n.values]
        if added:
            out.append(("constraint", f"{at}enum admits {', '.join(map(_v, added))}", WIDER))
        if removed:
            out.append(("constraint", f"{at}enum no longer admits {', '.join(map(_v, removed))}", NARROWER))
    elif isinstance(o, M.TMap) and isinstance(n, M.TMap):
        if o.keys != n.keys:
            anything = M.TString(o.loc)
            out += _nested(o.keys or anything, n.keys or anything, renames, at + "property names: ")
        if _any_value(o.values) and _any_value(n.values):
            pass  # `additionalProperties: {}` and no additionalProperties say the same
        elif o.values is None and n.values is not None:
            out.append(("type", f"{at}map values: any JSON -> {describe(n.values)}", NARROWER))
        elif o.values is not None and n.values is None:
            out.append(("type", f"{at}map values: {describe(o.values)} -> any JSON", WIDER))
        elif o.values is not None and n.values is not None:
            out += _nested(o.values, n.values, renames, at + "map values: ")
    elif isinstance(o, M.TArray) and isinstance(n, M.TArray):
        out += _nested(o.items, n.items, renames, at + "items: ")
        out += _bound("minItems", o.min_items, n.min_items, True, at)
    elif isinstance(o, M.TUnion) and isinstance(n, M.TUnion):
        out += _union(o, n, renames, at)
    return out


def _nested(o: M.TypeExpr, n: M.TypeExpr, renames: dict[str, str], at: str) -> list[Diff]:
    return [(kind, at + msg, rel) for kind, msg, rel in compare_types(o, n, renames)]


def _union(o: M.TUnion, n: M.TUnion, renames: dict[str, str], at: str) -> list[Diff]:
    out: list[Diff] = []
    if o.discriminator and n.discriminator:
        if o.discriminator != n.discriminator:
            return [("discriminator", f"{at}discriminator {_v(o.discriminator)} -> {_v(n.discriminator)}", OTHER)]
        old_tags, new_tags = dict(o.tags), dict(n.tags)
        for tag, member in new_tags.items():
            if tag not in old_tags:
                out.append(("union-member-added", f"{at}member {_v(tag)} ({member}) added", WIDER))
            elif renames.get(old_tags[tag], old_tags[tag]) != member:
                out.append(("type", f"{at}member {_v(tag)}: {old_tags[tag]} -> {member}", OTHER))
        for tag, member in old_tags.items():
            if tag not in new_tags:
                out.append(("union-member-removed", f"{at}member {_v(tag)} ({member}) removed", NARROWER))
        return out
    if bool(o.discriminator) != bool(n.discriminator):
        return [("discriminator", f"{at}discriminator {_v(o.discriminator)} -> {_v(n.discriminator)}", OTHER)]
    # told apart by JSON type: pair members by their kind (and referenced definition)
    def key(m: M.TypeExpr) -> str:
        return f"ref {renames.get(m.name, m.name)}" if isinstance(m, M.TRef) else type(m).__name__

    def key_new(m: M.TypeExpr) -> str:
        return f"ref {m.name}" if isinstance(m, M.TRef) else type(m).__name__

    olds = {key(m): m for m in o.members}
    news = {key_new(m): m for m in n.members}
    for k, m in news.items():
        if k in olds:
            out += _compare(olds[k], m, renames, at)
        else:
            out.append(("type", f"{at}admits {describe(m)}", WIDER))
    for k, m in olds.items():
        if k not in news:
            out.append(("type", f"{at}no longer admits {describe(m)}", NARROWER))
    return out


def _any_value(t: M.TypeExpr | None) -> bool:
    return t is None or isinstance(t, M.TAny) and not t.nonnull


def _lookup(t: M.TypeExpr, defs: dict[str, M.Definition] | None) -> M.TypeExpr | M.Definition:
    """What a reference names on its side (itself when the side's definitions are not known)."""
    seen: set[str] = set()
    while isinstance(t, M.TRef) and defs is not None and t.name in defs and t.name not in seen:
        seen.add(t.name)
        d = defs[t.name]
        if not isinstance(d, M.AliasDef):
            return d
        t = d.type
    return t


def _any_object(t: M.TypeExpr, defs: dict[str, M.Definition] | None) -> bool:
    """Whether `t` admits every JSON object: a map of any value, or an open object definition
    that declares nothing and checks nothing."""
    r = _lookup(t, defs)
    if isinstance(r, M.TMap):
        return r.keys is None and _any_value(r.values)
    return isinstance(r, M.ObjectDef) and not r.closed and not r.fields and r.checks is None


def _objects_only(t: M.TypeExpr, defs: dict[str, M.Definition] | None) -> bool:
    """Whether every instance of `t` is a JSON object."""
    r = _lookup(t, defs)
    if isinstance(r, (M.TMap, M.ObjectDef)):
        return True
    return isinstance(r, M.TSchema) and r.types == ("object",)


def _object_within(narrow: M.ObjectDef, wide: M.ObjectDef, renames: dict[str, str], wide_is_new: bool) -> bool:
    """Whether every instance of one object definition is an instance of another, from their
    properties: what `wide` requires `narrow` requires, what both declare `narrow` types no
    wider, and a closed `wide` admits nothing `narrow` adds. (Definitions checked by their
    compiled schema are not compared: False.)"""
    if narrow.checks is not None or wide.checks is not None:
        return False
    if wide.closed and (not narrow.closed or any(wide.field(f.wire) is None for f in narrow.fields)):
        return False
    for wf in wide.fields:
        nf = narrow.field(wf.wire)
        if nf is None:
            if wf.required:
                return False
            continue
        if wf.required and not nf.required:
            return False
        if wide_is_new:
            rel = relation_of(compare_types(nf.type, wf.type, renames))
        else:
            rel = relation_of(compare_types(wf.type, nf.type, renames))
        if rel not in (SAME, WIDER if wide_is_new else NARROWER):
            return False
    return True


def _contains(wide: M.TypeExpr, narrow: M.TypeExpr, renames: dict[str, str], wide_defs: dict[str, M.Definition] | None = None,
              narrow_defs: dict[str, M.Definition] | None = None, wide_is_new: bool | None = None) -> bool:
    """Whether every instance of `narrow` is one of `wide` (a sufficient check). The sides'
    definitions, where known, let a reference be read as what it names."""
    if isinstance(wide, M.TAny):
        return True
    if _any_object(wide, wide_defs) and _objects_only(narrow, narrow_defs):
        return True
    wr, nr = _lookup(wide, wide_defs), _lookup(narrow, narrow_defs)
    if isinstance(wr, M.ObjectDef) and isinstance(nr, M.ObjectDef) and wide_is_new is not None:
        return _object_within(nr, wr, renames, wide_is_new)
    if isinstance(wide, M.TNumber) and isinstance(narrow, M.TInteger):
        return _within(wide, narrow)
    if isinstance(wide, M.TString) and isinstance(narrow, (M.TEnum, M.TConst)):
        return wide.pattern is None and wide.min_length is None and wide.max_length is None and (
            not isinstance(narrow, M.TConst) or isinstance(narrow.value, str)
        )
    if isinstance(wide, M.TEnum) and isinstance(narrow, M.TConst):
        return narrow.value in wide.values
    if isinstance(wide, M.TUnion) and not wide.discriminator:
        return any(
            (type(m) is type(narrow) and not _compare(m, narrow, renames, "")) or _contains(m, narrow, renames) for m in wide.members
        )
    if isinstance(wide, M.TMap) and wide.values is None and isinstance(narrow, M.TRef):
        return False  # an object definition is an object, but its closedness is not known here
    return False


def _within(wide: M.TNumber, narrow: M.TInteger) -> bool:
    wlo, whi, wxlo, wxhi = _bounds(wide)
    nlo, nhi, _, _ = _bounds(narrow)
    lo_ok = (wlo is None or (nlo is not None and nlo >= wlo)) and (wxlo is None or (nlo is not None and nlo > wxlo))
    hi_ok = (whi is None or (nhi is not None and nhi <= whi)) and (wxhi is None or (nhi is not None and nhi < wxhi))
    return lo_ok and hi_ok


def _bounds(t: M.TInteger | M.TNumber) -> tuple[Any, Any, Any, Any]:
    """(minimum, maximum, exclusiveMinimum, exclusiveMaximum) as they constrain the values: for
    an integer, an exclusive bound is the inclusive one next to it (`exclusiveMinimum: 0` and
    `minimum: 1` are the same type), so the two spellings compare equal."""
    if isinstance(t, M.TNumber):
        return t.minimum, t.maximum, t.exclusive_minimum, t.exclusive_maximum
    lo, hi = t.minimum, t.maximum
    if t.exclusive_minimum is not None:
        above = math.floor(t.exclusive_minimum) + 1
        lo = above if lo is None else max(lo, above)
    if t.exclusive_maximum is not None:
        below = math.ceil(t.exclusive_maximum) - 1
        hi = below if hi is None else min(hi, below)
    return lo, hi, None, None


def _subsumes(o: M.TypeExpr, n: M.TypeExpr, renames: dict[str, str]) -> str:
    old_defs, new_defs = (renames.old_defs, renames.new_defs) if isinstance(renames, Renames) else (None, None)
    if _contains(n, o, renames, new_defs, old_defs, True if new_defs is not None else None):
        return WIDER
    if _contains(o, n, renames, old_defs, new_defs, False if old_defs is not None else None):
        return NARROWER
    return OTHER
