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
from .errors import SpecError

SPEC_ROOT = Path("spec")
OUT = Path("generated")


def _fail(exc: SpecError) -> None:
    click.echo(f"error: {exc}", err=True)
    sys.exit(1)


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


@click.group()
@click.version_option(__version__, prog_name="specbind")
def main() -> None:
    """Compile protocol specs (JSON Schema + rules) into vendorable Python bindings."""


@main.command()
@spec_option
@out_option
@templates_option
def generate(spec: tuple[Path, ...], out: Path, templates: tuple[Path, ...]) -> None:
    """Generate the bindings of every spec into --out."""
    from .pipeline import render_spec, write

    try:
        for spec_dir in _specs(spec):
            binding, files = render_spec(spec_dir, list(templates))
            d = write(out, files)
            packages = ", ".join(sorted({p.split("/", 1)[0] for p in files}))
            click.echo(
                f"{binding.display_dir}: {len(files)} files -> {out}/{packages} "
                f"({len(d.added)} added, {len(d.changed)} changed, {len(d.removed)} removed)"
            )
    except SpecError as exc:
        _fail(exc)


@main.command()
@spec_option
@out_option
@templates_option
def check(spec: tuple[Path, ...], out: Path, templates: tuple[Path, ...]) -> None:
    """Exit 1 with a summary if regenerating would change anything in --out."""
    from .pipeline import drift, render_spec

    dirty = False
    try:
        for spec_dir in _specs(spec):
            binding, files = render_spec(spec_dir, list(templates))
            d = drift(out, files)
            if d.clean:
                click.echo(f"{binding.display_dir}: up to date ({len(files)} files)")
                continue
            dirty = True
            click.echo(f"{binding.display_dir}: {out} is not what the spec generates:")
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
    except SpecError as exc:
        _fail(exc)
    if dirty:
        click.echo("run `specbind generate` and commit the result", err=True)
        sys.exit(1)


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
    from .ir.naming import snake
    from .pipeline import load_ir
    from .rules.load import load_rules

    try:
        binding = load_binding(spec_dir)
        ir = load_ir(binding)
        compiled = load_rules(binding, ir, snake)
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
        f"{len(ast.answers)} answers blocks"
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
        sys.exit(1)
    findings = module.check_answers(name, question, answer, when)
    if as_json:
        click.echo(json.dumps({"valid": not any(f.fatal for f in findings), "findings": [f.as_dict() for f in findings]}))
    else:
        for f in findings:
            click.echo(str(f))
        click.echo(f"{input_path}: {'ok' if not any(f.fatal for f in findings) else 'rejected'} ({len(findings)} findings)")
    sys.exit(1 if any(f.fatal for f in findings) else 0)


from .cli_proto import register as _register_proto  # noqa: E402  (convert, --allow-new-slots)

_register_proto(main)

from .cli_http import register as _register_http  # noqa: E402  (run, serve)

_register_http(main)
from .cli_diff import register as _register_diff  # noqa: E402  (diff)
_register_diff(main)
from .cli_replay import register as _register_replay  # noqa: E402  (replay)

_register_replay(main)
