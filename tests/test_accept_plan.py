"""The compiled validator's plan (generator/accept_plan.py): references to leaf definitions
checked inline, numeric constants as a type test and ==, the depth bounds that spare a document
the compiled validator accepts its depth scan; and uniqueItems' set-first check. Their verdicts
against the interpreter are held equal by every generated package's own tests and by the
JSON-Schema-Test-Suite (tests/test_json_schema_suite.py); these say what the plan is."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from generator.accept_plan import accept_plan, depth_bounds

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "generated"))

S = {"kind": "string", "loc": "#"}


def schema(**keys: Any) -> dict[str, Any]:
    return {"kind": "schema", "loc": "#", **keys}


def ref(name: str) -> dict[str, Any]:
    return {"kind": "ref", "name": name}


def closed(**fields: Any) -> dict[str, Any]:
    return {"kind": "object", "loc": "#", "closed": "#/additionalProperties", "fields": {k: {"type": v, "required": None} for k, v in fields.items()}}


def ops_of(plan: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            if "op" in x:
                out.append(x)
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk([f["body"] for f in plan["functions"]])
    return out


def test_a_leaf_definition_is_checked_inline_and_a_recursive_one_is_called() -> None:
    table = {
        "Color": {"kind": "enum", "loc": "#", "values": ["red", "blue"]},
        "Tree": schema(types=["object"], properties={"color": ref("Color"), "kids": schema(types=["array"], items=ref("Tree"))}),
    }
    plan = accept_plan(table, "exact", False, ["Tree"])
    ops = ops_of(plan)
    calls = {op["fn"] for op in ops if op["op"] == "call"}
    assert plan["entry"]["Color"] not in calls  # inlined where Tree references it
    assert plan["entry"]["Tree"] in calls  # itself: still a call
    assert any(op["op"] == "enum_strings" and op["var"] != "v" for op in ops)


@pytest.mark.parametrize(("integers", "want", "tests"), [("json-schema", 2, ["int", "float"]), ("exact", 2, ["int"]), ("exact", 2.5, ["float"])])
def test_a_numeric_const_is_a_type_test_and_equality(integers: str, want: Any, tests: list[str]) -> None:
    for node in (schema(const=[want]), schema(enum=[want])):
        plan = accept_plan({"A": node}, integers, False, ["A"])
        (op,) = [o for o in ops_of(plan) if o["op"] == "equals"]
        assert (op["number"], op["tests"]) == (want, tests)


def test_depth_bounds() -> None:
    table = {
        "Leaf": closed(name=S),  # 1
        "Pair": closed(left=ref("Leaf"), right=schema(types=["array"], items=ref("Leaf"))),  # 3
        "Open": {"kind": "object", "loc": "#", "closed": None, "fields": {}},
        "Any": schema(),
        "AnyJson": {"kind": "any"},  # any JSON value: unbounded
        "HoldsAny": closed(value={"kind": "any"}),
        "OpenMap": {"kind": "map", "values": None},
        "Loop": schema(types=["array"], items=ref("Loop")),
        "Either": schema(any_of=[ref("Leaf"), ref("Pair")]),  # 3
        "Narrowed": schema(all_of=[ref("Open"), ref("Leaf")]),  # 1: the least of what it must satisfy
        "Scalar": schema(types=["string", "integer"]),  # 0
        "Const": schema(const=[{"a": [1]}]),  # 2
        "NoItems": schema(types=["array"]),
        "Tuple": schema(types=["array"], prefix_items=[ref("Leaf")], items=schema(bool=False)),  # 2
        "Patterned": schema(types=["object"], pattern_properties=[{"pattern": "^x", "schema": S}], additional_properties=schema(bool=False)),  # 1
    }
    got = depth_bounds(table)
    assert got == {"Leaf": 1, "Pair": 3, "Either": 3, "Narrowed": 1, "Scalar": 0, "Const": 2, "Tuple": 2, "Patterned": 1}
    assert accept_plan(table, "exact", False, ["Pair", "Loop"])["depths"] == {"Leaf": 1, "Pair": 3}


def test_unique_items_by_set_first_then_by_the_rule() -> None:
    from mcp.vocabulary import distinct

    assert distinct(["a", "b", 1, 2.5, None])
    assert not distinct(["a", "a"])
    assert distinct([1, True]) and distinct([0, False])  # one to Python, two to JSON
    assert not distinct([{"a": 1}, {"a": 1}]) and distinct([[1], [2]])
