"""The command line loads what the command it runs needs, not every command's dependencies:
`specbind replay` on a short stream was a quarter start-up, most of it modules only other
commands use (the HTTP client and asyncio for `run`/`fuzz`, the generator's pipeline and Jinja
for `generate`)."""

from __future__ import annotations

import importlib
import subprocess
from pathlib import Path

import click
from conftest import PYTHON, REPO, SPEC_AGUI, run_cli

from generator.cli import COMMAND_MODULES, main

# what `replay` must not load: each belongs to other commands
NOT_FOR_REPLAY = ("asyncio", "jinja2", "httpx", "generator.pipeline", "generator.render", "generator.cli.http", "generator.cli.compile", "generator.cli.proxy")


def test_the_command_table_names_every_command_where_it_is_defined() -> None:
    defined = {}
    for module in sorted(set(COMMAND_MODULES.values())):
        for command in importlib.import_module(f"generator.cli.{module}").COMMANDS:
            assert command.name not in defined, f"{command.name} defined twice"
            defined[command.name] = module
    assert defined == COMMAND_MODULES


def test_help_lists_every_command() -> None:
    result = run_cli("--help")
    assert result.exit_code == 0
    listed = [line.split()[0] for line in result.output.split("Commands:\n", 1)[1].splitlines() if line.startswith("  ")]
    assert listed == sorted(COMMAND_MODULES)
    assert main.list_commands(None) == sorted(COMMAND_MODULES)  # type: ignore[arg-type]


def test_an_unknown_command_is_still_a_usage_error() -> None:
    result = run_cli("replya")
    assert result.exit_code == 2
    assert "No such command 'replya'" in result.output
    if hasattr(click.exceptions, "NoSuchCommand"):  # click 8.4 on suggests a near name
        assert "Did you mean 'replay'?" in result.output


def test_replay_loads_only_what_it_needs(tmp_path: Path) -> None:
    stream = tmp_path / "run.jsonl"
    stream.write_text('{"type":"RUN_STARTED","threadId":"t","runId":"r"}\n{"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n')
    code = (
        "import atexit, sys\n"
        f"atexit.register(lambda: sys.stderr.write('loaded: ' + ' '.join(m for m in {NOT_FOR_REPLAY!r} if m in sys.modules) + '\\n'))\n"
        "from generator.entry import main\n"
        "main()\n"
    )
    proc = subprocess.run([PYTHON, "-c", code, "replay", "--spec", str(SPEC_AGUI), "--json", str(stream)],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[-1] == "loaded: "
