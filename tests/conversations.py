"""Random conversations of a protocol of two parties, made from a generated package's own rule
tables and documents: a seeded walk that sends, as the machine's current state allows, requests,
notifications and the answers to requests still open, each message a random valid document of
its definition (the package's `strategies.document`), kept when the package's automaton reports
nothing on it (its capability gates, phases and checks pick the moves); at the end every open
request is answered. Each conversation is conformant to the Python binding by construction: what
it is for is holding the TypeScript binding to identical reports on traffic no one wrote
(tests/test_typescript.py), with random capabilities, parameters and results throughout.

Nothing here knows the protocol: the parties, methods, result kinds and envelope fields come
from the tables (`message_types`, `results`, `envelope`, `exchanges`)."""

from __future__ import annotations

import copy
import importlib
import json
import random
from typing import Any


def conversations(package: str, count: int, seed: int = 0, length: int = 24) -> list[tuple[str, list[dict[str, Any]]]]:
    tables = importlib.import_module(f"{package}.automaton_table").TABLES
    strategies = importlib.import_module(f"{package}.strategies")
    automaton_type = importlib.import_module(f"{package}.automaton").Automaton
    walker = _Walker(tables, strategies, automaton_type)
    out: list[tuple[str, list[dict[str, Any]]]] = []
    n = seed
    while len(out) < count:  # a walk cut back to nothing is no conversation: the next seed
        entries = walker.walk(random.Random(n), length)
        if entries:
            out.append((f"conversation:{n}", entries))
        n += 1
    return out


class _Walker:
    def __init__(self, tables: dict[str, Any], strategies: Any, automaton_type: Any) -> None:
        self.tables = tables
        self.strategies = strategies
        self.automaton_type = automaton_type
        self.types: dict[str, dict[str, Any]] = tables["message_types"]
        self.classes: dict[str, str] = tables["event_classes"]
        self.envelope = {k["kind"]: k for k in tables["envelope"]}
        self.id_field = self.envelope["request"]["id"]
        self.other = dict(zip(tables["parties"], reversed(tables["parties"])))
        self.references = tables["exchanges"]["references"]

    def judge(self, entries: list[dict[str, Any]], finish: bool = False) -> list[str]:
        automaton = self.automaton_type()
        found = []
        for entry in entries:
            found += automaton.feed_document(json.dumps(entry))
        if finish:
            found += automaton.finish()
        return [f.rule for f in found]

    def state(self, entries: list[dict[str, Any]]) -> str:
        automaton = self.automaton_type()
        for entry in entries:
            automaton.feed_document(json.dumps(entry))
        return str(automaton.state)

    def document(self, definition: str, rnd: random.Random) -> Any:
        return self.strategies.document(definition, seed=rnd.randrange(1 << 30), max_depth=3, max_items=2, extras=0.0)

    def message(self, type_: str, rnd: random.Random, open_: list[tuple[str, str, Any]], serial: int) -> tuple[dict[str, Any], tuple[str, str, Any] | None] | None:
        """A message of the type, and the request it opens or the one it answers."""
        meta = self.types[type_]
        sender, kind, method = meta["sender"], meta["kind"], meta["method"]
        if kind in ("request", "notification"):
            doc = self.document(self.classes[type_], rnd)
            if not isinstance(doc, dict):
                return None
            if kind == "request":
                doc[self.id_field] = f"{sender[0]}{serial}"
                return {"from": sender, "message": doc}, (sender, method, doc[self.id_field])
            reference = self.references.get(type_)
            if reference is not None:
                owner = sender if reference["how"] == "cancel" else self.other[sender]
                mine = [o for o in open_ if o[0] == owner]
                if not mine:
                    return None
                target = rnd.choice(mine)
                if reference["how"] == "track":
                    return None  # a token is chosen by its request; the walk leaves progress out
                node = doc
                for part in reference["field"][:-1]:
                    node = node.setdefault(part, {})
                node[reference["field"][-1]] = target[2]
                return {"from": sender, "message": doc}, target  # cancelled: it needs no answer
            return {"from": sender, "message": doc}, None
        requester = self.other[sender]
        waiting = [o for o in open_ if o[0] == requester and o[1] == method]
        if not waiting:
            return None
        target = waiting[0]
        envelope = self.envelope[kind]
        payload = self.document(self.classes[type_], rnd)
        doc = {**self.document(envelope["definition"], rnd), envelope["id"]: target[2], envelope["payload"]: payload}
        for other in ("result", "error"):
            spec = self.envelope.get(other)
            if spec is not None and spec["payload"] != envelope["payload"]:
                doc.pop(spec["payload"], None)
        return {"from": sender, "message": doc}, target

    def walk(self, rnd: random.Random, length: int) -> list[dict[str, Any]]:
        entries: list[dict[str, Any]] = []
        open_: list[tuple[str, str, Any]] = []
        serial = 0
        table = self.tables["machine"]["table"]
        state = self.tables["machine"]["initial"]
        for _ in range(length * 8):
            if len(entries) >= length:
                break
            serial += 1
            # the kinds of message the machine lets through where it is
            names = sorted(t for t, row in table[state].items() if not row["fail"] or row.get("cases"))
            if not names:
                break
            type_ = rnd.choice(names)
            made = self.message(type_, rnd, open_, serial)
            if made is None:
                continue
            entry, link = made
            if self.judge(entries + [entry]) != []:
                continue
            entries.append(entry)
            state = self.state(entries)
            if link is not None:
                if self.types[type_]["kind"] == "request":
                    open_.append(link)
                elif link in open_:
                    open_.remove(link)
        # the end: every open request answered (a result of the kind the tables expect, or an error)
        for _ in range(len(open_) * 12):
            if not open_:
                break
            pick = rnd.choice(open_)
            sender = self.other[pick[0]]
            candidates = [t for t, m in self.types.items() if m["sender"] == sender and m["method"] == pick[1] and m["kind"] in ("result", "error")]
            made = self.message(rnd.choice(sorted(candidates)), rnd, open_, serial)
            if made is None or self.judge(entries + [made[0]]) != []:
                continue
            entries.append(made[0])
            open_.remove(made[1])  # type: ignore[arg-type]
        at_end = self.tables["machine"]["at_end"]
        for _ in range(200):  # a state the session may not end in: a move out of it
            if state not in at_end:
                break
            names = sorted(t for t, row in table[state].items() if not row["fail"] and row["target"] != state)
            made = self.message(rnd.choice(names), rnd, open_, serial) if names else None
            if made is None or made[1] is not None or self.judge(entries + [made[0]]) != []:
                continue
            entries.append(made[0])
            state = self.state(entries)
        while self.judge(entries, finish=True) != [] and entries:
            entries.pop()  # a conversation that cannot end clean is cut to where it can
        return copy.deepcopy(entries)
