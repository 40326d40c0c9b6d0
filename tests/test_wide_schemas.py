"""Wide schemas cost what their width costs (issue 23): an object of thousands of properties and
required names, a wide enum, a wide anyOf of constants. Each test counts operations (string
comparisons, constant names tried, constants encoded), never time: a pass that scans a list for
each member is quadratic in the width, and its count grows with the square where the others grow
linearly, whatever the machine's load."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import generator.accept_plan as accept_plan_module
import generator.ir.build as build_module
import generator.schema.loader as loader
import generator.targets.python.context as python_context
from generator.init import init
from generator.ir.build import build_ir
from generator.targets.python.symbols import Symbols

load_binding_stub: Any = None  # enums() reads no binding


class Counted(str):
    """A schema string that counts the comparisons made with it (a dict finds a key by its hash
    and compares only on a match; a scan of a list compares with every item)."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        Counted.compared += 1
        return str.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        Counted.compared += 1
        return str.__ne__(self, other)

    __hash__ = str.__hash__


def _counted(value: Any) -> Any:
    if isinstance(value, str):
        return Counted(value)
    if isinstance(value, list):
        return [_counted(v) for v in value]
    if isinstance(value, dict):
        return {Counted(k): _counted(v) for k, v in value.items()}
    return value


def _wide(shape: str, n: int) -> dict[str, Any]:
    names = [f"p{i}" for i in range(n)]
    obj = {"type": "object", "properties": {k: {"type": "string", "pattern": f"^x{i}"} for i, k in enumerate(names)}, "required": names}
    return {
        "typed-object": {**obj, "additionalProperties": False},
        "general-object": {**obj, "not": {"required": ["zz"]}},  # `not`: checked by the general validator
        "any-of-constants": {"anyOf": [{"const": f"c{i}"} for i in range(n)], "not": {"const": "zz"}},
    }[shape]


def _init(tmp_path: Path, definition: dict[str, Any], tag: str) -> None:
    schema = tmp_path / f"{tag}.json"
    schema.write_text(json.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"Wide": definition}}))
    init(schema, "wide", tmp_path / f"spec-{tag}")


@pytest.mark.parametrize("shape", ["typed-object", "general-object", "any-of-constants"])
def test_init_compares_a_wide_schemas_names_linearly_in_its_width(shape: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every string of the schema, and every attribute name made from one, counts the comparisons
    made with it while `init` runs every pass (IR, cases, both targets' decisions). From 150 to
    1,200 members (past the 256 every member of which has derived cases) they grew by 1.4M-4.1M before (the snake_case clash check counting each name in
    the list of names, `ObjectDef.field` scanning the fields, a general object's `required` list
    scanned per property, a probe per member of an anyOf each judged against every member), and
    grow by under 300 a member now (the rest is the derived cases, bounded by CASE_MEMBERS)."""
    parse, snake = loader.parse_json_file, build_module.snake
    monkeypatch.setattr(loader, "parse_json_file", lambda data, display: _counted(parse(data, display)))
    monkeypatch.setattr(build_module, "snake", lambda wire: Counted(snake(wire)))
    counts = []
    for n in (300, 1200):
        Counted.compared = 0
        _init(tmp_path, _wide(shape, n), f"w{n}")
        counts.append(Counted.compared)
    assert counts[1] - counts[0] <= 300 * (1200 - 300), counts


def test_enum_constant_names_are_found_once_each(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Values spelled alike as constants are numbered (A, A_2, A_3...): each value's search once
    started again from A, so k such values tried k^2/2 names (2,000 took `init` 137 s)."""
    tried = 0
    constant = python_context.constant

    def counting(value: str) -> str:
        nonlocal tried
        tried += 1
        return constant(value)

    k = 300
    values = ["a" + "-" * i for i in range(k)]  # every one spelled A
    schema = tmp_path / "enum.json"
    schema.write_text(json.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"E": {"type": "string", "enum": [*values, "a_2"]}}}))
    ir = build_ir(loader.load_schema(schema, "enum.json"))
    monkeypatch.setattr(python_context, "constant", counting)
    members = python_context._Context(load_binding_stub, ir, Symbols(ir)).enums()[0]["members"]
    assert tried <= 3 * (k + 1), tried
    # the names are those of before: schema order, numbered from _2, a number taken by another
    # spelling passed over
    assert [name for name, _ in members] == ["A", *(f"A_{i}" for i in range(2, k + 1)), "A_2_2"]


def test_the_compiled_validator_pools_constants_by_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled validator holds each distinct pattern, name set and value once: looking one
    up encoded every constant pooled before it again (n distinct patterns: n^2/2 encodings)."""
    encoded = 0

    class CountingJson:
        def dumps(self, *args: Any, **kwargs: Any) -> str:
            nonlocal encoded
            encoded += 1
            return json.dumps(*args, **kwargs)

    monkeypatch.setattr(accept_plan_module, "json", CountingJson())
    n = 600
    _init(tmp_path, _wide("general-object", n), "patterns")
    assert 0 < encoded <= 8 * n, encoded
