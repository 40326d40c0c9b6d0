"""specbind as a user gets it: the wheel built from this tree, installed into a fresh venv
outside the checkout with no network (specbind's dependencies from the wheelhouse `make test`'s
setup fills), run from a folder that is not the checkout: `--version`, `python -m specbind`, the
README's "any schema" flow (init, generate, validate), an AG-UI replay (Python and, where node
is here, TypeScript), the Python API, and the templates and runtime it uses being its own
package data, never the checkout's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO

WHEELHOUSE = REPO / ".venv" / "wheelhouse"
# what a wheel is built from: the distribution's files (a copy, so no build/ folder is left in
# the checkout and nothing stale from an earlier build can ship)
SOURCES = ("pyproject.toml", "setup.py", "README.md", "generator", "specbind", "templates", "runtime")

PET_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Pets",
    "$defs": {
        "Pet": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "age": {"type": "integer", "minimum": 0},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            },
            "required": ["name"],
            "additionalProperties": False,
        }
    },
    "$ref": "#/$defs/Pet",
}


def _run(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if not WHEELHOUSE.is_dir():
        pytest.fail(f"{WHEELHOUSE} is missing: `make test`'s setup fills it (the dependencies' wheels, for an offline install)")
    root = tmp_path_factory.mktemp("install")
    src = root / "src"
    src.mkdir()
    for name in SOURCES:
        path = REPO / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "node_modules"))
        else:
            shutil.copy2(path, src / name)
    dist = root / "dist"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PIP_"))}
    env |= {"PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "SPECBIND_CACHE": str(root / "cache")}
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-q", "-w", str(dist), str(src)], root, env)
    assert built.returncode == 0, built.stderr
    wheel = next(dist.glob("specbind-*.whl"))
    venv = root / "venv"
    made = _run([sys.executable, "-m", "venv", str(venv)], root, env)
    assert made.returncode == 0, made.stderr
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-index", "--find-links", str(WHEELHOUSE), str(wheel)]
    done = _run(pip, root, env)
    assert done.returncode == 0, done.stderr
    work = root / "work"
    work.mkdir()
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return {"root": root, "venv": venv, "wheel": wheel, "work": work, "env": env}


def specbind(inst: dict[str, Any], *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return _run([str(inst["venv"] / "bin" / "specbind"), *args], inst["work"], inst["env"], timeout)


def test_the_wheel_carries_the_templates_and_runtime(installed: dict[str, Any]) -> None:
    names = set(zipfile.ZipFile(installed["wheel"]).namelist())
    for folder in ("templates", "runtime"):
        files = [p.relative_to(REPO).as_posix() for p in (REPO / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts]
        assert files and all(f"generator/{f}" in names for f in files), f"{folder}/ is not all in the wheel"
    assert "specbind/__main__.py" in names and "generator/resources.py" in names
    assert not any(n.startswith(("tests/", "spec/", "generated/", "bench/")) for n in names)


def test_version_and_module(installed: dict[str, Any]) -> None:
    from generator import __version__

    assert specbind(installed, "--version").stdout.strip() == f"specbind, version {__version__}"
    python = str(installed["venv"] / "bin" / "python")
    done = _run([python, "-m", "specbind", "--version"], installed["work"], installed["env"])
    assert done.returncode == 0 and __version__ in done.stdout
    helped = _run([python, "-m", "specbind", "--help"], installed["work"], installed["env"])
    assert helped.returncode == 0 and "Usage: specbind" in helped.stdout


def test_its_templates_and_runtime_are_its_own(installed: dict[str, Any]) -> None:
    done = specbind(installed, "targets", "--json")
    assert done.returncode == 0, done.stderr
    site = str(installed["venv"])
    for row in json.loads(done.stdout):
        assert row["templates"].startswith(site) and str(REPO) not in row["templates"]
        assert row["runtime"] is None or row["runtime"].startswith(site)


def test_the_readme_any_schema_flow(installed: dict[str, Any]) -> None:
    work = installed["work"]
    (work / "pet.json").write_text(json.dumps(PET_SCHEMA))
    made = specbind(installed, "init", "pet.json", "--name", "pets")
    assert made.returncode == 0, made.stderr
    assert "spec/pets: 1 definitions" in made.stdout
    generated = specbind(installed, "generate", "--spec", "spec/pets", "--out", "vendored")
    assert generated.returncode == 0, generated.stderr
    assert (work / "vendored" / "pets" / "models.py").is_file() and (work / "vendored" / "pets" / ".specbind-manifest.json").is_file()
    (work / "good.json").write_text('{"name": "Rex", "tags": ["a", "b"]}')
    (work / "bad.json").write_text('{"name": "", "tags": ["a", "a"], "colour": 1}')
    ok = specbind(installed, "validate", "--spec", "spec/pets", "--out", "vendored", "--as", "Pet", "--json", "good.json")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = specbind(installed, "validate", "--spec", "spec/pets", "--out", "vendored", "--as", "Pet", "--json", "bad.json")
    assert bad.returncode == 1
    keywords = {e["keyword"] for e in json.loads(bad.stdout)["errors"]}
    assert {"minLength", "uniqueItems"} <= keywords and keywords & {"additionalProperties", "unevaluatedProperties"}
    again = specbind(installed, "check", "--spec", "spec/pets", "--out", "vendored")
    assert again.returncode == 0, again.stdout
    tested = _run([str(installed["venv"] / "bin" / "python"), "-c", "import pets.codec_json"], work / "vendored", installed["env"])
    assert tested.returncode == 0, tested.stderr


def test_an_agui_replay(installed: dict[str, Any]) -> None:
    """The AG-UI spec folder copied beside the user's work, generated by the installed wheel
    (the committed output and manifests copied first: the wheel writes the same bytes), replayed."""
    work = installed["work"]
    shutil.copytree(REPO / "spec" / "agui", work / "spec" / "agui")
    for package in ("agui", "agui-ts"):
        shutil.copytree(REPO / "generated" / package, work / "out" / package, ignore=shutil.ignore_patterns("__pycache__"))
    done = specbind(installed, "generate", "--spec", "spec/agui", "--out", "out")
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("(0 added, 0 changed, 0 removed)"), done.stdout
    replay = specbind(installed, "replay", "--spec", "spec/agui", "--out", "out", "spec/agui/samples/violating.jsonl")
    assert replay.returncode == 1, replay.stderr
    assert replay.stdout.startswith("TEXT-REQUIRES-OPEN [MUST NOT] event 1 (TEXT_MESSAGE_CONTENT)")
    clean = specbind(installed, "replay", "--spec", "spec/agui", "--out", "out", "--json", "spec/agui/samples/capture.sse")
    assert clean.returncode == 0 and json.loads(clean.stdout)["format"] == "sse"
    from generator.targets.typescript import node as ts_node

    if ts_node.missing() is None:  # SPECBIND_TSC: the tests' compiler, never a fetch
        ts = specbind(installed, "replay", "--target", "typescript", "--spec", "spec/agui", "--out", "out", "--json",
                      "spec/agui/samples/violating.jsonl")
        assert ts.returncode == 1, ts.stderr
        assert [v["rule"] for v in json.loads(ts.stdout)["violations"]] == ["TEXT-REQUIRES-OPEN", "RUN-CLOSE-ALL"]
        assert str(REPO) not in ts.stderr


def test_a_cold_generate_writes_the_checkouts_bytes(installed: dict[str, Any]) -> None:
    """Into an empty folder with an empty cache: every file formatted by the wheel (the runtime
    modules taken from its preformatted table, the rest by black) is the committed one."""
    work = installed["work"]
    if not (work / "spec" / "agui").exists():
        shutil.copytree(REPO / "spec" / "agui", work / "spec" / "agui")
    env = {**installed["env"], "SPECBIND_CACHE": str(installed["root"] / "cold-cache")}
    done = _run([str(installed["venv"] / "bin" / "specbind"), "generate", "--spec", "spec/agui", "--out", "cold",
                 "--only-target", "python"], work, env)
    assert done.returncode == 0, done.stderr
    ours = {p.relative_to(work / "cold").as_posix(): p.read_bytes() for p in (work / "cold").rglob("*") if p.is_file()}
    theirs = {p.relative_to(REPO / "generated").as_posix(): p.read_bytes()
              for p in (REPO / "generated" / "agui").rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert ours.keys() == theirs.keys() and all(ours[k] == theirs[k] for k in ours), [k for k in ours if ours.get(k) != theirs.get(k)]
    assert "formatting " in done.stderr  # the rest, formatted by black


def test_the_wheel_formats_as_the_python_target_does(installed: dict[str, Any]) -> None:
    from generator.targets.python import TARGET

    with zipfile.ZipFile(installed["wheel"]) as wheel:
        table = json.loads(wheel.read("generator/preformatted.json"))
    assert list(table) == [TARGET.formatter_id]
    sources = sorted((REPO / "runtime" / "python").rglob("*.py"))
    assert len(table[TARGET.formatter_id]) == len({p.read_bytes() for p in sources})
    for path in sources[:3]:
        text = path.read_text(encoding="utf-8")
        assert TARGET.formatter is not None
        assert TARGET.formatter(path.name, text) in table[TARGET.formatter_id].values()


def test_the_python_api(installed: dict[str, Any]) -> None:
    work = installed["work"]
    (work / "api").mkdir(exist_ok=True)
    (work / "api" / "pet.json").write_text(json.dumps(PET_SCHEMA))
    code = (
        "import specbind, subprocess, sys\n"
        "subprocess.run(['specbind', 'init', 'pet.json', '--name', 'pets'], check=True, capture_output=True)\n"
        "first = specbind.generate('spec/pets', out='vendored')\n"
        "assert first[0].packages == ('pets', 'pets-ts') and first[0].added and not first[0].clean, first\n"
        "assert all(r.clean for r in specbind.check('spec/pets', out='vendored'))\n"
        "open('vendored/pets/version.py', 'a').write('# edited\\n')\n"
        "stale = specbind.check('spec/pets', out='vendored')[0]\n"
        "assert stale.changed == ('pets/version.py',) and not stale.clean, stale\n"
        "try:\n"
        "    specbind.generate('spec/nope')\n"
        "except specbind.SpecError as exc:\n"
        "    print('refused:', exc.file)\n"
    )
    done = _run([str(installed["venv"] / "bin" / "python"), "-c", code], work / "api", installed["env"])
    assert done.returncode == 0, done.stderr
    assert "refused: spec/nope/binding.toml" in done.stdout
