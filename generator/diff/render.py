"""A diff report for people (text), machines (JSON) and changelogs (Markdown)."""

from __future__ import annotations

import json

from .model import AUDIENCES, GROUPS, Change, Report


def _line(c: Change) -> str:
    tag = f"[breaks {', '.join(c.breaks)}] " if c.breaks else ""
    return f"{tag}{c.subject}: {c.message}"


def _summary(report: Report) -> list[str]:
    kinds = ", ".join(f"{n} {k}" for k, n in report.by_kind().items()) or "none"
    audiences = ", ".join(f"{a} {n}" for a, n in report.by_audience().items() if n) or "nothing"
    out = [f"changes: {kinds}", f"breaks: {audiences}"]
    gone = report.removed
    if gone.get("reached") or gone.get("unreached"):
        reached, unreached = gone["reached"], gone["unreached"]
        out.append(
            f"definitions removed: {len(reached)} the root {gone['root']} reaches ({', '.join(reached) or 'none'}: their references say what breaks), "
            f"{len(unreached)} it does not reach ({', '.join(unreached) or 'none'}: in no document of the root; only decoding them by name is gone)"
        )
    elif gone.get("noRoot"):
        out.append(f"definitions removed: {len(gone['noRoot'])} ({', '.join(gone['noRoot'])}: the schema has no root, every one was an entry point)")
    w = report.wire
    if w.get("compared"):
        out.append(f"wire ledgers: {w['oldSlots']} -> {w['newSlots']} slots, {w['kept']} kept, {w['reassigned']} reassigned")
    else:
        out.append(f"wire ledgers: not compared ({w.get('reason', '')})")
    r = report.rules
    if r.get("compared"):
        out.append(f"rules: {r['oldRules']} -> {r['newRules']}, {r['kept']} kept ({r['level']} at another level), {r['added']} added, {r['removed']} removed")
    else:
        out.append(f"rules: not compared ({r.get('reason', '')})")
    return out


def text(report: Report) -> str:
    lines = [f"specbind diff {report.old} -> {report.new}"]
    for group, kinds in GROUPS.items():
        changes = [c for c in report.changes if c.kind in kinds]
        if not changes:
            continue
        lines.append("")
        lines.append(f"{group} ({len(changes)}):")
        for c in sorted(changes, key=lambda c: (kinds.index(c.kind), c.subject)):
            lines.append(f"  {c.kind:<20} {_line(c)}")
            for label, where in (("was", c.old_loc), ("now", c.new_loc)):
                if where and c.breaks:
                    lines.append(f"  {'':<20}   {label} {where}")
    lines.append("")
    lines.extend(_summary(report))
    n = len(report.breaking)
    lines.append(f"{'BREAKING' if n else 'compatible'}: {n} breaking change{'s' if n != 1 else ''}")
    return "\n".join(lines)


def as_json(report: Report) -> str:
    return json.dumps(
        {
            "old": report.old,
            "new": report.new,
            "breaking": bool(report.breaking),
            "summary": {"byKind": report.by_kind(), "byAudience": report.by_audience()},
            "wire": report.wire,
            "rules": report.rules,
            "definitionsRemoved": report.removed,
            "changes": [c.as_dict() for c in report.changes],
        },
        ensure_ascii=False,
        indent=2,
    )


def _md(s: str) -> str:
    return s.replace("|", "\\|")


def markdown(report: Report) -> str:
    out = [f"## Schema changes: `{report.old}` -> `{report.new}`", ""]
    breaking = report.breaking
    renames = [c for c in report.changes if c.kind.endswith("-renamed")]
    if breaking:
        out += ["### Breaking", ""]
        for audience in AUDIENCES:
            hit = [c for c in breaking if audience in c.breaks]
            if not hit:
                continue
            out.append(f"- **{audience}** ({len(hit)}):")
            if audience == "proto-wire" and len(hit) > 20:
                out.append(f"  - {', '.join(f'`{c.subject}` {c.old}->{c.new}' for c in hit if c.kind == 'slot-reassigned')}")
                out += [f"  - `{c.subject}`: {_md(c.message)}" for c in hit if c.kind != "slot-reassigned"]
                continue
            out += [f"  - `{c.subject}`: {_md(c.message)}" for c in hit]
        out.append("")
    if renames:
        out += ["### Renamed", ""]
        out += [f"- `{c.old}` -> `{c.new}` ({c.certainty} confidence, {c.confidence:.2f})" for c in renames]
        out.append("")
    for title, kinds in (("Added", ("definition-added", "field-added", "enum-value-added", "union-member-added", "slot-added", "rule-added")),
                         ("Removed", ("definition-removed", "field-removed", "enum-value-removed", "union-member-removed", "rule-removed")),
                         ("Changed", ("rule-level", "rule-reference"))):
        items = [c for c in report.changes if c.kind in kinds and not c.breaks]
        if items:
            out += [f"### {title}", ""] + [f"- `{c.subject}`: {_md(c.message)}" for c in items] + [""]
    out += ["### Summary", ""] + [f"- {s}" for s in _summary(report)]
    return "\n".join(out) + "\n"
