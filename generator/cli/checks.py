"""The tool commands that check documents against a spec's generated package: `validate`,
`check-resume` (an input's answers against the run it continues), `check-listing` (a list of
created items against the events that created them)."""

from __future__ import annotations

import difflib
import importlib
import json
import sys
from pathlib import Path
from typing import Any

import click

from ..binding import load_binding
from ..errors import SpecError
from .common import binding_option, binding_tools, load_package, out_option, rules_module, spec_option

@click.command()
@spec_option
@click.option("--as", "definition", default=None, help="Definition each document is validated as (default: the spec's root).")
@click.option("--lenient", is_flag=True, help="Strip and report unknown properties and union members instead of failing.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per file on stdout.")
@click.option(
    "--max-errors", type=click.IntRange(min=0), default=None, metavar="N",
    help="List at most N errors (and N warnings) per document (default 100; 0: all); the rest are counted in \"omitted\". Which documents are valid does not change.",
)
@binding_option
@out_option
@click.argument("files", nargs=-1, required=True, type=click.Path(allow_dash=True, dir_okay=False, exists=True, path_type=Path))
def validate(
    spec_dir: Path, definition: str | None, lenient: bool, as_json: bool, max_errors: int | None, binding_target: str | None, out: Path, files: tuple[Path, ...]
) -> None:
    """Validate JSON documents (one per FILE, - for stdin) against a definition.

    Exit 0 when every document is valid, 1 when any is not, 2 on usage errors."""
    if sum(1 for p in files if str(p) == "-") > 1:
        raise click.UsageError("stdin (-) can be read once")
    tools = binding_tools(binding_target)
    if tools is not None:
        try:
            results = tools.validate(spec_dir, out, definition, lenient, [str(p) for p in files], max_errors)
        except SpecError as exc:
            raise click.UsageError(str(exc)) from None
        for result in results:
            _print_validation(result, definition or load_binding(spec_dir).root or "?", as_json)
        sys.exit(0 if all(r["valid"] for r in results) else 1)
    package = load_package(spec_dir, out)
    codec = package.codec_json
    name = definition or codec.ROOT
    if name not in package.models.DEFINITIONS:
        near = difflib.get_close_matches(name, list(package.models.DEFINITIONS), n=3)
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        raise click.UsageError(f"--as {name!r}: no such definition{hint}")
    dec = codec.decoder(name) if max_errors is None else codec.decoder(name, max_errors or None)
    all_valid = True
    for path in files:
        shown = "-" if str(path) == "-" else str(path)
        data = sys.stdin.buffer.read() if shown == "-" else path.read_bytes()
        errors: list[Any] = []
        warnings: list[Any] = []
        more = {"errors": 0, "warnings": 0}
        dropped = False
        try:
            if lenient:
                result = dec.decode_lenient(data)
                warnings = list(result.warnings)
                more["warnings"] = result.omitted
                dropped = result.dropped
            else:
                dec.decode(data)
        except package.DecodeError as exc:
            errors = list(exc.errors)
            more["errors"] = exc.count - len(errors)
            # a lenient decode that failed: what it had stripped is reported beside the errors
            warnings = list(getattr(exc, "warnings", ()))
            more["warnings"] = getattr(exc, "warnings_omitted", 0)
        valid = not errors
        all_valid &= valid
        report: dict[str, Any] = {"file": shown, "valid": valid, "errors": [e.as_dict() for e in errors], "warnings": [w.as_dict() for w in warnings]}
        if any(more.values()):
            report["omitted"] = more
        if dropped:
            report["dropped"] = True
        _print_validation(report, name, as_json)
    sys.exit(0 if all_valid else 1)


def _print_validation(result: dict[str, Any], name: str, as_json: bool) -> None:
    """One file's result (``omitted``: what the lists leave out, beyond --max-errors), from this
    package or another target's binding, printed alike."""
    if as_json:
        click.echo(json.dumps(result, ensure_ascii=False))
        return
    # lenient: a document stripped whole (an unknown value where its definition needs a known
    # one) is not an error, but nothing of it is kept
    whole = " (stripped whole: nothing of it is kept)" if result.get("dropped") else ""
    click.echo(f"{result['file']}: {'valid' if result['valid'] else 'invalid'} {name}{whole}")
    omitted = result.get("omitted", {})
    for kind, key in (("error  ", "errors"), ("warning", "warnings")):
        for e in result[key]:
            click.echo(f"  {kind} {e['pointer'] or '/'}: {e['message']} [{e['keyword']}, {e['definition']}]")
        if omitted.get(key):
            click.echo(f"  ... and {omitted[key]} more {key} (--max-errors)")


@click.command("check-resume")
@spec_option
@click.option("--finished", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None, help="The event that closed the run being continued (absent: there is none).")
@click.option("--input", "input_path", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path), help="The input that continues it.")
@click.option("--now", default=None, help="ISO 8601 instant expiry is judged at (default: now).")
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@out_option
def check_resume(spec_dir: Path, finished: Path | None, input_path: Path, now: str | None, as_json: bool, out: Path) -> None:
    """Check an input's answers against the run it continues (the rules file's `answers` block).

    Exit 0 when nothing MUST-level is wrong, 1 when it is, 2 on usage errors."""
    import datetime

    module = rules_module(spec_dir, out)
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
    reading = finished
    try:
        question = None
        if finished is not None:
            question = codec.decode(finished.read_bytes(), module.TABLES["event_classes"][spec["questions"]["event"]])
        reading = input_path
        answer = codec.decode(input_path.read_bytes(), spec["input"]["definition"])
    except codec.DecodeError as exc:
        click.echo(f"error: {reading}: {exc}", err=True)
        sys.exit(2)  # a refused input, not a finding about the resume
    findings = module.check_answers(name, question, answer, when)
    if as_json:
        click.echo(json.dumps({"valid": not any(f.fatal for f in findings), "findings": [f.as_dict() for f in findings]}))
    else:
        for f in findings:
            click.echo(str(f))
        click.echo(f"{input_path}: {'ok' if not any(f.fatal for f in findings) else 'rejected'} ({len(findings)} findings)")
    sys.exit(1 if any(f.fatal for f in findings) else 0)


@click.command("check-listing")
@spec_option
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
    module = rules_module(spec_dir, out)
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


COMMANDS: list[click.Command] = [validate, check_resume, check_listing]
