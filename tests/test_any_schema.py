"""Any real-world schema, zero configuration (issue 13): `specbind init` + `generate` on public
agent-protocol schemas vendored under tests/data/schemas (SOURCE.md there), and on a draft-07
schema exercising the vocabulary; the generated package's own tests (every derived case agreeing
with jsonschema) pass; `validate --as DEFINITION` works by the schema's own names; and bad input
stops with the file, the pointer and what to do, exit 2, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, run_cli, run_package_tests, run_python

SCHEMAS = REPO / "tests" / "data" / "schemas"

DRAFT07: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "definitions": {
        "Id": {"type": ["string", "integer"]},
        "Req": {
            "type": "object",
            "properties": {
                "jsonrpc": {"type": "string", "const": "2.0"},
                "id": {"$ref": "#/definitions/Id"},
                "method": {"type": "string"},
                "params": {"type": "object", "additionalProperties": {}, "properties": {"_meta": {"type": "object", "additionalProperties": {}}}},
            },
            "required": ["jsonrpc", "id", "method"],
        },
        "Note": {"type": "object", "properties": {"jsonrpc": {"type": "string", "const": "2.0"}, "method": {"type": "string"}}, "required": ["jsonrpc", "method"]},
        "Message": {"anyOf": [{"$ref": "#/definitions/Req"}, {"$ref": "#/definitions/Note"}]},
        "Tuple": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": False},
        "Shape": {
            "type": "object",
            "properties": {"kind": {"enum": ["a", "b", 3]}, "size": {"type": "number", "multipleOf": 0.5, "exclusiveMinimum": 0}},
            "patternProperties": {"^x-": {"type": "string"}},
            "additionalProperties": False,
            "dependencies": {"size": ["kind"]},
            "minProperties": 1,
        },
        "Cond": {"if": {"properties": {"a": {"const": 1}}}, "then": {"required": ["b"]}, "else": {"not": {"required": ["b"]}}},
        "Tree": {
            "type": "object",
            "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#/definitions/Tree"}, "uniqueItems": True, "maxItems": 3}},
            "required": ["value"],
        },
        "Point": {"$ref": "#/definitions/Tree/properties/value", "type": "string"},
        "Const": {"const": {"a": [1, None]}},
        "Counted": {"type": "array", "contains": {"type": "integer", "minimum": 5}, "minItems": 1},
        "Label": {"type": "string", "tsType": "Label"},
    },
}


def _init_and_generate(tmp_path: Path, schema: Path, name: str) -> tuple[Path, Path]:
    result = run_cli("init", str(schema), "--name", name, "--spec-dir", str(tmp_path / "spec"))
    assert result.exit_code == 0, result.output
    spec = tmp_path / "spec" / name
    out = tmp_path / "out"
    result = run_cli("generate", "--spec", str(spec), "--out", str(out))
    assert result.exit_code == 0, result.output
    return spec, out


@pytest.mark.parametrize(
    "schema,package",
    [
        ("agent-client-protocol.schema.json", "agent_client_protocol"),
        ("a2a-task-progress.schema.json", "a2a_task_progress"),
        ("mcp-2024-11-05.schema.json", "mcp_2024_11_05"),
        ("dependabot-2.0.schema.json", "dependabot"),
        ("commitlintrc.schema.json", "commitlintrc"),
    ],
)
def test_a_public_schema_generates_with_no_hand_edit_and_agrees_with_jsonschema(tmp_path: Path, schema: str, package: str) -> None:
    _, out = _init_and_generate(tmp_path, SCHEMAS / schema, package.replace("_", "-"))
    cases = json.loads((out / package / "tests" / "cases.json").read_text(encoding="utf-8"))["cases"]
    assert len(cases) > 10  # commitlintrc, two definitions, has 13
    result = run_package_tests(out, package)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    _documents_are_valid(out, package)


# every definition's generated documents (docgen, through the public strategies API) are valid by
# jsonschema, the reference, and none fails to generate: the general vocabulary included (allOf,
# if/then/else, not, prefixItems, formats, schemas of schemas such as MCP's inputSchema)
DOCUMENTS_VALID = """
import json
from {package} import strategies
from {package}.tests.support import reference_validator
made = refused = 0
for definition in strategies.definitions():
    validator = reference_validator(definition)
    for seed in range({seeds}):
        document = strategies.document(definition, seed=seed)
        made += 1
        if not validator.is_valid(document):
            refused += 1
            print("INVALID", definition, json.dumps(document)[:400])
print(json.dumps({{"made": made, "refused": refused, "definitions": len(strategies.definitions())}}))
"""


def _documents_are_valid(out: Path, package: str, seeds: int = 12) -> dict[str, int]:
    result = run_python(DOCUMENTS_VALID.format(package=package, seeds=seeds), out, [out])
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    counts: dict[str, int] = json.loads(result.stdout.splitlines()[-1])
    assert counts["refused"] == 0 and counts["made"] == seeds * counts["definitions"] > 0, result.stdout[-4000:]
    return counts


def test_a_draft_07_schema_with_the_vocabulary(tmp_path: Path) -> None:
    path = tmp_path / "proto.json"
    path.write_text(json.dumps(DRAFT07), encoding="utf-8")
    spec, out = _init_and_generate(tmp_path, path, "proto7")
    binding = (spec / "binding.toml").read_text(encoding="utf-8")
    assert 'integers = "json-schema"' in binding and 'annotations = ["tsType"]' in binding
    # the TypeScript package too, named after --name: `generate` made it with no hand edit
    assert '[typescript]\npackage = "proto7-ts"' in binding
    assert (out / "proto7-ts" / "src" / "vocabulary.ts").is_file()
    assert "sha256" in (spec / "SOURCE.md").read_text(encoding="utf-8")
    result = run_package_tests(out, "proto7")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    _documents_are_valid(out, "proto7", seeds=60)
    # validate by the schema's own names
    doc = tmp_path / "shape.json"
    doc.write_text('{"size": 1.5}', encoding="utf-8")
    result = run_cli("validate", "--spec", str(spec), "--out", str(out), "--as", "Shape", "--json", str(doc))
    assert result.exit_code == 1
    report = json.loads(result.output.splitlines()[0])
    assert [(e["keyword"], e["pointer"]) for e in report["errors"]] == [("dependencies", "")]
    doc.write_text('{"size": 1.5, "kind": 3, "x-y": "z"}', encoding="utf-8")
    result = run_cli("validate", "--spec", str(spec), "--out", str(out), "--as", "Shape", "--json", str(doc))
    assert result.exit_code == 0, result.output


def test_a_member_of_an_inline_tagged_union_needs_its_tag(tmp_path: Path) -> None:
    # msgspec reads a tagged class alone without its tag: the member is decoded through the
    # inline union that tags it (MCP's TextContent, tagged only by PromptMessage.content)
    path = tmp_path / "s.json"
    path.write_text(json.dumps({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {
            "Msg": {"type": "object", "properties": {"content": {"anyOf": [{"$ref": "#/definitions/Text"}, {"$ref": "#/definitions/Image"}]}}},
            "Text": {"type": "object", "properties": {"type": {"type": "string", "const": "text"}, "text": {"type": "string"}}, "required": ["type", "text"]},
            "Image": {"type": "object", "properties": {"type": {"type": "string", "const": "image"}}, "required": ["type"]},
        },
    }), encoding="utf-8")
    _, out = _init_and_generate(tmp_path, path, "tagged")
    code = (
        "from tagged import codec_json as c\n"
        "print(c.decoder('Text').accepts(b'{\"text\": \"x\"}'), c.decoder('Text').accepts(b'{\"type\": \"image\", \"text\": \"x\"}'),"
        " c.decoder('Text').accepts(b'{\"type\": \"text\", \"text\": \"x\"}'), type(c.decode(b'{\"type\": \"image\"}', 'Image')).__name__)\n"
    )
    result = run_python(code, tmp_path, [out])
    assert result.stdout.split() == ["False", "False", "True", "Image"], result.stdout + result.stderr


def test_init_refuses_an_existing_folder_and_leaves_nothing_on_failure(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"$defs": {"A": {"type": "string"}}}), encoding="utf-8")
    assert run_cli("init", str(path), "--name", "a", "--spec-dir", str(tmp_path / "spec")).exit_code == 0
    again = run_cli("init", str(path), "--name", "a", "--spec-dir", str(tmp_path / "spec"))
    assert again.exit_code == 2 and "already exists" in again.stderr
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"$defs": {"A": {"$ref": "https://example.invalid/x.json"}}}), encoding="utf-8")
    result = run_cli("init", str(bad), "--name", "b", "--spec-dir", str(tmp_path / "spec"))
    assert result.exit_code == 2 and "/$defs/A/$ref" in result.stderr
    assert not (tmp_path / "spec" / "b").exists()


def test_init_reads_an_openapi_yaml_document(tmp_path: Path) -> None:
    path = tmp_path / "api.yaml"
    path.write_text(
        "openapi: 3.0.3\ninfo: {title: Pets, version: '1.2'}\npaths: {}\ncomponents:\n  schemas:\n"
        "    Pet:\n      type: object\n      required: [name]\n      properties:\n        name: {type: string}\n"
        "        age: {type: integer, minimum: 0, exclusiveMinimum: true, nullable: true}\n",
        encoding="utf-8",
    )
    spec, out = _init_and_generate(tmp_path, path, "pets")
    assert 'version = "1.2"' in (spec / "binding.toml").read_text(encoding="utf-8")
    result = run_package_tests(out, "pets")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    doc = tmp_path / "pet.json"
    for text, code in (('{"name": "x", "age": null}', 0), ('{"name": "x", "age": 0}', 1), ('{"name": "x", "age": 1.0}', 0)):
        doc.write_text(text, encoding="utf-8")
        assert run_cli("validate", "--spec", str(spec), "--out", str(out), "--as", "Pet", str(doc)).exit_code == code, text


BAD_INPUT = [
    ("not-json", b"{nope", "line 1 column 2", "not JSON"),
    ("empty", b"", "", "empty: a JSON file holds one value"),
    ("only-whitespace", b" \n\t", "", "only whitespace"),
    # json.loads would read UTF-16 bytes, and place the error at a UTF-16 character
    ("utf-16", json.dumps({"$defs": {"A": {"type": "string"}}}).encode("utf-16"), "byte 0", "not valid UTF-8 (UTF-16 or UTF-32 text?"),
    ("binary", b"{\xc4\x01}", "byte 1", "not valid UTF-8"),
    ("not-yaml", None, "line", ""),
    ("dangling-ref", {"$defs": {"A": {"$ref": "#/$defs/B"}}}, "/$defs/A/$ref", "dangling $ref"),
    ("remote-ref", {"$defs": {"A": {"$ref": "https://example.invalid/other.json#/$defs/B"}}}, "/$defs/A/$ref", "copy what it names"),
    ("dynamic-ref", {"$defs": {"A": {"$dynamicRef": "#node"}}}, "/$defs/A/$dynamicRef", "plain $ref"),
    ("endless-cycle", {"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"allOf": [{"$ref": "#/$defs/A"}]}}}, "/$defs/", "never ends"),
    ("unsupported-vocabulary", {"$defs": {"A": {"type": "array", "$recursiveRef": "#"}}}, "/$defs/A/$recursiveRef", "plain $ref"),
    ("other-draft-keyword", {"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"A": {"type": "array", "prefixItems": [True]}}}, "/definitions/A/prefixItems", "draft 2020-12 keyword"),
]


@pytest.mark.parametrize("case", BAD_INPUT, ids=[c[0] for c in BAD_INPUT])
def test_bad_input_is_located_exit_2_never_a_traceback(tmp_path: Path, case: tuple[str, Any, str, str]) -> None:
    name, content, where, says = case
    path = tmp_path / ("s.yaml" if content is None else "s.json")
    if content is None:
        path.write_text("a: [1,\n  b: }\n", encoding="utf-8")
    else:
        path.write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
    result = run_cli("init", str(path), "--name", "x", "--spec-dir", str(tmp_path / "spec"))
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output + result.stderr
    line = result.stderr.strip()
    assert line.startswith(f"error: {path}: "), line
    assert where in line and says in line, line


MAPS: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$defs": {
        "Tool": {"type": "object", "properties": {"name": {"type": "string"}, "meta": {"$ref": "#/$defs/Meta"}}, "required": ["name"]},
        "Meta": {"type": "object", "properties": {"v": {"type": "integer"}}},
        "Registry": {"type": "object", "properties": {"tools": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Tool"}}}, "required": ["tools"]},
        "Tools": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Tool"}},
        "Lists": {"type": "object", "additionalProperties": {"type": "array", "items": {"$ref": "#/$defs/Tool"}}},
    },
}

MAPS_ROUND_TRIP = """
import json
from maps import codec_json
for definition, document in json.loads({cases!r}):
    value = codec_json.decode(json.dumps(document).encode(), definition)
    print(json.dumps([json.loads(codec_json.encode(value, definition)), codec_json.to_builtins(value)]))
"""


def test_a_map_of_open_objects_keeps_their_extension_members(tmp_path: Path) -> None:
    """Regression (found by docgen on MCP's schemas): a map whose values are open objects (a member
    or a whole definition: `additionalProperties: {$ref: an open object}`), or arrays of them, lost
    those objects' extension members on decode, so encode wrote less than it read."""
    path = tmp_path / "maps.json"
    path.write_text(json.dumps(MAPS), encoding="utf-8")
    _, out = _init_and_generate(tmp_path, path, "maps")
    cases = [
        ["Registry", {"tools": {"a": {"name": "x", "x-ext": [1], "meta": {"v": 1, "m": 2}}}, "top": True}],
        ["Tools", {"a": {"name": "x", "x-ext": 1}, "b": {"name": "y"}}],
        ["Lists", {"a": [{"name": "x", "x-ext": {"deep": None}}], "b": []}],
    ]
    result = run_python(MAPS_ROUND_TRIP.format(cases=json.dumps(cases)), out, [out])
    assert result.returncode == 0, result.stderr[-4000:]
    for (_, document), line in zip(cases, result.stdout.splitlines(), strict=True):
        encoded, builtins = json.loads(line)
        assert encoded == document and builtins == document
