"""The messages of a protocol of two parties, read from the schema through the rules file's
`parties`, `envelope`, `sends` and `results`: every kind of message each party sends, named as
the rules name them (`SENDER METHOD` for a request or a notification, `SENDER METHOD:NAME` for
the result of a request the other party sent, `SENDER METHOD:error` for its error), with the
definition a message of that kind is (for a result, the result's own definition: a result is
typed by its request).

Nothing here knows any protocol: the parties, the envelope's fields, the methods and the
pairing of requests with results all come from the rules file and the schema."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

from ..errors import SpecError
from ..ir import model as M
from . import model as R
from .syntax import Token

KIND_WILDCARDS = {"*request": "request", "*notification": "notification", "*result": "result", "*error": "error"}


@dataclass(frozen=True)
class MessageType:
    name: str  # the event type: "caller files/read", "callee files/read:result"
    sender: str
    kind: str  # request | notification | result | error
    method: str
    alt: str | None  # a result's alternative name ("result" by default), "error" for an error
    definition: str

    @property
    def label(self) -> str:
        """The name without the sender, as the rules file writes it."""
        return self.name.split(" ", 1)[1]


@dataclass
class Universe:
    types: dict[str, MessageType]
    shapes: dict[str, M.ObjectDef]  # event type -> the object its rules' paths are checked against
    envelope: list[dict[str, object]]
    messages: dict[str, dict[str, dict[str, str]]]  # party -> method -> {kind, definition}
    requests: dict[str, list[str]]  # method -> the parties that send it as a request
    error_definition: str | None
    other: dict[str, str]
    results: dict[str, list[R.ResultAlt]]  # method -> its kinds of result, `*`'s among them, in trying order

    def resolve(self, name: str, sender: str | None, tok: Token | None, fail: Callable[[Token | None, str], SpecError]) -> tuple[list[str], int]:
        """The event types a name in the rules file stands for, and how specific the name is (an
        explicit name beats `*KIND`, which beats `* from PARTY`, which beats `*`)."""
        types = [t for t in self.types.values() if sender is None or t.sender == sender]
        if name == "*":
            return [t.name for t in types], 1 if sender else 0
        if name in KIND_WILDCARDS:
            return [t.name for t in types if t.kind == KIND_WILDCARDS[name]], 3 if sender else 2
        found = [t.name for t in types if t.label == name]
        if not found:
            anyone = [t for t in self.types.values() if t.label == name]
            if anyone:
                raise fail(tok, f"{name} is never sent by {sender}: {', '.join(sorted({t.sender for t in anyone}))} sends it")
            raise fail(tok, f"unknown message {name!r}: a method some party sends (`sends`), METHOD:NAME for a result (`results`) or METHOD:error")
        return found, 4


def universe(rf: R.RulesFile, ir: M.IR, fail: Callable[[Token | None, str], SpecError]) -> Universe:
    defs = ir.defs
    a, b = rf.parties
    other = {a: b, b: a}

    def obj(name: str, tok: Token | None, what: str) -> M.ObjectDef:
        d = defs.get(name)
        if d is None:
            raise fail(tok, f"unknown definition {name!r} ({what})")
        shape = object_shape(d, defs)
        if shape is None:
            raise fail(tok, f"{name} is not an object ({what}): its messages could not be told apart by their fields")
        return shape

    # -- the envelope ---------------------------------------------------------------------------
    envelope: list[dict[str, object]] = []
    method_field = id_field = None
    error_definition = None
    for k in rf.envelope:
        shape = obj(k.definition, k.at, f"the {k.kind} envelope")
        for slot in ("id", "method", "payload"):
            wire = getattr(k, slot)
            if wire is not None and shape.field(wire) is None:
                raise fail(k.at, f"{k.definition} has no field {wire!r} (its {slot})")
        required = [f.wire for f in shape.fields if f.required]
        for slot in {"request": ("id", "method"), "notification": ("method",), "result": ("id", "payload"), "error": ("payload",)}[k.kind]:
            wire = getattr(k, slot)
            if wire not in required:
                raise fail(k.at, f"{k.definition}.{wire} is not required: a {k.kind} is told apart by the fields it must have")
        if k.method is not None:
            if method_field not in (None, k.method):
                raise fail(k.at, f"requests and notifications name their method by one field ({method_field!r} and {k.method!r})")
            method_field = k.method
        if k.id is not None:
            if id_field not in (None, k.id):
                raise fail(k.at, f"requests and responses carry their id in one field ({id_field!r} and {k.id!r})")
            id_field = k.id
        if k.kind == "error":
            payload = shape.field(k.payload or "")
            assert payload is not None
            if not isinstance(payload.type, M.TRef) or object_shape(defs[payload.type.name], defs) is None:
                raise fail(k.at, f"{k.definition}.{k.payload} is not an object definition: an error's payload is typed by one")
            error_definition = payload.type.name
        # the definition the envelope itself gives its payload (a result's is typed by its request
        # later): whether a payload of `{}` stands in for it, the runtime asks that definition
        carried = shape.field(k.payload) if k.payload is not None else None
        generic = carried.type.name if carried is not None and isinstance(carried.type, M.TRef) else None
        envelope.append({"kind": k.kind, "definition": k.definition, "required": required, "id": k.id, "method": k.method, "payload": k.payload,
                         "payload_definition": generic})
    if "notification" not in [k.kind for k in rf.envelope]:
        pass  # a protocol may have no notifications
    assert method_field is not None and id_field is not None

    # -- what each party sends ------------------------------------------------------------------
    messages: dict[str, dict[str, dict[str, str]]] = {p: {} for p in rf.parties}
    shapes: dict[str, M.ObjectDef] = {}
    for party in rf.parties:
        if party not in rf.sends:
            raise fail(rf.header, f"`sends {party} ...` is missing: what does {party} send?")
        for name, tok in rf.sends[party]:
            for method, member in _members(name, method_field, defs, tok, fail):
                shape = obj(member, tok, f"a message {party} sends")
                kind = "request" if (f := shape.field(id_field)) is not None and f.required else "notification"
                known = messages[party].get(method)
                if known is not None and known["definition"] != member:
                    raise fail(tok, f"{party} sends {method!r} as {known['definition']} and as {member}")
                messages[party][method] = {"kind": kind, "definition": member}
    requests: dict[str, list[str]] = {}
    for party in rf.parties:
        for method, spec in messages[party].items():
            if spec["kind"] == "request":
                requests.setdefault(method, []).append(party)

    # -- results ------------------------------------------------------------------------------
    alts: dict[str, list[R.ResultAlt]] = {}
    anyone: list[R.ResultAlt] = []  # `* DEFINITION ... when answer`: a kind of result any request may get
    for r in rf.results:
        if r.method == "*":
            obj(r.definition, r.at, "a result of any request")
            if any(x.name == r.name for x in anyone):
                raise fail(r.at, f"* already has a result named {r.name!r}: name this one with `as NAME`")
            anyone.append(r)
            continue
        if r.method not in requests:
            raise fail(r.at, f"{r.method!r} is no request either party sends: nothing is answered with {r.definition}")
        obj(r.definition, r.at, f"the result of {r.method}")
        if any(x.name == r.name for x in alts.get(r.method, [])):
            raise fail(r.at, f"{r.method} already has a result named {r.name!r}: name this one with `as NAME`")
        if alts.get(r.method) and alts[r.method][-1].when is None:
            raise fail(r.at, f"{r.method}'s result without `when` must come last: it is what every other request of it gets")
        alts.setdefault(r.method, []).append(r)
    missing = sorted(m for m in requests if m not in alts)
    if missing:
        raise fail(rf.header, f"requests with no result in `results`: {', '.join(missing)}")
    for method, entries in alts.items():
        if entries[-1].when is not None:
            raise fail(entries[-1].at, f"{method} needs a result without `when` (last): what it is answered with otherwise")
        for r in anyone:
            mine = next((x for x in entries if x.name == r.name), None)
            if mine is not None:
                raise fail(mine.at, f"{method}'s result {r.name!r} is also the name of `*`'s (line {r.at.line}): name one of them otherwise")
        # the answer's own kinds of result for every request are tried first, before the method's
        alts[method] = [dataclasses.replace(r, method=method) for r in anyone] + entries

    # -- the event types ----------------------------------------------------------------------
    types: dict[str, MessageType] = {}
    for party in rf.parties:
        for method, spec in messages[party].items():
            t = MessageType(f"{party} {method}", party, spec["kind"], method, None, spec["definition"])
            types[t.name] = t
            shapes[t.name] = obj(spec["definition"], None, "")
    for party in rf.parties:
        for method, spec in messages[party].items():
            if spec["kind"] != "request":
                continue
            responder = other[party]
            for alt in alts[method]:
                t = MessageType(f"{responder} {method}:{alt.name}", responder, "result", method, alt.name, alt.definition)
                types[t.name] = t
                shapes[t.name] = obj(alt.definition, None, "")
            if error_definition is not None:
                t = MessageType(f"{responder} {method}:error", responder, "error", method, "error", error_definition)
                types[t.name] = t
                shapes[t.name] = obj(error_definition, None, "")
    return Universe(types, shapes, envelope, messages, requests, error_definition, other, alts)


def _members(name: str, method_field: str, defs: dict[str, M.Definition], tok: Token, fail: Callable[[Token | None, str], SpecError]) -> list[tuple[str, str]]:
    """(method, definition) of every message a `sends` definition stands for: the members of a
    union discriminated by the method field, or one object whose method is a const."""
    d = defs.get(name)
    if d is None:
        raise fail(tok, f"unknown definition {name!r}")
    if isinstance(d, M.UnionDef):
        if d.union.discriminator != method_field:
            raise fail(tok, f"{name} is not a union discriminated by {method_field!r} (the envelope's method field)")
        return list(d.union.tags)
    shape = object_shape(d, defs)
    f = shape.field(method_field) if shape is not None else None
    if f is None or not isinstance(f.type, M.TConst) or not isinstance(f.type.value, str):
        raise fail(tok, f"{name} is neither a union discriminated by {method_field!r} nor an object whose {method_field} is a constant")
    return [(f.type.value, name)]


def object_shape(d: M.Definition | M.TypeExpr, defs: dict[str, M.Definition]) -> M.ObjectDef | None:
    """The object a definition is, for checking paths: itself, what an alias names, or the
    fields of every object an `allOf` composes (a general definition such as `Result & Task`)."""
    name = getattr(d, "name", None)
    t = M.resolve(d, defs.__getitem__)
    if isinstance(t, M.ObjectDef):
        return t
    node = t.node if isinstance(t, M.TSchema) and isinstance(t.node, dict) else {}
    composed = next(((k, node[k]) for k in ("all_of", "any_of", "one_of") if node.get(k)), None)
    if composed is not None:
        # allOf: every part's fields; anyOf/oneOf: the fields of any member, none required
        how, parts = composed
        fields: dict[str, M.Field] = {}
        for part in parts:
            ref = part.get("ref") if isinstance(part, dict) else None
            inner = object_shape(defs[ref], defs) if isinstance(ref, str) and ref in defs else None
            if inner is None:
                return None
            for f in inner.fields:
                known = fields.get(f.wire)
                if how != "all_of":
                    f = dataclasses.replace(f, required=False)
                    if known is not None and known.type != f.type:  # members disagree: any of theirs
                        f = dataclasses.replace(f, type=M.TAny(f.loc))
                fields[f.wire] = f if known is None or f.required or how != "all_of" else known
        return M.ObjectDef(str(name or t.loc), t.loc, None, tuple(fields.values()), False, None)
    return None
