"""A real spec change end to end (issue 11): the Harness Runtime 0.2.0 edition as the spec,
`specbind diff` on what upstream publishes, and the AG-UI 1.1 readings the corpus disagreed with."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conftest import REPO, SPEC_AGUI, run_cli
from test_diff import read_ledger  # reads the ledger text itself, not through the generator

SHARED = REPO.parent / "shared"
HARNESS = REPO / "spec" / "harness-runtime"
OLD_OPENAPI = REPO / "tests" / "data" / "harness-runtime-2026-08-19" / "openapi.yaml"
needs_shared = pytest.mark.skipif(not (SHARED / "agui").is_dir(), reason="../shared (the upstream releases) is not beside the checkout")


def diff_json(old: Path, new: Path) -> tuple[int, dict[str, Any]]:
    result = run_cli("diff", "--json", old, new)
    return result.exit_code, json.loads(result.stdout)


def changes(report: dict[str, Any], kind: str) -> dict[str, str]:
    return {c["subject"]: c["message"] for c in report["changes"] if c["kind"] == kind}


# -- Harness Runtime 2026-08-19 -> 0.2.0 -------------------------------------------------------------


@pytest.fixture(scope="module")
def harness_report() -> tuple[int, dict[str, Any]]:
    return diff_json(OLD_OPENAPI, HARNESS / "openapi.yaml")


def test_harness_diff_is_breaking_and_names_the_additions(harness_report: tuple[int, dict[str, Any]]) -> None:
    code, report = harness_report
    assert code == 1 and report["breaking"]
    added = changes(report, "definition-added")
    for name in ("CancelExecutionRequest", "Artifact", "ArtifactList", "ActionRequest"):
        assert name in added, sorted(added)


def test_harness_diff_names_the_length_limits_and_the_protocol_version(harness_report: tuple[int, dict[str, Any]]) -> None:
    _, report = harness_report
    constraints = [(c["subject"], c["message"], c["breaks"]) for c in report["changes"] if c["kind"] == "constraint"]
    assert ("Problem.code", "minLength none -> 1", ["new-readers"]) in constraints
    assert ("RuntimeEvent.sequence", "maximum none -> 9007199254740991", ["new-readers"]) in constraints
    assert ("ProviderManifest.capabilities", "property names: minLength none -> 1", ["new-readers"]) in constraints
    versions = {s: m for s, m, _ in constraints if s.endswith(".protocolVersion")}
    assert versions == {
        "ProviderManifest.protocolVersion": 'const "2026-08-19" -> "2026-09-02"',
        "RuntimeDescription.protocolVersion": 'const "2026-08-19" -> "2026-09-02"',
    }


def test_harness_diff_reports_no_change_where_only_the_spelling_changed(harness_report: tuple[int, dict[str, Any]]) -> None:
    _, report = harness_report
    subjects = [(c["subject"], c["message"]) for c in report["changes"]]
    # `minimum: 1` became `exclusiveMinimum: 0`; an inline enum became a named one: same types
    assert not [m for s, m in subjects if s == "RuntimeEvent.sequence" and "minimum" in m.split(":")[0]]
    assert not [s for s, m in subjects if s in ("Execution.state", "RuntimeEvent.type", "ProviderManifest.topologies")]


def test_the_markdown_report_in_docs_is_current() -> None:
    result = run_cli("diff", "--markdown", "tests/data/harness-runtime-2026-08-19/openapi.yaml", "spec/harness-runtime/openapi.yaml")
    committed = (REPO / "docs" / "changes" / "harness-runtime-0.2.0.md").read_text(encoding="utf-8")
    assert result.exit_code == 1
    assert result.stdout in committed, "regenerate docs/changes/harness-runtime-0.2.0.md (see its header)"


@needs_shared
def test_diff_reads_the_upstream_openapi_files_directly() -> None:
    code, report = diff_json(SHARED / "harness-runtime" / "openapi.yaml", SHARED / "harness-runtime" / "2026-09-02" / "openapi.yaml")
    assert code == 1 and "CancelExecutionRequest" in changes(report, "definition-added")


# -- AG-UI upstream release folders ------------------------------------------------------------------


@needs_shared
def test_diff_reads_upstream_release_folders_with_their_ledgers() -> None:
    draft, current = SHARED / "agui" / "draft", SHARED / "agui" / "1.1"
    assert not (draft / "binding.toml").exists()
    code, report = diff_json(draft, current)
    assert code == 1 and report["wire"]["compared"]
    renames = {c["old"]: c["new"] for c in report["changes"] if c["kind"] == "definition-renamed"}
    assert renames["InputContent"] == "ContentPart" and len(renames) == 9
    (raw,) = [c for c in report["changes"] if c["subject"] == "BaseEvent.rawEvent"]
    assert raw["kind"] == "nullability" and raw["message"] == "null is no longer allowed"
    old, new = read_ledger(draft / "proto-freeze.txt"), read_ledger(current / "proto-freeze.txt")
    renumbered = {k: (old[k], new[k]) for k in old if k in new and old[k] != new[k]}
    reported = {c["subject"]: (c["old"], c["new"]) for c in report["changes"] if c["kind"] == "slot-reassigned"}
    assert reported == renumbered and len(renumbered) == 28


def test_a_refused_input_exits_2_never_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"$defs": {"A": {"$dynamicRef": "#meta"}}}))
    for args in ((bad, HARNESS / "openapi.yaml"), (tmp_path / "nothing-here", bad), (tmp_path, bad)):
        result = run_cli("diff", *args)
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output
    (tmp_path / "not.yaml").write_text("a: [1, 2\n")
    result = run_cli("diff", tmp_path / "not.yaml", HARNESS / "openapi.yaml")
    assert result.exit_code == 2 and "not.yaml" in result.stderr


# -- the Harness binding validates the 0.2.0 documents exactly ---------------------------------------

EVENT = {"id": "e1-1", "executionId": "e1", "sequence": 1, "type": "run.queued", "time": "2026-09-02T10:00:00Z", "data": {}}
MANIFEST = {
    "id": "p1", "name": "P", "version": "1", "protocolVersion": "2026-09-02",
    "topologies": ["embedded"], "capabilities": {"tools": "native"},
}
DOCUMENTS: list[tuple[str, str, dict[str, Any], str | None]] = [
    ("queued-with-empty-data", "HarnessEvent", EVENT, None),
    ("sequence-0", "HarnessEvent", {**EVENT, "sequence": 0}, "exclusiveMinimum"),
    ("sequence-2^53-1", "RuntimeEvent", {**EVENT, "sequence": 2**53 - 1}, None),
    ("sequence-2^53", "RuntimeEvent", {**EVENT, "sequence": 2**53}, "maximum"),
    ("time-leap-day", "RuntimeEvent", {**EVENT, "time": "2024-02-29T23:59:59.125Z"}, None),
    ("time-not-a-leap-year", "RuntimeEvent", {**EVENT, "time": "2026-02-29T00:00:00Z"}, "pattern"),
    ("time-with-offset", "RuntimeEvent", {**EVENT, "time": "2026-09-02T10:00:00+02:00"}, "pattern"),
    ("empty-execution-id", "RuntimeEvent", {**EVENT, "executionId": ""}, "minLength"),
    ("manifest", "ProviderManifest", MANIFEST, None),
    ("manifest-old-version", "ProviderManifest", {**MANIFEST, "protocolVersion": "2026-08-19"}, "const"),
    ("manifest-empty-capability-name", "ProviderManifest", {**MANIFEST, "capabilities": {"": "native"}}, "propertyNames"),
    ("manifest-no-topology", "ProviderManifest", {**MANIFEST, "topologies": []}, "minItems"),
    ("cancel-without-reason", "CancelExecutionRequest", {}, None),
    ("cancel-500", "CancelExecutionRequest", {"reason": "x" * 500}, None),
    ("cancel-501", "CancelExecutionRequest", {"reason": "x" * 501}, "maxLength"),
    ("cancel-empty", "CancelExecutionRequest", {"reason": ""}, "minLength"),
    ("idempotency-key-201", "StartExecutionRequest", {"conversationId": "c", "providerId": "p", "input": "", "idempotencyKey": "k" * 201}, "maxLength"),
    ("artifact-list", "ArtifactList", {"artifacts": [{"id": "a", "name": "n", "mediaType": "text/plain", "metadata": {}, "executionId": "e", "createdAt": "2026-09-02T10:00:00Z"}]}, None),
    ("artifact-without-metadata", "Artifact", {"id": "a", "name": "n", "mediaType": "text/plain", "executionId": "e", "createdAt": "2026-09-02T10:00:00Z"}, "required"),
]


@pytest.mark.parametrize("name,definition,document,keyword", DOCUMENTS, ids=[d[0] for d in DOCUMENTS])
def test_harness_documents_are_judged_exactly_and_as_jsonschema_does(name: str, definition: str, document: dict[str, Any], keyword: str | None) -> None:
    from harness_runtime import DecodeError, codec_json

    reference = json.loads((REPO / "generated" / "harness_runtime" / "schema.json").read_text())
    validator = jsonschema.Draft202012Validator({**reference, "$ref": f"#/$defs/{definition}"})
    assert validator.is_valid(document) is (keyword is None)
    if keyword is None:
        codec_json.decode(json.dumps(document), definition)
        return
    with pytest.raises(DecodeError) as caught:
        codec_json.decode(json.dumps(document), definition)
    assert [e.keyword for e in caught.value.errors] == [keyword], caught.value


# -- AG-UI 1.1 fidelity --------------------------------------------------------------------------------

EXAMPLES = json.loads((SPEC_AGUI / "rule-examples.json").read_text())


def consume(stream: list[dict[str, Any]]) -> Any:
    from agui.consumer import Consumer

    consumer = Consumer()
    for event in stream:
        consumer.feed_document(json.dumps(event))
    consumer.finish()
    return consumer


def test_retired_thinking_events_reach_the_consumer_as_reasoning() -> None:
    from agui import models

    consumer = consume(EXAMPLES["EVENT-RETIRED"]["violates"][0]["stream"])
    (message,) = consumer.projection.messages
    assert isinstance(message, models.ReasoningMessage) and message.content == "first idea"
    warnings = [f for f in consumer.automaton.findings if f.rule == "EVENT-RETIRED"]
    assert len(warnings) == 6 and not consumer.automaton.failed
    assert "THINKING_START is retired" in warnings[0].message and "title dropped" in warnings[0].message
    assert not [f for f in consumer.automaton.findings if f.rule == "EVENT-UNKNOWN-STRIPPED"]


def test_a_call_reopened_in_a_later_run_under_another_name_is_not_merged() -> None:
    stream = next(x for x in EXAMPLES["TOOL-REOPEN-AGREE"]["violates"] if "earlier run" in x["note"])["stream"]
    consumer = consume(stream)
    assert consumer.automaton.outcome == "failed"
    assert [f.rule for f in consumer.automaton.findings if f.fatal] == ["TOOL-REOPEN-AGREE"]
    (message,) = consumer.projection.messages
    (call,) = message.tool_calls
    assert call.function.name == "search" and call.function.arguments == '{"q":1}'
    assert any("withheld" in w for w in consumer.projection.warnings)
    agreeing = next(x for x in EXAMPLES["TOOL-REOPEN-AGREE"]["satisfies"] if "earlier run" in x["note"])["stream"]
    (merged,) = consume(agreeing).projection.messages[0].tool_calls
    assert merged.function.arguments == '{"q":1}{}'


@pytest.mark.parametrize("closing", ["SUBAGENT_FINISHED", "SUBAGENT_ERROR"])
def test_closing_a_subagent_never_announced_fails_the_stream(closing: str) -> None:
    stream = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": closing, "subagentRunId": "never-announced", **({"message": "x"} if closing == "SUBAGENT_ERROR" else {})},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    consumer = consume(stream)
    assert consumer.automaton.outcome == "failed"
    (finding,) = [f for f in consumer.automaton.findings if f.fatal]
    assert finding.rule == "SUBAGENT-CLOSE-UNKNOWN" and finding.level == "MUST NOT"
