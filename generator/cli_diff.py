"""`specbind diff OLD NEW`: what changed between two versions of a protocol, and who it breaks."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .errors import SpecError


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
    from .diff import diff as run_diff
    from .diff import render

    if as_json and markdown:
        raise click.UsageError("--json and --markdown exclude each other")
    try:
        report = run_diff(old, new)
    except SpecError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    click.echo(render.as_json(report) if as_json else render.markdown(report) if markdown else render.text(report), nl=not markdown)
    sys.exit(1 if report.breaking and not allow_breaking else 0)


def register(main: click.Group) -> None:
    main.add_command(diff)
