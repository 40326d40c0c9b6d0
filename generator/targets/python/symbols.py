"""The Python target's symbol provider: what a schema name becomes in Python (definitions,
attributes, enum constants), the words it must not shadow, and the annotation of every IR type
(msgspec types with their constraints). Decided here once; the templates only print them."""

from __future__ import annotations

import math

import json
import keyword
import re
from collections.abc import Mapping

from ...errors import SpecError
from ...ir import model as M
from ...ir.naming import constant, snake
from ...regex import ecma_to_python

_SSIZE_MAX = 2**63 - 1  # a 64-bit Py_ssize_t (a constant: the output is the same on every machine)

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


def py_literal(value: str | int | bool) -> str:
    return repr(value) if isinstance(value, (bool, int)) else json.dumps(value, ensure_ascii=False)


# The loose annotation of a value checked by the general validator: the plain JSON value, typed
# by the JSON types it may have (msgspec holds at most one of each kind in a union).
_LOOSE = (("object", "dict[str, Any]"), ("array", "list[Any]"), ("string", "str"), ("number", "float"), ("integer", "int"), ("boolean", "bool"), ("null", "None"))


def loose(types: tuple[str, ...] | list[str] | set[str]) -> str:
    kinds = set(types)
    if kinds >= {"object", "array", "string", "number", "boolean", "null"}:
        return "JSONValue"
    if not kinds:
        return "None"  # nothing is valid: the annotation is never reached
    if "number" in kinds:
        kinds.discard("integer")
        parts = [ann for kind, ann in _LOOSE if kind in kinds]
        # a number may be written as an integer: keep it one
        return " | ".join(["int", *parts]) if "int" not in parts else " | ".join(parts)
    return " | ".join(ann for kind, ann in _LOOSE if kind in kinds)


class Symbols:
    """Python names for one IR: a class name per definition, an attribute per wire name (never
    shadowing a class), and the annotation of any type."""

    def __init__(self, ir: M.IR) -> None:
        self.ir = ir
        self.py: dict[str, str] = {}
        seen: dict[str, str] = {}
        for name, d in ir.defs.items():
            py = identifier(name)
            if py in seen:
                raise SpecError(ir.source, d.loc, f"definitions {seen[py]!r} and {name!r} both become the Python name {py!r}")
            seen[py] = name
            self.py[name] = py
        self._classes = frozenset(self.py.values())

    def field_name(self, wire: str) -> str:
        """The attribute a wire name becomes; it never shadows a definition's Python name."""
        name = identifier(snake(wire))
        return name + "_" if name in self._classes else name

    def loose_annotation(self, types: set[str]) -> str:
        return loose(types)

    def enum_member(self, value: str) -> str:
        return constant(value)

    def ann(self, t: M.TypeExpr, names: Mapping[str, str] | None = None) -> str:
        """The annotation of a type; `names` renames the definitions it refers to (a
        definition not in it keeps its own name)."""
        if isinstance(t, M.TRef):
            return names.get(t.name, self.py[t.name]) if names else self.py[t.name]
        if isinstance(t, M.TString):
            meta = [f"pattern={ecma_to_python(t.pattern)!r}"] if t.pattern is not None else []
            meta += [f"min_length={t.min_length}"] if t.min_length else []
            # msgspec takes a length that fits a Py_ssize_t; no string is longer, so a larger
            # bound bounds nothing (maxLength 10^30 made a module that did not import)
            meta += [f"max_length={t.max_length}"] if t.max_length is not None and t.max_length < _SSIZE_MAX else []
            return f"Annotated[str, Meta({', '.join(meta)})]" if meta else "str"
        if isinstance(t, M.TNull):
            return "None"
        if isinstance(t, (M.TInteger, M.TNumber)):
            # a number written as an integer stays one (1 is not read back as 1.0)
            bases = ("int",) if isinstance(t, M.TInteger) else ("int", "float")
            metas = {base: ", ".join(f"{k}={v!r}" for k, v in _bounds(t, base == "int")) for base in bases}
            return " | ".join(f"Annotated[{base}, Meta({metas[base]})]" if metas[base] else base for base in bases)
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
            return f"dict[{keys}, {'JSONValue' if t.values is None else self.ann(t.values, names)}]"
        if isinstance(t, M.TArray):
            inner = f"list[{self.ann(t.items, names)}]"
            return f"Annotated[{inner}, Meta(min_length={t.min_items})]" if t.min_items else inner
        if isinstance(t, M.TUnion):
            # a member naming an alias of None is None itself: `X | None` with `X = None` is
            # `None | None` at import, which Python refuses
            return " | ".join(dict.fromkeys("None" if self._none(m) else self.ann(m, names) for m in t.members))
        if isinstance(t, M.TSchema):
            return f"list[{self.ann(t.items, names)}]" if t.items is not None else loose(t.types)
        raise AssertionError(t)

    def _none(self, t: M.TypeExpr, seen: frozenset[str] = frozenset()) -> bool:
        """Whether a type's annotation is None at run time (null, nothing, or an alias of them)."""
        if isinstance(t, M.TNull):
            return True
        if isinstance(t, M.TRef) and t.name not in seen:
            d = self.ir.defs.get(t.name)
            if isinstance(d, M.AliasDef):
                return self._none(d.type, seen | {t.name})
            if isinstance(d, M.UnionDef):
                return self._none(d.union, seen | {t.name})
            return False
        if isinstance(t, M.TUnion):
            return all(self._none(m, seen) for m in t.members)
        return isinstance(t, M.TSchema) and t.items is None and loose(t.types) == "None"

    def refs(self, t: M.TypeExpr) -> set[str]:
        if isinstance(t, M.TRef):
            return {t.name}
        if isinstance(t, M.TArray):
            return self.refs(t.items)
        if isinstance(t, M.TMap) and t.values is not None:
            return self.refs(t.values)
        if isinstance(t, M.TUnion):
            return set().union(*(self.refs(m) for m in t.members))
        if isinstance(t, M.TSchema) and t.items is not None:
            return self.refs(t.items)
        return set()


def _bounds(t: M.TInteger | M.TNumber, integral: bool) -> list[tuple[str, int | float]]:
    """msgspec's bounds of a number: one a side (its Meta refuses `ge` with `gt`, `le` with
    `lt`), the tighter where the schema gives both an inclusive and an exclusive one
    (`maximum: -1, exclusiveMaximum: 0.5` is `le=-1`); for `int` (`integral`) a bound written
    with a fraction is the integer bound it means (`exclusiveMinimum: 2.5` is `ge=3`: msgspec
    takes integers only there)."""
    lo, hi, xlo, xhi = t.minimum, t.maximum, t.exclusive_minimum, t.exclusive_maximum
    if integral and any(isinstance(v, float) for v in (lo, hi, xlo, xhi)):
        lows = [math.ceil(v) for v in (lo,) if v is not None] + [math.floor(v) + 1 for v in (xlo,) if v is not None]
        highs = [math.floor(v) for v in (hi,) if v is not None] + [math.ceil(v) - 1 for v in (xhi,) if v is not None]
        return [(k, v) for k, v in (("ge", max(lows, default=None)), ("le", min(highs, default=None))) if v is not None]
    if lo is not None and xlo is not None:
        lo, xlo = (None, xlo) if xlo >= lo else (lo, None)
    if hi is not None and xhi is not None:
        hi, xhi = (None, xhi) if xhi <= hi else (hi, None)
    return [(k, v) for k, v in (("ge", lo), ("le", hi), ("gt", xlo), ("lt", xhi)) if v is not None]
