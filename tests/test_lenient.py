"""Lenient decoding strips what a newer peer may add (an unknown property of a closed object, an
unknown union member or enum value) and reports it; it never stops checking the rest. A stripped
member's siblings are checked as in strict mode, so a bad one is still an error, and the two
bindings give the same answers. An undeclared member is reported under the keyword that closed
its object (`additionalProperties` or `unevaluatedProperties`), as the schema wrote it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import typescript_agreement as agree
from conftest import run_cli

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$defs": {
        "Color": {"enum": ["red", "green"]},
        "Square": {
            "type": "object",
            "properties": {"kind": {"const": "square"}, "side": {"type": "integer"}},
            "required": ["kind"],
            "additionalProperties": False,
        },
        "Circle": {
            "type": "object",
            "properties": {"kind": {"const": "circle"}, "radius": {"type": "integer"}},
            "required": ["kind"],
            "unevaluatedProperties": False,
        },
        "Shape": {"oneOf": [{"$ref": "#/$defs/Square"}, {"$ref": "#/$defs/Circle"}]},
        "Holder": {
            "type": "object",
            "properties": {
                "color": {"$ref": "#/$defs/Color"},
                "shape": {"$ref": "#/$defs/Shape"},
                "tint": {"$ref": "#/$defs/Color"},
                "n": {"type": "integer"},
            },
            "required": ["color", "shape", "n"],
            "additionalProperties": False,
        },
    },
}

# (name, document, lenient errors as (pointer, keyword), lenient warnings as (pointer, keyword), dropped);
# a decode that fails still reports what it stripped (DecodeError.warnings: they were dropped before)
CASES: list[tuple[str, dict[str, Any], list[tuple[str, str]], list[tuple[str, str]], bool]] = [
    # a required member stripped first: the members after it are still checked
    ("required-enum-then-bad", {"color": "pink", "n": "x", "shape": {"kind": "square"}}, [("/n", "type")], [("/color", "enum")], False),
    # Color is an enum with no `type` beside it: a number is refused by the enum (the schema has no `type` there)
    ("required-union-then-bad", {"shape": {"kind": "hexagon"}, "color": 5, "n": 1}, [("/color", "enum")], [("/shape", "oneOf")], False),
    ("required-union-then-bad-nested", {"shape": {"kind": "hexagon"}, "color": "red", "n": 1, "tint": "x"}, [], [("/shape", "oneOf"), ("/tint", "enum")], True),
    ("required-union-then-unknown", {"shape": {"kind": "hexagon"}, "n": 1.5, "extra": 1, "color": "red"}, [("/n", "type")], [("/shape", "oneOf"), ("/extra", "additionalProperties")], False),
    ("required-union-missing-sibling", {"shape": {"kind": "hexagon"}}, [("", "required"), ("", "required")], [("/shape", "oneOf")], False),
    # an optional member stripped: the object stays, its other members checked
    ("optional-enum-then-bad", {"tint": "blue", "n": True, "color": "red", "shape": {"kind": "square"}}, [("/n", "type")], [("/tint", "enum")], False),
    ("unknown-property-then-bad", {"extra": 1, "color": "red", "shape": {"kind": "circle", "radius": "r"}, "n": 1}, [("/shape/radius", "type")], [("/extra", "additionalProperties")], False),
    # nothing wrong but what a newer peer adds: valid, each strip reported
    ("only-strips", {"color": "red", "shape": {"kind": "square", "colour": 1}, "n": 1, "more": 2}, [], [("/shape/colour", "additionalProperties"), ("/more", "additionalProperties")], False),
    ("only-strips-dropped", {"color": "red", "shape": {"kind": "hexagon"}, "n": 1}, [], [("/shape", "oneOf")], True),
    ("unevaluated-strip", {"color": "red", "shape": {"kind": "circle", "colour": 1}, "n": 1}, [], [("/shape/colour", "unevaluatedProperties")], False),
]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("lenient")
    spec = tmp / "spec" / "shapes"
    spec.mkdir(parents=True)
    (spec / "schema.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    (spec / "binding.toml").write_text(
        '[protocol]\nname = "shapes"\nversion = "1"\nschema = "schema.json"\n\n'
        '[python]\npackage = "shapes_lenient"\n\n[typescript]\npackage = "shapes-lenient-ts"\n',
        encoding="utf-8",
    )
    done = run_cli("generate", "--spec", spec, "--out", tmp / "out")
    assert done.exit_code == 0, done.output
    agree.register("shapes-lenient", tmp / "out", "shapes_lenient", "shapes-lenient-ts")
    return tmp


def _pairs(issues: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(i["pointer"], i["keyword"]) for i in issues]


@pytest.mark.parametrize(("name", "document", "errors", "warnings", "dropped"), CASES, ids=[c[0] for c in CASES])
def test_lenient_checks_every_sibling_of_a_stripped_member(
    generated: Path, name: str, document: dict[str, Any], errors: list[tuple[str, str]], warnings: list[tuple[str, str]], dropped: bool
) -> None:
    found = agree.python_validation("shapes-lenient", "Holder", json.dumps(document), lenient=True)
    assert sorted(_pairs(found["errors"])) == sorted(errors), found
    assert found["valid"] is not errors
    assert sorted(_pairs(found["warnings"])) == sorted(warnings), found
    assert found.get("dropped", False) is dropped, found


def test_strict_names_the_keyword_that_closed_the_object(generated: Path) -> None:
    square = agree.python_validation("shapes-lenient", "Square", '{"kind":"square","colour":1}', lenient=False)
    circle = agree.python_validation("shapes-lenient", "Circle", '{"kind":"circle","colour":1}', lenient=False)
    assert [(e["keyword"], e["schemaLocation"]) for e in square["errors"]] == [("additionalProperties", "#/$defs/Square/additionalProperties")]
    assert [(e["keyword"], e["schemaLocation"]) for e in circle["errors"]] == [("unevaluatedProperties", "#/$defs/Circle/unevaluatedProperties")]


def test_the_typescript_binding_agrees(generated: Path) -> None:
    agree.require_toolchain()
    extra = [(name, "Holder", json.dumps(document)) for name, document, *_ in CASES]
    extra += [("square", "Square", '{"kind":"square","colour":1}'), ("circle", "Circle", '{"kind":"circle","colour":1}')]
    result = agree.compare_documents("shapes-lenient", generated, extra, base=False)
    assert result["documents"] == len(extra)
    assert result["differences"] == [], json.dumps(result["differences"][:3], indent=1, ensure_ascii=False)
