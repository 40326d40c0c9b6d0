"""Which definitions a document of the root can contain: the definitions the root reaches
through properties, items, map values, union members, allOf compositions and the schemas the
general validator checks (their `$ref`s), transitively."""

from __future__ import annotations

from typing import Any

from ..ir import model as M


def reached(ir: M.IR, root: str) -> set[str]:
    """The definitions reachable from `root` in `ir`, the root itself included."""
    seen: set[str] = set()
    todo = [root]
    while todo:
        name = todo.pop()
        if name in seen or name not in ir.defs:
            continue
        seen.add(name)
        todo.extend(_definition(ir.defs[name]))
    return seen


def _definition(d: M.Definition) -> set[str]:
    if isinstance(d, M.ObjectDef):
        out = set(d.composes) | _node(d.checks)
        for f in d.fields:
            out |= _type(f.type)
        return out
    if isinstance(d, M.UnionDef):
        return _type(d.union)
    if isinstance(d, M.AliasDef):
        return _type(d.type)
    return set()


def _type(t: M.TypeExpr | None) -> set[str]:
    if isinstance(t, M.TRef):
        return {t.name}
    if isinstance(t, M.TArray):
        return _type(t.items)
    if isinstance(t, M.TMap):
        return _type(t.values)
    if isinstance(t, M.TUnion):
        return {name for _, name in t.tags}.union(*(_type(m) for m in t.members))
    if isinstance(t, M.TSchema):
        return _type(t.items) | _node(t.node)
    return set()


def _node(node: Any) -> set[str]:
    """The definitions a compiled general-validator node references, at any depth (its
    `const` and `enum` values are data, not schemas)."""
    if isinstance(node, list):
        return set().union(*(_node(n) for n in node))
    if not isinstance(node, dict):
        return set()
    out: set[str] = set()
    if node.get("kind") == "ref" and isinstance(node.get("name"), str):
        out.add(node["name"])
    if node.get("kind") == "schema" and isinstance(node.get("ref"), str):
        out.add(node["ref"])
    for key, value in node.items():
        if key not in ("const", "enum"):
            out |= _node(value)
    return out
