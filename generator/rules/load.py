"""Rules file -> checked AST -> tables, in one call for targets and the CLI."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from ..binding import Binding
from ..ir.model import IR
from .compile import Namer, compile_rules
from .lint import Lint, lint
from .model import RulesFile
from .parse import parse_rules


@dataclass(frozen=True)
class CompiledRules:
    source: str
    sha256: str
    ast: RulesFile
    lint: Lint
    tables: dict[str, Any]  # field paths in wire names

    def tables_for(self, name: Namer) -> dict[str, Any]:
        """The tables with field paths spelled by a target's namer."""
        return _compile(self.ast, self.lint, name)


def _identity(wire: str) -> str:
    return wire


def _compile(ast: RulesFile, info: Lint, name: Namer) -> dict[str, Any]:
    if ast.parties:  # two parties: rules read messages as JSON values, by their wire names
        name = _identity
    tables = compile_rules(ast, info, name)
    if info.universe is not None:
        tables["event_classes"] = {t: m.definition for t, m in info.universe.types.items()}
    else:
        tables["event_classes"] = {t: d.name for t, d in info.event_types.items()}
    return tables


def load_rules(binding: Binding, ir: IR) -> CompiledRules | None:
    """The spec's rules file parsed, checked against the IR and compiled (None: it has none)."""
    if binding.rules is None:
        return None
    shown = binding.display(binding.rules)
    ast = parse_rules(binding.rules, shown)
    info = lint(ast, ir)
    digest = hashlib.sha256(binding.rules.read_bytes()).hexdigest()
    return CompiledRules(shown, digest, ast, info, _compile(ast, info, _identity))
