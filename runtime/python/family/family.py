"""The revisions of one protocol, judged together: each message of a session is routed, in wire
order, to the revision the session speaks, which the messages themselves name.

The family table (``family_table.FAMILY``, from the ``[family]`` table of the home spec's
binding.toml) lists the revisions, each with the conditions ("marks") a message meets when it
names that revision: a member's value, the values it may have, members present or absent, the
party that sends it. A session is undecided until a message names a revision; what came before
is held (at most ``hold`` messages, then the first revision, the default, is taken) and
delivered to that revision first. A message naming another revision later switches the session:
a switch the table declares as a fallback is judged by the evidence the first revision's
answers gave (an answer showing the peer speaks the first revision refutes the fallback, unless
it offers the revision fallen back to); any other switch is a finding of the ``switch`` rule.
An answer follows the exchange its request opened (``exchanges``): a late answer to a request
sent before a switch is delivered to the revision that judged the request.

The router never judges a message itself and never raises: it says where each message goes
(``Delivery``) and reports the family's own findings (``FamilyFinding``). Nothing here knows any
protocol."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .family_table import FAMILY

__all__ = ["Delivery", "FamilyFinding", "Router", "Segment", "FAMILY"]

_ABSENT: Any = object()


def _tokens(pointer: str) -> tuple[str, ...]:
    return tuple(t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:])


def _at(document: Any, tokens: tuple[str, ...]) -> Any:
    """The member a pointer names, or _ABSENT."""
    value = document
    for token in tokens:
        if isinstance(value, dict):
            if token not in value:
                return _ABSENT
            value = value[token]
        elif isinstance(value, list):
            if not token.isdigit() or (len(token) > 1 and token[0] == "0") or int(token) >= len(value):
                return _ABSENT
            value = value[int(token)]
        else:
            return _ABSENT
    return value


def _same(a: Any, b: Any) -> bool:
    """JSON equality: true and 1 differ, 1 and 1.0 do not."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


class _Condition:
    __slots__ = ("party", "tests")

    def __init__(self, spec: dict[str, Any]) -> None:
        self.party: str | None = spec.get("from")
        tests: list[tuple[str, tuple[str, ...], Any]] = []
        for pointer, value in spec.get("match", {}).items():
            tests.append(("match", _tokens(pointer), value))
        for pointer, values in spec.get("one-of", {}).items():
            tests.append(("one-of", _tokens(pointer), values))
        tests += [("present", _tokens(p), None) for p in spec.get("present", [])]
        tests += [("absent", _tokens(p), None) for p in spec.get("absent", [])]
        self.tests = tests

    def holds(self, party: str | None, document: Any) -> bool:
        if self.party is not None and party != self.party:
            return False
        for kind, tokens, expected in self.tests:
            value = _at(document, tokens)
            if kind == "absent":
                if value is not _ABSENT:
                    return False
            elif value is _ABSENT:
                return False
            elif kind == "match" and not _same(value, expected):
                return False
            elif kind == "one-of" and not any(_same(value, v) for v in expected):
                return False
        return True


@dataclass(frozen=True)
class Delivery:
    """A message for a revision's judge: its place in the session (wire order, from 0), its
    sender, the parsed document (None: not JSON) and what the caller fed with it."""

    revision: str
    index: int
    party: str | None
    document: Any
    payload: Any = None


@dataclass(frozen=True)
class FamilyFinding:
    rule: str
    level: str
    index: int
    message: str
    ref: tuple[str, str]

    @property
    def fatal(self) -> bool:
        return self.level in ("MUST", "MUST NOT")

    def __str__(self) -> str:
        return f"{self.rule} [{self.level}] message {self.index}: {self.message}"


@dataclass
class Segment:
    """A stretch of the session judged by one revision: from the message that began it (held
    messages before the first one included), and why."""

    revision: str
    first: int
    reason: str
    messages: int = 0


@dataclass
class _Fallback:
    source: str
    target: str
    evidence: list[_Condition]
    offers: list[tuple[str, ...]]
    rule: str | None


@dataclass
class _Seen:
    """An answer that showed the peer speaks the current revision, and what it offered."""

    index: int
    party: str | None
    offered: list[Any] = field(default_factory=list)


class Router:
    """Route one session's messages to the revisions judging them (see the module docstring).

    ``forced``: judge the whole session with this revision (``--revision``), naming nothing.
    ``hold``: how many messages may wait for a revision to be named before the default is
    taken (a live relay must not hold a session's findings forever)."""

    def __init__(self, table: dict[str, Any] | None = None, forced: str | None = None, hold: int = 64) -> None:
        table = FAMILY if table is None else table
        self.versions: list[str] = [r["version"] for r in table["revisions"]]
        if forced is not None and forced not in self.versions:
            raise ValueError(f"no revision {forced!r} in this family: {', '.join(self.versions)}")
        self.marks = [(r["version"], [_Condition(c) for c in r["marks"]]) for r in table["revisions"]]
        self.rules: dict[str, dict[str, Any]] = table["rules"]
        self.switch_rule: str | None = table.get("switch")
        self.fallbacks = {
            (f["from"], f["to"]): _Fallback(f["from"], f["to"], [_Condition(c) for c in f["evidence"]], [_tokens(p) for p in f["offers"]], f["rule"])
            for f in table["fallbacks"]
        }
        exchanges = table.get("exchanges")
        self.id_at = _tokens(exchanges["id"]) if exchanges else None
        self.request_at = _tokens(exchanges["request"]) if exchanges else None
        self.hold = hold
        self.forced = forced
        self.current: str | None = forced
        self.segments: list[Segment] = [Segment(forced, 0, f"forced: revision {forced}")] if forced else []
        self.findings: list[FamilyFinding] = []
        self._pending: list[tuple[int, str | None, Any, Any]] = []
        self._open: dict[str, list[tuple[str | None, str]]] = {}  # id -> [(requester, revision)]
        self._seen: dict[str, list[_Seen]] = {}  # fallback target -> the evidence against it
        self._count = 0

    # -- feeding --------------------------------------------------------------------------------

    def feed(self, party: str | None, document: Any, payload: Any = None) -> tuple[list[Delivery], list[FamilyFinding]]:
        """One message in wire order: the deliveries it releases (held messages first) and the
        family's findings it draws."""
        index = self._count
        self._count += 1
        found: list[FamilyFinding] = []
        if self.current is None:
            named = self._named(party, document)
            if not named:
                self._pending.append((index, party, document, payload))
                if len(self._pending) <= self.hold:
                    return [], []
                return self._decide(self.versions[0], f"no message among the first {self.hold} named a revision: the default"), []
            out = self._decide(named[0], f"message {index} from {party} names it" if party else f"message {index} names it")
            out.append(self._deliver(index, party, document, payload))
            return out, []
        if self.forced is None:
            named = self._named(party, document)
            if named and self.current not in named:
                found = self._switch(named[0], index, party)
        return [self._deliver(index, party, document, payload)], found

    def finish(self) -> tuple[list[Delivery], list[FamilyFinding]]:
        """The end of the session: held messages go to the default revision."""
        if self.current is None and self._pending:
            return self._decide(self.versions[0], "no message named a revision: the default"), []
        return [], []

    @property
    def revision(self) -> str | None:
        """The revision judging the session now (None: not named yet)."""
        return self.current

    def describe(self) -> str:
        """The revisions of the session as a sentence: `2025-11-25` or `2026-07-28 (messages
        0-1), then 2025-11-25 (from message 2: ...)`."""
        if not self.segments:
            return "none (no message)"
        if len(self.segments) == 1:
            return self.segments[0].revision
        parts = []
        for i, s in enumerate(self.segments):
            end = self.segments[i + 1].first - 1 if i + 1 < len(self.segments) else None
            span = f"messages {s.first}-{end}" if end is not None and end != s.first else f"message {s.first}" if end is not None else f"from message {s.first}"
            parts.append(f"{s.revision} ({span}: {s.reason})")
        return ", then ".join(parts)

    # -- the decisions --------------------------------------------------------------------------

    def _named(self, party: str | None, document: Any) -> list[str]:
        if not isinstance(document, dict):
            return []
        return [version for version, conditions in self.marks if any(c.holds(party, document) for c in conditions)]

    def _decide(self, version: str, reason: str) -> list[Delivery]:
        self.current = version
        first = self._pending[0][0] if self._pending else self._count - 1
        self.segments.append(Segment(version, first, reason))
        held, self._pending = self._pending, []
        return [self._deliver(i, p, d, x) for i, p, d, x in held]

    def _switch(self, target: str, index: int, party: str | None) -> list[FamilyFinding]:
        source = self.current
        assert source is not None
        fallback = self.fallbacks.get((source, target))
        found: list[FamilyFinding] = []
        if fallback is None:
            if self.switch_rule is not None:
                detail = f"message {index} names {target} after the session spoke {source} from message {self.segments[-1].first}"
                found.append(self._finding(self.switch_rule, index, source, target, detail))
            reason = f"message {index} names it"
        else:
            refuting = [s for s in self._seen.get(target, []) if not any(_same(v, target) for v in s.offered)]
            if refuting and fallback.rule is not None:
                s = refuting[0]
                offered = ", ".join(json.dumps(v) for v in s.offered) if s.offered else "none"
                detail = f"message {s.index} from {s.party} showed a peer speaking {source} (versions it offers: {offered})"
                found.append(self._finding(fallback.rule, index, source, target, detail))
            reason = f"fallback from {source} at message {index}"
        self.current = target
        self.segments.append(Segment(target, index, reason))
        self._seen = {}
        self.findings += found
        return found

    def _finding(self, rule: str, index: int, source: str, target: str, detail: str) -> FamilyFinding:
        spec = self.rules[rule]
        message = spec["message"].replace("{from}", source).replace("{to}", target).replace("{detail}", detail).replace("{index}", str(index))
        return FamilyFinding(rule, spec["level"], index, message, (spec["ref"][0], spec["ref"][1]))

    def _deliver(self, index: int, party: str | None, document: Any, payload: Any) -> Delivery:
        revision = self.current
        assert revision is not None
        if self.id_at is not None and self.request_at is not None and isinstance(document, dict):
            ident = _at(document, self.id_at)
            if ident is not _ABSENT and ident is not None:
                key = json.dumps(ident, sort_keys=True)
                if _at(document, self.request_at) is not _ABSENT:
                    self._open.setdefault(key, []).append((party, revision))
                else:
                    waiting = self._open.get(key, [])
                    for k, (requester, judged_by) in enumerate(waiting):
                        if requester != party:
                            revision = judged_by
                            del waiting[k]
                            if not waiting:
                                del self._open[key]
                            break
        if revision == self.current:
            self._note_evidence(index, party, document)
        next(s for s in reversed(self.segments) if s.revision == revision).messages += 1
        return Delivery(revision, index, party, document, payload)

    def _note_evidence(self, index: int, party: str | None, document: Any) -> None:
        for (source, target), fallback in self.fallbacks.items():
            if source != self.current or not isinstance(document, dict):
                continue
            if any(c.holds(party, document) for c in fallback.evidence):
                offered: list[Any] = []
                for tokens in fallback.offers:
                    value = _at(document, tokens)
                    if isinstance(value, list):
                        offered += value
                self._seen.setdefault(target, []).append(_Seen(index, party, offered))
