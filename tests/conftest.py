"""Shared helpers for the generator's own tests.

`REPO` is the repository root. `run_cli` runs the `specbind` command line in-process. `make_spec`
writes a throwaway spec folder (a small "toy" protocol) that tests can mutate to provoke one
generation error at a time, and `run_python` runs code in a fresh interpreter so that generated
packages never clash in this process's module cache.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from generator.cli import main
from generator.pipeline import render_spec

REPO = Path(__file__).resolve().parents[1]
SPEC_AGUI = REPO / "spec" / "agui"
GENERATED = REPO / "generated"
_VENV_PYTHON = REPO / ".venv" / "bin" / "python"
PYTHON = str(_VENV_PYTHON if _VENV_PYTHON.exists() else Path(sys.executable))

TOY_PACKAGE = "toyproto"

TOY_BINDING = """\
# A throwaway protocol for the generator's tests (shaped like spec/agui/binding.toml).

[protocol]
name = "Toy"
version = "0.1"
schema = "schema.json"
root = "Message"
fixtures = "fixtures"

[python]
package = "toyproto"
"""

_TOY_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://example.invalid/toy.json",
    "title": "Toy protocol",
    "description": "A tiny protocol exercising each construct the generator supports.",
    "$ref": "#/$defs/Message",
    "$defs": {
        "Color": {"type": "string", "enum": ["red", "green", "blue"], "description": "A color."},
        "Ping": {
            "type": "object",
            "description": "A ping.",
            "properties": {
                "type": {"const": "PING"},
                "seq": {"type": "integer", "minimum": 0, "maximum": 100},
                "note": {"type": "string", "description": "Optional free text."},
                "color": {"$ref": "#/$defs/Color"},
            },
            "required": ["type", "seq"],
            "unevaluatedProperties": False,
        },
        "Data": {
            "type": "object",
            "description": "Some data.",
            "properties": {
                "type": {"const": "DATA"},
                "payload": {"not": {"type": "null"}},
            },
            "required": ["type", "payload"],
            "unevaluatedProperties": False,
        },
        "Message": {
            "description": "Any toy message, told apart by `type`.",
            "oneOf": [{"$ref": "#/$defs/Ping"}, {"$ref": "#/$defs/Data"}],
        },
    },
}

# <Definition>/<valid|invalid>/<name>.json, as in spec/agui/fixtures
_TOY_FIXTURES: dict[str, Any] = {
    "Message/valid/ping.json": {"type": "PING", "seq": 0},
    "Message/valid/data.json": {"type": "DATA", "payload": [1, "two", None]},
    "Ping/valid/full.json": {"type": "PING", "seq": 100, "note": "hi", "color": "blue"},
    "Ping/invalid/seq-above-maximum.json": {"type": "PING", "seq": 101},
    "Ping/invalid/seq-above-maximum.expect.json": {
        "keyword": "maximum",
        "instanceLocation": "/seq",
        "keywordLocation": "#/properties/seq/maximum",
    },
}


def toy_schema() -> dict[str, Any]:
    """A fresh, mutable copy of the toy schema."""
    return copy.deepcopy(_TOY_SCHEMA)


def make_spec(
    root: Path,
    schema: dict[str, Any] | str | None = None,
    binding: str | None = TOY_BINDING,
    fixtures: dict[str, Any] | None = None,
    name: str = "toy",
) -> Path:
    """Write `root/spec/<name>/` (binding.toml, schema.json, fixtures/) and return that folder.

    `schema` may be a dict (written as JSON) or raw text (written as is, e.g. malformed JSON);
    `binding=None` leaves binding.toml out; `fixtures` replaces the toy fixtures."""
    spec_dir = root / "spec" / name
    spec_dir.mkdir(parents=True)
    if binding is not None:
        (spec_dir / "binding.toml").write_text(binding, encoding="utf-8")
    if schema is None:
        schema = toy_schema()
    text = schema if isinstance(schema, str) else json.dumps(schema, indent=2) + "\n"
    (spec_dir / "schema.json").write_text(text, encoding="utf-8")
    for rel, doc in (_TOY_FIXTURES if fixtures is None else fixtures).items():
        path = spec_dir / "fixtures" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return spec_dir


def run_cli(*args: Any, input: str | bytes | None = None) -> Result:
    """`specbind ARGS...` in-process. Exceptions are caught by click and left in `.exception`."""
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def run_python(code: str, cwd: Path, path: list[Path] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run `code` in a fresh, isolated (`-I`) interpreter whose sys.path gets `path` prepended.
    `-I` ignores PYTHONPATH and does not add the working directory, so nothing leaks in."""
    prelude = "import sys\n" + "".join(f"sys.path.insert(0, {str(p)!r})\n" for p in reversed(path or []))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return subprocess.run(
        [PYTHON, "-I", "-c", prelude + code],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def run_package_tests(root: Path, package: str) -> subprocess.CompletedProcess[str]:
    """`python -I -m pytest <package>/tests` with cwd and rootdir `root` (an empty pytest.ini is
    written there so no configuration of an enclosing project applies)."""
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return subprocess.run(
        [PYTHON, "-I", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(root), "-c", str(root / "pytest.ini"), f"{package}/tests"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


@pytest.fixture
def toy_spec(tmp_path: Path) -> Path:
    """The toy spec folder, under tmp_path/spec/toy."""
    return make_spec(tmp_path)


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> Path:
    """cwd = the repository, as `specbind` is meant to be run (its defaults are cwd-relative)."""
    monkeypatch.chdir(REPO)
    return REPO


@pytest.fixture(scope="session")
def agui_files() -> dict[str, bytes]:
    """Everything spec/agui generates, rendered once per session from the repository root."""
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(REPO)
        files = render_spec(Path("spec/agui"), []).files
    return files
