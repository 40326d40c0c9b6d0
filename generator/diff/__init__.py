"""`specbind diff`: what changed between two versions of a protocol, and who it breaks.

Both sides are loaded by the same loader and IR builder as generation (`sides`), compared at the
IR level (`schema`, with `types` for type expressions and `renames` for removed+added pairs that
are one thing renamed), their wire ledgers compared slot by slot (`wire`), their rules files rule
by rule (`rules`), and the result is
rendered for people, machines or a changelog (`render`). Nothing here knows any protocol.
"""

from __future__ import annotations

from pathlib import Path

from .model import AUDIENCES, Change, Report
from .rules import compare_rules
from .schema import compare_irs
from .sides import load_side
from .wire import compare_wire

__all__ = ["AUDIENCES", "Change", "Report", "diff"]


def diff(old: Path, new: Path) -> Report:
    """Compare two schema files or spec folders; a SpecError names a bad input's file and pointer."""
    a, b = load_side(old), load_side(new)
    report = Report(old=a.shown, new=b.shown)
    renames = compare_irs(a, b, report)
    compare_wire(a, b, report, renames)
    compare_rules(a, b, report)
    return report
