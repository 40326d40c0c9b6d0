"""Generation stops with a SpecError that names the file and the JSON pointer (or line:column) of
the problem, and the CLI reports it as `error: <file>: <where>: <message>` with exit 1, never a
traceback. Each case breaks the toy spec in exactly one way."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from generator.binding import load_binding
from generator.corpus import load_conformance

from conftest import TOY_BINDING, make_spec, run_cli, toy_schema
from generator.errors import SpecError
from generator.pipeline import render_spec

Schema = dict[str, Any]


@dataclass(frozen=True)
class Case:
    id: str
    schema: Callable[[], Schema | str | bytes]
    where: str | tuple[str, ...]  # the exact pointer, or the pointers a correct report may use
    says: str  # a fragment of the message


def _edit(fn: Callable[[Schema], None]) -> Callable[[], Schema]:
    def build() -> Schema:
        s = toy_schema()
        fn(s)
        return s

    return build


def _prop(definition: str, name: str, node: Any) -> Callable[[], Schema]:
    return _edit(lambda s: s["$defs"][definition]["properties"].__setitem__(name, node))


def _set(definition: str, prop: str, key: str, value: Any) -> Callable[[], Schema]:
    return _edit(lambda s: s["$defs"][definition]["properties"][prop].__setitem__(key, value))


def _defs(**new: Any) -> Callable[[], Schema]:
    return _edit(lambda s: s["$defs"].update(new))


MALFORMED = '{\n  "$defs": {\n    "A": {"type": "string",}\n  }\n}\n'
NOT_UTF8 = b'{"$defs": {"A": {"description": "caf\xe9"}}}'
NOT_UTF8_AT = NOT_UTF8.index(0xE9)


SCHEMA_CASES = [
    Case("malformed-json", lambda: MALFORMED, "line 3 column 28", "Expecting property name"),
    Case("not-utf8", lambda: NOT_UTF8, f"byte {NOT_UTF8_AT}", "UTF-8"),
    Case("not-an-object", lambda: "[1, 2]", "", "JSON object"),
    Case("no-defs", lambda: {"title": "nothing here"}, "/$defs", "$defs"),
    Case("unknown-keyword-foo", _set("Ping", "seq", "foo", True), "/$defs/Ping/properties/seq/foo", "'foo'"),
    Case(
        "unknown-keyword-under-not",
        _set("Data", "payload", "not", {"type": "null", "foo": 1}),
        "/$defs/Data/properties/payload/not/foo",
        "'foo'",
    ),
    Case("dangling-ref", _prop("Ping", "color", {"$ref": "#/$defs/Colour"}), "/$defs/Ping/properties/color/$ref", "dangling $ref"),
    Case("dangling-anchor", _prop("Ping", "color", {"$ref": "#Colour"}), "/$defs/Ping/properties/color/$ref", "dangling $ref"),
    Case(
        "dangling-root-ref",
        _edit(lambda s: s.__setitem__("$ref", "#/$defs/Nope")),
        "/$ref",
        "no definition named 'Nope'",
    ),
    Case(
        "external-ref-file",
        _prop("Ping", "color", {"$ref": "other.json#/$defs/Color"}),
        "/$defs/Ping/properties/color/$ref",
        "unsupported $ref",
    ),
    Case(
        "external-ref-url",
        _prop("Ping", "color", {"$ref": "https://example.invalid/schema.json#/$defs/Color"}),
        "/$defs/Ping/properties/color/$ref",
        "unsupported $ref",
    ),
    Case("dynamic-ref", _prop("Ping", "color", {"$dynamicRef": "#meta"}), "/$defs/Ping/properties/color/$dynamicRef", "dynamic references"),
    Case("recursive-ref", _prop("Ping", "color", {"$recursiveRef": "#"}), "/$defs/Ping/properties/color/$recursiveRef", "recursive references"),
    Case("draft-07-keyword-in-2020-12", _set("Ping", "note", "additionalItems", False), "/$defs/Ping/properties/note/additionalItems", "draft-07 keyword"),
    Case("tuple-items-in-2020-12", _set("Ping", "note", "items", [{"type": "string"}]), "/$defs/Ping/properties/note/items", "prefixItems"),
    Case("unknown-draft", _edit(lambda s: s.__setitem__("$schema", "http://json-schema.org/draft-04/schema#")), "/$schema", "draft-04"),
    Case(
        "boolean-exclusive-bound",
        _prop("Ping", "seq", {"type": "integer", "minimum": 0, "exclusiveMinimum": True}),
        "/$defs/Ping/properties/seq/exclusiveMinimum",
        "draft-04",
    ),
    Case(
        "composition-cycle",
        _defs(
            A={"allOf": [{"$ref": "#/$defs/B"}]},
            B={"anyOf": [{"$ref": "#/$defs/A"}, {"type": "string"}]},
        ),
        ("/$defs/A", "/$defs/B"),
        "never ends",
    ),
    Case(
        "composition-self-cycle",
        _defs(A={"type": "object", "allOf": [{"$ref": "#/$defs/A"}], "properties": {"x": {"type": "string"}}}),
        "/$defs/A",
        "A -> A",
    ),
    Case("pattern-does-not-compile", _set("Ping", "note", "pattern", "("), "/$defs/Ping/properties/note/pattern", "does not compile"),
    Case("negative-length", _set("Ping", "note", "minLength", -1), "/$defs/Ping/properties/note/minLength", "non-negative"),
    Case("unknown-type", _prop("Ping", "note", {"type": "text"}), "/$defs/Ping/properties/note/type", "unknown type"),
]


def _write_schema(tmp_path: Path, case: Case) -> Path:
    schema = case.schema()
    spec = make_spec(tmp_path, schema=schema if not isinstance(schema, bytes) else "{}")
    if isinstance(schema, bytes):
        (spec / "schema.json").write_bytes(schema)
    return spec


def _matches(where: str, expected: str | tuple[str, ...]) -> bool:
    return where in expected if isinstance(expected, tuple) else where == expected


def test_the_toy_spec_itself_generates(toy_spec: Path) -> None:
    """The control for every case below: the unbroken spec is accepted."""
    files = render_spec(toy_spec, []).files
    assert "toyproto/models.py" in files


@pytest.mark.parametrize("case", SCHEMA_CASES, ids=[c.id for c in SCHEMA_CASES])
def test_schema_error_names_file_and_pointer(tmp_path: Path, case: Case) -> None:
    spec = _write_schema(tmp_path, case)
    with pytest.raises(SpecError) as caught:
        render_spec(spec, [])
    err = caught.value
    assert err.file == f"{spec}/schema.json"
    assert _matches(err.where, case.where), err
    assert case.says in err.message, err
    assert str(err) == f"{err.file}: {err.where or '/'}: {err.message}"


@pytest.mark.parametrize("case", SCHEMA_CASES, ids=[c.id for c in SCHEMA_CASES])
def test_cli_generate_reports_schema_error_without_traceback(tmp_path: Path, case: Case) -> None:
    spec = _write_schema(tmp_path, case)
    out = tmp_path / "out"
    result = run_cli("generate", "--spec", spec, "--out", out)
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception  # not an uncaught error
    assert "Traceback" not in result.output
    assert result.stdout == ""
    line = result.stderr.strip()
    assert "\n" not in line
    prefix = f"error: {spec}/schema.json: "
    assert line.startswith(prefix), line
    where, _, message = line[len(prefix) :].partition(": ")
    assert _matches(where or "", case.where) or (where == "/" and case.where == ""), line
    assert case.says in message
    assert not out.exists(), "nothing may be written when generation fails"


def test_a_property_named_like_a_keyword_is_not_a_keyword(tmp_path: Path) -> None:
    """`properties` holds names, not keywords: a property called maxLength or foo is fine."""
    schema = toy_schema()
    schema["$defs"]["Ping"]["properties"].update(maxLength={"type": "integer"}, foo={"type": "string"})
    files = render_spec(make_spec(tmp_path, schema=schema), []).files
    assert b"max_length: int | UnsetType" in files["toyproto/models.py"]


# -- binding.toml and fixtures --------------------------------------------------------------


def _binding_error(spec: Path) -> SpecError:
    with pytest.raises(SpecError) as caught:
        render_spec(spec, [])
    return caught.value


def test_missing_binding_toml(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, binding=None)
    err = _binding_error(spec)
    assert (err.file, err.where) == (f"{spec}/binding.toml", "")
    assert "missing" in err.message


def test_binding_toml_that_is_not_toml(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, binding="[protocol\nname = 1\n")
    err = _binding_error(spec)
    assert err.file == f"{spec}/binding.toml"
    assert "not valid TOML" in err.message


def test_binding_toml_without_python_package(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, binding=TOY_BINDING.replace('package = "toyproto"\n', ""))
    err = _binding_error(spec)
    assert (err.file, err.where) == (f"{spec}/binding.toml", "[python].package")


def test_binding_toml_with_a_package_that_is_not_an_identifier(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, binding=TOY_BINDING.replace('"toyproto"', '"toy-proto"'))
    err = _binding_error(spec)
    assert (err.file, err.where) == (f"{spec}/binding.toml", "[python].package")


def test_binding_toml_without_python_table(tmp_path: Path) -> None:
    binding = TOY_BINDING.split("[python]")[0]
    spec = make_spec(tmp_path, binding=binding)
    err = _binding_error(spec)
    assert err.file == f"{spec}/binding.toml"
    assert "[python]" in f"{err.where} {err.message}"


@pytest.mark.parametrize("key", ["name", "version", "schema"])
def test_binding_toml_missing_protocol_key(tmp_path: Path, key: str) -> None:
    lines = [ln for ln in TOY_BINDING.splitlines(keepends=True) if not ln.startswith(f"{key} =")]
    spec = make_spec(tmp_path, binding="".join(lines))
    err = _binding_error(spec)
    assert (err.file, err.where) == (f"{spec}/binding.toml", f"[protocol].{key}")


def test_binding_root_naming_no_definition(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, binding=TOY_BINDING.replace('root = "Message"', 'root = "Mesage"'))
    err = _binding_error(spec)
    assert (err.file, err.where) == (f"{spec}/binding.toml", "[protocol].root")
    assert "'Mesage'" in err.message


def test_fixture_folder_naming_an_unknown_definition(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, fixtures={"Pong/valid/minimal.json": {"type": "PING", "seq": 1}})
    err = _binding_error(spec)
    assert err.file == f"{spec}/fixtures/Pong"
    assert "'Pong'" in err.message


def test_fixture_verdict_folder_must_be_valid_or_invalid(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, fixtures={"Ping/good/minimal.json": {"type": "PING", "seq": 1}})
    err = _binding_error(spec)
    assert err.file == f"{spec}/fixtures/Ping/good/minimal.json"


@pytest.mark.parametrize("rel", ["minimal.json", "Ping/minimal.json", "Ping/valid/more/minimal.json"], ids=["top", "no-verdict", "too-deep"])
def test_a_fixture_elsewhere_than_definition_verdict_is_refused(tmp_path: Path, rel: str) -> None:
    """Only <Definition>/<valid|invalid>/<name>.json was read: a fixture anywhere else was
    silently left out of the generated tests."""
    spec = make_spec(tmp_path, fixtures={rel: {"type": "PING", "seq": 1}})
    err = _binding_error(spec)
    assert err.file == f"{spec}/fixtures/{rel}" and "<Definition>/valid or <Definition>/invalid" in err.message


def test_a_conformance_fixture_in_a_subfolder_is_refused(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, binding=TOY_BINDING.replace('fixtures = "fixtures"', 'fixtures = "fixtures"\nrules = "toy.rules"\nconformance = "streams"'))
    (spec / "streams" / "later").mkdir(parents=True)
    (spec / "streams" / "later" / "one.json").write_text('{"stream": [], "expect": {}}', encoding="utf-8")
    with pytest.raises(SpecError) as caught:  # read only for a spec with rules: read here directly
        load_conformance(load_binding(spec))
    err = caught.value
    assert err.file == f"{spec}/streams/later/one.json" and "not its subfolders'" in err.message


def test_conformance_streams_without_rules_are_refused(tmp_path: Path) -> None:
    """Nothing judges them without a rules file: they were silently never read."""
    spec = make_spec(tmp_path, binding=TOY_BINDING.replace('fixtures = "fixtures"', 'fixtures = "fixtures"\nconformance = "streams"'))
    err = _binding_error(spec)
    assert (err.file, err.where) == (f"{spec}/binding.toml", "[protocol].conformance") and "[protocol].rules" in err.message


def test_invalid_fixture_needs_its_expectation(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, fixtures={"Ping/invalid/big.json": {"type": "PING", "seq": 500}})
    err = _binding_error(spec)
    assert err.file == f"{spec}/fixtures/Ping/invalid/big.json"
    assert ".expect.json" in err.message


def test_malformed_fixture_json(tmp_path: Path) -> None:
    spec = make_spec(tmp_path)
    (spec / "fixtures" / "Ping" / "valid" / "broken.json").write_text('{"type": "PING",\n  "seq": }\n')
    err = _binding_error(spec)
    assert (err.file, err.where) == (f"{spec}/fixtures/Ping/valid/broken.json", "line 2 column 10")


def test_fixture_divergence_naming_no_fixture(tmp_path: Path) -> None:
    binding = TOY_BINDING + '\n[[fixture_divergence]]\nfixture = "Ping/invalid/nope"\nreason = "x"\n'
    spec = make_spec(tmp_path, binding=binding)
    err = _binding_error(spec)
    assert (err.file, err.where) == (f"{spec}/binding.toml", "[[fixture_divergence]]")
    assert "Ping/invalid/nope" in err.message


def test_cli_generate_reports_binding_error(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, binding=None)
    result = run_cli("generate", "--spec", spec, "--out", tmp_path / "out")
    assert result.exit_code == 2
    assert isinstance(result.exception, SystemExit)
    assert result.stderr == f"error: {spec}/binding.toml: /: missing: every spec folder needs a binding.toml\n"


def test_cli_check_reports_spec_error_too(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, schema=_set("Ping", "note", "maxItemz", 3)())
    result = run_cli("check", "--spec", spec, "--out", tmp_path / "out")
    assert result.exit_code == 2
    assert isinstance(result.exception, SystemExit)
    assert result.stderr.startswith(f"error: {spec}/schema.json: /$defs/Ping/properties/note/maxItemz: ")


def test_cli_generate_with_no_spec_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With no --spec, the CLI looks under ./spec; an empty one is an error, not a no-op."""
    (tmp_path / "spec").mkdir()
    monkeypatch.chdir(tmp_path)
    result = run_cli("generate")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: spec: /: no spec folders")


# -- schemas the generator accepts but cannot turn into a package ---------------------------
# Whatever the generator cannot handle must surface as a SpecError that points into the spec:
# never an unrelated exception (a traceback from the CLI), never a template blamed for the
# schema's content.


def _generate_or_locate(tmp_path: Path, schema: Schema, pointer: str) -> None:
    """Generation succeeds, or fails with `error: <schema.json>: <pointer>...` and exit 2."""
    spec = make_spec(tmp_path, schema=schema)
    result = run_cli("generate", "--spec", spec, "--out", tmp_path / "out")
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    if result.exit_code != 0:
        assert result.exit_code == 2
        assert result.stderr.startswith(f"error: {spec}/schema.json: {pointer}"), result.stderr


def test_pattern_no_sample_matches_is_a_spec_error_not_a_crash(tmp_path: Path) -> None:
    schema = toy_schema()
    schema["$defs"]["Ping"]["properties"]["note"] = {"type": "string", "pattern": "^[0-9]+$"}
    _generate_or_locate(tmp_path, schema, "/$defs/Ping/properties/note")


def test_pattern_with_examples_generates(tmp_path: Path) -> None:
    schema = toy_schema()
    schema["$defs"]["Ping"]["properties"]["note"] = {"type": "string", "pattern": "^[0-9]+$", "examples": ["123"]}
    render_spec(make_spec(tmp_path, schema=schema), [])


def test_required_self_reference_is_a_spec_error_not_a_crash(tmp_path: Path) -> None:
    schema = toy_schema()
    schema["$defs"]["Node"] = {
        "type": "object",
        "properties": {"next": {"$ref": "#/$defs/Node"}},
        "required": ["next"],
    }
    _generate_or_locate(tmp_path, schema, "/$defs/Node")


def test_alias_cycle_is_a_spec_error_not_a_crash(tmp_path: Path) -> None:
    schema = toy_schema()
    schema["$defs"].update(A={"$ref": "#/$defs/B"}, B={"$ref": "#/$defs/A"})
    _generate_or_locate(tmp_path, schema, "/$defs/")


def test_json_value_aliases_that_contain_each_other_generate_and_validate(tmp_path: Path) -> None:
    """A JSON value spelled as aliases (MCP 2026-07-28's JSONValue, JSONObject, JSONArray): a
    union holding a map of itself and an array of itself. No typed model can evaluate such an
    alias before itself, so they are checked by their compiled schema, and exactly."""
    from conftest import run_python

    schema = toy_schema()
    schema["$defs"].update(
        Value={"anyOf": [{"$ref": "#/$defs/Object"}, {"type": "array", "items": {"$ref": "#/$defs/Value"}}, {"type": ["string", "integer", "boolean"]}]},
        Object={"type": "object", "additionalProperties": {"$ref": "#/$defs/Value"}},
        Array={"type": "array", "items": {"$ref": "#/$defs/Value"}},
    )
    schema["$defs"]["Ping"]["properties"]["extra"] = {"$ref": "#/$defs/Object"}
    spec = make_spec(tmp_path, schema=schema)
    result = run_cli("generate", "--spec", spec, "--out", tmp_path / "out")
    assert result.exit_code == 0, result.output
    code = """
from toyproto import codec_json
from toyproto.errors import DecodeError
for doc, ok in [(b'{"type":"PING","seq":1,"extra":{"a":[1,"b",true,{"c":[]}]}}', True),
                (b'{"type":"PING","seq":1,"extra":{"a":[1,null]}}', False),
                (b'{"type":"PING","seq":1,"extra":{"a":1.5}}', False)]:
    try:
        value = codec_json.decode(doc, "Ping")
        assert ok, doc
        assert codec_json.encode(value) == doc, codec_json.encode(value)
    except DecodeError as exc:
        assert not ok, exc
        assert exc.errors[0].definition == "Value", exc
print(codec_json.decode(b'[[1], {"x": ["y"]}]', "Array"))
"""
    run = run_python(code, tmp_path, [tmp_path / "out"])
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[[1], {'x': ['y']}]"


def test_optional_self_reference_generates(tmp_path: Path) -> None:
    """The control for the two cases above: recursion through optional members is fine."""
    schema = toy_schema()
    schema["$defs"]["Node"] = {
        "type": "object",
        "properties": {"next": {"$ref": "#/$defs/Node"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
    }
    files = render_spec(make_spec(tmp_path, schema=schema), []).files
    assert b"class Node(Struct" in files["toyproto/models.py"]


def test_property_name_starting_with_a_digit(tmp_path: Path) -> None:
    schema = toy_schema()
    schema["$defs"]["Ping"]["properties"]["1st"] = {"type": "string"}
    _generate_or_locate(tmp_path, schema, "/$defs/Ping/properties/1st")


def test_definition_name_that_is_not_an_identifier(tmp_path: Path) -> None:
    schema = toy_schema()
    schema["$defs"]["my-def"] = {"type": "string"}
    _generate_or_locate(tmp_path, schema, "/$defs/my-def")


def test_description_ending_with_a_double_quote(tmp_path: Path) -> None:
    schema = toy_schema()
    schema["$defs"]["Ping"]["description"] = 'A ping, also called a "hello"'
    schema["$defs"]["Ping"]["properties"]["note"]["description"] = 'Free text, e.g. "hi"'
    _generate_or_locate(tmp_path, schema, "/$defs/Ping")
    assert (tmp_path / "out" / "toyproto" / "models.py").exists()


def test_enum_value_with_a_carriage_return(tmp_path: Path) -> None:
    schema = toy_schema()
    schema["$defs"]["Color"]["enum"] = ["red", "line\rbreak"]
    _generate_or_locate(tmp_path, schema, "/$defs/Color")
    assert (tmp_path / "out" / "toyproto" / "models.py").exists()

