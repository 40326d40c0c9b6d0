"""The TypeScript target: each spec's TypeScript package compiles under `tsc --strict` and
passes its own generated tests under Node's test runner, and the two bindings agree: identical
accept/reject (and identical errors) on every fixture and derived case, identical reports on
every rule example, every conformance stream, gen_corpus.py's corpus and its mutants.

The corpus here is the full 10,000 runs (about 1M events) from ../shared/bench/gen_corpus.py,
judged whole by each binding (one Node process), plus the corpus broken on purpose (every kind
of line-level trouble) and `MUTANTS` streams of one run each broken in one way;
bench/verify_typescript.py runs a mutant per run of the corpus (10,000). SPECBIND_TS_RUNS sets
the corpus size (CI machines short of time). The vendored real schemas of tests/data/schemas
(ACP 2020-12, A2A task progress, MCP 2024-11-05 draft-07: the general validator's `schema` nodes,
JSON Schema's integer rule) are generated as `specbind init` leaves them and held to the same
agreement on every fixture and derived case. Skipped loudly where node or tsc is absent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import typescript_agreement as agree
from conftest import run_cli
from test_any_schema import DRAFT07
from test_recursive_schemas import REPRODUCERS
from generator.targets.typescript import node as ts_node

RUNS = int(os.environ.get("SPECBIND_TS_RUNS", "10000"))
MUTANTS = int(os.environ.get("SPECBIND_TS_MUTANTS", "1000"))
SPECS = sorted(agree.SPECS)
STREAMED = [spec for spec in SPECS if agree.judges_streams(spec)]


@pytest.fixture(scope="module", autouse=True)
def toolchain() -> None:
    agree.require_toolchain()


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("typescript")


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The corpus is made once per machine (28 s for 10,000 runs): kept in the cache folder."""
    from generator.render import cache_dir

    folder = cache_dir() / "corpus"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.parametrize("spec", SPECS)
def test_package_compiles_strict_and_its_tests_pass(spec: str) -> None:
    _compiles_strict_and_its_tests_pass(agree.built(spec))


def _compiles_strict_and_its_tests_pass(built: Path) -> None:
    config = json.loads((built / "tsconfig.json").read_text())
    assert config["compilerOptions"]["strict"] is True
    assert (built / "dist" / "src" / "index.d.ts").is_file() and (built / "dist" / "src" / "index.js").is_file()
    package = json.loads((built / "package.json").read_text())
    assert package["type"] == "module" and not package.get("dependencies")
    done = subprocess.run([ts_node.node(), "--test", "dist/tests/"], cwd=built, capture_output=True, text=True)
    tail = done.stdout[-3000:]
    assert done.returncode == 0, tail + done.stderr[-3000:]
    assert "# fail 0" in tail and "# pass 0" not in tail, tail


@pytest.mark.parametrize("spec", SPECS)
def test_fixtures_and_cases_agree(spec: str, work: Path) -> None:
    result = agree.compare_documents(spec, work)
    assert result["documents"] > 100
    assert result["differences"] == [], json.dumps(result["differences"][:3], indent=1, ensure_ascii=False)


@pytest.mark.parametrize("spec", STREAMED)
def test_rule_examples_and_conformance_streams_agree(spec: str, work: Path) -> None:
    streams = list(agree.stream_examples(spec))
    assert streams
    result = agree.compare_streams(spec, streams, work)  # type: ignore[arg-type]
    assert result["differences"] == [], json.dumps(result["differences"][:2], indent=1, ensure_ascii=False)
    assert result["not_completed"] > 0 and result["findings"] > 0


# -- generated inputs (the packages' strategies) -------------------------------------------------------

GENERATED_SEEDS = int(os.environ.get("SPECBIND_TS_GENERATED_SEEDS", "3"))


@pytest.mark.parametrize("spec", SPECS)
def test_generated_documents_and_mutants_agree(spec: str, work: Path) -> None:
    """Documents and mutants of every definition from the Python package's strategies, strictly
    and leniently through both bindings: the same verdict, errors and warnings."""
    generated = list(agree.generated_documents(spec, GENERATED_SEEDS))
    result = agree.compare_documents(spec, work, generated, base=False)
    assert result["documents"] == len(generated) > 100
    assert 0 < result["accepted"] < len(generated)  # the documents pass, most mutants do not
    assert result["differences"] == [], json.dumps(result["differences"][:3], indent=1, ensure_ascii=False)


@pytest.mark.parametrize("spec", STREAMED)
def test_generated_streams_agree_and_draw_exactly_their_rule(spec: str, work: Path) -> None:
    """Conformant streams and streams breaking each rule a stream can break, from the Python
    package's strategies: both bindings' replay reports are identical, and the TypeScript one
    holds exactly the findings each stream was generated to draw. Two parties: the conversations
    the package's generated tests drive through every machine row, and random conversations
    walked from the tables (tests/conversations.py: valid documents of every kind the phases let
    through, kept when the Python automaton finds nothing), both bindings' reports identical."""
    if agree.two_party(spec):
        import conversations

        rows = agree.conversations(spec)
        result = agree.compare_streams(spec, rows, work)  # type: ignore[arg-type]
        assert result["differences"] == [], json.dumps(result["differences"][:2], indent=1, ensure_ascii=False)[:6000]
        assert len(rows) > 50 and result["findings"] > 0 and result["not_completed"] > 0  # 2026-07-28: one phase, 59 rows
        walked = conversations.conversations(agree.SPECS[spec][0], 40, seed=1, length=30)
        result = agree.compare_streams(spec, [(name, agree.jsonl(entries)) for name, entries in walked], work)  # type: ignore[misc]
        assert result["differences"] == [], json.dumps(result["differences"][:2], indent=1, ensure_ascii=False)[:6000]
        assert result["not_completed"] == 0 and result["events"] > 400  # conformant to the Python binding: to TypeScript too
        return
    generated = list(agree.generated_streams(spec, conformant=30, per_rule=2))
    result = agree.compare_streams(spec, [(name, data) for name, data, _ in generated], work)
    assert result["differences"] == [], json.dumps(result["differences"][:2], indent=1, ensure_ascii=False)[:6000]
    jobs = [{"id": name, "op": "replay", "text": data.decode("utf-8")} for name, data, _ in generated]
    reports = agree.run_batch(spec, jobs, work)
    wrong = [(name, want, agree.findings_of(reports[name])) for name, _, want in generated if agree.findings_of(reports[name]) != sorted(want)]
    assert wrong == [], wrong[:5]
    conformant = [reports[name] for name, _, want in generated if not want]
    assert len(conformant) >= 30 and all(r["outcome"] == "completed" for r in conformant)


def test_json_lines_from_node_split_at_lf_only(work: Path) -> None:
    """Regression (found by the peer hook on generated mutants): JSON.stringify leaves U+2028,
    U+0085 and the other line breaks of str.splitlines() raw in strings, and the helper reading
    the TypeScript CLI's JSON Lines (`replay|validate --target typescript` too) cut a report
    where a finding quotes an id holding one."""
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a\u2028b\x85c", "delta": "x"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    path = work / "breaks.jsonl"
    path.write_bytes(agree.jsonl(events))
    code, lines, err = ts_node.run_cli(agree.built("agui"), ["replay", str(path)])
    assert code == 1 and len(lines) == 1, (code, lines, err)
    assert lines[0]["violations"] and "a\u2028b\x85c" in json.dumps(lines[0], ensure_ascii=False)
    assert agree.verdict(lines[0]) == agree.verdict(agree.python_replay("agui", path.read_bytes()))


def test_corpus_and_mutants_agree(work: Path, corpus_dir: Path) -> None:
    corpus = agree.corpus(RUNS, corpus_dir)
    broken = agree.broken_copy(corpus, work / "broken.jsonl")
    streams: list[tuple[str, bytes | Path]] = [("corpus", corpus), ("broken corpus", broken)]
    streams += agree.mutants(corpus, MUTANTS)
    result = agree.compare_streams("agui", streams, work)
    assert result["differences"] == [], json.dumps(result["differences"][:2], indent=1, ensure_ascii=False)[:6000]
    assert result["events"] > RUNS * 100 and result["not_completed"] > MUTANTS // 2


def test_its_command_line_refuses_bad_input_without_losing_reports(tmp_path: Path) -> None:
    """Bad input to the package's own command line is exit 2 with one `error:` line, and the
    reports already written reach the reader whole (a process.exit would cut a piped stdout)."""
    built = agree.built("agui")
    sample = str(agree.REPO / "spec" / "agui" / "samples" / "valid.jsonl")
    code, lines, err = ts_node.run_cli(built, ["replay", *[sample] * 300, str(tmp_path / "gone.jsonl")])
    assert code == 2 and len(lines) == 300 and all(r["outcome"] == "completed" for r in lines)
    assert err.startswith("error: ") and "gone.jsonl: cannot be read" in err and "at " not in err
    jobs = tmp_path / "jobs.jsonl"
    jobs.write_text('{"id": 1, "op": "validate", "text": "{}"}\nnot json\n')
    code, lines, err = ts_node.run_cli(built, ["batch", str(jobs)])
    assert code == 2 and [r["id"] for r in lines] == [1] and "a job that is not JSON" in err
    for args, says in [(["replay", "--after", "x", sample], "--after"), (["validate", "--as", "Nope", sample], "no such definition"), (["frobnicate"], "unknown command")]:
        code, lines, err = ts_node.run_cli(built, args)
        assert code == 2 and lines == [] and says in err, (args, err)
    cli = subprocess.run([sys.executable, "-c", "from generator.cli import main; main()", "validate", "--target", "typescript", "--spec", "spec/agui", "--as", "Nope", sample], cwd=agree.REPO, capture_output=True, text=True)
    assert cli.returncode == 2 and 'typescript: --as "Nope": no such definition' in cli.stderr and "Traceback" not in cli.stderr


# -- real schemas, as `specbind init` leaves them (the general validator) ---------------------------

# and test_any_schema's draft-07 schema exercising the vocabulary (dependencies, if/then/else,
# multipleOf, uniqueItems, contains, tuple items...)
VENDORED = ["agent-client-protocol", "a2a-task-progress", "mcp-2024-11-05", "dependabot", "commitlintrc", "proto7", "recursive"]
FILES = {"dependabot": "dependabot-2.0"}  # a spec name whose vendored file is named otherwise
# and every recursive alias of test_recursive_schemas in one schema
RECURSIVE = {"definitions": {f"{case}-{name}": json.loads(json.dumps(node).replace("#/definitions/", f"#/definitions/{case}-"))
                             for case, schema in REPRODUCERS.items() for name, node in schema["definitions"].items()}}


@pytest.fixture(scope="module")
def vendored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every vendored schema through `specbind init` (which writes the [typescript] table too) and
    `specbind generate`, into one folder; each spec registered for the agreement."""
    import tomllib

    tmp = tmp_path_factory.mktemp("vendored")
    (tmp / "proto7.json").write_text(json.dumps(DRAFT07), encoding="utf-8")
    (tmp / "recursive.json").write_text(json.dumps(RECURSIVE), encoding="utf-8")
    for name in VENDORED:
        schema = tmp / f"{name}.json" if name in ("proto7", "recursive") else agree.REPO / "tests" / "data" / "schemas" / f"{FILES.get(name, name)}.schema.json"
        made = run_cli("init", schema, "--name", name, "--spec-dir", tmp / "spec")
        assert made.exit_code == 0, made.output
        done = run_cli("generate", "--spec", tmp / "spec" / name, "--out", tmp / "out")
        assert done.exit_code == 0, done.output
        binding = tomllib.loads((tmp / "spec" / name / "binding.toml").read_text(encoding="utf-8"))
        agree.register(name, tmp / "out", binding["python"]["package"], binding["typescript"]["package"])
    return tmp / "out"


@pytest.mark.parametrize("name", VENDORED)
def test_a_vendored_schema_compiles_strict_and_agrees(name: str, vendored: Path, work: Path) -> None:
    assert (agree.folder_of(name, 1) / "src" / "vocabulary.ts").is_file()
    _compiles_strict_and_its_tests_pass(agree.built(name))
    result = agree.compare_documents(name, work)
    assert result["documents"] > (10 if name in ("recursive", "commitlintrc") else 20) and 0 < result["accepted"] < result["documents"]
    assert result["differences"] == [], json.dumps(result["differences"][:3], indent=1, ensure_ascii=False)


FORMATS = {
    "date": ["2024-02-29", "2023-02-29", "0000-01-01", "2024-13-01", "2024-1-01", "2024-01-01\n", "２０２４-01-01"],
    "time": ["23:59:60Z", "12:00:00Z", "23:59:60+01:00", "00:59:60+01:00", "12:00:00.5+23:59", "24:00:00Z", "12:00:00+24:00", "12:00:00"],
    "date-time": ["2024-01-01T12:00:00Z", "2024-01-01t12:00:00z", "2024-01-01 12:00:00Z", "2024-01-01T12:00:00ZT"],
    "uuid": ["123e4567-e89b-12d3-a456-426614174000", "123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400g"],
    "email": ["a@b", "a b@c", "@b", "a@b@c", "é@ü"],
    "uri": ["https://x.invalid/a?b#c", "urn:isbn:1", "//x.invalid", "a b:c", "1http:x"],
    "hostname": ["example.com", "-a.com", "a-.com", "a" * 64 + ".com", "a.", "a..b", "xn--bcher-kva.example"],
    "ipv4": ["127.0.0.1", "256.0.0.1", "01.0.0.1", "1.2.3", "1.2.3.4.5", "0.0.0.0", "1.2.3.04"],
    "ipv6": ["::1", "::", "1::", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:8:9", "1::2::3", "::ffff:1.2.3.4", "fe80::1%eth0", "12345::", ":1:2", "1:2:3:4:5:6:1.2.3.4", "g::1"],
    "regex": ["^a+$", "(", "[a-z]"],
}


def test_asserted_formats_agree(tmp_path: Path, work: Path) -> None:
    """`formats = "assert"`: the general validator's format checks (ports of the reference's),
    on valid and invalid strings of every format it knows."""
    spec = tmp_path / "spec" / "formats"
    spec.mkdir(parents=True)
    schema = {"$defs": {name.replace("-", "_"): {"type": "string", "format": name} for name in FORMATS}}
    (spec / "schema.json").write_text(json.dumps(schema), encoding="utf-8")
    (spec / "binding.toml").write_text(
        '[protocol]\nname = "formats"\nversion = "1"\nschema = "schema.json"\nformats = "assert"\nintegers = "json-schema"\n\n'
        '[python]\npackage = "formats_py"\n\n[typescript]\npackage = "formats-ts"\n',
        encoding="utf-8",
    )
    done = run_cli("generate", "--spec", spec, "--out", tmp_path / "out")
    assert done.exit_code == 0, done.output
    agree.register("formats", tmp_path / "out", "formats_py", "formats-ts")
    extra = [(f"{name}:{text!r}", name.replace("-", "_"), json.dumps(text)) for name, texts in FORMATS.items() for text in texts]
    result = agree.compare_documents("formats", work, extra)
    assert 0 < result["accepted"] < result["documents"]
    assert result["differences"] == [], json.dumps(result["differences"][:3], indent=1, ensure_ascii=False)


def test_numbers_beside_tricky_strings_are_read_exactly(work: Path) -> None:
    """The TypeScript reader hands a text to JSON.parse only when no number in it needs the exact
    reader (`1.0`, 16 digits, surrogate escapes), skipping strings by their closing quote: quotes
    escaped or not, backslash runs, digits and brackets in strings must not fool it."""
    base = '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":%s,"timestamp":%s}'
    deltas = ['"x"', r'"a\"1.0"', r'"a\\"', r'"a\\\"b"', r'"1.0e5 [{"', r'"\\\\"', r'"\ud83d\ude00 2.5"', r'"tab\t\"\\"']
    stamps = ["1", "1.0", "1e3", "12345678901234567", "-0", "1.5"]
    extra = [(f"tricky:{i}-{j}", "Event", base % (d, t)) for i, d in enumerate(deltas) for j, t in enumerate(stamps)]
    extra += [("tricky:unterminated", "Event", '{"type":"TEXT_MESSAGE_CONTENT","delta":"a\\",1.0}'), ("tricky:deep-in-string", "Event", base % ('"' + "[" * 300 + '"', "1"))]
    result = agree.compare_documents("agui", work, extra, base=False)
    assert result["documents"] == len(extra) and 0 < result["accepted"] < len(extra)
    assert result["differences"] == [], json.dumps(result["differences"][:3], indent=1, ensure_ascii=False)


# (number text, whether JSON.parse reads it as the exact reader does): the boundary of the
# reader's one pass (`survey` in json.ts); the exact reader reads the others
NUMBERS = [
    ("0", True), ("-0", False), ("7", True), ("0.5", True), ("-1.25", True), ("3.141592653589793", True),
    ("0.1234567890123456", True), ("123456789012.5", True), ("2.5e-1", True), ("1.5E-3", True), ("5e-324", True),
    ("999999999999999", True), ("1234567890123456", True), ("9007199254740991", True), ("-9007199254740991", True),
    ("1.0", False), ("-0.0", False), ("1e3", False), ("1.5e1", False), ("0.99999999999999999", False),
    ("1.00000000000000001", False), ("99999999999999.999", False), ("1e400", False), ("-1e400", False), ("2e-400", False),
    ("9007199254740992", False), ("-9007199254740992", False), ("9007199254740993", False), ("12345678901234567", False),
    ("1" + "0" * 4301, False),
]


def test_json_parse_reads_only_what_it_reads_exactly(work: Path) -> None:
    """The TypeScript reader gives a text to JSON.parse where every number in it is one JSON.parse
    reads as the exact reader does (a fraction that is no integer, an integer up to 2^53 - 1) and
    to the exact reader otherwise (`1.0`, a fraction rounding to an integer, beyond a double's
    range, past 2^53 - 1): the same value both ways, at each side of the boundary; and both
    bindings give the same verdict and errors on each."""
    script = work / "numbers.mjs"
    script.write_text(
        "import { pathToFileURL } from 'node:url';\n"
        "const J = await import(pathToFileURL(process.argv[2]).href);\n"
        "const show = (v) => typeof v === 'string' ? JSON.stringify(v) : typeof v === 'bigint' ? `B${v}` : v instanceof J.PyFloat ? `F${Object.is(v.value, -0) ? '-0' : v.value}`\n"
        "  : v instanceof J.Refused ? `R${v.message}` : Array.isArray(v) ? `[${v.map(show).join(',')}]`\n"
        "  : v !== null && typeof v === 'object' ? `{${J.keysOf(v).map((k) => k + ':' + show(v[k])).join(',')}}` : Object.is(v, -0) ? 'N-0' : `N${v}`;\n"
        "const out = {};\n"
        "for (const n of JSON.parse(process.argv[3])) {\n"
        "  const text = `{\"a\":\"1.0 ${n}\",\"n\":[${n}],\"b\":1}`;\n"
        "  let got;\n"
        "  try { got = show(J.parseText(text)); } catch (e) { got = 'error ' + e.message; }\n"
        "  let want;\n"
        "  try { const r = J.exactParse(text); want = r.unreadable ? 'unreadable' : show(r.value); } catch (e) { want = 'error ' + e.message; }\n"
        "  out[n] = { plain: !J.wasExact(), same: got === want || want === 'unreadable' };\n"
        "}\n"
        "const C = await import(pathToFileURL(process.argv[2].replace(/json\\.js$/, 'index.js')).href);\n"
        "out.decoded = JSON.parse(process.argv[4]).map((t) => show(C.decode(t, 'RawEvent')));\n"
        "console.log(JSON.stringify(out));\n",
        encoding="utf-8",
    )
    texts = [n for n, _ in NUMBERS]
    # decoded: every integer-valued float a number again, a member given twice its last value
    raws = ['{"type":"RAW","event":{"a":1.0,"a":2.5,"b":[1.0,{"c":-0.0,"d":3e0}],"1":1e1}}', '{"type":"RAW","event":[1.0,2.0,"1.0",9007199254740993]}']
    done = subprocess.run(["node", str(script), str(agree.built("agui") / "dist" / "src" / "json.js"), json.dumps(texts), json.dumps(raws)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found.pop("decoded") == ['{type:"RAW",event:{a:N2.5,b:[N1,{c:N-0,d:N3}],1:N10}}', '{type:"RAW",event:[N1,N2,"1.0",B9007199254740993]}']
    assert {n: found[n]["plain"] for n in texts} == dict(NUMBERS)
    assert [n for n in texts if not found[n]["same"]] == []
    base = '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"1.0","timestamp":%s}'
    extra = [(f"number:{n[:30]}", "Event", base % n) for n in texts] + [(f"number-in-array:{n[:30]}", "Event", '{"type":"RAW","event":[%s]}' % n) for n in texts]
    result = agree.compare_documents("agui", work, extra, base=False)
    assert 0 < result["accepted"] < len(extra)
    assert result["differences"] == [], json.dumps(result["differences"][:3], indent=1, ensure_ascii=False)


def _held(*probes: str) -> dict[str, int]:
    """tests/held_probe.mjs on the AG-UI package: the heap's growth (bytes, after collections) left
    by each probe's decode of a large document (100,000 items), what it keeps apart. One process
    per probe: a document the module held until the next read would be let go by the next probe."""
    index = agree.built("agui") / "dist" / "src" / "index.js"
    found: dict[str, int] = {}
    for probe in probes:
        done = subprocess.run(["node", "--expose-gc", str(Path(__file__).with_name("held_probe.mjs")), str(index), "100000", probe], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        one = json.loads(done.stdout)
        assert one["text"] > 4_000_000 and set(one) == {"text", probe}, one
        found[probe] = one[probe]
    return found


def test_a_document_read_exactly_is_not_held_after_the_decode() -> None:
    """The exact reader's last document (kept so that a strict decode can hand it back with its
    integer-valued floats made numbers in place) is let go by a decode that refuses it or copies
    it: after a refused strict decode and after a lenient one of 100,000 floats read exactly, a
    collection leaves the heap where it was (before de51a91 the module held the document: 6.3 MB
    after either). The 2.4 MB this test once saw after the lenient decode (200,000 floats) was
    its own script's top-level frame holding the text and the decoded value, not the package
    (held_probe.mjs decodes in a function: under 64 KB is left now, either way)."""
    found = _held("refused_document", "lenient_document", "automaton_document")
    assert found["refused_document"] < 256_000 and found["lenient_document"] < 256_000, found
    # nor by an automaton fed the document (it held 6 MB until the next exact read)
    assert found["automaton_document"] < 256_000, found


def test_a_string_kept_from_a_document_holds_only_itself() -> None:
    """A string kept from a document read exactly holds its own characters, not the document:
    V8 makes a substring of 13 characters or more a view into the text it was cut from (a 46-
    character value kept from an 18 MB document kept all 18 MB). A value, one with an escape, one
    through a lenient decode, a member name, the names of an object kept in document order, the
    message of a refused number and `memberScalar`'s string (what an event that does not decode
    still says about itself) each leave under 256 KB of a 4.4 MB text (each held all of it before,
    but member names: the object keeps V8's own copy; and `memberScalar`'s number pattern kept
    its last text too). Likewise the ids of an automaton's finding about a 4.4 MB id: the 200
    characters it quotes, not the id (4.4 MB held before)."""
    found = _held("value", "escaped", "lenient_value", "member_name", "ordered_names", "refused_message", "member_scalar", "finding_ids")
    assert {k: v for k, v in found.items() if v >= 256_000} == {}, found


def test_the_keys_of_refused_lines_hold_only_themselves() -> None:
    """An automaton past its findings cap remembers the refused lines it counts (up to 4,096 of
    up to 256 characters) by a key: one made of the line replay cut from the text it read was a
    view of that text, so 20 refused lines of a 5.3 MB text held all of it (5,317,240 bytes) for
    as long as the automaton lived; the key is a copy now (~30 KB)."""
    found = _held("refusal_keys")
    assert found["refusal_keys"] < 256_000, found


def test_a_document_of_wrong_items_costs_their_checking_not_their_explanations(work: Path) -> None:
    """Past the error cap an error is counted before its message is made, and an array whose items
    the check leaves as they are is not copied: a MESSAGES_SNAPSHOT of 100,000 numbers (none a
    message; bench_hostile.py's `bad_numbers` at a fifth of its size) allocates under 200 bytes an
    item through a strict or a lenient decode, its reading included (about 67 now; 500 before:
    every item's message, its schema location, and a copy of the array, which made V8's peak on
    the full shape 56 MB against the Python binding's 10 MB). Node is given a young generation
    large enough that nothing is collected during the decode, so the heap's growth is what the
    decode allocated."""
    script = work / "allocated.mjs"
    script.write_text(
        "import { pathToFileURL } from 'node:url';\n"
        "const C = await import(pathToFileURL(process.argv[2]).href);\n"
        "const text = `{\"type\":\"MESSAGES_SNAPSHOT\",\"messages\":[${Array(100000).fill('1').join(',')}]}`;\n"
        "const refused = (decode) => { try { decode(text); } catch (e) { if (e instanceof C.DecodeError) return e; throw e; } throw new Error('accepted'); };\n"
        "const out = {};\n"
        "for (const [name, decode] of [['strict', C.decode], ['lenient', C.decodeLenient]]) {\n"
        "  refused(decode); globalThis.gc();\n"
        "  const before = process.memoryUsage().heapUsed;\n"
        "  const e = refused(decode);\n"
        "  out[name] = { allocated: process.memoryUsage().heapUsed - before, count: e.count, listed: e.errors.length };\n"
        "}\n"
        "console.log(JSON.stringify(out));\n",
        encoding="utf-8",
    )
    index = agree.built("agui") / "dist" / "src" / "index.js"
    command = ["node", "--expose-gc", "--min-semi-space-size=64", "--max-semi-space-size=64", str(script), str(index)]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    for name in ("strict", "lenient"):
        assert found[name]["count"] == 100_000 and found[name]["listed"] == 100, found
        assert found[name]["allocated"] < 200 * 100_000, found
