"""What every target shares, computed once per spec folder: the IR, the checked rules, the wire
plan (when the spec binds protobuf), the validation table and the test corpus. All of it is
language-neutral: names are the schema's wire names, patterns are ECMA-262, tables are plain
data. Targets turn products into files; nothing here knows any target or any protocol."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from .binding import CONFIG, Binding
from .cases import derive_cases
from .corpus import load_conformance, load_fixtures, load_rule_examples
from .errors import SpecError
from .ir.build import build_ir
from .ir.model import IR
from .rules.load import CompiledRules, load_rules
from .schema.loader import load_schema
from .validation_table import validation_table
from .wire.plan import WirePlan, plan


@dataclass(frozen=True)
class LedgerUpdate:
    """A wire ledger that grew (`--allow-new-slots`): what to write where, and why."""

    path: Path
    shown: str
    text: str
    new_slots: tuple[tuple[str, int], ...]


@dataclass
class Products:
    binding: Binding
    ir: IR
    rules: CompiledRules | None  # the rules file, checked and compiled with wire names
    wire: WirePlan | None  # the protobuf wire plan, when binding.toml has a [proto] table
    extras: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def validation(self) -> dict[str, Any]:
        """The IR as the table a validator interprets (definition name -> node)."""
        return validation_table(self.ir)

    @cached_property
    def cases(self) -> list[dict[str, Any]]:
        """Valid and invalid documents derived from every constraint of the IR."""
        return derive_cases(self.ir, self.validation)

    @cached_property
    def fixtures(self) -> dict[str, Any]:
        return load_fixtures(self.binding, self.ir.defs)

    @cached_property
    def conformance(self) -> dict[str, Any]:
        return load_conformance(self.binding)

    @cached_property
    def rule_examples(self) -> dict[str, Any]:
        assert self.rules is not None
        return load_rule_examples(self.binding, self.rules.ast)

    @property
    def ledger_update(self) -> LedgerUpdate | None:
        if self.wire is None or not self.wire.ledger_changed:
            return None
        w = self.wire
        return LedgerUpdate(w.ledger_path, w.ledger_shown, w.ledger.render(), tuple(w.new_slots))


def load_ir(binding: Binding) -> IR:
    overlays = [(o, binding.display(o)) for o in binding.overlays]
    doc = load_schema(binding.schema, binding.display(binding.schema), overlays, binding.annotations, binding.root_name)
    ir = build_ir(doc, binding.integers, binding.formats)
    root = binding.root
    if root is not None and root not in ir.defs:
        raise SpecError(binding.display(binding.spec_dir / CONFIG), "[protocol].root", f"no definition named {root!r}")
    return ir


def compute(binding: Binding, allow_new_slots: bool = False) -> Products:
    """Every shared product of one spec. A ledger that would grow is refused unless allowed:
    the grown ledger is then in `ledger_update`, for the caller to write (nothing here writes)."""
    ir = load_ir(binding)
    rules = load_rules(binding, ir)
    wire = plan(binding, ir, allow_new=allow_new_slots) if "proto" in binding.targets else None
    return Products(binding, ir, rules, wire)
