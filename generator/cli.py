"""The `specbind` command line."""

from __future__ import annotations

import difflib
import hashlib
import importlib
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import click

from . import __version__
from .binding import load_binding
from .errors import LedgerWouldGrow, SpecError
from .pipeline import SpecOutput, discover_specs, drift, render_specs, write

SPEC_ROOT = Path("spec")
OUT = Path("generated")


def _fail(exc: SpecError, drift: bool = False) -> None:
    """A spec the generator refuses: exit 2, as every refused input does (1 means a finding);
    for `check`, a ledger that would grow is drift, a finding."""
    click.echo(f"error: {exc}", err=True)
    sys.exit(1 if drift and isinstance(exc, LedgerWouldGrow) else 2)


def _specs(spec: tuple[Path, ...]) -> list[Path]:
    return list(spec) if spec else discover_specs(SPEC_ROOT)


spec_option = click.option(
    "--spec", "spec", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="A spec folder (with binding.toml). Repeatable; default: every folder under spec/.",
)
out_option = click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), default=OUT, show_default=True,
    help="Where the generated packages live.",
)
templates_option = click.option(
    "--templates", "templates", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="A folder laid out like templates/ whose files replace their namesakes. Repeatable; first wins.",
)


EXIT_INTERNAL = 70  # EX_SOFTWARE: a bug in specbind, never an answer about the input


class _Guarded(click.Group):
    """The command group, run so that no input can end in a traceback: output that the terminal
    cannot encode is escaped (text from a document may hold any character), a file that cannot
    be read is a usage error (exit 2), and anything unexpected says it is a bug and exits 70."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        for stream in (sys.stdout, sys.stderr):
            reconfigure = getattr(stream, "reconfigure", None)
            if reconfigure is not None:
                reconfigure(errors="backslashreplace")
        try:
            return super().main(*args, **kwargs)
        except OSError as exc:
            if isinstance(exc, BrokenPipeError):  # the reader went away (`| head`): nothing to say
                sys.stderr.close()
                sys.exit(1)
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
        except Exception as exc:  # noqa: BLE001 - the last line of defence, named as such
            click.echo(f"specbind: internal error, please report it: {type(exc).__name__}: {exc}", err=True)
            sys.exit(EXIT_INTERNAL)


@click.group(cls=_Guarded)
@click.version_option(__version__, prog_name="specbind")
def main() -> None:
    """Compile protocol specs (JSON Schema + rules) into vendorable Python bindings."""


allow_option = click.option(
    "--allow-new-slots", is_flag=True,
    help="Give wire slots the ledger lacks (a new field, arm or enum value) the next free number and "
    "append them to the spec's ledger. Without it a new slot is an error.",
)
target_option = click.option(
    "--target", "target_dirs", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="A target folder (target.py and templates/) to generate for as well. Repeatable.",
)


def _progress(message: str) -> None:
    click.echo(f"  ... {message}", err=True)


def _render(spec: tuple[Path, ...], templates: tuple[Path, ...], allow: bool, target_dirs: tuple[Path, ...]) -> list[SpecOutput]:
    for layer in templates:
        _overrides_something(layer)
    return render_specs(_specs(spec), list(templates), allow, list(target_dirs), progress=_progress)


def _overrides_something(layer: Path) -> None:
    """A --templates folder is laid out like templates/: one with no template in any set's
    folder would change nothing, which is a mistake, not a no-op."""
    if not any(p.is_file() for p in layer.glob("*/**/*")):
        raise SpecError(str(layer), "", "overrides nothing: a --templates folder holds <set>/<file> (e.g. python/version.py.j2)")


@main.command()
@spec_option
@out_option
@templates_option
@allow_option
@target_option
def generate(spec: tuple[Path, ...], out: Path, templates: tuple[Path, ...], allow_new_slots: bool, target_dirs: tuple[Path, ...]) -> None:
    """Generate the bindings of every spec into --out."""
    try:
        outputs = _render(spec, templates, allow_new_slots, target_dirs)
    except SpecError as exc:
        _fail(exc)
        return
    for o in outputs:
        d = write(out, o.files)
        packages = ", ".join(sorted({p.split("/", 1)[0] for p in o.files}))
        click.echo(
            f"{o.binding.display_dir}: {len(o.files)} files -> {out}/{packages} "
            f"({len(d.added)} added, {len(d.changed)} changed, {len(d.removed)} removed)"
        )
        if o.ledger_update is not None:
            u = o.ledger_update
            u.path.write_text(u.text, encoding="utf-8")
            added = ", ".join(f"{k} = {n}" for k, n in u.new_slots)
            click.echo(f"{u.shown}: {len(u.new_slots)} new slot(s) appended: {added}")


@main.command()
@spec_option
@out_option
@templates_option
@allow_option
@target_option
def check(spec: tuple[Path, ...], out: Path, templates: tuple[Path, ...], allow_new_slots: bool, target_dirs: tuple[Path, ...]) -> None:
    """Exit 1 with a summary if regenerating would change anything in --out (or a ledger)."""
    try:
        outputs = _render(spec, templates, allow_new_slots, target_dirs)
    except SpecError as exc:
        _fail(exc, drift=True)
        return
    dirty = False
    for o in outputs:
        d = drift(out, o.files)
        if o.ledger_update is not None:
            dirty = True
            u = o.ledger_update
            added = ", ".join(f"{k} = {n}" for k, n in u.new_slots)
            click.echo(f"{u.shown}: the wire ledger would change: {len(u.new_slots)} new slot(s): {added}")
        if d.clean:
            click.echo(f"{o.binding.display_dir}: up to date ({len(o.files)} files)")
            continue
        dirty = True
        click.echo(f"{o.binding.display_dir}: {out} is not what the spec generates:")
        for rel in d.added:
            click.echo(f"  missing  {rel}")
        for rel in d.removed:
            click.echo(f"  stale    {rel}")
        for rel in d.changed:
            lines = d.diffs[rel]
            plus = sum(1 for ln in lines if ln.startswith("+") and not ln.startswith("+++"))
            minus = sum(1 for ln in lines if ln.startswith("-") and not ln.startswith("---"))
            click.echo(f"  changed  {rel} (+{plus} -{minus})")
            for ln in lines[2:14]:
                click.echo(f"    {ln}")
    if dirty:
        if any(o.ledger_update for o in outputs):
            click.echo("run `specbind generate --allow-new-slots` and commit the ledger", err=True)
        click.echo("run `specbind generate` and commit the result", err=True)
        sys.exit(1)


@main.command("targets")
@click.option("--spec", "spec", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Also list the targets these spec folders name ([targets.NAME] from = ...).")
@target_option
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
def targets_command(spec: tuple[Path, ...], target_dirs: tuple[Path, ...], as_json: bool) -> None:
    """List the targets specbind can generate for: the built-in ones, those the spec folders
    name, and those given with --target."""
    from .targets import builtins, load_folder

    found: dict[str, Any] = dict(builtins())
    try:
        for spec_dir in spec:
            binding = load_binding(spec_dir)
            for name, (folder, _) in binding.target_folders.items():
                found[name] = load_folder(folder, binding.display(folder))
        for folder in target_dirs:
            t = load_folder(folder)
            found[t.name] = t
    except SpecError as exc:
        _fail(exc)
        return
    rows = [
        {
            "name": t.name,
            "origin": t.origin,
            "description": t.description,
            "templates": str(t.templates),
            "runtime": None if t.runtime is None else str(t.runtime),
            "formatter": t.formatter_id or None,
        }
        for t in sorted(found.values(), key=lambda t: t.name)
    ]
    if as_json:
        click.echo(json.dumps(rows, indent=1))
        return
    for r in rows:
        click.echo(f"{r['name']:<12} {r['origin']}: {r['description']}")
        click.echo(f"{'':<12} templates {r['templates']}" + (f"; runtime {r['runtime']}" if r["runtime"] else "")
                   + (f"; formatted by {r['formatter']}" if r["formatter"] else ""))


def load_package(spec_dir: Path, out: Path) -> ModuleType:
    """Import the generated package of a spec, refusing one that is stale."""
    binding = load_binding(spec_dir)
    package = binding.target("python").get("package")
    if not (out / str(package) / "__init__.py").exists():
        raise click.UsageError(f"{out}/{package} does not exist: run `specbind generate` first")
    if str(out.resolve()) not in sys.path:
        sys.path.insert(0, str(out.resolve()))
    module = importlib.import_module(str(package))
    digest = hashlib.sha256(binding.schema.read_bytes()).hexdigest()
    if module.SCHEMA_SHA256 != digest:
        raise click.UsageError(f"{out}/{package} was generated from another schema: run `specbind generate`")
    return module


@main.command()
@click.option("--spec", "spec_dir", required=True, type=click.Path(exists=True, file_okay=False, path_type=Path), help="The spec folder.")
@click.option("--as", "definition", default=None, help="Definition each document is validated as (default: the spec's root).")
@click.option("--lenient", is_flag=True, help="Strip and report unknown properties and union members instead of failing.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per file on stdout.")
@out_option
@click.argument("files", nargs=-1, required=True, type=click.Path(allow_dash=True, dir_okay=False, exists=True, path_type=Path))
def validate(spec_dir: Path, definition: str | None, lenient: bool, as_json: bool, out: Path, files: tuple[Path, ...]) -> None:
    """Validate JSON documents (one per FILE, - for stdin) against a definition.

    Exit 0 when every document is valid, 1 when any is not, 2 on usage errors."""
    try:
        package = load_package(spec_dir, out)
    except SpecError as exc:
        raise click.UsageError(str(exc)) from None
    codec = package.codec_json
    name = definition or codec.ROOT
    if name not in package.models.DEFINITIONS:
        near = difflib.get_close_matches(name, list(package.models.DEFINITIONS), n=3)
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        raise click.UsageError(f"--as {name!r}: no such definition{hint}")
    dec = codec.decoder(name)
    all_valid = True
    for path in files:
        shown = "-" if str(path) == "-" else str(path)
        data = sys.stdin.buffer.read() if shown == "-" else path.read_bytes()
        errors: list[Any] = []
        warnings: list[Any] = []
        try:
            if lenient:
                result = dec.decode_lenient(data)
                warnings = list(result.warnings)
            else:
                dec.decode(data)
        except package.DecodeError as exc:
            errors = list(exc.errors)
        valid = not errors
        all_valid &= valid
        if as_json:
            click.echo(
                json.dumps(
                    {
                        "file": shown,
                        "valid": valid,
                        "errors": [e.as_dict() for e in errors],
                        "warnings": [w.as_dict() for w in warnings],
                    },
                    ensure_ascii=False,
                )
            )
        else:
            click.echo(f"{shown}: {'valid' if valid else 'invalid'} {name}")
            for e in errors:
                click.echo(f"  error   {e}")
            for w in warnings:
                click.echo(f"  warning {w}")
    sys.exit(0 if all_valid else 1)


def _rules_module(spec_dir: Path, out: Path) -> ModuleType:
    package = load_package(spec_dir, out)
    try:
        return importlib.import_module(f"{package.__name__}.automaton")
    except ModuleNotFoundError:
        raise click.UsageError(f"{spec_dir} declares no rules file: there is nothing to replay against") from None


@main.command()
@click.option("--spec", "spec_dir", required=True, type=click.Path(exists=True, file_okay=False, path_type=Path), help="The spec folder.")
def lint(spec_dir: Path) -> None:
    """Check the spec's rules file against its schema.

    Every event type, field, entity, state, enum value and rule named must exist, every state be
    reachable, and every event type of the schema be handled or explicitly passed through."""
    from .products import load_ir
    from .rules.load import load_rules

    try:
        binding = load_binding(spec_dir)
        ir = load_ir(binding)
        compiled = load_rules(binding, ir)
    except SpecError as exc:
        _fail(exc)
        return
    if compiled is None:
        click.echo(f"{binding.display_dir}: no rules file declared ([protocol].rules in binding.toml)")
        return
    ast, info = compiled.ast, compiled.lint
    machine = ast.machine
    assert machine is not None
    click.echo(
        f"{compiled.source}: ok: {len(ast.rules)} rules; machine {machine.name} ({len(machine.states)} states); "
        f"{len(ast.entities)} entities; {len(ast.chunk_kinds)} chunk kinds; {len(ast.checks)} checks; "
        f"{len(ast.answers)} answers blocks; {len(ast.listings)} listings; {len(ast.retired)} retired shapes"
    )
    click.echo(
        f"  {len(info.event_types)} event types: {len(info.handled)} handled, {len(info.passed)} passed through "
        f"({', '.join(info.passed)})"
    )


class _Progress:
    """A line on stderr every few seconds while a large input is read."""

    def __init__(self, total: int | None) -> None:
        import time

        self.clock = time.monotonic
        self.total = total
        self.enabled = total is None or total > (8 << 20)
        self.next = self.clock() + 2.0

    def tick(self, events: int, done: int) -> None:
        if not self.enabled or events & 4095 or self.clock() < self.next:
            return
        self.next = self.clock() + 2.0
        share = f" of {self.total / 1e6:,.0f}" if self.total else ""
        click.echo(f"  ... {events:,} events, {done / 1e6:,.0f}{share} MB", err=True)


@main.command()
@click.option("--spec", "spec_dir", required=True, type=click.Path(exists=True, file_okay=False, path_type=Path), help="The spec folder.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON report on stdout.")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "sse"]), default=None, help="Input framing (default: sse for *.sse, else jsonl).")
@click.option("--report", nargs=2, type=(click.Choice(["sarif", "junit"]), click.Path(dir_okay=False, path_type=Path)), default=None, metavar="sarif|junit FILE", help="Also write the findings as SARIF or JUnit XML.")
@click.option("--client-version", default=None, metavar="V", help="Pin the protocol version of the application the events are delivered to (consumer core).")
@click.option("--input", "input_path", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None, help="The request the stream answers (JSON); --json then prints the request that would be sent.")
@click.option("--after", type=click.IntRange(min=0), default=None, metavar="N", help="The stream is a replay that starts after cursor N (its first sequence is N+1).")
@out_option
@click.argument("stream", type=click.Path(allow_dash=True, dir_okay=False, exists=True, path_type=Path))
def replay(
    spec_dir: Path,
    as_json: bool,
    fmt: str | None,
    report: tuple[str, Path] | None,
    client_version: str | None,
    input_path: Path | None,
    after: int | None,
    out: Path,
    stream: Path,
) -> None:
    """Decode each event of STREAM (- for stdin) leniently and run the lifecycle automaton; with
    --json (or --input, --client-version), also the package's consumer core where it has one:
    messages, state, run errors, and its warnings.

    Exit 0 when the stream is conformant (completed), 1 when a MUST-level rule is violated
    (failed), 2 on usage errors."""
    from .reports import junit, sarif
    from .streams import sse_documents

    module = _rules_module(spec_dir, out)
    if after is not None:
        if client_version or input_path:
            raise click.UsageError("--after replays the automaton alone: it does not combine with --client-version or --input")
        try:
            consumer, driver = None, module.Automaton(after=after)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
    elif as_json or client_version or input_path:
        # the consumer core (messages, state) when its output is asked for; it holds the
        # conversation, so a plain replay, which only judges order, stays flat in memory
        consumer = _consumer(module, client_version, input_path, keep=as_json)
        driver = consumer if consumer is not None else module.Automaton()
    else:
        consumer, driver = None, module.Automaton()
    automaton = driver.automaton if consumer is not None else driver
    disc = module.TABLES["discriminator"]
    shown = "-" if str(stream) == "-" else str(stream)
    if fmt is None:
        fmt = "sse" if shown.endswith((".sse", ".txt")) else "jsonl"
    handle = sys.stdin.buffer if shown == "-" else stream.open("rb")
    total = None if shown == "-" else stream.stat().st_size
    progress = _Progress(total)
    delivered: list[str] = []
    lines: dict[int, int] = {}
    counted = 0
    try:
        if fmt == "jsonl":
            numbered = _numbered_lines(handle, lines)
            documents = numbered
        else:
            documents = sse_documents(handle)
        for doc in documents:
            counted += len(doc) + 1
            findings = driver.feed_document(doc)
            if as_json:
                delivered.extend(getattr(ev, disc) for ev in automaton.expanded)
            elif findings:
                for f in findings:
                    click.echo(str(f))
            progress.tick(automaton.index + 1, counted)
        closing = driver.finish()
    finally:
        if handle is not sys.stdin.buffer:
            handle.close()
    if not as_json:
        for f in closing:
            click.echo(str(f))
    findings = [f.as_dict() | {"fatal": f.fatal} for f in automaton.findings]
    if report:
        kind, path = report
        text = sarif(shown, module.RULES, findings, lines) if kind == "sarif" else junit(shown, module.RULES, findings)
        path.write_text(text, encoding="utf-8", errors="backslashreplace")
    violations = [_public(f) for f in findings if f["fatal"]]
    warnings = [_public(f) for f in findings if not f["fatal"]]
    extra: dict[str, Any] = {}
    if consumer is not None:
        extra = consumer.report()
        warnings += [consumer_warning(text) for text in extra.pop("consumerWarnings")]
    if as_json:
        click.echo(
            json.dumps(
                {
                    "outcome": automaton.outcome,
                    "violations": violations,
                    "warnings": warnings,
                    "events": delivered,
                    "runs": automaton.runs,
                    **extra,
                },
                ensure_ascii=False,
                default=str,
            )
        )
    else:
        for w in warnings:
            if w["rule"] is None:
                click.echo(f"warning: {w['message']}")
        click.echo(
            f"{shown}: {automaton.outcome}: {automaton.index + 1:,} events, runs: {runs_summary(automaton.runs)}; "
            f"{len(violations)} violations, {len(warnings)} warnings"
        )
    sys.exit(0 if automaton.outcome == "completed" else 1)


def runs_summary(runs: list[dict[str, Any]]) -> str:
    """`2 finished, 1 failed`: how the runs of a stream ended."""
    states: dict[str, int] = {}
    for run in runs:
        states[run["state"]] = states.get(run["state"], 0) + 1
    return ", ".join(f"{n} {s}" for s, n in sorted(states.items())) or "none"


def consumer_warning(text: str) -> dict[str, Any]:
    """A consumer-core warning in the shape of a finding (it names no rule)."""
    return {"rule": None, "level": "SHOULD", "index": None, "type": None, "message": text, "ids": []}


def _consumer(module: ModuleType, client_version: str | None, input_path: Path | None, keep: bool) -> Any:
    """The package's consumer core, when it has one (`<package>.consumer.Consumer`)."""
    try:
        consumer_module = importlib.import_module(module.__name__.rsplit(".", 1)[0] + ".consumer")
    except ModuleNotFoundError:
        if client_version or input_path:
            raise click.UsageError("--client-version and --input need a consumer core, which this package has not") from None
        return None
    document = None
    if input_path is not None:
        try:
            document = json.loads(input_path.read_bytes())
        except (ValueError, UnicodeDecodeError) as exc:
            raise click.BadParameter(f"{input_path}: not JSON: {exc}", param_hint="--input") from None
        if not isinstance(document, dict):
            raise click.BadParameter(f"{input_path}: a request is a JSON object", param_hint="--input")
    try:
        return consumer_module.Consumer(client_version=client_version, input=document, keep_delivered=keep)
    except ValueError as exc:  # a version that does not parse, or an input the schema refuses
        raise click.UsageError(str(exc).split("\n")[0]) from None


def _public(finding: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in finding.items() if k != "fatal"}


def _numbered_lines(handle: Any, lines: dict[int, int]) -> Any:
    """JSON Lines documents, remembering the line each event came from (for SARIF)."""
    index = 0
    for number, line in enumerate(handle, start=1):
        line = line.strip()
        if line:
            if len(lines) < 100_000:
                lines[index] = number
            index += 1
            yield line


@main.command("check-resume")
@click.option("--spec", "spec_dir", required=True, type=click.Path(exists=True, file_okay=False, path_type=Path), help="The spec folder.")
@click.option("--finished", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None, help="The event that closed the run being continued (absent: there is none).")
@click.option("--input", "input_path", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path), help="The input that continues it.")
@click.option("--now", default=None, help="ISO 8601 instant expiry is judged at (default: now).")
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@out_option
def check_resume(spec_dir: Path, finished: Path | None, input_path: Path, now: str | None, as_json: bool, out: Path) -> None:
    """Check an input's answers against the run it continues (the rules file's `answers` block).

    Exit 0 when nothing MUST-level is wrong, 1 when it is, 2 on usage errors."""
    import datetime

    module = _rules_module(spec_dir, out)
    blocks = module.TABLES["answers"]
    if not blocks:
        raise click.UsageError("the rules file has no `answers` block")
    name = next(iter(blocks))
    spec = blocks[name]
    codec = importlib.import_module(module.__name__.rsplit(".", 1)[0] + ".codec_json")
    when = None
    if now is not None:
        try:
            when = datetime.datetime.fromisoformat(now.replace("Z", "+00:00"))
        except ValueError:
            raise click.BadParameter(f"not an ISO 8601 instant: {now!r}", param_hint="--now") from None
        if when.tzinfo is None:
            when = when.replace(tzinfo=datetime.timezone.utc)
    try:
        question = None
        if finished is not None:
            question = codec.decode(finished.read_bytes(), module.TABLES["event_classes"][spec["questions"]["event"]])
        answer = codec.decode(input_path.read_bytes(), spec["input"]["definition"])
    except codec.DecodeError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)  # a refused input, not a finding about the resume
    findings = module.check_answers(name, question, answer, when)
    if as_json:
        click.echo(json.dumps({"valid": not any(f.fatal for f in findings), "findings": [f.as_dict() for f in findings]}))
    else:
        for f in findings:
            click.echo(str(f))
        click.echo(f"{input_path}: {'ok' if not any(f.fatal for f in findings) else 'rejected'} ({len(findings)} findings)")
    sys.exit(1 if any(f.fatal for f in findings) else 0)


@main.command("check-listing")
@click.option("--spec", "spec_dir", required=True, type=click.Path(exists=True, file_okay=False, path_type=Path), help="The spec folder.")
@click.option("--listing", "name", default=None, metavar="NAME", help="The rules file's `listing` block (default: its only one).")
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@out_option
@click.argument("stream", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("document", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def check_listing(spec_dir: Path, name: str | None, as_json: bool, out: Path, stream: Path, document: Path) -> None:
    """Check DOCUMENT, a list of items (e.g. an execution's artifacts), against the events of
    STREAM (JSON Lines) that created them: every listed item matches its one creation event,
    none is left out, and the list keeps creation order.

    Exit 0 when nothing MUST-level is wrong, 1 when it is, 2 on usage errors or a refused input
    (a document or an event that does not decode)."""
    module = _rules_module(spec_dir, out)
    blocks = module.TABLES["listings"]
    if not blocks:
        raise click.UsageError("the rules file has no `listing` block")
    if name is None and len(blocks) > 1:
        raise click.UsageError(f"--listing: one of {', '.join(sorted(blocks))}")
    name = name or next(iter(blocks))
    if name not in blocks:
        raise click.UsageError(f"--listing {name!r}: no such listing (the rules file has {', '.join(sorted(blocks))})")
    codec = importlib.import_module(module.__name__.rsplit(".", 1)[0] + ".codec_json")
    events = []
    with stream.open("rb") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                events.append(codec.decode(line, module.TABLES["events_definition"]))
            except codec.DecodeError as exc:
                click.echo(f"error: {stream}: line {number}: {exc}", err=True)
                sys.exit(2)
    try:
        listing = codec.decode(document.read_bytes(), blocks[name]["definition"])
    except codec.DecodeError as exc:
        click.echo(f"error: {document}: {exc}", err=True)
        sys.exit(2)
    findings = module.check_listing(name, events, listing)
    failed = any(f.fatal for f in findings)
    if as_json:
        click.echo(json.dumps({"valid": not failed, "findings": [f.as_dict() for f in findings]}, ensure_ascii=False))
    else:
        for f in findings:
            click.echo(str(f))
        click.echo(f"{document}: {'rejected' if failed else 'ok'} ({len(findings)} findings, {len(events)} events)")
    sys.exit(1 if failed else 0)


from .cli_proto import register as _register_proto  # noqa: E402  (convert, --allow-new-slots)

_register_proto(main)

from .cli_http import register as _register_http  # noqa: E402  (run, serve)

_register_http(main)
from .cli_diff import register as _register_diff  # noqa: E402  (diff)
_register_diff(main)
