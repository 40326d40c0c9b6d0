"""What a target author meets (issue 21): an error in the target's own code or template is
located at its file and line (exit 2, the traceback with --debug); `--only-target` generates one
target alone; a built-in target's name is never shadowed by a folder in the working directory;
the TypeScript binding's compiler is found, fetched or missing with a clear message, never a
path into the checkout."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from conftest import REPO, make_spec, run_cli
from generator.errors import SpecError
from generator.output import read_manifest
from generator.targets import resolve
from generator.targets.typescript import node as ts_node

EXAMPLE = REPO / "examples" / "targets" / "lifecycle"
HARNESS = REPO / "spec" / "harness-runtime"


def _target(tmp_path: Path, build_body: str, template: str = "# {{ protocol }}\n") -> Path:
    """A target folder whose build() runs `build_body` and renders `template`."""
    folder = tmp_path / "mytarget"
    (folder / "templates").mkdir(parents=True)
    (folder / "templates" / "OUT.md.j2").write_text(template)
    (folder / "target.py").write_text(
        "from pathlib import Path\n"
        "from generator.targets import Plan, Target\n"
        "\n"
        "\n"
        "def build(products, options):\n"
        "    context = {'protocol': products.binding.name, 'items': [1, 2]}\n"
        f"    {build_body}\n"
        "    return [Plan(package_dir='mine', context=context)]\n"
        "\n"
        "\n"
        "TARGET = Target(name='mine', description='a test target', build=build,\n"
        "                templates=Path(__file__).resolve().parent / 'templates')\n"
    )
    return folder


def test_an_exception_in_a_targets_build_names_its_file_and_line(tmp_path: Path) -> None:
    spec = make_spec(tmp_path)
    folder = _target(tmp_path, "context['n'] = len(None)")
    result = run_cli("generate", "--spec", spec, "--only-target", folder, "--out", tmp_path / "out")
    assert result.exit_code == 2, result.output
    line = result.stderr.strip()
    assert line.count("\n") == 0 and "Traceback" not in line
    assert f"{folder / 'target.py'}: line 7: target 'mine'" in line
    assert "TypeError: object of type 'NoneType' has no len()" in line and "--debug for the traceback" in line
    assert not (tmp_path / "out").exists()
    debug = run_cli("generate", "--spec", spec, "--only-target", folder, "--out", tmp_path / "out", "--debug")
    assert debug.exit_code == 2 and "Traceback (most recent call last)" in debug.stderr and 'target.py", line 7' in debug.stderr


def test_a_python_error_while_rendering_names_the_template_and_line(tmp_path: Path) -> None:
    spec = make_spec(tmp_path)
    folder = _target(tmp_path, "pass", template="# {{ protocol }}\n\n{{ items | join(', ') }}\n{{ items[0] + 'x' }}\n")
    result = run_cli("generate", "--spec", spec, "--only-target", folder, "--out", tmp_path / "out")
    assert result.exit_code == 2, result.output
    assert f"{folder / 'templates' / 'OUT.md.j2'}: line 4: TypeError: unsupported operand" in result.stderr
    assert result.stderr.count("\n") == 1 and "internal error" not in result.stderr


def test_only_target_generates_that_target_alone(tmp_path: Path) -> None:
    out = tmp_path / "out"
    folder = tmp_path / "lifecycle"
    shutil.copytree(EXAMPLE, folder)
    result = run_cli("generate", "--spec", HARNESS, "--only-target", folder, "--out", out)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["harness-runtime-lifecycle"]
    assert run_cli("check", "--spec", HARNESS, "--only-target", folder, "--out", out).exit_code == 0
    python_only = run_cli("check", "--spec", HARNESS, "--only-target", "python")
    files = len(read_manifest(REPO / "generated" / "harness_runtime") or {}) + 1  # and the manifest
    assert python_only.exit_code == 0 and python_only.stdout == f"spec/harness-runtime: up to date ({files} files)\n", python_only.output
    assert "harness_runtime" in run_cli("generate", "--spec", HARNESS, "--only-target", "python", "--out", out).stdout


def test_only_target_needs_the_targets_table(tmp_path: Path) -> None:
    spec = make_spec(tmp_path)  # a [python] table only
    result = run_cli("generate", "--spec", spec, "--only-target", "typescript", "--out", tmp_path / "out")
    assert result.exit_code == 2 and "no [typescript] table" in result.stderr, result.output


def test_a_folder_named_like_a_builtin_target_does_not_shadow_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "typescript").mkdir()  # e.g. a project's own TypeScript sources
    (tmp_path / "python").mkdir()
    monkeypatch.chdir(tmp_path)
    assert resolve("typescript").origin == "built-in" and resolve("python").origin == "built-in"
    with pytest.raises(SpecError, match="not a target folder"):
        resolve("./typescript")  # the folder, asked for as one
    listed = run_cli("targets", "--target", "typescript")
    assert listed.exit_code == 0 and "typescript   built-in" in listed.stdout


# -- the TypeScript compiler: found, fetched, or missing ----------------------------------------


def _bin(folder: Path, name: str, script: str) -> None:
    path = folder / name
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def no_tsc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH with node only, no SPECBIND_TSC, an empty cache."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("SKIPPED LOUDLY: node is not installed")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(node, bin_dir / "node")
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.delenv("SPECBIND_TSC", raising=False)
    monkeypatch.setenv("SPECBIND_CACHE", str(tmp_path / "cache"))
    return bin_dir


def test_without_tsc_or_npm_the_message_says_what_to_install(no_tsc: Path) -> None:
    assert ts_node.missing() == "tsc is not installed and npm is not here to fetch it"
    with pytest.raises(ts_node.NodeMissing, match=r"install TypeScript \(npm install -g typescript@5\.9\.3\) or set SPECBIND_TSC"):
        ts_node.tsc()
    result = run_cli("replay", "--spec", "spec/agui", "--target", "typescript", "spec/agui/samples/valid.jsonl")
    assert result.exit_code == 2 and "npm is not here to fetch it" in result.stderr and "tests/node" not in result.stderr


def test_without_tsc_it_is_fetched_once_with_npm_saying_so(no_tsc: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A stand-in npm (no network in tests) that installs the tests' own compiler where npm would."""
    real = REPO / "tests" / "node" / "node_modules" / ".bin" / "tsc"
    if not real.exists():
        pytest.skip("SKIPPED LOUDLY: tests/node has no TypeScript (make test's setup installs it)")
    log = tmp_path / "npm.log"
    _bin(no_tsc, "npm", f'echo "$@" >> {log}\n/bin/mkdir -p "$3/node_modules/.bin"\n/bin/ln -s {real} "$3/node_modules/.bin/tsc"\n')
    assert ts_node.missing() is None
    found = ts_node.tsc()
    assert found == str(tmp_path / "cache" / "node" / "node_modules" / ".bin" / "tsc")
    assert "fetching TypeScript 5.9.3 with npm into" in capsys.readouterr().err
    assert ts_node.tsc() == found and log.read_text().count("typescript@5.9.3") == 1, "fetched once"
    package = tmp_path / "pkg" / "agui-ts"
    shutil.copytree(REPO / "generated" / "agui-ts", package)
    built = ts_node.build(package, ts_node.stderr_progress)
    assert (built / "dist" / "bin" / "cli.js").is_file()
    assert "compiling agui-ts with tsc (once per change of the package)" in capsys.readouterr().err
    ts_node.build(package, ts_node.stderr_progress)
    assert "compiling" not in capsys.readouterr().err, "built once per content"
