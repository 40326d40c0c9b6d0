"""Compare two sides' rules files: rules added, removed, and changed level or reference, by their
stable IDs. A rule that makes a session fail (MUST, MUST NOT) and that one side has and the other
has not, or whose level crosses that line, is a `conformance` break: a session one side's rules
accept, the other's refuse."""

from __future__ import annotations

from typing import Any

from .model import Change, Report
from .sides import Side

FATAL = ("MUST", "MUST NOT")


def _text(rule: Any) -> str:
    return f'{rule.level}, {rule.page} "{rule.section}": {rule.message}'


def compare_rules(a: Side, b: Side, report: Report) -> None:
    if a.rules is None or b.rules is None:
        missing = " and ".join(s.shown for s in (a, b) if s.rules is None)
        report.rules = {"compared": False, "reason": f"no rules file in {missing}"}
        return
    old, new = a.rules, b.rules
    added = [r for r in new if r not in old]
    removed = [r for r in old if r not in new]
    level = [r for r in new if r in old and new[r].level != old[r].level]
    moved = [r for r in new if r in old and (new[r].page, new[r].section) != (old[r].page, old[r].section)]
    for rid in added:
        rule = new[rid]
        breaks = ("conformance",) if rule.level in FATAL else ()
        report.add(Change("rule-added", rid, _text(rule), breaks, new=rule.level, new_loc=f"{b.rules_source}:{rule.at.line}"))
    for rid in removed:
        rule = old[rid]
        breaks = ("conformance",) if rule.level in FATAL else ()
        report.add(Change("rule-removed", rid, _text(rule), breaks, old=rule.level, old_loc=f"{a.rules_source}:{rule.at.line}"))
    for rid in level:
        o, n = old[rid], new[rid]
        breaks = ("conformance",) if (o.level in FATAL) != (n.level in FATAL) else ()
        report.add(Change("rule-level", rid, f"{o.level} -> {n.level}: {n.message}", breaks, o.level, n.level,
                          old_loc=f"{a.rules_source}:{o.at.line}", new_loc=f"{b.rules_source}:{n.at.line}"))
    for rid in moved:
        o, n = old[rid], new[rid]
        report.add(Change("rule-reference", rid, f'{o.page} "{o.section}" -> {n.page} "{n.section}"',
                          old_loc=f"{a.rules_source}:{o.at.line}", new_loc=f"{b.rules_source}:{n.at.line}"))
    report.rules = {"compared": True, "oldRules": len(old), "newRules": len(new), "added": len(added), "removed": len(removed),
                    "level": len(level), "kept": len(new) - len(added)}
