"""The `specbind` command: the command line, loaded here so that Ctrl-C while it loads (a few
tenths of a second of imports) exits 130 with one line, as it does once a command runs."""

from __future__ import annotations

import sys


def main() -> None:
    try:
        from .cli import main as command_line
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        raise SystemExit(130) from None
    command_line(prog_name="specbind")
