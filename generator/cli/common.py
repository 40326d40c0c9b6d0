"""What every command shares: the option set (one meaning per option name across commands), the
exit codes, how a refused input is reported, and how a command finds a spec's generated package.

Exit codes, in every command: 0 ok; 1 a finding (an invalid document, a violated rule, drift, a
breaking change); 2 a usage error or a refused input; 130 interrupted (Ctrl-C, after the partial
summary); 70 a bug in specbind (never an answer about the input)."""

from __future__ import annotations

import hashlib
import importlib
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

import click

from ..binding import load_binding
from ..errors import LedgerWouldGrow, SpecError

SPEC_ROOT = Path("spec")
OUT = Path("generated")

EXIT_OK, EXIT_FINDING, EXIT_USAGE = 0, 1, 2
EXIT_INTERNAL = 70  # EX_SOFTWARE: a bug in specbind
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it


# `--debug` (or SPECBIND_DEBUG=1): a target's error and an internal error also print the traceback
DEBUG = {"on": False}


def reset_debug() -> None:
    """Each run starts from the environment (the flag then sets it)."""
    DEBUG["on"] = os.environ.get("SPECBIND_DEBUG", "") not in ("", "0")


def debugging() -> bool:
    return DEBUG["on"]


def fail(exc: SpecError, drift: bool = False) -> NoReturn:
    """A spec or input the command refuses: exit 2 (1 means a finding); for `check`, a ledger
    that would grow is drift, a finding. A target's own error shows its traceback with --debug."""
    debug = getattr(exc, "debug", None)
    if debug and debugging():
        click.echo(debug.rstrip(), err=True)
    click.echo(f"error: {exc}" + (" (--debug for the traceback)" if debug and not debugging() else ""), err=True)
    sys.exit(EXIT_FINDING if drift and isinstance(exc, LedgerWouldGrow) else EXIT_USAGE)


def http_url(ctx: click.Context | None, param: click.Parameter | None, value: str) -> str:
    """An agent endpoint's URL (the URL argument of `run` and `fuzz`): http or https, with a
    host, a port that is a number; anything else is a usage error (exit 2) before any request."""
    from urllib.parse import urlsplit

    example = "e.g. http://127.0.0.1:8000/agent"
    try:
        parts = urlsplit(value)
        parts.port  # raises ValueError on a port that is not a number
    except ValueError as exc:
        raise click.BadParameter(f"{value!r}: not a URL ({exc}); {example}") from None
    if parts.scheme.lower() not in ("http", "https"):
        got = f"the scheme {parts.scheme!r}" if parts.scheme else "no scheme"
        raise click.BadParameter(f"{value!r}: an agent endpoint is an http:// or https:// URL, this has {got}; {example}")
    if not parts.hostname:
        raise click.BadParameter(f"{value!r}: no host; {example}")
    try:
        import httpx

        httpx.URL(value)
    except ImportError:
        pass  # the command says what to install
    except httpx.InvalidURL as exc:
        raise click.BadParameter(f"{value!r}: not a URL ({exc}); {example}") from None
    return value


def progress(message: str) -> None:
    click.echo(f"  ... {message}", err=True)


# -- the option set ----------------------------------------------------------------------------

specs_option = click.option(
    "--spec", "spec", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="A spec folder (with binding.toml). Repeatable; default: every folder under spec/.",
)
spec_option = click.option(
    "--spec", "spec_dir", required=True, type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="The spec folder (with binding.toml).",
)
out_option = click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), default=OUT, show_default=True,
    help="The folder the generated packages are in (generate writes there).",
)
templates_option = click.option(
    "--templates", "templates", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="A folder laid out like templates/ whose files replace their namesakes. Repeatable; first wins.",
)
allow_option = click.option(
    "--allow-new-slots", is_flag=True,
    help="Give wire slots the ledger lacks (a new field, arm or enum value) the next free number and "
    "append them to the spec's ledger. Without it a new slot is an error.",
)
target_option = click.option(
    "--target", "target_dirs", multiple=True, metavar="NAME|DIR",
    help="A target to generate for as well: a built-in one's name, or a folder holding target.py and templates/. Repeatable.",
)
only_target_option = click.option(
    "--only-target", "only_targets", multiple=True, metavar="NAME|DIR",
    help="Generate for this target only (a built-in one's name, a name the spec gives a folder, or a folder), "
    "instead of the spec's targets. Repeatable.",
)


def _set_debug(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    if value:
        DEBUG["on"] = True
    return value


debug_option = click.option(
    "--debug", is_flag=True, expose_value=False, is_eager=True, callback=_set_debug,
    help="On an error in a target's code or templates (or in specbind), print the full traceback.",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
binding_option = click.option(
    "--target", "binding_target", default=None, metavar="NAME",
    help="Run this target's binding instead of the Python package (a built-in target's name, or a folder): "
    "`typescript` runs the TypeScript package under Node. Same report shapes.",
)


def binding_tools(name: str | None) -> Any:
    """The tool commands of the target named by `--target` (None: the Python package's own)."""
    if name is None or name == "python":
        return None
    from ..targets import resolve

    try:
        target = resolve(name)
    except SpecError as exc:
        raise click.UsageError(str(exc)) from None
    if target.tools is None:
        raise click.UsageError(f"--target {name}: that target's binding has no command line")
    return target.tools


def read_json_option(path: Path, option: str) -> Any:
    """The JSON document an option names (`--input FILE`), refused as a usage error with where
    it is wrong, as a schema file is."""
    from ..schema.loader import read_json

    try:
        return read_json(path, str(path))[0]
    except SpecError as exc:
        where = f"{exc.where}: " if exc.where else ""
        raise click.BadParameter(f"{path}: {where}{exc.message}", param_hint=option) from None


def writable(path: Path, option: str) -> Path:
    """A file a command will write at the end, checked before the work starts (its folder must
    exist and be writable), so an hour of work is not lost to a typo."""
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise click.BadParameter(f"{path} is a folder", param_hint=option)
    if not folder.is_dir():
        raise click.BadParameter(f"{path}: the folder {folder} does not exist", param_hint=option)
    if not os.access(path if path.exists() else folder, os.W_OK):
        raise click.BadParameter(f"{path}: cannot be written (permission denied)", param_hint=option)
    return path


# -- the generated package of a spec --------------------------------------------------------------


def load_package(spec_dir: Path, out: Path) -> ModuleType:
    """Import the generated package of a spec, refusing one that is missing or stale."""
    try:
        binding = load_binding(spec_dir)
        package = binding.target("python").get("package")
    except SpecError as exc:
        fail(exc)  # a refused spec: one line, as the compile commands say it
    regenerate = f"specbind generate --spec {spec_dir} --out {out}"
    if not (out / str(package) / "__init__.py").exists():
        raise click.UsageError(
            f"{out}/{package} does not exist: run `{regenerate}` first, or pass --out with the folder you generated it into"
        )
    if str(out.resolve()) not in sys.path:
        sys.path.insert(0, str(out.resolve()))
    module = importlib.import_module(str(package))
    digest = hashlib.sha256(binding.schema.read_bytes()).hexdigest()
    if module.SCHEMA_SHA256 != digest:
        raise click.UsageError(f"{out}/{package} was generated from another schema: run `{regenerate}`")
    return module


def package_module(spec_dir: Path, out: Path, name: str, missing: str) -> ModuleType:
    """`<package>.<name>` of a spec's generated package; `missing` says why there is none."""
    package = load_package(spec_dir, out)
    try:
        return importlib.import_module(f"{package.__name__}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"{package.__name__}.{name}":
            raise click.UsageError(missing) from None
        raise


def extra_module(spec_dir: Path, out: Path, name: str, extra: str) -> ModuleType:
    """`<package>.<name>`, a module that needs the optional dependencies `specbind[EXTRA]`."""
    package = load_package(spec_dir, out)
    try:
        return package_module(spec_dir, out, name, f"{package.__name__} has no {name} module: its spec's templates do not provide one")
    except ModuleNotFoundError as exc:
        raise click.UsageError(f"{package.__name__}.{name} needs {exc.name}: pip install 'specbind[{extra}]'") from None


def rules_module(spec_dir: Path, out: Path) -> ModuleType:
    return package_module(spec_dir, out, "automaton", f"{spec_dir} declares no rules file: there is nothing to check against")


# -- report shapes shared by replay and run -----------------------------------------------------------


def runs_summary(runs: list[dict[str, Any]]) -> str:
    """`2 finished, 1 failed`: how the runs of a stream ended."""
    states: dict[str, int] = {}
    for run in runs:
        states[run["state"]] = states.get(run["state"], 0) + 1
    return ", ".join(f"{n} {s}" for s, n in sorted(states.items())) or "none"


def consumer_warning(text: str) -> dict[str, Any]:
    """A consumer-core warning in the shape of a finding (it names no rule)."""
    return {"rule": None, "level": "SHOULD", "index": None, "type": None, "message": text, "ids": []}


def public_finding(finding: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in finding.items() if k != "fatal"}


__all__ = [
    "EXIT_FINDING", "EXIT_INTERNAL", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_USAGE", "OUT", "SPEC_ROOT", "Any",
    "allow_option", "fail", "json_option", "load_package", "out_option", "package_module", "progress",
    "rules_module", "spec_option", "specs_option", "target_option", "templates_option", "writable",
    "runs_summary", "consumer_warning", "public_finding", "binding_option", "binding_tools", "extra_module",
    "debug_option", "debugging", "only_target_option", "reset_debug",
]
