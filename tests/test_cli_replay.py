"""`specbind replay` and `specbind check-resume`: the exit codes, report fields and formats that
users script against (issues 3 and 4)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from conftest import SPEC_AGUI, run_cli

CONFORMANCE = SPEC_AGUI / "conformance" / "streams"


def stream_file(tmp_path: Path, name: str, events: list[dict[str, Any]], sse: bool = False) -> Path:
    path = tmp_path / name
    if sse:
        # CRLF line ends, a comment, ignored fields, and each event as several data lines
        # (pretty-printed JSON: the lines join with LF, which JSON reads as whitespace)
        body = ": keep-alive\r\n\r\n"
        for event in events:
            data = "".join(f"data: {line}\r\n" for line in json.dumps(event, indent=1).splitlines())
            body += f"event: message\r\nid: 7\r\n{data}\r\n"
        path.write_bytes(body.encode())
    else:
        path.write_text("\n".join(json.dumps(e) for e in events) + "\n")
    return path


def fixture_events(name: str) -> list[dict[str, Any]]:
    return json.loads((CONFORMANCE / f"{name}.json").read_text())["stream"]


def replay(*args: Any) -> Any:
    return run_cli("replay", "--spec", SPEC_AGUI, *args)


def test_conformant_stream_exits_0_with_every_report_field(tmp_path: Path) -> None:
    path = stream_file(tmp_path, "ok.jsonl", fixture_events("tool-call-triad-assembles"))
    result = replay("--json", path)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    for key in ("outcome", "violations", "warnings", "events", "runs", "messages", "state", "runErrors", "delivered"):
        assert key in report, key
    assert report["outcome"] == "completed" and report["violations"] == []
    assert report["events"] == [e["type"] for e in report["delivered"]]
    assert report["runs"] == [{"start": 0, "end": len(report["events"]) - 1, "state": "finished"}]


def test_violation_exits_1_and_names_the_rule(tmp_path: Path) -> None:
    path = stream_file(tmp_path, "bad.jsonl", fixture_events("open-message-at-run-finished-fatal"))
    result = replay("--json", path)
    assert result.exit_code == 1
    report = json.loads(result.output)
    (violation,) = report["violations"]
    assert violation["rule"] == "RUN-CLOSE-ALL" and violation["level"] == "MUST"
    assert violation["type"] == "RUN_FINISHED" and violation["ids"] and "§" in violation["ref"]
    human = replay(path)
    assert human.exit_code == 1
    assert "RUN-CLOSE-ALL [MUST] event 3 (RUN_FINISHED)" in human.output
    assert "failed" in human.output.splitlines()[-1]


def test_sse_input_is_read_with_the_full_grammar(tmp_path: Path) -> None:
    events = fixture_events("triad-assembles-message")
    path = stream_file(tmp_path, "capture.sse", events, sse=True)
    report = json.loads(replay("--json", path).output)
    assert report["outcome"] == "completed"
    assert report["events"] == [e["type"] for e in events]
    forced = replay("--json", "--format", "sse", stream_file(tmp_path, "capture.txt2", events, sse=True))
    assert json.loads(forced.output)["events"] == report["events"]


def test_truncated_run_is_reported_and_not_finished(tmp_path: Path) -> None:
    events = fixture_events("triad-assembles-message")[:-1]
    report = json.loads(replay("--json", stream_file(tmp_path, "cut.jsonl", events)).output)
    assert [v["rule"] for v in report["violations"]] == ["RUN-TRUNCATED"]
    assert report["runs"][-1]["state"] == "truncated"
    assert "RUN_FINISHED" not in report["events"]


def test_bad_lines_are_findings_and_the_stream_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    lines = [json.dumps(e) for e in fixture_events("triad-assembles-message")]
    lines.insert(2, "{not json")
    path.write_text("\n".join(lines) + "\n")
    report = json.loads(replay("--json", path).output)
    assert [v["rule"] for v in report["violations"]] == ["EVENT-DECODE"]
    assert report["violations"][0]["index"] == 2
    assert report["messages"][0]["content"] == "Deltas concatenate."


def test_stdin(tmp_path: Path) -> None:
    data = "\n".join(json.dumps(e) for e in fixture_events("triad-assembles-message"))
    result = run_cli("replay", "--spec", SPEC_AGUI, "--json", "-", input=data)
    assert result.exit_code == 0 and json.loads(result.output)["outcome"] == "completed"


def test_sarif_and_junit_reports(tmp_path: Path) -> None:
    path = stream_file(tmp_path, "bad.jsonl", fixture_events("step-finished-without-start-fatal"))
    sarif_path, junit_path = tmp_path / "r.sarif", tmp_path / "r.xml"
    assert replay("--report", "sarif", sarif_path, path).exit_code == 1
    sarif = json.loads(sarif_path.read_text())
    results = sarif["runs"][0]["results"]
    assert {r["ruleId"] for r in results} == {"STEP-FINISH-OPEN", "RUN-TRUNCATED"}
    assert all(r["level"] == "error" for r in results)
    assert results[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 2
    assert {r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]} >= {"STEP-FINISH-OPEN"}
    assert replay("--report", "junit", junit_path, path).exit_code == 1
    suite = ET.parse(junit_path).getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "2"
    failed = {c.get("name") for c in suite.iter("testcase") if c.find("failure") is not None}
    assert failed == {"STEP-FINISH-OPEN", "RUN-TRUNCATED"}


def test_input_and_client_version_give_the_request(tmp_path: Path) -> None:
    fixture = json.loads((CONFORMANCE / "era-0-0-39-flattens-content.json").read_text())
    path = stream_file(tmp_path, "s.jsonl", fixture["stream"])
    request = tmp_path / "input.json"
    request.write_text(json.dumps({"threadId": "t", "runId": "r", **fixture["input"]}))
    report = json.loads(replay("--json", "--client-version", "0.0.39", "--input", request, path).output)
    assert report["request"]["messages"][0]["content"] == "What is in this picture?"
    assert "protocolVersion" not in report["request"]
    assert any("DROPS non-text parts" in w["message"] for w in report["warnings"])
    current = json.loads(replay("--json", "--input", request, path).output)
    assert current["request"]["protocolVersion"] == "1.1"


@pytest.mark.parametrize(
    "args,hint",
    [
        (["--client-version", "not-a-version"], "not a protocol version"),
        (["--format", "xml"], "xml"),
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, args: list[str], hint: str) -> None:
    path = stream_file(tmp_path, "s.jsonl", fixture_events("triad-assembles-message"))
    result = replay(*args, path)
    assert result.exit_code == 2 and hint in result.output


def test_missing_stream_is_a_usage_error(tmp_path: Path) -> None:
    assert replay(tmp_path / "absent.jsonl").exit_code == 2


def interrupted(expires: str | None = None) -> dict[str, Any]:
    interrupt: dict[str, Any] = {"id": "i1", "reason": "tool_approval"}
    if expires:
        interrupt["expiresAt"] = expires
    return {
        "type": "RUN_FINISHED",
        "threadId": "t",
        "runId": "r1",
        "outcome": {"type": "interrupt", "interrupts": [interrupt, {"id": "i2", "reason": "input"}]},
    }


def resume_input(*entries: tuple[str, str]) -> dict[str, Any]:
    return {
        "threadId": "t",
        "runId": "r2",
        "messages": [],
        "resume": [{"interruptId": i, "status": s} for i, s in entries],
    }


@pytest.mark.parametrize(
    "finished,entries,now,code,rules",
    [
        (interrupted(), [("i1", "resolved"), ("i2", "cancelled")], None, 0, []),
        (interrupted(), [("i1", "resolved")], None, 1, ["RESUME-COVERAGE"]),
        (interrupted(), [("i1", "resolved"), ("i2", "resolved"), ("i9", "resolved")], None, 1, ["RESUME-NAMES-PRIOR"]),
        (interrupted("2026-01-01T00:00:00Z"), [("i1", "resolved"), ("i2", "resolved")], "2026-06-01T00:00:00Z", 1, ["RESUME-EXPIRED"]),
        (interrupted("2026-01-01T00:00:00Z"), [("i1", "cancelled"), ("i2", "resolved")], "2026-06-01T00:00:00Z", 0, []),
        (interrupted("2027-01-01T00:00:00Z"), [("i1", "resolved"), ("i2", "resolved")], "2026-06-01T00:00:00Z", 0, []),
        (None, [("i1", "resolved")], None, 0, ["RESUME-NOTHING-TO-CONTINUE"]),
    ],
    ids=["covered", "uncovered", "unknown", "expired-answered", "expired-abandoned", "not-yet-expired", "nothing-to-continue"],
)
def test_check_resume(tmp_path: Path, finished: Any, entries: list[tuple[str, str]], now: str | None, code: int, rules: list[str]) -> None:
    args: list[Any] = ["check-resume", "--spec", SPEC_AGUI, "--json"]
    if finished is not None:
        (tmp_path / "finished.json").write_text(json.dumps(finished))
        args += ["--finished", tmp_path / "finished.json"]
    (tmp_path / "input.json").write_text(json.dumps(resume_input(*entries)))
    args += ["--input", tmp_path / "input.json"]
    if now:
        args += ["--now", now]
    result = run_cli(*args)
    assert result.exit_code == code, result.output
    report = json.loads(result.output)
    assert [f["rule"] for f in report["findings"]] == rules
    assert report["valid"] is (code == 0)


def test_check_resume_usage_errors(tmp_path: Path) -> None:
    (tmp_path / "input.json").write_text(json.dumps(resume_input()))
    result = run_cli("check-resume", "--spec", SPEC_AGUI, "--input", tmp_path / "input.json", "--now", "yesterday")
    assert result.exit_code == 2 and "ISO 8601" in result.output
    (tmp_path / "bad.json").write_text('{"threadId": 1}')
    result = run_cli("check-resume", "--spec", SPEC_AGUI, "--input", tmp_path / "bad.json")
    assert result.exit_code == 2 and "threadId" in result.output


HARNESS = SPEC_AGUI.parent / "harness-runtime"


def harness_events() -> list[dict[str, Any]]:
    examples = json.loads((HARNESS / "rule-examples.json").read_text())
    return examples["HR-ACTION-REUSED"]["satisfies"][0]["stream"]


def test_harness_replay_after_a_cursor(tmp_path: Path) -> None:
    events = harness_events()
    whole = stream_file(tmp_path, "all.jsonl", events)
    assert run_cli("replay", "--spec", HARNESS, whole).exit_code == 0
    tail = stream_file(tmp_path, "tail.jsonl", events[3:])
    # read as a whole stream, the tail breaks the rules; as a replay after cursor 3 it does not
    assert run_cli("replay", "--spec", HARNESS, tail).exit_code == 1
    result = run_cli("replay", "--spec", HARNESS, "--json", "--after", "3", tail)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["events"] == [e["type"] for e in events[3:]]
    wrong = run_cli("replay", "--spec", HARNESS, "--json", "--after", "2", tail)
    assert wrong.exit_code == 1
    assert [v["rule"] for v in json.loads(wrong.output)["violations"]] == ["HR-SEQUENCE-GAP"]


def test_after_needs_an_after_cursor_state(tmp_path: Path) -> None:
    path = stream_file(tmp_path, "s.jsonl", fixture_events("triad-assembles-message"))
    result = replay("--after", "3", path)
    assert result.exit_code == 2 and "after-cursor" in result.output


def test_harness_redelivery_is_dropped_quietly(tmp_path: Path) -> None:
    events = harness_events()
    redelivered = events[:3] + events[1:3] + events[3:]
    result = run_cli("replay", "--spec", HARNESS, "--json", stream_file(tmp_path, "r.jsonl", redelivered))
    report = json.loads(result.output)
    assert result.exit_code == 0 and report["violations"] == []
    assert report["events"] == [e["type"] for e in events]
