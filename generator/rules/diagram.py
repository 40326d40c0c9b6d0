"""The compiled rules as state diagrams: per machine and per entity, its states and the legal
transitions between them, each edge labelled with the event types that take it. Derived from
the compiled tables (never from the rules text), so a drawing shows what the automaton does.

Plain data (`as_context` shapes it for templates, which draw it: the Python target's RULES.md as
Mermaid `stateDiagram-v2`, which renders where people read Markdown)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# An edge taken by more event types than this is labelled with a count, not a list.
LABEL_LIMIT = 4


@dataclass
class Diagram:
    title: str
    initial: str | None  # the state a stream (machine) or an item (entity: absent) starts in
    states: list[str]
    edges: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (from, to) -> event types
    # states a stream may not end in, with the rule that says so
    final_rules: dict[str, str] = field(default_factory=dict)
    extra_starts: list[tuple[str, str]] = field(default_factory=list)  # (state, why): after-cursor


def diagrams(tables: dict[str, Any]) -> list[Diagram]:
    """The machine first, then each entity, as the tables compile them (conditional rows
    included: each alternative's target is a legal transition)."""
    machine = tables["machine"]
    m = Diagram(f"machine {machine['name']}", machine["initial"], list(machine["states"]))
    for state, rows in machine["table"].items():
        for event, row in rows.items():
            for alt in [row, *row.get("cases", [])]:
                if alt.get("target") is not None and not alt.get("fail"):
                    m.edges.setdefault((state, alt["target"]), []).append(event)
    m.final_rules = dict(machine["at_end"])
    if machine.get("after_cursor"):
        m.extra_starts.append((machine["after_cursor"], "a replay after a cursor"))
    out = [m]
    by_entity: dict[str, Diagram] = {
        name: Diagram(f"entity {name}", "absent", list(spec["states"])) for name, spec in tables["entities"].items()
    }
    for event, steps in tables["entity_steps"].items():
        for step in steps:
            d = by_entity[step["entity"]]
            for source, row in step["transitions"].items():
                if row["target"] is not None and not row["fail"]:
                    d.edges.setdefault((source, row["target"]), []).append(event)
    for d in by_entity.values():
        for events in d.edges.values():
            events[:] = sorted(set(events), key=events.index)
    return out + list(by_entity.values())


def _id(state: str) -> str:
    """A diagram id for a state: letters, digits and underscores."""
    return "".join(c if c.isalnum() else "_" for c in state)


def _label(events: list[str]) -> str:
    if len(events) > LABEL_LIMIT:
        return f"{len(events)} event types"
    return ", ".join(events)


def as_context(d: Diagram) -> dict[str, Any]:
    """A diagram as templates draw it: ids safe for any diagram syntax, labels decided."""
    return {
        "title": d.title,
        "states": [{"id": _id(s), "name": s, "renamed": _id(s) != s} for s in d.states],
        "initial": None if d.initial is None else _id(d.initial),
        "starts": [{"id": _id(s), "why": why} for s, why in d.extra_starts],
        "edges": [{"from": _id(a), "to": _id(b), "label": _label(ev), "events": ev} for (a, b), ev in d.edges.items()],
        "finals": [{"id": _id(s), "rule": rule} for s, rule in d.final_rules.items()],
    }


def parse_mermaid(text: str) -> dict[tuple[str, str], str]:
    """The edges a Mermaid state diagram draws, (from, to) -> label: what tests hold a drawing
    to (the states' display names are restored from their `state "x" as id` lines)."""
    names: dict[str, str] = {}
    edges: dict[tuple[str, str], str] = {}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("state ") and " as " in line:
            shown, ident = line[len("state ") :].rsplit(" as ", 1)
            names[ident] = shown.strip('"')
        elif "-->" in line and not line.startswith("[*]"):
            src, rest = line.split("-->", 1)
            dst, _, label = rest.partition(":")
            edges[(names.get(src.strip(), src.strip()), names.get(dst.strip(), dst.strip()))] = label.strip()
    return edges
