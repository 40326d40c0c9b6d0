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
HARNESS = SPEC_AGUI.parent / "harness-runtime"
SAMPLES = SPEC_AGUI / "samples"


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


REPORT_FIELDS = ("file", "outcome", "violations", "warnings", "events", "types", "runs", "format", "notes")
PROJECTION_FIELDS = ("messages", "state", "runErrors")


def test_conformant_stream_exits_0_with_a_bounded_report(tmp_path: Path) -> None:
    events = fixture_events("tool-call-triad-assembles")
    path = stream_file(tmp_path, "ok.jsonl", events)
    result = replay("--json", path)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert tuple(report) == REPORT_FIELDS  # O(findings + runs): no projection, no event list
    assert report["outcome"] == "completed" and report["violations"] == []
    assert report["events"] == len(events) and report["format"] == "jsonl"
    assert report["types"] == {t: sum(1 for e in events if e["type"] == t) for t in report["types"]}
    assert sum(report["types"].values()) == len(events)
    assert report["runs"] == [{"start": 0, "end": len(events) - 1, "state": "finished"}]


def test_project_adds_the_projection_and_delivered_the_events(tmp_path: Path) -> None:
    events = fixture_events("tool-call-triad-assembles")
    path = stream_file(tmp_path, "ok.jsonl", events)
    projected = json.loads(replay("--json", "--project", path).output)
    assert tuple(projected) == REPORT_FIELDS + PROJECTION_FIELDS
    assert projected["messages"] and projected["state"] == {} and projected["runErrors"] == []
    delivered = json.loads(replay("--json", "--project", "--delivered", path).output)
    assert tuple(delivered) == REPORT_FIELDS + PROJECTION_FIELDS + ("delivered",)
    assert [e["type"] for e in delivered["delivered"]] == [e["type"] for e in events]
    assert json.loads(replay("--json", "--delivered", path).output).keys() == delivered.keys()  # implies --project
    text = replay("--project", path)
    assert text.exit_code == 0 and "projection: 1 messages (1 assistant); state: 0 keys; 0 run errors" in text.output


def test_violation_exits_1_and_names_the_rule(tmp_path: Path) -> None:
    path = stream_file(tmp_path, "bad.jsonl", fixture_events("open-message-at-run-finished-fatal"))
    result = replay("--json", path)
    assert result.exit_code == 1
    report = json.loads(result.output)
    (violation,) = report["violations"]
    assert violation["rule"] == "RUN-CLOSE-ALL" and violation["level"] == "MUST"
    assert violation["type"] == "RUN_FINISHED" and violation["ids"] and "§" in violation["ref"]
    assert violation["line"] == violation["index"] + 1
    human = replay(path)
    assert human.exit_code == 1
    assert "RUN-CLOSE-ALL [MUST] event 3 (RUN_FINISHED)" in human.output
    assert "failed" in human.output.splitlines()[-1]


def test_sse_input_is_read_with_the_full_grammar(tmp_path: Path) -> None:
    events = fixture_events("triad-assembles-message")
    path = stream_file(tmp_path, "capture.sse", events, sse=True)
    report = json.loads(replay("--json", path).output)
    assert report["outcome"] == "completed" and report["format"] == "sse"
    assert report["events"] == len(events)
    # the name says nothing: the content does
    unnamed = json.loads(replay("--json", stream_file(tmp_path, "capture.txt2", events, sse=True)).output)
    forced = json.loads(replay("--json", "--format", "sse", stream_file(tmp_path, "capture.txt3", events, sse=True)).output)
    assert unnamed["format"] == forced["format"] == "sse"
    assert unnamed["events"] == forced["events"] == report["events"]
    assert any("SSE" in note for note in unnamed["notes"])


def test_truncated_run_is_reported_and_not_finished(tmp_path: Path) -> None:
    events = fixture_events("triad-assembles-message")[:-1]
    report = json.loads(replay("--json", stream_file(tmp_path, "cut.jsonl", events)).output)
    assert [v["rule"] for v in report["violations"]] == ["RUN-TRUNCATED"]
    assert report["violations"][0]["line"] == len(events)  # the line of the last event
    assert report["runs"][-1]["state"] == "truncated"
    assert "RUN_FINISHED" not in report["types"]


def test_bad_lines_are_findings_and_the_stream_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    lines = [json.dumps(e) for e in fixture_events("triad-assembles-message")]
    lines.insert(2, "{not json")
    lines.insert(1, "")  # a blank line is no event, but it is a line
    path.write_text("\n".join(lines) + "\n")
    report = json.loads(replay("--json", "--project", path).output)
    assert [v["rule"] for v in report["violations"]] == ["EVENT-DECODE"]
    assert report["violations"][0]["index"] == 2 and report["violations"][0]["line"] == 4
    assert report["messages"][0]["content"] == "Deltas concatenate."


def test_stdin(tmp_path: Path) -> None:
    data = "\n".join(json.dumps(e) for e in fixture_events("triad-assembles-message"))
    result = run_cli("replay", "--spec", SPEC_AGUI, "--json", "-", input=data)
    assert result.exit_code == 0 and json.loads(result.output)["outcome"] == "completed"


def test_sse_on_stdin_needs_no_format(tmp_path: Path) -> None:
    events = fixture_events("triad-assembles-message")
    data = stream_file(tmp_path, "capture.sse", events, sse=True).read_bytes()
    result = run_cli("replay", "--spec", SPEC_AGUI, "--json", "-", input=data)
    report = json.loads(result.output)
    assert result.exit_code == 0 and report["format"] == "sse" and report["events"] == len(events)


@pytest.mark.parametrize(
    "shape,seen",
    [("array", "a JSON array"), ("pretty-array", "a JSON array"), ("case", "a test case"), ("pretty-case", "a test case")],
)
def test_json_documents_are_streams(tmp_path: Path, shape: str, seen: str) -> None:
    fixture = json.loads((CONFORMANCE / "triad-assembles-message.json").read_text())
    document = fixture["stream"] if "array" in shape else fixture
    path = tmp_path / "stream.json"
    path.write_text(json.dumps(document, indent=2 if shape.startswith("pretty") else None))
    result = replay("--json", path)
    report = json.loads(result.output)
    assert result.exit_code == 0, result.output
    assert report["format"] == "json" and report["events"] == len(fixture["stream"])
    assert any(seen in note for note in report["notes"])
    text = replay(path).output
    assert "note: read as JSON (auto: " in text and seen in text


def test_one_pretty_printed_event(tmp_path: Path) -> None:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(fixture_events("triad-assembles-message")[0], indent=2))
    report = json.loads(replay("--json", path).output)
    assert report["events"] == 1 and report["format"] == "json"
    assert [v["rule"] for v in report["violations"]] == ["RUN-TRUNCATED"]  # one RUN_STARTED, never closed


@pytest.mark.parametrize("content", ["", "\n\n   \n"])
def test_an_empty_stream_is_not_conformant(tmp_path: Path, content: str) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text(content)
    result = replay("--json", path)
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert report["outcome"] == "empty" and report["events"] == 0
    text = replay(path)
    assert text.exit_code == 1 and "no event" in text.output and ": empty: 0 events" in text.output
    stdin = run_cli("replay", "--spec", SPEC_AGUI, "-", input=content)
    assert stdin.exit_code == 1 and ": empty:" in stdin.output


def test_another_protocols_stream_is_unrecognized(tmp_path: Path) -> None:
    path = stream_file(tmp_path, "agui.jsonl", fixture_events("conformant-run-is-quiet"))
    result = run_cli("replay", "--spec", HARNESS, "--json", path)
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert report["outcome"] == "unrecognized"
    assert any("is this a stream of another protocol (the right --spec)?" in n for n in report["notes"])
    text = run_cli("replay", "--spec", HARNESS, path)
    assert text.exit_code == 1 and "the right --spec" in text.output


def consumer_streams() -> list[str]:
    return sorted(p.stem for p in CONFORMANCE.glob("*.json"))


@pytest.mark.parametrize("name", consumer_streams())
def test_text_and_json_report_the_same_findings(tmp_path: Path, name: str) -> None:
    """Both modes run the same checks: each finding line of the text output is a finding of the
    JSON report, in both the plain and the --project runs."""
    path = stream_file(tmp_path, "s.jsonl", fixture_events(name))
    for extra in ([], ["--project"]):
        as_json = replay("--json", *extra, path)
        text = replay(*extra, path)
        assert as_json.exit_code == text.exit_code
        report = json.loads(as_json.output)
        findings = report["violations"] + report["warnings"]
        expected = sorted(
            f"{f['rule']} [{f['level']}] event {f['index']} ({f['type']}): {f['message']}" if f["rule"] else f"warning: {f['message']}"
            for f in findings
        )
        lines = text.output.splitlines()
        shown = sorted(ln for ln in lines if not ln.startswith(("note:", "projection:", str(path))))
        assert shown == expected
        assert f"{len(report['violations'])} violations, {len(report['warnings'])} warnings" in lines[-1]


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
    assert "messages" not in report  # the projection is printed with --project only
    current = json.loads(replay("--json", "--input", request, path).output)
    assert current["request"]["protocolVersion"] == "1.1"
    text = replay("--client-version", "0.0.39", "--input", request, path)
    assert "warning: flattening message" in text.output  # the same warning in both modes


@pytest.mark.parametrize(
    "args,hint",
    [
        (["--client-version", "not-a-version"], "not a protocol version"),
        (["--format", "xml"], "xml"),
        (["--after", "3", "--project"], "does not combine"),
        (["--jobs", "0"], "--jobs"),
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
    report = json.loads(result.output)
    assert report["events"] == len(events) - 3
    assert sum(report["types"].values()) == report["events"]
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
    assert report["events"] == len(redelivered)  # read; the two redelivered were dropped quietly
    assert [r["state"] for r in report["runs"]] == ["succeeded"]


def archive(tmp_path: Path) -> Path:
    """A directory of streams: two conformant (one SSE, in a subfolder), one violating, and a
    file that is no stream file by its name."""
    root = tmp_path / "archive"
    (root / "sub").mkdir(parents=True)
    stream_file(root, "a.jsonl", fixture_events("triad-assembles-message"))
    stream_file(root / "sub", "b.sse", fixture_events("conformant-run-is-quiet"), sse=True)
    stream_file(root, "c.jsonl", fixture_events("open-message-at-run-finished-fatal"))
    (root / "notes.txt").write_text("not a stream")
    return root


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_directory_is_every_stream_in_it(tmp_path: Path, jobs: str) -> None:
    root = archive(tmp_path)
    result = replay("--json", "--jobs", jobs, root)
    assert result.exit_code == 1  # one file fails
    *files, summary = [json.loads(line) for line in result.stdout.splitlines()]
    assert [Path(r["file"]).name for r in files] == ["a.jsonl", "c.jsonl", "b.sse"]
    assert [r["outcome"] for r in files] == ["completed", "failed", "completed"]
    for r in files:  # each line is the report of that file alone
        alone = json.loads(replay("--json", r["file"]).stdout)
        assert r == alone
    assert summary == {
        "files": 3,
        "outcome": "failed",
        "outcomes": {"completed": 2, "failed": 1},
        "events": sum(r["events"] for r in files),
        "violations": 1,
        "warnings": 0,
    }


def test_several_files_in_text_mode(tmp_path: Path) -> None:
    root = archive(tmp_path)
    one, two = root / "a.jsonl", root / "sub" / "b.sse"
    result = replay("--jobs", "2", one, two)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{one}: completed:") and lines[-2].startswith(f"{two}: completed:")
    assert lines[-1].startswith("2 files: completed 2;")
    both = replay("--jobs", "1", one, two).stdout
    assert both == result.stdout
    bad = replay(one, root / "c.jsonl").stdout.splitlines()
    assert bad[1].startswith("RUN-CLOSE-ALL [MUST] event 3") and bad[-1].startswith("2 files: completed 1, failed 1;")


def test_one_report_covers_every_file(tmp_path: Path) -> None:
    root = archive(tmp_path)
    sarif_path, junit_path = tmp_path / "all.sarif", tmp_path / "all.xml"
    assert replay("--report", "sarif", sarif_path, "--jobs", "2", root).exit_code == 1
    run = json.loads(sarif_path.read_text())["runs"][0]
    assert sorted(Path(a["location"]["uri"]).name for a in run["artifacts"]) == ["a.jsonl", "b.sse", "c.jsonl"]
    (result,) = run["results"]
    assert result["ruleId"] == "RUN-CLOSE-ALL"
    assert Path(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]).name == "c.jsonl"
    assert replay("--report", "junit", junit_path, root).exit_code == 1
    suites = ET.parse(junit_path).getroot().findall("testsuite")
    assert [s.get("failures") for s in suites] == ["0", "1", "0"]


def test_a_directory_without_streams_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = replay(tmp_path / "empty")
    assert result.exit_code == 2 and "no *.jsonl" in result.output


@pytest.mark.parametrize(
    "name,code,rules",
    [("valid.jsonl", 0, []), ("capture.sse", 0, []), ("violating.jsonl", 1, ["TEXT-REQUIRES-OPEN", "RUN-CLOSE-ALL"])],
)
def test_the_sample_streams(name: str, code: int, rules: list[str]) -> None:
    """The README's examples: spec/agui/samples."""
    result = replay("--json", SAMPLES / name)
    assert result.exit_code == code
    report = json.loads(result.output)
    assert [v["rule"] for v in report["violations"]] == rules and report["warnings"] == []
    assert replay(SAMPLES).exit_code == 1  # the folder: one sample violates
