"""A linted rules file -> transition tables: plain data a small generic interpreter runs, in the
format docs/rules-tables.md documents (named fields throughout, JSON-serializable).

Field names are handed to `name`, so a target can have the spelling its models use (the shared
product uses the wire names themselves; the Python target, its attributes); wherever a name is
shown in a message, the wire name travels beside it. Every (state, event type) pair of the machine
is spelled out, so the tables say, for every pair, where it goes or which rule forbids it."""

from __future__ import annotations

from typing import Any, Callable

from . import model as R
from .lint import Lint
from .syntax import split_path

Namer = Callable[[str], str]


def compile_rules(rf: R.RulesFile, info: Lint, name: Namer) -> dict[str, Any]:
    return _Compiler(rf, info, name).run()


class _Compiler:
    def __init__(self, rf: R.RulesFile, info: Lint, name: Namer) -> None:
        self.rf = rf
        self.info = info
        self.name = name
        self.types = list(info.event_types)

    def path(self, dotted: str) -> tuple[str, ...]:
        return tuple(self.name(p) for p in split_path(dotted))

    def run(self) -> dict[str, Any]:
        rf = self.rf
        assert rf.machine is not None
        tables = {
            "event_types": self.types,
            "events_definition": rf.events_union or None,
            "discriminator": self.name(rf.discriminator) if rf.discriminator else None,
            "discriminator_wire": rf.discriminator or None,
            "owner": self.name(rf.owner) if rf.owner else None,
            "rules": {
                r.id: {"level": r.level, "page": r.page, "section": r.section, "message": r.message}
                for r in rf.rules.values()
            },
            "fatal_levels": list(R.FATAL_LEVELS),
            "decode_error_rule": rf.decode_error_rule[0] if rf.decode_error_rule else None,
            "stripped_rule": rf.stripped_rule[0] if rf.stripped_rule else None,
            "unknown_event_rule": rf.unknown_event_rule[0] if rf.unknown_event_rule else None,
            "retired_rule": rf.retired_rule[0] if rf.retired_rule else None,
            "machine": self.machine(rf.machine),
            "entities": {
                e.name: {
                    "key": [list(self.path(k)) for k in e.key],
                    "key_wire": e.key,
                    "states": e.states,
                    "outlives_run": e.outlives_run,
                }
                for e in rf.entities
            },
            "entity_steps": self.entity_steps(),
            "sequence": None
            if rf.sequence is None
            else {
                "field": list(self.path(rf.sequence.field)),
                "key": list(self.path(rf.sequence.key)),
                "field_wire": rf.sequence.field,
                "key_wire": rf.sequence.key,
                "start": rf.sequence.start,
                "gap": rf.sequence.gap,
                "conflict": rf.sequence.conflict,
            },
            "chunks": self.chunks(),
            "checks": self.checks(),
            "answers": {a.name: self.answers(a) for a in rf.answers},
            "listings": {x.name: self.listing(x) for x in rf.listings},
            "retired": {
                r.event: {
                    "as": r.replacement,
                    "set": [{"wire": name, "how": how, "value": value} for name, how, value, _ in r.sets],
                    "drop": r.drops,
                }
                for r in rf.retired
            },
            "passed": list(self.info.passed),
        }
        if self.info.universe is not None:
            tables.update(self.parties())
        return tables

    def parties(self) -> dict[str, Any]:
        """The tables of a protocol of two parties (docs/rules-tables.md, "Two parties")."""
        u = self.info.universe
        rf = self.rf
        assert u is not None and rf.exchanges is not None
        ex = rf.exchanges
        facts: dict[str, list[Any]] = {}
        for f in rf.facts:
            for ev in self.info.types_for(f.events, [], f.sender)[0]:
                facts.setdefault(ev, []).append({"name": f.name, "path": list(self.path(f.path)), "wire": f.path})
        references: dict[str, Any] = {}
        for r in ex.references:
            for ev in self.info.types_for(r.events, [], r.sender)[0]:
                references[ev] = {
                    "how": r.how,
                    "field": list(self.path(r.field)),
                    "wire": r.field,
                    "request_field": None if r.request_field is None else list(self.path(r.request_field)),
                    "keep": r.keep,
                    "rule": r.rule,
                    "unique": r.unique,
                    "rising": None,
                }
        for g in ex.rising:
            for ev in self.info.types_for(g.events, [], None)[0]:
                references[ev]["rising"] = {"field": list(self.path(g.field)), "wire": g.field, "rule": g.rule}
        return {
            "parties": list(rf.parties),
            "envelope": u.envelope,
            "messages": u.messages,
            "message_types": {
                t.name: {"sender": t.sender, "kind": t.kind, "method": t.method, "alt": t.alt} for t in u.types.values()
            },
            "results": {
                method: [
                    {"name": a.name, "definition": a.definition, "when": None if a.when is None else self.expr(a.when), "by": a.by}
                    for a in alts
                ]
                for method, alts in u.results.items()
            },
            "error_definition": u.error_definition,
            "facts": facts,
            "exchanges": {
                "rules": {name: rule for name, (rule, _) in sorted(ex.rules.items())},
                "references": references,
                "remember": [list(self.path(p)) for p in self.info.request_paths],
            },
        }

    def field(self, wire: str, default: Any = None) -> dict[str, Any]:
        return {"field": self.name(wire), "wire": wire, "default": default}

    def requires(self, reqs: list[R.Require], entity: R.Entity | None = None) -> list[dict[str, Any]]:
        remembered = entity.remember if entity else {}
        out: list[dict[str, Any]] = []
        for r in reqs:
            if r.kind == "closed":
                out.append({"kind": "closed", "entities": r.args, "rule": r.rule})
            elif r.kind == "same":
                out.append({"kind": "same", "field": self.name(r.args[0]), "wire": r.args[0], "rule": r.rule})
            elif r.kind in ("agree", "agree-if-present"):
                fields = [self.field(f, r.defaults.get(f, remembered.get(f))) for f in r.args]
                out.append({"kind": r.kind, "fields": fields, "rule": r.rule})
            elif r.kind == "in-state":
                out.append({"kind": "in-state", "field": list(self.path(r.args[0])), "wire": r.args[0], "rule": r.rule})
            else:
                out.append({"kind": r.kind, "entity": r.target, "field": self.name(r.args[0]), "wire": r.args[0], "rule": r.rule})
        return out

    def row(self, t: R.Transition, state: str) -> dict[str, Any]:
        return {
            "target": (state if t.target in (None, "stay") else t.target) if not t.fail else None,
            "fail": t.fail,
            "requires": self.requires(t.requires),
            "actions": t.actions,
        }

    def machine(self, m: R.Machine) -> dict[str, Any]:
        # chunk events never reach the machine: their expansions do
        chunked = {k.event for k in self.rf.chunk_kinds}
        table: dict[str, dict[str, Any]] = {s: {} for s in m.states}
        cases: dict[tuple[str, str], list[dict[str, Any]]] = {}
        # the most specific transition wins: names given one by one over `*KIND` over `*`
        ranked = sorted(m.transitions, key=lambda t: -self.info.types_for(t.events, t.exclude, t.sender)[1])
        for t in ranked:
            types = self.info.types_for(t.events, t.exclude, t.sender)[0]
            types = [x for x in types if x not in chunked]
            for s in t.sources:
                for ev in types:
                    if t.when is not None:
                        cases.setdefault((s, ev), []).append({"when": self.expr(t.when), **self.row(t, s)})
                    elif ev not in table[s]:  # an explicit transition wins over '*'
                        table[s][ev] = self.row(t, s)
        for (s, ev), alternatives in cases.items():
            table[s][ev] = {**table[s][ev], "cases": alternatives}
        return {
            "name": m.name,
            "states": m.states,
            "initial": m.initial,
            "after_cursor": m.after_cursor,
            "identity": None if m.identity is None else list(self.path(m.identity)),
            "table": table,
            "at_end": {s: t.fail for t in m.at_end for s in t.sources},
        }

    def entity_steps(self) -> dict[str, list[Any]]:
        chunked = {k.event for k in self.rf.chunk_kinds}
        steps: dict[str, list[Any]] = {}
        for e in self.rf.entities:
            per_type: dict[str, dict[str, Any]] = {}
            for t in e.transitions:
                types = self.info.types_for(t.events, t.exclude, t.sender)[0]
                types = [x for x in types if x not in chunked]
                for ev in types:
                    if t.events == ["*"] and any(self.info.event_types[ev].field(k) is None for k in e.key):
                        continue  # '*' means: every event that carries the key
                    for s in t.sources:
                        target = None if t.target == "stay" else t.target
                        row: dict[str, Any] = {"target": target, "fail": t.fail, "requires": self.requires(t.requires, e)}
                        if t.target_field is not None:  # the item moves to the state the field names
                            row["target_field"] = list(self.path(t.target_field))
                        per_type.setdefault(ev, {})[s] = row
            remember = [self.field(f, d) for f, d in e.remember.items()]
            for ev, trans in per_type.items():
                wires = next((t.key for t in e.transitions if t.key and ev in self.info.types_for(t.events, t.exclude, t.sender)[0]), None) or e.key
                key = [list(self.path(k)) for k in wires]
                optional = [list(self.path(k)) for k in wires if k == self.rf.owner]
                steps.setdefault(ev, []).append(
                    {
                        "entity": e.name,
                        "key": key,
                        "key_wire": list(wires),
                        "optional": optional,
                        "transitions": trans,
                        "remember": remember,
                    }
                )
        return {ev: steps[ev] for ev in self.types if ev in steps}

    def chunks(self) -> dict[str, Any] | None:
        c = self.rf.chunks
        if c is None:
            return None

        def part(p: tuple[str, list[str], dict[str, Any]]) -> dict[str, Any]:
            return {"type": p[0], "copy": [self.name(f) for f in p[1]], "fixed": {self.name(k): v for k, v in p[2].items()}}

        return {
            "lane": self.name(c.lane),
            "close_all": c.close_all,
            "close_owner": c.close_owner,
            "close_lane": c.close_lane,
            "ambiguous": c.ambiguous,
            "kinds": {
                k.event: {
                    "id": self.name(k.id_field),
                    "start": part(k.start),
                    "content": part(k.content),
                    "end": part(k.end),
                    "first": [self.name(f) for f in k.first_requires],
                    "first_rule": k.first_rule,
                    "agree": [self.field(f, d) for f, d in k.agree.items()],
                    "agree_rule": k.agree_rule,
                }
                for k in self.rf.chunk_kinds
            },
        }

    def expr(self, e: Any) -> dict[str, Any]:
        """An expression tree: {"op", ...}; `field`, `present`, `absent`, `unique`, `length`
        carry a `path` (and its `wire` spelling), `lit` a `value`, `cmp` its `cmp` and two
        `args`, `and`, `or`, `add`, `sub` two `args`, `not` one."""
        op = e[0]
        if op == "field":
            return {"op": "field", **self.operand(e)}
        if op in ("present", "absent", "unique", "length"):
            return {"op": op, **self.operand(e[1])}
        if op == "lit":
            return {"op": "lit", "value": e[1]}
        if op == "cmp":
            return {"op": "cmp", "cmp": e[1], "args": [self.expr(e[2]), self.expr(e[3])]}
        return {"op": op, "args": [self.expr(x) for x in e[1:]]}

    def operand(self, f: Any) -> dict[str, Any]:
        """A field path in its scope: the message's (no `scope`), `request` (the request a
        message answers or refers to) or a fact (`scope: fact`, `fact`: its name)."""
        scope = f[3] if len(f) > 3 else None
        if scope == "fact":
            name, _, rest = f[1].partition(".")
            return {"path": list(self.path(rest)) if rest else [], "wire": f[1], "scope": "fact", "fact": name}
        node = {"path": list(self.path(f[1])), "wire": f[1]}
        return node if scope is None else {**node, "scope": scope}

    def checks(self) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {}
        for c in self.rf.checks:
            facts = sorted(set(_facts(c.expr)))
            for ev in self.info.types_for(c.events, [], c.sender)[0]:
                check: dict[str, Any] = {"rule": c.rule, "each": self.name(c.each) if c.each else None, "expect": self.expr(c.expr)}
                if facts:  # what a finding of it relied on, named in {declared}
                    check["facts"] = facts
                out.setdefault(ev, []).append(check)
        return out

    def answers(self, a: R.Answers) -> dict[str, Any]:
        return {
            "questions": {"event": a.question_event, "list": list(self.path(a.question_list)), "id": self.name(a.question_id)},
            "open_when": self.expr(a.open_when),
            "input": {"definition": a.input_definition, "list": list(self.path(a.input_list)), "id": self.name(a.input_id)},
            "expires": self.name(a.expires) if a.expires else None,
            "expires_unless": self.expr(a.expires_unless) if a.expires_unless is not None else None,
            "rules": a.rules,
        }

    def listing(self, x: R.Listing) -> dict[str, Any]:
        return {
            "definition": x.definition,
            "list": list(self.path(x.list_field)),
            "id": list(self.path(x.item_id)),
            "event": x.event,
            "item": list(self.path(x.item_path)),
            "rules": x.rules,
        }


def _facts(e: Any) -> list[str]:
    """The facts an expression reads."""
    if not isinstance(e, tuple) or not e:
        return []
    if e[0] == "field":
        return [e[1].partition(".")[0]] if len(e) > 3 and e[3] == "fact" else []
    return [name for part in e[1:] for name in _facts(part)]
