"""The `specbind` command line.

Compile commands (`compile`: init, generate, check, lint, diff, targets) turn spec folders into
bindings; tool commands (`checks`: validate, check-resume, check-listing; `replay`; `convert`;
`http`: run, serve; `proxy`) use a spec's generated package. All share one option set and one set of
exit codes (`common`): 0 ok, 1 a finding, 2 a usage error or a refused input, 130 interrupted,
70 a bug in specbind. No input ends in a traceback.
"""

from __future__ import annotations

import sys
import traceback
from typing import Any

import click

from .. import __version__
from . import checks, compile, convert, http, proxy, replay
from .common import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_USAGE, debug_option, debugging, reset_debug


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
            if debugging():
                traceback.print_exc()
            frames = traceback.extract_tb(exc.__traceback__)
            where = f" (at {frames[-1].filename}:{frames[-1].lineno}; --debug for the traceback)" if frames else ""
            click.echo(f"specbind: internal error, please report it: {type(exc).__name__}: {exc}{where}", err=True)
            sys.exit(EXIT_INTERNAL)


@click.group(cls=_Guarded)
@click.version_option(__version__, prog_name="specbind")
@debug_option
def main() -> None:
    """Compile protocol specs (JSON Schema + rules) into vendorable bindings, and check documents
    and event streams against them."""


for _module in (compile, checks, replay, convert, http, proxy):
    for _command in _module.COMMANDS:
        main.add_command(_command)

__all__ = ["main"]
