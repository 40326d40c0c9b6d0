"""The committed package works when copied alone into another project: it imports nothing from
the generator (checked statically and at run time), decodes and encodes, and its own tests pass
in an isolated interpreter whose only project path is the copy."""

from __future__ import annotations

import ast
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from conftest import GENERATED, run_package_tests, run_python

PACKAGE = GENERATED / "agui"
RUNTIME_DEPENDENCIES = {"msgspec"}
TEST_DEPENDENCIES = {"pytest", "jsonschema", "hypothesis"}  # the property tests skip without hypothesis (importorskip)


def _imports(path: Path) -> set[str]:
    """Top-level names of every absolute import in a file (relative ones stay in the package)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def _python_files() -> list[Path]:
    files = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)
    assert len(files) >= 10, files
    return files


def test_no_generated_file_imports_the_generator() -> None:
    offenders = [p for p in _python_files() if "generator" in _imports(p)]
    assert offenders == []


def _optional() -> dict[str, set[str]]:
    """version.OPTIONAL_REQUIRES as module file -> the top-level names its requirements import."""
    tree = ast.parse((PACKAGE / "version.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == "OPTIONAL_REQUIRES":
            declared = ast.literal_eval(node.value)  # type: ignore[arg-type]
            return {f"{module}.py": {re.split(r"[<>=!~\[; ]", r)[0] for r in reqs} for module, reqs in declared.items()}
    raise AssertionError("version.py declares no OPTIONAL_REQUIRES")


def test_generated_imports_are_stdlib_msgspec_or_the_package_itself() -> None:
    """...or, for a module version.OPTIONAL_REQUIRES names, what it declares there (and the
    tests of such modules, which skip without it)."""
    allowed = set(sys.stdlib_module_names) | RUNTIME_DEPENDENCIES | {"agui"}
    optional = _optional()
    every_optional = set().union(*optional.values())
    for path in _python_files():
        extra = TEST_DEPENDENCIES | every_optional if "tests" in path.relative_to(PACKAGE).parts else set()
        extra = extra | optional.get(path.name, set()) if path.parent == PACKAGE else extra
        extra = extra | CALL_TIME.get(path.name, set()) if path.parent == PACKAGE else extra
        assert _imports(path) - allowed - extra == set(), path


# imported inside the functions that need it, never when the module loads: strategies' seeded
# generators and everything else in the package work without hypothesis
CALL_TIME = {"docgen.py": {"hypothesis"}, "strategies.py": {"hypothesis"}}


def test_call_time_imports_stay_inside_functions() -> None:
    for name, modules in CALL_TIME.items():
        tree = ast.parse((PACKAGE / name).read_text(encoding="utf-8"))
        top = set()
        for node in tree.body:  # the module's own statements, and a class body's, run on import
            for sub in [node, *(node.body if isinstance(node, ast.ClassDef) else [])]:
                if isinstance(sub, ast.Import):
                    top |= {alias.name.split(".")[0] for alias in sub.names}
                elif isinstance(sub, ast.ImportFrom) and sub.level == 0 and sub.module:
                    top.add(sub.module.split(".")[0])
        assert not top & modules, name
        assert modules <= _imports(PACKAGE / name), name  # the control: they are imported somewhere


def test_optional_modules_are_declared() -> None:
    assert _optional() == {"http_client.py": {"httpx"}, "http_server.py": {"starlette"}}


def test_the_import_check_sees_imports() -> None:
    """The control for the two checks above: the parser does find what the package imports."""
    assert {"msgspec", "json"} <= _imports(PACKAGE / "codec_json.py") | _imports(PACKAGE / "validation.py")
    assert "jsonschema" in _imports(PACKAGE / "tests" / "support.py")


def test_runtime_requirements_are_declared() -> None:
    version = (PACKAGE / "version.py").read_text(encoding="utf-8")
    assert 'RUNTIME_REQUIRES: tuple[str, ...] = ("msgspec>=0.19",)' in version


@pytest.fixture(scope="module")
def vendored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """generated/agui copied alone into an empty project folder."""
    root = tmp_path_factory.mktemp("vendor")
    shutil.copytree(PACKAGE, root / "agui", ignore=shutil.ignore_patterns("__pycache__"))
    return root


VENDORED_PROBE = r"""
import json, sys
sys.modules["generator"] = None  # any `import generator` now raises ImportError
import agui
from agui import codec_json, models, DecodeError

event = codec_json.decode(b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hi"}')
try:
    codec_json.decode(b'{"type":"TEXT_MESSAGE_END","messageId":"m1","timestamp":1.5}')
    refused = None
except DecodeError as exc:
    refused = [[e.pointer, e.keyword] for e in exc.errors]
print(json.dumps({
    "file": agui.__file__,
    "class": type(event).__name__,
    "delta": event.delta,
    "absent": event.timestamp is models.UNSET,
    "encoded": codec_json.encode(event).decode(),
    "refused": refused,
    "generator_modules": [m for m in sys.modules if m.startswith("generator.")],
    "path": sys.path,
}))
"""


def test_vendored_copy_imports_decodes_and_encodes(vendored: Path) -> None:
    proc = run_python(VENDORED_PROBE, cwd=vendored, path=[vendored])
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    assert Path(r["file"]).resolve() == (vendored / "agui" / "__init__.py").resolve()
    assert not any(str(GENERATED) in p for p in r["path"]), "the repository's generated/ leaked onto sys.path"
    assert r["class"] == "TextMessageContentEvent" and r["delta"] == "hi" and r["absent"] is True
    assert r["encoded"] == '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hi"}'
    assert r["refused"] == [["/timestamp", "type"]]
    assert r["generator_modules"] == []


OPTIONAL_PROBE = r"""
import importlib, json, pkgutil, sys
for name in ("httpx", "starlette"):
    sys.modules[name] = None  # as if not installed
import agui
results = {}
for info in pkgutil.iter_modules(agui.__path__):
    try:
        importlib.import_module("agui." + info.name)
        results[info.name] = "ok"
    except ImportError as exc:
        results[info.name] = (exc.name or str(exc)).split(".")[0]
print(json.dumps(results))
"""


def test_only_the_optional_modules_need_their_extras(vendored: Path) -> None:
    """Without httpx and starlette, `import agui` and every other module still work; the two
    transport modules fail naming what they need."""
    proc = run_python(OPTIONAL_PROBE, cwd=vendored, path=[vendored])
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)
    assert results.pop("http_client") == "httpx"
    assert results.pop("http_server") == "starlette"
    assert {"sse", "http_binding", "codec_json", "automaton", "consumer"} <= set(results)
    assert set(results.values()) == {"ok"}, results


def test_vendored_copy_own_tests_pass(vendored: Path) -> None:
    proc = run_package_tests(vendored, "agui")
    tail = proc.stdout[-3000:] + proc.stderr[-2000:]
    assert proc.returncode == 0, tail
    summary = proc.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary and "error" not in summary, summary
    passed = int(summary.split(" passed")[0].split()[-1])
    assert passed > 1000, summary  # the fixture, derived-case and bad-input suites all ran


def test_vendored_under_a_package_path_runs_its_own_tests(tmp_path: Path) -> None:
    """Vendored as `svc/_vendor/agui` (a package inside the application's package), its tests
    still import it: they use relative imports, never the package's top-level name."""
    vendor = tmp_path / "svc" / "_vendor"
    vendor.mkdir(parents=True)
    (tmp_path / "svc" / "__init__.py").write_text("")
    (vendor / "__init__.py").write_text("")
    shutil.copytree(PACKAGE, vendor / "agui", ignore=shutil.ignore_patterns("__pycache__"))
    for test in sorted((vendor / "agui" / "tests").glob("*.py")):
        assert "import agui" not in test.read_text() and "from agui" not in test.read_text(), test
    proc = run_package_tests(tmp_path, "svc/_vendor/agui")
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr[-2000:]
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert " passed" in summary and int(summary.split(" passed")[0].split()[-1]) > 1000, summary


def test_the_package_says_what_it_needs_and_how_to_test_it() -> None:
    readme = (PACKAGE / "README.md").read_text(encoding="utf-8")
    assert "msgspec" in readme and "pytest" in readme and "jsonschema" in readme
    assert "python -m pytest" in readme and "httpx" in readme
