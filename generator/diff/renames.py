"""Removed + added pairs that are one thing renamed, each with how sure the match is.

A definition pair is scored on four signals, each 0..1: its shape (the property names of an
object and the discriminator values it is tagged with; a union's discriminator values or
members; an enum's values; an alias's type), its description, where it is referenced from, and
its name. Pairs are taken greedily, best first, above a threshold; a pair below it stays a
removal and an addition. Properties and enum values inside a definition are matched the same
way on their own signals.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from ..ir import model as M
from .types import compare_types, describe

THRESHOLD = 0.5
FIELD_THRESHOLD = 0.6
VALUE_THRESHOLD = 0.75

T = TypeVar("T")


def text_similarity(a: str | None, b: str | None) -> float:
    if not a or not b:
        return 0.0
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def jaccard(a: Iterable[object], b: Iterable[object]) -> float:
    sa, sb = set(a), set(b)
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)


def referrers(ir: M.IR) -> dict[str, set[str]]:
    """Definition name -> the `Owner.property` (or `Owner`) places that reference it."""
    found: dict[str, set[str]] = {}

    def walk(t: M.TypeExpr | None, place: str) -> None:
        if isinstance(t, M.TRef):
            found.setdefault(t.name, set()).add(place)
        elif isinstance(t, M.TArray):
            walk(t.items, place)
        elif isinstance(t, M.TMap):
            walk(t.values, place)
        elif isinstance(t, M.TUnion):
            for m in t.members:
                walk(m, place)

    for name, d in ir.defs.items():
        if isinstance(d, M.ObjectDef):
            for f in d.fields:
                walk(f.type, f"{name}.{f.wire}")
            for frag in d.composes:
                found.setdefault(frag, set()).add(f"{name} (allOf)")
        elif isinstance(d, M.UnionDef):
            walk(d.union, name)
        elif isinstance(d, M.AliasDef):
            walk(d.type, name)
    return found


def shape_similarity(a: M.Definition, b: M.Definition, renames: dict[str, str]) -> float:
    if isinstance(a, M.ObjectDef) and isinstance(b, M.ObjectDef):
        fields = jaccard((f.wire for f in a.fields), (f.wire for f in b.fields))
        if a.tags or b.tags:
            return 0.5 * fields + 0.5 * jaccard(a.tags, b.tags)
        return fields
    if isinstance(a, M.UnionDef) and isinstance(b, M.UnionDef):
        if a.union.tags or b.union.tags:
            return jaccard((t for t, _ in a.union.tags), (t for t, _ in b.union.tags))
        return jaccard((renames.get(describe(m), describe(m)) for m in a.union.members), (describe(m) for m in b.union.members))
    if isinstance(a, M.EnumDef) and isinstance(b, M.EnumDef):
        return jaccard(a.values, b.values)
    if isinstance(a, M.AliasDef) and isinstance(b, M.AliasDef):
        return 1.0 if not compare_types(a.type, b.type, renames) else 0.0
    return 0.0


def match(
    removed: list[T], added: list[T], score: Callable[[T, T], float], threshold: float
) -> list[tuple[T, T, float]]:
    """Greedy best-first pairing of removed and added items scoring at least `threshold`."""
    scored = sorted(
        ((score(r, a), i, j) for i, r in enumerate(removed) for j, a in enumerate(added)),
        key=lambda s: (-s[0], s[1], s[2]),
    )
    used_r: set[int] = set()
    used_a: set[int] = set()
    pairs: list[tuple[T, T, float]] = []
    for s, i, j in scored:
        if s < threshold:
            break
        if i in used_r or j in used_a:
            continue
        used_r.add(i)
        used_a.add(j)
        pairs.append((removed[i], added[j], s))
    return pairs


def definition_renames(old: M.IR, new: M.IR) -> dict[str, tuple[str, float]]:
    """old name -> (new name, confidence), for definitions only one side has."""
    removed = [n for n in old.defs if n not in new.defs]
    added = [n for n in new.defs if n not in old.defs]
    if not removed or not added:
        return {}
    old_refs, new_refs = referrers(old), referrers(new)
    renames: dict[str, str] = {}
    pairs: list[tuple[str, str, float]] = []
    for _ in range(3):  # referrers and member names read through the renames found so far
        def score(r: str, a: str) -> float:
            x, y = old.defs[r], new.defs[a]
            if type(x) is not type(y) or _identities_differ(x, y):
                return 0.0
            shape = shape_similarity(x, y, renames)
            desc = text_similarity(x.doc, y.doc)
            mapped = {_map_place(p, renames) for p in old_refs.get(r, set())}
            usage = jaccard(mapped, new_refs.get(a, set())) if mapped or new_refs.get(a) else 0.0
            name = text_similarity(r, a)
            return 0.45 * shape + 0.25 * desc + 0.2 * usage + 0.1 * name

        pairs = match(removed, added, score, THRESHOLD)
        found = {r: a for r, a, _ in pairs}
        if found == renames:
            break
        renames = found
    return {r: (a, s) for r, a, s in pairs}


def _identities_differ(a: M.Definition, b: M.Definition) -> bool:
    """Whether two object definitions say on the wire that they are different things: a renamed
    definition keeps its wire identity, so a property both have whose const differs (a method,
    an error code, a type tag), or discriminator tags with nothing in common, mean two messages,
    one removed and one added, however alike their shapes."""
    if not (isinstance(a, M.ObjectDef) and isinstance(b, M.ObjectDef)):
        return False
    if a.tags and b.tags and not set(a.tags) & set(b.tags):
        return True
    mine, theirs = _consts(a), _consts(b)
    return any(theirs[path] != value for path, value in mine.items() if path in theirs)


def _consts(d: M.ObjectDef) -> dict[str, str]:
    """The consts a definition pins, by property path (`method`, `error.code`), as JSON text:
    its properties' and, inside a property checked by its compiled schema, that schema's."""
    out: dict[str, str] = {}

    def walk(node: Any, path: str) -> None:
        if not isinstance(node, dict):
            return
        if isinstance(node.get("const"), list) and len(node["const"]) == 1:
            out[path] = json.dumps(node["const"][0], sort_keys=True)
        for name, sub in (node.get("properties") or {}).items():
            walk(sub, f"{path}.{name}")
        for sub in node.get("all_of") or ():
            walk(sub, path)

    for f in d.fields:
        if isinstance(f.type, M.TConst):
            out[f.wire] = json.dumps(f.type.value, sort_keys=True)
        elif isinstance(f.type, M.TSchema):
            walk(f.type.node, f.wire)
    return out


def _map_place(place: str, renames: dict[str, str]) -> str:
    owner, dot, rest = place.partition(".")
    owner, space, tail = owner.partition(" ")
    return renames.get(owner, owner) + space + tail + dot + rest


def field_renames(removed: list[M.Field], added: list[M.Field], renames: dict[str, str]) -> list[tuple[M.Field, M.Field, float]]:
    def score(r: M.Field, a: M.Field) -> float:
        same_type = 1.0 if not compare_types(r.type, a.type, renames) else 0.0
        return 0.5 * same_type + 0.3 * text_similarity(r.doc, a.doc) + 0.2 * text_similarity(r.wire, a.wire)

    return match(removed, added, score, FIELD_THRESHOLD)


def value_renames(removed: list[str], added: list[str]) -> list[tuple[str, str, float]]:
    """Enum values renamed: the same word in another case or separator style scores 1."""

    def norm(v: str) -> str:
        return v.casefold().replace("_", "").replace("-", "")

    return match(removed, added, lambda r, a: text_similarity(norm(r), norm(a)), VALUE_THRESHOLD)
