"""Hostile and odd schemas (not documents) through `init` and `generate`: each is refused with
the file, the pointer and exit 2, or generates a package that compiles and decodes as the schema
says; never a traceback, exit 70 or a package that does not import (docs/limits.md, "What a
schema may be")."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from conftest import run_cli, run_python
from generator.schema.loader import MAX_FILE_DEPTH, MAX_REFERENCE_DEPTH, MAX_SCHEMA_DEPTH, MAX_VALUE_DEPTH
from generator.schema.yaml12 import MAX_ALIASED


def _nested(opening: str, closing: str, n: int, inner: str = '{"type": "string", "minLength": 2}') -> str:
    return '{"definitions": {"a": ' + opening * n + inner + closing * n + "}}"


def _init(tmp_path: Path, text: str, suffix: str = ".json") -> tuple[int, str]:
    schema = tmp_path / ("schema" + suffix)
    schema.write_text(text, encoding="utf-8")
    made = run_cli("init", str(schema), "--name", "deep", "--spec-dir", str(tmp_path / "spec"))
    return made.exit_code, made.output


CHAIN = 3000  # definitions each a bare $ref to the next: took 85 s, then exit 70 (RecursionError)

TOO_DEEP = {
    "arrays": (_nested('{"type": "array", "items": ', "}", MAX_SCHEMA_DEPTH), "/definitions/a" + "/items" * MAX_SCHEMA_DEPTH),
    "properties": (_nested('{"type": "object", "properties": {"p": ', "}}", MAX_SCHEMA_DEPTH), "/definitions/a" + "/properties/p" * MAX_SCHEMA_DEPTH),
    "not": (_nested('{"not": ', "}", MAX_SCHEMA_DEPTH), "/definitions/a" + "/not" * MAX_SCHEMA_DEPTH),
    "a-chain-of-references": (
        json.dumps({"definitions": {**{f"d{i}": {"$ref": f"#/definitions/d{i + 1}"} for i in range(CHAIN)}, f"d{CHAIN}": {"type": "string"}}}),
        f"/definitions/d{CHAIN - MAX_REFERENCE_DEPTH // 2}/$ref",
    ),
}
LIMIT = {"arrays": MAX_SCHEMA_DEPTH, "properties": MAX_SCHEMA_DEPTH, "not": MAX_SCHEMA_DEPTH, "a-chain-of-references": MAX_REFERENCE_DEPTH}


@pytest.mark.parametrize("case", list(TOO_DEEP))
def test_a_schema_nesting_past_the_limit_is_refused_where_it_does(tmp_path: Path, case: str) -> None:
    """Once exit 70 (RecursionError in the IR, the table or the cases) or a package whose
    schema table did not compile; the chain also took 85 s before failing."""
    text, where = TOO_DEEP[case]
    started = time.perf_counter()
    code, output = _init(tmp_path, text)
    assert code == 2, output
    assert f"schema.json: {where}: subschemas nest {LIMIT[case] + 1} deep here" in output, output
    assert "Traceback" not in output and not (tmp_path / "spec" / "deep").exists()
    assert time.perf_counter() - started < 10


def test_recursion_through_references_is_not_depth(tmp_path: Path) -> None:
    """A reference back to a schema it is inside of is recursion, which generates: it ends the
    count, however many definitions the cycle has."""
    n = MAX_REFERENCE_DEPTH
    defs = {f"d{i}": {"type": "object", "properties": {"next": {"$ref": f"#/definitions/d{(i + 1) % n}"}}} for i in range(n)}
    code, output = _init(tmp_path, json.dumps({"definitions": defs}))
    assert code == 2 and "deep here through $ref (d" in output, output  # a long cycle is a long chain all the same
    defs = {"d0": {"type": "object", "properties": {"next": {"$ref": "#/definitions/d0"}, "all": {"type": "array", "items": {"$ref": "#/definitions/d1"}}}}, "d1": {"anyOf": [{"type": "string"}, {"$ref": "#/definitions/d0"}]}}
    code, output = _init(tmp_path, json.dumps({"definitions": defs}))
    assert code == 0, output


def test_general_arrays_nested_deeper_than_a_compiler_nests_blocks(tmp_path: Path) -> None:
    """Arrays of general items nested 25 deep once compiled to 25 nested loops in one function
    of accept.py: `SyntaxError: too many statically nested blocks` on import, after `generate`
    said nothing. Deep subschemas are functions of their own now."""
    depth = 25
    code, output = _init(tmp_path, _nested('{"type": "array", "uniqueItems": true, "items": ', "}", depth))
    assert code == 0, output
    done = run_cli("generate", "--spec", str(tmp_path / "spec" / "deep"), "--out", str(tmp_path / "out"))
    assert done.exit_code == 0, done.output
    good = "[" * depth + '"ab"' + "]" * depth
    bad = "[" * depth + '"ab", "ab"' + "]" * depth
    short = "[" * depth + '"a"' + "]" * depth
    ran = run_python(
        f"""
from deep import accept, codec_json
from deep.errors import DecodeError
print(codec_json.decode({good!r}.encode(), "a") is not None)
for text in ({bad!r}, {short!r}):
    try:
        codec_json.decode(text.encode(), "a")
        print("accepted")
    except DecodeError as exc:
        print(exc.errors[0].keyword, exc.errors[0].pointer.count("/"))
""",
        tmp_path,
        [tmp_path / "out"],
    )
    assert ran.stdout.split() == ["True", "uniqueItems", str(depth - 1), "minLength", str(depth)], ran.stdout + ran.stderr


def test_the_deepest_schema_allowed_generates_a_module_that_compiles(tmp_path: Path) -> None:
    """At the limit, the schema table's literal of general unions nested in one another (two
    brackets a level) still compiles: the limit is the one CPython's parser sets, with room."""
    code, output = _init(tmp_path, _nested('{"anyOf": [{"type": "object", "required": ["x"]}, ', "]}", MAX_SCHEMA_DEPTH - 1))
    assert code == 0, output
    done = run_cli("generate", "--spec", str(tmp_path / "spec" / "deep"), "--out", str(tmp_path / "out"))
    assert done.exit_code == 0, done.output
    ran = run_python("from deep import accept, codec_json, schema_table\nprint(codec_json.decode(b'{\"x\": 1}', 'a'))", tmp_path, [tmp_path / "out"])
    assert ran.stdout.strip() == "{'x': 1}", ran.stdout + ran.stderr


# names a generated module must not take for its own: keywords and builtins of both languages,
# dunders, Object.prototype's members, helpers and imports of the generated modules, names that
# escape a literal, a comment or a docstring, line separators, non-ASCII, the empty name
NAMES = [
    "class", "def", "None", "self", "type", "str", "list", "__class__", "__init__", "__dict__", "__slots__", "__proto__",
    "constructor", "toString", "hasOwnProperty", "valueOf", "", " ", "a b", "a-b", "a_b", "aB", "ü", "😀", 'x"y', "x'y", "x\\y",
    "x\ny", "*/", "*/ evil() /*", '"""', "'''", "${x}", "`", "msgspec", "Struct", "UNSET", "Any", "JSONValue", "DEFINITIONS",
    "function", "delete", "undefined", "NaN", "1abc", "_", "$ref", "~0", "~1", "%25", "x\u2028y", "\u0000", "extras",
]
DEFINITION_NAMES = ["class", "__init__", "constructor", "__proto__", "toString", "*/ evil() /*", "x\ny", "😀", "Struct", "UNSET", "Any", "models", "errors", '"""', "%25", "a/b"]


def test_hostile_names_generate_packages_whose_tests_pass_in_both_languages(tmp_path: Path) -> None:
    """Once: a property named "x\\u2028y" cut in two inside a literal of accept.py (Jinja's
    `indent` splits lines where Python does not; generate exit 2 after init accepted it); a
    definition named '\"\"\"' ended its docstring early; jsonschema's reference for a definition
    whose name a URI may not hold (a newline, `%`) named another place; in the TypeScript package
    a definition named `constructor` or `toString` accepted anything and one named `__proto__`
    threw a TypeError (a lookup found Object.prototype's members), and a declared member named
    `__proto__` was set as the prototype and lost."""
    from generator.targets.typescript import node as ts_node

    from conftest import run_package_tests

    defs: dict[str, object] = {
        "Closed": {"type": "object", "properties": {n: {"type": "string"} for n in NAMES}, "required": NAMES[:12], "additionalProperties": False},
        "Open": {"type": "object", "properties": {n: {"type": "integer", "minimum": 1} for n in NAMES}},
        "General": {"type": "object", "properties": {n: {"type": "string", "minLength": 1} for n in NAMES}, "minProperties": 1, "patternProperties": {"^x": {"type": "string"}}},
        "Enum": {"enum": NAMES},
        "Tagged": {"oneOf": [{"type": "object", "properties": {"kind": {"const": k}}, "required": ["kind"]} for k in ("class", "__proto__", "*/", "x\ny", "😀", "")]},
    }
    for name in DEFINITION_NAMES:
        defs[name] = {"type": "object", "properties": {"v": {"type": "string", "description": '*/ """ \'\'\' \\'}}, "description": name + ' */ """ \'\'\' \\'}
    code, output = _init(tmp_path, json.dumps({"$defs": defs}))
    assert code == 0, output
    done = run_cli("generate", "--spec", str(tmp_path / "spec" / "deep"), "--out", str(tmp_path / "out"))
    assert done.exit_code == 0, done.output
    result = run_package_tests(tmp_path / "out", "deep")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    if ts_node.missing() is not None:
        pytest.skip(f"SKIPPED LOUDLY: {ts_node.missing()}, so the TypeScript package cannot be built")
    built = ts_node.build(tmp_path / "out" / "deep-ts")
    ran = subprocess.run([ts_node.node(), "--test", "dist/tests/"], cwd=built, capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0 and "# fail 0" in ran.stdout, ran.stdout[-3000:] + ran.stderr[-2000:]
    probe = built / "probe.mjs"
    probe.write_text(
        """import { decode } from "./dist/src/index.js";
const out = [];
for (const [d, t] of [["constructor", '{"v": 1}'], ["toString", '{"v": null}'], ["__proto__", '{"v": 1}'], ["__proto__", '{"v": "x"}'], ["Open", '{"__proto__": 5}']]) {
  try { const v = decode(t, d); out.push(Object.prototype.hasOwnProperty.call(v, "__proto__") ? "own" : "ok"); } catch (e) { out.push(e.constructor.name); }
}
console.log(out.join(" "));
""",
        encoding="utf-8",
    )
    ran = subprocess.run([ts_node.node(), str(probe)], cwd=built, capture_output=True, text=True, timeout=60)
    assert ran.stdout.split() == ["DecodeError", "DecodeError", "DecodeError", "ok", "own"], ran.stdout + ran.stderr


@pytest.mark.parametrize("text", ['"""', '""""', 'x"""""', 'a"', 'a\\"', "a\\", "x\\\"\"\""])
def test_a_docstring_holds_any_text(text: str) -> None:
    """A text ending in '\"\"\"' (a definition's name, a description) once ended its docstring
    early: the escaped last quote was escaped again."""
    import ast

    from generator.render import docstring

    parsed = ast.parse("def f() -> None:\n" + docstring(text) + "\n")
    assert ast.get_docstring(parsed.body[0], clean=False) == text  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "pattern",
    ["(?i)abc", "(?>a)b", "(?#note)a", "(?s).", "(a)(?(1)b|c)", "a++", "a*+", "a{2}+", "x{1,2}{3}", "a{,3}"],
)
def test_a_pattern_python_reads_and_ecma_262_does_not_is_refused(tmp_path: Path, pattern: str) -> None:
    """Each once passed the translation as it was: Python read it with its own meaning (inline
    flags, atomic groups, possessive quantifiers, `{,n}` as `{0,n}`) while the TypeScript package
    threw a SyntaxError loading it (or, for `{,3}`, matched the characters)."""
    code, output = _init(tmp_path, json.dumps({"definitions": {"a": {"type": "string", "pattern": pattern}}}))
    assert code == 2 and "schema.json: /definitions/a/pattern: pattern does not compile" in output, output


@pytest.mark.parametrize("pattern", ["a+?", "a{2}?", "a{2,}", "a{x}", "[a+]+", "\\++", "(?<n>a)\\k<n>", "(?<=a)b", "(?:a)+"])
def test_ecma_262_quantifiers_and_groups_are_kept(pattern: str) -> None:
    from generator.regex import ecma_to_python

    ecma_to_python(pattern)


@pytest.mark.parametrize(
    ("text", "where", "says"),
    [
        ('{"definitions": {"a": {"const": NaN}}}', "line 1 column 33", "NaN is not a JSON number"),
        ('{"definitions": {"a": {"description": "-Infinity",\n "enum": [1, -Infinity]}}}', "line 2 column 14", "-Infinity is not a JSON number"),
        ('{"definitions": {"a": {"maximum": 1e400}}}', "line 1 column 35", "1e400 is beyond a double's range"),
        ('{"definitions": {"a": {"const": 1' + "0" * 5000 + "}}}", "line 1 column 33", "an integer of 5,001 digits"),
        ('{"definitions": {"a": {"type": "string", "type": "integer"}}}', "line 1 column 42", "the member 'type' is given twice"),
    ],
)
def test_numbers_json_does_not_have_are_refused_where_they_stand(tmp_path: Path, text: str, where: str, says: str) -> None:
    """NaN and Infinity (which Python's json reads) and 1e400 once made a schema_table naming
    `nan`/`inf`, a package that did not import; 5,001 digits exited 70 (ValueError); a member
    given twice was read as its last value, silently."""
    code, output = _init(tmp_path, text)
    assert code == 2 and f"schema.json: {where}: " in output and says in output, output


@pytest.mark.parametrize(("keyword", "kind"), [("minLength", "string"), ("minItems", "array"), ("minProperties", "object")])
def test_a_minimum_size_past_what_a_test_can_hold_is_refused(tmp_path: Path, keyword: str, kind: str) -> None:
    """minItems 10^6 took 124 s and 1.3 GB in init (the derived valid document); minLength 10^30
    exited 70 (OverflowError)."""
    for value in (10**6, 10**30):
        started = time.perf_counter()
        code, output = _init(tmp_path, json.dumps({"definitions": {"a": {"type": kind, keyword: value}}}))
        assert code == 2 and f"/definitions/a/{keyword}: {keyword} {value}: " in output and "10,000" in output, output
        assert time.perf_counter() - started < 10


def test_a_maximum_size_past_any_value_bounds_nothing_and_costs_nothing(tmp_path: Path) -> None:
    """maxItems 10^30 took 23 GB in init (the derived document of maxItems + 1 items) before the
    kernel killed it; maxLength 10^30 exited 70, and in a typed model made a module msgspec
    refused to import (`max_length` out of range)."""
    schema = {"definitions": {"a": {"type": "string", "maxLength": 10**30}, "b": {"type": "array", "maxItems": 10**30, "uniqueItems": True}}}
    started = time.perf_counter()
    code, output = _init(tmp_path, json.dumps(schema))
    assert code == 0, output
    done = run_cli("generate", "--spec", str(tmp_path / "spec" / "deep"), "--out", str(tmp_path / "out"))
    assert done.exit_code == 0, done.output
    assert time.perf_counter() - started < 60
    ran = run_python("from deep import codec_json\nprint(codec_json.decode(b'\"abc\"', 'a'), codec_json.decode(b'[1, 2]', 'b'))", tmp_path, [tmp_path / "out"])
    assert ran.stdout.split() == ["abc", "[1,", "2]"], ran.stdout + ran.stderr


@pytest.mark.parametrize(
    ("keyword", "value"),
    [("description", ["x"]), ("title", {"a": 1}), ("format", 3), ("$comment", 3), ("deprecated", "yes"), ("examples", "x"), ("$id", 3), ("$anchor", 3)],
)
def test_an_annotation_of_the_wrong_type_is_refused_where_it_stands(tmp_path: Path, keyword: str, value: object) -> None:
    """A description that was not a string ended init in an AttributeError (exit 70); the others
    were ignored, silently, as no meta-schema allows."""
    code, output = _init(tmp_path, json.dumps({"$defs": {"a": {"type": "string", keyword: value}}}))
    assert code == 2 and f"schema.json: /$defs/a/{keyword}: {keyword} must be " in output, output


OPENAPI = "openapi: 3.1.0\ncomponents:\n  schemas:\n    a:\n"  # a definition's keywords go on line 5, column 7
LAUGHS = "".join(f"      k{i}: &k{i} [" + ", ".join([f"*k{i - 1}" if i else "x"] * 10) + "]\n" for i in range(9))


@pytest.mark.parametrize(
    ("body", "where", "says"),
    [
        ("      maximum: .nan\n", "line 5 column 16", "not JSON: .nan is not a JSON number"),
        ("      maximum: -.Inf\n", "line 5 column 16", "not JSON: -.Inf is not a JSON number"),
        ("      const: !!float .inf\n", "line 5 column 14", "not JSON: .inf is not a JSON number"),
        ("      maximum: 1e400\n", "line 5 column 16", "the number 1e400 is beyond a double's range"),
        ("      const: " + "1" * 5000 + "\n", "line 5 column 14", "an integer of 5,000 digits"),
        ("      const: 0x" + "f" * 4000 + "\n", "line 5 column 14", "past 4,300 decimal digits"),
        ("      const: !!timestamp 2026-12-04\n", "line 5 column 14", "a YAML timestamp is not a JSON value"),
        ("      const: !!binary aGVsbG8=\n", "line 5 column 14", "YAML binary data is not a JSON value"),
        ("      enum: !!set {x, y}\n", "line 5 column 13", "a YAML set is not a JSON value"),
        ("      enum: !!omap [x: 1]\n", "line 5 column 13", "a YAML ordered map is not a JSON value"),
        ("      const: !!int ten\n", "line 5 column 14", "!!int 'ten' is not an integer"),
        ("      const: !!bool maybe\n", "line 5 column 14", "!!bool 'maybe' is neither true nor false"),
        ("      type: object\n      properties:\n        200: {type: string}\n", "line 7 column 9", "the key '200' is an integer in YAML 1.2, and a JSON member name is a string: quote it"),
        ("      properties:\n        null: {type: string}\n", "line 6 column 9", "the key 'null' is null"),
        ("      properties:\n        true: {type: string}\n", "line 6 column 9", "the key 'true' is a boolean"),
        ("      properties:\n        ? [x]\n        : {type: string}\n", "line 6 column 11", "a sequence as a key"),
        ("      const: &x {b: *x}\n", "line 5 column 21", "the alias *x stands inside the node it names"),
        ("      allOf: &x [*x]\n", "line 5 column 18", "the alias *x stands inside the node it names"),
        ("      properties: &x {b: {type: string}}\n      patternProperties: {!!merge <<: *x}\n", "line 6 column 27", "a merge key (<<) is YAML 1.1's"),
        ('      const: "x\\ud800"\n', "line 5 column 14", "lone surrogate"),
        ("      const: " + "[" * 300 + "]" * 300 + "\n", f"line 5 column {14 + MAX_FILE_DEPTH - 4}", f"arrays and objects nest {MAX_FILE_DEPTH + 1} deep here"),
        ("      default:\n" + "".join("  " * (i + 4) + "k:\n" for i in range(300)) + "  " * 304 + "x\n", f"line {MAX_FILE_DEPTH + 2} column {2 * MAX_FILE_DEPTH + 1}", f"nest {MAX_FILE_DEPTH + 1} deep here"),
        ("      type: string\n      type: integer\n", "line 6 column 7", "key 'type' appears twice"),
        (LAUGHS, "line 10 column 51", f"aliases stand for more than {MAX_ALIASED:,} nodes by the alias *k4"),
    ],
    ids=lambda v: v[:24] if isinstance(v, str) else None,
)
def test_yaml_that_is_no_json_is_refused_where_it_stands(tmp_path: Path, body: str, where: str, says: str) -> None:
    """A YAML schema is a JSON value written in YAML. Before, .nan, .inf and 1e400 made packages
    that did not import (`Meta(le=nan)`: NameError); 5,000 digits exited 70 (ValueError); a
    timestamp, binary, a set, an ordered map became Python values no JSON has; keys 200, null,
    true were read as numbers, None and True; an alias inside what it names exited 70
    (RecursionError); nesting 300 deep exited 70 in PyYAML's composer; the aliases of 9 lines
    stand for 10^9 nodes, which every pass walked (the repeated key was refused already)."""
    started = time.perf_counter()
    code, output = _init(tmp_path, OPENAPI + body, ".yaml")
    assert code == 2 and f"schema.yaml: {where}: " in output and says in output and "Traceback" not in output, output
    assert time.perf_counter() - started < 10


def test_yaml_aliases_and_nesting_up_to_the_limits_generate(tmp_path: Path) -> None:
    """Aliases that share a schema, a file nested MAX_FILE_DEPTH deep and a default nested
    MAX_VALUE_DEPTH deep read as before."""
    deep = MAX_FILE_DEPTH - 1
    body = (
        "      type: object\n      properties:\n        p: &p {type: string, minLength: 2}\n        q: *p\n"
        f"        r: {{type: array, default: {'[' * MAX_VALUE_DEPTH + ']' * MAX_VALUE_DEPTH}}}\nx-deep: {'[' * deep + ']' * deep}\n"
    )
    code, output = _init(tmp_path, OPENAPI + body, ".yaml")
    assert code == 0, output
    done = run_cli("generate", "--spec", str(tmp_path / "spec" / "deep"), "--out", str(tmp_path / "out"))
    assert done.exit_code == 0, done.output
    ran = run_python("from deep import codec_json\nprint(codec_json.decode(b'{\"q\": \"ab\"}', 'a'))", tmp_path, [tmp_path / "out"])
    assert "q='ab'" in ran.stdout, ran.stdout + ran.stderr


def test_a_json_file_nested_past_the_limit_is_refused_where_it_passes_it(tmp_path: Path) -> None:
    """Python's json gave up near 990 levels (where depended on the caller's stack) and the
    file was refused at `/`; a schema's const nested 450 deep (within what json reads) ended init
    in a RecursionError (exit 70). Refused where level MAX_FILE_DEPTH + 1 opens, in a schema
    and in an --input file; a file nested to the limit reads."""
    n = MAX_FILE_DEPTH
    for depth in (n + 1, 450, 3000):
        code, output = _init(tmp_path, '{"definitions": {"a": {\n  "const": ' + "[" * (depth - 3) + "]" * (depth - 3) + "}}}")
        assert code == 2 and f"schema.json: line 2 column {12 + n - 3}: arrays and objects nest {n + 1} deep here" in output, output
    code, output = _init(tmp_path, '{"definitions": {"a": {"type": "string"}}, "x-deep": ' + "[" * (n - 1) + "]" * (n - 1) + "}")
    assert code == 0, output
    request = tmp_path / "in.json"
    request.write_text('{"threadId": ' + "[" * 3000 + "]" * 3000 + "}", encoding="utf-8")
    done = run_cli("replay", "--spec", "spec/agui", "--input", str(request), str(request))
    assert done.exit_code == 2 and f"in.json: line 1 column {14 + n - 1}: arrays and objects nest {n + 1} deep here" in done.output, done.output


def _deepest(inner: str) -> str:
    """A definition whose subschemas nest MAX_SCHEMA_DEPTH deep, `inner` the deepest."""
    n = MAX_SCHEMA_DEPTH - 1
    return '{"definitions": {"a": ' + '{"anyOf": [{"type": "object", "required": ["x"]}, ' * (n - 1) + inner + "]}" * (n - 1) + "}}"


def test_a_value_nested_past_the_limit_is_refused_where_it_passes_it(tmp_path: Path) -> None:
    """A const nested 110 deep in the deepest subschema allowed generated a package that did not
    import (its literals passed CPython's 200 nested brackets: SyntaxError, too many nested
    parentheses); one nested 253 deep in a definition did too. MAX_VALUE_DEPTH deep, in the
    deepest subschema, imports and decodes."""
    const = '{"type": "object", "required": ["x"], "properties": {"y": {"const": ' + "[" * 110 + "]" * 110 + "}}}"
    code, output = _init(tmp_path, _deepest(const))
    where = "/definitions/a" + "/anyOf/1" * (MAX_SCHEMA_DEPTH - 2) + "/properties/y/const" + "/0" * MAX_VALUE_DEPTH
    assert code == 2 and f"schema.json: {where}: a value nested {MAX_VALUE_DEPTH + 1} deep here" in output, output
    code, output = _init(tmp_path, '{"definitions": {"a": {"enum": [1, ' + '{"a": ' * 252 + "1" + "}" * 252 + "]}}}")
    assert code == 2 and "schema.json: /definitions/a/enum/1" + "/a" * MAX_VALUE_DEPTH + ": a value nested" in output, output
    v = MAX_VALUE_DEPTH
    const = '{"type": "object", "required": ["x"], "properties": {"y": {"const": ' + "[" * v + "]" * v + ', "default": ' + '{"a":' * v + "1" + "}" * v + "}}}"
    code, output = _init(tmp_path, _deepest(const))
    assert code == 0, output
    done = run_cli("generate", "--spec", str(tmp_path / "spec" / "deep"), "--out", str(tmp_path / "out"))
    assert done.exit_code == 0, done.output
    ran = run_python("from deep import codec_json, accept, schema_table, models\nprint(codec_json.decode(b'{\"x\": 1}', 'a'))", tmp_path, [tmp_path / "out"])
    assert ran.stdout.strip() == "{'x': 1}", ran.stdout + ran.stderr


@pytest.mark.parametrize("text", ['{"definitions": {"a": {"const": "\\ud800"}}}', '{"definitions": {"a": {"type": "string",\n "description": "x\\uDC00"}}}'])
def test_a_lone_surrogate_in_a_schema_is_refused_where_it_stands(tmp_path: Path, text: str) -> None:
    """json.loads reads "\\ud800" into a str no UTF-8 file can hold: generate exited 70
    (UnicodeEncodeError) writing the package. A pair (an escaped emoji) reads as before."""
    code, output = _init(tmp_path, text)
    assert code == 2 and ("line 1 column 33" in output or "line 2 column 17" in output) and "lone surrogate" in output, output
    code, output = _init(tmp_path, '{"definitions": {"a": {"const": "\\ud83d\\ude00"}}}')
    assert code == 0, output


@pytest.mark.parametrize("anchor", ["", "1a", "a/b", "a b", "a:b", "#a", "é", "a\n"])
def test_an_anchor_that_is_no_anchor_name_is_refused_at_the_keyword(tmp_path: Path, anchor: str) -> None:
    """2020-12 anchors are plain names (^[A-Za-z_][-A-Za-z0-9._]*$); these were accepted, and a
    `$ref` naming one ("#a/b") was read as a pointer instead. Names that are anchors still read."""
    code, output = _init(tmp_path, json.dumps({"$defs": {"a": {"type": "string", "$anchor": anchor}}}))
    assert code == 2 and "schema.json: /$defs/a/$anchor: $anchor " in output and "is not an anchor name" in output, output
    code, output = _init(tmp_path, json.dumps({"$defs": {"a": {"type": "string", "$anchor": "_a-1.b"}, "b": {"$ref": "#_a-1.b"}}}))
    assert code == 0, output
