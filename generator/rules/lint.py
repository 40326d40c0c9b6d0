"""Check a rules file against the IR: every event type, field, entity, state, enum value and rule
it names must exist; every state must be reachable; every event type of the schema must be
handled or explicitly passed through; every declared rule must be used."""

from __future__ import annotations

import re

from dataclasses import dataclass, field
from typing import Any

from ..errors import SpecError
from ..ir import model as M
from . import model as R
from .parties import Universe, object_shape, universe
from .syntax import Token, split_path

MACHINE_ACTIONS = ("begin-run", "end-run")


@dataclass
class Lint:
    """What lint learned, for compile and for the `lint` command's summary."""

    event_types: dict[str, M.ObjectDef]
    handled: dict[str, str] = field(default_factory=dict)  # event type -> where it is handled
    passed: list[str] = field(default_factory=list)
    used_rules: set[str] = field(default_factory=set)
    # two parties: the messages, the type each fact holds, the request paths rules read
    universe: Universe | None = None
    fact_types: dict[str, Any] = field(default_factory=dict)
    request_paths: list[str] = field(default_factory=list)

    def types_for(self, names: list[str], exclude: list[str] = (), sender: str | None = None) -> tuple[list[str], int]:  # type: ignore[assignment]
        """The event types a list of names stands for (names lint has checked), and how
        specific the list is: 0 for `*`, up to 4 for names given one by one (two parties: `*
        from PARTY` 1, `*KIND` 2, `*KIND from PARTY` 3)."""
        if self.universe is None:
            if names == ["*"]:
                return [t for t in self.event_types if t not in exclude], 0
            return list(names), 4
        out: list[str] = []
        level = 4
        for n in names:
            found, rank = self.universe.resolve(n, sender, None, _never)
            level = min(level, rank)
            out += [t for t in found if t not in out]
        dropped = {t for n in exclude for t in self.universe.resolve(n, sender, None, _never)[0]}
        return [t for t in out if t not in dropped], level


def _never(tok: Token | None, message: str) -> SpecError:
    raise AssertionError(message)  # lint resolved every name before compile asks again


def lint(rf: R.RulesFile, ir: M.IR) -> Lint:
    return _Linter(rf, ir).run()


class _Linter:
    def __init__(self, rf: R.RulesFile, ir: M.IR) -> None:
        self.rf = rf
        self.ir = ir

    def fail(self, token: Token | None, message: str) -> SpecError:
        where = f"line {token.line} column {token.col}" if token else "line 1 column 1"
        return SpecError(self.rf.file, where, message)

    # -- names --------------------------------------------------------------------------------

    def run(self) -> Lint:
        self.request_base: M.TypeExpr | M.Definition | None = None  # what `request PATH` reads
        if self.rf.parties:
            found = universe(self.rf, self.ir, self.fail)
            self.out = Lint(event_types=found.shapes, universe=found)
            self.parties()
        else:
            union = self.ir.defs.get(self.rf.events_union)
            if not isinstance(union, M.UnionDef) or union.union.discriminator != self.rf.discriminator:
                raise self.fail(self.rf.header, f"{self.rf.events_union!r} is not a union discriminated by {self.rf.discriminator!r} in the schema")
            events = {tag: self.ir.defs[name] for tag, name in union.union.tags}
            self.out = Lint(event_types=events)  # type: ignore[arg-type]
        if self.rf.owner and not any(o.field(self.rf.owner) for o in self.out.event_types.values()):
            raise self.fail(self.rf.header, f"owner field {self.rf.owner!r} is on no event")
        self.machine()
        self.sequence()
        for e in self.rf.entities:
            self.entity(e)
        self.chunks()
        for c in self.rf.checks:
            self.check(c)
        for name, tok in self.rf.passes:
            self.event(name, tok)
            self.out.passed.append(name)
        for a in self.rf.answers:
            self.answers(a)
        for x in self.rf.listings:
            self.listing(x)
        self.retired()
        for pair in (self.rf.decode_error_rule, self.rf.stripped_rule, self.rf.unknown_event_rule, self.rf.retired_rule):
            if pair:
                self.rule(pair[0], pair[1])
        # two parties: every message is handled by the exchange stage (correlated, typed)
        missing = [t for t in self.out.event_types if t not in self.out.handled and t not in self.out.passed]
        if missing and self.out.universe is None:
            raise self.fail(self.rf.header, f"event types neither handled nor passed through: {', '.join(missing)}")
        unused = [r for r in self.rf.rules.values() if r.id not in self.out.used_rules]
        if unused:
            r = unused[0]
            raise self.fail(r.at, f"rule {r.id} is declared but no transition, check or statement uses it")
        return self.out

    def rule(self, rid: str, tok: Token | None) -> None:
        if rid not in self.rf.rules:
            raise self.fail(tok, f"unknown rule {rid!r}: declare it with `rule {rid} LEVEL ref ... message ...`")
        self.out.used_rules.add(rid)

    def event(self, name: str, tok: Token | None, where: str = "") -> M.ObjectDef:
        if name not in self.out.event_types:
            raise self.fail(tok, f"unknown event type {name!r}")
        if where:
            self.out.handled.setdefault(name, where)
        return self.out.event_types[name]

    def field(self, event: str, wire: str, tok: Token | None) -> M.Field:
        f = self.out.event_types[event].field(wire)
        if f is None:
            raise self.fail(tok, f"{event} has no field {wire!r}")
        return f

    def expand(self, names: list[str], exclude: list[str], tok: Token, where: str, sender: str | None = None) -> list[str]:
        u = self.out.universe
        if u is not None:
            if "*" in names and len(names) > 1:
                raise self.fail(tok, "'*' stands alone")
            for n in [*names, *exclude]:
                found, _ = u.resolve(n, sender, tok, self.fail)
                if n in names and not n.startswith("*") and where:
                    for t in found:
                        self.out.handled.setdefault(t, where)
            if exclude and not all(n.startswith("*") for n in names):
                raise self.fail(tok, "'except' only follows '*' or '*KIND'")
            return self.out.types_for(names, exclude, sender)[0]
        if sender is not None:
            raise self.fail(tok, "`from PARTY` belongs to files of two parties")
        if names == ["*"]:
            for n in exclude:
                self.event(n, tok)
            return [t for t in self.out.event_types if t not in exclude]
        if "*" in names:
            raise self.fail(tok, "'*' stands alone")
        if exclude:
            raise self.fail(tok, "'except' only follows '*'")
        chunked = {k.event for k in self.rf.chunk_kinds}
        for n in names:
            self.event(n, tok, where)
            if n in chunked and where.startswith(("machine", "entity")):
                raise self.fail(tok, f"{n} is expanded before any machine sees it: name its expansion instead")
        return names

    def sequence(self) -> None:
        q = self.rf.sequence
        if q is None:
            return
        self.rule(q.gap, q.at)
        self.rule(q.conflict, q.at)
        for ev in self.out.event_types:
            t = self.resolve(self.path(self.out.event_types[ev], q.field, q.at))
            if not isinstance(t, M.TInteger):
                raise self.fail(q.at, f"{ev}.{q.field} is not an integer")
            self.path(self.out.event_types[ev], q.key, q.at)

    # -- the machine --------------------------------------------------------------------------

    def machine(self) -> None:
        m = self.rf.machine
        if m is None:
            raise self.fail(self.rf.header, "a rules file needs a machine")
        if m.initial not in m.states:
            raise self.fail(m.at, f"initial state {m.initial!r} is not among the states")
        seen: dict[tuple[str, str], Token] = {}
        ranked: dict[tuple[str, str, int], Token] = {}  # (state, event, how specific) -> where
        conditional: dict[tuple[str, str], Token] = {}
        edges: dict[str, set[str]] = {s: set() for s in m.states}
        for t in m.transitions:
            types = self.expand(t.events, t.exclude, t.at, f"machine {m.name}", t.sender)
            level = self.out.types_for(t.events, t.exclude, t.sender)[1]
            if t.key is not None:
                raise self.fail(t.at, "`key` belongs to entity transitions")
            if t.when is not None:
                for ev in types:
                    self.expr(t.when, self.out.event_types[ev], self.answered(ev))
            for s in t.sources:
                if s not in m.states:
                    raise self.fail(t.at, f"unknown state {s!r} in machine {m.name}")
                for ev in types if level else ["*"]:
                    if t.when is not None:
                        conditional.setdefault((s, ev), t.at)
                        continue
                    if (s, ev, level) in ranked:
                        raise self.fail(t.at, f"({s}, {ev}) already has a transition (line {ranked[(s, ev, level)].line})")
                    ranked[(s, ev, level)] = t.at
                    seen.setdefault((s, ev), t.at)
                if t.target and t.target != "stay":
                    edges[s].add(t.target)
            if t.target and t.target != "stay" and t.target not in m.states:
                raise self.fail(t.at, f"unknown state {t.target!r} in machine {m.name}")
            self.transition_body(t, types, entity=None)
        for t in m.at_end:
            for s in t.sources:
                if s not in m.states:
                    raise self.fail(t.at, f"unknown state {s!r}")
            self.rule(t.fail or "", t.at)
        for (s, ev), tok in conditional.items():
            if (s, ev) not in seen and (s, "*") not in seen:
                raise self.fail(tok, f"({s}, {ev}) has only conditional transitions: add one without `when` for the rest")
        if m.identity is not None:
            self.path(self.out.event_types[self.opener_type(m.at)], m.identity, m.at)
        elif any("{run}" in r.message for r in self.rf.rules.values()):
            used = next(r for r in self.rf.rules.values() if "{run}" in r.message)
            raise self.fail(used.at, "the message names {run}, but the machine declares no `identity FIELD` (the opener's field that names a run)")
        if m.after_cursor is not None and m.after_cursor not in m.states:
            raise self.fail(m.at, f"after-cursor state {m.after_cursor!r} is not among the states")
        starts = [m.initial] + ([m.after_cursor] if m.after_cursor else [])
        self.reachable(starts, m.states, edges, m.at, f"machine {m.name}")
        for s in m.states:
            covered = {ev for (src, ev) in seen if src == s}
            if "*" not in covered and set(self.out.event_types) - covered:
                raise self.fail(m.at, f"state {s!r} of machine {m.name} does not say what happens on every event (add `on * in {s} ...`)")

    def reachable(self, starts: str | list[str], states: list[str], edges: dict[str, set[str]], tok: Token, what: str) -> None:
        seen = {starts} if isinstance(starts, str) else set(starts)
        todo = list(seen)
        while todo:
            for nxt in edges.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        dead = [s for s in states if s not in seen]
        if dead:
            raise self.fail(tok, f"unreachable state {dead[0]!r} in {what}")

    def transition_body(self, t: R.Transition, types: list[str], entity: R.Entity | None) -> None:
        if t.fail:
            self.rule(t.fail, t.at)
        for a in t.actions:
            if entity is not None or a not in MACHINE_ACTIONS:
                raise self.fail(t.at, f"unknown action {a!r}" + ("" if entity else f": {', '.join(MACHINE_ACTIONS)}"))
        names = {e.name for e in self.rf.entities}
        for req in t.requires:
            self.rule(req.rule, req.at)
            if req.kind == "closed":
                for n in req.args:
                    if n not in names:
                        raise self.fail(req.at, f"unknown entity {n!r}")
                    if "open" not in next(e for e in self.rf.entities if e.name == n).states:
                        raise self.fail(req.at, f"entity {n!r} has no state 'open' for `require closed` to look at")
            elif req.kind in ("exists", "missing"):
                if req.target not in names:
                    raise self.fail(req.at, f"unknown entity {req.target!r}")
                for ev in types:
                    self.field(ev, req.args[0], req.at)
            elif req.kind == "same":
                opener = self.opener_type(t.at)
                for ev in types:
                    self.field(ev, req.args[0], req.at)
                self.field(opener, req.args[0], req.at)
            elif req.kind == "in-state":
                if entity is None:
                    raise self.fail(req.at, "`require in-state` compares with an item's state: only inside an entity")
                for ev in types:
                    self.path(self.out.event_types[ev], req.args[0], req.at)
            else:  # agree, agree-if-present
                if entity is None:
                    raise self.fail(req.at, f"`require {req.kind}` compares with an entity's opener: only inside an entity")
                for ev in types:
                    for f in req.args:
                        self.field(ev, f, req.at)
                    missing = [f for f in req.args if f not in entity.remember]
                    if missing:
                        raise self.fail(req.at, f"entity {entity.name} does not remember {missing[0]!r}")

    def opener_type(self, tok: Token) -> str:
        m = self.rf.machine
        assert m is not None
        openers = {ev for t in m.transitions if "begin-run" in t.actions for ev in t.events}
        if len(openers) != 1:
            raise self.fail(tok, "`same ... as opener` needs exactly one event type with `do begin-run`")
        return openers.pop()

    # -- entities -----------------------------------------------------------------------------

    def entity(self, e: R.Entity) -> None:
        edges: dict[str, set[str]] = {}
        seen: dict[tuple[str, str], Token] = {}
        keys: dict[str, list[str]] = {}
        for t in e.transitions:
            types = self.expand(t.events, t.exclude, t.at, f"entity {e.name}", t.sender)
            key = t.key or e.key
            if t.when is not None:
                raise self.fail(t.at, "`when` belongs to machine transitions")
            for ev in types:
                if keys.setdefault(ev, key) != key:
                    raise self.fail(t.at, f"entity {e.name}: every transition on {ev} must use the same key")
                for k in key:
                    if k == self.rf.owner and self.out.event_types[ev].field(k) is None and len(key) > 1:
                        raise self.fail(t.at, f"{ev} has no field {k!r}")
                    if k != self.rf.owner:
                        if "." in k:
                            self.path(self.out.event_types[ev], k, t.at)
                        else:
                            self.field(ev, k, t.at)
                for r in e.remember:
                    if t.target and "absent" in t.sources and r != self.rf.owner:
                        self.field(ev, r, t.at)
                for s in t.sources:
                    if (s, ev) in seen:
                        raise self.fail(t.at, f"entity {e.name}: ({s}, {ev}) already has a transition (line {seen[(s, ev)].line})")
                    seen[(s, ev)] = t.at
            if t.target_field is not None:
                for ev in types:
                    values = self.values(self.path(self.out.event_types[ev], t.target_field, t.at))
                    if not values:
                        raise self.fail(t.at, f"{ev}.{t.target_field} names no state: `-> from FIELD` needs a field of enumerated values")
                    for v in sorted(values, key=str):
                        if str(v) not in e.field_states and str(v) not in ("absent",):
                            e.field_states.append(str(v))
                        for s in t.sources:
                            edges.setdefault(s, set()).add(str(v))
            for s in t.sources:
                if t.target and t.target != "stay":
                    edges.setdefault(s, set()).add(t.target)
            self.transition_body(t, types, entity=e)
        self.reachable("absent", e.states, edges, e.at, f"entity {e.name}")
        if e.outlives_run is not None and e.outlives_run not in e.states:
            raise self.fail(e.at, f"outlives-run {e.outlives_run!r} is not a state of entity {e.name}")

    # -- chunks -------------------------------------------------------------------------------

    def chunks(self) -> None:
        c = self.rf.chunks
        if not self.rf.chunk_kinds:
            return
        if c is None:
            raise self.fail(self.rf.chunk_kinds[0].at, "chunk kinds need a `chunks lane FIELD` block")
        for name in c.close_all + c.close_owner + c.close_lane:
            self.event(name, c.at)
        self.rule(c.ambiguous, c.at)
        for k in self.rf.chunk_kinds:
            self.event(k.event, k.at, f"chunk {k.event}")
            self.field(k.event, k.id_field, k.at)
            for part in (k.start, k.content, k.end):
                ev, copied, fixed = part
                self.event(ev, k.at)
                for f in copied:
                    self.field(k.event, f, k.at)
                    self.field(ev, f, k.at)
                for f, v in fixed.items():
                    target = self.field(ev, f, k.at)
                    if not self.admits(target.type, v):
                        raise self.fail(k.at, f"{ev}.{f} cannot be {v!r}")
            for f in k.first_requires:
                self.field(k.event, f, k.at)
            self.rule(k.first_rule, k.at)
            for f in k.agree:
                self.field(k.event, f, k.at)
            if k.agree_rule:
                self.rule(k.agree_rule, k.at)

    # -- checks and expressions ---------------------------------------------------------------

    def check(self, c: R.Check) -> None:
        self.rule(c.rule, c.at)
        # what a check's finding can show beyond {type} {index} {ids}: a comparison's sides
        # ({actual}, {expected}, {detail}) and its left side's path ({field}); any other
        # placeholder would print `?`
        message = self.rf.rules[c.rule].message if c.rule in self.rf.rules else ""
        fills = {"actual", "expected", "detail"} if c.expr[0] == "cmp" else set()
        if fills and c.expr[2][0] == "field":
            fills.add("field")
        for name in re.findall(r"(?<!\{)\{(actual|expected|field|kind|detail|state|run)\}", message):
            if name not in fills:
                why = "a check fills for a comparison only (`expect A == B`: its sides; {field}: A's path)" if name in ("actual", "expected", "field", "detail") else "a check never fills"
                raise self.fail(c.at, f"rule {c.rule}'s message names {{{name}}}, which {why}: this check's finding would print `?`")
        names = self.expand(c.events, [], c.at, "", c.sender) if self.out.universe else c.events
        if c.sender is not None and self.out.universe is None:
            raise self.fail(c.at, "`from PARTY` belongs to files of two parties")
        for ev in names:
            self.event(ev, c.at)
            base: M.TypeExpr | M.Definition = self.out.event_types[ev]
            if c.each:
                arr = self.resolve(self.path(base, c.each, c.at))
                if isinstance(arr, M.TArray):
                    base = arr.items
                elif isinstance(arr, M.TMap):  # an open map: its values, in the order of their names
                    base = arr.values if arr.values is not None else M.TAny(arr.loc)
                else:
                    raise self.fail(c.at, f"{ev}.{c.each} is neither an array nor a map: `each` walks an array's items or a map's values")
            self.expr(c.expr, base, self.answered(ev))

    def expr(self, e: Any, base: M.TypeExpr | M.Definition, request: M.TypeExpr | M.Definition | None = None) -> Any:
        """Checks names and literals; returns the set of possible values for a field (or None).
        `request`: what `request PATH` reads (the request a message answers or refers to)."""
        op = e[0]
        if op in ("or", "and"):
            self.expr(e[1], base, request)
            self.expr(e[2], base, request)
        elif op == "not":
            self.expr(e[1], base, request)
        elif op in ("add", "sub"):
            for side in e[1:]:
                t = self.resolve(self.operand(side, base, request)) if side[0] == "field" else None
                if side[0] == "field" and not isinstance(t, (M.TInteger, M.TNumber)):
                    raise self.fail(side[2], f"{side[1]!r} is not a number")
                self.expr(side, base, request)
        elif op == "cmp":
            left, right = e[2], e[3]
            if e[1] == "in":
                t = self.resolve(self.operand(right, base, request)) if right[0] == "field" else None
                if not isinstance(t, (M.TArray, M.TAny)):
                    where = right[2] if right[0] == "field" else left[2] if left[0] == "field" else None
                    what = f"{right[1]!r} is not an array" if right[0] == "field" else "the right side of `in` is no field path"
                    raise self.fail(where, f"{what}: `in` looks for a value among an array's items")
                self.expr(left, base, request)
                return None
            for a, b in ((left, right), (right, left)):
                if a[0] == "field" and b[0] == "lit":
                    values = self.values(self.operand(a, base, request))
                    if values is not None and b[1] not in values:
                        raise self.fail(a[2], f"{a[1]} is never {b[1]!r}: its values are {', '.join(map(str, sorted(values)))}")
            self.expr(left, base, request)
            self.expr(right, base, request)
        elif op == "length":
            t = self.resolve(self.operand(e[1], base, request))
            if not isinstance(t, (M.TString, M.TArray, M.TMap, M.ObjectDef)):
                raise self.fail(e[1][2], f"{e[1][1]!r} is neither a string, an array nor an object: it has no length")
        elif op in ("present", "absent", "unique", "field"):
            self.operand(e[1] if op != "field" else e, base, request)
        elif op != "lit":
            raise AssertionError(e)
        return None

    def operand(self, f: Any, base: M.TypeExpr | M.Definition, request: M.TypeExpr | M.Definition | None) -> M.TypeExpr | M.Definition:
        """The type a field path names, in its scope: the message, `request`, or a fact."""
        scope = f[3] if len(f) > 3 else None
        if scope is None:
            return self.path(base, f[1], f[2])
        if self.out.universe is None:
            raise self.fail(f[2], f"`{scope} PATH` belongs to files of two parties")
        if scope == "request":
            if request is None:
                raise self.fail(f[2], "`request PATH` reads the request a message answers (a result or an error) or refers to (`cancel`, `track`): this one has none")
            if f[1] not in self.out.request_paths:
                self.out.request_paths.append(f[1])
            return self.path(request, f[1], f[2])
        name, _, rest = f[1].partition(".")
        if name not in self.out.fact_types:
            raise self.fail(f[2], f"unknown fact {name!r}: declare it with `fact {name} on MESSAGE... at PATH`")
        t = self.out.fact_types[name]
        return self.path(t, rest, f[2]) if rest else t

    def answered(self, ev: str) -> M.TypeExpr | M.Definition | None:
        """The request an event type answers or refers to, for `request PATH`: a result's or an
        error's request, the requests a `cancel` or `track` message may name, or None."""
        u = self.out.universe
        if u is None:
            return None
        t = u.types[ev]
        if t.kind in ("result", "error"):
            return self.out.event_types[f"{u.other[t.sender]} {t.method}"]
        ex = self.rf.exchanges
        for r in ex.references if ex else ():
            if ev in self.out.types_for(r.events, [], r.sender)[0]:
                return object_shape(self.ir.defs[self.request_definition()], self.ir.defs)
        return None

    def request_definition(self) -> str:
        return next(k.definition for k in self.rf.envelope if k.kind == "request")

    # -- two parties ----------------------------------------------------------------------------

    def parties(self) -> None:
        """Facts, result alternatives and the exchanges block, against the messages."""
        u = self.out.universe
        assert u is not None
        for f in self.rf.facts:
            types = self.expand(f.events, [], f.at, "", f.sender)
            for ev in types:
                t = self.path(self.out.event_types[ev], f.path, f.at)
                self.out.fact_types.setdefault(f.name, t)
        for method, alts in u.results.items():
            for alt in alts:
                for party in u.requests[method] if alt.when is not None else ():
                    request = self.out.event_types[f"{party} {method}"]
                    if alt.by == "answer":  # read from the result, `request PATH` from its request
                        self.expr(alt.when, self.out.event_types[f"{u.other[party]} {method}:{alt.name}"], request)
                    else:
                        self.expr(alt.when, request)
        ex = self.rf.exchanges
        if ex is None:
            raise self.fail(self.rf.header, "a file of two parties needs an `exchanges` block (what a response to no request is, and the rest)")
        for rid, tok in ex.rules.values():
            self.rule(rid, tok)
        for slot, (_, tok) in ex.rules.items():
            if slot.startswith("answered-after-cancel") and not any(r.how == "cancel" for r in ex.references):
                raise self.fail(tok, "`answered-after-cancel` needs a `cancel` statement: which messages cancel a request")
        tracked: set[str] = set()
        for r in ex.references:
            self.rule(r.rule, r.at)
            if r.unique is not None:
                self.rule(r.unique, r.at)
            types = self.expand(r.events, [], r.at, "exchanges", r.sender)
            for ev in types:
                if u.types[ev].kind != "notification":
                    raise self.fail(r.at, f"{ev} is a {u.types[ev].kind}: only a notification refers to a request this way")
                self.path(self.out.event_types[ev], r.field, r.at)
            if r.request_field is not None:
                self.path(self.ir.defs[self.request_definition()], r.request_field, r.at)
                tracked.update(types)
            names = {x.name for x in self.rf.results}
            for k in r.keep:
                if k not in names:
                    raise self.fail(r.at, f"no result is named {k!r} (`results ... as {k}`)")
        for g in ex.rising:
            self.rule(g.rule, g.at)
            for ev in self.expand(g.events, [], g.at, "exchanges"):
                if ev not in tracked:
                    raise self.fail(g.at, f"{ev} tracks no request (`track`): nothing to compare its {g.field} with")
                t = self.resolve(self.path(self.out.event_types[ev], g.field, g.at))
                if not isinstance(t, (M.TInteger, M.TNumber)):
                    raise self.fail(g.at, f"{ev}.{g.field} is not a number")

    def resolve(self, t: M.TypeExpr | M.Definition) -> M.TypeExpr | M.Definition:
        return M.resolve(t, self.ir.defs.__getitem__)

    def path(self, base: M.TypeExpr | M.Definition, path: str, tok: Token | None) -> M.TypeExpr | M.Definition:
        return self.walk(base, split_path(path), path, tok)

    def walk(self, base: M.TypeExpr | M.Definition, parts: list[str], path: str, tok: Token | None) -> M.TypeExpr | M.Definition:
        """The type at the end of `parts`. Through a union whose members type the field
        differently, the rest of the path must hold in one of them (a map's values of several
        kinds, one of which has a field the others lack, read under a test of the kind)."""
        t = base
        for n, part in enumerate(parts):
            t = self.resolve(t)
            while isinstance(t, M.TArray):
                t = self.resolve(t.items)
            if isinstance(t, M.TSchema):
                t = object_shape(t, self.ir.defs) or t
            if isinstance(t, M.TMap):  # an open map: any member name, its values' type
                t = t.values if t.values is not None else M.TAny(t.loc)
            elif isinstance(t, M.TAny):
                continue
            elif isinstance(t, M.ObjectDef):
                f = t.field(part)
                if f is None:
                    raise self.fail(tok, f"{t.name} has no field {part!r} (in {path!r})")
                t = f.type
            elif isinstance(t, (M.UnionDef, M.TUnion)):
                u = t.union if isinstance(t, M.UnionDef) else t
                members = [self.resolve(m) for m in u.members]
                found = [m.field(part) for m in members if isinstance(m, M.ObjectDef) and m.field(part)]
                if not found:
                    raise self.fail(tok, f"no member of the union has a field {part!r} (in {path!r})")
                consts = [f.type for f in found if f is not None and isinstance(f.type, M.TConst)]
                if len(consts) == len(found):
                    t = M.TEnum(u.loc, tuple(str(c.value) for c in consts))
                    continue
                rest = parts[n + 1:]
                first: SpecError | None = None
                for f in found:
                    try:
                        return self.walk(f.type, rest, path, tok)  # type: ignore[union-attr]
                    except SpecError as exc:
                        first = first or exc
                assert first is not None
                raise first
            else:
                raise self.fail(tok, f"cannot take {part!r} of a non-object (in {path!r})")
        return t

    def values(self, t: M.TypeExpr | M.Definition) -> set[Any] | None:
        r = self.resolve(t)
        if isinstance(r, M.TConst):
            return {r.value}
        if isinstance(r, (M.TEnum, M.EnumDef)):
            return set(r.values)
        return None

    def admits(self, t: M.TypeExpr, value: Any) -> bool:
        values = self.values(t)
        return values is None or value in values

    # -- answers ------------------------------------------------------------------------------

    def answers(self, a: R.Answers) -> None:
        for rid in a.rules.values():
            self.rule(rid, a.at)
        ev = self.event(a.question_event, a.at)
        items = self.resolve(self.path(ev, a.question_list, a.at))
        if not isinstance(items, M.TArray):
            raise self.fail(a.at, f"{a.question_event}.{a.question_list} is not an array")
        self.path(items.items, a.question_id, a.at)
        if a.expires:
            self.path(items.items, a.expires, a.at)
        self.expr(a.open_when, ev)
        d = self.ir.defs.get(a.input_definition)
        if not isinstance(d, M.ObjectDef):
            raise self.fail(a.at, f"{a.input_definition!r} is not an object definition")
        entries = self.resolve(self.path(d, a.input_list, a.at))
        if not isinstance(entries, M.TArray):
            raise self.fail(a.at, f"{a.input_definition}.{a.input_list} is not an array")
        self.path(entries.items, a.input_id, a.at)
        if a.expires_unless is not None:
            self.expr(a.expires_unless, entries.items)

    # -- listings and retired shapes ------------------------------------------------------------

    def listing(self, x: R.Listing) -> None:
        for rid in x.rules.values():
            self.rule(rid, x.at)
        d = self.ir.defs.get(x.definition)
        if not isinstance(d, M.ObjectDef):
            raise self.fail(x.at, f"{x.definition!r} is not an object definition")
        items = self.resolve(self.path(d, x.list_field, x.at))
        if not isinstance(items, M.TArray):
            raise self.fail(x.at, f"{x.definition}.{x.list_field} is not an array")
        self.path(items.items, x.item_id, x.at)
        ev = self.event(x.event, x.at)
        created = self.path(ev, x.item_path, x.at)
        self.path(created, x.item_id, x.at)
        if self.resolve(created) != self.resolve(items.items):
            raise self.fail(x.at, f"{x.event}.{x.item_path} is not what {x.definition}.{x.list_field} lists")

    def retired(self) -> None:
        if self.rf.retired and self.rf.retired_rule is None:
            raise self.fail(self.rf.retired[0].at, "retired shapes need `on-retired RULE`: a translation is reported")
        for r in self.rf.retired:
            if r.event in self.out.event_types:
                raise self.fail(r.at, f"{r.event} is an event type of the schema: it is not retired")
            target = self.event(r.replacement, r.at)
            for name, how, value, tok in r.sets:
                f = self.field(r.replacement, name, tok)
                if how == "value" and not self.admits(f.type, value):
                    raise self.fail(tok, f"{r.replacement}.{name} cannot be {value!r}")
            for name in r.drops:
                if target.field(name) is not None:
                    raise self.fail(r.at, f"{name!r} is a field of {r.replacement}: it travels, it is not dropped")
