"""Recursive type aliases (issue 23): a definition that names itself through arrays, maps and
unions (a JSON-value-like `node = string | array of node`, alone or through a second
definition) generates in both languages, and `init` neither refuses nor crashes where
`generate` would not (`a = array of a` once ended `init` in a RecursionError, exit 70)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import run_cli, run_package_tests, run_python

# the issue's reproducers, one definition each (and one with two definitions in a cycle)
REPRODUCERS: dict[str, dict[str, Any]] = {
    "array-of-itself-in-a-union": {"definitions": {"node": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "#/definitions/node"}}]}}},
    "map-of-itself-in-a-union": {"definitions": {"node": {"anyOf": [{"type": "string"}, {"type": "object", "additionalProperties": {"$ref": "#/definitions/node"}}]}}},
    "two-definitions-in-a-cycle": {
        "definitions": {
            "a": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "#/definitions/b"}}]},
            "b": {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#/definitions/a"}}]},
        }
    },
    "array-of-itself": {"definitions": {"a": {"type": "array", "items": {"$ref": "#/definitions/a"}}}},
}

# (definition, document, valid, the pointer of the bad value when invalid)
DOCUMENTS: dict[str, list[tuple[str, Any, bool, str]]] = {
    "array-of-itself-in-a-union": [
        ("node", "x", True, ""),
        ("node", ["x", ["y", [[]]]], True, ""),
        ("node", ["x", ["y", [1]]], False, "/1/1/0"),
        ("node", {"a": "x"}, False, ""),
    ],
    "map-of-itself-in-a-union": [
        ("node", {"a": {"b": "x", "c": {}}}, True, ""),
        ("node", {"a": {"b": 2}}, False, "/a/b"),
        ("node", ["x"], False, ""),
    ],
    "two-definitions-in-a-cycle": [
        ("a", ["x", [1, 2], ["y"]], False, "/0"),
        ("a", [1, ["x"], 3], True, ""),
        ("b", [[1, ["y"]]], True, ""),
        ("b", [["x"]], False, "/0/0"),
    ],
    "array-of-itself": [
        ("a", [], True, ""),
        ("a", [[], [[]]], True, ""),
        ("a", [[1]], False, "/0/0"),
    ],
}


@pytest.mark.parametrize("case", list(REPRODUCERS))
def test_a_recursive_alias_inits_generates_and_decodes(tmp_path: Path, case: str) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(REPRODUCERS[case]), encoding="utf-8")
    made = run_cli("init", str(schema), "--name", "rec", "--spec-dir", str(tmp_path / "spec"))
    assert made.exit_code == 0, made.output
    done = run_cli("generate", "--spec", str(tmp_path / "spec" / "rec"), "--out", str(tmp_path / "out"))
    assert done.exit_code == 0, done.output
    # both bindings declare every definition with its exact type (the IR checks a recursive
    # alias by its compiled schema; at run time a Python value is the plain JSON one, typed by
    # the JSON types it admits)
    models = (tmp_path / "out" / "rec" / "models.py").read_text(encoding="utf-8")
    ts_types = (tmp_path / "out" / "rec-ts" / "src" / "types.ts").read_text(encoding="utf-8")
    names = REPRODUCERS[case]["definitions"]
    for name in names:
        exact = re.search(rf'^    {name}: TypeAlias = "(.*)"$', models, re.M)
        loose = re.search(rf"^    {name} = ", models, re.M)
        declared = re.search(rf"^export type {name} = (.*);$", ts_types, re.M)
        assert exact and loose and declared, name
        for annotation in (exact.group(1), declared.group(1)):  # names a recursive alias, not "any JSON"
            assert any(re.search(rf"\b{other}\b", annotation) for other in names) and "Any" not in annotation and "JsonValue" not in annotation, annotation
    if case == "two-definitions-in-a-cycle":  # the exact aliases type-check as the package uses them
        checked = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(tmp_path / "out" / "rec")], capture_output=True, text=True)
        assert checked.returncode == 0, checked.stdout[-3000:]
    # the package's own tests (every derived case against jsonschema) pass
    result = run_package_tests(tmp_path / "out", "rec")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    checks = json.dumps(DOCUMENTS[case])
    code = f"""
import json
import re
import subprocess
import sys
from rec import codec_json
from rec.errors import DecodeError
for definition, document, valid, pointer in json.loads({checks!r}):
    data = json.dumps(document).encode()
    try:
        value = codec_json.decode(data, definition)
        got = True
    except DecodeError as exc:
        got = False
        # at the bad value, or at an anyOf above it that no member matched
        assert pointer.startswith(exc.errors[0].pointer), (document, exc.errors)
    assert got == valid, (definition, document)
    if valid:
        assert codec_json.to_builtins(value) == document
        assert codec_json.encode(value, definition) == json.dumps(document, separators=(",", ":")).encode()
print("ok")
"""
    ran = run_python(code, tmp_path / "out", [tmp_path / "out"])
    assert ran.returncode == 0 and ran.stdout.strip() == "ok", ran.stdout + ran.stderr


def test_init_refuses_what_generate_refuses_and_keeps_nothing(tmp_path: Path) -> None:
    """init runs every target's own decisions before it keeps the folder: a schema no target
    can generate leaves no folder behind (here the refusal comes from the IR, the same place
    generate would stop)."""
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"$ref": "#/definitions/a"}}}), encoding="utf-8")
    made = run_cli("init", str(schema), "--name", "loop", "--spec-dir", str(tmp_path / "spec"))
    assert made.exit_code == 2, made.output
    assert "cycle" in made.output and "Traceback" not in made.output
    assert not (tmp_path / "spec" / "loop").exists()
