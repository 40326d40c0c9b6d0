"""One side of a diff: a bare schema file (no ledger) or a spec folder (binding.toml, overlays,
and the `[proto]` ledger with the wire plan when the folder declares one)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..binding import CONFIG, display_dir, load_binding
from ..errors import SpecError
from ..ir.build import build_ir
from ..ir.model import IR
from ..products import load_ir
from ..schema.loader import load_schema
from ..wire import ledger as L


@dataclass
class Side:
    shown: str
    ir: IR
    ledger: L.Ledger | None = None
    # slots the wire plan uses (None: no plan, only the ledger), and those it would append
    live: set[str] | None = None
    pending: list[tuple[str, int]] = field(default_factory=list)
    # the rules file's rules by ID (None: the side has no rules file), and how it is named
    rules: dict[str, Any] | None = None
    rules_source: str = ""
    # binding.toml's [protocol].root: the definition a document is read as when none is named
    default_root: str | None = None

    @property
    def root(self) -> str | None:
        """What a document is read as when no definition is named: the schema's own root, or
        the spec folder's; None when consumers always name a definition."""
        return self.ir.root or self.default_root

    def loc(self, pointer: str) -> str:
        return f"{self.ir.source}#{pointer}"


# What an upstream release folder holds when it is not a spec folder (no binding.toml): its
# schema under one of these names, and its wire ledger under one of those.
UPSTREAM_SCHEMAS = ("schema.json", "openapi.yaml", "openapi.yml", "openapi.json")
UPSTREAM_LEDGERS = ("proto-freeze.txt", "proto-ledger.txt")


def load_side(path: Path) -> Side:
    if path.is_dir() and not (path / CONFIG).exists():
        return _upstream(path)
    if path.is_dir():
        binding = load_binding(path)
        ir = load_ir(binding)
        side = Side(binding.display_dir, ir, default_root=binding.root)
        if binding.rules is not None:
            from ..rules.parse import parse_rules

            side.rules_source = binding.display(binding.rules)
            side.rules = dict(parse_rules(binding.rules, side.rules_source).rules)
        proto = binding.targets.get("proto")
        if isinstance(proto, dict) and isinstance(proto.get("ledger"), str):
            ledger_path = path / proto["ledger"]
            side.ledger = L.read(ledger_path, binding.display(ledger_path))
            if proto.get("roots"):
                from ..wire.plan import plan

                # plan on a copy of the ledger text: the new slots are counted, nothing is written
                wp = plan(binding, ir, ledger_text=ledger_path.read_text(encoding="utf-8"), allow_new=True)
                side.pending = list(wp.new_slots)
                side.live = _live_keys(wp)
        return side
    shown = display_dir(path)
    return Side(shown, build_ir(load_schema(path, shown)))


def _upstream(path: Path) -> Side:
    """A folder as upstream publishes a release: a schema and, beside it, a wire ledger."""
    shown = display_dir(path)
    schema = next((path / n for n in UPSTREAM_SCHEMAS if (path / n).is_file()), None)
    if schema is None:
        raise SpecError(
            shown, "", f"neither a spec folder ({CONFIG}) nor a release folder (one of {', '.join(UPSTREAM_SCHEMAS)})"
        )
    side = Side(shown, build_ir(load_schema(schema, f"{shown}/{schema.name}")))
    ledger = next((path / n for n in UPSTREAM_LEDGERS if (path / n).is_file()), None)
    if ledger is not None:
        side.ledger = L.read(ledger, f"{shown}/{ledger.name}")
    return side


def _live_keys(wp: object) -> set[str]:
    live: set[str] = set()
    for name, msg in wp.messages.items():  # type: ignore[attr-defined]
        for f in msg.fields:
            live.add(f"{name}.{f.oneof}.{f.name}" if f.oneof else f"{name}.{f.name}")
    for name, enum in wp.enums.items():  # type: ignore[attr-defined]
        for vname, _, _ in enum.values:
            live.add(f"{name}.{vname}")
    return live


__all__ = ["Side", "load_side"]
