"""Random documents from the schema table (``schema_table.DEFINITIONS``): valid instances of
every definition, and their mutants. ``strategies`` is the public face of this module; this is
the engine behind it.

Everything random is drawn from a ``Source``: ``RandomSource`` wraps a ``random.Random`` (a
seed gives the same documents on every machine, with no dependency), ``HypothesisSource`` wraps
a hypothesis ``draw`` (every choice is a hypothesis draw, so failures shrink). The engine knows
nothing else about either.

A valid document respects every constraint of the table: required members always, optional ones
sometimes (absent, never null, unless null is what the schema allows), the discriminator of a
tagged union, the JSON types of an untagged one, undeclared members in open objects (never in
closed ones), string patterns (generated from the pattern itself, the package's translated one),
lengths, integer and number bounds (exclusive ones too), ``minItems``, ``propertyNames``. What
the codecs refuse beyond the schema (``limits``) is never generated: no lone surrogates, nesting
far below ``MAX_DEPTH``, and (``portable``, the default) no integer beyond 2^53 - 1 in any-JSON
values, which the protobuf codec cannot carry.

Standard library only; hypothesis is imported by ``HypothesisSource`` alone.
"""

from __future__ import annotations

import importlib
import math
import re
import sys
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, Protocol, TypeVar

from .schema_table import DEFINITIONS
from .validation import json_type

__all__ = [
    "GenerationError",
    "Source",
    "RandomSource",
    "HypothesisSource",
    "Documents",
    "mutate",
    "MAX_SAFE_INTEGER",
]

T = TypeVar("T")
MAX_SAFE_INTEGER = 2**53 - 1
_INF = 1 << 30


class GenerationError(ValueError):
    """The schema asks for something the generator cannot produce (a pattern no string of the
    allowed length matches, bounds that admit nothing): names where."""


class Source(Protocol):
    """Where every random choice comes from."""

    def integer(self, lo: int, hi: int) -> int:
        """An integer in [lo, hi]; shrinks towards lo."""
        ...

    def boolean(self, p: float = 0.5) -> bool:
        """True with probability p; shrinks towards False."""
        ...

    def number(self, lo: float | None, hi: float | None, exclude_lo: bool, exclude_hi: bool) -> float:
        """A finite float within the bounds."""
        ...

    def text(self, min_size: int, max_size: int) -> str:
        """Unicode text (no surrogates) of a length in [min_size, max_size]."""
        ...

    def regex(self, pattern: str) -> str:
        """A string the (Python) pattern matches with ``re.search``."""
        ...


def choice(source: Source, items: Sequence[T]) -> T:
    """One of the items; shrinks towards the first."""
    if not items:
        raise GenerationError("nothing to choose from")
    return items[source.integer(0, len(items) - 1)]


# -- a random.Random source ---------------------------------------------------------------------------

_ASCII = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_PUNCT = " _-.:/~!?#$%&'()*+,;<=>@[]^`{|}\"\\"
_CONTROL = "\x00\x01\x07\x08\t\n\x0b\x0c\r\x1b\x7f\x85\u2028\u2029"
_OTHER = "éüßñçøåÆœ€£¥°±µ¶§©®™←→↑↓∀∂∈∞≠≤≥中文日本語한국어עבריתالعربيةрусскийελληνικά"
_ASTRAL = "😀😍🎉🚀👍🏽𝄞𝔸𐍈🂡"


class RandomSource:
    """Choices from a ``random.Random``: reproducible from a seed, no dependency."""

    def __init__(self, rng: Any) -> None:
        self.rng = rng

    def integer(self, lo: int, hi: int) -> int:
        return int(self.rng.randint(lo, hi))

    def boolean(self, p: float = 0.5) -> bool:
        return bool(self.rng.random() < p)

    def number(self, lo: float | None, hi: float | None, exclude_lo: bool, exclude_hi: bool) -> float:
        rng = self.rng
        low = -1e6 if lo is None else float(lo)
        high = 1e6 if hi is None else float(hi)
        if lo is None and hi is not None:
            low = min(low, high - 1e6)
        if hi is None and lo is not None:
            high = max(high, low + 1e6)
        for _ in range(50):
            pick = rng.random()
            if pick < 0.3:
                value = float(rng.randint(-100, 100))
            elif pick < 0.4:
                value = low if rng.random() < 0.5 else high
            elif pick < 0.5:
                value = rng.choice((0.0, -0.0, 0.5, 1e-300, 5e-324, 1.7976931348623157e308, -2.5e-8))
            else:
                value = rng.uniform(low, high)
            if _within(value, lo, hi, exclude_lo, exclude_hi):
                return value
        middle = (low + high) / 2
        if _within(middle, lo, hi, exclude_lo, exclude_hi):
            return middle
        raise GenerationError(f"no number in ({lo}, {hi})")

    def text(self, min_size: int, max_size: int) -> str:
        rng = self.rng
        size = rng.randint(min_size, max_size) if rng.random() < 0.8 else min_size
        out = []
        for _ in range(size):
            pick = rng.random()
            if pick < 0.6:
                out.append(rng.choice(_ASCII))
            elif pick < 0.75:
                out.append(rng.choice(_PUNCT))
            elif pick < 0.88:
                out.append(rng.choice(_OTHER))
            elif pick < 0.94:
                out.append(rng.choice(_ASTRAL))
            elif pick < 0.97:
                out.append(rng.choice(_CONTROL))
            else:
                out.append(_any_char(rng))
        return "".join(out)

    def regex(self, pattern: str) -> str:
        compiled = _compiled(pattern)
        parsed = _parse(pattern)
        for _ in range(200):
            groups: dict[int, str] = {}
            text = "".join(_walk(parsed, self.rng, groups))
            if compiled.search(text):
                return text
        raise GenerationError(f"no string matching {pattern!r} was found")


def _any_char(rng: Any) -> str:
    """Any code point but a surrogate."""
    while True:
        c = rng.randint(0, 0x10FFFF)
        if not 0xD800 <= c <= 0xDFFF:
            return chr(c)


def _within(value: float, lo: float | None, hi: float | None, exclude_lo: bool, exclude_hi: bool) -> bool:
    if math.isnan(value) or math.isinf(value):
        return False
    if lo is not None and (value < lo or (exclude_lo and value == lo)):
        return False
    if hi is not None and (value > hi or (exclude_hi and value == hi)):
        return False
    return True


# -- the regular-expression walker (RandomSource.regex) ------------------------------------------------

_C: Any = importlib.import_module("re._constants") if sys.version_info >= (3, 11) else importlib.import_module("sre_constants")
_P: Any = importlib.import_module("re._parser") if sys.version_info >= (3, 11) else importlib.import_module("sre_parse")
_PATTERNS: dict[str, re.Pattern[str]] = {}
_PARSED: dict[str, Any] = {}
_CATEGORY_RX = {
    "CATEGORY_DIGIT": r"\d",
    "CATEGORY_NOT_DIGIT": r"\D",
    "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\S",
    "CATEGORY_WORD": r"\w",
    "CATEGORY_NOT_WORD": r"\W",
}
_CATEGORY_POOL = {
    "CATEGORY_DIGIT": "0123456789",
    "CATEGORY_SPACE": " \t\n\r\f\v",
    "CATEGORY_WORD": _ASCII + "_",
}


def _compiled(pattern: str) -> re.Pattern[str]:
    found = _PATTERNS.get(pattern)
    if found is None:
        found = _PATTERNS[pattern] = re.compile(pattern)
    return found


def _parse(pattern: str) -> Any:
    found = _PARSED.get(pattern)
    if found is None:
        found = _PARSED[pattern] = list(_P.parse(pattern))
    return found


def _walk(items: Any, rng: Any, groups: dict[int, str]) -> list[str]:
    out: list[str] = []
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(av))
        elif name == "NOT_LITERAL":
            out.append(_char_not(rng, lambda c: ord(c) == av))
        elif name == "ANY":
            out.append(_char_not(rng, lambda c: c == "\n"))
        elif name == "IN":
            out.append(_in_set(av, rng))
        elif name == "BRANCH":
            out += _walk(rng.choice(av[1]), rng, groups)
        elif name == "SUBPATTERN":
            text = "".join(_walk(av[-1], rng, groups))
            if av[0] is not None:
                groups[av[0]] = text
            out.append(text)
        elif name == "ATOMIC_GROUP":
            out += _walk(av, rng, groups)
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, body = av
            top = low + 4 if high is _C.MAXREPEAT else min(high, low + 4)
            for _ in range(rng.randint(low, top) if rng.random() < 0.85 else low):
                out += _walk(body, rng, groups)
        elif name == "GROUPREF":
            out.append(groups.get(av, ""))
        elif name == "CATEGORY":
            out.append(_category(str(av), rng))
        # AT (anchors), ASSERT and ASSERT_NOT (lookarounds) match no text: re.search checks them
    return out


def _char_not(rng: Any, refused: Callable[[str], bool]) -> str:
    for _ in range(100):
        pick = rng.random()
        c = rng.choice(_ASCII + _PUNCT) if pick < 0.7 else rng.choice(_OTHER) if pick < 0.9 else _any_char(rng)
        if not refused(c):
            return str(c)
    raise GenerationError("no character outside a set was found")


def _category(name: str, rng: Any) -> str:
    pool = _CATEGORY_POOL.get(name)
    if pool is not None:
        return str(rng.choice(pool))
    rx = re.compile(_CATEGORY_RX.get(name, r"[\s\S]"))
    return _char_not(rng, lambda c: rx.fullmatch(c) is None)


def _in_set(members: Any, rng: Any) -> str:
    if members and str(members[0][0]) == "NEGATE":
        rest = members[1:]
        return _char_not(rng, lambda c: _member(c, rest))
    usable = [m for m in members if str(m[0]) in ("LITERAL", "RANGE", "CATEGORY")]
    if not usable:
        return _char_not(rng, lambda c: not _member(c, members))
    op, av = rng.choice(usable)
    kind = str(op)
    if kind == "LITERAL":
        return chr(av)
    if kind == "RANGE":
        lo, hi = av
        for _ in range(20):
            c = rng.randint(lo, hi)
            if not 0xD800 <= c <= 0xDFFF:
                return chr(c)
        return chr(lo)
    return _category(str(av), rng)


def _member(c: str, members: Any) -> bool:
    for op, av in members:
        kind = str(op)
        if kind == "LITERAL" and ord(c) == av:
            return True
        if kind == "RANGE" and av[0] <= ord(c) <= av[1]:
            return True
        if kind == "CATEGORY" and re.fullmatch(_CATEGORY_RX.get(str(av), r"[\s\S]"), c):
            return True
    return False


# -- a hypothesis source ------------------------------------------------------------------------------


class HypothesisSource:
    """Choices drawn with a hypothesis ``draw`` (inside ``@st.composite`` or ``data().draw``),
    so that a failing example shrinks. Imports hypothesis."""

    def __init__(self, draw: Callable[[Any], Any]) -> None:
        from hypothesis import strategies as st

        self.draw = draw
        self.st = st
        self._chars = st.characters(codec="utf-8")

    def integer(self, lo: int, hi: int) -> int:
        return int(self.draw(self.st.integers(lo, hi)))

    def boolean(self, p: float = 0.5) -> bool:
        cut = 100 - round(100 * p)
        return bool(self.draw(self.st.integers(0, 99)) >= cut)

    def number(self, lo: float | None, hi: float | None, exclude_lo: bool, exclude_hi: bool) -> float:
        strategy = self.st.floats(
            min_value=lo,
            max_value=hi,
            exclude_min=exclude_lo and lo is not None,
            exclude_max=exclude_hi and hi is not None,
            allow_nan=False,
            allow_infinity=False,
        )
        return float(self.draw(strategy))

    def text(self, min_size: int, max_size: int) -> str:
        return str(self.draw(self.st.text(self._chars, min_size=min_size, max_size=max_size)))

    def regex(self, pattern: str) -> str:
        return str(self.draw(self.st.from_regex(pattern, alphabet=self._chars)))


# -- documents --------------------------------------------------------------------------------------


def _heights(table: dict[str, dict[str, Any]]) -> dict[str, int]:
    """Per definition, the least nesting (objects and arrays) an instance must have: what
    recursion needs to stop. A fixed point, from "infinitely deep" down."""
    found = {name: _INF for name in table}

    def height(node: dict[str, Any]) -> int:
        kind = node["kind"]
        if kind == "ref":
            return found[node["name"]]
        if kind == "object":
            inner = [height(f["type"]) for f in node["fields"].values() if f["required"]]
            return min(_INF, 1 + max(inner, default=0))
        if kind == "tagged":
            return min((found[d] for d in node["tags"].values()), default=_INF)
        if kind == "union":
            return min((height(m[1]) for m in node["members"]), default=_INF)
        if kind == "array":
            return min(_INF, 1 + (height(node["items"]) if node.get("min_items") else 0))
        if kind == "map":
            return 1
        if kind == "schema" and "ref" in node:
            return found[node["ref"]]
        return 0

    changed = True
    while changed:
        changed = False
        for name, node in table.items():
            h = height(node)
            if h < found[name]:
                found[name] = h
                changed = True
    return found


_HEIGHTS: dict[int, tuple[Any, dict[str, int]]] = {}


def heights(table: dict[str, dict[str, Any]]) -> dict[str, int]:
    cached = _HEIGHTS.get(id(table))
    if cached is None or cached[0] is not table:
        cached = _HEIGHTS[id(table)] = (table, _heights(table))
    return cached[1]


class Documents:
    """Valid documents of the schema table's definitions, every choice from ``source``.

    ``max_depth``: how deep optional structure may nest (objects and arrays; a definition that
    must nest deeper gets what it must); ``max_items``: the most items an array or map has
    beyond what it must; ``max_text``: the longest free text; ``optional``: how often an
    optional member is present; ``extras``: how often an open object carries undeclared
    members; ``portable``: integers in any-JSON values stay within 2^53 - 1."""

    def __init__(
        self,
        source: Source,
        *,
        table: dict[str, dict[str, Any]] | None = None,
        max_depth: int = 4,
        max_items: int = 3,
        max_text: int = 12,
        optional: float = 0.5,
        extras: float = 0.2,
        portable: bool = True,
        tries: int = 40,
    ) -> None:
        self.source = source
        self.table = DEFINITIONS if table is None else table
        self.heights = heights(self.table)
        self.max_depth = max_depth
        self.max_items = max_items
        self.max_text = max_text
        self.optional = optional
        self.extras = extras
        self.portable = portable
        self.tries = tries
        # the nodes whose parts are being generated for one value (allOf, oneOf, a $ref...):
        # a part that only requires a member (`oneOf: [{required: [a]}, {required: [b]}]`)
        # draws its value from the properties around it; consumed by the part, never by a
        # member's or an item's value
        self._around: tuple[dict[str, Any], ...] = ()
        self._excluded: set[str] = set()  # members of the value being made that a oneOf leaves out

    # -- entry points ------------------------------------------------------------------------

    def document(self, definition: str) -> Any:
        """A valid document of one definition."""
        if definition not in self.table:
            raise ValueError(f"unknown definition {definition!r}")
        need = self.heights[definition]
        if need >= _INF:
            raise GenerationError(f"{definition}: no finite instance exists (its required members form a cycle)")
        node = {"kind": "ref", "name": definition}
        budget = max(self.max_depth, need)
        if not _general(self.table, definition):
            return self.value(node, budget)
        # the general vocabulary (allOf, not, if/then/else, oneOf's "exactly one"...) is
        # generated on a best-effort basis and kept when the package's validator agrees
        accepts = _acceptor(definition)
        for _ in range(self.tries):
            try:
                candidate = self.value(node, budget)
            except GenerationError:
                continue
            if accepts(candidate):
                return candidate
        raise GenerationError(f"{definition}: no document its schema accepts was found in {self.tries} tries")

    def field(self, definition: str, wire: str, budget: int | None = None) -> Any:
        """A valid value for one member of an object definition."""
        node = self.table[definition]
        spec = node["fields"][wire]
        return self.value(spec["type"], self.max_depth - 1 if budget is None else budget)

    def node_height(self, node: dict[str, Any]) -> int:
        kind = node["kind"]
        if kind == "ref":
            return self.heights[node["name"]]
        if kind == "object":
            inner = [self.node_height(f["type"]) for f in node["fields"].values() if f["required"]]
            return 1 + max(inner, default=0)
        if kind == "tagged":
            return min(self.heights[d] for d in node["tags"].values())
        if kind == "union":
            return min(self.node_height(m[1]) for m in node["members"])
        if kind == "array":
            return 1 + (self.node_height(node["items"]) if node.get("min_items") else 0)
        if kind == "map":
            return 1
        if kind == "schema" and "ref" in node:
            return self.heights[node["ref"]]
        return 0

    # -- one node ------------------------------------------------------------------------------

    def value(self, node: dict[str, Any], budget: int) -> Any:
        kind = node["kind"]
        s = self.source
        if kind == "ref":
            return self.value(self.table[node["name"]], budget)
        if kind == "object":
            return self._object(node, budget)
        if kind == "tagged":
            names = sorted(set(node["tags"].values()), key=list(node["tags"].values()).index)
            return self.value(self.table[choice(s, _fitting(names, [self.heights[n] for n in names], budget))], budget)
        if kind == "union":
            members = [m[1] for m in node["members"]]
            return self.value(choice(s, _fitting(members, [self.node_height(m) for m in members], budget)), budget)
        if kind == "string":
            return self.string(node)
        if kind == "integer":
            return self.integer(node)
        if kind == "number":
            return self.number(node)
        if kind == "boolean":
            return s.boolean()
        if kind == "null":
            return None
        if kind == "const":
            return node["value"]
        if kind == "enum":
            return choice(s, node["values"])
        if kind == "any":
            return self.any(budget, nonnull=bool(node.get("nonnull")))
        if kind == "array":
            items = node["items"]
            least = node.get("min_items") or 0
            more = self.max_items if self.node_height(items) + 1 <= budget and budget > 0 else 0
            n = s.integer(least, least + more)
            return [self.value(items, budget - 1) for _ in range(n)]
        if kind == "map":
            return self._map(node, budget)
        if kind == "schema":
            return self._schema(node, budget)
        raise ValueError(f"unknown node kind {kind!r}")

    def _object(self, node: dict[str, Any], budget: int) -> dict[str, Any]:
        s = self.source
        out: dict[str, Any] = {}
        for wire, spec in node["fields"].items():
            t = spec["type"]
            if spec["required"]:
                out[wire] = self.value(t, budget - 1)
            elif self.node_height(t) <= budget - 1 and s.boolean(self.optional):
                out[wire] = self.value(t, budget - 1)
        if node.get("closed") is None and s.boolean(self.extras):
            for _ in range(s.integer(1, 2)):
                name = self.member_name(set(node["fields"]) | set(out))
                out[name] = self.any(budget - 1)
        return out

    def member_name(self, taken: set[str]) -> str:
        """A member name not among ``taken``."""
        for _ in range(20):
            name = self.source.text(1, 8)
            if name not in taken:
                return name
        n = 0
        while f"x-extra-{n}" in taken:
            n += 1
        return f"x-extra-{n}"

    def _map(self, node: dict[str, Any], budget: int) -> dict[str, Any]:
        s = self.source
        values = node.get("values")
        keys = node.get("keys")
        fits = budget > 0 and (values is None or self.node_height(values) <= budget - 1)
        n = s.integer(0, self.max_items) if fits else 0
        out: dict[str, Any] = {}
        for _ in range(n):
            key = self.string(keys) if keys is not None else s.text(0, 8)
            out[key] = self.any(budget - 1) if values is None else self.value(values, budget - 1)
        return out

    def string(self, node: dict[str, Any]) -> str:
        s = self.source
        lo = node.get("min_length") or 0
        hi = node.get("max_length")
        pattern = node.get("pattern")
        if pattern is None:
            top = lo + self.max_text if hi is None else min(hi, lo + self.max_text)
            return s.text(lo, max(lo, top))
        for _ in range(50):
            text = s.regex(pattern)
            if len(text) >= lo and (hi is None or len(text) <= hi):
                return text
        raise GenerationError(f"{node.get('loc')}: no string matching {pattern!r} has a length in [{lo}, {hi}]")

    def integer(self, node: dict[str, Any]) -> int:
        lo, hi = _int_bounds(node)
        if lo > hi:
            raise GenerationError(f"{node.get('loc')}: no integer in [{lo}, {hi}]")
        return self.some_integer(lo, hi)

    def some_integer(self, lo: int, hi: int) -> int:
        """Small values mostly, the bounds sometimes, anything in range now and then."""
        s = self.source
        pick = s.integer(0, 9)
        if pick < 6:
            small_lo, small_hi = max(lo, -100), min(hi, 100)
            if small_lo <= small_hi:
                return s.integer(small_lo, small_hi) if pick else max(lo, min(hi, 0))
        if pick < 8:
            return lo if pick == 6 else hi
        return s.integer(lo, hi)

    def number(self, node: dict[str, Any]) -> float:
        lo = node.get("minimum")
        hi = node.get("maximum")
        xlo = node.get("exclusive_minimum")
        xhi = node.get("exclusive_maximum")
        exclude_lo = exclude_hi = False
        if xlo is not None and (lo is None or xlo >= lo):
            lo, exclude_lo = xlo, True
        if xhi is not None and (hi is None or xhi <= hi):
            hi, exclude_hi = xhi, True
        return self.source.number(lo, hi, exclude_lo, exclude_hi)

    # -- the general vocabulary (the ``schema`` kind) -------------------------------------------

    def _schema(self, node: dict[str, Any], budget: int) -> Any:
        """A value for a node of the general vocabulary, built from its keywords (best effort:
        ``document`` keeps it only when the validator agrees)."""
        around, self._around = self._around, ()
        if around:
            return self._schema_value(node, budget, around)
        # a value of its own (not a part of another's): what its oneOf branches left out is
        # left out of it, not of its members
        saved, self._excluded = self._excluded, set()
        try:
            return self._schema_value(node, budget, around)
        finally:
            self._excluded = saved

    def _schema_value(self, node: dict[str, Any], budget: int, around: tuple[dict[str, Any], ...]) -> Any:
        s = self.source
        if node.get("bool") is False:
            raise GenerationError(f"{node.get('loc')}: the schema is false")
        if budget < -6:
            raise GenerationError(f"{node.get('loc')}: nested too deep")
        if "const" in node:
            return _copy(node["const"][0])
        if "enum" in node:
            return _copy(choice(s, node["enum"]))
        inner = (node, *around)
        base: Any = _NOTHING
        if "ref" in node:
            base = self._part(self.table[node["ref"]], budget, inner)
        branches = node.get("one_of") or node.get("any_of")
        if branches:
            branch = choice(s, branches)
            if "one_of" in node:  # exactly one: what only the others require stays out
                others = {n for b in branches if b is not branch for n in b.get("required", ())}
                self._excluded |= others - set(branch.get("required", ())) - set(node.get("required", ()))
            picked = self._part(branch, budget, inner)
            base = picked if base is _NOTHING else _merge(base, picked, s)
        for sub in node.get("all_of", ()):
            part = self._part(sub, budget, inner)
            base = part if base is _NOTHING else _merge(base, part, s)
        if "if" in node:
            try:
                if s.boolean(0.5):
                    part = self._part(node["if"], budget, inner)
                    base = part if base is _NOTHING else _merge(base, part, s)
                    if "then" in node:
                        base = _merge(base, self._part(node["then"], budget, inner), s)
                elif "else" in node:  # best effort: the value may still satisfy `if`
                    part = self._part(node["else"], budget, inner)
                    base = part if base is _NOTHING else _merge(base, part, s)
            except GenerationError:
                pass
        kinds = self._schema_types(node)
        if base is not _NOTHING and _type_of(base) in kinds + (["integer"] if "number" in kinds else []):
            return self._refine(node, base, budget, around, fresh=False)
        if base is not _NOTHING and not node.get("types") and len(kinds) == 7:
            return base
        kind = choice(s, kinds)
        return self._refine(node, self._fresh(node, kind, budget), budget, around, fresh=True)

    def _part(self, node: dict[str, Any], budget: int, around: tuple[dict[str, Any], ...]) -> Any:
        """A value for a part of ``around[0]`` (the same value, not a member or an item)."""
        if node.get("kind") == "schema":
            self._around = around
        try:
            return self.value(node, budget)
        finally:
            self._around = ()

    def _schema_types(self, node: dict[str, Any]) -> list[str]:
        types = node.get("types")
        if types:
            return list(types)
        keys = set(node)
        if keys & {"properties", "required", "pattern_properties", "additional_properties", "min_properties",
                   "max_properties", "dependent_required", "property_names", "unevaluated_properties"}:
            return ["object"]
        if keys & {"items", "prefix_items", "contains", "min_items", "max_items", "unique_items"}:
            return ["array"]
        if keys & {"min_length", "max_length", "pattern", "format"}:
            return ["string"]
        if keys & {"minimum", "maximum", "exclusive_minimum", "exclusive_maximum", "multiple_of"}:
            return ["number"]
        return ["null", "boolean", "integer", "number", "string", "array", "object"]

    def _fresh(self, node: dict[str, Any], kind: str, budget: int) -> Any:
        s = self.source
        if kind == "null":
            return None
        if kind == "boolean":
            return s.boolean()
        if kind in ("integer", "number"):
            return self._schema_number(node, kind)
        if kind == "string":
            return self._schema_string(node)
        if kind == "array":
            return []
        return {}

    def _refine(self, node: dict[str, Any], value: Any, budget: int, around: tuple[dict[str, Any], ...], fresh: bool) -> Any:
        """Add to a value what the node's own keywords ask of its type. A value its parts made
        (``fresh`` false: a $ref, allOf...) gets no member or item the node does not describe:
        the parts may refuse what the node alone would allow."""
        if type(value) is dict:
            return self._schema_object(node, value, budget, around, fresh)
        if type(value) is list:
            return self._schema_array(node, value, budget, fresh)
        return value

    def _schema_number(self, node: dict[str, Any], kind: str) -> int | float:
        s = self.source
        lo = node.get("minimum")
        hi = node.get("maximum")
        xlo = node.get("exclusive_minimum")
        xhi = node.get("exclusive_maximum")
        step = node.get("multiple_of")
        if kind == "integer" or step is not None:
            unit = Fraction(str(step)) if step is not None else Fraction(1)
            if kind == "integer" and unit.denominator != 1:
                unit = unit * unit.denominator  # a multiple of both 1 and the step
            low = -MAX_SAFE_INTEGER if lo is None else Fraction(str(lo))
            high = MAX_SAFE_INTEGER if hi is None else Fraction(str(hi))
            if xlo is not None:
                low = max(low, Fraction(str(xlo)) + Fraction(1, 10**9))
            if xhi is not None:
                high = min(high, Fraction(str(xhi)) - Fraction(1, 10**9))
            first, last = math.ceil(low / unit), math.floor(high / unit)
            if first > last:
                raise GenerationError(f"{node.get('loc')}: no multiple of {unit} in range")
            k = self.some_integer(max(first, -10**6), min(last, 10**6)) if first <= 10**6 and last >= -10**6 else s.integer(first, last)
            value = unit * k
            return int(value) if value.denominator == 1 else float(value)
        return self.number({k: v for k, v in node.items() if k in ("minimum", "maximum", "exclusive_minimum", "exclusive_maximum")})

    def _schema_string(self, node: dict[str, Any]) -> str:
        fmt = node.get("format")
        samples = _FORMATS.get(fmt or "", ())
        if samples and self.source.boolean(0.9):
            return str(choice(self.source, samples))
        return self.string({k: v for k, v in node.items() if k in ("pattern", "min_length", "max_length", "loc")})

    def _schema_array(self, node: dict[str, Any], value: list[Any], budget: int, fresh: bool) -> list[Any]:
        s = self.source
        out = list(value)
        prefix = node.get("prefix_items") or []
        items = node.get("items")
        least = node.get("min_items") or 0
        most = node.get("max_items")
        for i, sub in enumerate(prefix):
            if i >= len(out) and (i < least or s.boolean(0.6)):
                out.append(self.value(sub, budget - 1))
        closed = items is not None and items.get("bool") is False
        if not closed and len(out) >= len(prefix) and (fresh or items is not None):
            extra = s.integer(0, self.max_items) if budget > 0 else 0
            for _ in range(max(extra, least - len(out))):
                out.append(self.value(items, budget - 1) if items is not None else self.any(budget - 1))
        contains = node.get("contains")
        if contains is not None:
            for _ in range(max(1, node.get("min_contains", 1) or 0)):
                out.append(self.value(contains, budget - 1))
        if node.get("unique_items"):
            seen: set[str] = set()
            unique = []
            for item in out:
                key = _canonical_key(item)
                if key not in seen:
                    seen.add(key)
                    unique.append(item)
            out = unique
        if most is not None:
            out = out[:most]
        return out

    def _schema_object(self, node: dict[str, Any], value: dict[str, Any], budget: int, around: tuple[dict[str, Any], ...], fresh: bool) -> dict[str, Any]:
        s = self.source
        out = dict(value)
        props = node.get("properties") or {}
        for name in node.get("required") or ():
            if name not in out:
                out[name] = self._member(node, name, budget - 1, around)
        for name, sub in props.items():
            if name not in out and name not in self._excluded and budget > 0 and s.boolean(self.optional):
                out[name] = self.value(sub, budget - 1)
        for entry in node.get("pattern_properties") or ():
            if budget > 0 and s.boolean(0.3):
                try:
                    key = s.regex(entry["pattern"])
                except GenerationError:
                    continue
                if key not in out:
                    out[key] = self.value(entry["schema"], budget - 1)
        shut = any(_shut(n) for n in (node, *around))  # a part's extra member: one its whole refuses
        if fresh and not shut and budget > 0 and s.boolean(self.extras):
            name = self._key(node, set(out))
            if name is not None:
                out[name] = self._member(node, name, budget - 1, around)
        for key, needs in (node.get("dependent_required") or {}).items():
            if key in out:
                for name in needs:
                    if name not in out:
                        out[name] = self._member(node, name, budget - 1, around)
        least = node.get("min_properties") or 0
        for _ in range(8):
            if len(out) >= least:
                break
            name = next((p for p in props if p not in out), None) or self._key(node, set(out))
            if name is None:
                break
            out[name] = self._member(node, name, budget - 1, around)
        most = node.get("max_properties")
        if most is not None and len(out) > most:
            keep = set(node.get("required") or ())
            for name in [k for k in out if k not in keep][: len(out) - most]:
                del out[name]
        return out

    def _key(self, node: dict[str, Any], taken: set[str]) -> str | None:
        names = node.get("property_names")
        if names is None:
            return self.member_name(taken | set(node.get("properties") or {}))
        for _ in range(10):
            try:
                key = self.value(names, 0)
            except GenerationError:
                return None
            if isinstance(key, str) and key not in taken:
                return key
        return None

    def _member(self, node: dict[str, Any], name: str, budget: int, around: tuple[dict[str, Any], ...] = ()) -> Any:
        """A value for property ``name`` as the node's applicators see it; where the node says
        nothing of it, as the nodes it is a part of do (``around``, innermost first)."""
        for n in (node, *around):
            props = n.get("properties") or {}
            if name in props:
                return self.value(props[name], budget)
            for entry in n.get("pattern_properties") or ():
                if re.search(entry["pattern"], name):
                    return self.value(entry["schema"], budget)
        for n in (node, *around):
            additional = n.get("additional_properties")
            if additional is not None and additional.get("bool") is not False:
                return self.value(additional, budget)
        return self.any(budget)

    def any(self, budget: int, nonnull: bool = False) -> Any:
        """Any JSON value (``nonnull``: but null), nesting at most ``budget`` levels."""
        s = self.source
        kinds = ["string", "integer", "number", "boolean", "null"]
        if nonnull:
            kinds.remove("null")
        if budget > 0:
            kinds += ["array", "object"]
        kind = choice(s, kinds)
        if kind == "string":
            return s.text(0, self.max_text)
        if kind == "integer":
            limit = MAX_SAFE_INTEGER if self.portable else 10**30
            return self.some_integer(-limit, limit)
        if kind == "number":
            return s.number(None, None, False, False)
        if kind == "boolean":
            return s.boolean()
        if kind == "null":
            return None
        n = s.integer(0, self.max_items)
        if kind == "array":
            return [self.any(budget - 1) for _ in range(n)]
        out: dict[str, Any] = {}
        for _ in range(n):
            out[s.text(0, 6)] = self.any(budget - 1)
        return out


def _general(table: dict[str, dict[str, Any]], definition: str) -> bool:
    """Whether a definition reaches a node of the general vocabulary (the ``schema`` kind)."""
    found = _GENERAL.get((id(table), definition))
    if found is not None:
        return found
    seen: set[str] = set()
    todo = [definition]
    hit = False
    while todo and not hit:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        stack: list[Any] = [table[name]]
        while stack and not hit:
            node = stack.pop()
            if isinstance(node, dict):
                if node.get("kind") == "schema":
                    hit = True
                elif node.get("kind") == "ref":
                    todo.append(node["name"])
                elif node.get("kind") == "tagged":
                    todo.extend(node["tags"].values())
                stack.extend(v for k, v in node.items() if k != "tags")
            elif isinstance(node, list):
                stack.extend(node)
    _GENERAL[(id(table), definition)] = hit
    return hit


_GENERAL: dict[tuple[int, str], bool] = {}


def _acceptor(definition: str) -> Callable[[Any], bool]:
    """Whether the package's strict decoder accepts a document of ``definition``."""
    import json as _json

    codec = importlib.import_module(f"{__package__}.codec_json")
    decoder = codec.decoder(definition)

    def accepts(document: Any) -> bool:
        try:
            return bool(decoder.accepts(_json.dumps(document, ensure_ascii=False, allow_nan=False).encode("utf-8")))
        except ValueError:
            return False

    return accepts


def _fitting(members: list[T], heights: list[int], budget: int) -> list[T]:
    """The union members worth choosing with ``budget`` levels left: any that nests a little
    deeper than the budget (a member's required structure is not optional), and when the budget
    is spent only the shallowest, so that recursion ends."""
    if budget > 0:
        found = [m for m, h in zip(members, heights) if h <= budget + 2]
        if found:
            return found
    least = min(heights)
    return [m for m, h in zip(members, heights) if h == least]


_NOTHING: Any = object()

# values in the formats the validator can assert (only present when the binding asserts them)
_FORMATS: dict[str, tuple[str, ...]] = {
    "date-time": ("2026-01-01T00:00:00Z", "1999-12-31T23:59:59.5+01:00"),
    "date": ("2026-01-01", "2024-02-29"),
    "time": ("00:00:00Z", "12:34:56.789+02:00"),
    "email": ("a@example.com",),
    "uri": ("https://example.com/x", "urn:isbn:0451450523"),
    "uri-reference": ("/x", "https://example.com/"),
    "uuid": ("00000000-0000-4000-8000-000000000000",),
    "hostname": ("example.com",),
    "ipv4": ("192.0.2.1",),
    "ipv6": ("2001:db8::1",),
    "regex": ("^a+$",),
}


def _type_of(value: Any) -> str:
    """A generated value's JSON type, a float never an integer (1.0 is not one here)."""
    return "number" if type(value) is float else json_type(value)


def _merge(a: Any, b: Any, source: Source) -> Any:
    """Two partial values of one document (allOf parts), objects merged member by member. Where
    both give a member another value, the later part's wins three times in four: a later part
    is most often the refinement of an earlier one (`allOf: [{$ref: Error}, {code: {const: ...}}]`),
    so it wins on a False draw (hypothesis's first, simplest choice); the other order is still
    tried now and then, since `document` keeps only what the validator accepts."""
    if type(a) is dict and type(b) is dict:
        out = dict(a)
        for key, value in b.items():
            out[key] = _merge(out[key], value, source) if key in out else value
        return out
    return a if source.boolean(0.25) else b


def _shut(node: dict[str, Any]) -> bool:
    """Whether a node admits no member beyond those it names."""
    additional = node.get("additional_properties")
    unevaluated = node.get("unevaluated_properties")
    return (additional is not None and additional.get("bool") is False) or (unevaluated is not None and unevaluated.get("bool") is False)


def _canonical_key(value: Any) -> str:
    import json as _json

    return _json.dumps(value, sort_keys=True)


def _int_bounds(node: dict[str, Any]) -> tuple[int, int]:
    """The integers a node admits, within the safe range."""
    lo, hi = -MAX_SAFE_INTEGER, MAX_SAFE_INTEGER
    if node.get("minimum") is not None:
        lo = max(lo, math.ceil(node["minimum"]))
    if node.get("maximum") is not None:
        hi = min(hi, math.floor(node["maximum"]))
    if node.get("exclusive_minimum") is not None:
        lo = max(lo, math.floor(node["exclusive_minimum"]) + 1)
    if node.get("exclusive_maximum") is not None:
        hi = min(hi, math.ceil(node["exclusive_maximum"]) - 1)
    return lo, hi


# -- mutants ------------------------------------------------------------------------------------------

# values that are wrong almost anywhere; no float is integral (JSON Schema counts 1.0 as an
# integer and this package does not, a divergence the tests name on its own)
_WRONG: tuple[Any, ...] = (None, True, False, 0, -1, 7, 1.5, -0.25, "", "x", "specbind-other", [], {}, [1], {"k": 1},
                           MAX_SAFE_INTEGER + 1, -(MAX_SAFE_INTEGER + 1))


def _places(doc: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _places(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _places(v, path + (i,))
    return out


def _copy(doc: Any) -> Any:
    if isinstance(doc, dict):
        return {k: _copy(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_copy(v) for v in doc]
    return doc


def mutate(doc: Any, source: Source, count: int = 1) -> Any:
    """A copy of ``doc`` with ``count`` random structural changes, each at a random place: a
    member removed or added, a value replaced by one of another type, a string lengthened,
    emptied or replaced, a number moved, an array shortened or grown, a discriminator changed.
    Most mutants are invalid; some stay valid (the change was allowed): the reference validator
    says which."""
    out = _copy(doc)
    for _ in range(count):
        out = _mutate_once(out, source)
    return out


def _mutate_once(doc: Any, source: Source) -> Any:
    path = choice(source, _places(doc))
    parent: Any = None
    key: Any = None
    node = doc
    for step in path:
        parent, key = node, step
        node = node[step]
    value = _mutated(node, source)
    if value is _DELETE:
        if parent is None:
            return None
        del parent[key]
        return doc
    if parent is None:
        return value
    parent[key] = value
    return doc


_DELETE: Any = object()


def _mutated(node: Any, source: Source) -> Any:
    pick = source.integer(0, 9)
    if pick == 0:
        return _DELETE
    if pick <= 3:
        return _copy(choice(source, _WRONG))
    if isinstance(node, dict):
        if node and source.boolean():
            victim = choice(source, sorted(node))
            return {k: v for k, v in node.items() if k != victim}
        name = choice(source, ("specbindUnknown", "type", "id", "", "x"))
        return {**node, name: _copy(choice(source, _WRONG))}
    if isinstance(node, list):
        if node and source.boolean():
            return node[:-1] if source.boolean() else []
        return node + [_copy(node[0]) if node and source.boolean() else _copy(choice(source, _WRONG))]
    if isinstance(node, str):
        how = source.integer(0, 3)
        if how == 0:
            return ""
        if how == 1:
            return node + source.text(1, 3)
        if how == 2:
            return source.text(1, 3) + node
        return node[: len(node) // 2]
    if isinstance(node, bool):
        return not node
    if isinstance(node, int):
        return choice(source, (node + 1, node - 1, -node, node * 1000, MAX_SAFE_INTEGER + 1, 0))
    if isinstance(node, float):
        moved = [v for v in (node + 0.5, -node - 0.5, node * 1000 + 0.5) if math.isfinite(v) and not v.is_integer()]
        return choice(source, moved or [0.5])
    return _copy(choice(source, _WRONG))
