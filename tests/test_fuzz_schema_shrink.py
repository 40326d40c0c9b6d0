"""fuzz/schemas.py's schema shrinker: the steps it tries and the greedy loop over them, with the
harness replaced by a predicate (the real check_batch is what test_generated_schemas runs)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def shrinker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fuzz_schemas_under_test", ROOT / "fuzz" / "schemas.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "definitions": {
        "A": {"type": "object", "properties": {"n": {"type": "integer", "maximum": 3}}, "required": ["n"]},
        "B": {"anyOf": [{"type": "string"}, {"$ref": "#/definitions/A"}]},
    },
}


def test_each_step_is_one_change_smaller(shrinker: ModuleType) -> None:
    steps = shrinker.schema_steps(SCHEMA)
    defs = "definitions"
    assert {**SCHEMA, defs: {"B": SCHEMA[defs]["B"]}} in steps  # a definition dropped
    assert {**SCHEMA, defs: {"A": SCHEMA[defs]["A"]}} in steps
    a = SCHEMA[defs]["A"]
    assert {**SCHEMA, defs: {**SCHEMA[defs], "A": {k: v for k, v in a.items() if k != "required"}}} in steps  # a keyword
    assert {**SCHEMA, defs: {**SCHEMA[defs], "A": {**a, "properties": True}}} in steps  # a subschema made true
    assert {**SCHEMA, defs: {**SCHEMA[defs], "B": {"anyOf": [{"type": "string"}]}}} in steps  # a union member
    # the dialect and the definitions' folder stay; nothing is a step of zero changes
    assert all(step.get("$schema") == SCHEMA["$schema"] and defs in step for step in steps)
    assert SCHEMA not in steps
    assert SCHEMA[defs]["A"]["properties"]["n"]["maximum"] == 3  # the input is not changed in place


def test_shrinks_to_what_still_shows_the_finding(shrinker: ModuleType, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A stand-in finding that shows while A's property n keeps `maximum`: everything else goes."""

    def check_batch(schemas: list[Any], *_: Any, **__: Any) -> SimpleNamespace:
        a = schemas[0].get("definitions", {}).get("A", {})
        props = a.get("properties") if isinstance(a, dict) else None
        shows = isinstance(props, dict) and isinstance(props.get("n"), dict) and "maximum" in props["n"]
        return SimpleNamespace(findings=[SimpleNamespace(kind="reference", document=None)] if shows else [])

    monkeypatch.setattr(shrinker.sd, "check_batch", check_batch)
    finding = shrinker.sd.Finding(kind="reference", schema=SCHEMA, detail="", definition="A", document=None)
    smallest = shrinker.shrink_schema(finding, None, tmp_path, seconds=30)
    assert smallest == {"$schema": SCHEMA["$schema"], "definitions": {"A": {"properties": {"n": {"maximum": 3}}}}}
    # a finding of another kind on the candidates does not count: nothing is dropped
    other = shrinker.sd.Finding(kind="typescript", schema=SCHEMA, detail="", definition="A", document=None)
    assert shrinker.shrink_schema(other, None, tmp_path, seconds=30) == SCHEMA
