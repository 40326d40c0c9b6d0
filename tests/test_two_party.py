"""Protocols of two parties (issue 20): the rules DSL's parties, envelope, results typed by their
request, facts, exchanges and references, on Courier (tests/data/courier), a toy request/response
protocol whose names are unlike any real one's (ref, op, ok, fault; caller and callee). It
generates and passes its own generated tests, its transcripts are judged by `specbind replay`,
and every mistake in its rules file stops lint with file:line:column."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from generator.binding import load_binding
from generator.errors import SpecError
from generator.products import load_ir
from generator.rules.load import load_rules

from conftest import REPO, run_cli, run_package_tests

COURIER = REPO / "tests" / "data" / "courier"
RULES = (COURIER / "courier.rules").read_text(encoding="utf-8")


def entry(sender: str, **message: Any) -> dict[str, Any]:
    return {"from": sender, "message": {"v": "1", **message}}


GREETING = [
    entry("caller", ref=1, op="hello", params={"edition": "1", "features": {}}),
    entry("callee", ref=1, ok={"edition": "1", "features": {"tickets": {}}}),
    entry("caller", op="ready"),
]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("courier")
    result = run_cli("generate", "--spec", COURIER, "--out", out)
    assert result.exit_code == 0, result.output
    return out


def transcript(tmp_path: Path, entries: list[Any], name: str = "t.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return path


def replay(generated: Path, *args: Any) -> tuple[int, Any]:
    result = run_cli("replay", "--spec", COURIER, "--out", generated, "--json", *args)
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    return result.exit_code, lines[0] if len(lines) == 1 else lines


def test_it_generates_and_passes_its_own_tests(generated: Path) -> None:
    proc = run_package_tests(generated, "courier")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    summary = proc.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary, summary
    rules_md = (generated / "courier" / "RULES.md").read_text()
    assert "C-MISTYPED" in rules_md and "### machine session" in rules_md


def test_a_conversation_is_judged_with_its_own_names(generated: Path, tmp_path: Path) -> None:
    good = GREETING + [
        entry("caller", ref=2, op="fetch", params={"name": "a", "ticket": {}, "meta": {"tickToken": 7}}),
        entry("callee", op="tick", params={"token": 7, "n": 0.5}),
        entry("callee", ref=2, ok={"ticket": {"id": "k", "state": "running"}}),
        entry("callee", op="tick", params={"token": 7, "n": 1}),  # a ticket keeps its request tracked
        entry("caller", ref="p", op="probe"),
        entry("callee", ref="p", ok={}),
    ]
    code, report = replay(generated, transcript(tmp_path, good))
    assert code == 0, report
    assert report["outcome"] == "completed" and report["events"] == len(good)
    assert report["types"]["callee fetch:ticket"] == 1 and report["types"]["callee tick"] == 2
    assert report["violations"] == [] and report["warnings"] == []


def test_a_result_is_typed_by_its_request_and_the_finding_names_both(generated: Path, tmp_path: Path) -> None:
    bad = GREETING + [
        entry("caller", ref=2, op="fetch", params={"name": "a"}),
        entry("callee", ref=2, ok={"answer": "yes"}),  # what an ask is answered with
    ]
    code, report = replay(generated, transcript(tmp_path, bad))
    assert code == 1
    (finding,) = report["violations"]
    assert finding["rule"] == "C-MISTYPED" and finding["line"] == 5 and finding["type"] == "callee fetch:result"
    assert "is not a FetchReply" in finding["message"] and "it is a AskReply (the result of ask)" in finding["message"]


def test_correlation_slips_each_draw_their_rule(generated: Path, tmp_path: Path) -> None:
    bad = GREETING + [
        entry("callee", ref=9, ok={}),  # answers no request
        entry("caller", ref=2, op="probe"),
        entry("caller", ref=2, op="probe"),  # id reused while outstanding
        entry("callee", ref=2, ok={}),
        entry("callee", ref=2, ok={}),  # a second answer
        entry("caller", ref=3, op="probe"),  # never answered
    ]
    code, report = replay(generated, transcript(tmp_path, bad))
    assert code == 1
    found = [(f["rule"], f["index"]) for f in report["violations"] + report["warnings"]]
    assert sorted(found) == sorted([("C-UNKNOWN", 3), ("C-REUSED", 5), ("C-AGAIN", 7), ("C-OPEN", 8)])  # the end is the last message


def test_capability_gates_name_the_declaration_they_relied_on(generated: Path, tmp_path: Path) -> None:
    bad = GREETING + [entry("callee", op="changed")]
    code, report = replay(generated, transcript(tmp_path, bad))
    (finding,) = report["violations"]
    assert finding["rule"] == "C-NEWS-GATE" and "callee-features declared at message 1" in finding["message"]


def test_bad_transcript_lines_are_findings_with_their_lines(generated: Path, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    lines = [json.dumps(e) for e in GREETING] + ["[1, 2]", '{"message": {}}', '{"from": "stranger", "message": {}}', "{not json", '{"from": "caller", "message": []}', '{"from": "callee", "raw": "log: started"}']
    path.write_text("\n".join(lines) + "\n")
    code, report = replay(generated, path)
    assert code == 1
    rows = [(f["rule"], f["line"]) for f in report["violations"]]
    assert rows == [("C-DECODE", n) for n in range(4, 10)]
    assert "invalid JSON at line 1 column 1" in report["violations"][5]["message"]  # a raw line is judged as its text
    assert "neither caller nor callee" in report["violations"][2]["message"]
    assert 'it has no "from"' in report["violations"][1]["message"]


def test_several_transcripts_sarif_and_jobs(generated: Path, tmp_path: Path) -> None:
    good = transcript(tmp_path, GREETING, "good.jsonl")
    bad = transcript(tmp_path, GREETING + [entry("callee", ref=5, ok={})], "bad.jsonl")
    sarif = tmp_path / "out.sarif"
    result = run_cli("replay", "--spec", COURIER, "--out", generated, "--jobs", "2", "--report", "sarif", sarif, good, bad)
    assert result.exit_code == 1, result.output
    log = json.loads(sarif.read_text())
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["C-UNKNOWN"]


def test_the_live_api_feeds_one_message_at_a_time(generated: Path) -> None:
    import subprocess

    from conftest import PYTHON

    code = (
        "from courier.automaton import Automaton\n"
        "a = Automaton()\n"
        "print([f.rule for f in a.feed_message(b'{\"v\": \"1\", \"ref\": 1, \"op\": \"hello\", \"params\": {\"edition\": \"1\", \"features\": {}}}', 'caller')])\n"
        "print([f.rule for f in a.feed_message(b'{\"v\": \"1\", \"ref\": 1, \"ok\": {\"edition\": \"1\", \"features\": {}}}', sender='callee')])\n"
        "print([f.rule for f in a.feed_message(b'{\"v\": \"1\", \"op\": \"changed\"}', 'callee')])\n"
        "print([f.rule for f in a.finish()], a.outcome)\n"
    )
    done = subprocess.run([PYTHON, "-c", code], cwd=generated, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:4] == ["[]", "[]", "['C-NEWS-GATE']", "['C-READY-MISSING'] failed"]


# -- lint ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ir():  # type: ignore[no-untyped-def]
    return load_ir(load_binding(COURIER))


def lint_error(tmp_path: Path, ir: Any, text: str) -> SpecError:
    spec = tmp_path / "courier"
    if not spec.exists():
        shutil.copytree(COURIER, spec)
    (spec / "courier.rules").write_text(text, encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        load_rules(load_binding(spec), ir)
    return caught.value


def line_of(needle: str) -> int:
    return next(i for i, line in enumerate(RULES.splitlines(), start=1) if needle in line)


@pytest.mark.parametrize(
    "old,new,needle,message",
    [
        ("parties caller callee", "parties caller", "parties caller", "names the two parties"),
        ("sends callee CalleeSends", "sends calleee CalleeSends", "sends callee", "unknown party 'calleee'"),
        ("sends callee CalleeSends", "sends callee Ticket", "sends callee", "neither a union discriminated by 'op'"),
        ("  result Answer id ref payload ok", "  result Answer id ref payload okay", "result Answer", "has no field 'okay'"),
        ("  notification Signal method op", "  notification Signal method ref", "notification Signal", "Signal has no field 'ref' (its method)"),
        ("  request Call id ref method op", "  request Call id ref method params", "request Call", "Call.params is not required"),
        ("  hello HelloReply", "  hello HelloReplyy", "hello HelloReply", "unknown definition 'HelloReplyy'"),
        ("  ask AskReply", "  dance AskReply", "ask AskReply", "no request either party sends"),
        ("  fetch FetchReply\n", "", "fetch Ticket as ticket", "needs a result without `when`"),
        ("fact callee-features on hello:result at features", "fact callee-features on hello:reply at features", "fact callee-features on", "unknown message 'hello:reply'"),
        ("fact callee-features on hello:result at features", "fact callee-features on hello from callee at params.features", "fact callee-features on", "hello is never sent by callee"),
        ("expect present fact caller-features.asking", "expect present fact caller-feature.asking", "caller-features.asking", "unknown fact 'caller-feature'"),
        ("expect present fact caller-features.asking", "expect present fact caller-features.asks", "caller-features.asking", "has no field 'asks'"),
        ("expect request op != \"hello\"", "expect request opp != \"hello\"", "request op !=", "has no field 'opp'"),
        ("check C-ABORT-HELLO on abort from caller", "check C-ABORT-HELLO on ready from caller", "request op", "`request PATH` reads the request"),
        ("  rising tick field params.n else C-TICK-RISING", "  rising changed field params.n else C-TICK-RISING", "rising", "tracks no request"),
        ("  track tick by params.token to params.meta.tickToken keep ticket else C-TICK-UNKNOWN", "  track tick by params.token to params.meta.tickToken keep tickets else C-TICK-UNKNOWN", "track tick", "no result is named 'tickets'"),
        ("  unknown C-UNKNOWN\n", "", "exchanges", "exchanges needs `unknown RULE`"),
        ("  on ready in greeted -> ready", "  on ready from callee in greeted -> ready", "on ready in greeted", "ready is never sent by callee"),
        ("  on * in ready -> stay", "  on *reply in ready -> stay", "on * in ready", "unknown message '*reply'"),
    ],
)
def test_mistakes_are_located(tmp_path: Path, ir: Any, old: str, new: str, needle: str, message: str) -> None:
    assert old in RULES
    text = RULES.replace(old, new, 1)
    err = lint_error(tmp_path, ir, text)
    assert message in str(err), str(err)
    assert err.file.endswith("courier.rules")
    assert err.where.startswith(f"line {line_of(needle)} column"), (str(err), line_of(needle))


def test_the_most_specific_transition_wins(ir: Any, tmp_path: Path) -> None:
    spec = tmp_path / "courier"
    shutil.copytree(COURIER, spec)
    compiled = load_rules(load_binding(spec), ir)
    assert compiled is not None
    table = compiled.tables["machine"]["table"]
    # `on probe ... in greeting greeted -> stay` beats `on *request from caller in greeting fail`
    assert table["greeting"]["caller probe"]["fail"] is None
    assert table["greeting"]["caller fetch"]["fail"] == "C-EARLY"
    # `on * from caller in greeted fail C-READY` beats `on * in greeting greeted -> stay`
    assert table["greeted"]["caller fetch"]["fail"] == "C-READY"
    assert table["greeted"]["callee changed"]["target"] == "greeted"
    assert compiled.tables["event_classes"]["callee probe:result"] == "Empty"
    assert compiled.tables["results"]["fetch"][0]["name"] == "ticket"


# -- the TypeScript binding ----------------------------------------------------------------------


def test_the_typescript_binding_gives_identical_verdicts(generated: Path, tmp_path: Path) -> None:
    """Every rule example, every machine row's conversation (as the Python package's generated
    tests drive it) and those transcripts broken on purpose, through both bindings' replay:
    identical reports (outcome, every finding's rule, level, index, type, message and ids, runs,
    counts). The TypeScript package's own tests pass too."""
    import importlib
    import random
    import subprocess

    import typescript_agreement as agree
    from generator.targets.typescript import node as ts_node

    agree.require_toolchain()
    agree.register("courier", generated, "courier", "courier-ts")
    built = agree.built("courier")
    done = subprocess.run([ts_node.node(), "--test", "dist/tests/"], cwd=built, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:]
    rows = importlib.import_module("courier.tests.test_automaton").row_transcripts()
    streams: list[tuple[str, bytes | Path]] = list(agree.stream_examples("courier"))
    streams += [(f"row:{name}", agree.jsonl(entries)) for name, entries in rows]
    rnd = random.Random(5)
    for name, data in list(streams):
        lines = data.split(b"\n")
        for n in range(2):
            broken = [line[: len(line) // 2] if rnd.random() < 0.1 else line.replace(b'"ref": 2', b'"ref": 3') if rnd.random() < 0.1 else line for line in lines if rnd.random() > 0.1]
            streams.append((f"{name}:broken{n}", b"\n".join(broken)))
    result = agree.compare_streams("courier", streams, tmp_path)
    assert result["differences"] == [], result["differences"][:3]
    table = importlib.import_module("courier.automaton_table").TABLES["machine"]["table"]
    assert len(rows) == sum(len(r) for r in table.values())  # every row's conversation, both ways
    assert result["findings"] > 100 and result["not_completed"] > 30
