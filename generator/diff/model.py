"""What a diff reports: changes, each with the audiences it breaks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Who a change breaks (docs/upgrading.md explains each):
#   old-readers  a reader built from OLD, decoding strictly what a NEW writer sends, may refuse it
#   new-readers  a reader built from NEW may refuse what an OLD writer sent (or stored)
#   json-wire    the same value is spelled otherwise on the JSON wire (a property, enum value or
#                discriminator renamed, a type changed incompatibly): no reader absorbs it
#   proto-wire   the protobuf wire: a slot's number reassigned, dropped or reused, or a field
#                keeping its number under another type
#   conformance  the rules: a session one side's rules accept, the other's refuse (a MUST-level
#                rule only one side has, or a rule whose level crosses MUST)
AUDIENCES = ("old-readers", "new-readers", "json-wire", "proto-wire", "conformance")

# Change kinds, grouped for the human report
GROUPS = {
    "Definitions": ("definition-added", "definition-removed", "definition-renamed", "definition-kind", "composition", "root"),
    "Fields": ("field-added", "field-removed", "field-renamed", "presence"),
    "Enum values and union members": (
        "enum-value-added",
        "enum-value-removed",
        "enum-value-renamed",
        "union-member-added",
        "union-member-removed",
    ),
    "Types and constraints": ("type", "nullability", "constraint", "closedness", "discriminator"),
    "Rules": ("rule-added", "rule-removed", "rule-level", "rule-reference"),
    "Protobuf wire": ("slot-reassigned", "slot-dropped", "slot-reused", "slot-reserved", "slot-added", "slot-unnumbered", "wire-note"),
}
KINDS = tuple(k for kinds in GROUPS.values() for k in kinds)


@dataclass
class Change:
    kind: str
    subject: str  # `Definition`, `Definition.wireName`, `Enum.VALUE`, or a ledger key
    message: str
    breaks: tuple[str, ...] = ()
    old: Any = None
    new: Any = None
    confidence: float | None = None  # renames only: how sure, 0..1
    old_loc: str | None = None  # `file#/json/pointer` (or `file:line` for a ledger)
    new_loc: str | None = None
    # definition-removed in a schema with a root: whether the root reaches the definition (None:
    # no root, or another kind of change)
    reached: bool | None = None

    def __post_init__(self) -> None:
        assert self.kind in KINDS, self.kind
        self.breaks = tuple(a for a in AUDIENCES if a in self.breaks)

    @property
    def certainty(self) -> str | None:
        if self.confidence is None:
            return None
        return "high" if self.confidence >= 0.8 else "medium" if self.confidence >= 0.65 else "low"

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "subject": self.subject, "message": self.message, "breaks": list(self.breaks)}
        if self.old is not None:
            out["old"] = self.old
        if self.new is not None:
            out["new"] = self.new
        if self.confidence is not None:
            out["confidence"] = round(self.confidence, 2)
            out["certainty"] = self.certainty
        if self.old_loc:
            out["oldLocation"] = self.old_loc
        if self.new_loc:
            out["newLocation"] = self.new_loc
        if self.reached is not None:
            out["reachedFromRoot"] = self.reached
        return out


@dataclass
class Report:
    old: str
    new: str
    changes: list[Change] = field(default_factory=list)
    wire: dict[str, Any] = field(default_factory=lambda: {"compared": False})
    rules: dict[str, Any] = field(default_factory=lambda: {"compared": False})
    # the definitions removed, by what the OLD side's root makes of them: {"root": the root or
    # None, "reached": [...], "unreached": [...], "noRoot": [...]} (noRoot: all of them when
    # there is no root; reached and unreached: split by the root's reach)
    removed: dict[str, Any] = field(default_factory=lambda: {"root": None, "reached": [], "unreached": [], "noRoot": []})

    def add(self, change: Change) -> None:
        self.changes.append(change)

    @property
    def breaking(self) -> list[Change]:
        return [c for c in self.changes if c.breaks]

    def by_kind(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for c in self.changes:
            counts[c.kind] = counts.get(c.kind, 0) + 1
        return {k: counts[k] for k in KINDS if k in counts}

    def by_audience(self) -> dict[str, int]:
        return {a: sum(1 for c in self.changes if a in c.breaks) for a in AUDIENCES}

    def of(self, kind: str) -> list[Change]:
        return [c for c in self.changes if c.kind == kind]
