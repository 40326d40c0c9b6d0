"""Unit tests of the generator's front half on small schemas: the IR builder (what each schema
construct becomes), the case deriver (one case per constraint, at its keyword and pointer), and
the wire planner (routes, numbers from the ledger, reserved slots)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema

from generator.binding import load_binding
from generator.cases import derive_cases
from generator.ir import model as M
from generator.ir.build import build_ir
from generator.schema.loader import load_schema
from generator.wire.plan import plan


def ir_of(tmp_path: Path, defs: dict[str, Any], **top: Any) -> M.IR:
    path = tmp_path / "schema.json"
    path.write_text(json.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema", **top, "$defs": defs}))
    return build_ir(load_schema(path, "schema.json"))


# -- the IR builder ---------------------------------------------------------------------------------


def test_objects_keep_presence_and_nullability_apart(tmp_path: Path) -> None:
    ir = ir_of(tmp_path, {
        "A": {
            "type": "object",
            "properties": {"req": {"type": "string"}, "opt": {"type": "integer"}, "nul": {"oneOf": [{"type": "string"}, {"type": "null"}]}},
            "required": ["req"],
            "unevaluatedProperties": False,
        }
    })
    a = ir.defs["A"]
    assert isinstance(a, M.ObjectDef) and a.closed and a.closed_loc == "/$defs/A/unevaluatedProperties"
    req, opt, nul = (a.field(n) for n in ("req", "opt", "nul"))
    assert req and req.required and req.required_loc == "/$defs/A/required"
    assert opt and not opt.required and isinstance(opt.type, M.TInteger)
    assert nul and isinstance(nul.type, M.TUnion) and any(isinstance(m, M.TNull) for m in nul.type.members)


def test_an_object_without_a_closing_keyword_is_open(tmp_path: Path) -> None:
    ir = ir_of(tmp_path, {"A": {"type": "object", "properties": {"x": {"type": "string"}}}})
    a = ir.defs["A"]
    assert isinstance(a, M.ObjectDef) and not a.closed and a.closed_loc is None


def test_a_union_of_tagged_objects_is_discriminated(tmp_path: Path) -> None:
    member = lambda tag: {  # noqa: E731
        "type": "object", "properties": {"kind": {"const": tag}, "v": {"type": "string"}}, "required": ["kind"],
    }
    ir = ir_of(tmp_path, {"U": {"oneOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]}, "A": member("a"), "B": member("b")})
    u = ir.defs["U"]
    assert isinstance(u, M.UnionDef) and u.union.discriminator == "kind"
    assert dict(u.union.tags) == {"a": "A", "b": "B"}
    a = ir.defs["A"]
    assert isinstance(a, M.ObjectDef) and a.tags == [("kind", "a")]


def test_any_of_disjoint_members_is_a_union_and_a_recursive_json_value_is_any(tmp_path: Path) -> None:
    ir = ir_of(tmp_path, {
        "S": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        "J": {"anyOf": [
            {"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"},
            {"type": "array", "items": {"$ref": "#/$defs/J"}},
            {"type": "object", "additionalProperties": {"$ref": "#/$defs/J"}},
        ]},
    })
    s = ir.defs["S"]
    assert isinstance(s, M.UnionDef) and s.union.keyword == "anyOf" and s.union.discriminator is None
    j = ir.defs["J"]
    assert isinstance(j, M.AliasDef) and isinstance(j.type, M.TAny) and not j.type.nonnull


def test_bounds_lengths_names_and_formats(tmp_path: Path) -> None:
    ir = ir_of(tmp_path, {
        "N": {"type": "integer", "exclusiveMinimum": 0, "maximum": 9007199254740991},
        "T": {"type": "string", "minLength": 1, "maxLength": 5, "format": "date-time"},
        "M": {"type": "object", "propertyNames": {"type": "string", "minLength": 1}, "additionalProperties": {"type": "boolean"}},
        "Free": {"type": "object", "propertyNames": {"type": "string"}, "additionalProperties": True},
    })
    n = ir.defs["N"]
    assert isinstance(n, M.AliasDef) and n.type == M.TInteger("/$defs/N", None, 9007199254740991, 0, None)
    t = ir.defs["T"]
    assert isinstance(t, M.AliasDef) and isinstance(t.type, M.TString)
    assert (t.type.min_length, t.type.max_length, t.type.format) == (1, 5, "date-time")
    m = ir.defs["M"]
    assert isinstance(m, M.AliasDef) and isinstance(m.type, M.TMap) and m.type.keys is not None and m.type.keys.min_length == 1
    free = ir.defs["Free"]
    assert isinstance(free, M.AliasDef) and isinstance(free.type, M.TMap) and free.type.keys is None and free.type.values is None


def test_an_object_declaring_no_member_in_place_is_a_map(tmp_path: Path) -> None:
    """`properties: {}` says nothing: an object declared in place with it (and no required,
    allOf, or other assertion) is typed as the map it is without it, not as a class with no
    field whose members would all be undeclared ones to keep."""
    ir = ir_of(tmp_path, {
        "Tool": {"type": "object", "properties": {
            "caps": {"type": "object", "properties": {}},
            "args": {"type": "object", "additionalProperties": {"type": "object", "properties": {}, "additionalProperties": {"type": "integer"}}},
            "closed": {"type": "object", "properties": {}, "additionalProperties": False},
            "required": {"type": "object", "properties": {}, "required": ["x"]},
        }},
    })
    tool = ir.defs["Tool"]
    assert isinstance(tool, M.ObjectDef)
    fields = {f.wire: f.type for f in tool.fields}
    assert isinstance(fields["caps"], M.TMap) and fields["caps"].values is None
    args = fields["args"]
    assert isinstance(args, M.TMap) and isinstance(args.values, M.TMap) and isinstance(args.values.values, M.TInteger)
    # an object admitting only {}, and one requiring a member it does not declare, are no maps
    assert isinstance(fields["closed"], M.TRef) and not isinstance(fields["required"], M.TMap)


def test_all_of_composes_fields_and_marks_fragments(tmp_path: Path) -> None:
    ir = ir_of(tmp_path, {
        "Base": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        "Child": {"type": "object", "allOf": [{"$ref": "#/$defs/Base"}], "properties": {"n": {"type": "integer"}}, "unevaluatedProperties": False},
    })
    base, child = ir.defs["Base"], ir.defs["Child"]
    assert isinstance(base, M.ObjectDef) and base.fragment
    assert isinstance(child, M.ObjectDef) and child.composes == ("Base",)
    assert [f.wire for f in child.fields] == ["n", "id"] and child.field("id").required  # type: ignore[union-attr]


def test_inline_objects_are_named_after_their_owner(tmp_path: Path) -> None:
    ir = ir_of(tmp_path, {"Run": {"type": "object", "properties": {"error": {"type": "object", "properties": {"code": {"type": "string"}}}}}})
    assert "RunError" in ir.defs and isinstance(ir.defs["RunError"], M.ObjectDef)
    run = ir.defs["Run"]
    assert isinstance(run, M.ObjectDef) and run.field("error").type == M.TRef("RunError", "/$defs/Run/properties/error")  # type: ignore[union-attr]


def test_a_failed_union_keeps_what_the_definitions_it_built_made(tmp_path: Path) -> None:
    # an untagged anyOf listed before its members builds them, then is not a typed union: the
    # members it built stay, with the inline objects they named and the tags their unions gave
    ir = ir_of(tmp_path, {
        "Message": {"anyOf": [{"$ref": "#/$defs/Req"}, {"$ref": "#/$defs/Note"}]},
        "Req": {
            "type": "object",
            "properties": {
                "params": {"type": "object", "properties": {"a": {"type": "string"}}},
                "content": {"anyOf": [{"$ref": "#/$defs/Text"}, {"$ref": "#/$defs/Image"}]},
            },
        },
        "Note": {"type": "object", "properties": {"method": {"type": "string"}}},
        "Text": {"type": "object", "properties": {"type": {"const": "text"}}, "required": ["type"]},
        "Image": {"type": "object", "properties": {"type": {"const": "image"}}, "required": ["type"]},
    })
    req = ir.defs["Req"]
    assert isinstance(req, M.ObjectDef) and req.field("params").type == M.TRef("ReqParams", "/$defs/Req/properties/params")  # type: ignore[union-attr]
    assert isinstance(ir.defs["ReqParams"], M.ObjectDef)
    assert ir.defs["Text"].tags == [("type", "text")] and ir.defs["Image"].tags == [("type", "image")]  # type: ignore[union-attr]
    assert derive_cases(ir)


# -- the case deriver ---------------------------------------------------------------------------------


def test_one_case_per_constraint_each_agreeing_with_jsonschema(tmp_path: Path) -> None:
    defs = {
        "A": {
            "type": "object",
            "properties": {
                "s": {"type": "string", "minLength": 2, "maxLength": 3},
                "n": {"type": "integer", "exclusiveMinimum": 0, "maximum": 10},
                "e": {"type": "string", "enum": ["x", "y"]},
                "p": {"type": "string", "pattern": "^[a-z]+-\\d{2}$"},
                "m": {"type": "object", "propertyNames": {"type": "string", "minLength": 1}, "additionalProperties": {"type": "integer"}},
                "l": {"type": "array", "items": {"type": "boolean"}, "minItems": 1},
            },
            "required": ["s", "n"],
            "unevaluatedProperties": False,
        }
    }
    ir = ir_of(tmp_path, defs)
    cases = derive_cases(ir)
    labels = {c["name"].split("/", 2)[2]: c for c in cases}
    expected = {
        "missing-s": ("required", ""), "s-too-short": ("minLength", "/s"), "s-too-long": ("maxLength", "/s"),
        "n-at-exclusive-minimum": ("exclusiveMinimum", "/n"), "n-above-maximum": ("maximum", "/n"),
        "e-not-a-member": ("enum", "/e"), "p-pattern-mismatch": ("pattern", "/p"),
        "m-bad-property-name": ("propertyNames", "/m"), "l-too-few-items": ("minItems", "/l"),
        "l-item-a-number": ("type", "/l/0"), "unknown-property": ("unevaluatedProperties", ""),
    }
    for label, (keyword, pointer) in expected.items():
        assert label in labels, sorted(labels)
        assert (labels[label]["keyword"], labels[label]["pointer"]) == (keyword, pointer), label
    validator = jsonschema.Draft202012Validator({"$defs": defs, "$ref": "#/$defs/A"})
    for case in cases:
        agrees = validator.is_valid(case["document"]) == case["valid"]
        assert agrees or case.get("reference") == "accepts", case["name"]
    full = labels["full"]["document"]
    assert set(full) == set(defs["A"]["properties"]) and validator.is_valid(full)


# -- the wire planner ----------------------------------------------------------------------------------

PROTO_SCHEMA = {
    "$ref": "#/$defs/Event",
    "$defs": {
        "Event": {"oneOf": [{"$ref": "#/$defs/Ping"}, {"$ref": "#/$defs/Pong"}]},
        "Ping": {"type": "object", "properties": {"type": {"const": "PING"}, "seq": {"type": "integer"}}, "required": ["type"], "unevaluatedProperties": False},
        "Pong": {"type": "object", "properties": {"type": {"const": "PONG"}, "note": {"type": "string"}, "data": True}, "required": ["type"], "unevaluatedProperties": False},
    },
}


def proto_spec(tmp_path: Path, ledger: str = "", schema: dict[str, Any] | None = None) -> Path:
    spec = tmp_path / "spec"
    spec.mkdir(exist_ok=True)
    (spec / "schema.json").write_text(json.dumps(schema or PROTO_SCHEMA))
    (spec / "wire.txt").write_text(ledger)
    (spec / "binding.toml").write_text(
        '[protocol]\nname = "W"\nversion = "1"\nschema = "schema.json"\nroot = "Event"\n\n[python]\npackage = "w"\n\n'
        '[proto]\npackage = "w"\nledger = "wire.txt"\nroots = ["Event"]\n\n[proto.unions]\nEvent = { as = "oneof", oneof = "event" }\n'
    )
    return spec


def test_the_planner_routes_each_field_and_numbers_new_slots_in_order(tmp_path: Path) -> None:
    binding = load_binding(proto_spec(tmp_path))
    from generator.products import load_ir

    wire = plan(binding, load_ir(binding), allow_new=True)
    event, ping, pong = wire.messages["Event"], wire.messages["Ping"], wire.messages["Pong"]
    assert event.strategy == "oneof" and [(f.name, f.route.kind, f.number) for f in event.fields] == [("ping", "arm", 1), ("pong", "arm", 2)]
    assert [(f.name, f.kind, f.route.key) for f in ping.fields] == [("seq", "int64", "seq")]  # the tag travels as the arm
    assert {f.name: f.kind for f in pong.fields} == {"note": "string", "data": "value"}
    assert wire.new_slots and wire.ledger_changed
    assert wire.ledger.entries["Event.event.ping"] == 1 and wire.ledger.entries["Pong.data"] == 2


def test_the_planner_keeps_numbers_and_reserves_removed_slots(tmp_path: Path) -> None:
    ledger = "Event.event.ping = 1\nEvent.event.pong = 2\nPing.seq = 1\nPing.gone = 2\nPong.data = 2\nPong.note = 1\n"
    binding = load_binding(proto_spec(tmp_path, ledger))
    from generator.products import load_ir

    wire = plan(binding, load_ir(binding), allow_new=False)
    assert not wire.new_slots and len(wire.ledger.entries) == 6
    assert wire.messages["Ping"].reserved == [(2, "gone")]
    assert {f.name: f.number for f in wire.messages["Pong"].fields} == {"note": 1, "data": 2}


def test_a_wide_object_derives_cases_linear_in_its_width(tmp_path: Path) -> None:
    """Each member's case holds the object's other members: 2,000 required names took init 87 s
    and 4 GB (every member's cases, each with 1,999 members). Past CASE_MEMBERS the members given
    cases are spread over the object; a narrow object still has every member's case."""
    from generator.cases import CASE_MEMBERS
    from generator.validation_table import validation_table

    n = 600
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(n)}, "required": [f"p{i}" for i in range(n)]}
    defs = {"Typed": wide, "General": {**wide, "not": {"required": ["zz"]}}, "Narrow": {**wide, "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a", "b"]}}
    ir = ir_of(tmp_path, defs)
    cases = derive_cases(ir, validation_table(ir))
    for name in ("Typed", "General"):
        mine = [c for c in cases if c["name"].startswith(f"{name}/")]
        members = sum(len(c["document"]) for c in mine if isinstance(c["document"], dict))
        assert members <= 8 * CASE_MEMBERS, (name, members)
        missing = [c for c in mine if "missing-p" in c["name"]]
        assert 0 < len(missing) < n and not any(c["valid"] for c in missing), name
        indices = sorted(int(c["name"].rsplit("-p", 1)[1]) for c in missing)
        assert indices[0] == 0 and indices[-1] > n // 2, (name, indices[:3], indices[-3:])  # spread, not the first few
        assert any(re.match(r"(probe-)?p\d+-", c["name"].split("/", 2)[2]) and not c["valid"] for c in mine), name  # a member's wrong values too
    narrow = {c["name"].split("/", 2)[2] for c in cases if c["name"].startswith("Narrow/")}
    assert {"missing-a", "missing-b"} <= narrow
