"""The TypeScript typed read (issue 23, item 2): read.ts reads a document straight into its value
while it makes the validation table's checks, and only the table's `schema` nodes (the residue)
are checked by their compiled functions (accept.ts `RESIDUE`). Where it gives up, the codec
reads the document as before (`parseJson`, the whole compiled check, the explaining pass), so
every verdict, value, pointer, keyword and message must be the one `decode(..., {typed: false})`
gives: held here on the toy schema of tests/test_typed_residue.py (every kind of residue) and on
the five vendored real schemas of tests/data/schemas, on valid, invalid and edge documents (integral floats, 16-digit integers,
escapes, surrogates, controls, `__proto__`, index-named and repeated members, nesting, a byte
order mark, bytes that are not UTF-8); and a residue check removed must be seen."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

import typescript_agreement as agree
from conftest import run_cli, run_python
from generator.targets.typescript import node as ts_node
from test_typed_residue import DOCUMENTS, SCHEMA

REPO = Path(__file__).resolve().parent.parent

# the Python package's own generated documents (valid, by seed) and their integral-float twins
DOCS = """
import json
from {module} import strategies
out = []
for d in json.loads({definitions!r}):
    for seed in range({seeds}):
        try:
            doc = strategies.document(d, seed=seed)
        except Exception:
            break
        out.append([d, doc])
print(json.dumps(out))
"""

# every document as text, and edge texts made from it; each decoded with and without the typed
# read (the old path), outcomes compared whole
SCRIPT = r"""
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [dir, jobFile, mutate] = process.argv.slice(2);
const codec = await import(pathToFileURL(dir + "/dist/src/codec_json.js").href);
const read = await import(pathToFileURL(dir + "/dist/src/read.js").href);
const accept = await import(pathToFileURL(dir + "/dist/src/accept.js").href);
const json = await import(pathToFileURL(dir + "/dist/src/json.js").href);
const table = await import(pathToFileURL(dir + "/dist/src/schema_table.js").href);
if (mutate === "residue") for (const loc of Object.keys(accept.RESIDUE)) accept.RESIDUE[loc] = () => true;
// the general nodes read typed (TYPED_SCHEMAS) with their checks taken out: scalars any JSON,
// objects open with nothing required, arrays of any length, items alike
function loosen(n) {
  if (["string", "integer", "number", "enum", "const", "boolean", "null"].includes(n.kind)) return { kind: "any", loc: n.loc, nonnull: false };
  if (n.kind === "object") return { ...n, closed: null, fields: Object.fromEntries(Object.entries(n.fields).map(([k, f]) => [k, { ...f, required: null }])) };
  if (n.kind === "array") return { ...n, min_items: null, max_items: undefined, unique_strings: false };
  if (n.kind === "map") return { ...n, keys: undefined };
  return n;
}
if (mutate === "schemas") for (const loc of Object.keys(table.TYPED_SCHEMAS ?? {})) table.TYPED_SCHEMAS[loc] = loosen(table.TYPED_SCHEMAS[loc]);
const job = JSON.parse(readFileSync(jobFile, "utf8"));
const enc = new TextEncoder();
function outcome(data, d, typed) {
  try {
    const v = codec.decode(data, d, { typed });
    return "ok " + JSON.stringify(v, (k, x) => (typeof x === "bigint" ? `${x}n` : x)) + " " + JSON.stringify(shape(v));
  } catch (e) {
    if (!(e instanceof codec.DecodeError)) throw e;
    return "refused " + JSON.stringify(e.errors.map((i) => [i.pointer, i.definition, i.keyword, i.message])) + " " + e.count;
  }
}
// the kinds of every value (a PyFloat or bigint left in would show here), members in their
// document order (`keysOf`: ORDER where a name is an index) and whether ORDER is there
function shape(v) {
  if (Array.isArray(v)) return v.map(shape);
  if (v !== null && typeof v === "object") return [json.ORDER in v, json.keysOf(v).map((k) => [k, shape(v[k])])];
  return typeof v;
}
function edges(text) {
  const out = [text, text.replace(/(\d)(?=[,}\]])/g, "$1.0"), text.replace(/": /g, '":\n '), " \t" + text + "\n"];
  if (text.startsWith("{") && text.length > 2) {
    const body = text.slice(1);
    for (const m of ['"__proto__": 1, ', '"0": 1, ', '"12": {}, ', '"x": 2.0, ', '"x": [1.0, {"7": 1e2}], ', '"01": 1, "3": 2.5, ', '"\\u0041": 1, ', '"x": 1e400, ', '"x": 12345678901234567890, ',
      '"x": 9007199254740993, ', '"x": 9007199254740991, ', '"x": -0, ', '"x": "\\ud800", ', '"x": "\\ud83d\\ude00", ', '"x": "a\tb", ', '"x": [[[[[[1]]]]]], '])
      out.push("{" + m + body);
    const first = text.match(/^\{"([^"\\]*)": /);
    if (first) out.push(text.slice(0, -1) + `, "${first[1]}": null}`, text.slice(0, -1) + `, "${first[1]}": ` + text.slice(first[0].length).split(/, "|}$/)[0] + "}");
  }
  out.push("[".repeat(130) + "]".repeat(130), "\ufeff" + text, text + " x", text.replace('"', '"\\n'));
  return out;
}
let valid = 0, refused = 0, texts = 0, typed = 0, differ = [], untyped = [];
for (const [d, text, plain, must] of job) {
  if (must) {
    // a document the typed read must decide (and decide as the old path: below)
    const r = read.typedReader(d, accept.RESIDUE);
    if (r === null || read.readText(text, r) === read.FAIL) untyped.push([d, text.slice(0, 200)]);
  }
  for (const t of plain ? [text] : edges(text)) {
    for (const data of [t, enc.encode(t)]) {
      const want = outcome(data, d, false), got = outcome(data, d, true);
      if (got !== want) differ.push([d, t.slice(0, 300), got.slice(0, 400), want.slice(0, 400)]);
      if (want.startsWith("ok")) {
        valid++;
        const r = read.typedReader(d, accept.RESIDUE);
        if (typeof data === "string") {
          texts++;
          if (r !== null && read.readText(t, r) !== read.FAIL) typed++;
        }
      } else refused++;
    }
  }
  const bad = new Uint8Array([...enc.encode(text.slice(0, 1)), 0xff, ...enc.encode(text.slice(1))]);
  if (outcome(bad, d, true) !== outcome(bad, d, false)) differ.push([d, "bytes not UTF-8", "", ""]);
}
console.log(JSON.stringify({ valid, refused, texts, typed, differ: differ.slice(0, 5), differences: differ.length, untyped }));
"""


def _job(tmp: Path, module: str, out: Path, documents: list[tuple[str, Any]], seeds: int, typed: list[tuple[str, Any]] | None = None) -> Path:
    definitions = sorted({d for d, _ in documents})
    ran = run_python(DOCS.format(module=module, seeds=seeds, definitions=json.dumps(definitions)), out, [out])
    assert ran.returncode == 0, ran.stderr[-3000:]
    generated = json.loads(ran.stdout)
    job = [[d, json.dumps(doc, ensure_ascii=False), False] for d, doc in [*documents, *generated]]
    job += [[d, json.dumps(doc, ensure_ascii=False), False, True] for d, doc in typed or []]
    path = tmp / "job.json"
    path.write_text(json.dumps(job), encoding="utf-8")
    return path


def _run(built: Path, job: Path, tmp: Path, mutate: str = "") -> dict[str, Any]:
    script = tmp / "typed_read.mjs"
    script.write_text(SCRIPT, encoding="utf-8")
    done = subprocess.run([ts_node.node(), str(script), str(built), str(job), mutate], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _generated(tmp: Path, schema: Path, name: str) -> tuple[Path, Path]:
    made = run_cli("init", str(schema), "--name", name, "--spec-dir", str(tmp / "spec"))
    assert made.exit_code == 0, made.output
    done = run_cli("generate", "--spec", str(tmp / "spec" / name), "--out", str(tmp / "out"))
    assert done.exit_code == 0, done.output
    return tmp / "out", ts_node.build(next((tmp / "out").glob("*-ts")))


@pytest.fixture(scope="module", autouse=True)
def toolchain() -> None:
    agree.require_toolchain()


def test_the_typed_read_and_its_residue_decide_as_the_whole_check(tmp_path: Path) -> None:
    out, built = _generated(tmp_path, SCHEMA, "toy")
    job = _job(tmp_path, "toy", out, DOCUMENTS, 40)
    result = _run(built, job, tmp_path)
    assert result["differences"] == 0, json.dumps(result["differ"], indent=1, ensure_ascii=False)
    assert result["refused"] >= 200 and result["valid"] >= 100, result
    # most valid documents were decided by the typed read (the others hold what it leaves to
    # the old path: 1.0 for an integer, a surrogate escape, a definition checked whole)
    assert result["typed"] >= result["texts"] * 2 // 5, result
    # a residue check removed: documents only it refuses are accepted, and that is seen
    broken = _run(built, job, tmp_path, "residue")
    assert broken["differences"] > 0, broken
    # likewise the general nodes read typed (TYPED_SCHEMAS) with their checks taken out
    broken = _run(built, job, tmp_path, "schemas")
    assert broken["differences"] > 0, broken


# texts the typed read's own shortcuts must read as the old path does: a fraction of up to 22
# places whose digits are below 2^53 made by one division (Clinger's fast path), at and past its
# bounds; a tagged union's tag looked for past strings with escaped quotes and backslashes, past
# scalars the look passes unread (the reader then refuses what is not JSON), under an escaped name
FAST = [
    *[("item", f'{{"name": "n", "weight": {w}, "scores": [{w}, -{w}]}}') for w in (
        "0.1", "0.30000000000000004", "230197.7080546791", "1.0000000000000002", "4.35", "9007199254740.991",
        "900719925474099.3", "900719925474099.1", "0.0000000000000000000001", "0.00000000000000000000001",
        "123456.78901234567", "1234567.0", "5e-324", "0.5e1", "2.50", "0.000", "17.0000000000000000001",
    )],
    ("shape", '{"side": 1, "labels": ["a\\"", "b\\\\"], "type": "square"}'),
    ("shape", '{"side": 1, "labels": ["\\"type\\": \\"circle\\""], "type": "square"}'),
    ("shape", '{"r": 2.5, "typ\\u0065": "circle"}'),
    ("shape", '{"r": 2.5, "ty\\"pe": "square", "type": "circle"}'),
    ("shape", '{"side": [{"a": [1, -2.5e3, true, null, "}"]}], "type": "square"}'),
    ("shape", '{"side": tru, "type": "square"}'),
    ("shape", '{"side": 1x, "type": "square"}'),
    ("shape", '{"side": 12345678901234567890, "type": "square"}'),
    ("shape", '{"side": -0, "type": "square"}'),
    ("shape", '{"side": 1e999, "type": "square"}'),
    ("shape", '{"side": 2, "__proto__": 1, "type": "square"}'),
    ("shape", '{"side": 2, "type": "square", "type": "circle"}'),
    ("shape", '{"side": "unterminated, "type": "square"}'),
]

# of those, valid texts the typed read must decide: a tag past escaped quotes, under an escape
TYPED_FAST = {text for _, text in FAST[17:20]} | {text for _, text in FAST[:3]}


def test_the_typed_reads_shortcuts_decide_as_the_old_path(tmp_path: Path) -> None:
    out, built = _generated(tmp_path, SCHEMA, "toy")
    job = tmp_path / "job.json"
    job.write_text(json.dumps([[d, text, False, text in TYPED_FAST] for d, text in FAST]), encoding="utf-8")
    result = _run(built, job, tmp_path)
    assert result["differences"] == 0, json.dumps(result["differ"], indent=1, ensure_ascii=False)
    assert result["untyped"] == [], result["untyped"]
    assert result["typed"] >= 20 and result["refused"] >= 100, result


# the vendored real schemas: each one's derived cases and generated documents, and how many of
# the valid texts the typed read must decide (general nodes read typed: commitlintrc's root, a
# union by JSON type of an object and any other JSON, MCP's ids `1.0` under the integer rule)
REAL = [
    ("agent-client-protocol", 3, 0.60),
    ("commitlintrc", 20, 0.75),
    ("mcp-2024-11-05", 2, 0.65),
    ("a2a-task-progress", 20, 0.90),
    ("dependabot-2.0", 3, 0.70),
]
# documents the derived cases lack: a2a's trackers past their maxItems
MORE = {"a2a-task-progress": [("Root", {"trackers": [{"id": f"t{i}"} for i in range(101)]})]}
# documents the typed read must decide: general nodes read typed (commitlintrc's root, a union by
# JSON type of an object and any other JSON; a map of rules; a2a's trackers, an array of at most
# 100; dependabot's unique strings), and `1.0` under the integer rule in a union by JSON type
# (MCP's request id: string or integer)
TYPED = {
    "commitlintrc": [("Root", {"extends": ["a"], "rules": {"x": [2, "always"]}, "defaultIgnores": True}), ("Root", "anything not an object")],
    "a2a-task-progress": [("Root", {"trackers": [{"id": "a", "progress": 0.5}, {"id": "b"}]})],
    "mcp-2024-11-05": [("JSONRPCRequest", {"jsonrpc": "2.0", "id": 1.0, "method": "ping"}), ("JSONRPCRequest", {"jsonrpc": "2.0", "id": 7, "method": "ping"})],
    "dependabot-2.0": [("update-types", ["version-update:semver-major", "version-update:semver-minor"])],
}


@pytest.mark.parametrize(("name", "seeds", "share"), REAL, ids=[r[0] for r in REAL])
def test_a_real_schema_decides_the_same_with_and_without_the_typed_read(tmp_path: Path, name: str, seeds: int, share: float) -> None:
    schema = REPO / "tests" / "data" / "schemas" / f"{name}.schema.json"
    module = name.split("-")[0].replace(".", "_")
    out, built = _generated(tmp_path, schema, module)
    cases = json.loads((next(out.glob("*-ts")) / "tests" / "cases.json").read_text(encoding="utf-8"))["cases"]
    documents = [(c["definition"], c["document"]) for c in cases] + MORE.get(name, [])
    job = _job(tmp_path, module, out, documents, seeds, TYPED.get(name, []))
    result = _run(built, job, tmp_path)
    assert result["differences"] == 0, json.dumps(result["differ"], indent=1, ensure_ascii=False)
    assert result["untyped"] == [], result["untyped"]
    assert result["typed"] >= result["texts"] * share and result["refused"] > 100, result
    if name in TYPED and name != "mcp-2024-11-05":
        # the general nodes read typed with their checks taken out: documents only those refuse
        # are accepted, and that is seen
        broken = _run(built, job, tmp_path, "schemas")
        assert broken["differences"] > 0, broken


def _schema(loc: str, **keys: Any) -> dict[str, Any]:
    return {"kind": "schema", "loc": loc, **keys}


def test_general_nodes_are_read_typed_only_where_the_typed_nodes_state_them_exactly() -> None:
    from generator.typed_schemas import typed_schemas

    s = _schema("/s", types=["string"])
    obj = _schema("/o", types=["object"], properties={"a": s}, required=["a", "b"], additional_properties=_schema("/o/ap", bool=False))
    nums = _schema("/n", types=["array"], unique_items=True, items=_schema("/n/i", types=["integer"]))
    strs = _schema("/u", types=["array"], unique_items=True, max_items=3, items=_schema("/u/i", types=["string"]))
    objects = _schema("/x", any_of=[_schema("/x/0", ref="A"), _schema("/x/1", ref="B")])
    by_type = _schema("/t", one_of=[_schema("/t/0", types=["string"]), _schema("/t/1", types=["integer"])])
    overlap = _schema("/v", one_of=[_schema("/v/0", types=["number"]), _schema("/v/1", types=["integer"])])
    extra = _schema("/e", types=["object"], properties={"a": s}, required=["b"], additional_properties=_schema("/e/ap", types=["integer"]))
    table = {
        "A": {"kind": "object", "loc": "/A", "closed": None, "fields": {}},
        "B": {"kind": "object", "loc": "/B", "closed": None, "fields": {}},
        "R": {"kind": "object", "loc": "/R", "closed": None, "fields": {k: {"type": n, "required": None} for k, n in [("o", obj), ("n", nums), ("u", strs), ("x", objects), ("t", by_type), ("v", overlap), ("e", extra)]}},
    }
    typed, held = typed_schemas(table, {})
    # a closed object requiring a name it does not declare holds nothing: left to its check
    assert "/o" not in typed and "/o" in {n["loc"] for n in held}
    # uniqueItems: of strings only (a Set tells them apart as the rule does), with maxItems
    assert "/n" not in typed
    assert typed["/u"] == {"kind": "array", "loc": "/u", "items": {"kind": "schema", "loc": "/u/i"}, "min_items": None, "max_items": 3, "unique_strings": True}
    assert typed["/u/i"] == {"kind": "string", "loc": "/u/i"}
    # a union of objects, or of types one of which holds the other, keeps its check
    assert "/x" not in typed and "/v" not in typed
    assert typed["/t"]["kind"] == "union" and [m[0] for m in typed["/t"]["members"]] == [["string"], ["integer"]]
    # a required name beyond the properties is read as additionalProperties says
    assert typed["/e"]["fields"]["b"] == {"type": {"kind": "schema", "loc": "/e/ap"}, "required": "/e/required"}
    assert typed["/e"]["extra"] == {"kind": "schema", "loc": "/e/ap"}
