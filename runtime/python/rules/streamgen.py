"""Event streams from the rule tables (``automaton_table.TABLES``): random walks that end
accepted, and streams that break exactly one rule. ``strategies`` is the public face of this
module; this is the engine behind it.

The walk keeps its own model of what the tables say a stream has done so far: the machine's
state, every tracked item of every entity and its remembered fields, the items that outlive
their run, the open chunk lanes, the sequence per key, the slots retired shapes hold. The model
(``Model``) is a plain reading of the tables over JSON documents, written for clarity where the
automaton is written for speed; for every document it says which rules the document breaks.
Moves are proposed at random (an event of a type the machine's state admits, its items chosen
among those tracked or fresh, its requirements and checks met by construction: remembered
values copied, the opener's identity kept, sums made to add up) and kept when the model reports
nothing. A stream ends accepted: open items are closed, the machine is walked to a state the
rules let a stream end in.

A stream that breaks a rule is a conformant prefix, one move that the model says breaks exactly
that rule (found where the tables say the rule is decided: a forbidden row, a failed
requirement, an entity transition, a check, a chunk, the sequence, the end of the stream, a
document that does not decode, a member stripped, a retired shape), and a conformant ending.

Every generated stream comes with the findings the model expects, in order: a conforming
automaton reports exactly those (the generated property tests hold the package's automaton to
them).
"""

from __future__ import annotations

import dataclasses
import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

from . import codec_json, models
from .automaton_table import TABLES
from .docgen import Documents, GenerationError, Source, choice
from .errors import DecodeError

__all__ = ["Model", "Walker", "Stream", "GenerationError", "stream_rules", "opener_definition", "ABSENT"]

ABSENT: Any = msgspec.UNSET  # what an absent member reads as


class _Unknown:
    def __repr__(self) -> str:
        return "unknown"


UNKNOWN: Any = _Unknown()

RULES: dict[str, dict[str, str]] = TABLES["rules"]
_DISC: str = TABLES["discriminator_wire"]
_MACHINE: dict[str, Any] = TABLES["machine"]
_TABLE: dict[str, dict[str, Any]] = _MACHINE["table"]
_AT_END: dict[str, str] = _MACHINE["at_end"]
_STEPS: dict[str, list[dict[str, Any]]] = TABLES["entity_steps"]
_CHECKS: dict[str, list[dict[str, Any]]] = TABLES["checks"]
_CHUNKS: dict[str, Any] | None = TABLES["chunks"]
_SEQ: dict[str, Any] | None = TABLES["sequence"]
_ENTITIES: dict[str, dict[str, Any]] = TABLES["entities"]
_RETIRED: dict[str, dict[str, Any]] = TABLES["retired"]
_CLASSES: dict[str, str] = TABLES["event_classes"]
_EVENTS_DEF: str = TABLES["events_definition"]
_EVENTS: Any = codec_json.decoder(_EVENTS_DEF) if _EVENTS_DEF else None  # None: two parties (not walked here)
_CHUNK_KINDS: dict[str, Any] = {} if _CHUNKS is None else _CHUNKS["kinds"]


def _wire_names(definition: str) -> dict[str, str]:
    cls = models.DEFINITIONS.get(definition)
    if cls is None or not isinstance(cls, type) or not issubclass(cls, msgspec.Struct):
        return {}
    return {f.name: f.encode_name for f in msgspec.structs.fields(cls)}


_WIRE: dict[str, dict[str, str]] = {t: _wire_names(c) for t, c in _CLASSES.items()}


def wire(type_: str, attr: str) -> str:
    """The wire name of an attribute of an event type's class."""
    return _WIRE.get(type_, {}).get(attr, attr)


def opener_definition() -> str | None:
    """The definition of the event that opens a run (the first row that begins one)."""
    for rows in _TABLE.values():
        for type_, row in rows.items():
            if any("begin-run" in alt["actions"] for alt in [row, *row.get("cases", ())]):
                return _CLASSES[type_]
    return None


def stream_rules() -> list[str]:
    """The rules a stream can break (the others are checked on an input or a listing). None for
    a protocol of two parties: its conversations are not walked here."""
    if TABLES.get("parties"):
        return []
    return [r for r in RULES if _sites(r)]


# -- JSON documents: paths and expressions -------------------------------------------------------------


def get(doc: Any, path: str) -> Any:
    """The member at a dotted wire path, or ABSENT."""
    for part in path.split("."):
        if type(doc) is not dict or part not in doc:
            return ABSENT
        doc = doc[part]
    return doc


def put(doc: Any, path: str, value: Any) -> bool:
    """Set (or, with ABSENT, remove) the member at a dotted path; False when a parent is
    missing."""
    *parents, last = path.split(".")
    for part in parents:
        if type(doc) is not dict or type(doc.get(part)) is not dict:
            return False
        doc = doc[part]
    if type(doc) is not dict:
        return False
    if value is ABSENT:
        doc.pop(last, None)
    else:
        doc[last] = value
    return True


def collect(doc: Any, path: str) -> list[Any]:
    items = [doc]
    for part in path.split("."):
        nxt: list[Any] = []
        for item in items:
            if type(item) is dict and part in item:
                value = item[part]
                nxt.extend(value if type(value) is list else [value])
        items = nxt
    return items


def evaluate(e: dict[str, Any], doc: Any) -> Any:
    """An expression of the tables on a JSON document: True, False or UNKNOWN (a comparison
    or sum naming an absent member)."""
    op = e["op"]
    if op == "lit":
        return e["value"]
    if op == "field":
        v = get(doc, e["wire"])
        return UNKNOWN if v is ABSENT else v
    if op == "present":
        return get(doc, e["wire"]) is not ABSENT
    if op == "absent":
        return get(doc, e["wire"]) is ABSENT
    if op == "length":
        v = get(doc, e["wire"])
        return UNKNOWN if v is ABSENT else len(v)
    if op == "unique":
        values = [json.dumps(v, sort_keys=True) for v in collect(doc, e["wire"])]
        return len(set(values)) == len(values)
    args = e.get("args", [])
    if op == "not":
        v = evaluate(args[0], doc)
        return v if v is UNKNOWN else not v
    a = evaluate(args[0], doc)
    b = evaluate(args[1], doc)
    if op == "and":
        return False if a is False or b is False else (UNKNOWN if a is UNKNOWN or b is UNKNOWN else True)
    if op == "or":
        return True if a is True or b is True else (UNKNOWN if a is UNKNOWN or b is UNKNOWN else False)
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if op == "add":
        return a + b
    if op == "sub":
        return a - b
    cmp = e["cmp"]
    try:
        if cmp == "in":
            return isinstance(b, list) and any(a == item for item in b)
        if cmp == "==":
            return bool(a == b)
        if cmp == "!=":
            return bool(a != b)
        if cmp == "<":
            return bool(a < b)
        if cmp == "<=":
            return bool(a <= b)
        if cmp == ">":
            return bool(a > b)
        return bool(a >= b)
    except TypeError:
        return UNKNOWN


def _named(e: dict[str, Any]) -> list[str]:
    """The wire paths an expression reads."""
    out = [e["wire"]] if "wire" in e else []
    for arg in e.get("args", []):
        out += _named(arg)
    return out


def _canonical(doc: Any) -> str:
    return json.dumps(doc, sort_keys=True, ensure_ascii=False)


# -- the model ---------------------------------------------------------------------------------------


class Model:
    """What the tables say a stream has done so far, and which rules each next document breaks.

    ``feed_document(doc)`` takes one JSON document as it would arrive (decoded leniently with
    the package's codec, as the automaton decodes it) and returns the IDs of the rules it breaks,
    in the order the automaton reports them; ``finish()`` those the end of the stream breaks."""

    def __init__(self) -> None:
        self.state: str = _MACHINE["initial"]
        self.index = -1
        self.items: dict[str, dict[Any, list[Any]]] = {name: {} for name in _ENTITIES}
        self.past: dict[str, dict[Any, dict[str, Any]]] = {n: {} for n, s in _ENTITIES.items() if s["outlives_run"]}
        self.lanes: dict[Any, list[Any]] = {}
        self.held: dict[str, str] = {}
        self.seen: dict[Any, dict[Any, str]] = {}
        self.latest: dict[Any, Any] = {}
        self.opener: Any = None
        self.runs = 0

    def copy(self) -> Model:
        other = Model.__new__(Model)
        other.state = self.state
        other.index = self.index
        other.items = {n: {k: [r[0], r[1]] for k, r in store.items()} for n, store in self.items.items()}
        other.past = {n: dict(store) for n, store in self.past.items()}
        other.lanes = {k: list(v) for k, v in self.lanes.items()}
        other.held = dict(self.held)
        other.seen = {k: dict(v) for k, v in self.seen.items()}
        other.latest = dict(self.latest)
        other.opener = self.opener
        other.runs = self.runs
        return other

    def adopt(self, other: Model) -> None:
        self.__dict__.update(other.__dict__)

    def state_of(self, entity: str, key: Any) -> str:
        record = self.items[entity].get(key)
        if record is not None:
            return str(record[0])
        past = self.past.get(entity)
        if past is not None and key in past:
            return str(_ENTITIES[entity]["outlives_run"])
        return "absent"

    def remembered(self, entity: str, key: Any) -> dict[str, Any] | None:
        record = self.items[entity].get(key)
        if record is not None:
            return dict(record[1])
        past = self.past.get(entity)
        return None if past is None or key not in past else dict(past[key])

    def open_items(self) -> list[tuple[str, Any]]:
        return [(n, k) for n, store in self.items.items() for k, r in store.items() if r[0] == "open"]

    # -- documents as they arrive -----------------------------------------------------------------

    def feed_document(self, doc: Any) -> list[str]:
        data = msgspec.json.encode(doc)
        try:
            result = _EVENTS.decode_lenient(data)
        except DecodeError:
            self._salvage(doc)
            self.index += 1
            rule = TABLES["decode_error_rule"]
            return [rule] if rule else []
        if result.dropped and _RETIRED:
            translated = self._translate(doc)
            if translated is not None:
                return translated
        if result.dropped and TABLES["unknown_event_rule"]:
            self._salvage(doc)
            self.index += 1
            return [TABLES["unknown_event_rule"]]
        stripped = TABLES["stripped_rule"]
        found = [stripped] * len(result.warnings) if stripped else []
        if result.dropped:
            self._salvage(doc)
            self.index += 1
            return found
        return found + self.feed(codec_json.to_builtins(result.value))

    def _salvage(self, doc: Any) -> None:
        if _SEQ is None:
            return
        value = get(doc, _SEQ["field_wire"])
        key = get(doc, _SEQ["key_wire"])
        if type(value) is not int or not isinstance(key, (str, int)) or isinstance(key, bool):
            return
        seen = self.seen.setdefault(key, {})
        if value not in seen:
            seen[value] = ""
            last = self.latest.get(key)
            if last is None or value > last:
                self.latest[key] = value

    def _translate(self, doc: Any) -> list[str] | None:
        old = doc.get(_DISC) if type(doc) is dict else None
        how = _RETIRED.get(old) if isinstance(old, str) else None
        if how is None:
            return None
        event = {k: v for k, v in doc.items() if k not in how["drop"]}
        event[_DISC] = how["as"]
        for spec in how["set"]:
            name, kind, arg = spec["wire"], spec["how"], spec["value"]
            if kind == "value":
                event[name] = arg
                continue
            held = self.held.get(arg)
            if kind == "new" or held is None:
                held = self.held[arg] = f"{arg}-{self.index + 1}"
            event[name] = held
            if kind == "close":
                del self.held[arg]
        rule = TABLES["retired_rule"]
        found = [rule] if rule else []
        try:
            result = _EVENTS.decode_lenient(msgspec.json.encode(event))
        except DecodeError:
            self._salvage(doc)
            self.index += 1
            decode = TABLES["decode_error_rule"]
            return found + ([decode] if decode else [])
        stripped = TABLES["stripped_rule"]
        found += [stripped] * len(result.warnings) if stripped else []
        if result.dropped:
            self.index += 1
            return found
        return found + self.feed(codec_json.to_builtins(result.value))

    def feed(self, ev: dict[str, Any]) -> list[str]:
        """One decoded event (as JSON): the rules it breaks."""
        out: list[str] = []
        self.index += 1
        type_ = ev[_DISC]
        if _SEQ is not None and not self._in_sequence(ev, out):
            return out
        if self.lanes or type_ in _CHUNK_KINDS:
            for each in self._expand(ev, type_, out):
                self._apply(each, each[_DISC], out)
        else:
            self._apply(ev, type_, out)
        return out

    def finish(self) -> list[str]:
        self.lanes.clear()
        rule = _AT_END.get(self.state)
        return [rule] if rule else []

    # -- the stages ---------------------------------------------------------------------------

    def _in_sequence(self, ev: dict[str, Any], out: list[str]) -> bool:
        spec: dict[str, Any] = _SEQ  # type: ignore[assignment]
        value = get(ev, spec["field_wire"])
        key = get(ev, spec["key_wire"])
        seen = self.seen.setdefault(key, {})
        digest = _canonical(ev)
        if value in seen:
            if seen[value] != digest:
                out.append(spec["conflict"])
            return False
        last = self.latest.get(key)
        expected = spec["start"] if last is None else last + 1
        if value != expected:
            out.append(spec["gap"])
        seen[value] = digest
        if last is None or value > last:
            self.latest[key] = value
        return True

    def _apply(self, ev: dict[str, Any], type_: str, out: list[str]) -> None:
        row = _TABLE[self.state].get(type_)
        if row is None:
            return
        effective = row
        for case in row.get("cases", ()):
            if evaluate(case["when"], ev) is True:
                effective = case
                break
        if effective["fail"]:
            out.append(effective["fail"])
            return
        for req in effective["requires"]:
            self._require(req, ev, None, out)
        for step in _STEPS.get(type_, ()):
            self._step(step, ev, out)
        for check in _CHECKS.get(type_, ()):
            each = check["each"]
            targets = [ev] if each is None else ev.get(wire(type_, each), [])
            for target in targets:
                if evaluate(check["expect"], target) is False:
                    out.append(check["rule"])
        for action in effective["actions"]:
            if action == "begin-run":
                self.opener = ev
                self.runs += 1
            if action in ("begin-run", "end-run"):
                self._clear()
        self.state = effective["target"]

    def _clear(self) -> None:
        for name, store in self.items.items():
            past = self.past.get(name)
            if past is not None:
                for key, record in store.items():
                    past[key] = record[1]
            store.clear()
        self.lanes.clear()
        self.held.clear()

    def key_of(self, step: dict[str, Any], ev: dict[str, Any]) -> Any:
        """The item an entity step keys by this event (ABSENT: the step does not apply)."""
        wires = step["key_wire"]
        if len(wires) == 1:
            return get(ev, wires[0])
        optional = {i for i, path in enumerate(step["key"]) if path in step["optional"]}
        parts = []
        for i, w in enumerate(wires):
            value = get(ev, w)
            if value is ABSENT:
                if i not in optional:
                    return ABSENT
                value = None
            parts.append(value)
        return tuple(parts)

    def _step(self, step: dict[str, Any], ev: dict[str, Any], out: list[str]) -> None:
        key = self.key_of(step, ev)
        if key is ABSENT:
            return
        entity = step["entity"]
        store = self.items[entity]
        record = store.get(key)
        if record is None and entity in self.past:
            established = self.past[entity].get(key)
            if established is not None:
                record = store[key] = [_ENTITIES[entity]["outlives_run"], established]
        row = step["transitions"].get("absent" if record is None else record[0])
        if row is None:
            return
        if row["fail"]:
            out.append(row["fail"])
            return
        for req in row["requires"]:
            self._require(req, ev, record, out)
        if row["target"] is not None:
            if record is None:
                remembered = {}
                for f in step["remember"]:
                    value = ev.get(f["wire"], ABSENT)
                    remembered[f["wire"]] = f["default"] if value is ABSENT else value
                store[key] = [row["target"], remembered]
            else:
                record[0] = row["target"]

    def _require(self, req: dict[str, Any], ev: dict[str, Any], record: list[Any] | None, out: list[str]) -> None:
        kind = req["kind"]
        if kind == "closed":
            for name in req["entities"]:
                if any(r[0] == "open" for r in self.items[name].values()):
                    out.append(req["rule"])
        elif kind == "same":
            opener = ABSENT if self.opener is None else get(self.opener, req["wire"])
            if get(ev, req["wire"]) != opener:
                out.append(req["rule"])
        elif kind in ("agree", "agree-if-present"):
            if record is None:
                return
            for f in req["fields"]:
                value = ev.get(f["wire"], ABSENT)
                if value is ABSENT:
                    if kind == "agree-if-present":
                        continue
                    value = f["default"]
                if value != record[1].get(f["wire"]):
                    out.append(req["rule"])
        else:  # exists / missing
            key = ev.get(req["wire"], ABSENT)
            if key is ABSENT:
                return
            if (key in self.items[req["entity"]]) != (kind == "exists"):
                out.append(req["rule"])

    # -- chunks --------------------------------------------------------------------------------

    def lane_of(self, type_: str, ev: dict[str, Any]) -> Any:
        assert _CHUNKS is not None
        return ev.get(wire(type_, _CHUNKS["lane"]), ABSENT)

    def _expand(self, ev: dict[str, Any], type_: str, out: list[str]) -> list[dict[str, Any]]:
        chunks: dict[str, Any] = _CHUNKS  # type: ignore[assignment]
        kind = _CHUNK_KINDS.get(type_)
        owner = self.lane_of(type_, ev)
        lane = None if owner is ABSENT else owner
        if kind is None:
            res: list[dict[str, Any]] = []
            if type_ in chunks["close_all"]:
                for open_lane in list(self.lanes):
                    res += self._close_lane(open_lane)
            elif type_ in chunks["close_owner"] or type_ in chunks["close_lane"]:
                res += self._close_lane(lane)
            res.append(ev)
            return res
        item_id = ev.get(wire(type_, kind["id"]), ABSENT)
        item = self.lanes.get(lane)
        if item_id is ABSENT:
            if owner is ABSENT:
                open_lanes = [k for k, v in self.lanes.items() if v[0] == type_]
                if None in open_lanes or len(open_lanes) == 1:
                    lane = None if None in open_lanes else open_lanes[0]
                elif len(open_lanes) > 1:
                    out.append(chunks["ambiguous"])
                    return []
                item = self.lanes.get(lane)
            if item is None or item[0] != type_:
                out.append(kind["first_rule"])
                return []
            return self._continue(kind, item, ev, type_, lane, out)
        if item is not None and item[0] == type_ and item[1] == item_id:
            return self._continue(kind, item, ev, type_, lane, out)
        res = self._close_lane(lane)
        if any(ev.get(wire(type_, a), ABSENT) is ABSENT for a in kind["first"]):
            out.append(kind["first_rule"])
            return res
        agreed = {}
        for f in kind["agree"]:
            value = ev.get(f["wire"], ABSENT)
            agreed[f["wire"]] = f["default"] if value is ABSENT else value
        opener = self._make(kind["start"], ev, type_, lane)
        self.lanes[lane] = [type_, item_id, agreed, opener]
        res.append(opener)
        res += self._content(kind, ev, type_, lane)
        return res

    def _make(self, part: dict[str, Any], source: dict[str, Any], source_type: str, lane: Any,
              extra: dict[str, Any] | None = None) -> dict[str, Any]:
        target = part["type"]
        doc: dict[str, Any] = {_DISC: target}
        for attr in part["copy"]:
            value = source.get(wire(source_type, attr), ABSENT)
            if value is not ABSENT:
                doc[wire(target, attr)] = value
        for attr, value in part["fixed"].items():
            doc[wire(target, attr)] = value
        for attr, value in (extra or {}).items():
            doc[wire(target, attr)] = value
        if lane is not None:
            doc[wire(target, _CHUNKS["lane"])] = lane  # type: ignore[index]
        return doc

    def _close_lane(self, lane: Any) -> list[dict[str, Any]]:
        item = self.lanes.pop(lane, None)
        if item is None:
            return []
        kind = _CHUNK_KINDS[item[0]]
        opener = item[3]
        return [self._make(kind["end"], opener, opener[_DISC], lane)]

    def _continue(self, kind: dict[str, Any], item: list[Any], ev: dict[str, Any], type_: str, lane: Any,
                  out: list[str]) -> list[dict[str, Any]]:
        for f in kind["agree"]:
            value = ev.get(f["wire"], ABSENT)
            if value is not ABSENT and item[2][f["wire"]] is not None and value != item[2][f["wire"]]:
                out.append(kind["agree_rule"])
                return []
        opener = item[3]
        carried = [a for a in kind["content"]["copy"] if a != kind["id"]]
        if not carried or all(ev.get(wire(type_, a), ABSENT) is ABSENT for a in carried):
            return []
        extra = {kind["id"]: opener[wire(opener[_DISC], kind["id"])]}
        return [self._make(kind["content"], ev, type_, lane, extra)]

    def _content(self, kind: dict[str, Any], ev: dict[str, Any], type_: str, lane: Any) -> list[dict[str, Any]]:
        carried = [a for a in kind["content"]["copy"] if a != kind["id"]]
        if not carried or all(ev.get(wire(type_, a), ABSENT) is ABSENT for a in carried):
            return []
        extra = {kind["id"]: ev[wire(type_, kind["id"])]}
        return [self._make(kind["content"], ev, type_, lane, extra)]


# -- where each rule is decided -----------------------------------------------------------------------


def _sites(rule: str) -> list[tuple[Any, ...]]:
    """Every place in the tables where ``rule`` can be broken by a stream."""
    found = _SITES.get(rule)
    if found is None:
        found = _SITES[rule] = _find_sites(rule)
    return found


_SITES: dict[str, list[tuple[Any, ...]]] = {}


def _find_sites(rule: str) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for state, rows in _TABLE.items():
        for type_, row in sorted(rows.items()):
            for n, alt in enumerate([row, *row.get("cases", ())]):
                case = None if n == 0 else n - 1
                if alt["fail"] == rule:
                    out.append(("row", state, type_, case))
                for req in alt["fail"] is None and alt["requires"] or ():
                    if req["rule"] == rule:
                        out.append(("require", state, type_, case, req))
    for state, at_end in _AT_END.items():
        if at_end == rule:
            out.append(("end", state))
    for type_, steps in _STEPS.items():
        for i, step in enumerate(steps):
            for source, row in step["transitions"].items():
                if row["fail"] == rule:
                    out.append(("entity", type_, i, source))
                for req in row["requires"]:
                    if req["rule"] == rule and not row["fail"]:
                        out.append(("entity-require", type_, i, source, req))
    for type_, checks in _CHECKS.items():
        for i, check in enumerate(checks):
            if check["rule"] == rule:
                out.append(("check", type_, i))
    for type_, kind in _CHUNK_KINDS.items():
        if kind["first_rule"] == rule:
            out.append(("chunk-first", type_))
        if kind["agree_rule"] == rule and kind["agree"]:
            out.append(("chunk-agree", type_))
    if _CHUNKS is not None and _CHUNKS["ambiguous"] == rule:
        out += [("chunk-ambiguous", t) for t in _CHUNK_KINDS]
    if _SEQ is not None and _SEQ["gap"] == rule:
        out.append(("sequence-gap",))
    if _SEQ is not None and _SEQ["conflict"] == rule:
        out.append(("sequence-conflict",))
    if TABLES["decode_error_rule"] == rule:
        out.append(("decode",))
    if TABLES["stripped_rule"] == rule:
        out.append(("stripped",))
    if TABLES["retired_rule"] == rule:
        out += [("retired", old) for old in _RETIRED]
    return out


# -- the machine's graph ------------------------------------------------------------------------------


def _edges() -> dict[str, list[tuple[str, str, int | None]]]:
    """state -> [(event type, next state, case)] for every move the machine allows."""
    out: dict[str, list[tuple[str, str, int | None]]] = {s: [] for s in _TABLE}
    for state, rows in _TABLE.items():
        for type_, row in sorted(rows.items()):
            for n, alt in enumerate([row, *row.get("cases", ())]):
                if alt["fail"] is None and alt["target"] is not None:
                    out[state].append((type_, alt["target"], None if n == 0 else n - 1))
    return out


_EDGES = _edges()


def _distances(targets: set[str]) -> dict[str, int]:
    """How many moves each state is from one of ``targets``."""
    dist = {t: 0 for t in targets if t in _TABLE}
    todo = deque(dist)
    while todo:
        state = todo.popleft()
        for source, moves in _EDGES.items():
            if source not in dist and any(nxt == state for _, nxt, _ in moves):
                dist[source] = dist[state] + 1
                todo.append(source)
    return dist


_ACCEPTING = {s for s in _TABLE if s not in _AT_END}
_TO_ACCEPT = _distances(_ACCEPTING)


def _begins(type_: str, state: str) -> bool:
    row = _TABLE[state].get(type_)
    if not row:
        return False
    return any("begin-run" in alt["actions"] for alt in [row, *row.get("cases", ())])


def _ends(type_: str, state: str) -> bool:
    row = _TABLE[state].get(type_)
    if not row:
        return False
    return any("end-run" in alt["actions"] for alt in [row, *row.get("cases", ())])


def _allowed(type_: str, state: str) -> bool:
    row = _TABLE[state].get(type_)
    return row is not None and any(alt["fail"] is None for alt in [row, *row.get("cases", ())])


def _start_type(type_: str) -> str:
    kind = _CHUNK_KINDS.get(type_)
    return str(kind["start"]["type"]) if kind else type_


# -- streams -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stream:
    """A generated stream: its documents (JSON values, one per event, in order), the rule it
    breaks (None: conformant), and the rules a conforming automaton reports on it, in order
    (the end of the stream last); ``seed`` and ``max_events``, when it came from a seed, make
    it again (``strategies.stream(seed=..., max_events=...)``)."""

    documents: tuple[Any, ...]
    rule: str | None
    findings: tuple[str, ...]
    seed: int | None = None
    max_events: int | None = None

    def replace(self, **changes: Any) -> Stream:
        return dataclasses.replace(self, **changes)

    def jsonl(self) -> bytes:
        """The stream as JSON Lines."""
        return b"".join(msgspec.json.encode(d) + b"\n" for d in self.documents)


class Walker:
    """Generates streams, every choice from ``source``. ``max_events``: the length the random
    part of a walk aims at (closing what is open may add more); ``max_runs``: how many runs
    (openers) a stream may have, None for any number; ``opener``: wire members every run opener
    carries (an input's thread and run ids, say); ``owners``: whether events may be attributed
    (the rules' ``owner`` member, a subagent's run id); ``documents``: the Documents the events
    are drawn with."""

    def __init__(
        self,
        source: Source,
        *,
        max_events: int = 30,
        max_runs: int | None = None,
        opener: dict[str, Any] | None = None,
        documents: Documents | None = None,
        attempts: int = 25,
        owners: bool = True,
    ) -> None:
        if TABLES.get("parties"):
            raise GenerationError(
                "streams of a protocol of two parties are not generated: the walk knows one-way "
                "streams only (the package's generated tests drive every machine row by conversations "
                "of their own, tests/test_automaton.py)"
            )
        self.source = source
        self.max_events = max(1, max_events)
        self.max_runs = max_runs
        self.opener_fields = dict(opener or {})
        self.docs = documents or Documents(source, max_depth=3, max_items=2, max_text=10, optional=0.4, extras=0.1)
        self.attempts = attempts
        self.owners = owners
        self._fresh = 0

    # -- public -----------------------------------------------------------------------------------

    def conformant(self) -> Stream:
        """A stream the automaton accepts without a single finding, ending where a stream may
        end."""
        s = self.source
        for _ in range(self.attempts):
            model = Model()
            out: list[Any] = []
            length = s.integer(1, self.max_events)
            self._walk(model, out, length)
            if out and self._wind_down(model, out) and not model.finish():
                return Stream(tuple(out), None, (), max_events=self.max_events)
        raise GenerationError("no conformant stream was found within the attempts allowed")

    def violating(self, rule: str) -> Stream:
        """A stream that breaks ``rule`` and nothing else (its findings are all of ``rule``)."""
        if rule not in RULES:
            raise ValueError(f"unknown rule {rule!r}")
        sites = _sites(rule)
        if not sites:
            raise GenerationError(f"{rule} is not decided on a stream (it is checked on an input or a listing)")
        s = self.source
        for attempt in range(self.attempts * 2):
            model = Model()
            out: list[Any] = []
            site = choice(s, sites)
            # the prefix never leaves the states from which the site's state can be reached
            keep = set(_distances({site[1]})) if site[0] in ("row", "require", "end") else None
            self._walk(model, out, s.integer(0, max(0, self.max_events // 2)), keep)
            # without owners, a rule about owners is broken (and its stream closed) by attributed
            # events all the same: the later attempts allow them from the breaking move on
            background = self.owners
            self.owners = background or attempt >= self.attempts
            ended = False
            try:
                broken = self._break(model, out, site, rule)
                if broken is not None and site[0] != "end":
                    ended = self._wind_down(model, out) and not model.finish()
            finally:
                self.owners = background
            if broken is None:
                continue
            if site[0] == "end":
                end = model.finish()
                if end and all(r == rule for r in end):
                    return Stream(tuple(out), rule, tuple(broken + end), max_events=self.max_events)
                continue
            if ended:
                return Stream(tuple(out), rule, tuple(broken), max_events=self.max_events)
        raise GenerationError(f"no stream breaking only {rule} was found within the attempts allowed")

    # -- moves -----------------------------------------------------------------------------------

    def _try(self, model: Model, out: list[Any], doc: Any, expect: Callable[[list[str]], bool] | None = None) -> list[str] | None:
        """Feed ``doc`` to a copy of the model: adopt it (and keep the document) when the
        findings are what ``expect`` accepts (default: none)."""
        trial = model.copy()
        found = trial.feed_document(doc)
        if (expect(found) if expect is not None else not found):
            model.adopt(trial)
            out.append(doc)
            return found
        return None

    def _types(self, model: Model, walking: bool) -> list[tuple[str, int]]:
        """The event types worth proposing in the model's state, weighted."""
        state = model.state
        out: list[tuple[str, int]] = []
        for type_ in _TABLE[state]:
            if not _allowed(type_, state):
                continue
            if _begins(type_, state) and self.max_runs is not None and model.runs >= self.max_runs:
                continue
            weight = 4 if _STEPS.get(type_) else 2
            if _begins(type_, state):
                weight = 6
            elif walking and _ends(type_, state):
                weight = 1
            out.append((type_, weight))
        for type_ in _CHUNK_KINDS:
            start = _start_type(type_)
            if _allowed(start, state) and not _begins(start, state):
                out.append((type_, 3))
        return out

    def _weighted(self, items: list[tuple[Any, int]]) -> Any:
        total = sum(w for _, w in items)
        pick = self.source.integer(0, total - 1)
        for item, weight in items:
            if pick < weight:
                return item
            pick -= weight
        return items[-1][0]

    def _walk(self, model: Model, out: list[Any], length: int, keep: set[str] | None = None) -> None:
        misses = 0
        while len(out) < length and misses < 6:
            if self.max_runs is not None and model.runs >= self.max_runs and model.state in _ACCEPTING:
                return  # the last run has ended
            types = self._types(model, walking=True)
            if not types:
                return
            type_ = self._weighted(types)
            doc = self.propose(model, type_)
            if doc is not None and keep is not None:
                trial = model.copy()
                if trial.feed_document(doc) or trial.state not in keep:
                    doc = None
            if doc is not None and self._try(model, out, doc) is not None:
                misses = 0
            else:
                misses += 1

    def _wind_down(self, model: Model, out: list[Any], budget: int = 60) -> bool:
        """Close what is open and walk the machine to a state a stream may end in."""
        for _ in range(budget):
            if model.state in _ACCEPTING:
                return True
            if self._close_one(model, out):
                continue
            if not self._toward(model, out, _TO_ACCEPT):
                return False
        return model.state in _ACCEPTING

    def _close_one(self, model: Model, out: list[Any]) -> bool:
        """One move closing an open item (held by no chunk lane), when one can be made."""
        held = {lane[1] for lane in model.lanes.values()}
        candidates = [(e, k) for e, k in model.open_items() if k not in held]
        if not candidates:
            return False
        for _ in range(3):
            entity, key = choice(self.source, candidates)
            closers = [
                (t, i)
                for t, steps in _STEPS.items()
                for i, st in enumerate(steps)
                if st["entity"] == entity and _allowed(t, model.state)
                and (row := st["transitions"].get("open")) is not None and not row["fail"]
                and row["target"] not in (None, "open")
            ]
            if not closers:
                return False
            type_, index = choice(self.source, closers)
            doc = self.propose(model, type_, keys={index: key})
            if doc is not None and self._try(model, out, doc) is not None:
                return True
        return False

    def _toward(self, model: Model, out: list[Any], dist: dict[str, int]) -> bool:
        """One move that brings the machine closer to the states ``dist`` measures from."""
        here = dist.get(model.state)
        if here is None:
            return False
        moves = [(t, nxt, case) for t, nxt, case in _EDGES[model.state] if dist.get(nxt, 1 << 20) < here]
        if self.max_runs is not None and model.runs >= self.max_runs:
            moves = [m for m in moves if not _begins(m[0], model.state)]
        for _ in range(4 * max(1, len(moves))):
            if not moves:
                return False
            type_, nxt, case = choice(self.source, moves)
            doc = self.propose(model, type_, case=case)
            if doc is not None and self._try(model, out, doc) is not None:
                return True
        return False

    def _reach(self, model: Model, out: list[Any], ok: Callable[[str], bool], budget: int = 30) -> bool:
        """Walk the machine (conformantly) to a state for which ``ok`` holds."""
        dist = _distances({s for s in _TABLE if ok(s)})
        for _ in range(budget):
            if ok(model.state):
                return True
            if self._close_one(model, out):
                continue
            if not self._toward(model, out, dist):
                return False
        return ok(model.state)

    # -- one event ---------------------------------------------------------------------------------

    def fresh(self, type_: str, path: str) -> Any:
        """A new value for a member (an id no item has), valid where it stands."""
        self._fresh += 1
        node = _node(_CLASSES.get(type_, type_), path)
        if node is not None and node.get("kind") == "string" and "pattern" not in node and not node.get("max_length"):
            return f"{path.rsplit('.', 1)[-1]}-{self._fresh}-{self.source.text(0, 3)}"
        if node is None:
            return f"x-{self._fresh}"
        return self.docs.value(node, 1)

    def propose(self, model: Model, type_: str, keys: dict[int, Any] | None = None, case: int | None = None,
                skip: Any = None) -> Any:
        """A document of ``type_`` the model should accept: its items chosen (``keys``: step
        index -> the key to use), every requirement and check met (but ``skip``, the one a
        violation leaves broken). None when no such document was made."""
        if type_ in _CHUNK_KINDS:
            return self._chunk(model, type_)
        doc = self.docs.document(_CLASSES[type_])
        if not isinstance(doc, dict):
            return None
        state = model.state
        if _begins(type_, state):
            for name, value in self.opener_fields.items():
                if name in _WIRE.get(type_, {}).values():
                    doc[name] = value
        else:
            self._pin(model, type_, doc)
        row = _TABLE[state].get(type_)
        if row is None:
            return None
        if case is not None:
            _make_hold(row["cases"][case]["when"], doc, self, type_)
        assigned: set[str] = set()
        for i, step in enumerate(_STEPS.get(type_, ())):
            self._key(model, type_, step, doc, assigned, None if keys is None else keys.get(i, ABSENT))
        effective = row
        for alt in row.get("cases", ()):
            if evaluate(alt["when"], doc) is True:
                effective = alt
                break
        for req in effective["requires"] if not effective["fail"] else ():
            if req is not skip:
                self._meet(model, type_, req, doc, None)
        for step in _STEPS.get(type_, ()):
            key = model.key_of(step, doc)
            if key is ABSENT:
                continue
            transition = step["transitions"].get(model.state_of(step["entity"], key))
            if transition is None or transition["fail"]:
                continue
            for req in transition["requires"]:
                if req is not skip:
                    self._meet(model, type_, req, doc, model.remembered(step["entity"], key))
        for check in _CHECKS.get(type_, ()):
            if check is skip:
                continue
            if not self._hold(check, doc, type_):
                return None
        self._unattributed(type_, doc)
        self._sequence(model, doc)
        return doc if _EVENTS.accepts(msgspec.json.encode(doc)) else None

    def _unattributed(self, type_: str, doc: dict[str, Any]) -> None:
        """Without owners, an event is nobody's: its owner member goes (an event that needs one,
        a subagent's own, then does not validate and is not proposed)."""
        owner = TABLES["owner"]
        if not self.owners and owner:
            doc.pop(wire(type_, owner), None)

    def _pin(self, model: Model, type_: str, doc: dict[str, Any]) -> None:
        """The run's identity (and the sequence's key) as the opener gave them."""
        if model.opener is None:
            return
        pinned = []
        identity = _MACHINE.get("identity")
        if identity and len(identity) == 1:
            pinned.append(wire(model.opener[_DISC], identity[0]))
        if _SEQ is not None:
            pinned.append(_SEQ["key_wire"])
        names = _WIRE.get(type_, {}).values()
        for w in pinned:
            value = get(model.opener, w)
            if w in names and value is not ABSENT and w in doc:
                doc[w] = value

    def _sequence(self, model: Model, doc: dict[str, Any]) -> None:
        if _SEQ is None:
            return
        key = get(doc, _SEQ["key_wire"])
        last = model.latest.get(key)
        put(doc, _SEQ["field_wire"], _SEQ["start"] if last is None else last + 1)

    def _key(self, model: Model, type_: str, step: dict[str, Any], doc: dict[str, Any], assigned: set[str], forced: Any) -> None:
        """Choose the item an entity step acts on: one tracked (in a state the step can move
        from), or a new one."""
        wires = step["key_wire"]
        if any(w in assigned for w in wires) and forced in (None, ABSENT):
            return
        entity = step["entity"]
        transitions = step["transitions"]
        if forced not in (None, ABSENT):
            key = forced
        else:
            known = list(model.items[entity]) + [k for k in model.past.get(entity, {}) if k not in model.items[entity]]
            if len(wires) == 1:  # values other entities key by the same member
                for other, spec in _ENTITIES.items():
                    if other != entity and spec["key_wire"] == wires:
                        known += [k for k in model.items[other] if k not in known]
            usable = []
            for k in known:
                row = transitions.get(model.state_of(entity, k))
                if row is None or not row["fail"]:
                    usable.append(k)
            fresh_ok = not (transitions.get("absent") or {}).get("fail")
            if usable and (not fresh_ok or self.source.boolean(0.65)):
                key = choice(self.source, usable)
            elif fresh_ok:
                current = model.key_of(step, doc)
                if current is ABSENT or current in model.items[entity] or (entity in model.past and current in model.past[entity]):
                    if len(wires) == 1 and current is ABSENT:
                        return  # the event leaves its key out: the step does not apply
                    key = tuple(self.fresh(type_, w) for w in wires) if len(wires) > 1 else self.fresh(type_, wires[0])
                else:
                    key = current
            else:
                return
        parts = key if len(wires) > 1 else (key,)
        for w, part in zip(wires, parts):
            put(doc, w, ABSENT if part is None else part)
            assigned.add(w)

    def _meet(self, model: Model, type_: str, req: dict[str, Any], doc: dict[str, Any], remembered: dict[str, Any] | None) -> None:
        """Make the document meet one requirement, where editing it can."""
        kind = req["kind"]
        if kind == "same":
            value = ABSENT if model.opener is None else get(model.opener, req["wire"])
            put(doc, req["wire"], value)
        elif kind in ("agree", "agree-if-present"):
            if remembered is None:
                return
            for f in req["fields"]:
                expected = remembered.get(f["wire"])
                if kind == "agree-if-present" and (f["wire"] not in doc or self.source.boolean(0.3)):
                    doc.pop(f["wire"], None)
                    continue
                if expected is None or (expected == f["default"] and self.source.boolean(0.5)):
                    doc.pop(f["wire"], None)
                else:
                    doc[f["wire"]] = expected
        elif kind == "exists":
            if req["wire"] in doc:
                known = list(model.items[req["entity"]])
                if known and self.source.boolean(0.7):
                    doc[req["wire"]] = choice(self.source, known)
                else:
                    doc.pop(req["wire"], None)
        elif kind == "missing":
            if doc.get(req["wire"], ABSENT) in model.items[req["entity"]]:
                doc[req["wire"]] = self.fresh(type_, req["wire"])

    def _hold(self, check: dict[str, Any], doc: dict[str, Any], type_: str) -> bool:
        """Make a check hold on the document (on each item, for `each`)."""
        each = check["each"]
        targets = [doc] if each is None else doc.get(wire(type_, each), [])
        definition = _CLASSES[type_] if each is None else _item_definition(type_, wire(type_, each))
        for target in targets:
            if evaluate(check["expect"], target) is False:
                _fix(check["expect"], target, True, self, definition)
            if evaluate(check["expect"], target) is False:
                for path in _named(check["expect"]):
                    if _optional(definition, path):
                        put(target, path, ABSENT)
                        if evaluate(check["expect"], target) is not False:
                            break
            if evaluate(check["expect"], target) is False:
                return False
        return True

    # -- chunks ----------------------------------------------------------------------------------

    def _chunk(self, model: Model, type_: str) -> Any:
        """A chunk event: continuing an open item of its kind, or starting one."""
        kind = _CHUNK_KINDS[type_]
        doc = self.docs.document(_CLASSES[type_])
        lane_w = wire(type_, _CHUNKS["lane"])  # type: ignore[index]
        id_w = wire(type_, kind["id"])
        lanes = [(lane, item) for lane, item in model.lanes.items() if item[0] == type_]
        if lanes and self.source.boolean(0.7):
            lane, item = choice(self.source, lanes)
            put(doc, lane_w, ABSENT if lane is None else lane)
            if self.source.boolean(0.5):
                doc[id_w] = item[1]
            else:
                doc.pop(id_w, None)
                if len(lanes) == 1 and lane is not None and self.source.boolean(0.5):
                    doc.pop(lane_w, None)
            for f in kind["agree"]:
                if self.source.boolean(0.5) or item[2][f["wire"]] is None:
                    doc.pop(f["wire"], None)
                else:
                    doc[f["wire"]] = item[2][f["wire"]]
        else:
            # owners the stream already knows: open lanes, and items keyed by the lane's member
            owners = [lane for lane in model.lanes if lane is not None]
            for name, spec in _ENTITIES.items():
                if spec["key_wire"] == [lane_w]:
                    owners += [k for k in model.items[name] if k not in owners]
            if owners and self.source.boolean(0.3):
                doc[lane_w] = choice(self.source, owners)
            elif self.source.boolean(0.6):
                doc.pop(lane_w, None)
            doc[id_w] = self.fresh(type_, id_w)
            for attr in kind["first"]:
                w = wire(type_, attr)
                if w not in doc:
                    doc[w] = self.fresh(type_, w)
        self._unattributed(type_, doc)
        return doc if _EVENTS.accepts(msgspec.json.encode(doc)) else None

    # -- breaking one rule -----------------------------------------------------------------------

    def _break(self, model: Model, out: list[Any], site: tuple[Any, ...], rule: str) -> list[str] | None:
        """Steer to where ``site`` decides ``rule`` and make the one move that breaks it; the
        findings of that move (all of ``rule``), or None."""
        def only(found: list[str]) -> bool:
            return bool(found) and all(r == rule for r in found)

        kind = site[0]
        if kind == "row":
            _, state, type_, case = site
            if not self._reach(model, out, lambda s: s == state):
                return None
            for _ in range(6):
                doc = self._base(model, type_, case)
                if doc is not None and (found := self._try(model, out, doc, only)) is not None:
                    return found
            return None
        if kind == "end":
            return [] if self._reach(model, out, lambda s: s == site[1]) else None
        if kind == "require":
            return self._break_require(model, out, site, only)
        if kind in ("entity", "entity-require"):
            return self._break_entity(model, out, site, only)
        if kind == "check":
            return self._break_check(model, out, site, only)
        if kind.startswith("chunk-"):
            return self._break_chunk(model, out, site, only)
        if kind.startswith("sequence-"):
            return self._break_sequence(model, out, kind, only)
        if kind in ("decode", "stripped"):
            return self._break_document(model, out, kind, only)
        if kind == "retired":
            return self._break_retired(model, out, site[1], only)
        return None

    def _base(self, model: Model, type_: str, case: int | None) -> Any:
        """A valid document of a type, keyed and numbered as the stream expects, whatever its
        row says (for a forbidden one)."""
        doc = self.docs.document(_CLASSES[type_])
        if not isinstance(doc, dict):
            return None
        self._pin(model, type_, doc)
        row = _TABLE[model.state].get(type_)
        if case is not None and row is not None:
            _make_hold(row["cases"][case]["when"], doc, self, type_)
        self._unattributed(type_, doc)
        self._sequence(model, doc)
        return doc if _EVENTS.accepts(msgspec.json.encode(doc)) else None

    def _allowing(self, model: Model, out: list[Any], type_: str) -> bool:
        return self._reach(model, out, lambda s: _allowed(type_, s))

    def _break_require(self, model: Model, out: list[Any], site: tuple[Any, ...], only: Callable[[list[str]], bool]) -> list[str] | None:
        _, state, type_, case, req = site
        if not self._reach(model, out, lambda s: s == state):
            return None
        if req["kind"] == "closed":
            entity = choice(self.source, req["entities"])
            if self._make_item(model, out, entity, "open", stay=state) is None:
                return None
        for _ in range(6):
            doc = self.propose(model, type_, case=case, skip=req)
            if doc is None:
                continue
            if req["kind"] == "same":
                value = ABSENT if model.opener is None else get(model.opener, req["wire"])
                other = self.fresh(type_, req["wire"])
                if other == value or not put(doc, req["wire"], other):
                    continue
                self._sequence(model, doc)
            if (found := self._try(model, out, doc, only)) is not None:
                return found
        return None

    def _make_item(self, model: Model, out: list[Any], entity: str, target: str, stay: str | None = None) -> Any:
        """Bring a new item of ``entity`` to state ``target`` with conformant moves; its key."""
        path = _entity_path(entity, target)
        if path is None:
            return None
        key: Any = None
        for type_, index in path:
            if stay is not None and model.state != stay:
                return None
            if not _allowed(type_, model.state):
                if stay is not None or not self._reach(model, out, lambda s: _allowed(type_, s) and not _begins(type_, s)):
                    return None
            step = _STEPS[type_][index]
            if key is None:
                key = tuple(self.fresh(type_, w) for w in step["key_wire"]) if len(step["key_wire"]) > 1 else self.fresh(type_, step["key_wire"][0])
            for _ in range(6):
                doc = self.propose(model, type_, keys={index: key})
                if doc is not None and model.key_of(step, doc) == key and self._try(model, out, doc) is not None:
                    break
            else:
                return None
        return key if model.state_of(entity, key) == target else None

    def _break_entity(self, model: Model, out: list[Any], site: tuple[Any, ...], only: Callable[[list[str]], bool]) -> list[str] | None:
        type_, index, source = site[1], site[2], site[3]
        req = site[4] if site[0] == "entity-require" else None
        step = _STEPS[type_][index]
        entity = step["entity"]
        if not self._reach(model, out, lambda s: _allowed(type_, s) and not _begins(type_, s)):
            return None
        if source == "absent":
            key: Any = tuple(self.fresh(type_, w) for w in step["key_wire"]) if len(step["key_wire"]) > 1 else self.fresh(type_, step["key_wire"][0])
        else:
            key = self._make_item(model, out, entity, source)
            if key is None:
                key = self._existing(model, entity, source)
            if key is None:
                return None
        if req is not None and req["kind"] == "missing":
            made = self._make_item(model, out, req["entity"], _entity_states(req["entity"])[0])
            if made is None:
                return None
        if not _allowed(type_, model.state) or _begins(type_, model.state):
            if not self._reach(model, out, lambda s: _allowed(type_, s) and not _begins(type_, s)):
                return None
        if source != "absent" and model.state_of(entity, key) != source:
            return None
        for _ in range(8):
            doc = self.propose(model, type_, keys={index: key}, skip=req)
            if doc is None or model.key_of(step, doc) != key:
                continue
            if req is not None and not self._spoil(model, type_, req, doc, entity, key):
                continue
            self._sequence(model, doc)
            if (found := self._try(model, out, doc, only)) is not None:
                return found
        return None

    def _existing(self, model: Model, entity: str, state: str) -> Any:
        keys = [k for k in list(model.items[entity]) + list(model.past.get(entity, {})) if model.state_of(entity, k) == state]
        return choice(self.source, keys) if keys else None

    def _spoil(self, model: Model, type_: str, req: dict[str, Any], doc: dict[str, Any], entity: str, key: Any) -> bool:
        """Make the document fail one entity requirement (and only that)."""
        kind = req["kind"]
        if kind in ("agree", "agree-if-present"):
            remembered = model.remembered(entity, key) or {}
            f = choice(self.source, req["fields"])
            expected = remembered.get(f["wire"])
            for _ in range(5):
                other = self.fresh(type_, f["wire"])
                if other != expected and other != f["default"] or (expected is not None and other != expected):
                    return put(doc, f["wire"], other) and _EVENTS.accepts(msgspec.json.encode(doc))
            return False
        if kind == "exists":
            return put(doc, req["wire"], self.fresh(type_, req["wire"]))
        if kind == "missing":
            known = list(model.items[req["entity"]])
            return bool(known) and put(doc, req["wire"], choice(self.source, known))
        return False

    def _break_check(self, model: Model, out: list[Any], site: tuple[Any, ...], only: Callable[[list[str]], bool]) -> list[str] | None:
        _, type_, index = site
        check = _CHECKS[type_][index]
        if not self._allowing(model, out, type_):
            return None
        for _ in range(10):
            if model.state not in _TABLE or not _allowed(type_, model.state):
                return None
            if _ends(type_, model.state):
                while self._close_one(model, out):
                    pass
            doc = self.propose(model, type_)
            if doc is None:
                continue
            each = check["each"]
            definition = _CLASSES[type_] if each is None else _item_definition(type_, wire(type_, each))
            if each is None:
                target = doc
            else:
                items = doc.get(wire(type_, each))
                if not items:
                    node = _node(_CLASSES[type_], wire(type_, each))
                    if node is None or node.get("kind") != "array":
                        continue
                    doc[wire(type_, each)] = items = [self.docs.value(node["items"], 2)]
                target = choice(self.source, items)
            _fix(check["expect"], target, False, self, definition)
            if evaluate(check["expect"], target) is not False:
                continue
            if not _EVENTS.accepts(msgspec.json.encode(doc)):
                continue
            if (found := self._try(model, out, doc, only)) is not None:
                return found
        return None

    def _break_chunk(self, model: Model, out: list[Any], site: tuple[Any, ...], only: Callable[[list[str]], bool]) -> list[str] | None:
        kind_name, type_ = site
        kind = _CHUNK_KINDS[type_]
        start = _start_type(type_)
        if not self._reach(model, out, lambda s: _allowed(start, s) and not _begins(start, s)):
            return None
        lane_w = wire(type_, _CHUNKS["lane"])  # type: ignore[index]
        id_w = wire(type_, kind["id"])
        for _ in range(8):
            if kind_name == "chunk-first":
                doc = self.docs.document(_CLASSES[type_])
                missing = choice(self.source, kind["first"])
                doc.pop(wire(type_, missing), None)
                if missing == kind["id"]:
                    doc[lane_w] = self.fresh(type_, lane_w)
                else:
                    doc[id_w] = self.fresh(type_, id_w)
            elif kind_name == "chunk-agree":
                opened = self._chunk_open(model, out, type_, None)
                if opened is None:
                    return None
                lane, item = opened
                doc = self.docs.document(_CLASSES[type_])
                put(doc, lane_w, ABSENT if lane is None else lane)
                doc[id_w] = item[1]
                f = choice(self.source, kind["agree"])
                other = self.fresh(type_, f["wire"])
                if other == item[2][f["wire"]]:
                    continue
                doc[f["wire"]] = other
            else:  # ambiguous: two lanes open with this kind, a continuation naming neither
                for _ in range(2 - sum(1 for key, v in model.lanes.items() if v[0] == type_ and key is not None)):
                    if self._chunk_open(model, out, type_, self.fresh(type_, lane_w)) is None:
                        return None
                if model.lanes.get(None, [None])[0] == type_:
                    return None
                doc = self.docs.document(_CLASSES[type_])
                doc.pop(id_w, None)
                doc.pop(lane_w, None)
            self._pin(model, type_, doc)
            self._sequence(model, doc)
            if not _EVENTS.accepts(msgspec.json.encode(doc)):
                continue
            if (found := self._try(model, out, doc, only)) is not None:
                return found
        return None

    def _chunk_open(self, model: Model, out: list[Any], type_: str, lane: Any) -> tuple[Any, list[Any]] | None:
        """An open chunk item of this kind in ``lane`` (None: the untagged lane), opening one
        when needed."""
        item = model.lanes.get(lane)
        if item is not None and item[0] == type_:
            return lane, item
        kind = _CHUNK_KINDS[type_]
        lane_w = wire(type_, _CHUNKS["lane"])  # type: ignore[index]
        for _ in range(6):
            doc = self.docs.document(_CLASSES[type_])
            put(doc, lane_w, ABSENT if lane is None else lane)
            doc[wire(type_, kind["id"])] = self.fresh(type_, wire(type_, kind["id"]))
            for attr in kind["first"]:
                w = wire(type_, attr)
                if w not in doc:
                    doc[w] = self.fresh(type_, w)
            for f in kind["agree"]:
                if f["wire"] not in doc and f["default"] is None:
                    doc[f["wire"]] = self.fresh(type_, f["wire"])
            self._pin(model, type_, doc)
            self._sequence(model, doc)
            if _EVENTS.accepts(msgspec.json.encode(doc)) and self._try(model, out, doc) is not None:
                item = model.lanes.get(lane)
                if item is not None and item[0] == type_:
                    return lane, item
        return None

    def _break_sequence(self, model: Model, out: list[Any], kind: str, only: Callable[[list[str]], bool]) -> list[str] | None:
        spec: dict[str, Any] = _SEQ  # type: ignore[assignment]
        for _ in range(8):
            types = self._types(model, walking=True)
            if not types:
                return None
            type_ = self._weighted(types)
            doc = self.propose(model, type_)
            if doc is None:
                continue
            key = get(doc, spec["key_wire"])
            if kind == "sequence-gap":
                last = model.latest.get(key)
                put(doc, spec["field_wire"], (spec["start"] if last is None else last + 1) + self.source.integer(1, 3))
            else:
                taken = [v for v, digest in model.seen.get(key, {}).items() if digest]
                if not taken:
                    if self._try(model, out, doc) is None:
                        continue
                    continue
                put(doc, spec["field_wire"], choice(self.source, taken))
            if not _EVENTS.accepts(msgspec.json.encode(doc)):
                continue
            if (found := self._try(model, out, doc, only)) is not None:
                return found
        return None

    def _break_document(self, model: Model, out: list[Any], kind: str, only: Callable[[list[str]], bool]) -> list[str] | None:
        from .docgen import mutate

        keep = {_DISC}
        if _SEQ is not None:
            keep |= {_SEQ["field_wire"], _SEQ["key_wire"]}
        for _ in range(12):
            types = self._types(model, walking=True)
            if not types:
                return None
            type_ = self._weighted(types)
            doc = self.propose(model, type_)
            if doc is None:
                continue
            if kind == "stripped":
                if _closed(_CLASSES[type_]) is None or self.source.boolean(0.2):
                    # an open event keeps what it does not declare: a whole event of a type
                    # this version does not know is what lenient decoding strips then
                    doc[_DISC] = f"specbind.unknown-{self.source.integer(0, 9)}"
                else:
                    doc[self.docs.member_name(set(doc) | set(_WIRE.get(type_, {}).values()))] = self.docs.any(1)
            else:
                for _ in range(10):
                    spoilt = mutate(doc, self.source)
                    if type(spoilt) is dict and all(spoilt.get(k, ABSENT) == doc.get(k, ABSENT) for k in keep):
                        try:
                            _EVENTS.decode_lenient(msgspec.json.encode(spoilt))
                        except DecodeError:
                            doc = spoilt
                            break
                else:
                    continue
            if (found := self._try(model, out, doc, only)) is not None:
                return found
        return None

    def _break_retired(self, model: Model, out: list[Any], old: str, only: Callable[[list[str]], bool]) -> list[str] | None:
        how = _RETIRED[old]
        target = how["as"]
        if not self._reach(model, out, lambda s: _allowed(target, s) and not _begins(target, s)):
            return None
        for _ in range(6):
            doc = self.propose(model, target)
            if doc is None:
                continue
            for spec in how["set"]:
                doc.pop(spec["wire"], None)
            doc[_DISC] = old
            if (found := self._try(model, out, doc, only)) is not None:
                return found
        return None


# -- the schema, where the walker needs it ----------------------------------------------------------------

_TABLE_DEFS: Any = None


def _defs() -> dict[str, Any]:
    global _TABLE_DEFS
    if _TABLE_DEFS is None:
        from .schema_table import DEFINITIONS

        _TABLE_DEFS = DEFINITIONS
    found: dict[str, Any] = _TABLE_DEFS
    return found


def _object(definition: str) -> dict[str, Any] | None:
    node = _defs().get(definition)
    while node is not None and node.get("kind") == "ref":
        node = _defs().get(node["name"])
    return node if node is not None and node.get("kind") == "object" else None


def _closed(definition: str) -> Any:
    node = _object(definition)
    return None if node is None else node.get("closed")


def _node(definition: str, path: str) -> dict[str, Any] | None:
    """The schema node of the member at a dotted path of a definition (through objects)."""
    node: Any = {"kind": "ref", "name": definition}
    for part in path.split("."):
        while node is not None and node.get("kind") == "ref":
            node = _defs().get(node["name"])
        if node is None or node.get("kind") != "object" or part not in node["fields"]:
            return None
        node = node["fields"][part]["type"]
    while node is not None and node.get("kind") == "ref":
        node = _defs().get(node["name"])
    return node if isinstance(node, dict) else None


def _optional(definition: str, path: str) -> bool:
    *parents, last = path.split(".")
    node = _node(definition, ".".join(parents)) if parents else _object(definition)
    return node is not None and node.get("kind") == "object" and last in node["fields"] and not node["fields"][last]["required"]


def _item_definition(type_: str, each_wire: str) -> str:
    node = _node(_CLASSES[type_], each_wire)
    if node is not None and node.get("kind") == "array":
        items = node["items"]
        if items.get("kind") == "ref":
            return str(items["name"])
    return _CLASSES[type_]


def _entity_states(entity: str) -> list[str]:
    return [s for s in _ENTITIES[entity]["states"] if s != "absent"]


def _entity_path(entity: str, target: str) -> list[tuple[str, int]] | None:
    """The moves (event type, step index) that take a new item of ``entity`` to ``target``."""
    edges = sorted(
        (source, type_, i, row["target"])
        for type_, steps in _STEPS.items()
        for i, step in enumerate(steps)
        if step["entity"] == entity
        for source, row in step["transitions"].items()
        if row["fail"] is None and row["target"] is not None
    )
    seen: dict[str, list[tuple[str, int]]] = {"absent": []}
    todo = deque(["absent"])
    while todo:
        state = todo.popleft()
        for source, type_, i, nxt in edges:
            if source == state and nxt not in seen:
                seen[nxt] = seen[state] + [(type_, i)]
                todo.append(nxt)
    return seen.get(target)


# -- making expressions hold (or fail) ------------------------------------------------------------------


def _make_hold(e: dict[str, Any], doc: dict[str, Any], walker: Walker, type_: str) -> None:
    _fix(e, doc, True, walker, _CLASSES.get(type_, type_))


def _fix(e: dict[str, Any], doc: Any, want: bool, walker: Walker, definition: str) -> None:
    """Edit the document so that the expression evaluates to ``want``, where a simple edit
    can: a member set to the value a comparison needs, a member added or removed, values made
    distinct or repeated. Best effort: the caller evaluates again."""
    if evaluate(e, doc) is want:
        return
    op = e["op"]
    s = walker.source
    args = e.get("args", [])
    if op == "not":
        _fix(args[0], doc, not want, walker, definition)
    elif op in ("and", "or"):
        both = (op == "and") == want
        if both:
            _fix(args[0], doc, want, walker, definition)
            _fix(args[1], doc, want, walker, definition)
        else:
            _fix(args[s.integer(0, 1)], doc, want, walker, definition)
    elif op in ("present", "absent"):
        present = (op == "present") == want
        if not present:
            put(doc, e["wire"], ABSENT)
        else:
            node = _node(definition, e["wire"])
            if node is not None:
                put(doc, e["wire"], walker.docs.value(node, 2))
    elif op == "unique":
        _uniqueness(e["wire"], doc, want, walker)
    elif op == "cmp":
        _compare(e, doc, want, walker, definition)


def _compare(e: dict[str, Any], doc: Any, want: bool, walker: Walker, definition: str) -> None:
    left, right = e["args"]
    cmp = e["cmp"]
    for target, other, flipped in ((left, right, False), (right, left, True)):
        if target["op"] != "field":
            continue
        value = evaluate(other, doc)
        if value is UNKNOWN:  # give the members the other side reads a value
            for path in _named(other):
                node = _node(definition, path)
                if get(doc, path) is ABSENT and node is not None:
                    put(doc, path, walker.docs.value(node, 1))
            value = evaluate(other, doc)
            if value is UNKNOWN:
                continue
        if cmp == "in":  # the value one of the items (or not), or the items holding it (or not)
            if flipped:
                needed = [value] if want else []
            else:
                needed = value[0] if want and isinstance(value, list) and value else UNKNOWN
            if needed is not UNKNOWN and put(doc, target["wire"], needed):
                return
            continue
        op = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(cmp, cmp) if flipped else cmp
        needed = _needed(op, value, want)
        if needed is not UNKNOWN and put(doc, target["wire"], needed):
            return


def _needed(cmp: str, value: Any, want: bool) -> Any:
    """A value x with ``(x cmp value) == want``."""
    if not want:
        cmp = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}[cmp]
    if cmp in ("==", "<=", ">="):
        return value
    if isinstance(value, bool):
        return not value if cmp == "!=" else UNKNOWN
    if isinstance(value, (int, float)):
        return value + 1 if cmp in (">", "!=") else value - 1
    if isinstance(value, str):
        return value + "-other" if cmp == "!=" else UNKNOWN
    return UNKNOWN


def _uniqueness(path: str, doc: Any, want: bool, walker: Walker) -> None:
    *parents, last = path.split(".")
    holders = collect(doc, ".".join(parents)) if parents else [doc]
    items = [h for h in holders if type(h) is dict and last in h]
    if want:
        seen: set[str] = set()
        for n, item in enumerate(items):
            key = _canonical(item[last])
            if key in seen and isinstance(item[last], str):
                item[last] = f"{item[last]}-{n}"
            seen.add(_canonical(item[last]))
        return
    if len(items) >= 2:
        items[1][last] = items[0][last]
        return
    # repeat an item of the innermost list holding the members
    if parents:
        outer = collect(doc, ".".join(parents[:-1])) if len(parents) > 1 else [doc]
        for holder in outer:
            lst = holder.get(parents[-1]) if type(holder) is dict else None
            if type(lst) is list and lst:
                lst.append(json.loads(json.dumps(lst[0])))
                return
