"""The exchange stage of a protocol of two parties, run before the machine: every message has a
sender, a request opens an exchange keyed by (sender, id), the other party's result or error with
that id closes it, and a result is decoded as the result type of the method its request named.

It reads the rule tables' two-party part (``parties``, ``envelope``, ``messages``, ``results``,
``facts``, ``exchanges``: docs/rules-tables.md) and hands each message that passes, as the event
type ``SENDER METHOD`` (a request or a notification), ``SENDER METHOD:NAME`` (a result) or
``SENDER METHOD:error``, to the automaton's machine, entities and checks. The automaton owns one
``Dialogue`` when its tables name parties; one-way tables never build one.

The rules read messages as JSON values by their wire names (``View``); what a party declared (a
fact) and what the request a message answers carried (``request PATH``) are read through
``scoped``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

import msgspec
from msgspec import UNSET

from . import codec_json
from .automaton_table import TABLES
from .errors import DecodeError, Issue, JSONParseError
from .limits import finite_float, lone_surrogate_escape, too_deep
from .shown import py_str

if TYPE_CHECKING:
    from .automaton import Automaton

__all__ = ["Dialogue", "View", "wrap"]

_PARTIES: list[str] = TABLES.get("parties") or []
_ENVELOPE: list[dict[str, Any]] = TABLES.get("envelope") or []
_MESSAGES: dict[str, dict[str, dict[str, str]]] = TABLES.get("messages") or {}
_RESULTS: dict[str, list[dict[str, Any]]] = TABLES.get("results") or {}
_FACTS: dict[str, list[dict[str, Any]]] = TABLES.get("facts") or {}
_EXCHANGES: dict[str, Any] = TABLES.get("exchanges") or {"rules": {}, "references": {}, "remember": []}
_RULES: dict[str, str] = _EXCHANGES["rules"]
_NARROWED = any(" " in slot for slot in _RULES)  # an exchanges rule given for a kind or sender
_REFERENCES: dict[str, dict[str, Any]] = _EXCHANGES["references"]
_REMEMBER: list[tuple[str, ...]] = [tuple(p) for p in _EXCHANGES["remember"]]
_OTHER: dict[str, str] = {_PARTIES[0]: _PARTIES[1], _PARTIES[1]: _PARTIES[0]} if len(_PARTIES) == 2 else {}
class _Missing:
    """What a scoped path reads when there is nothing to read: a fact never declared, or no
    request the message answers (the automaton makes it "unknown")."""

    def __repr__(self) -> str:
        return "missing"


MISSING: Any = _Missing()
_ENTRY = msgspec.json.Decoder(dict[str, msgspec.Raw])
_ANY = msgspec.json.Decoder(float_hook=finite_float)  # msgspec reads 1e300 slowly: limits.finite_float


def _marks() -> list[tuple[str, frozenset[str], dict[str, Any]]]:
    """(kind, the fields that make a message of that kind, the envelope entry), in the rules
    file's order: the fields each kind requires beyond those every kind requires."""
    common = frozenset.intersection(*(frozenset(k["required"]) for k in _ENVELOPE)) if _ENVELOPE else frozenset()
    return [(k["kind"], frozenset(k["required"]) - common, k) for k in _ENVELOPE]


_KINDS = _marks()
_BY_KIND: dict[str, dict[str, Any]] = {k["kind"]: k for k in _ENVELOPE}
_ID: str = next((k["id"] for k in _ENVELOPE if k["id"]), "")
_METHOD: str = next((k["method"] for k in _ENVELOPE if k["method"]), "")
_DECODERS: dict[str, codec_json.Decoder] = {}
# method -> the kinds of result the answer itself chooses (`when answer`), tried in order first
_BY_ANSWER: dict[str, list[dict[str, Any]]] = {m: [a for a in alts if a.get("by") == "answer"] for m, alts in _RESULTS.items()}
_BLANK: dict[str, bool] = {}  # envelope kind -> whether `{}` stands in for its payload


def _decoder(definition: str) -> codec_json.Decoder:
    found = _DECODERS.get(definition)
    if found is None:
        found = _DECODERS[definition] = codec_json.decoder(definition)
    return found


class View:
    """A JSON object read by attribute: ``view.name`` is the member's value (objects as views,
    arrays as lists), ``UNSET`` when absent. Rules read two-party messages through it."""

    __slots__ = ("_specbind_json",)

    def __init__(self, value: dict[str, Any]) -> None:
        self._specbind_json = value

    def __getattr__(self, name: str) -> Any:
        try:
            value = self._specbind_json[name]
        except KeyError:
            return UNSET
        return wrap(value)

    def __len__(self) -> int:
        return len(self._specbind_json)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, View) and self._specbind_json == other._specbind_json

    def __hash__(self) -> int:
        return hash(msgspec.json.encode(self._specbind_json))

    def __repr__(self) -> str:
        return f"View({self._specbind_json!r})"


def wrap(value: Any) -> Any:
    """A JSON value as the rules read it: objects as views, arrays' objects too."""
    if value.__class__ is dict:
        return View(value)
    if value.__class__ is list:
        return [wrap(v) for v in value]
    return value


def _walk(value: Any, path: Iterable[str]) -> Any:
    """A member of a JSON value by its path, ``UNSET`` when absent."""
    for name in path:
        if value.__class__ is not dict or name not in value:
            return UNSET
        value = value[name]
    return value


def _id(value: Any) -> str | int | None:
    """A request id as a key (an integer written ``1.0`` is the integer), or None: not an id."""
    if value.__class__ in (str, int):
        return value  # type: ignore[no-any-return, unused-ignore]
    if value.__class__ is float and value.is_integer():
        return int(value)
    return None


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def _issues(errors: Iterable[Issue]) -> str:
    errors = list(errors)
    detail = "; ".join(str(e) for e in errors[:3])
    return detail + (f"; and {len(errors) - 3} more" if len(errors) > 3 else "")


def _text(value: Any) -> str:
    """A value in a message, by the one rule of every binding (``shown``: an integer past 900
    digits by its size)."""
    return py_str(value)


def _read(raw: bytes) -> tuple[Any, dict[str, msgspec.Raw] | None]:
    """A document read as the codec reads a document (UTF-8, numbers in range, no lone
    surrogate, MAX_DEPTH: ``validation.parse_json`` says where and why, as JSONParseError), with
    its members' own bytes when it is an object. msgspec alone reads a member it is asked to
    keep as bytes without these checks, so the whole document is read first; and where it
    refuses what the codec keeps (a member given twice, the first with a value the codec never
    keeps: a lone surrogate), the members are the codec's values, written again."""
    try:
        value = _ANY.decode(raw)
        suspect = lone_surrogate_escape(raw) or too_deep(raw)
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
        suspect = True
    if suspect:
        from .validation import parse_json  # loaded for a refused document only

        value = parse_json(raw)
    if value.__class__ is not dict:
        return value, None
    try:
        return value, _ENTRY.decode(raw)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return value, {k: msgspec.Raw(msgspec.json.encode(v)) for k, v in value.items()}


class Dialogue:
    """The exchanges, facts and references of one session (one transcript)."""

    def __init__(self, host: Automaton) -> None:
        self.host = host
        # (requester, id) -> [state, method, index, remembered, alt, last values, id, cancelled at]
        # state: "open", "cancelled" (open, but its requester cancelled it), "answered"
        self.exchanges: dict[tuple[str, Any], list[Any]] = {}
        # (requester, request field, value) -> the exchange whose request carries it
        self.tracked: dict[tuple[str, tuple[str, ...], Any], list[Any]] = {}
        self.facts: dict[str, tuple[Any, int]] = {}  # name -> (value, index of the message)
        self.request: dict[tuple[str, ...], Any] | None = None  # what `request PATH` reads now
        # the id of that request, as a check's finding names it in {ids}: a notification that
        # names a request (a cancellation) carries no id of its own
        self.about: str | None = None

    # -- what rules read ------------------------------------------------------------------------

    def scoped(self, node: dict[str, Any]) -> Any:
        """A scoped path's value: ``MISSING`` when the fact was never declared or the message
        answers no request, ``UNSET`` when the member is absent."""
        if node["scope"] == "fact":
            fact = self.facts.get(node["fact"])
            return MISSING if fact is None else wrap(_walk(fact[0], node["path"]))
        if self.request is None:
            return MISSING
        return wrap(self.request.get(tuple(node["path"]), UNSET))

    def declared(self, names: list[str]) -> str:
        """What the facts a finding relied on are, and where they were declared."""
        parts = []
        for name in names:
            fact = self.facts.get(name)
            parts.append(f"{name} never declared" if fact is None else f"{name} declared at message {fact[1]}")
        return "; ".join(parts)

    # -- taking messages in ----------------------------------------------------------------------

    def feed_entry(self, data: bytes | str) -> None:
        """One transcript line: ``{"from": PARTY, "message": MESSAGE}``, or ``{"from": PARTY,
        "raw": TEXT}`` for a line that was no JSON on the wire (as `specbind proxy` records it)."""
        raw = data.encode() if isinstance(data, str) else bytes(data)
        try:
            value, members = _read(raw)
        except JSONParseError as exc:
            self._bad("not a transcript entry: " + _issues(Issue(p, "transcript", k, m) for p, k, m in exc.issues))
            return
        if members is None:
            self._bad(f'not a transcript entry: {_json_type(value)}, where an object with "from" and "message" is expected')
            return
        sender_raw = members.get("from")
        message = members.get("message")
        text = members.get("raw") if message is None else None
        if text is not None and sender_raw is not None:
            # a line that was no JSON on the wire, kept as its text: judged as that text
            raw_text = _ANY.decode(text)
            sender = _ANY.decode(sender_raw)
            if isinstance(raw_text, str) and isinstance(sender, str):
                self.feed_message(raw_text.encode("utf-8", "surrogatepass"), sender)
                return
        if sender_raw is None or message is None:
            missing = " and ".join(f'"{k}"' for k in ("from", "message") if k not in members)
            self._bad(f'not a transcript entry: it has no {missing} (an entry is an object with "from" and "message")')
            return
        sender = _ANY.decode(sender_raw)
        if not isinstance(sender, str):
            self._bad(f'not a transcript entry: its "from" is {_json_type(sender)}, not the name of a party')
            return
        self.feed_message(bytes(message), sender)

    def _bad(self, detail: str, type_: str = "?") -> None:
        host = self.host
        host.index += 1
        rule = TABLES["decode_error_rule"]
        if rule:
            host._report(rule, type_, {"detail": detail})

    def feed_message(self, raw: bytes, sender: str) -> None:
        """One message of the protocol, as its bytes, and who sent it."""
        if sender not in _OTHER:
            self._bad(f"the message is from {sender}, who is neither {_PARTIES[0]} nor {_PARTIES[1]}")
            return
        try:
            message, members = _read(raw)
        except JSONParseError as exc:
            self._bad(_issues(Issue(p, _ENVELOPE[0]["definition"], k, m) for p, k, m in exc.issues))
            return
        if members is None:
            self._bad(f"the message is {_json_type(message)}, not an object")
            return
        for kind, marks, spec in _KINDS:
            if marks <= members.keys():
                break
        else:
            shown = ", ".join(f"{k} ({', '.join(sorted(m))})" for k, m, _ in _KINDS)
            self._bad(f"the message is none of the kinds the protocol has, each told by its fields: {shown}")
            return
        if kind in ("request", "notification"):
            self._call(kind, spec, raw, message, sender)
        else:
            self._answer(kind, spec, raw, members, message, sender)

    # -- requests and notifications ---------------------------------------------------------------

    def _call(self, kind: str, spec: dict[str, Any], raw: bytes, message: dict[str, Any], sender: str) -> None:
        host = self.host
        method = message.get(_METHOD)
        ident = _id(message.get(_ID)) if kind == "request" else None
        known = _MESSAGES[sender].get(method) if isinstance(method, str) else None
        definition = known["definition"] if known is not None and known["kind"] == kind else spec["definition"]
        host.index += 1
        type_ = f"{sender} {method}" if isinstance(method, str) else "?"
        record = None
        if ident is not None:
            record = self._open(sender, ident, method if isinstance(method, str) else "?", message, type_)
        try:
            decoded = _decoder(definition).decode_lenient(raw)
        except DecodeError as exc:
            self._report("decode_error_rule", type_, _issues(exc.errors), table=True)
            return
        for issue in decoded.warnings:
            self._report("stripped_rule", type_, str(issue), table=True)
        assert isinstance(method, str)  # the envelope says so
        if known is None:
            owner = _OTHER[sender] if method in _MESSAGES[_OTHER[sender]] else None
            if owner is not None:
                self._report("wrong-sender", type_, f"{sender} sends {method}, which only {owner} sends", of=(kind, sender))
            else:
                self._report("unknown-method", type_, f"{method} is no method of the protocol", of=(kind, sender))
            return
        if known["kind"] != kind:
            how = "without an id" if kind == "notification" else f"with an id ({_text(ident)})"
            self._report("wrong-kind", type_, f"{method} is a {known['kind']}, sent as a {kind} ({how})", of=(kind, sender))
            return
        if record is not None:
            self._choose(record, message, sender)
        self.request = None
        self.about = None
        reference = _REFERENCES.get(type_)
        if reference is not None and not self._refer(reference, message, sender, type_):
            return
        self._take(type_, message)

    def _open(self, sender: str, ident: Any, method: str, message: dict[str, Any], type_: str) -> list[Any] | None:
        """A request opens its exchange, unless its id is taken."""
        key = (sender, ident)
        known = self.exchanges.get(key)
        if known is not None:
            if known[0] != "answered":
                self._report("reused", type_, f"{sender} reuses id {_text(ident)} while its {known[1]} request (message {known[2]}) is outstanding", (_text(ident),), of=("request", sender))
                return None
            self._report("reused-answered", type_, f"{sender} reuses id {_text(ident)} of its {known[1]} request (message {known[2]})", (_text(ident),), of=("request", sender))
        remembered = {path: _walk(message, path) for path in _REMEMBER}
        record = ["open", method, self.host.index, remembered, None, {}, ident, None]
        self.exchanges[key] = record
        return record

    def _choose(self, record: list[Any], message: dict[str, Any], sender: str) -> None:
        """Which result the request will be answered with (the first alternative whose `when`
        holds of it), and the values other messages will find it by (`track`)."""
        from .automaton import _eval  # the expression evaluator the machine's rows use

        view = View(message)
        for alt in _RESULTS.get(record[1], ()):
            if alt.get("by") == "answer":
                continue  # chosen when the answer comes (`_chosen`)
            if alt["when"] is None or _eval(alt["when"], view, self.host) is True:
                record[4] = alt["name"]
                break
        for type_, reference in _REFERENCES.items():
            path = reference["request_field"]
            if path is None:
                continue
            value = _id(_walk(message, path))
            if value is None:
                continue
            key = (sender, tuple(path), value)
            held = self.tracked.get(key)
            # a cancelled request's value is taken no more (its receiver may still be finishing)
            if held is not None and reference["unique"] and held is not record and held[0] != "cancelled":
                detail = f"{sender}'s {record[1]} request {_text(record[6])} carries {_text(value)}, as its {held[1]} request {_text(held[6])} (message {held[2]}) still does"
                self._report_rule(reference["unique"], f"{sender} {record[1]}", detail, (_text(value),))
            self.tracked[key] = record

    def _refer(self, reference: dict[str, Any], message: dict[str, Any], sender: str, type_: str) -> bool:
        """A notification naming a request: the sender's own (`cancel`) or an open one of the
        other party (`track`). Whether it goes on to the machine."""
        value = _walk(message, reference["field"])
        if value is UNSET:
            return True
        ident = _id(value)
        if reference["how"] == "cancel":
            record = None if ident is None else self.exchanges.get((sender, ident))
            if record is None:
                self._report_rule(reference["rule"], type_, f"{sender} never sent a request with that id", (_text(value),))
                return False
            if record[0] == "open":
                record[0] = "cancelled"
                record[7] = self.host.index
        else:
            requester = _OTHER[sender]
            record = None if ident is None else self.tracked.get((requester, tuple(reference["request_field"]), ident))
            if record is None:
                self._report_rule(reference["rule"], type_, f"no outstanding request of {requester} carries it", (_text(value),))
                return False
            rising = reference["rising"]
            if rising is not None:
                now = _walk(message, rising["field"])
                last = record[5].get(rising["wire"])
                if isinstance(now, (int, float)) and not isinstance(now, bool):
                    if last is not None and not now > last:
                        detail = f"{rising['wire']} {_text(now)} does not exceed {_text(last)}, the last for {requester}'s {record[1]} request {_text(record[6])}"
                        self._report_rule(rising["rule"], type_, detail, (_text(value),))
                    record[5][rising["wire"]] = now
        self.request, self.about = record[3], _text(record[6])
        return True

    # -- results and errors ---------------------------------------------------------------------

    def _answer(self, kind: str, spec: dict[str, Any], raw: bytes, members: dict[str, msgspec.Raw], message: dict[str, Any], sender: str) -> None:
        host = self.host
        host.index += 1
        raw_id = message.get(_ID, UNSET)
        ident = _id(raw_id)
        requester = _OTHER[sender]
        record = None if ident is None else self.exchanges.get((requester, ident))
        generic = f"{sender} {kind}"
        payload_name = spec["payload"]
        if kind == "result" and message.get(payload_name).__class__ is dict and _blank(kind, spec):
            # the envelope alone: a result's payload is decoded below, as its request's result
            raw = msgspec.json.encode({**message, payload_name: {}})
        try:
            decoded = _decoder(spec["definition"]).decode_lenient(raw)
        except DecodeError as exc:
            if record is not None and record[0] != "answered":
                record[0] = "answered"  # one cause, one finding: no "never answered" later
                self._untrack(record)
            self._report("decode_error_rule", generic, _issues(exc.errors), table=True)
            return
        if raw_id is UNSET or raw_id is None:  # an error that could name no request
            self._count(generic)
            return
        if record is None or record[0] == "answered":
            self._count(generic)
            if record is None:
                self._report("unknown", generic, f"a {kind} from {sender} with id {_text(ident)}, which names no request {requester} sent", (_text(ident),), of=(kind, sender))
            else:
                self._report("again", generic, f"a second response from {sender} to {requester}'s {record[1]} request {_text(ident)} (message {record[2]})", (_text(ident),), of=(kind, sender))
            return
        method = record[1]
        if record[4] is None:  # a request already found wanting, or one the protocol does not pair
            record[0] = "answered"
            self._untrack(record)
            self._count(generic)
            return
        alt = "error" if kind == "error" else self._chosen(record, message.get(payload_name))
        type_ = f"{sender} {method}:{alt}"
        if record[0] == "cancelled":
            self._report("answered-after-cancel", type_, f"{sender} answers {requester}'s {method} request {_text(ident)} after it was cancelled (message {record[7]})", (_text(ident),), of=(kind, sender))
        record[0] = "answered"
        if alt not in self._kept(record):
            self._untrack(record)
        payload = members[payload_name]
        # an error's payload is typed by the envelope itself; a result's by its request
        definition = None if kind == "error" else next(a["definition"] for a in _RESULTS[method] if a["name"] == alt)
        for issue in decoded.warnings:
            self._report("stripped_rule", type_, str(issue), table=True)
        if definition is not None:
            try:
                typed = _decoder(definition).decode_lenient(bytes(payload))
            except DecodeError as exc:
                self._report("mistyped", type_, self._mistyped(sender, method, record, definition, bytes(payload), exc), of=(kind, sender))
                self._count(type_)
                self.host._apply(wrap(message[payload_name]), type_, shallow=True)  # it answered
                return
            for issue in typed.warnings:
                self._report("stripped_rule", type_, str(issue), table=True)
        self.request, self.about = record[3], _text(record[6])
        self._take(type_, message[payload_name])

    def _chosen(self, record: list[Any], payload: Any) -> str:
        """The kind of result an answer is: the first the answer itself chooses (`when answer`,
        read from the result, `request PATH` from its request), else the request's choice."""
        alts = _BY_ANSWER.get(record[1])
        if alts and payload.__class__ is dict:
            from .automaton import _eval

            view = View(payload)
            self.request = record[3]
            try:
                for alt in alts:
                    if _eval(alt["when"], view, self.host) is True:
                        return str(alt["name"])
            finally:
                self.request = None
        return str(record[4])

    def _mistyped(self, sender: str, method: str, record: list[Any], definition: str, payload: bytes, exc: DecodeError) -> str:
        """What a result that is not its request's result type is: the errors, and the result
        type of another request it is (the first, in the rules' order, that has members it must
        carry and accepts it)."""
        detail = f"the result of {method} (request {_text(record[6])}, message {record[2]}) is not {_article(definition)} {definition}: {_issues(exc.errors)}"
        for other_method, alts in _RESULTS.items():
            for alt in alts:
                other = alt["definition"]
                # a kind the answer chooses would have been chosen had the answer been of it
                if other == definition or alt.get("by") == "answer" or not _requires_members(other):
                    continue
                if _decoder(other).accepts(payload):
                    return f"{detail}; it is a {other} (the result of {other_method})"
        return detail

    def _kept(self, record: list[Any]) -> set[Any]:
        return {k for reference in _REFERENCES.values() for k in reference["keep"]}

    def _untrack(self, record: list[Any]) -> None:
        for key in [k for k, r in self.tracked.items() if r is record]:
            del self.tracked[key]

    # -- handing on -----------------------------------------------------------------------------

    def _take(self, type_: str, value: Any) -> None:
        """A message that passed: its facts, then the machine, entities and checks."""
        host = self.host
        self._count(type_)
        for fact in _FACTS.get(type_, ()):
            found = _walk(value, fact["path"])
            if found is not UNSET:
                self.facts[fact["name"]] = (found, host.index)
        view = wrap(value)
        host._expanded = None
        host._last = view
        host._apply(view, type_)
        self.request = None
        self.about = None

    def _count(self, type_: str) -> None:
        counts = self.host.counts
        if counts is not None:
            counts[type_] = counts.get(type_, 0) + 1

    def _report(self, slot: str, type_: str, detail: str, ids: tuple[str, ...] = (), table: bool = False, of: tuple[str, str] | None = None) -> None:
        """A finding of the rule the tables name for `slot` (an exchanges rule, or with `table`
        a top-level one: decode_error_rule, stripped_rule); nothing when none is named."""
        rule = TABLES[slot] if table else _rule_for(slot, of)
        if rule:
            self._report_rule(rule, type_, detail, ids)

    def _report_rule(self, rule: str, type_: str, detail: str, ids: tuple[str, ...] = ()) -> None:
        self.host._report(rule, type_, {"detail": detail}, ids)

    def finish(self) -> None:
        """Requests still unanswered at the end (a cancelled one is not)."""
        for (party, ident), record in self.exchanges.items():
            rule = _rule_for("open-at-end", ("request", party))
            if rule and record[0] == "open" and record[4] is not None:
                detail = f"{party}'s {record[1]} request {_text(ident)} (message {record[2]}) is never answered"
                self._report_rule(rule, "end of stream", detail, (_text(ident),))


def _rule_for(slot: str, of: tuple[str, str] | None) -> str | None:
    """The rule an exchanges slip draws: the one declared for its kind of message and sender,
    else for its kind, else for its sender, else for every message (`unknown-method request
    from server R1` beside `unknown-method R2`)."""
    if of is not None and _NARROWED:
        kind, sender = of
        for key in (f"{slot} {kind} {sender}", f"{slot} {kind}", f"{slot} {sender}"):
            rule = _RULES.get(key)
            if rule:
                return rule
    return _RULES.get(slot)


def _blank(kind: str, spec: dict[str, Any]) -> bool:
    """Whether the envelope of `kind` accepts a payload of `{}` (its payload's own definition
    does): then a result's envelope is checked with `{}` in place of the payload, which its
    request's result type checks; otherwise the envelope is decoded whole."""
    known = _BLANK.get(kind)
    if known is None:
        generic = spec.get("payload_definition")
        known = _BLANK[kind] = generic is not None and not _requires_members(generic)
    return known


def _requires_members(definition: str) -> bool:
    """Whether a definition's documents must carry some member (an open one accepts anything)."""
    try:
        _decoder(definition).decode(b"{}")
    except DecodeError:
        return True
    return False


def _article(name: str) -> str:
    """The article before a definition's name in a message: an InitializeResult, a ListToolsResult."""
    return "an" if name[:1] in ("A", "E", "I", "O", "U") else "a"
