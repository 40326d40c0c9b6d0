"""The `specbind` command line.

Compile commands (`compile`: init, generate, check, lint, diff, targets) turn spec folders into
bindings; tool commands (`checks`: validate, check-resume, check-listing; `replay`; `convert`;
`http`: run, serve; `proxy`) use a spec's generated package. All share one option set and one set of
exit codes (`common`): 0 ok, 1 a finding, 2 a usage error or a refused input, 130 interrupted,
70 a bug in specbind. No input ends in a traceback.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from .. import __version__
from .common import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_USAGE, debug_option, debugging, reset_debug

# Each command and the module that defines it (in its COMMANDS). A command imports its own module
# only, when it runs or a help page lists it: `replay` does not load the HTTP client, asyncio, the
# fuzzer or the generator's pipeline, which were a quarter of a short replay's time.
# tests/test_cli_startup.py checks this table against the modules.
COMMAND_MODULES = {
    "init": "compile", "generate": "compile", "check": "compile", "lint": "compile", "diff": "compile", "targets": "compile",
    "validate": "checks", "check-resume": "checks", "check-listing": "checks",
    "replay": "replay",
    "convert": "convert",
    "run": "http", "serve": "http", "fuzz": "http",
    "proxy": "proxy",
}


class _Guarded(click.Group):
    """The command group, run so that no input can end in a traceback: output the terminal
    cannot encode is escaped (a document may hold any character), a file that cannot be read is
    a usage error (2), Ctrl-C is 130 after what the command had to say, and anything unexpected
    says it is a bug and exits 70."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        for stream in (sys.stdout, sys.stderr):
            reconfigure = getattr(stream, "reconfigure", None)
            if reconfigure is not None:
                reconfigure(errors="backslashreplace")
        kwargs.pop("standalone_mode", None)
        reset_debug()
        try:
            return super().main(*args, standalone_mode=False, **kwargs)  # type: ignore[call-overload]
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except (click.Abort, KeyboardInterrupt):
            click.echo("interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except OSError as exc:
            if isinstance(exc, BrokenPipeError):  # the reader went away (`| head`): nothing to say
                sys.stderr.close()
                sys.exit(1)
            click.echo(f"error: {exc}", err=True)
            sys.exit(EXIT_USAGE)
        except Exception as exc:  # noqa: BLE001 - the last line of defence, named as such
            import traceback

            if debugging():
                traceback.print_exc()
            frames = traceback.extract_tb(exc.__traceback__)
            where = f" (at {frames[-1].filename}:{frames[-1].lineno}; --debug for the traceback)" if frames else ""
            click.echo(f"specbind: internal error, please report it: {type(exc).__name__}: {exc}{where}", err=True)
            sys.exit(EXIT_INTERNAL)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMAND_MODULES)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMAND_MODULES.get(cmd_name)
        if module is not None and cmd_name not in self.commands:
            for command in importlib.import_module(f"{__name__}.{module}").COMMANDS:
                self.add_command(command)
        return self.commands.get(cmd_name)

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as exc:
            # click (8.4 on) suggests a near name among the commands loaded: offer all of them
            no_such: Any = getattr(click.exceptions, "NoSuchCommand", None)
            if no_such is None or not isinstance(exc, no_such):
                raise
            raise no_such(exc.command_name, possibilities=COMMAND_MODULES, ctx=ctx) from None


@click.group(cls=_Guarded)
@click.version_option(__version__, prog_name="specbind")
@debug_option
def main() -> None:
    """Compile protocol specs (JSON Schema + rules) into vendorable bindings, and check documents
    and event streams against them."""


__all__ = ["main"]
