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
        return tuple(self.name(p) for p in dotted.split("."))

    def run(self) -> dict[str, Any]:
        rf = self.rf
        assert rf.machine is not None
        return {
            "event_types": self.types,
            "events_definition": rf.events_union,
            "discriminator": self.name(rf.discriminator),
            "discriminator_wire": rf.discriminator,
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
        for explicit in (True, False):
            for t in m.transitions:
                if (t.events != ["*"]) != explicit:
                    continue
                types = self.types if t.events == ["*"] else t.events
                types = [x for x in types if x not in t.exclude and x not in chunked]
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
                types = self.types if t.events == ["*"] else t.events
                types = [x for x in types if x not in t.exclude and x not in chunked]
                for ev in types:
                    if t.events == ["*"] and any(self.info.event_types[ev].field(k) is None for k in e.key):
                        continue  # '*' means: every event that carries the key
                    for s in t.sources:
                        per_type.setdefault(ev, {})[s] = {
                            "target": t.target,
                            "fail": t.fail,
                            "requires": self.requires(t.requires, e),
                        }
            remember = [self.field(f, d) for f, d in e.remember.items()]
            for ev, trans in per_type.items():
                wires = next((t.key for t in e.transitions if t.key and (ev in t.events or t.events == ["*"])), None) or e.key
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
            return {"op": "field", "path": list(self.path(e[1])), "wire": e[1]}
        if op in ("present", "absent", "unique", "length"):
            return {"op": op, "path": list(self.path(e[1][1])), "wire": e[1][1]}
        if op == "lit":
            return {"op": "lit", "value": e[1]}
        if op == "cmp":
            return {"op": "cmp", "cmp": e[1], "args": [self.expr(e[2]), self.expr(e[3])]}
        return {"op": op, "args": [self.expr(x) for x in e[1:]]}

    def checks(self) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {}
        for c in self.rf.checks:
            for ev in c.events:
                out.setdefault(ev, []).append({"rule": c.rule, "each": self.name(c.each) if c.each else None, "expect": self.expr(c.expr)})
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
