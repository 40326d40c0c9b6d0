"""The lifecycle automaton: a small generic interpreter of the rule tables (``automaton_table``).

Feed decoded events one at a time; each ``feed`` returns the findings for that event, and
``finish`` reports what the end of the stream leaves open (a truncated run). It never raises on
bad input: it reports. Memory is bounded by what the current run holds open.

    automaton = Automaton()
    for event in events:
        for finding in automaton.feed(event):
            print(finding)
    automaton.finish()
    automaton.outcome  # "completed", or "failed" once a MUST-level rule was violated
"""

from __future__ import annotations

import datetime as _dt
import functools
import hashlib
from collections import Counter
from dataclasses import dataclass
from itertools import islice
from typing import Any, Iterable

import msgspec
from msgspec import UNSET

from . import codec_json, limits, models
from .automaton_table import TABLES
from .dialogue import MISSING, Dialogue
from .errors import DecodeError
from .jsonscan import member_scalar
from .limits import int_digits_limit, too_deep
from .shown import py_str, quote

__all__ = ["Finding", "Automaton", "check_answers", "check_listing", "RULES", "MAX_IDS", "MAX_SHOWN", "MAX_FINDINGS"]

MAX_IDS = 20
"""The most ids a finding lists (``ids``, and ``{ids}`` in its message): a finding about a set
that may grow with the stream (the chunk streams open, the items a run leaves open, the ids
that repeat) lists the first MAX_IDS and says how many more there are."""

MAX_SHOWN = 200
"""The most characters of one id or value a finding quotes; a longer one is cut to
MAX_SHOWN - 3 characters and ``...``. (A value held from an earlier event, quoted by every later
finding about it, would otherwise cost its size per finding.)"""

MAX_FINDINGS = 10_000
"""How many findings ``Automaton.findings`` keeps by default (``max_findings``): a stream can draw
a finding per line, and the list would grow with it. Every finding is still returned by ``feed``
when it is made, counts towards ``outcome``, and is counted in ``omitted`` when not kept."""

RULES: dict[str, dict[str, str]] = TABLES["rules"]
_FATAL = frozenset(TABLES["fatal_levels"])
_DISC: str = TABLES["discriminator"]
_DISC_WIRE: str = TABLES["discriminator_wire"]
_MACHINE: dict[str, Any] = TABLES["machine"]
_STEPS: dict[str, list[dict[str, Any]]] = TABLES["entity_steps"]
_CHECKS: dict[str, list[dict[str, Any]]] = TABLES["checks"]
_CHUNKS: dict[str, Any] | None = TABLES["chunks"]
if _CHUNKS is not None:  # the agreement fields as (field, default, wire), the interpreter's form
    _CHUNKS = {
        **_CHUNKS,
        "kinds": {
            name: {**kind, "agree": [(f["field"], f["default"], f["wire"]) for f in kind["agree"]]}
            for name, kind in _CHUNKS["kinds"].items()
        },
    }
_CLASSES: dict[str, Any] = {t: models.DEFINITIONS[c] for t, c in TABLES["event_classes"].items()}
# retired event type -> how it is translated into its replacement, before any rule sees it
_RETIRED: dict[str, dict[str, Any]] = TABLES["retired"]
_UNKNOWN: Any = object()
_UNBOUND: Any = object()
"""A row not yet bound to the instance (Automaton._bind)."""
# two parties: messages are typed by the exchange stage (dialogue.py), not by one events union
_PARTIES: list[str] | None = TABLES.get("parties")
_EVENTS: Any = codec_json.decoder(TABLES["events_definition"]) if TABLES["events_definition"] else None
# the same, making no error or warning (counting them): for findings that will not be kept
_EVENTS_COUNTED: Any = codec_json.decoder(TABLES["events_definition"], max_errors=0) if TABLES["events_definition"] else None
_REMEMBER, _REMEMBERED = 4096, 256  # how many refused documents counting remembers, how long each
_UNIT = "message" if _PARTIES else "event"  # what a finding's index counts
# the first characters of a JSON text that is not an object (a number, a string, an array, a
# literal): never an event where the events definition takes objects only; as bytes and as
# str, since a document's data[:1] is either
_NOT_AN_OBJECT = frozenset([bytes([c]) for c in b'-0123456789"[tfn'] + list('-0123456789"[tfn'))


@functools.cache
def _objects_only() -> bool:
    """Whether the events definition refuses what is not an object (``validation.objects_only``),
    read from the validator's table when findings are first only counted."""
    judge = getattr(codec_json._checker(), "objects_only", None)
    return bool(_EVENTS is not None and judge is not None and judge(TABLES["events_definition"]))


def _refuse(data: bytes) -> Any:
    """The fast decoder of a definition only the general validator checks: none."""
    raise msgspec.DecodeError("checked by the general validator")


def _get(obj: Any, path: list[str]) -> Any:
    for attr in path:
        obj = getattr(obj, attr, UNSET)
        if obj is UNSET:
            return UNSET
    return obj


def _collect(obj: Any, path: list[str]) -> list[Any]:
    items = [obj]
    for attr in path:
        nxt = []
        for item in items:
            value = getattr(item, attr, UNSET)
            if value is UNSET:
                continue
            nxt.extend(value if isinstance(value, list) else [value])
        items = nxt
    return items


def _eval(e: dict[str, Any], obj: Any, ctx: Any = None) -> Any:
    """Three-valued: a comparison or sum naming an absent field is unknown, not false. Each
    expression is compiled into one Python function on first use (the tables live as long as
    the module, so that happens once per expression). ``ctx``: the automaton, whose dialogue
    reads scoped paths (a fact, the request a message answers)."""
    return _compiled(e)(obj, ctx)


def _scoped(ctx: Any, node: dict[str, Any]) -> Any:
    """A scoped path's value for the compiled expressions: ``_UNKNOWN`` when there is nothing to
    read (a fact never declared, no request answered), ``UNSET`` when the member is absent."""
    dialogue = getattr(ctx, "_dialogue", None)
    value = MISSING if dialogue is None else dialogue.scoped(node)
    return _UNKNOWN if value is MISSING else value


_COMPILED: dict[int, tuple[Any, Any]] = {}


def _compiled(e: dict[str, Any]) -> Any:
    found = _COMPILED.get(id(e))
    if found is None or found[0] is not e:
        found = _COMPILED[id(e)] = (e, _compile(e))
    return found[1]


def _compile(e: dict[str, Any]) -> Any:
    """The expression as the source of one function of `obj`, every operand evaluated (as the
    tree would be), unknown propagated."""
    consts: list[Any] = []
    count = [0]

    def fresh() -> str:
        count[0] += 1
        return f"v{count[0]}"

    def const(value: Any) -> str:
        consts.append(value)
        return f"_C[{len(consts) - 1}]"

    def pair(x: dict[str, Any], y: dict[str, Any]) -> tuple[str, str, str]:
        a, b = fresh(), fresh()
        return a, b, f"(({a} := {emit(x)}), ({b} := {emit(y)}))[0]"

    def emit(e: dict[str, Any]) -> str:
        op = e["op"]
        if op == "lit":
            return const(e["value"])
        if op in ("field", "present", "absent", "length") and "scope" in e:
            v = fresh()
            get = f"_scoped(ctx, {const(e)})"
            if op == "field":
                return f"(_U if ({v} := {get}) is UNSET or {v} is _U else {v})"
            if op == "present":
                return f"({v} if ({v} := {get}) is _U else {v} is not UNSET)"
            if op == "absent":
                return f"({v} if ({v} := {get}) is _U else {v} is UNSET)"
            return f"(_U if ({v} := {get}) is UNSET or {v} is _U else len({v}))"
        if op in ("field", "present", "absent", "length"):
            path = e["path"]
            get = f"getattr(obj, {path[0]!r}, UNSET)" if len(path) == 1 else f"_get(obj, {const(path)})"
            v = fresh()
            if op == "field":
                return f"(_U if ({v} := {get}) is UNSET else {v})"
            if op == "present":
                return f"({get} is not UNSET)"
            if op == "absent":
                return f"({get} is UNSET)"
            return f"(_U if ({v} := {get}) is UNSET else len({v}))"
        if op == "unique":
            return f"_unique(obj, {const(e['path'])})"
        args = e.get("args", [])
        if op == "not":
            v = fresh()
            return f"({v} if ({v} := {emit(args[0])}) is _U else not {v})"
        if op == "and":
            a, b, both = pair(args[0], args[1])
            return f"(False if {both} is False or {b} is False else (_U if {a} is _U or {b} is _U else True))"
        if op == "or":
            a, b, both = pair(args[0], args[1])
            return f"(True if {both} is True or {b} is True else (_U if {a} is _U or {b} is _U else False))"
        a, b, both = pair(args[0], args[1])
        if op == "add":
            return f"(_U if {both} is _U or {b} is _U else {a} + {b})"
        if op == "sub":
            return f"(_U if {both} is _U or {b} is _U else {a} - {b})"
        cmp = e.get("cmp")
        if op == "cmp" and cmp == "in":
            return f"(_U if {both} is _U or {b} is _U else _among({a}, {b}))"
        if op != "cmp" or cmp not in ("==", "!=", "<", "<=", ">", ">="):
            raise ValueError(f"unknown expression {op!r} {cmp!r}")
        return f"(_U if {both} is _U or {b} is _U else bool({a} {cmp} {b}))"

    body = emit(e)
    scope: dict[str, Any] = {"UNSET": UNSET, "_U": _UNKNOWN, "_get": _get, "_unique": _unique, "_scoped": _scoped, "_C": consts, "_among": _among}
    exec(f"def expression(obj, ctx=None):\n    return {body}\n", scope)
    return scope["expression"]


def _members(items: Any) -> tuple[list[Any], list[str] | None]:
    """What `each` walks: an array's items, or a map's values in the order of their names (the
    names, which a finding's {index} shows)."""
    members = items._specbind_json if hasattr(items, "_specbind_json") else items  # a two-party View
    if not isinstance(members, dict):
        return list(items), None
    from .dialogue import wrap

    names = sorted(members)
    return [wrap(members[n]) if members is not items else members[n] for n in names], names


def _among(value: Any, items: Any) -> bool:
    """`in`: the value equals one of an array's items (`==`'s equality); nothing is among what is
    no array."""
    return items.__class__ is list and any(value == item for item in items)


def _unique(obj: Any, path: list[str]) -> bool:
    values = _collect(obj, path)
    return len(set(values)) == len(values)


def _requirement(req: dict[str, Any]) -> tuple[Any, ...]:
    """A requirement of the tables as the interpreter runs it: (kind, ...) by kind: closed
    (entities, rule), same (field, rule, wire), agree and agree-if-present (((field, default,
    wire), ...), rule), exists and missing (entity, field, rule)."""
    kind = req["kind"]
    if kind == "closed":
        return (kind, tuple(req["entities"]), req["rule"])
    if kind == "same":
        return (kind, req["field"], req["rule"], req["wire"])
    if kind in ("agree", "agree-if-present"):
        return (kind, tuple((f["field"], f["default"], f["wire"]) for f in req["fields"]), req["rule"])
    if kind == "in-state":
        return (kind, req["field"], req["rule"], req["wire"])
    return (kind, req["entity"], req["field"], req["rule"])


def _prepare_require(req: dict[str, Any]) -> tuple[Any, ...]:
    prepared = _requirement(req)
    # a tagged-continuation check on one field, the commonest requirement, gets a short form
    if prepared[0] == "agree-if-present" and len(prepared[1]) == 1:
        return ("agree-one", prepared[1][0][0], prepared)
    return prepared


def _prepare_step(step: dict[str, Any]) -> tuple[Any, ...]:
    # a target a field names is held as ("from", path) in the target's place
    transitions = {
        s: (("from", tuple(r["target_field"])) if r.get("target_field") else r["target"], r["fail"], tuple(_prepare_require(q) for q in r["requires"]))
        for s, r in step["transitions"].items()
    }
    paths = [tuple(p) for p in step["key"]]
    single = len(paths) == 1
    # a one-field key is an attribute name (the hot path); a dotted one a path; several, a tuple
    key: Any = (paths[0][0] if len(paths[0]) == 1 else paths[0]) if single else tuple(paths)
    remember = tuple((f["field"], f["default"]) for f in step["remember"])
    optional = frozenset(tuple(p) for p in step["optional"])
    return (step["entity"], key, single, optional, transitions, remember, TABLES["entities"][step["entity"]]["outlives_run"])


def _prepare_row(state: str, type_: str, row: dict[str, Any]) -> tuple[Any, ...]:
    steps = tuple(_prepare_step(s) for s in _STEPS.get(type_, ()))
    # (rule, each, expression, the expression compiled, the facts it reads)
    checks = tuple((c["rule"], c["each"], c["expect"], _compiled(c["expect"]), c.get("facts", ())) for c in _CHECKS.get(type_, ()))
    plain = not (row["fail"] or row["requires"] or row["actions"] or checks or row.get("cases")) and row["target"] == state
    return (row["target"], row["fail"], tuple(_requirement(q) for q in row["requires"]), tuple(row["actions"]), steps, checks, plain)


# state -> event type -> (target, fail rule, requires, actions, entity steps, checks, plain): the
# machine table joined once with the per-event tables, so an event costs one lookup. A plain row
# only drives entity steps.
_ROWS: dict[str, dict[str, tuple[Any, ...]]] = {
    state: {type_: _prepare_row(state, type_, row) for type_, row in rows.items()}
    for state, rows in _MACHINE["table"].items()
}
_CHUNK_KINDS: frozenset[str] = frozenset(_CHUNKS["kinds"]) if _CHUNKS else frozenset()
_ENTITY_STATES: dict[str, frozenset[str]] = {name: frozenset(spec["states"]) for name, spec in TABLES["entities"].items()}
_SEQUENCE: dict[str, Any] | None = TABLES["sequence"]
# (state, event type) -> the conditional alternatives of that row, tried in order
_CASES: dict[tuple[str, str], list[tuple[Any, tuple[Any, ...]]]] = {
    (state, type_): [(case["when"], _prepare_row(state, type_, case)) for case in row["cases"]]
    for state, rows in _MACHINE["table"].items()
    for type_, row in rows.items()
    if row.get("cases")
}


_KNOWN_CLASSES: frozenset[Any] = frozenset(_CLASSES.values())


def _quick_row(type_: str, steps: tuple[tuple[Any, ...], ...]) -> tuple[Any, ...]:
    """How feed_documents decides an event of a plain row without running its steps.

    The event changes nothing when every field in ``absent`` is absent from it and, for each
    (field, store, states) in ``keyed``, the item its field names is in one of ``states``: ones
    the step leaves as they are with nothing to check but that an owner field (in ``absent``)
    is absent. Entries: (0, type, keyed, absent, steps) in general, ``keyed`` None when the row
    has no such short form; (1, type, field, store, states, owner, steps) for the commonest
    shape, one keyed step and one field that must be absent."""
    keyed: list[tuple[Any, ...]] = []
    absent: set[str] = set()
    for step in steps:
        store, key, single, transitions = step[0], step[1], step[2], step[4]
        if not single or key.__class__ is not str:
            return (0, type_, None, (), steps)
        quiet = []
        agrees = set()
        for state, (target, fail, requires) in transitions.items():
            if fail or target != state or len(requires) > 1:
                continue
            if requires and requires[0][0] != "agree-one":
                continue
            agrees.add(requires[0][1] if requires else None)
            quiet.append(state)
        if not quiet or len(agrees) > 1:
            absent.add(key)  # only an event without this key leaves the step alone
        else:
            keyed.append((key, store, frozenset(quiet)))
            absent.update(a for a in agrees if a is not None)
    if len(keyed) == 1 and len(absent) == 1:
        return (1, type_, *keyed[0], next(iter(absent)), steps)
    return (0, type_, tuple(keyed), tuple(sorted(absent)), steps)


_TYPES: dict[Any, str] = {cls: type_ for type_, cls in _CLASSES.items()}
"""Event class -> its event type."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One rule a stream broke: MUST-level findings fail the stream, others are warnings."""

    rule: str
    level: str
    index: int
    type: str
    message: str
    ids: tuple[str, ...] = ()

    @property
    def fatal(self) -> bool:
        return self.level in _FATAL

    def as_dict(self) -> dict[str, Any]:
        ref = RULES.get(self.rule, {})
        return {
            "rule": self.rule,
            "level": self.level,
            "index": self.index,
            "type": self.type,
            "message": self.message,
            "ids": list(self.ids),
            "ref": f"{ref.get('page', '')} § {ref.get('section', '')}",
        }

    def __str__(self) -> str:
        return f"{self.rule} [{self.level}] {_UNIT} {self.index} ({self.type}): {self.message}"


class _Values(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "?"


def _show(value: Any) -> str:
    return "absent" if value is UNSET or value is None else _cut(_text(value))


def _text(value: Any) -> str:
    """A value in a message or an id, as every binding writes it (``shown``)."""
    return py_str(value if type(value) is str or type(value) is int else msgspec.to_builtins(value))


def _sides(expect: dict[str, Any], target: Any, ctx: Any) -> dict[str, str]:
    """A failed comparison, as a check's message shows it: ``{actual}`` its left side's value,
    ``{expected}`` its right side's, ``{field}`` the left side's path (when it is one), ``{detail}``
    the three in words. Lint refuses these placeholders where a check compares nothing."""
    left, right = expect["args"]
    actual, expected = _show(_eval(left, target, ctx)), _show(_eval(right, target, ctx))
    shown = {"actual": actual, "expected": expected}
    name = "the left side"
    if left["op"] == "field":
        name = shown["field"] = f"{left['scope']} {left['wire']}" if "scope" in left else left["wire"]
    op = expect["cmp"]
    shown["detail"] = (
        f"{name} is {actual}" if op == "!="
        else f"{name} is {actual}, not {expected}" if op == "=="
        else f"{name} is {actual}, which is not in {expected}" if op == "in"
        else f"{name} is {actual}, not {op} {expected}"
    )
    return shown


def _key_text(key: Any) -> str:
    if isinstance(key, tuple):
        return "/".join(str(k) for k in key if k is not None)
    return str(key)


def _by_value(literal: str) -> float | int:
    """A float literal as the number it is: an integer-valued one as that integer (-0.0 as 0)."""
    value = float(literal)
    return int(value) if value.is_integer() else value


# "the same event": its text with every object's members sorted, then read back with each
# integer-valued float as the integer it equals (two passes in C, the second calling Python only
# for a float)
_SORTED = msgspec.json.Encoder(order="sorted")
_BY_VALUE = msgspec.json.Decoder(float_hook=_by_value)


def _raw(data: bytes | str) -> Any:
    """The document as plain JSON values, read as the codec reads it (its limits; of a member
    given twice, the last), or None when the codec does not read it."""
    from .validation import JSONParseError, parse_json  # loaded by the lenient path already

    try:
        return parse_json(data)
    except JSONParseError:
        return None


def _wire_get(raw: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(raw, dict):
            return None
        raw = raw.get(part)
    return raw


def _cut(text: str) -> str:
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def finding(rule: str, index: int, type_: str, values: dict[str, Any], ids: tuple[str, ...] = (), total: int = 0) -> Finding:
    """A finding of ``rule`` at event ``index``. ``ids``: what it is about, at most MAX_IDS of
    them; ``total``: how many there are in all, when ``ids`` is a sample of them. Ids are
    quoted up to MAX_SHOWN characters (values, by ``_show``)."""
    spec = RULES[rule]
    ids = tuple(_cut(i) for i in ids)
    listed = ", ".join(ids)
    if total > len(ids):
        listed += f" and {total - len(ids)} more"
    shown = {k: _text(v) for k, v in values.items()}  # every binding writes values so (``shown``)
    text = spec["message"].format_map(_Values({"type": type_, "index": index, "ids": listed, **shown}))
    return Finding(rule, spec["level"], index, type_, text, ids)


def _sample(items: Iterable[str], total: int) -> tuple[tuple[str, ...], int]:
    """The first MAX_IDS of ``total`` ids, sorted, and ``total``."""
    return tuple(sorted(islice(items, MAX_IDS))), total


class Automaton:
    """Validates one event stream. Not thread-safe; one instance per stream."""

    def __init__(self, after: int | None = None, max_findings: int | None = MAX_FINDINGS) -> None:
        """`after`: the stream is a replay that starts after this cursor, so it may begin
        mid-stream: the machine starts in its after-cursor state, the sequence at after + 1, and
        an item first met without its opener is not reported (it may predate the cursor).
        `max_findings`: how many findings ``findings`` keeps (None: all); the others are counted
        in ``omitted``, by rule in ``omitted_rules``."""
        self.partial = bool(after)  # after 0 is the whole stream
        if self.partial and not _MACHINE["after_cursor"]:
            raise ValueError("these rules have no after-cursor state: a stream cannot start mid-way")
        self.state: str = _MACHINE["after_cursor"] if self.partial else _MACHINE["initial"]
        self._first = None if _SEQUENCE is None else (_SEQUENCE["start"] if after is None else after + 1)
        # the sequence stage, per key: each value seen -> a digest of its event; the highest value
        self._seen: dict[Any, dict[Any, bytes]] = {}
        self._latest: dict[Any, Any] = {}
        self.index = -1
        self.findings: list[Finding] = []
        self.max_findings = max_findings
        self.omitted = 0
        self.omitted_rules: dict[str, int] = {}
        self.bulk = False
        """True while the caller reads no finding ``feed`` returns, only ``findings`` (as
        ``feed_documents`` and ``Consumer.feed_documents`` do): past ``max_findings`` a finding
        is then counted in ``omitted`` and never made, nor the explanation it would quote."""
        # documents that did not decode, while findings are only counted: the same bytes again
        # are counted again without being decoded again (garbage repeats); bounded
        self._refused: set[bytes] = set()
        self.failed = False
        self.runs: list[dict[str, Any]] = []
        self._expanded: list[Any] | None = []
        self._last: Any = None
        self._opener: Any = None
        self._entities: dict[str, dict[Any, list[Any]]] = {name: {} for name in TABLES["entities"]}
        # items of entities that outlive their run: key -> what their opener established
        self._past: dict[str, dict[Any, dict[str, Any]]] = {
            name: {} for name, spec in TABLES["entities"].items() if spec["outlives_run"]
        }
        # state -> event type -> its row with this instance's entity stores bound in (saving a
        # lookup per step), None for no row; bound when the type first arrives in the state (a
        # session meets few of the table's rows: binding them all cost more than judging a
        # short one)
        self._rows: dict[str, dict[str, tuple[Any, ...] | None]] = {state: {} for state in _ROWS}
        # retired shapes: slot -> the id a translation minted and later ones continue
        self._held: dict[str, str] = {}
        # two parties: the exchanges, facts and references of the session
        self._dialogue: Dialogue | None = Dialogue(self) if _PARTIES else None
        self._lanes: dict[Any, list[Any]] = {}
        # chunk type -> its open lanes, in the order they opened (the ambiguity check's)
        self._kinds: dict[str, dict[Any, None]] = {}
        # entity -> its items in state "open", in the order they opened (require closed)
        self._open: dict[str, dict[Any, None]] = {name: {} for name in TABLES["entities"]}
        self._out: list[Finding] = []
        # when a dict: the events decoded from documents, counted per class
        self.counts: dict[Any, int] | None = None
        # state -> event class -> the steps of an event that changes nothing when each is quiet
        # (feed_documents' hot path; () when it takes feed), made when the class first arrives
        self._quick: dict[str, dict[Any, tuple[Any, ...]]] = {state: {} for state in _ROWS}

    def _bind(self, type_: str) -> tuple[Any, ...] | None:
        """The row of an event type in the current state with this instance's entity stores
        bound in (None: the state has no row for it), kept for the next such event."""
        row = _ROWS[self.state].get(type_)
        if row is not None:
            steps = tuple((self._entities[st[0]], *st[1:6], st[0], self._past.get(st[0]), st[6]) for st in row[4])
            row = row[:4] + (steps,) + row[5:]
        self._rows[self.state][type_] = row
        return row

    def _quick_entry(self, cls: Any) -> tuple[Any, ...]:
        """feed_documents' entry for an event class in the current state, kept for the next such
        event: _quick_row for a type whose row drives nothing but entity steps (a plain row),
        (2, type) for one with no row (nothing happens), () for the others (they take feed)."""
        type_ = _TYPES.get(cls)
        entry: tuple[Any, ...] = ()
        if type_ is not None and type_ not in _CHUNK_KINDS:
            row = self._rows[self.state].get(type_, _UNBOUND)
            if row is _UNBOUND:
                row = self._bind(type_)
            if row is None:
                entry = (2, type_)
            elif row[6] and (self.state, type_) not in _CASES:
                entry = _quick_row(type_, row[4])
        self._quick[self.state][cls] = entry
        return entry

    @property
    def outcome(self) -> str:
        return "failed" if self.failed else "completed"

    def entity_state(self, entity: str, key: Any) -> str:
        """The state of one tracked item in the current run ("absent" when untracked)."""
        record = self._entities[entity].get(key)
        return "absent" if record is None else str(record[0])

    # -- reporting ----------------------------------------------------------------------------

    def _report(self, rule: str, type_: str, values: dict[str, Any] | None = None, ids: tuple[str, ...] = (), total: int = 0) -> None:
        if self._full():
            return self._counted(rule)
        f = finding(rule, self.index, type_, values or {}, ids, total)
        self._out.append(f)
        self._keep(f)
        return None

    def _full(self) -> bool:
        """Whether the findings being made now would only be counted (see ``bulk``)."""
        return self.bulk and self.max_findings is not None and len(self.findings) >= self.max_findings

    def _counted(self, rule: str, n: int = 1) -> None:
        self.omitted += n
        self.omitted_rules[rule] = self.omitted_rules.get(rule, 0) + n
        if RULES[rule]["level"] in _FATAL:
            self.failed = True

    def _keep(self, f: Finding) -> None:
        if self.max_findings is None or len(self.findings) < self.max_findings:
            self.findings.append(f)
        else:
            self.omitted += 1
            self.omitted_rules[f.rule] = self.omitted_rules.get(f.rule, 0) + 1
        if f.fatal:
            self.failed = True

    def _take(self) -> tuple[Finding, ...]:
        out = tuple(self._out)
        self._out.clear()
        return out

    def note_decode_error(self, detail: str, rule: str | None = None) -> tuple[Finding, ...]:
        """An event that did not decode: a finding (of ``rule``, by default the rules'
        ``on-decode-error``), and the stream goes on."""
        self.index += 1
        self._expanded = []
        rule = rule or TABLES["decode_error_rule"]
        if rule:
            self._report(rule, "?", {"detail": detail})
        return self._take()

    def note_stripped(self, detail: str, type_: str = "?") -> tuple[Finding, ...]:
        """Something lenient decoding stripped from the event fed next (or dropped whole)."""
        rule = TABLES["stripped_rule"]
        if rule and self._full():
            self._counted(rule)
        elif rule:
            f = finding(rule, self.index + 1, type_, {"detail": detail})
            self._keep(f)
            return (f,)
        return ()

    def skip(self) -> None:
        """Count an event that was dropped whole, so later indexes stay those of the stream."""
        self.index += 1
        self._expanded = []

    def feed_document(self, data: bytes | str) -> tuple[Finding, ...]:
        """Decode one event leniently and feed it: a document that does not decode is a finding,
        what lenient decoding strips is reported, an unknown event is dropped and reported.

        For a protocol of two parties, a document is a line of a transcript, ``{"from": PARTY,
        "message": MESSAGE}`` (``feed_message`` takes a message and its sender apart)."""
        if self._dialogue is not None:
            self._dialogue.feed_entry(data)
            return self._take()
        return self._feed_lenient(data)

    def feed_message(self, data: bytes | str, sender: str) -> tuple[Finding, ...]:
        """Two parties: one message as sent (its bytes) and the party that sent it; the findings
        for it. What a live relay calls for each message it forwards, in wire order."""
        if self._dialogue is None:
            raise TypeError("feed_message belongs to protocols of two parties: these rules have one stream")
        self._dialogue.feed_message(data.encode() if isinstance(data, str) else bytes(data), sender)
        return self._take()

    def _feed_lenient(self, data: bytes | str) -> tuple[Finding, ...]:
        counting = self._full()
        if counting and data in self._refused:
            # as before: no finding made, the sequence stage has seen it, the event counted
            return self.note_decode_error("")
        if counting and data[:1] in _NOT_AN_OBJECT and _objects_only():
            # refused whatever follows, and the refusal only counted: not decoded, not explained
            # (nor its sequence salvaged: a text that is not an object has no members)
            return self.note_decode_error("")
        try:
            result = (_EVENTS_COUNTED if counting else _EVENTS).decode_lenient(data)
        except DecodeError as exc:
            if counting and type(data) is bytes and len(data) <= _REMEMBERED:
                if len(self._refused) >= _REMEMBER:
                    self._refused.clear()
                self._refused.add(data)
            return self._undecodable(data, exc)
        if result.dropped and _RETIRED:
            translated = self._translate(data)
            if translated is not None:
                return translated
        if result.dropped and TABLES["unknown_event_rule"]:  # not stripped here: a finding
            return self._unknown(data)
        noted = self._stripped(result, counting)
        value = result.value
        if result.dropped:
            self._salvage_sequence(data)
            self.skip()
            return noted
        self._count(value)
        return noted + self.feed(value)

    def _stripped(self, result: Any, counting: bool) -> tuple[Finding, ...]:
        """A finding per warning of a lenient decode, and one for those it did not list; when
        ``counting`` (the decode listed none), as many counted."""
        value = result.value
        type_ = "?" if value is None else str(getattr(value, _DISC))
        rule = TABLES["stripped_rule"]
        if counting:
            if rule and result.omitted:
                most = limits.MAX_ERRORS
                self._counted(rule, result.omitted if most is None else min(result.omitted, most) + (result.omitted > most))
            return ()
        noted: tuple[Finding, ...] = ()
        for issue in result.warnings:
            noted += self.note_stripped(str(issue), type_)
        if result.omitted:
            noted += self.note_stripped(f"and {result.omitted} more stripped", type_)
        return noted

    def _undecodable(self, data: bytes | str, exc: DecodeError, rule: str | None = None) -> tuple[Finding, ...]:
        self._salvage_sequence(data)
        if self._full():
            return self.note_decode_error("", rule)
        detail = "; ".join(str(e) for e in exc.errors[:3])
        more = exc.count - 3
        return self.note_decode_error(detail + (f"; and {more} more" if more > 0 else ""), rule)

    def _unknown(self, data: bytes | str) -> tuple[Finding, ...]:
        """An event lenient decoding would drop whole (of a type the schema does not name, or
        whose required member is unrecognised), where the rules make that a finding
        (``on-unknown-event``): the strict decoder says why."""
        try:
            (_EVENTS_COUNTED if self._full() else _EVENTS).decode(data)
        except DecodeError as exc:
            return self._undecodable(data, exc, TABLES["unknown_event_rule"])
        raise AssertionError("a document lenient decoding drops decodes strictly")  # pragma: no cover

    def _salvage_sequence(self, data: bytes | str) -> None:
        """An event that does not decode, or that lenient decoding dropped, still arrived: when
        its sequence value and key can be read (``jsonscan.member_scalar``: the grammar alone,
        whatever else is wrong with it), they count as seen, so its one finding is its own, not
        also a gap."""
        if _SEQUENCE is None:
            return
        value = member_scalar(data, _SEQUENCE["field_wire"], int_digits_limit())
        key = member_scalar(data, _SEQUENCE["key_wire"], int_digits_limit())
        if type(value) is not int or key is None:
            return
        seen = self._seen.setdefault(key, {})
        if value not in seen:
            seen[value] = b""  # no digest: whatever arrives there later is a different event
            last = self._latest.get(key)
            if last is None or value > last:
                self._latest[key] = value

    def _translate(self, data: bytes | str) -> tuple[Finding, ...] | None:
        """A retired shape as its replacement, with a finding that names it (None: the dropped
        event is not a retired shape). It runs before enforcement, as translation must."""
        raw = _raw(data)
        old = raw.get(_DISC_WIRE) if isinstance(raw, dict) else None
        how = _RETIRED.get(old) if isinstance(old, str) else None
        if how is None or not isinstance(raw, dict) or not isinstance(old, str):
            return None
        event = {k: v for k, v in raw.items() if k not in how["drop"]}
        event[_DISC_WIRE] = how["as"]
        notes = [f"{old} is retired: translated to {how['as']}"]
        lost = [k for k in how["drop"] if k in raw]
        if lost:
            notes.append(f"its {', '.join(lost)} dropped ({how['as']} has no place for it)")
        for spec in how["set"]:
            name, kind, arg = spec["wire"], spec["how"], spec["value"]
            if kind == "value":
                event[name] = arg
                continue
            held = self._held.get(arg)
            if kind == "new" or held is None:
                held = self._held[arg] = f"{arg}-{self.index + 1}"
                if kind != "new":
                    notes.append(f"{name} {quote(held)} minted: no opener preceded it")
            event[name] = held
            if kind == "close":
                del self._held[arg]
        rule = TABLES["retired_rule"]
        noted: tuple[Finding, ...] = ()
        if rule and self._full():
            self._counted(rule)
        elif rule:
            f = finding(rule, self.index + 1, old, {"detail": "; ".join(notes)})
            self._keep(f)
            noted = (f,)
        try:
            result = _EVENTS.decode_lenient(msgspec.json.encode(event))
        except DecodeError as exc:
            return noted + self._undecodable(data, exc)
        noted += self._stripped(result, False)
        if result.dropped:
            self.skip()
            return noted
        self._count(result.value)
        return noted + self.feed(result.value)

    def _count(self, value: Any) -> None:
        if self.counts is not None:
            self.counts[value.__class__] = self.counts.get(value.__class__, 0) + 1

    def feed_documents(self, documents: Iterable[bytes], skip_blank: bool = False) -> int:
        """Feed many documents, each as ``feed_document`` would, in one call: the same findings,
        in ``self.findings`` (none is returned). The hot path of judging a file: an event the
        codec's fast path accepts whose row moves nothing but its items, each left in a quiet
        state (the commonest case: a delta of an open message), is decided here, and the other
        steps of a plain row run without ``feed``; anything else takes ``feed``, and a document
        the fast path leaves to the full one ``feed_document`` (an event with undeclared members
        of open objects among them). ``expanded`` holds only the last event: a consumer feeds one
        document at a time.

        ``skip_blank``: a document of whitespace alone is no event, and the others are read
        stripped (JSON Lines); else every document is one, decoding or not. Returns how many
        blank documents were skipped.

        Findings past ``max_findings`` are counted in ``omitted`` without being made (nothing
        would see them), so a stream of a million undecodable lines costs their decoding, not a
        million explanations."""
        self.bulk = True
        try:
            if self._dialogue is not None:
                return self._feed_entries(documents, skip_blank)
            return self._feed_documents(documents, skip_blank)
        finally:
            self.bulk = False

    def _feed_documents(self, documents: Iterable[bytes], skip_blank: bool) -> int:
        # the codec's own fast reading (Decoder.fast, inlined: this loop is the hot path): its
        # typed decode (whose classes refuse undeclared members: an event that has some takes
        # feed_document) and its limits
        decode = _EVENTS._fast.decode if not getattr(_EVENTS, "_slow", False) else _refuse
        suspect = codec_json._suspect if codec_json._LONE_READ else None  # else only depth can fail
        short = codec_json._SHORT
        deep = too_deep
        known = _KNOWN_CLASSES
        counts: dict[Any, int] = {}
        run_class: Any = None  # the events decoded are counted in runs of one class
        run = 0
        quick_rows = self._quick
        bypass = _SEQUENCE is not None
        quick = None if bypass or self._lanes else quick_rows[self.state]
        index = self.index
        slow = index  # the index of the last event that took feed or feed_document
        skipped = 0
        ev: Any = None
        # past max_findings (findings only grow), a document refused before or that is not an
        # object is counted here, as feed_document would count it, without a call
        findings, most, refused = self.findings, self.max_findings, self._refused
        counted_rule = TABLES["decode_error_rule"]
        full = False  # whether findings are only counted now (once so, so until the end)
        not_object: frozenset[Any] = frozenset()
        pending = 0  # refusals counted here not yet added to omitted (before any other finding is)
        counted_at = None  # the index of the last of them
        for doc in documents:
            if full and (doc in refused or doc[:1] in not_object):  # not even read: see below
                index += 1
                slow = counted_at = index
                pending += 1
                continue
            try:
                ev = decode(doc)
            except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
                ev = _UNKNOWN
            if ev is _UNKNOWN or (len(doc) > short and deep(doc) if suspect is None else suspect(doc)):  # codec_json._suspect
                if skip_blank:
                    doc = doc.strip()
                    if not doc:
                        skipped += 1
                        continue
                if full or most is not None and len(findings) >= most:
                    if not full:
                        full = True
                        not_object = _NOT_AN_OBJECT if _objects_only() else frozenset()
                    if doc in refused or doc[:1] in not_object:  # see _feed_lenient
                        index += 1
                        slow = counted_at = index
                        pending += 1
                        continue
                if pending:
                    self._count_refused(counted_rule, pending)
                    pending = 0
                self.index = index
                self._feed_lenient(doc)
                index = slow = self.index
                quick = None if bypass or self._lanes else quick_rows[self.state]
                continue
            index += 1
            cls = ev.__class__
            if cls is run_class:
                run += 1
            else:
                if run:
                    counts[run_class] = counts.get(run_class, 0) + run
                run_class = cls
                run = 1
            if quick is not None:
                entry = quick.get(cls)
                if entry is None:
                    entry = self._quick_entry(cls)
                if entry:
                    kind = entry[0]
                    if kind == 1:  # (1, type, field, store, states, owner, steps)
                        if getattr(ev, entry[5]) is UNSET:
                            record = entry[3].get(getattr(ev, entry[2]))
                            if record is not None and record[0] in entry[4]:
                                continue
                    elif kind == 2:  # a type this state has no row for: nothing happens
                        continue
                    elif entry[2] is not None:  # (0, type, keyed, absent, steps)
                        for attr in entry[3]:
                            if getattr(ev, attr) is not UNSET:
                                break
                        else:
                            for attr, store, states in entry[2]:
                                record = store.get(getattr(ev, attr))
                                if record is None or record[0] not in states:
                                    break
                            else:
                                continue
                    # feed's plain-row path: the steps one by one
                    if pending:
                        self._count_refused(counted_rule, pending)
                        pending = 0
                    self.index = index
                    type_ = entry[1]
                    for step in entry[-1]:
                        if step[2]:
                            path = step[1]
                            key = getattr(ev, path) if path.__class__ is str else _get(ev, path)
                            if key is not UNSET:
                                self._step(step, ev, type_, key)
                        else:
                            self._step(step, ev, type_, None)
                    continue
            if pending:
                self._count_refused(counted_rule, pending)
                pending = 0
            self.index = index - 1
            if cls in known:
                self.feed(ev)
            else:  # not an event these rules know (another definition's shape): the lenient path
                run -= 1  # counted by the lenient path, if it keeps the event
                self._feed_lenient(doc.strip() if skip_blank else doc)
            index = slow = self.index
            quick = None if bypass or self._lanes else quick_rows[self.state]
        self.index = index
        if pending:
            self._count_refused(counted_rule, pending)
        if counted_at == index:  # the last document was one of them
            self._expanded = []
        if run:
            counts[run_class] = counts.get(run_class, 0) + run
        if self.counts is not None:
            for cls, n in counts.items():
                self.counts[cls] = self.counts.get(cls, 0) + n
        self._out.clear()  # the findings are in self.findings
        if slow != index:  # the last event was decided here
            self._expanded = None
            self._last = ev
        return skipped

    def _count_refused(self, rule: str | None, n: int) -> None:
        """``n`` documents refused while findings are only counted (feed_documents)."""
        if rule:
            self._counted(rule, n)

    def _feed_entries(self, documents: Iterable[bytes], skip_blank: bool) -> int:
        """feed_documents for transcript lines: each as feed_document would."""
        dialogue = self._dialogue
        assert dialogue is not None
        skipped = 0
        for doc in documents:
            if skip_blank:
                doc = doc.strip()
                if not doc:
                    skipped += 1
                    continue
            dialogue.feed_entry(doc)
        self._out.clear()
        return skipped

    # -- the stream ---------------------------------------------------------------------------

    def feed(self, event: Any) -> tuple[Finding, ...]:
        """The findings for one more event."""
        self.index += 1
        type_ = getattr(event, _DISC)
        if _SEQUENCE is not None and not self._in_sequence(event, type_):
            self._expanded = []
            return self._take() if self._out else ()
        if self._lanes or type_ in _CHUNK_KINDS:
            self._expanded = self._expand(event, type_)
            for ev in self._expanded:
                self._apply(ev, getattr(ev, _DISC))
        else:
            self._expanded = None
            self._last = event
            row = self._rows[self.state].get(type_, _UNBOUND)
            if row is _UNBOUND:
                row = self._bind(type_)
            if row is not None and row[6]:
                for step in row[4]:
                    if step[2]:  # a single-field key: most events, and often absent (owner keys)
                        path = step[1]
                        key = getattr(event, path) if path.__class__ is str else _get(event, path)
                        if key is not UNSET:
                            self._step(step, event, type_, key)
                    else:
                        self._step(step, event, type_, None)
            elif row is not None:
                self._apply(event, type_)
        return self._take() if self._out else ()

    @property
    def expanded(self) -> list[Any]:
        """The events the last ``feed`` delivered, after chunk expansion."""
        return [self._last] if self._expanded is None else self._expanded

    def finish(self) -> tuple[Finding, ...]:
        """End of stream: a run still active is truncated (two parties: and requests still
        unanswered are reported)."""
        if self._dialogue is not None:
            self._dialogue.finish()
        if _CHUNKS is not None:
            for lane in list(self._lanes):
                self._close_lane(lane)
        rule = _MACHINE["at_end"].get(self.state)
        if rule:
            self._report(rule, "end of stream", self._run_values())
            if self.runs and self.runs[-1]["state"] == "active":
                self.runs[-1]["state"] = "truncated"
        return self._take()

    def _run_values(self) -> dict[str, Any]:
        opener = self._opener
        identity = _MACHINE["identity"]
        run = _show(_get(opener, identity)) if opener is not None and identity else "?"
        return {"run": run, "state": self.state}

    def _apply(self, ev: Any, type_: str, shallow: bool = False) -> None:
        """The machine's row for the event, its requirements, entity steps and checks, its
        actions. ``shallow``: the row alone (two parties: a result not of its request's type,
        already reported, still answers its request and so moves the phases)."""
        row = self._rows[self.state].get(type_, _UNBOUND)
        if row is _UNBOUND:
            row = self._bind(type_)
        if row is None:
            return
        for when, case in _CASES.get((self.state, type_), ()):
            if _eval(when, ev, self) is True:
                row = case[:4] + row[4:]
                break
        target, fail, requires, actions, steps, checks, _ = row
        if fail:
            self._report(fail, type_, self._run_values())
            return
        if shallow:
            requires = steps = checks = ()
        for req in requires:
            self._require(req, ev, type_, None)
        for step in steps:
            if step[2]:  # a single-field key: most events, and most often absent (owner keys)
                path = step[1]
                key = getattr(ev, path) if path.__class__ is str else _get(ev, path)
                if key is not UNSET:
                    self._step(step, ev, type_, key)
            else:
                self._step(step, ev, type_, None)
        for check in checks:
            self._check(check, ev, type_)
        for action in actions:
            if action == "begin-run":
                self._opener = ev
                self._clear()
                self.runs.append({"start": self.index, "end": None, "state": "active"})
            elif action == "end-run":
                self._clear()
                self._end_run(target)
        self.state = target

    def _end_run(self, target: str) -> None:
        last = self.runs[-1] if self.runs else None
        if last is not None and last["state"] == "active":
            last.update(end=self.index, state=target)
        elif last is not None and self.state != _MACHINE["initial"]:
            last.update(state=target, late=self.index)  # a closed run failing late
        else:
            self.runs.append({"start": self.index, "end": self.index, "state": target})

    def _in_sequence(self, event: Any, type_: str) -> bool:
        """The sequence stage: whether the event goes on. An identical redelivery of a value
        already seen is dropped quietly; a different event there is reported and dropped."""
        spec: dict[str, Any] = _SEQUENCE  # type: ignore[assignment]
        value = _get(event, spec["field"])
        key = _get(event, spec["key"])
        seen = self._seen.setdefault(key, {})
        # the same event is the same JSON value: an object's members in any order (RFC 8259
        # section 4), a number by its value (1, 1.0 and 1e0 alike), so a redelivery re-serialised
        # by another encoder or store is no conflict
        text = msgspec.json.encode(_BY_VALUE.decode(_SORTED.encode(event)))
        digest = hashlib.blake2b(text, digest_size=12).digest()
        if value in seen:
            if seen[value] != digest:
                self._report(spec["conflict"], type_, {"actual": value}, (f"{_show(key)}#{_text(value)}",))
            return False
        last = self._latest.get(key)
        expected = self._first if last is None else last + 1
        if value != expected:
            self._report(spec["gap"], type_, {"actual": value, "expected": expected}, (f"{_show(key)}#{_text(value)}",))
        seen[value] = digest
        if last is None or value > last:
            self._latest[key] = value
        return True

    def _clear(self) -> None:
        for name, store in self._entities.items():
            past = self._past.get(name)
            if past is not None:
                for key, record in store.items():
                    past[key] = record[1]
            store.clear()
        for opened in self._open.values():
            opened.clear()
        self._lanes.clear()
        self._kinds.clear()
        self._held.clear()

    # -- entities -----------------------------------------------------------------------------

    def _step(self, step: tuple[Any, ...], ev: Any, type_: str, key: Any) -> None:
        store, attrs, single, optional, transitions, remember, entity, past, outlives = step
        if not single:
            parts = []
            for path in attrs:
                value = _get(ev, path)
                if value is UNSET:
                    if path not in optional:
                        return
                    value = None
                parts.append(value)
            key = tuple(parts)
        record = store.get(key)
        if record is None and past:
            established = past.get(key)
            if established is not None:  # an item of an earlier run, in the state it continues in
                record = store[key] = [outlives, established]
                if outlives == "open":
                    self._open[entity][key] = None
        row = transitions.get("absent" if record is None else record[0])
        if row is None:
            return
        target, fail, requires = row
        if fail:
            if record is None and self.partial:
                return  # first met without its opener, which may predate the cursor
            self._report(fail, type_, {"kind": entity}, (_key_text(key),))
            return
        for req in requires:
            if req[0] == "agree-one":
                # the hot case: a continuation that is untagged, or tagged like its opener
                value = getattr(ev, req[1], UNSET)
                if value is UNSET or record is None or value == record[1].get(req[1]):
                    continue
                req = req[2]
            self._require(req, ev, type_, record, entity, key)
        if target.__class__ is tuple:  # the state the event's field names (staying when it names none)
            named = _get(ev, list(target[1]))
            target = named if named.__class__ is str and named in _ENTITY_STATES[entity] else None
        if target is not None:
            if record is None:
                remembered = {}
                for attr, default in remember:
                    value = getattr(ev, attr, UNSET)
                    remembered[attr] = default if value is UNSET else value
                store[key] = [target, remembered]
                if target == "open":
                    self._open[entity][key] = None
            elif record[0] != target:
                if record[0] == "open":
                    self._open[entity].pop(key, None)
                elif target == "open":
                    self._open[entity][key] = None
                record[0] = target

    def _require(
        self,
        req: list[Any],
        ev: Any,
        type_: str,
        record: list[Any] | None,
        kind: str = "",
        key: Any = None,
    ) -> None:
        what = req[0]
        if what == "closed":
            for name in req[1]:
                still = self._open[name]
                if still:
                    shown = tuple(_key_text(k) for k in islice(still, MAX_IDS))
                    self._report(req[2], type_, {"kind": name, **self._run_values()}, shown, len(still))
        elif what == "same":
            value, expected = getattr(ev, req[1], UNSET), getattr(self._opener, req[1], UNSET)
            if value != expected:
                self._report(req[2], type_, {"field": req[3], "actual": _show(value), "expected": _show(expected)})
        elif what in ("agree", "agree-if-present"):
            if record is None:
                return
            for attr, default, wire in req[1]:
                value = getattr(ev, attr, UNSET)
                if value is UNSET:
                    if what == "agree-if-present":
                        continue
                    value = default
                expected = record[1].get(attr)
                if value != expected:
                    values = {"field": wire, "actual": _show(value), "expected": _show(expected), "kind": kind}
                    self._report(req[2], type_, values, (_key_text(key),))
        elif what == "in-state":
            if record is None:
                return
            value = _get(ev, req[1])
            if value is not UNSET and value != record[0]:
                self._report(req[2], type_, {"field": req[3], "actual": _show(value), "expected": record[0], "kind": kind}, (_key_text(key),))
        else:  # exists / missing
            key = getattr(ev, req[2], UNSET)
            if key is UNSET:
                return
            present = key in self._entities[req[1]]
            if not present and self.partial:
                return  # the item may predate the cursor
            if present != (what == "exists"):
                self._report(req[3], type_, {"actual": _show(key)}, (_key_text(key),))

    # -- checks on one event --------------------------------------------------------------------

    def _check(self, check: tuple[Any, ...], ev: Any, type_: str) -> None:
        rule, each, expect, evaluate, facts = check
        names: list[str] | None = None
        if each is None:
            targets = [ev]
        else:
            items = getattr(ev, each, UNSET)
            if items is UNSET:
                return
            targets, names = _members(items)
        for i, target in enumerate(targets):
            if evaluate(target, self) is False:
                ids: tuple[str, ...] = ()
                total = 0
                if expect["op"] == "unique":
                    counted = Counter(_text(v) for v in _collect(target, expect["path"]))
                    repeated = sorted(v for v, n in counted.items() if n > 1)
                    ids, total = tuple(repeated[:MAX_IDS]), len(repeated)
                elif self._dialogue is not None and self._dialogue.about is not None:
                    ids = (self._dialogue.about,)  # the request the message answers or names
                shown: dict[str, Any] = {"index": i if names is None else names[i]}
                if expect["op"] == "cmp":
                    shown.update(_sides(expect, target, self))
                if facts and self._dialogue is not None:
                    shown["declared"] = self._dialogue.declared(facts)
                self._report(rule, type_, shown, ids, total)

    # -- chunk expansion ------------------------------------------------------------------------

    def _make(self, part: dict[str, Any], source: Any, lane: Any, extra: dict[str, Any] | None = None) -> Any:
        kwargs = {}
        for attr in part["copy"]:
            value = getattr(source, attr, UNSET)
            if value is not UNSET:
                kwargs[attr] = value
        kwargs.update(part["fixed"])
        if extra:
            kwargs.update(extra)
        if lane is not None:
            kwargs[_CHUNKS["lane"]] = lane  # type: ignore[index]
        return _CLASSES[part["type"]](**kwargs)

    def _close_lane(self, lane: Any) -> list[Any]:
        item = self._lanes.pop(lane, None)
        if item is None:
            return []
        self._kinds[item[0]].pop(lane, None)
        kind = _CHUNKS["kinds"][item[0]]  # type: ignore[index]
        return [self._make(kind["end"], item[3], lane)]

    def _expand(self, event: Any, type_: str) -> list[Any]:
        chunks: dict[str, Any] = _CHUNKS  # type: ignore[assignment]
        lane_attr = chunks["lane"]
        kind = chunks["kinds"].get(type_)
        owner = getattr(event, lane_attr, UNSET)
        lane = None if owner is UNSET else owner
        if kind is None:
            out: list[Any] = []
            if type_ in chunks["close_all"]:
                for open_lane in list(self._lanes):
                    out += self._close_lane(open_lane)
            elif type_ in chunks["close_owner"] or type_ in chunks["close_lane"]:
                out += self._close_lane(lane)
            out.append(event)
            return out
        item_id = getattr(event, kind["id"], UNSET)
        item = self._lanes.get(lane)
        if item_id is UNSET:
            if owner is UNSET:
                open_lanes = self._kinds.get(type_)
                if open_lanes and (None in open_lanes or len(open_lanes) == 1):
                    lane = None if None in open_lanes else next(iter(open_lanes))
                elif open_lanes:
                    shown = (_text(self._lanes[k][1]) for k in open_lanes)
                    self._report(chunks["ambiguous"], type_, {}, *_sample(shown, len(open_lanes)))
                    return []
                item = self._lanes.get(lane)
            if item is None or item[0] != type_:
                self._report(kind["first_rule"], type_)
                return []
            return self._continue(kind, item, event, type_, lane)
        if item is not None and item[0] == type_ and item[1] == item_id:
            return self._continue(kind, item, event, type_, lane)
        out = self._close_lane(lane)
        if any(getattr(event, attr, UNSET) is UNSET for attr in kind["first"]):
            self._report(kind["first_rule"], type_)
            return out
        agreed = {}
        for attr, default, _ in kind["agree"]:
            value = getattr(event, attr, UNSET)
            agreed[attr] = default if value is UNSET else value
        opener = self._make(kind["start"], event, lane)
        self._lanes[lane] = [type_, item_id, agreed, opener]
        self._kinds.setdefault(type_, {})[lane] = None
        out.append(opener)
        out += self._content(kind, event, lane)
        return out

    def _continue(self, kind: dict[str, Any], item: list[Any], event: Any, type_: str, lane: Any) -> list[Any]:
        for attr, default, wire in kind["agree"]:
            value = getattr(event, attr, UNSET)
            # an opener that left a field out (with no meaning by omission) established nothing
            if value is not UNSET and item[2][attr] is not None and value != item[2][attr]:
                values = {"field": wire, "actual": _show(value), "expected": _show(item[2][attr])}
                self._report(kind["agree_rule"], type_, values, (str(item[1]),))
                return []
        return self._content(kind, item[3], lane, event)

    def _content(self, kind: dict[str, Any], source: Any, lane: Any, event: Any = None) -> list[Any]:
        event = source if event is None else event
        part = kind["content"]
        carried = [a for a in part["copy"] if a != kind["id"]]
        if not carried or all(getattr(event, a, UNSET) is UNSET for a in carried):
            return []
        extra = {kind["id"]: getattr(source, kind["id"])}
        return [self._make(part, event, lane, extra)]


def _instant(text: Any) -> _dt.datetime | None:
    if not isinstance(text, str):
        return None
    try:
        value = _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value if value.tzinfo else value.replace(tzinfo=_dt.timezone.utc)


def check_answers(name: str, question: Any, answer: Any, now: _dt.datetime | None = None) -> list[Finding]:
    """Check that ``answer`` (an input) answers every question ``question`` (the event that asked,
    or None when there is none) left open, per the rules file's ``answers {name}`` block."""
    spec = TABLES["answers"][name]
    rules = spec["rules"]
    now = now or _dt.datetime.now(_dt.timezone.utc)
    out: list[Finding] = []
    entries = _get(answer, spec["input"]["list"])
    entries = [] if entries is UNSET else entries
    answered = {getattr(e, spec["input"]["id"]): e for e in entries}
    asking = question is not None and _eval(spec["open_when"], question) is True
    kind = spec["input"]["definition"]
    if not asking:
        if answered and "nothing-to-continue" in rules:
            named = sorted(map(_text, answered))
            out.append(finding(rules["nothing-to-continue"], 0, kind, {}, tuple(named[:MAX_IDS]), len(named)))
        return out
    asked = _get(question, spec["questions"]["list"])
    asked = [] if asked is UNSET else asked
    asked_ids = {getattr(q, spec["questions"]["id"]): q for q in asked}
    for qid in asked_ids:
        if qid not in answered:
            out.append(finding(rules["uncovered"], 0, kind, {}, (str(qid),)))
    for aid in answered:
        if aid not in asked_ids:
            out.append(finding(rules["unknown"], 0, kind, {}, (str(aid),)))
    if spec["expires"] and "expired" in rules:
        for qid, q in asked_ids.items():
            raw = getattr(q, spec["expires"], UNSET)
            when = _instant(raw)
            entry = answered.get(qid)
            if when is None or entry is None or when > now:
                continue
            if _eval(spec["expires_unless"], entry) is not True:
                out.append(finding(rules["expired"], 0, kind, {"actual": raw}, (str(qid),)))
    return out


def check_listing(name: str, events: Any, document: Any) -> list[Finding]:
    """Check a document listing items against the events that created them, per the rules
    file's ``listing {name}`` block: every listed item matches one creation event (the same
    item), none is left out, and the list follows creation order. ``events`` are the decoded
    events of the stream the document describes, ``document`` the decoded listing."""
    from .validation import json_equal  # the validator and its schema table load when needed

    spec = TABLES["listings"][name]
    rules = spec["rules"]
    kind = spec["definition"]
    created: dict[Any, tuple[int, Any]] = {}
    order: list[Any] = []
    for ev in events:
        if getattr(ev, _DISC, None) != spec["event"]:
            continue
        item = _get(ev, spec["item"])
        if item is UNSET:
            continue
        key = _get(item, spec["id"])
        if key not in created:
            created[key] = (len(order), item)
            order.append(key)
    listed = _get(document, spec["list"])
    listed = [] if listed is UNSET else listed
    out: list[Finding] = []
    seen: set[Any] = set()
    positions: list[int] = []
    for i, item in enumerate(listed):
        key = _get(item, spec["id"])
        if key in seen or key not in created:
            out.append(finding(rules["unmatched"], i, kind, {"index": i}, (_show(key),)))
            seen.add(key)
            continue
        seen.add(key)
        position, original = created[key]
        positions.append(position)
        if "differs" in rules and not json_equal(codec_json.to_builtins(item), codec_json.to_builtins(original)):
            out.append(finding(rules["differs"], i, kind, {"index": i}, (_show(key),)))
    if "missing" in rules:
        for key in order:
            if key not in seen:
                out.append(finding(rules["missing"], len(listed), kind, {}, (_show(key),)))
    if "order" in rules and positions != sorted(positions):
        listed_order = [_show(k) for k in order if k in seen]
        out.append(finding(rules["order"], 0, kind, {}, tuple(listed_order[:MAX_IDS]), len(listed_order)))
    return out
