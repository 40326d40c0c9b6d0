"""The two bindings equal on hostile input (issue 22): one reproducer for each cause the
differential fuzzer found, each through both bindings (replay and validate, as the command line
runs them: `batch` in one Node process per spec), each answer compared whole (notes included)
and held to what the one rule says. Each failed on the commit before its fix (the bindings
disagreed, or Python crashed); fuzz/differential.py is the standing search for more.

1. one reading of a document for the fast path and the codec (their limits: depth, numbers,
   UTF-8 in skipped members); 2. one sniffing rule (the first line's grammar); 3., 4. a JSON
   text's items read by one scanner (a lone surrogate in an item is that item's; a text that is
   not UTF-8 is not JSON); 5. one reading of what an undecodable event says of its sequence,
   exact past 2^53; 6. one integer-size rule; 7. one escaping rule for text in messages; 8.
   member order as in the document; 9. code point order; 10. test-case detection by the codec;
   11. `__proto__` a member like any other; 12. one rule for a JSON text that is a scalar."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import typescript_agreement as agree
from generator.targets.typescript import node as ts_node

AG_START = b'{"type":"RUN_STARTED","threadId":"t","runId":"r"}'
AG_END = b'{"type":"RUN_FINISHED","threadId":"t","runId":"r"}'


def hr(seq: int | str, type_: str = "run.queued", data: bytes = b'{"providerId":"p1"}', extra: bytes = b"") -> bytes:
    """A Harness event of execution e1."""
    return (b'{"id":"e1-ev%s","executionId":"e1","sequence":%s,"type":"%s","time":"2026-09-02T10:00:01Z","data":%s%s}'
            % (str(seq).encode(), str(seq).encode(), type_.encode(), data, extra))


MCP_OPEN = (
    b'{"from":"client","message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}',
    b'{"from":"server","message":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}',
    b'{"from":"client","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}',
)


def mcp(*entries: bytes) -> bytes:
    """An MCP 2025-11-25 transcript: the handshake, then `entries` ({"from", "message"} lines)."""
    return lines(*MCP_OPEN, *entries)


def lines(*docs: bytes) -> bytes:
    return b"".join(d + b"\n" for d in docs)


def rules(report: dict[str, Any]) -> list[tuple[str, int | None]]:
    return [(f["rule"], f["index"]) for f in report["violations"] + report["warnings"]]


def messages(report: dict[str, Any]) -> str:
    return "\n".join(f["message"] for f in report["violations"] + report["warnings"])


# (name, spec, job, input, what the one rule says of the Python answer)
Case = tuple[str, str, dict[str, Any], bytes, Callable[[dict[str, Any]], bool]]
REPLAY = {"op": "replay", "format": "auto", "after": None}
STRICT = {"op": "validate", "lenient": False}

CASES: list[Case] = [
    # 1. the fast path had the codec's reading without its limits
    ("1-deep-custom-value", "agui", REPLAY,
     lines(AG_START, b'{"type":"CUSTOM","name":"x","value":' + b"[" * 130 + b"]" * 130 + b"}", AG_END),
     lambda r: ("EVENT-DECODE", 1) in rules(r) and "nested deeper than 128" in messages(r)),
    ("1-unknown-member-1e400", "harness-runtime", REPLAY, lines(hr(1, extra=b',"zz":1e400')),
     lambda r: ("HR-EVENT-DECODE", 0) in rules(r) and "out of the range of a double" in messages(r)),
    ("1-member-name-not-utf8", "harness-runtime", REPLAY, lines(hr(1, extra=b',"\xff":1')),
     lambda r: ("HR-EVENT-DECODE", 0) in rules(r) and "not UTF-8" in messages(r)),
    ("1-unknown-member-5000-digits", "harness-runtime", REPLAY, lines(hr(1, extra=b',"zz":' + b"1" * 5000)),
     lambda r: ("HR-EVENT-DECODE", 0) in rules(r) and "beyond the limit of 4300" in messages(r)),
    # 2. the first line's grammar decides, not what one parser or another refuses
    *[(f"2-sniff-{name}", "agui", REPLAY, lines(AG_START[:-1] + b',"zz":' + bad + b"}", AG_END),
       lambda r: r["format"] == "jsonl" and r["events"] == 2 and ("EVENT-DECODE", 0) in rules(r))
      for name, bad in (("1e400", b"1e400"), ("not-utf8", b'"\xff"'), ("lone-surrogate", b'"\\ud800"'), ("4301-digits", b"1" * 4301))],
    # 3. a lone surrogate in a JSON array is its item's
    ("3-lone-surrogate-in-array", "agui", REPLAY,
     b"[" + AG_START + b',{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"},'
     b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\\ud800"},{"type":"TEXT_MESSAGE_END","messageId":"m"},' + AG_END + b"]",
     lambda r: r["format"] == "json" and r["events"] == 5 and ("EVENT-DECODE", 2) in rules(r) and "lone surrogate" in messages(r)),
    ("3-lone-surrogate-in-a-line", "agui", REPLAY,
     lines(AG_START, b'{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}',
           b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a\\udc00"}', b'{"type":"TEXT_MESSAGE_END","messageId":"m"}', AG_END),
     lambda r: ("EVENT-DECODE", 2) in rules(r) and "lone surrogate" in messages(r)),
    # 4. a JSON text that is not UTF-8 is not one JSON document (RFC 8259 section 8.1)
    ("4-json-not-utf8", "agui", REPLAY,
     b"[" + AG_START + b',{"type":"CUSTOM","name":"\xff","value":1},' + AG_END + b"]",
     lambda r: r["events"] == 1 and any(n.startswith("not one JSON document: not UTF-8 at byte") for n in r["notes"])),
    # 5. an undecodable event's sequence still counts (no gap after it), exactly past 2^53
    ("5-undecodable-then-next", "harness-runtime", REPLAY,
     lines(hr(1), hr(2, "run.started", extra=b',"zz":1e400'), hr(3, "run.started")),
     lambda r: ("HR-EVENT-DECODE", 1) in rules(r) and not any(rule == "HR-SEQUENCE-GAP" for rule, _ in rules(r))),
    ("5-past-2-53", "harness-runtime", REPLAY,
     lines(hr(9007199254740993), hr(3, "run.started")),
     lambda r: "sequence 3 where 9007199254740994 was next" in messages(r)),
    # 6. one integer-size rule: 900 digits are written (the boundary), 901 are counted exactly
    ("6-900-digits", "agui", STRICT, b'{"type":' + b"9" * 900 + b"}",
     lambda r: ("type " + "9" * 900 + " is not one of") in r["errors"][0]["message"]),
    ("6-901-digits", "agui", STRICT, b'{"type":1' + b"0" * 900 + b"}",
     lambda r: r["errors"][0]["message"].startswith("type an integer of 901 digits is not one of")),
    # 7. one escaping rule: U+2B739 (unassigned in Unicode 14) as itself, U+2028 escaped
    ("7-escaping", "agui", REPLAY, lines(AG_START, '{"type":"\U0002b739\u2028"}'.encode(), AG_END),
     lambda r: "unknown type '\U0002b739\\u2028' stripped" in messages(r)),
    # 8. member order as in the document: errors, and the sequence stage's "the same event"
    ("8-error-order", "agui", STRICT, AG_START[:-1] + b',"b":1,"0":2,"a":3}',
     lambda r: [e["message"] for e in r["errors"]] == ["unknown property 'b'", "unknown property '0'", "unknown property 'a'"]),
    # ... and "the same event again" is the same JSON value, its members in any order (a
    # redelivery another encoder re-serialised), nested too; a changed value is a conflict
    ("8-redelivery-reordered", "harness-runtime", REPLAY,
     lines(hr(1), hr(2, "provider.event", b'{"b":1,"0":2,"c":{"y":[{"q":1,"p":2}],"x":1}}'),
           b'{"data":{"c":{"x":1,"y":[{"p":2,"q":1}]},"0":2,"b":1},"time":"2026-09-02T10:00:01Z","type":"provider.event","sequence":2,"executionId":"e1","id":"e1-ev2"}'),
     lambda r: r["events"] == 3 and not any("SEQUENCE" in rule for rule, _ in rules(r))),
    # ... a number by its value: 1 and 1.0, 0 and -0.0, 100 and 1e2, 10^21 and 1e21 alike
    # (the bindings disagreed: Python's digest kept the float's spelling, TypeScript wrote
    # 1e21 as 1e+21 beside a bigint's digits); 2^53 + 1 and 2^53 + 1.0 (a double: 2^53) differ
    ("redelivery-numbers-by-value", "harness-runtime", REPLAY,
     lines(hr(1), hr(2, "provider.event", b'{"a":1,"b":[0,100],"c":1000000000000000000000,"d":2.5}'),
           hr(2, "provider.event", b'{"a":1.0,"b":[-0.0,1e2],"c":1e21,"d":25e-1}'),
           hr(3, "provider.event", b'{"a":9007199254740993}'), hr(3, "provider.event", b'{"a":9007199254740993.0}')),
     lambda r: [(rule, i) for rule, i in rules(r) if "SEQUENCE" in rule] == [("HR-SEQUENCE-CONFLICT", 4)]),
    ("8-redelivery-changed", "harness-runtime", REPLAY,
     lines(hr(1), hr(2, "provider.event", b'{"b":1,"0":2,"c":[1,2]}'), hr(2, "provider.event", b'{"0":2,"b":1,"c":[2,1]}')),
     lambda r: [rule for rule, _ in rules(r) if "SEQUENCE" in rule] == ["HR-SEQUENCE-CONFLICT"]),
    ("8-order-in-retired-translation", "agui", REPLAY,
     lines(AG_START, b'{"type":"THINKING_START","b":1,"0":2}', AG_END),
     lambda r: [m for m in messages(r).splitlines() if "unknown property" in m]
     == ["/b: unknown property 'b' stripped [unevaluatedProperties, ReasoningStartEvent]",
         "/0: unknown property '0' stripped [unevaluatedProperties, ReasoningStartEvent]"]),
    # 9. code point order wherever a list is sorted
    ("9-code-point-order", "agui", REPLAY,
     b'{"stream":[' + AG_START + b"," + AG_END + b'],"\\uffff":1,"\\ud83d\\ude00":2}',
     lambda r: "(its \uffff, \U0001f600 not checked)" in " ".join(r["notes"])),
    # 10. a test case is told from an event by the codec: 1.0 is no sequence
    ("10-case-not-event", "harness-runtime", REPLAY,
     hr("1.0", extra=b',"stream":[' + hr(1) + b"]"),
     lambda r: any(n.startswith("a test case: its stream of 1 events") for n in r["notes"])),
    # 1. (found by the long differential run) a retired shape is read as the codec reads it: a
    # member given twice whose first value the codec never keeps (-1e400, a lone surrogate)
    ("1-retired-shape-read-as-the-codec-reads-it", "agui", REPLAY,
     lines(b'{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"x","messageId":-1e400,"messageId":"m"}',
           b'{"type":"\\ud800","type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"y","messageId":"m"}'),
     lambda r: [rule for rule, i in rules(r) if i == 0 or i == 1].count("EVENT-RETIRED") == 2),
    # 11. __proto__ is a member like any other, in a retired shape's translation too
    ("11-proto-in-retired", "agui", REPLAY,
     lines(AG_START, b'{"type":"THINKING_START","__proto__":{"polluted":1}}', AG_END),
     lambda r: "/__proto__: unknown property '__proto__' stripped" in messages(r)),
    # 12. a JSON text that is a scalar, or not JSON at all, is read by the same rule
    ("12-colon-as-json", "agui", {**REPLAY, "format": "json"}, b":",
     lambda r: "not one JSON document: invalid JSON at line 1 column 1: Expecting value" in r["notes"]),
    # MCP transcripts (two parties; found by the differential run once their rules landed):
    # a transcript line is read as the codec reads a document, whole: Python read the message's
    # bytes unchecked and crashed (DecodeError, ValidationError) on invalid UTF-8, 1e400 or an
    # integer past the digits limit inside it, or judged the message where TypeScript refused
    # the line
    *[(f"mcp-line-read-whole-{name}", "mcp", REPLAY,
       mcp(b'{"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"x":' + bad + b"}}}}"),
       lambda r, why=why: [(f["rule"], f["index"]) for f in r["violations"]] == [("MSG-JSONRPC", 3)]
       and "not a transcript entry: " in messages(r) and why in messages(r))
      for name, bad, why in (("not-utf8", b'"\xff"', "not UTF-8"), ("1e400", b"1e400", "out of the range of a double"),
                             ("4301-digits", b"1" * 4301, "beyond the limit of 4300"))],
    # ... as the codec reads it: of a member given twice the last (found by the long run: a
    # first "from" holding a lone surrogate crashed Python, whose reader of the members refused
    # what the codec never keeps)
    ("mcp-line-member-given-twice", "mcp", REPLAY,
     lines(b'{"from":"\\ud800","from":"client","message":' + MCP_OPEN[0][27:-1] + b"}", *MCP_OPEN[1:],
           b'{"message":{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"\\udc00"}},"from":"server","message":{"jsonrpc":"2.0","id":1,"method":"ping"}}',
           b'{"from":"client","message":{"jsonrpc":"2.0","id":1,"result":{}}}'),
     lambda r: r["outcome"] == "completed" and not r["violations"] and r["events"] == 5),
    # ids are exact in both (TypeScript read 2^53 + 1 as 2^53 and 10^903 as inf) and written by
    # the one integer-size rule (Python wrote all 904 digits); an integer written 1e21 is the id
    # 1000000000000000000000
    ("mcp-ids-exact", "mcp", REPLAY,
     mcp(b'{"from":"client","message":{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}}',
         b'{"from":"server","message":{"jsonrpc":"2.0","id":9007199254740992,"result":{}}}',
         b'{"from":"client","message":{"jsonrpc":"2.0","id":1' + b"0" * 903 + b',"method":"ping"}}',
         b'{"from":"client","message":{"jsonrpc":"2.0","id":1000000000000000000000,"method":"ping"}}',
         b'{"from":"server","message":{"jsonrpc":"2.0","id":1e21,"result":{}}}'),
     lambda r: "a result from server with id 9007199254740992, which names no request client sent" in messages(r)
     and "client's ping request 9007199254740993 (message 3) is never answered" in messages(r)
     and "client's ping request an integer of 904 digits (message 5) is never answered" in messages(r)
     and "1000000000000000000000" not in messages(r)),
    # progress compares exactly past 2^53 (TypeScript compared doubles)
    ("mcp-progress-exact", "mcp", REPLAY,
     mcp(b'{"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w","_meta":{"progressToken":"p"}}}}',
         *[b'{"from":"server","message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":%s}}}' % v
           for v in (b"9007199254740992", b"9007199254740993", b"9007199254740993.0")],
         b'{"from":"server","message":{"jsonrpc":"2.0","id":1,"result":{"content":[]}}}'),
     lambda r: [(f["rule"], f["index"]) for f in r["violations"]] == [("PROGRESS-RISING", 6)]
     and "progress 9007199254740992.0 does not exceed 9007199254740993" in messages(r)),
    # the readings (issue 22 item 3): Harness, a type StandardEventType does not name fails the
    # stream (MUST), it is not stripped; AG-UI, an unrecognised member of a closed string set is
    # stripped with a warning (basic/processing.mdx), and the event goes on without it
    ("reading-harness-unknown-type", "harness-runtime", REPLAY,
     lines(hr(1), hr(2, "run.started"), hr(3, "checkpoint.created", b"{}"), hr(4, "run.completed", b'{"finalOutput":"x"}')),
     lambda r: r["outcome"] == "failed" and ("HR-EVENT-DECODE", 2) in rules(r) and 'type "checkpoint.created" is not one of' in messages(r)
     and all(f["level"] != "SHOULD" or f["index"] != 2 for f in r["warnings"])),
    ("reading-agui-role-narrator", "agui", REPLAY,
     lines(AG_START, b'{"type":"TEXT_MESSAGE_START","messageId":"m","role":"narrator"}',
           b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}', b'{"type":"TEXT_MESSAGE_END","messageId":"m"}', AG_END),
     lambda r: r["outcome"] == "completed" and rules(r) == [("EVENT-UNKNOWN-STRIPPED", 1)]
     and "/role: unknown value 'narrator' stripped" in messages(r)),
    ("reading-agui-chunk-role-tool", "agui", REPLAY,
     lines(AG_START, b'{"type":"TEXT_MESSAGE_CHUNK","messageId":"m","role":"tool","delta":"hi"}', AG_END),
     lambda r: r["outcome"] == "completed" and rules(r) == [("EVENT-UNKNOWN-STRIPPED", 1)]),
    ("reading-agui-role-strict", "agui", STRICT, b'{"type":"TEXT_MESSAGE_START","messageId":"m","role":"narrator"}',
     lambda r: not r["valid"] and r["errors"][0]["keyword"] == "enum"),
    # the crash: a JSON array nested 1,000 deep is one event too deep, not a RecursionError
    ("crash-deep-array", "agui", REPLAY, b"[" * 1000 + b"]" * 1000,
     lambda r: r["events"] == 1 and "nested deeper than 128" in messages(r)),
]


@pytest.fixture(scope="module", autouse=True)
def toolchain() -> None:
    agree.require_toolchain()


def python_answer(spec: str, job: dict[str, Any], data: bytes) -> dict[str, Any]:
    package = agree.python_package(spec)
    if job["op"] == "replay":
        module = __import__(f"{agree.SPECS[spec][0]}.replay", fromlist=["replay"])
        return json.loads(json.dumps(module.replay(data, fmt=job["format"], after=job["after"]), default=str))
    try:
        if job["lenient"]:
            result = package.codec_json.decode_lenient(data)
            answer = {"valid": True, "errors": [], "warnings": [w.as_dict() for w in result.warnings]}
            return {**answer, "dropped": True} if result.dropped else answer
        package.codec_json.decode(data)
        return {"valid": True, "errors": [], "warnings": []}
    except package.DecodeError as exc:
        return {"valid": False, "errors": [e.as_dict() for e in exc.errors], "warnings": [w.as_dict() for w in exc.warnings]}


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """name -> (Python's answer, TypeScript's answer)."""
    folder = tmp_path_factory.mktemp("hostile")
    out: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    for spec in agree.SPECS:
        mine = [c for c in CASES if c[1] == spec]
        jobs = []
        for name, _, job, data, _ in mine:
            path = folder / f"{name}.bin"
            path.write_bytes(data)
            jobs.append({"id": name, **job, "path": str(path)})
        theirs = agree.run_batch(spec, jobs, folder)
        for name, _, job, data, _ in mine:
            try:
                out[name] = (python_answer(spec, job, data), theirs[name])
            except Exception as exc:  # noqa: BLE001 - a crash is that case's failure, not the others'
                out[name] = ({"crash": repr(exc)}, theirs[name])
    return out


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_both_bindings_give_the_answer_the_rule_gives(case: Case, answers: dict[str, tuple[dict[str, Any], dict[str, Any]]]) -> None:
    name, _, _, _, rule = case
    python, typescript = answers[name]
    assert python == typescript
    assert rule(python), json.dumps(python, ensure_ascii=False)[:2000]


def test_replay_json_survives_a_deep_array_beside_other_files(tmp_path: Path) -> None:
    """`replay --json` on a JSON array nested 1,000 deep exited 70 (RecursionError) and lost the
    other files' reports: each file has its report, exit 1, in both bindings."""
    deep = tmp_path / "deep.json"
    deep.write_bytes(b"[" * 1000 + b"]" * 1000)
    ok = tmp_path / "ok.jsonl"
    ok.write_bytes(lines(AG_START, AG_END))
    specbind = Path(sys.executable).parent / "specbind"
    for target in ([], ["--target", "typescript"]):
        done = subprocess.run([str(specbind), "replay", "--spec", "spec/agui", "--json", *target, str(ok), str(deep)], cwd=agree.REPO, capture_output=True, text=True)
        assert done.returncode == 1, done.stderr
        reports = [json.loads(line) for line in done.stdout.splitlines()]
        assert [r.get("outcome") for r in reports[:2]] == ["completed", "unrecognized"]
        assert reports[2]["files"] == 2


def test_the_escaping_rule_is_one_table_in_both_bindings() -> None:
    """Text in messages is escaped by a table of code points, the same in both bindings and
    independent of either interpreter's Unicode version: every code point, through both."""
    import re

    sys.path.insert(0, str(agree.GENERATED))
    from agui import shown

    def plain(c: int) -> bool:
        return shown.quote(chr(c)) == "'" + chr(c) + "'"

    escaped_py = [c for c in range(0x110000) if not plain(c)]
    script = (
        "import { pyRepr } from './dist/src/json.js';"
        "const out = [];"
        "for (let c = 0; c < 0x110000; c++) { const ch = String.fromCodePoint(c); if (pyRepr(ch) !== \"'\" + ch + \"'\") out.push(c); }"
        "console.log(JSON.stringify(out));"
    )
    done = subprocess.run([ts_node.node(), "--input-type=module", "-e", script], cwd=agree.built("agui"), capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == escaped_py
    assert 0x2B739 not in escaped_py and 0x2028 in escaped_py and 0xD800 in escaped_py
    source = (agree.folder_of("agui", 1) / "src" / "json.ts").read_text(encoding="utf-8")
    assert re.search(r"export const ESCAPED", source)


def test_the_corpus_fixture_the_reading_contradicts_is_an_override_with_its_reason() -> None:
    """unknown-enum-value-role-fatal asserts the reference client's admitted gap; this binding's
    lane overrides its expectation (binding.toml [[conformance_override]]), keeping the corpus's
    beside the reason, and the generated conformance tests hold it to the override."""
    for which in (0, 1):
        corpus = json.loads((agree.folder_of("agui", which) / "tests" / "conformance.json").read_text(encoding="utf-8"))
        fixture = next(s for s in corpus["streams"] if s["name"] == "unknown-enum-value-role-fatal")
        assert fixture["corpusExpect"] == {"outcome": "failed", "errorContains": "role"}
        assert fixture["expect"]["outcome"] == "completed" and "errorContains" not in fixture["expect"]
        assert "processing.mdx" in fixture["override"]["intentional"] and fixture["override"]["drop"] == ["errorContains"]
        others = [s for s in corpus["streams"] if s["name"] != "unknown-enum-value-role-fatal"]
        assert others and not any("override" in s for s in others)


@pytest.mark.parametrize(
    ("override", "says"),
    [
        ('fixture = "unknown-enum-value-role-fatal"\ndrop = ["errorContains"]', "needs `fixture` and `intentional`"),
        ('fixture = "unknown-enum-value-role-fatal"\nintentional = "why"', "`expect` (a table: the keys it replaces) and/or `drop`"),
        ('fixture = "unknown-enum-value-role-fatl"\nintentional = "why"\ndrop = ["errorContains"]', "names no fixture: 'unknown-enum-value-role-fatl'"),
        ('fixture = "unknown-enum-value-role-fatal"\nintentional = "why"\ndrop = ["errorContain"]', "drops keys its expect has not: ['errorContain']"),
    ],
    ids=["no-reason", "nothing-overridden", "misspelt-fixture", "misspelt-key"],
)
def test_a_conformance_override_is_never_silently_ignored(tmp_path: Path, override: str, says: str) -> None:
    """An override without its reason, overriding nothing, naming a fixture the corpus has not
    or a key its expect has not is a located spec error (exit 2, one line), not a skip."""
    import shutil

    from conftest import run_cli

    spec = tmp_path / "agui"
    shutil.copytree(agree.REPO / "spec" / "agui", spec)
    binding = spec / "binding.toml"
    text = binding.read_text(encoding="utf-8")
    start = text.index("[[conformance_override]]")
    end = text.index("\n\n", start)
    binding.write_text(text[:start] + "[[conformance_override]]\n" + override + text[end:], encoding="utf-8")
    result = run_cli("check", "--spec", spec, "--out", tmp_path / "out")
    assert result.exit_code == 2, result.output
    assert says in str(result.stderr) and "binding.toml" in str(result.stderr) and "Traceback" not in str(result.stderr)
