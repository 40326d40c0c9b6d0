"""`specbind diff`: every change kind on small synthetic schema pairs, the ledger comparison, the
command's outputs and exit codes, and the AG-UI draft -> 1.1 pair (tests/data/agui-draft)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from generator.diff import diff
from generator.diff.model import Change, Report

from conftest import REPO, SPEC_AGUI, run_cli

DRAFT = REPO / "tests" / "data" / "agui-draft"

STR = {"type": "string"}


def obj(props: dict[str, Any], required: list[str] | None = None, closed: bool = True, **extra: Any) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "object", "properties": props, **extra}
    if required:
        node["required"] = required
    if closed:
        node["unevaluatedProperties"] = False
    return node


BASE: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$ref": "#/$defs/Shape",
    "$defs": {
        "Shape": {"oneOf": [{"$ref": "#/$defs/Circle"}, {"$ref": "#/$defs/Square"}]},
        "Circle": obj(
            {"kind": {"const": "circle"}, "radius": {"type": "integer", "minimum": 0, "description": "The radius in pixels."}, "label": STR},
            ["kind", "radius"],
            description="A round shape.",
        ),
        "Square": obj({"kind": {"const": "square"}, "side": {"type": "integer"}}, ["kind", "side"], description="A shape with four equal sides."),
        "Color": {"type": "string", "enum": ["red", "green", "blue"], "description": "A colour."},
        "Meta": obj({"note": STR, "extra": {}}, closed=False, description="Free-form notes about a drawing, kept as they are."),
    },
}


def write(path: Path, schema: dict[str, Any]) -> Path:
    path.write_text(json.dumps(schema), encoding="utf-8")
    return path


def compare(tmp_path: Path, change: Any) -> Report:
    """Diff BASE against BASE as modified by `change(defs)`."""
    new = copy.deepcopy(BASE)
    change(new["$defs"])
    return diff(write(tmp_path / "old.json", BASE), write(tmp_path / "new.json", new))


def only(report: Report, kind: str, subject: str | None = None) -> Change:
    found = [c for c in report.changes if c.kind == kind and (subject is None or c.subject == subject)]
    assert len(found) == 1, (kind, subject, [c.as_dict() for c in report.changes])
    return found[0]


def test_identical_schemas_have_no_changes(tmp_path: Path) -> None:
    report = compare(tmp_path, lambda d: None)
    assert report.changes == [] and not report.breaking


# -- definitions ----------------------------------------------------------------------------


def test_definition_added_and_removed(tmp_path: Path) -> None:
    def change(d: dict[str, Any]) -> None:
        del d["Meta"]
        d["Point"] = obj({"x": {"type": "integer"}, "y": {"type": "integer"}}, ["x", "y"], description="Cartesian coordinates.")

    report = compare(tmp_path, change)
    assert only(report, "definition-added", "Point").new == "Point"
    removed = only(report, "definition-removed", "Meta")
    assert removed.old == "Meta"
    # with a root, what reads through Meta reports the break (here nothing references it)
    assert removed.breaks == () and not report.breaking
    assert not report.of("definition-renamed")


def test_a_removed_definition_of_a_schema_without_root_breaks(tmp_path: Path) -> None:
    """Definitions only (as `specbind init` reads one): every definition is an entry point a
    consumer names (`validate --as Meta`), so a NEW reader cannot read what an OLD writer sent as
    a removed one; an added one breaks nothing."""
    old = {k: v for k, v in BASE.items() if k != "$ref"}
    new = copy.deepcopy(old)
    del new["$defs"]["Meta"]
    report = diff(write(tmp_path / "old.json", old), write(tmp_path / "new.json", new))
    assert only(report, "definition-removed", "Meta").breaks == ("new-readers",)
    assert report.breaking
    back = diff(tmp_path / "new.json", tmp_path / "old.json")
    assert only(back, "definition-added", "Meta").breaks == () and not back.breaking
    result = run_cli("diff", tmp_path / "old.json", tmp_path / "new.json")
    assert result.exit_code == 1 and "breaks new-readers" in result.output, result.output


@pytest.mark.parametrize("root", [None, "Shape"], ids=["no-root", "binding-root"])
def test_a_spec_folders_root_is_its_binding_root(tmp_path: Path, root: str | None) -> None:
    """A definitions-only schema in a spec folder whose binding.toml names the root: read as a
    schema with that root (the MCP bindings are), so a removed definition breaks only without it."""
    schema = {k: v for k, v in BASE.items() if k != "$ref"}
    for side, defs in (("old", schema["$defs"]), ("new", {k: v for k, v in schema["$defs"].items() if k != "Meta"})):
        folder = tmp_path / side
        folder.mkdir()
        write(folder / "schema.json", {**schema, "$defs": defs})
        named = f'root = "{root}"\n' if root else ""
        (folder / "binding.toml").write_text(f'[protocol]\nname = "s"\nversion = "1"\nschema = "schema.json"\n{named}\n[python]\npackage = "s"\n', encoding="utf-8")
    report = diff(tmp_path / "old", tmp_path / "new")
    assert only(report, "definition-removed", "Meta").breaks == (() if root else ("new-readers",))


def test_a_removed_definition_says_whether_the_root_reaches_it(tmp_path: Path) -> None:
    """With a root, the audiences judge documents of the root: a definition the root does not
    reach (Meta) is in none, so its removal breaks no reader; one it reaches (Square) is read
    through the union member that referenced it, which reports the break. Both are named, with
    whether the root reaches them, in the change, the JSON report and the text summary; the exit
    code is that of the breaks alone."""

    def change(d: dict[str, Any]) -> None:
        del d["Meta"], d["Square"]
        d["Shape"] = {"oneOf": [{"$ref": "#/$defs/Circle"}]}

    old = write(tmp_path / "old.json", BASE)
    new = copy.deepcopy(BASE)
    change(new["$defs"])
    new_path = write(tmp_path / "new.json", new)
    report = diff(old, new_path)
    meta, square = only(report, "definition-removed", "Meta"), only(report, "definition-removed", "Square")
    assert (meta.breaks, meta.reached, square.breaks, square.reached) == ((), False, (), True)
    assert "the root Shape does not reach it" in meta.message and "the root Shape reaches it" in square.message
    assert report.breaking and all(c.kind != "definition-removed" for c in report.breaking)
    doc = json.loads(run_cli("diff", "--json", old, new_path).output)
    assert doc["definitionsRemoved"] == {"root": "Shape", "reached": ["Square"], "unreached": ["Meta"], "noRoot": []}
    by_subject = {c["subject"]: c for c in doc["changes"] if c["kind"] == "definition-removed"}
    assert (by_subject["Meta"]["reachedFromRoot"], by_subject["Square"]["reachedFromRoot"]) == (False, True)
    assert {"old", "new", "breaking", "summary", "wire", "rules", "changes"} <= set(doc)
    text = run_cli("diff", old, new_path)
    assert text.exit_code == 1
    assert "definitions removed: 1 the root Shape reaches (Square: their references say what breaks), 1 it does not reach (Meta:" in text.output
    # Meta alone: nothing breaks, exit 0, and the summary still names it
    only_meta = copy.deepcopy(BASE)
    del only_meta["$defs"]["Meta"]
    quiet = run_cli("diff", old, write(tmp_path / "meta.json", only_meta))
    assert quiet.exit_code == 0 and "1 it does not reach (Meta:" in quiet.output, quiet.output


def test_a_definition_reached_only_through_a_general_schema_counts_as_reached(tmp_path: Path) -> None:
    """The root reaches Meta through a patternProperties schema (checked by the general
    validator, not by a typed field): still reached."""
    old_schema = copy.deepcopy(BASE)
    old_schema["$defs"]["Circle"]["patternProperties"] = {"^x-": {"$ref": "#/$defs/Meta"}}
    new_schema = copy.deepcopy(old_schema)
    del new_schema["$defs"]["Meta"]
    new_schema["$defs"]["Circle"]["patternProperties"] = {"^x-": STR}
    report = diff(write(tmp_path / "old.json", old_schema), write(tmp_path / "new.json", new_schema))
    assert only(report, "definition-removed", "Meta").reached is True
    assert report.removed["reached"] == ["Meta"]


def test_a_removed_definition_without_a_root_is_listed_as_such(tmp_path: Path) -> None:
    old = {k: v for k, v in BASE.items() if k != "$ref"}
    new = copy.deepcopy(old)
    del new["$defs"]["Meta"]
    doc = json.loads(run_cli("diff", "--json", "--allow-breaking", write(tmp_path / "old.json", old), write(tmp_path / "new.json", new)).output)
    assert doc["definitionsRemoved"] == {"root": None, "reached": [], "unreached": [], "noRoot": ["Meta"]}
    assert "reachedFromRoot" not in next(c for c in doc["changes"] if c["kind"] == "definition-removed")


def test_a_root_removed_breaks_new_readers(tmp_path: Path) -> None:
    new = {k: v for k, v in BASE.items() if k != "$ref"}
    report = diff(write(tmp_path / "old.json", BASE), write(tmp_path / "new.json", new))
    root = only(report, "root")
    assert (root.old, root.new, root.breaks) == ("Shape", None, ("new-readers",))
    back = diff(tmp_path / "new.json", tmp_path / "old.json")
    assert not back.of("root") and not back.breaking  # a root added: every reader still reads by name


def test_definition_renamed_with_confidence(tmp_path: Path) -> None:
    def change(d: dict[str, Any]) -> None:
        d["Box"] = d.pop("Square")
        d["Shape"]["oneOf"][1] = {"$ref": "#/$defs/Box"}

    report = compare(tmp_path, change)
    c = only(report, "definition-renamed", "Box")
    assert (c.old, c.new) == ("Square", "Box") and c.confidence is not None and c.confidence >= 0.8
    assert c.certainty == "high" and not c.breaks  # definition names do not travel
    assert not report.of("definition-added") and not report.of("definition-removed")
    assert not report.of("type")  # the union's member is the renamed definition: no change


def test_unrelated_removed_and_added_definitions_are_no_rename(tmp_path: Path) -> None:
    def change(d: dict[str, Any]) -> None:
        del d["Color"]
        d["Weight"] = {"type": "string", "enum": ["light", "heavy"], "description": "How heavy a parcel is."}

    report = compare(tmp_path, change)
    assert not report.of("definition-renamed")
    only(report, "definition-added", "Weight")
    only(report, "definition-removed", "Color")


# -- fields ---------------------------------------------------------------------------------


def test_optional_field_added_to_closed_and_open_objects(tmp_path: Path) -> None:
    def change(d: dict[str, Any]) -> None:
        d["Circle"]["properties"]["color"] = STR
        d["Meta"]["properties"]["author"] = STR

    report = compare(tmp_path, change)
    assert only(report, "field-added", "Circle.color").breaks == ("old-readers",)  # a strict old reader refuses it
    assert only(report, "field-added", "Meta.author").breaks == ()  # open: old readers accept it


def test_required_field_added_breaks_new_readers(tmp_path: Path) -> None:
    def change(d: dict[str, Any]) -> None:
        d["Square"]["properties"]["unit"] = STR
        d["Square"]["required"].append("unit")

    assert only(compare(tmp_path, change), "field-added", "Square.unit").breaks == ("old-readers", "new-readers")


def test_field_removed(tmp_path: Path) -> None:
    def change(d: dict[str, Any]) -> None:
        del d["Circle"]["properties"]["label"]  # optional
        del d["Square"]["properties"]["side"]  # required
        d["Square"]["required"].remove("side")

    report = compare(tmp_path, change)
    assert only(report, "field-removed", "Circle.label").breaks == ("new-readers",)  # old data still carries it
    assert only(report, "field-removed", "Square.side").breaks == ("old-readers", "new-readers")


def test_field_renamed(tmp_path: Path) -> None:
    def change(d: dict[str, Any]) -> None:
        d["Circle"]["properties"]["radiusPx"] = d["Circle"]["properties"].pop("radius")
        d["Circle"]["required"] = ["kind", "radiusPx"]

    report = compare(tmp_path, change)
    c = only(report, "field-renamed", "Circle.radiusPx")
    assert (c.old, c.new) == ("radius", "radiusPx") and c.confidence is not None and c.confidence > 0.9
    assert "json-wire" in c.breaks
    assert not report.of("field-added") and not report.of("field-removed")


def test_presence_changes(tmp_path: Path) -> None:
    def change(d: dict[str, Any]) -> None:
        d["Circle"]["required"] = ["kind", "radius", "label"]  # optional -> required
        d["Square"]["required"] = ["kind"]  # required -> optional

    report = compare(tmp_path, change)
    assert only(report, "presence", "Circle.label").breaks == ("new-readers",)
    assert only(report, "presence", "Square.side").breaks == ("old-readers",)


# -- enum values and union members -----------------------------------------------------------


def test_enum_values(tmp_path: Path) -> None:
    def change(d: dict[str, Any]) -> None:
        d["Color"]["enum"] = ["red", "GREEN", "yellow"]  # green renamed, blue removed, yellow added

    report = compare(tmp_path, change)
    r = only(report, "enum-value-renamed", "Color.GREEN")
    assert r.old == "green" and r.confidence is not None and "json-wire" in r.breaks
    assert only(report, "enum-value-added", "Color.yellow").breaks == ("old-readers",)
    assert only(report, "enum-value-removed", "Color.blue").breaks == ("new-readers",)


def test_union_members_and_discriminator(tmp_path: Path) -> None:
    def change(d: dict[str, Any]) -> None:
        d["Triangle"] = obj({"kind": {"const": "triangle"}, "base": {"type": "integer"}}, ["kind", "base"], description="Three sides.")
        d["Shape"]["oneOf"] = [{"$ref": "#/$defs/Circle"}, {"$ref": "#/$defs/Triangle"}]
        del d["Square"]

    report = compare(tmp_path, change)
    assert only(report, "union-member-added", "Shape").breaks == ("old-readers",)
    assert only(report, "union-member-removed", "Shape").breaks == ("new-readers",)

    def rekey(d: dict[str, Any]) -> None:
        for name in ("Circle", "Square"):
            props = d[name]["properties"]
            props["shape"] = props.pop("kind")
            d[name]["required"] = ["shape" if r == "kind" else r for r in d[name]["required"]]

    c = only(compare(tmp_path, rekey), "discriminator", "Shape")
    assert '"kind" -> "shape"' in c.message and "json-wire" in c.breaks


# -- types, nullability, constraints ----------------------------------------------------------


def test_type_changes(tmp_path: Path) -> None:
    def change(d: dict[str, Any]) -> None:
        d["Square"]["properties"]["side"] = {"type": "number"}  # integer -> number: wider
        d["Circle"]["properties"]["label"] = {"type": "integer"}  # string -> integer: incompatible

    report = compare(tmp_path, change)
    assert only(report, "type", "Square.side").breaks == ("old-readers",)
    assert only(report, "type", "Circle.label").breaks == ("old-readers", "new-readers", "json-wire")


def test_nullability(tmp_path: Path) -> None:
    def change(d: dict[str, Any]) -> None:
        d["Meta"]["properties"]["extra"] = {"not": {"type": "null"}}  # any -> any but null
        d["Circle"]["properties"]["label"] = {"oneOf": [STR, {"type": "null"}]}  # string -> string or null

    report = compare(tmp_path, change)
    forbidden = only(report, "nullability", "Meta.extra")
    assert forbidden.message == "null is no longer allowed" and forbidden.breaks == ("new-readers",)
    allowed = only(report, "nullability", "Circle.label")
    assert allowed.message == "null is now allowed" and allowed.breaks == ("old-readers",)
    assert not report.of("type")


@pytest.mark.parametrize(
    ("path", "value", "expect", "breaks"),
    [
        (("Circle", "radius", "minimum"), 1, "minimum 0 -> 1", ("new-readers",)),
        (("Circle", "radius", "minimum"), None, "minimum 0 -> none", ("old-readers",)),
        (("Circle", "radius", "maximum"), 100, "maximum none -> 100", ("new-readers",)),
        (("Circle", "label", "pattern"), "^[a-z]+$", 'pattern none -> "^[a-z]+$"', ("new-readers",)),
        (("Circle", "label", "maxLength"), 10, "maxLength none -> 10", ("new-readers",)),
        (("Circle", "label", "minLength"), 1, "minLength none -> 1", ("new-readers",)),
    ],
)
def test_constraints(tmp_path: Path, path: tuple[str, str, str], value: Any, expect: str, breaks: tuple[str, ...]) -> None:
    definition, prop, keyword = path

    def change(d: dict[str, Any]) -> None:
        node = d[definition]["properties"][prop]
        if value is None:
            del node[keyword]
        else:
            node[keyword] = value

    c = only(compare(tmp_path, change), "constraint", f"{definition}.{prop}")
    assert c.message == expect and c.breaks == breaks


def test_array_min_items_const_and_closedness(tmp_path: Path) -> None:
    def change(d: dict[str, Any]) -> None:
        d["Meta"]["properties"]["tags"] = {"type": "array", "items": STR}
        d["Circle"]["properties"]["kind"] = {"const": "disc"}
        d["Circle"]["unevaluatedProperties"] = True
        d["Meta"]["unevaluatedProperties"] = False

    old = copy.deepcopy(BASE)
    old["$defs"]["Meta"]["properties"]["tags"] = {"type": "array", "items": STR}
    new = copy.deepcopy(old)
    change(new["$defs"])
    new["$defs"]["Meta"]["properties"]["tags"]["minItems"] = 1
    report = diff(write(tmp_path / "o.json", old), write(tmp_path / "n.json", new))
    assert only(report, "constraint", "Meta.tags").message == "minItems none -> 1"
    const = only(report, "constraint", "Circle.kind")
    assert const.message == 'const "circle" -> "disc"' and "json-wire" in const.breaks
    assert only(report, "closedness", "Circle").breaks == ("old-readers",)  # now open
    assert only(report, "closedness", "Meta").breaks == ("new-readers",)  # now closed


def test_inherited_properties_are_reported_once_at_their_fragment(tmp_path: Path) -> None:
    schema = {
        "$defs": {
            "Base": {"type": "object", "properties": {"ts": {"type": "integer"}, "raw": {}}},
            "A": {"type": "object", "allOf": [{"$ref": "#/$defs/Base"}], "properties": {"a": STR}, "unevaluatedProperties": False},
            "B": {"type": "object", "allOf": [{"$ref": "#/$defs/Base"}], "properties": {"b": STR}, "unevaluatedProperties": False},
        }
    }
    new = copy.deepcopy(schema)
    new["$defs"]["Base"]["properties"]["raw"] = {"not": {"type": "null"}}
    report = diff(write(tmp_path / "o.json", schema), write(tmp_path / "n.json", new))
    assert [c.subject for c in report.changes] == ["Base.raw"]


# -- the wire ledgers ---------------------------------------------------------------------------

TOY_BINDING = """\
[protocol]
name = "Toy"
version = "{version}"
schema = "schema.json"

[proto]
package = "toy"
ledger = "ledger.txt"
roots = ["Shape"]

[proto.unions]
Shape = {{ as = "oneof", oneof = "shape" }}
"""

TOY_LEDGER = """\
# toy ledger
Circle.label = 2
Circle.radius = 1
Shape.shape.circle = 1
Shape.shape.square = 2
Square.side = 1
"""


def spec_folder(path: Path, schema: dict[str, Any], ledger: str, version: str) -> Path:
    path.mkdir()
    write(path / "schema.json", schema)
    (path / "binding.toml").write_text(TOY_BINDING.format(version=version), encoding="utf-8")
    (path / "ledger.txt").write_text(ledger, encoding="utf-8")
    return path


def test_ledgers_compared_slot_by_slot(tmp_path: Path) -> None:
    new_ledger = TOY_LEDGER.replace("Shape.shape.circle = 1", "Shape.shape.circle = 3").replace("Square.side = 1\n", "")
    new_ledger += "Circle.color = 3\nSquare.size = 1\n"
    new = copy.deepcopy(BASE)
    new["$defs"]["Circle"]["properties"]["color"] = STR
    new["$defs"]["Square"]["properties"]["size"] = {"type": "integer"}
    del new["$defs"]["Circle"]["properties"]["label"]
    a = spec_folder(tmp_path / "a", BASE, TOY_LEDGER, "1")
    b = spec_folder(tmp_path / "b", new, new_ledger, "2")
    report = diff(a, b)
    r = only(report, "slot-reassigned", "Shape.shape.circle")
    assert (r.old, r.new, r.breaks) == (1, 3, ("proto-wire",))
    assert only(report, "slot-dropped", "Square.side").breaks == ("proto-wire",)
    reused = only(report, "slot-reused", "Square.size")
    assert "Square.side" in reused.message and reused.breaks == ("proto-wire",)
    assert only(report, "slot-added", "Circle.color").breaks == ()
    assert only(report, "slot-reserved", "Circle.label").breaks == ()  # kept, the field gone
    assert report.wire["kept"] == 3 and report.wire["reassigned"] == 1


def test_slots_the_new_ledger_lacks_are_listed_unnumbered(tmp_path: Path) -> None:
    new = copy.deepcopy(BASE)
    new["$defs"]["Circle"]["properties"]["color"] = STR
    report = diff(spec_folder(tmp_path / "a", BASE, TOY_LEDGER, "1"), spec_folder(tmp_path / "b", new, TOY_LEDGER, "2"))
    c = only(report, "slot-unnumbered", "Circle.color")
    assert c.new == 3 and "--allow-new-slots" in c.message and not c.breaks


def test_a_bare_schema_has_no_ledger(tmp_path: Path) -> None:
    a = spec_folder(tmp_path / "a", BASE, TOY_LEDGER, "1")
    report = diff(a, write(tmp_path / "new.json", BASE))
    assert report.wire["compared"] is False and only(report, "wire-note").breaks == ()


# -- the command ------------------------------------------------------------------------------


def test_exit_codes_and_outputs(tmp_path: Path) -> None:
    old = write(tmp_path / "old.json", BASE)
    assert run_cli("diff", old, old).exit_code == 0
    new = copy.deepcopy(BASE)
    new["$defs"]["Circle"]["required"] = ["kind"]
    new_path = write(tmp_path / "new.json", new)
    result = run_cli("diff", old, new_path)
    assert result.exit_code == 1 and "[breaks old-readers] Circle.radius: required -> optional" in result.output
    assert run_cli("diff", "--allow-breaking", old, new_path).exit_code == 0
    doc = json.loads(run_cli("diff", "--json", old, new_path).output)
    assert doc["breaking"] is True and doc["changes"][0]["kind"] == "presence" and doc["summary"]["byAudience"]["old-readers"] == 1
    md = run_cli("diff", "--markdown", "--allow-breaking", old, new_path)
    assert md.exit_code == 0 and md.output.startswith("## Schema changes") and "- **old-readers** (1):" in md.output
    assert run_cli("diff", "--json", "--markdown", old, new_path).exit_code == 2
    assert run_cli("diff", old, tmp_path / "missing.json").exit_code == 2
    assert run_cli("diff", old).exit_code == 2


def test_spec_errors_name_file_and_pointer(tmp_path: Path) -> None:
    bad = copy.deepcopy(BASE)
    bad["$defs"]["Circle"]["properties"]["radius"]["multipleOff"] = 2
    result = run_cli("diff", write(tmp_path / "old.json", BASE), write(tmp_path / "bad.json", bad))
    assert result.exit_code == 2
    assert "bad.json: /$defs/Circle/properties/radius/multipleOff: unsupported JSON Schema keyword 'multipleOff'" in result.output
    # a keyword of the vocabulary the typed model does not capture is a change, not a crash
    bad["$defs"]["Circle"]["properties"]["radius"] = {"type": "number", "multipleOf": 2}
    result = run_cli("diff", tmp_path / "old.json", write(tmp_path / "other.json", bad))
    assert result.exit_code in (0, 1), result.output
    (tmp_path / "nobinding").mkdir()
    result = run_cli("diff", tmp_path / "nobinding", tmp_path / "old.json")
    assert result.exit_code == 2 and "binding.toml" in result.output


# -- AG-UI draft -> 1.1 -------------------------------------------------------------------------


def read_ledger(path: Path) -> dict[str, int]:
    entries = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.fullmatch(r"(\S+) = (\d+)", line.strip())
        if m:
            entries[m.group(1)] = int(m.group(2))
    return entries


@pytest.fixture(scope="module")
def draft_report() -> Report:
    return diff(DRAFT, SPEC_AGUI)


def test_draft_to_1_1_renames(draft_report: Report) -> None:
    renames = {c.old: (c.new, c.certainty) for c in draft_report.of("definition-renamed")}
    assert renames["InputContent"][0] == "ContentPart"
    assert renames["InputContentSource"][0] == "PartSource"
    for media in ("Text", "Image", "Audio", "Video", "Document"):
        assert renames[f"{media}InputContent"] == (f"{media}Part", "high")
    assert renames["InputContentDataSource"] == ("DataSource", "high")
    assert renames["InputContentUrlSource"] == ("UrlSource", "high")
    assert len(renames) == 9


def test_draft_to_1_1_raw_event_null_newly_forbidden(draft_report: Report) -> None:
    c = only(draft_report, "nullability", "BaseEvent.rawEvent")
    assert c.message == "null is no longer allowed" and c.breaks == ("new-readers",)
    assert c.new_loc == "spec/agui/schema.json#/$defs/BaseEvent/properties/rawEvent" or c.new_loc.endswith(
        "schema.json#/$defs/BaseEvent/properties/rawEvent"
    )


def test_draft_to_1_1_every_renumbered_slot_is_reassigned(draft_report: Report) -> None:
    old, new = read_ledger(DRAFT / "proto-freeze.txt"), read_ledger(SPEC_AGUI / "proto-freeze.txt")
    differing = {k: (old[k], new[k]) for k in old if k in new and old[k] != new[k]}
    assert len(differing) > 20  # the draft numbered the new events otherwise
    reported = {c.subject: (c.old, c.new) for c in draft_report.of("slot-reassigned")}
    assert reported == differing
    assert all(c.breaks == ("proto-wire",) for c in draft_report.of("slot-reassigned"))
    assert {c.subject for c in draft_report.of("slot-added")} == set(new) - set(old)
    assert not draft_report.of("slot-dropped") and not draft_report.of("slot-unnumbered")


def test_draft_to_1_1_command(tmp_path: Path) -> None:
    result = run_cli("diff", DRAFT, SPEC_AGUI)
    assert result.exit_code == 1
    assert "definition-renamed   ContentPart: renamed from InputContent" in result.output
    assert "[breaks new-readers] BaseEvent.rawEvent: null is no longer allowed" in result.output
    assert "Event.event.tool_call_result: number 19 -> 22" in result.output


# -- what MCP 2025-11-25 -> 2026-07-28 taught the comparison ------------------------------------------


def test_a_definition_whose_const_differs_is_no_rename(tmp_path: Path) -> None:
    """A message removed and another added with the same shape (MCP's logging/setLevel and
    server/discover requests): a renamed definition keeps its wire identity, so a const that
    differs, here or inside a property checked by its compiled schema, means two messages."""

    def change(d: dict[str, Any]) -> None:
        square = d.pop("Square")
        square["properties"]["kind"] = {"const": "box"}
        d["Box"] = square
        d["Shape"]["oneOf"][1] = {"$ref": "#/$defs/Box"}

    report = compare(tmp_path, change)
    assert not report.of("definition-renamed")
    only(report, "definition-added", "Box")
    only(report, "definition-removed", "Square")
    assert only(report, "union-member-added").breaks == ("old-readers",)

    def nested(d: dict[str, Any]) -> None:
        d["Failure"] = obj({"error": {"allOf": [{"$ref": "#/$defs/Meta"}, {"properties": {"code": {"const": -1}}}]}}, ["error"])

    def nested_other(d: dict[str, Any]) -> None:
        d["Refusal"] = obj({"error": {"allOf": [{"$ref": "#/$defs/Meta"}, {"properties": {"code": {"const": -2}}}]}}, ["error"])

    old = copy.deepcopy(BASE)
    nested(old["$defs"])
    new = copy.deepcopy(BASE)
    nested_other(new["$defs"])
    report = diff(write(tmp_path / "a.json", old), write(tmp_path / "b.json", new))
    assert not report.of("definition-renamed") and report.of("definition-added") and report.of("definition-removed")


def test_a_map_of_any_value_and_an_open_object_are_both_json_objects(tmp_path: Path) -> None:
    """`_meta` as a map of anything becoming an open object definition with typed members: new
    readers may refuse a member of the wrong type (narrower), nothing is spelled otherwise on
    the wire (no json-wire), and `additionalProperties: {}` is the same as saying nothing."""

    def change(d: dict[str, Any]) -> None:
        d["Note"] = obj({"author": STR}, closed=False)
        d["Meta"]["properties"]["extra"] = {"$ref": "#/$defs/Note"}

    old = copy.deepcopy(BASE)
    old["$defs"]["Meta"]["properties"]["extra"] = {"type": "object", "additionalProperties": {}}
    new = copy.deepcopy(BASE)
    change(new["$defs"])
    report = diff(write(tmp_path / "a.json", old), write(tmp_path / "b.json", new))
    c = only(report, "type", "Meta.extra")
    assert c.breaks == ("new-readers",), c.as_dict()
    same = copy.deepcopy(BASE)
    same["$defs"]["Meta"]["properties"]["extra"] = {"type": "object"}
    assert not diff(write(tmp_path / "a.json", old), write(tmp_path / "c.json", same)).changes


def test_a_property_retyped_from_one_object_to_another_that_requires_more(tmp_path: Path) -> None:
    """RequestParamsMeta -> RequestMetaObject: both open objects, the new one requiring members
    the old one did not have: only new readers (of old data) break."""
    old = copy.deepcopy(BASE)
    old["$defs"]["Hints"] = obj({"token": STR}, closed=False)
    old["$defs"]["Meta"]["properties"]["extra"] = {"$ref": "#/$defs/Hints"}
    new = copy.deepcopy(BASE)
    new["$defs"]["Context"] = obj({"token": STR, "version": STR, "caps": {"type": "object"}}, ["version", "caps"], closed=False)
    new["$defs"]["Meta"]["properties"]["extra"] = {"$ref": "#/$defs/Context"}
    report = diff(write(tmp_path / "a.json", old), write(tmp_path / "b.json", new))
    assert only(report, "type", "Meta.extra").breaks == ("new-readers",)
    # the reverse direction: old readers break
    back = diff(write(tmp_path / "b.json", new), write(tmp_path / "a.json", old))
    assert only(back, "type", "Meta.extra").breaks == ("old-readers",)


def test_a_union_that_became_one_of_its_members(tmp_path: Path) -> None:
    """MCP's ClientNotification: a union of four notifications in 2025-11-25, the cancellation
    alone in 2026-07-28."""

    def change(d: dict[str, Any]) -> None:
        d["Shape"] = copy.deepcopy(d["Circle"])

    report = compare(tmp_path, change)
    c = only(report, "definition-kind", "Shape")
    assert c.breaks == ("new-readers",) and 'its member "circle" (Circle) alone; the others removed: "square" (Square)' in c.message
    old = copy.deepcopy(BASE)
    change(old["$defs"])
    back = diff(write(tmp_path / "a.json", old), write(tmp_path / "b.json", BASE))
    c = only(back, "definition-kind", "Shape")
    assert c.breaks == ("old-readers",) and 'its members "square" (Square) added beside "circle" (Circle)' in c.message


# -- rules -----------------------------------------------------------------------------------------


def test_rules_added_removed_and_at_another_level(tmp_path: Path) -> None:
    """Two spec folders with rules files: the rules are compared by ID. A MUST-level rule one side
    has alone, or a level crossing MUST, breaks conformance (a session one side's rules accept,
    the other's refuse); a SHOULD added or a new page reference breaks nothing."""
    import shutil

    new = tmp_path / "agui"
    shutil.copytree(SPEC_AGUI, new)
    rules = new / "lifecycle.rules"
    text = rules.read_text(encoding="utf-8")
    first = next(line for line in text.splitlines() if line.startswith("rule RUN-"))
    rid, level = first.split()[1], first.split()[2]
    assert level == "MUST"
    text = text.replace(first, first.replace(" MUST ", " SHOULD ", 1), 1)
    text += '\nrule EXTRA-MUST MUST ref "page" "section" message "a new rule"\nrule EXTRA-SHOULD SHOULD ref "page" "section" message "advice"\n'
    removed = next(line for line in text.splitlines() if line.startswith("rule TEXT-"))
    text = re.sub(re.escape(removed) + r"\n(?:[ \t]+.*\n)*", "", text, count=1)  # the statement and its continuation
    rules.write_text(text, encoding="utf-8")
    report = diff(SPEC_AGUI, new)
    assert only(report, "rule-added", "EXTRA-MUST").breaks == ("conformance",)
    assert only(report, "rule-added", "EXTRA-SHOULD").breaks == ()
    gone = only(report, "rule-removed", removed.split()[1])
    line = SPEC_AGUI.joinpath("lifecycle.rules").read_text(encoding="utf-8").splitlines().index(removed) + 1
    assert gone.old in ("MUST", "MUST NOT") and removed.split(" ref ")[0].endswith(gone.old) and gone.breaks == ("conformance",)
    assert gone.old_loc is not None and gone.old_loc.endswith(f"lifecycle.rules:{line}")
    changed = only(report, "rule-level", rid)
    assert (changed.old, changed.new, changed.breaks) == ("MUST", "SHOULD", ("conformance",))
    assert report.rules["compared"] and report.rules["added"] == 2 and report.rules["removed"] == 1 and report.rules["level"] == 1
    # a schema file has no rules: not compared, and said so
    bare = diff(SPEC_AGUI / "schema.json", new)
    assert not bare.rules["compared"] and "no rules file" in bare.rules["reason"]
