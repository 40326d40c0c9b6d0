"""A spec's revisions on the command line: `--revision`, and the judge that routes each message of a
session to the revision its messages name (the family home's generated `family` module) before
that revision's own judge sees it. Used by `proxy` (and `replay` of transcripts)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

import click
import msgspec

from ..binding import Binding, load_binding
from ..errors import SpecError
from ..family import Family, load_family
from .common import load_package

_JSON = msgspec.json.Decoder()


def revision_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--revision", default=None, metavar="V",
        help="Judge every session with revision V of the spec's protocol family (binding.toml [family]) "
        "instead of the revision its messages name.",
    )(f)


def spec_family(spec_dir: Path, revision: str | None) -> Family | None:
    """The family the spec folder declares (None: a family of one), with `--revision` checked:
    a usage error when the family has no such revision (or, without a family, when it is not
    the spec's own version)."""
    try:
        family = load_family(spec_dir)
        version = load_binding(spec_dir).version
    except SpecError as exc:
        raise click.UsageError(str(exc)) from None
    versions = family.versions if family is not None else [version]
    if revision is not None and revision not in versions:
        raise click.BadParameter(f"{revision!r} is no revision of {spec_dir}: {', '.join(versions)}", param_hint="--revision")
    return family


class Judge(Protocol):
    violations: int
    warnings: int

    def feed(self, line: Any) -> list[str]: ...

    def finish(self) -> list[str]: ...


class FamilyJudge:
    """Each message routed to the revision its session speaks, then judged by that revision's
    judge (made by `make(package, binding)` for each revision's generated package and binding). The family's own
    findings (a fallback the answers refute, a second change of era) are reported with its
    rules; every finding names the revision that found it."""

    def __init__(self, family: Family, out: Path, forced: str | None, make: Callable[[ModuleType, Binding], Judge]) -> None:
        home = load_package(family.home, out)
        try:
            module = importlib.import_module(f"{home.__name__}.family")
        except ModuleNotFoundError:
            raise click.UsageError(f"{out}/{home.__name__} has no family module: run `specbind generate`") from None
        self.router = module.Router(forced=forced)
        self.judges: dict[str, Judge] = {r.version: make(load_package(r.spec_dir, out), load_binding(r.spec_dir)) for r in family.revisions}
        self.family_violations = 0
        self.family_warnings = 0

    @property
    def violations(self) -> int:
        return self.family_violations + sum(j.violations for j in self.judges.values())

    @property
    def warnings(self) -> int:
        return self.family_warnings + sum(j.warnings for j in self.judges.values())

    def feed(self, line: Any) -> list[str]:
        try:
            document = _JSON.decode(line.data)
        except msgspec.DecodeError:
            document = None
        deliveries, found = self.router.feed(line.party, document, line)
        return self._judge(deliveries, found)

    def finish(self) -> list[str]:
        deliveries, found = self.router.finish()
        out = self._judge(deliveries, found)
        for version in self.used():
            out += [f"{text} ({version})" for text in self.judges[version].finish()]
        return out

    def used(self) -> list[str]:
        """The revisions that judged some message, in the order they began."""
        seen: list[str] = []
        for s in self.router.segments:
            if s.revision not in seen:
                seen.append(s.revision)
        return seen

    def describe(self) -> str:
        return str(self.router.describe())

    def _judge(self, deliveries: list[Any], found: list[Any]) -> list[str]:
        out: list[str] = []
        for f in found:
            if f.fatal:
                self.family_violations += 1
            else:
                self.family_warnings += 1
            out.append(f"{f.rule} [{f.level}] message {f.index}: {f.message} ({f.ref[0]}, {f.ref[1]})")
        for d in deliveries:
            out += [f"{text} ({d.revision})" for text in self.judges[d.revision].feed(d.payload)]
        return out
