"""The compile commands: what turns a spec folder into bindings, and what checks one. `generate`,
`check`, `lint`, `diff`, `targets` (and `init`). They load the generator (black, jinja2) only
when they run, so the tool commands start fast."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..binding import load_binding
from ..errors import SpecError
from .common import (
    OUT,
    SPEC_ROOT,
    allow_option,
    debug_option,
    fail,
    only_target_option,
    out_option,
    progress,
    specs_option,
    target_option,
    templates_option,
)

if TYPE_CHECKING:
    from ..pipeline import SpecOutput

COMMANDS: list[click.Command] = []


def _specs(spec: tuple[Path, ...]) -> list[Path]:
    from ..pipeline import discover_specs

    return list(spec) if spec else discover_specs(SPEC_ROOT)


def _render(
    spec: tuple[Path, ...], templates: tuple[Path, ...], allow: bool, target_dirs: tuple[str, ...], out: Path, only: tuple[str, ...]
) -> list[SpecOutput]:
    for layer in templates:
        _overrides_something(layer)
    from ..pipeline import render_specs

    return render_specs(_specs(spec), list(templates), allow, list(target_dirs), progress=progress, out=out, only=list(only))


def _overrides_something(layer: Path) -> None:
    """A --templates folder is laid out like templates/: one with no template in any set's
    folder would change nothing, which is a mistake, not a no-op."""
    if not any(p.is_file() for p in layer.glob("*/**/*")):
        raise SpecError(str(layer), "", "overrides nothing: a --templates folder holds <set>/<file> (e.g. python/version.py.j2)")


@click.command()
@specs_option
@out_option
@templates_option
@allow_option
@target_option
@only_target_option
@click.option("--force", is_flag=True, help="Overwrite files specbind did not write (not in a package's manifest) where output goes.")
@debug_option
def generate(
    spec: tuple[Path, ...], out: Path, templates: tuple[Path, ...], allow_new_slots: bool, target_dirs: tuple[str, ...],
    only_targets: tuple[str, ...], force: bool,
) -> None:
    """Generate the bindings of every spec into --out.

    Each package folder gets a manifest (.specbind-manifest.json) of the files specbind wrote:
    only those are ever changed or removed; anything else there is left alone. The whole run is
    written or nothing is."""
    from ..pipeline import write_all

    try:
        outputs = _render(spec, templates, allow_new_slots, target_dirs, out, only_targets)
        ledgers = {o.ledger_update.path: o.ledger_update.text.encode("utf-8") for o in outputs if o.ledger_update is not None}
        drifts = write_all(out, [o.files for o in outputs], extra=ledgers, force=force)
    except SpecError as exc:
        fail(exc)
        return
    for o, d in zip(outputs, drifts):
        packages = ", ".join(sorted({p.split("/", 1)[0] for p in o.files}))
        forced = f", {len(d.collisions)} overwritten" if d.collisions else ""
        click.echo(
            f"{o.binding.display_dir}: {len(o.files)} files -> {out}/{packages} "
            f"({len(d.added)} added, {len(d.changed)} changed, {len(d.removed)} removed{forced})"
        )
        if o.ledger_update is not None:
            u = o.ledger_update
            added = ", ".join(f"{k} = {n}" for k, n in u.new_slots)
            click.echo(f"{u.shown}: {len(u.new_slots)} new slot(s) appended: {added}")


@click.command()
@specs_option
@out_option
@templates_option
@allow_option
@target_option
@only_target_option
@debug_option
def check(
    spec: tuple[Path, ...], out: Path, templates: tuple[Path, ...], allow_new_slots: bool, target_dirs: tuple[str, ...],
    only_targets: tuple[str, ...],
) -> None:
    """Exit 1 with a summary if regenerating would change anything in --out (or a ledger).

    Files specbind did not write (not in a package's manifest) are ignored, unless one stands
    where an output file goes."""
    from ..output import MANIFEST
    from ..pipeline import drift

    try:
        outputs = _render(spec, templates, allow_new_slots, target_dirs, out, only_targets)
    except SpecError as exc:
        fail(exc, drift=True)
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
        for rel in d.collisions:
            click.echo(f"  collides {rel} (not written by specbind: generate refuses to overwrite it without --force)")
        shown = [r for r in d.changed if not r.endswith(MANIFEST)]
        # a manifest changes with every file it lists: named only when nothing else changed
        for rel in shown if (shown or d.added or d.removed or d.collisions) else d.changed:
            lines = d.diffs[rel]
            plus = sum(1 for ln in lines if ln.startswith("+") and not ln.startswith("+++"))
            minus = sum(1 for ln in lines if ln.startswith("-") and not ln.startswith("---"))
            click.echo(f"  changed  {rel} (+{plus} -{minus})")
            for ln in lines[2:14]:
                click.echo(f"    {ln}")
    if dirty:
        # the command that regenerates exactly this: the same specs, output, templates and targets
        given = [("--spec", spec), ("--out", (out,) if out != OUT else ()), ("--templates", templates),
                 ("--target", target_dirs), ("--only-target", only_targets)]
        again = " ".join(["specbind generate"] + [f"{flag} {shlex.quote(str(v))}" for flag, values in given for v in values])
        if any(o.ledger_update for o in outputs):
            click.echo(f"run `{again} --allow-new-slots` and commit the ledger", err=True)
        click.echo(f"run `{again}` and commit the result", err=True)
        sys.exit(1)


@click.command("targets")
@click.option("--spec", "spec", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Also list the targets these spec folders name ([targets.NAME] from = ...).")
@target_option
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
def targets_command(spec: tuple[Path, ...], target_dirs: tuple[str, ...], as_json: bool) -> None:
    """List the targets specbind can generate for: the built-in ones, those the spec folders
    name, and those given with --target."""
    from ..targets import builtins, load_folder, resolve

    found: dict[str, Any] = dict(builtins())
    try:
        for spec_dir in spec:
            binding = load_binding(spec_dir)
            for name, (folder, _) in binding.target_folders.items():
                found[name] = load_folder(folder, binding.display(folder))
        for given in target_dirs:
            t = resolve(given)
            found[t.name] = t
    except SpecError as exc:
        fail(exc)
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


@click.command()
@specs_option
def lint(spec: tuple[Path, ...]) -> None:
    """Check each spec's schema and rules file (default: every spec folder under spec/).

    The schema must load; in the rules file every event type, field, entity, state, enum value
    and rule named must exist, every state be reachable, and every event type of the schema be
    handled or explicitly passed through."""
    try:
        folders = _specs(spec)
        for spec_dir in folders:
            _lint_one(spec_dir)
    except SpecError as exc:
        fail(exc)


def _lint_one(spec_dir: Path) -> None:
    from ..products import load_ir
    from ..rules.load import load_rules

    binding = load_binding(spec_dir)
    ir = load_ir(binding)
    compiled = load_rules(binding, ir)
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


@click.command("diff")
@click.argument("old", type=click.Path(exists=True, path_type=Path))
@click.argument("new", type=click.Path(exists=True, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--markdown", is_flag=True, help="Print the report as a Markdown fragment for a changelog.")
@click.option("--allow-breaking", is_flag=True, help="Exit 0 even when something breaks.")
def diff(old: Path, new: Path, as_json: bool, markdown: bool, allow_breaking: bool) -> None:
    """Compare two schema files or spec folders (binding.toml; their wire ledgers included).

    Reports definitions, properties and enum values added, removed and renamed (with how sure a
    rename is), type, presence and constraint changes, and the wire ledgers slot by slot; each
    change names who it breaks: old readers of new data, new readers of old data, the JSON wire,
    the protobuf wire. OLD and NEW are schema files (JSON Schema, or OpenAPI in YAML or JSON),
    spec folders, or release folders as upstream publishes them (a schema.json and its
    proto-freeze.txt). Exit 0 when nothing breaks, 1 when something does (unless
    --allow-breaking), 2 when an input is refused (unreadable, not a schema, an unsupported
    keyword: the error names its file and pointer) or on usage errors."""
    from ..diff import diff as run_diff
    from ..diff import render

    if as_json and markdown:
        raise click.UsageError("--json and --markdown exclude each other")
    try:
        report = run_diff(old, new)
    except SpecError as exc:
        fail(exc)
    click.echo(render.as_json(report) if as_json else render.markdown(report) if markdown else render.text(report), nl=not markdown)
    sys.exit(1 if report.breaking and not allow_breaking else 0)




@click.command()
@click.argument("schema", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--name", required=True, help="The spec folder's name and the Python package's (as snake_case).")
@click.option(
    "--spec-dir", "spec_root", type=click.Path(file_okay=False, path_type=Path), default=SPEC_ROOT, show_default=True,
    help="Where the spec folder is made.",
)
def init(schema: Path, name: str, spec_root: Path) -> None:
    """Make a spec folder for SCHEMA (JSON Schema 2020-12 or draft-07, or OpenAPI 3.x; JSON or
    YAML): a copy of it, a SOURCE note with its sha256 and a binding.toml with working defaults,
    so that `generate` needs no hand edit."""
    from ..init import init as run

    try:
        made = run(schema, name, spec_root)
    except SpecError as exc:
        fail(exc)
    click.echo(f"{made.folder}: {made.definitions} definitions ({made.draft}), package {made.package!r}" + (f", root {made.root!r}" if made.root else ""))
    if made.annotations:
        click.echo(f"  read as annotations: {', '.join(made.annotations)} (no JSON Schema vocabulary defines them)")
    click.echo(f"next: specbind generate --spec {made.folder} --out OUT")
    click.echo(f"      specbind validate --spec {made.folder} --out OUT --as DEFINITION --json FILE...")


COMMANDS += [init, generate, check, lint, diff, targets_command]
