"""Compare two wire ledgers slot by slot.

A slot present in both with the same number is kept; with another number it is reassigned (a
peer on the other version reads the field as a different one, or not at all). A slot the new
ledger lost is dropped (its number may be handed out again), a new slot taking a number the
old ledger gave to another slot of the same scope reuses it; all three break the protobuf wire.
With a wire plan (a `[proto]` table naming roots), slots whose field is gone are reserved and
slots the new schema needs but its ledger lacks are listed as unnumbered.
"""

from __future__ import annotations

from .model import Change, Report
from .sides import Side


def scope_of(key: str) -> str:
    """The numbering scope of a ledger key: its message or enum. An arm of a oneof
    (`Message.oneof.arm`, the oneof lower-case) shares its message's numbers."""
    parts = key.split(".")
    if len(parts) >= 3 and parts[-2][:1].islower():
        return ".".join(parts[:-2])
    return ".".join(parts[:-1])


def compare_wire(a: Side, b: Side, report: Report, renames: dict[str, str]) -> None:
    if a.ledger is None or b.ledger is None:
        missing = [s.shown for s in (a, b) if s.ledger is None]
        report.wire = {"compared": False, "reason": f"no wire ledger in {' and '.join(missing)}"}
        if len(missing) == 1:
            report.add(Change("wire-note", "(ledger)", f"the protobuf wire is not compared: {missing[0]} has no ledger"))
        return
    old, new = a.ledger.entries, b.ledger.entries
    old_by_number = {(scope_of(k), n): k for k, n in old.items()}
    kept = reassigned = 0

    def loc(side: Side, key: str) -> str:
        assert side.ledger is not None
        return f"{side.ledger.path}:{side.ledger.lines.get(key, 0)}"

    for key in sorted(set(old) | set(new)):
        if key in old and key in new:
            if old[key] == new[key]:
                kept += 1
                if a.live is not None and b.live is not None and key in a.live and key not in b.live:
                    report.add(
                        Change("slot-reserved", key, f"= {new[key]} kept as reserved: its field is gone", (), old[key], new[key], None, loc(a, key), loc(b, key))
                    )
                continue
            reassigned += 1
            holder = old_by_number.get((scope_of(key), new[key]))
            was = f" (the number {holder} had)" if holder and holder != key else ""
            report.add(
                Change(
                    "slot-reassigned", key, f"number {old[key]} -> {new[key]}{was}", ("proto-wire",),
                    old[key], new[key], None, loc(a, key), loc(b, key),
                )
            )
        elif key in old:
            report.add(
                Change(
                    "slot-dropped", key, f"= {old[key]} is missing from the new ledger: the number may be reused (keep it, reserved)",
                    ("proto-wire",), old[key], None, None, loc(a, key), None,
                )
            )
        else:
            holder = old_by_number.get((scope_of(key), new[key]))
            if holder is not None and holder not in new:
                report.add(
                    Change(
                        "slot-reused", key, f"= {new[key]} reuses the number of the old slot {holder}",
                        ("proto-wire",), None, new[key], None, loc(a, holder), loc(b, key),
                    )
                )
            else:
                report.add(Change("slot-added", key, f"new slot = {new[key]}", (), None, new[key], None, None, loc(b, key)))
    for key, number in b.pending:
        report.add(
            Change(
                "slot-unnumbered", key,
                f"the new schema needs this slot and its ledger lacks it: `specbind generate --allow-new-slots` would number it {number}",
                (), None, number,
            )
        )
    report.wire = {
        "compared": True,
        "oldLedger": a.ledger.path,
        "newLedger": b.ledger.path,
        "oldSlots": len(old),
        "newSlots": len(new),
        "kept": kept,
        "reassigned": reassigned,
        "planned": a.live is not None and b.live is not None,
    }
