"""The `specbind` command line."""

from __future__ import annotations

import difflib
import hashlib
import importlib
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import click

from . import __version__
from .binding import load_binding
from .errors import LedgerWouldGrow, SpecError

if TYPE_CHECKING:
    from .pipeline import SpecOutput

SPEC_ROOT = Path("spec")
OUT = Path("generated")


def _fail(exc: SpecError, drift: bool = False) -> None:
    """A spec the generator refuses: exit 2, as every refused input does (1 means a finding);
    for `check`, a ledger that would grow is drift, a finding."""
    click.echo(f"error: {exc}", err=True)
    sys.exit(1 if drift and isinstance(exc, LedgerWouldGrow) else 2)


def _specs(spec: tuple[Path, ...]) -> list[Path]:
    from .pipeline import discover_specs  # the generator (black, jinja2) loads only when used

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
    from .pipeline import render_specs

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
    from .pipeline import write

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
    from .pipeline import drift

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


def runs_summary(runs: list[dict[str, Any]]) -> str:
    """`2 finished, 1 failed`: how the runs of a stream ended."""
    states: dict[str, int] = {}
    for run in runs:
        states[run["state"]] = states.get(run["state"], 0) + 1
    return ", ".join(f"{n} {s}" for s, n in sorted(states.items())) or "none"


def consumer_warning(text: str) -> dict[str, Any]:
    """A consumer-core warning in the shape of a finding (it names no rule)."""
    return {"rule": None, "level": "SHOULD", "index": None, "type": None, "message": text, "ids": []}


def _public(finding: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in finding.items() if k != "fatal"}


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
from .cli_replay import register as _register_replay  # noqa: E402  (replay)

_register_replay(main)
