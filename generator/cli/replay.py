"""`specbind replay`: judge event-stream files against a spec's lifecycle rules.

The work on one stream is the generated package's own (`<package>.replay.replay`: the format
sniffed, the fast path, the bounded report), so what the CLI reports is what a vendored package
or a distributed job reports. This module adds the command line around it: many files and
directories, worker processes (`--jobs`), the consumer core on request (`--project`), the
human, JSON, SARIF and JUnit outputs, and progress on stderr.

"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterator, NoReturn

import click

from ..errors import SpecError
from .common import EXIT_INTERRUPTED, binding_option, binding_tools, load_package, out_option, read_json_option, runs_summary, spec_option, writable
from .families import FamilyReplay, FindingText, revision_option, spec_family

# the file names a directory is searched for
STREAM_SUFFIXES = (".jsonl", ".ndjson", ".sse")


@dataclass(frozen=True)
class Job:
    """What every file of one `replay` is judged with (sent to the worker processes)."""

    out: str
    package: str
    fmt: str
    after: int | None
    consumer: bool  # run the consumer core (--project, --delivered, --input, --client-version)
    project: bool
    delivered: bool
    client_version: str | None
    input: dict[str, Any] | None
    text: bool  # collect the findings as text lines, in order
    family: str | None = None  # the family's home folder: each stream judged by its revisions
    revision: str | None = None  # --revision: the one revision every stream is judged by
    max_findings: int | None = None  # None: the package's default; 0: every finding


@click.command()
@spec_option
@click.option("--json", "as_json", is_flag=True, help="A JSON report on stdout; with several files, one line per file (with \"file\") and a summary line.")
@click.option(
    "--format", "fmt", type=click.Choice(["auto", "jsonl", "sse", "json"]), default="auto", show_default=True,
    help="Input framing: JSON Lines, an SSE body, or JSON (an array of events, one event, or a test case with a \"stream\"). auto tells them apart and says what it saw.",
)
@click.option("--project", is_flag=True, help="Also run the consumer core: its warnings, and --json prints messages, state and runErrors. Costs memory: it holds the conversation.")
@click.option("--delivered", is_flag=True, help="With --project (implied), --json also prints every event as delivered to the application. Costs memory: it holds every event.")
@click.option("--report", nargs=2, type=(click.Choice(["sarif", "junit"]), click.Path(dir_okay=False, path_type=Path)), default=None, metavar="sarif|junit FILE", help="Also write the findings of every file as one SARIF log or JUnit XML file.")
@click.option("--client-version", default=None, metavar="V", help="Pin the protocol version of the application the events are delivered to (runs the consumer core).")
@click.option("--input", "input_path", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None, help="The request the stream answers (JSON; runs the consumer core); --json then prints the request that would be sent.")
@click.option("--after", type=click.IntRange(min=0), default=None, metavar="N", help="The stream is a replay that starts after cursor N (its first sequence is N+1).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, metavar="N", help="Worker processes for several files (default: the CPU count).")
@click.option(
    "--max-findings", type=click.IntRange(min=0), default=None, metavar="N",
    help="List at most N findings per stream (default 10,000; 0: all); the rest are counted in the report's \"omitted\". The outcome counts every finding.",
)
@revision_option
@binding_option
@out_option
@click.argument("streams", nargs=-1, required=True, type=click.Path(allow_dash=True, exists=True, path_type=Path))
def replay(
    spec_dir: Path,
    as_json: bool,
    fmt: str,
    project: bool,
    delivered: bool,
    report: tuple[str, Path] | None,
    client_version: str | None,
    input_path: Path | None,
    after: int | None,
    jobs: int | None,
    max_findings: int | None,
    revision: str | None,
    binding_target: str | None,
    out: Path,
    streams: tuple[Path, ...],
) -> None:
    """Judge each event of every STREAM (a file, a directory searched for *.jsonl, *.ndjson and
    *.sse files, or - for stdin): each is decoded leniently and run through the lifecycle
    automaton, which names every rule broken.

    Exit 0 when every stream is conformant, 1 when one is not (a MUST-level rule broken, no
    event at all, or no event of this protocol), 2 on usage errors.

    Memory stays flat on streams of any length (JSON Lines and SSE are read incrementally) unless
    --project, --delivered, --input or --client-version ask for the consumer core, which holds the
    conversation (and, with --delivered, every event); a JSON array or test case is read whole.

    A spec that declares a protocol family (binding.toml [family]) judges each stream (JSON
    Lines: a transcript or events) by the revision its messages name, a revision at a time; the
    report names the revisions (`revisions`); --revision forces one."""

    family = spec_family(spec_dir, revision)
    if family is not None and binding_target is not None and revision is not None:
        # another binding judges one revision: the one --revision names, as its own folder would
        spec_dir = next(r.spec_dir for r in family.revisions if r.version == revision)
        family = None
    if family is not None:
        if fmt not in ("auto", "jsonl"):
            raise click.UsageError(f"a protocol family is judged from JSON Lines (a transcript or events): --format {fmt} does not apply")
        if project or delivered or client_version is not None or input_path is not None or after is not None:
            raise click.UsageError("a protocol family is judged by its revisions' automata alone: --project, --delivered, --client-version, --input and --after do not apply")
    tools = binding_tools(binding_target)
    if tools is not None:
        if project or delivered or client_version is not None or input_path is not None:
            raise click.UsageError(f"--target {binding_target} replays the automaton alone: --project, --delivered, --client-version and --input need the Python package")
        if report:
            writable(report[1], "--report")
        if family is not None:
            _other_family(tools, FamilyReplay(family, out, None), streams, as_json, report, max_findings)
        _other_binding(tools, spec_dir, out, fmt, after, streams, as_json, report, max_findings)
    if report:
        writable(report[1], "--report")  # before the work, not after it
    package = load_package(spec_dir, out)
    module: Any
    if family is not None:
        module = FamilyReplay(family, out, revision)
    else:
        try:
            module = importlib.import_module(f"{package.__name__}.replay")
        except ModuleNotFoundError:
            raise click.UsageError(f"{spec_dir} declares no rules file: there is nothing to replay against") from None
    project = project or delivered
    wants_consumer = project or client_version is not None or input_path is not None
    if after is not None:
        if wants_consumer:
            raise click.UsageError("--after replays the automaton alone: it does not combine with --project, --delivered, --client-version or --input")
        try:
            package.automaton.Automaton(after=after)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
    document = _read_input(input_path)
    job = Job(str(out.resolve()), package.__name__, fmt, after, wants_consumer, project, delivered, client_version, document, not as_json,
              str(spec_dir.resolve()) if family is not None else None, revision, max_findings)
    if wants_consumer:
        _consumer(job)  # refuses a bad --client-version or --input before any file is read
    files = collect(streams)
    many = len(files) > 1 or any(p.is_dir() for p in streams if str(p) != "-")
    results: list[tuple[str, dict[str, Any]]] = []
    try:
        if not many:
            path, shown = files[0]
            result = _single(job, module, path, shown, as_json)
            results.append((shown, result))
        else:
            _many(job, files, as_json, jobs, results)
    except KeyboardInterrupt:
        failed = sum(1 for _, r in results if r["outcome"] != "completed")
        click.echo(f"interrupted: {len(results)} of {len(files)} streams judged, {failed} not conformant", err=True)
        sys.exit(EXIT_INTERRUPTED)
    if report:
        _write_report(report, module.rules if family is not None else package.automaton.RULES, results)
    sys.exit(0 if all(r["outcome"] == "completed" for _, r in results) else 1)


def _write_report(report: tuple[str, Path], rules: dict[str, Any], results: list[tuple[str, dict[str, Any]]]) -> None:
    """--report: every file's findings as one SARIF log or JUnit XML file."""
    from ..reports import junit_files, sarif_files

    kind, target = report
    entries = [(shown, _sarif_findings(r)) for shown, r in results]
    text = sarif_files(rules, entries) if kind == "sarif" else junit_files(rules, entries)
    target.write_text(text, encoding="utf-8", errors="backslashreplace")


def _other_binding(tools: Any, spec_dir: Path, out: Path, fmt: str, after: int | None, streams: tuple[Path, ...], as_json: bool,
                   report: tuple[str, Path] | None, max_findings: int | None) -> None:
    """Judge the streams with another target's binding (`--target`): the same reports, printed
    as this command prints the Python package's, and the same exit codes."""
    files = collect(streams)
    paths = ["-" if p is None else str(p) for p, _ in files]
    try:
        results = tools.replay(spec_dir, out, fmt, after, paths, max_findings)
    except SpecError as exc:
        raise click.UsageError(str(exc)) from None
    unit = "event"
    rules: dict[str, Any] = {}
    try:  # what an index counts, as the Python package says it (two parties: messages); its rules
        automaton = importlib.import_module(f"{load_package(spec_dir, out).__name__}.automaton")
        unit, rules = str(automaton._UNIT), automaton.RULES
    except (SpecError, ImportError, AttributeError):
        pass
    if report and not rules:
        raise click.UsageError(f"--report names each finding's rule as the Python package of {spec_dir} has it: run `specbind generate`")
    _print_other(files, results, streams, as_json, lambda f: f"{f['rule']} [{f['level']}] {unit} {f['index']} ({f['type']}): {f['message']}",
                 report, rules)


def _other_family(tools: Any, family: FamilyReplay, streams: tuple[Path, ...], as_json: bool, report: tuple[str, Path] | None,
                  max_findings: int | None) -> None:
    """Judge the streams of a protocol family with another target's binding: each stream routed
    to its revisions here (the family's router), each revision's messages judged by that
    binding; printed as the family's replay prints its reports."""
    files = collect(streams)
    try:
        limit: dict[str, Any] = {} if max_findings is None else {"max_findings": max_findings or None}
        results = family.replay_with(tools, ["-" if p is None else str(p) for p, _ in files], **limit)
    except SpecError as exc:
        raise click.UsageError(str(exc)) from None
    _print_other(files, results, streams, as_json, lambda f: str(FindingText(f, family.unit)), report, family.rules)


def _print_other(files: list[tuple[Path | None, str]], results: list[dict[str, Any]], streams: tuple[Path, ...], as_json: bool,
                 line: Callable[[dict[str, Any]], str], report: tuple[str, Path] | None, rules: dict[str, Any]) -> NoReturn:
    """Another binding's reports, printed as this command prints the Python package's (and
    written with --report), and its exit code."""
    results = [{"file": shown, **{k: v for k, v in result.items() if k != "file"}} for (_, shown), result in zip(files, results)]
    for result in results:
        if as_json:
            click.echo(json.dumps(result, ensure_ascii=False, default=str))
            continue
        found = sorted(result["violations"] + result["warnings"], key=lambda f: f["index"] if f["index"] is not None else -1)
        for f in found:
            if f["rule"] is not None:
                click.echo(line(f))
        _print_tail(result)
    if len(files) > 1 or any(p.is_dir() for p in streams if str(p) != "-"):
        summary = _summary(results)
        if as_json:
            click.echo(json.dumps(summary, ensure_ascii=False))
        else:
            outcomes = ", ".join(f"{k} {v}" for k, v in summary["outcomes"].items())
            click.echo(f"{summary['files']:,} files: {outcomes}; {summary['events']:,} events; {summary['violations']:,} violations, {summary['warnings']:,} warnings")
    if report:
        _write_report(report, rules, [(r["file"], r) for r in results])
    sys.exit(0 if all(r["outcome"] == "completed" for r in results) else 1)


# -- inputs -----------------------------------------------------------------------------------


def collect(streams: tuple[Path, ...]) -> list[tuple[Path | None, str]]:
    """(path, shown) of every stream to judge: files as given, directories searched (sorted)
    for stream files, None for stdin."""
    out: list[tuple[Path | None, str]] = []
    for path in streams:
        if str(path) == "-":
            out.append((None, "-"))
        elif path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.suffix in STREAM_SUFFIXES and p.is_file())
            if not found:
                raise click.UsageError(f"{path}: no {', '.join('*' + s for s in STREAM_SUFFIXES)} files in this directory")
            out.extend((p, str(p)) for p in found)
        else:
            out.append((path, str(path)))
    if sum(1 for p, _ in out if p is None) > 1:
        raise click.UsageError("stdin (-) can be read once")
    return out


def _read_input(input_path: Path | None) -> dict[str, Any] | None:
    if input_path is None:
        return None
    document = read_json_option(input_path, "--input")
    if not isinstance(document, dict):
        raise click.BadParameter(f"{input_path}: a request is a JSON object", param_hint="--input")
    return document


def _consumer(job: Job) -> Any:
    """The package's consumer core (`<package>.consumer.Consumer`), for one stream."""
    try:
        consumer_module = importlib.import_module(job.package + ".consumer")
    except ModuleNotFoundError:
        raise click.UsageError("--project, --delivered, --client-version and --input need a consumer core, which this package does not have") from None
    try:
        return consumer_module.Consumer(client_version=job.client_version, input=job.input, keep_delivered=job.delivered)
    except ValueError as exc:  # a version that does not parse, or an input the schema refuses
        raise click.UsageError(str(exc).split("\n")[0]) from None


# -- judging one stream -----------------------------------------------------------------------


def judge(job: Job, module: ModuleType, path: Path | None, shown: str, on_text: Any = None, progress: Any = None) -> dict[str, Any]:
    """The report of one stream, trimmed to what the flags ask for, with "file"; the finding
    lines go to `on_text` as they are made (text mode)."""
    consumer = _consumer(job) if job.consumer else None

    def on_findings(found: list[Any]) -> None:
        for f in found:
            on_text(str(f))

    source: Any = sys.stdin.buffer if path is None else path
    limit: dict[str, Any] = {} if job.max_findings is None else {"max_findings": job.max_findings or None}
    try:
        result: dict[str, Any] = module.replay(
            source, fmt=job.fmt, after=job.after, consumer=consumer, on_findings=None if on_text is None else on_findings, progress=progress, **limit
        )
    except OSError as exc:  # a file that vanished or cannot be read: reported, never a crash
        result = {"outcome": "unreadable", "violations": [], "warnings": [], "events": 0, "types": {}, "runs": [], "format": job.fmt, "notes": [f"cannot read it: {exc}"]}
    if consumer is not None:
        if not job.project:
            for key in ("messages", "state", "runErrors"):
                result.pop(key, None)
        if not job.delivered:
            result.pop("delivered", None)
    return {"file": shown, **result}


def _single(job: Job, module: ModuleType, path: Path | None, shown: str, as_json: bool) -> dict[str, Any]:
    total = None if path is None else path.stat().st_size
    ticker = _Progress(total)
    result = judge(job, module, path, shown, on_text=None if as_json else click.echo, progress=ticker.tick)
    if as_json:
        click.echo(json.dumps(result, ensure_ascii=False, default=str))
    else:
        _print_tail(result)
    return result


def _print_tail(result: dict[str, Any]) -> None:
    """What follows a stream's finding lines in text mode: notes, the consumer's warnings, the
    projection, and the summary line."""
    for note in result.get("notes", []):
        click.echo(f"note: {note}")
    for w in result["warnings"]:
        if w["rule"] is None:
            click.echo(f"warning: {w['message']}")
    if "messages" in result:
        click.echo(f"projection: {_projection_summary(result)}")
    if "delivered" in result:
        click.echo(f"delivered: {len(result['delivered']):,} events")
    click.echo(
        f"{result['file']}: {result['outcome']}: {result['events']:,} events ({_FORMAT_NAMES.get(result['format'], result['format'])}), "
        f"runs: {runs_text(result['runs'])}; {found(result, 'violations')} violations, {found(result, 'warnings')} warnings"
    )


def found(result: dict[str, Any], kind: str) -> int:
    """How many violations or warnings a report found: those it lists and those it omitted
    (beyond max_findings)."""
    return len(result[kind]) + int(result.get("omitted", {}).get(kind, 0))


_FORMAT_NAMES = {"jsonl": "JSON Lines", "sse": "SSE", "json": "JSON"}


def runs_text(runs: list[dict[str, Any]]) -> str:
    return runs_summary(runs)


def _projection_summary(result: dict[str, Any]) -> str:
    roles: dict[str, int] = {}
    for m in result["messages"]:
        role = str(m.get("role", "?")) if isinstance(m, dict) else "?"
        roles[role] = roles.get(role, 0) + 1
    shown_roles = ", ".join(f"{n} {r}" for r, n in sorted(roles.items()))
    state = result["state"]
    state_text = f"{len(state)} keys" if isinstance(state, dict) else type(state).__name__
    errors = len(result["runErrors"])
    return f"{len(result['messages'])} messages ({shown_roles or 'none'}); state: {state_text}; {errors} run errors"


class _Progress:
    """A line on stderr every few seconds while a large input is read."""

    def __init__(self, total: int | None) -> None:
        self.total = total
        self.enabled = total is None or total > (8 << 20)
        self.next = time.monotonic() + 2.0

    def tick(self, events: int, done: int) -> None:
        if not self.enabled or time.monotonic() < self.next:
            return
        self.next = time.monotonic() + 2.0
        share = f" of {self.total / 1e6:,.0f}" if self.total else ""
        click.echo(f"  ... {events:,} events, {done / 1e6:,.0f}{share} MB", err=True)


# -- many streams -----------------------------------------------------------------------------

_JOB: Job | None = None
_MODULE: ModuleType | None = None


def _setup(job: Job) -> None:
    """A worker's start: the generated package imported once (a forked worker has it already)."""
    global _JOB, _MODULE
    _JOB = job
    if job.out not in sys.path:
        sys.path.insert(0, job.out)
    _MODULE = _module(job)


def _module(job: Job) -> Any:
    """What judges one stream: the package's replay module, or the family's replay."""
    if job.family is None:
        return importlib.import_module(f"{job.package}.replay")
    from ..family import load_family

    family = load_family(Path(job.family))
    assert family is not None
    return FamilyReplay(family, Path(job.out), job.revision)


def _worker(job: Job) -> None:
    """A worker process's start: Ctrl-C is the parent's to handle (it reports what was judged
    and ends the pool); a worker interrupted too would print its own traceback."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _setup(job)


def _work(item: tuple[str, str]) -> tuple[dict[str, Any], list[str]]:
    assert _JOB is not None and _MODULE is not None
    path, shown = item
    lines: list[str] = []
    result = judge(_JOB, _MODULE, Path(path), shown, on_text=lines.append if _JOB.text else None)
    return result, lines


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


def _many(job: Job, files: list[tuple[Path | None, str]], as_json: bool, jobs: int | None, results: list[tuple[str, dict[str, Any]]]) -> None:
    """Every stream judged (in worker processes when there are several and --jobs allows), the
    reports printed in the order given, and the summary; `results` fills as they come (an
    interrupted run still knows what it judged)."""
    workers = min(jobs or _cpus(), sum(1 for p, _ in files if p is not None))
    started = time.monotonic()
    next_tick = started + 2.0
    events = 0
    for n, (result, lines) in enumerate(_results(job, files, workers), start=1):
        results.append((result["file"], result))
        events += result["events"]
        if as_json:
            click.echo(json.dumps(result, ensure_ascii=False, default=str))
        else:
            for line in lines:
                click.echo(line)
            _print_tail(result)
        if time.monotonic() >= next_tick:
            next_tick = time.monotonic() + 2.0
            click.echo(f"  ... {n:,} of {len(files):,} files, {events:,} events", err=True)
    summary = _summary([r for _, r in results])
    if as_json:
        click.echo(json.dumps(summary, ensure_ascii=False))
    else:
        outcomes = ", ".join(f"{k} {v}" for k, v in summary["outcomes"].items())
        click.echo(
            f"{summary['files']:,} files: {outcomes}; {summary['events']:,} events; "
            f"{summary['violations']:,} violations, {summary['warnings']:,} warnings"
        )


def _results(job: Job, files: list[tuple[Path | None, str]], workers: int) -> Iterator[tuple[dict[str, Any], list[str]]]:
    """(report, finding lines) per stream, in the order given."""
    on_disk = [(str(p), shown) for p, shown in files if p is not None]
    if workers <= 1:
        _setup(job)
        for path, shown in files:
            if path is None:
                yield _stdin(job)
            else:
                yield _work((str(path), shown))
        return
    import multiprocessing

    # fork where it is safe (Linux): the workers start with the package already imported
    method = "fork" if sys.platform.startswith("linux") else "spawn"
    context = multiprocessing.get_context(method)
    with context.Pool(workers, initializer=_worker, initargs=(job,)) as pool:
        done = pool.imap(_work, on_disk, chunksize=1)
        for path, _shown in files:
            yield _stdin(job) if path is None else next(done)


def _stdin(job: Job) -> tuple[dict[str, Any], list[str]]:
    lines: list[str] = []
    return judge(job, _module(job), None, "-", on_text=lines.append if job.text else None), lines


def _summary(reports: list[dict[str, Any]]) -> dict[str, Any]:
    outcomes: dict[str, int] = {}
    for r in reports:
        outcomes[r["outcome"]] = outcomes.get(r["outcome"], 0) + 1
    return {
        "files": len(reports),
        "outcome": "completed" if all(r["outcome"] == "completed" for r in reports) else "failed",
        "outcomes": dict(sorted(outcomes.items())),
        "events": sum(r["events"] for r in reports),
        "violations": sum(found(r, "violations") for r in reports),
        "warnings": sum(found(r, "warnings") for r in reports),
    }


def _sarif_findings(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The rule findings of a report, MUST-level ones `fatal`, in stream order."""
    found = [f | {"fatal": True} for f in report["violations"]]
    found += [f | {"fatal": False} for f in report["warnings"] if f["rule"] is not None]
    return sorted(found, key=lambda f: f["index"])


COMMANDS: list[click.Command] = [replay]
