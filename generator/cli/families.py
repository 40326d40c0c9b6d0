"""A spec's revisions on the command line: `--revision`, and the judge that routes each message of a
session to the revision its messages name (the family home's generated `family` module) before
that revision's own judge sees it. Used by `proxy` (and `replay` of transcripts)."""

from __future__ import annotations

import importlib
import sys
from array import array
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

import click
import msgspec

from ..binding import Binding, load_binding
from ..errors import SpecError
from ..family import Family, load_family
from .common import fail, load_package

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
        fail(exc)  # one line, exit 2, as every command says a spec it refuses
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


class FindingText:
    """A finding as `replay` prints it in text mode, with the revision that found it."""

    def __init__(self, entry: dict[str, Any], unit: str = "event") -> None:
        self.entry = entry
        self.unit = unit  # what an index counts: a message of two parties, or an event

    def __str__(self) -> str:
        e = self.entry
        kind = f" ({e['type']})" if e.get("type") else ""
        return f"{e['rule']} [{e['level']}] {self.unit} {e['index']}{kind}: {e['message']} [{e['revision']}]"


class FamilyReplay:
    """`replay` for a protocol family, as a generated package's `replay` module is called (one
    stream in, its report out, with the same shape): every line of a JSON Lines stream (a
    transcript line `{"from", "message"}`, or an event) is routed to the revision its session
    speaks and judged by that revision's automaton; the findings keep their place in the whole
    stream and name their revision, the family's own findings join them, and the report says
    which revisions judged which messages (`revisions`)."""

    def __init__(self, family: Family, out: Path, forced: str | None) -> None:
        home = load_package(family.home, out)
        try:
            self.router_type = importlib.import_module(f"{home.__name__}.family").Router
        except ModuleNotFoundError:
            raise click.UsageError(f"{out}/{home.__name__} has no family module: run `specbind generate`") from None
        self.automata: dict[str, ModuleType] = {}
        self.out = out
        self.spec_dirs: dict[str, Path] = {r.version: r.spec_dir for r in family.revisions}
        # revisions that declare no rules: their messages are routed, counted and said unjudged
        self.unjudged: dict[str, Path] = {}
        for r in family.revisions:
            package = load_package(r.spec_dir, out)
            try:
                self.automata[r.version] = importlib.import_module(f"{package.__name__}.automaton")
            except ModuleNotFoundError:
                self.unjudged[r.version] = r.spec_dir
        if not self.automata or (forced is not None and forced in self.unjudged):
            which = forced if forced is not None else ", ".join(self.unjudged)
            raise click.UsageError(f"revision {which} ({self.unjudged[forced or next(iter(self.unjudged))]}) declares no rules file: there is nothing to replay against")
        self.forced = forced
        self.family_rules: dict[str, dict[str, Any]] = self.router_type(forced=forced).rules

    @property
    def unit(self) -> str:
        """What a finding's index counts, as the revisions' packages say it (two parties: messages)."""
        return next((str(m._UNIT) for m in self.automata.values() if hasattr(m, "_UNIT")), "event")

    @property
    def rules(self) -> dict[str, dict[str, str]]:
        """Every rule a finding may name: each revision's and the family's own."""
        out: dict[str, dict[str, str]] = {}
        for module in self.automata.values():
            out.update(module.RULES)
        for rid, spec in self.family_rules.items():
            out[rid] = {"level": spec["level"], "page": spec["ref"][0], "section": spec["ref"][1], "message": spec["message"]}
        return out

    def replay(self, source: Any, *, fmt: str = "auto", after: int | None = None, consumer: Any = None,
               on_findings: Callable[[list[Any]], None] | None = None, progress: Callable[[int, int], None] | None = None,
               max_findings: int | None = 10_000) -> dict[str, Any]:
        """The report of one stream; ``max_findings``: how many findings it lists (None: all),
        the others counted in ``omitted`` (the outcome counts them all), as a package's replay."""
        run = _FamilyRun(self, on_findings, max_findings)
        if isinstance(source, (str, Path)):
            with open(source, "rb") as handle:
                run.read(handle, progress)
        else:
            run.read(source, progress)
        return run.finish()


    def replay_with(self, tools: Any, sources: list[str], max_findings: int | None = 10_000) -> list[dict[str, Any]]:
        """Each stream (a path, or - for stdin) routed here and each revision's messages judged by
        another target's binding (`tools`: one process per revision for all the streams): the
        reports, in the order given, shaped as `replay`'s. ``max_findings`` as ``replay``'s: each
        revision's binding lists at most as many (the first of the stream's are among them) and
        counts the rest."""
        import tempfile

        runs: list[_OtherRun | dict[str, Any]] = []
        for source in sources:
            run = _OtherRun(self, max_findings)
            try:
                if source == "-":
                    run.read(sys.stdin.buffer, None)
                else:
                    with open(source, "rb") as handle:
                        run.read(handle, None)
            except OSError as exc:  # reported as the Python path reports it, never a crash
                runs.append({"outcome": "unreadable", "violations": [], "warnings": [], "events": 0, "types": {}, "runs": [],
                             "format": "jsonl", "notes": [f"cannot read it: {exc}"]})
                continue
            run.drain()
            runs.append(run)
        reports: list[dict[str, dict[str, Any]]] = [{} for _ in runs]
        with tempfile.TemporaryDirectory(prefix="specbind-family-") as folder:
            for revision in self.automata:
                batch = [(n, run) for n, run in enumerate(runs) if isinstance(run, _OtherRun) and run.payloads.get(revision)]
                paths = []
                for n, run in batch:
                    path = Path(folder) / f"{n}-{revision}.jsonl"
                    path.write_bytes(b"".join(line + b"\n" for line in run.payloads[revision]))
                    paths.append(str(path))
                if paths:
                    for (n, _), report in zip(batch, tools.replay(self.spec_dirs[revision], self.out, "jsonl", None, paths, 0 if max_findings is None else max_findings)):
                        reports[n][revision] = report
        return [run.judged(reports[n]) if isinstance(run, _OtherRun) else run for n, run in enumerate(runs)]


class _FamilyRun:
    """One stream of a family being judged."""

    def __init__(self, owner: FamilyReplay, on_findings: Callable[[list[Any]], None] | None, max_findings: int | None = 10_000) -> None:
        self.owner = owner
        self.max_findings = max_findings
        self.failed = False  # a MUST-level finding, listed or not
        self.omitted: dict[str, int] = {}  # rule -> findings past max_findings
        self.omitted_fatal = 0
        self.router = owner.router_type(forced=owner.forced)
        self.on_findings = on_findings
        self.automata: dict[str, Any] = {}
        # revision -> the stream index of each message it judged; stream index -> its line (arrays
        # of machine integers: 8 bytes a message, however long the stream)
        self.wire: dict[str, array[int]] = {}
        self.lines: array[int] = array("q")
        self.found: list[dict[str, Any]] = []
        self.count = 0
        self.done = 0  # bytes read
        self.unjudged: dict[str, int] = {}  # revision without rules -> messages routed to it
        self.drained = False

    def read(self, handle: Any, progress: Callable[[int, int], None] | None) -> None:
        """Line by line (memory holds what is open, not the stream), progress every 4096 lines."""
        for number, raw in enumerate(handle, start=1):
            self.done += len(raw)
            self.line(number, raw)
            if progress is not None and number % 4096 == 0:
                progress(self.count, self.done)
        if progress is not None:
            progress(self.count, self.done)

    def line(self, number: int, raw: bytes) -> None:
        raw = raw.strip()
        if not raw:
            return
        self.lines.append(number)
        self.count += 1
        try:
            doc = _JSON.decode(raw)
        except msgspec.DecodeError:
            doc = None
        if isinstance(doc, dict) and "from" in doc and "message" in doc:
            party, document = doc["from"], doc["message"]
        else:
            party, document = None, doc
        deliveries, found = self.router.feed(party if isinstance(party, str) else None, document, raw)
        self._take(deliveries, found)

    def _take(self, deliveries: list[Any], found: list[Any]) -> None:
        new: list[dict[str, Any]] = []
        for f in found:
            new.append({"rule": f.rule, "level": f.level, "index": f.index, "type": None, "message": f.message, "ids": [],
                        "revision": "family", "fatal": f.fatal, "line": self._line_of(f.index)})
        for d in deliveries:
            if d.revision in self.owner.unjudged:  # no rules to judge it by: routed and counted only
                self.unjudged[d.revision] = self.unjudged.get(d.revision, 0) + 1
                continue
            automaton = self._automaton(d.revision)
            self.wire[d.revision].append(d.index)
            before = len(automaton.findings)
            automaton.feed_document(d.payload)
            new += [self._entry(d.revision, f) for f in automaton.findings[before:]]
        self._tell(new)

    def _automaton(self, revision: str) -> Any:
        automaton = self.automata.get(revision)
        if automaton is None:
            # every finding kept by the revision's automaton: this run lists and counts them
            automaton = self.automata[revision] = self.owner.automata[revision].Automaton(max_findings=None)
            automaton.counts = {}
            self.wire[revision] = array("q")
        return automaton

    def _entry(self, revision: str, finding: Any) -> dict[str, Any]:
        return self._placed(revision, finding.as_dict(), finding.fatal)

    def _placed(self, revision: str, entry: dict[str, Any], fatal: bool) -> dict[str, Any]:
        """A revision's finding at its place in the whole stream (its index and line there)."""
        wire = self.wire[revision]
        entry.pop("line", None)  # another binding's: the line in the revision's messages alone
        local = entry.get("index")
        if isinstance(local, int) and 0 <= local < len(wire):
            entry["index"] = wire[local]
        elif wire:
            entry["index"] = wire[-1]  # the end of the stream: the revision's last message
        entry["revision"] = revision
        entry["fatal"] = fatal
        entry["line"] = self._line_of(entry.get("index"))
        return entry

    def _line_of(self, index: Any) -> int | None:
        return self.lines[index] if isinstance(index, int) and 0 <= index < len(self.lines) else None

    def _tell(self, new: list[dict[str, Any]]) -> None:
        room = len(new) if self.max_findings is None else max(0, self.max_findings - len(self.found))
        for e in new[room:]:
            self.omitted[e["rule"]] = self.omitted.get(e["rule"], 0) + 1
            self.omitted_fatal += bool(e["fatal"])
        self.failed = self.failed or any(e["fatal"] for e in new)
        new = new[:room]
        self.found += new
        if new and self.on_findings is not None:
            self.on_findings([FindingText(e, self.owner.unit) for e in new])

    def drain(self) -> None:
        """The messages the router still holds, delivered (once)."""
        if not self.drained:
            self.drained = True
            self._take(*self.router.finish())

    def finish(self) -> dict[str, Any]:
        self.drain()
        for revision, automaton in self.automata.items():
            before = len(automaton.findings)
            automaton.finish()
            self._tell([self._entry(revision, f) for f in automaton.findings[before:]])
        types: dict[str, int] = {}
        runs: list[Any] = []
        for automaton in self.automata.values():
            for cls, n in (automaton.counts or {}).items():
                name = cls if isinstance(cls, str) else getattr(cls, "__name__", "?")
                types[name] = types.get(name, 0) + n
            runs += list(automaton.runs)
        return self.report(types, runs)

    def report(self, types: dict[str, int], runs: list[Any]) -> dict[str, Any]:
        violations = [{k: v for k, v in e.items() if k != "fatal"} for e in self.found if e["fatal"]]
        warnings = [{k: v for k, v in e.items() if k != "fatal"} for e in self.found if not e["fatal"]]
        for e in violations + warnings:
            if e.get("line") is None:
                e.pop("line", None)
        notes = [f"revision {self.router.describe()}"]
        for revision, n in self.unjudged.items():
            notes.append(f"{n:,} messages of revision {revision} not judged: it declares no rules file")
        if self.count == 0:
            outcome = "empty"
            notes.append("the stream holds no event: an empty stream is not a conformant one")
        else:
            outcome = "failed" if self.failed else "completed"
        omitted: dict[str, Any] = {}
        if self.omitted:
            total = sum(self.omitted.values())
            omitted = {"omitted": {"violations": self.omitted_fatal, "warnings": total - self.omitted_fatal, "rules": dict(sorted(self.omitted.items()))}}
            notes.append(f"{total} more findings than the {len(self.found)} listed (max_findings): counted in omitted")
        segments = [{"revision": s.revision, "first": s.first, "messages": s.messages, "reason": s.reason} for s in self.router.segments]
        return {
            "outcome": outcome,
            "violations": violations,
            "warnings": warnings,
            "events": self.count,
            "types": dict(sorted(types.items(), key=lambda t: (-t[1], t[0]))),
            "runs": runs,
            "format": "jsonl",
            "notes": notes,
            "revisions": segments,
            **omitted,
        }


class _OtherRun(_FamilyRun):
    """One stream of a family routed here and judged by another binding: each revision's
    messages are kept (their transcript lines, as the router delivered them) for that binding to
    judge afterwards, and its reports are placed back into the whole stream."""

    def __init__(self, owner: FamilyReplay, max_findings: int | None = 10_000) -> None:
        super().__init__(owner, None, max_findings)
        self.payloads: dict[str, list[bytes]] = {}

    def _take(self, deliveries: list[Any], found: list[Any]) -> None:
        own = [d for d in deliveries if d.revision in self.owner.unjudged]
        super()._take(own, found)  # the family's findings; the revisions without rules counted
        for d in deliveries:
            if d.revision not in self.owner.unjudged:
                self.wire.setdefault(d.revision, array("q")).append(d.index)
                payload = d.payload if isinstance(d.payload, bytes) else bytes(d.payload)
                self.payloads.setdefault(d.revision, []).append(payload)

    def judged(self, reports: dict[str, dict[str, Any]]) -> dict[str, Any]:
        """The stream's report, from the other binding's report on each revision's messages."""
        types: dict[str, int] = {}
        runs: list[Any] = []
        placed = list(self.found)  # the family's own, already within max_findings
        for revision, report in reports.items():
            placed += [self._placed(revision, dict(f), True) for f in report["violations"]]
            placed += [self._placed(revision, dict(f), False) for f in report["warnings"]]
            past = report.get("omitted")  # what that binding counted past max_findings
            if past:
                for rule, n in past["rules"].items():
                    self.omitted[rule] = self.omitted.get(rule, 0) + n
                self.omitted_fatal += past["violations"]
                self.failed = self.failed or past["violations"] > 0
            for name, n in report.get("types", {}).items():
                types[name] = types.get(name, 0) + n
            runs += report.get("runs", [])
        placed.sort(key=lambda e: (not isinstance(e["index"], int), e["index"] if isinstance(e["index"], int) else 0))
        self.found = []
        self._tell(placed)  # the first max_findings of the whole stream listed, the rest counted
        return self.report(types, runs)
