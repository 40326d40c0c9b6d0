"""The official Python SDK (PyPI `mcp` 2.3.0) in its other modes, through `specbind proxy --spec
spec/mcp`, which judges each session by the revision of the protocol family its messages name
(tests/mcp_scenarios.py REVISION_PAIRS; docs/families.md):

- the client pinned to 2026-07-28 (`mode="2026-07-28"`): no probe, every request with its `_meta`;
- the client in its default mode (`auto`) against the SDK's own server: the `server/discover` probe
  is answered, the session stays 2026-07-28;
- `auto` against the TypeScript SDK's server, which knows only 2025-11-25: the probe is refused
  (-32601), the client falls back to the `initialize` handshake.

Each completes its scenarios (multi round-trip requests, progress, cancellation, per-request log
levels, subscriptions/listen), the proxy finds nothing and names the revisions, and every message
decodes strictly as the revision the session spoke when it passed. Variants of the recorded
traffic that break a rule of the family draw exactly that rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import mcp_scenarios as scenarios
PAIRS = {p.name: p for p in scenarios.REVISION_PAIRS}
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
FALLBACK = f"revision {MODERN} (messages 0-1: message 0 from client names it), then {LEGACY} (from message 2: fallback from {MODERN} at message 2)"


def _family() -> tuple[Any, dict[str, Any]]:
    """The family's router (generated/mcp, the home) and each revision's codec."""
    from mcp import codec_json as legacy  # generated/ is on pytest's path; the SDK runs elsewhere
    from mcp.family import Router
    from mcp_2026_07_28 import codec_json as modern

    assert legacy.__file__.startswith(str(scenarios.REPO / "generated"))
    return Router, {LEGACY: legacy, MODERN: modern}


def _judged(lines: list[bytes]) -> tuple[list[str], list[Any]]:
    """Each transcript line's revision, by the family's router, after decoding every message
    strictly as that revision's wire message; and the family's findings."""
    router_type, codecs = _family()
    router = router_type()
    revisions: dict[int, str] = {}
    findings: list[Any] = []
    for line in lines:
        entry = json.loads(line)
        deliveries, found = router.feed(entry["from"], entry["message"], line)
        findings += found
        for d in deliveries:
            revisions[d.index] = d.revision
            codecs[d.revision].decode(_message_bytes(d.payload))
    deliveries, found = router.finish()
    findings += found
    for d in deliveries:
        revisions[d.index] = d.revision
        codecs[d.revision].decode(_message_bytes(d.payload))
    return [revisions[i] for i in range(len(lines))], findings


def _message_bytes(record: bytes) -> bytes:
    start = record.index(b'"message":') + len(b'"message":')
    return record[start:-1]


def _methods(transcript: list[dict[str, Any]]) -> list[str]:
    return [e["message"].get("method", "result" if "result" in e["message"] else "error") for e in transcript]


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_sdk_sessions_of_either_revision_through_the_family_proxy(name: str, tmp_path: Path) -> None:
    pair = PAIRS[name]
    scenarios.skip_without_node(pair)
    session = scenarios.run(pair, tmp_path / "session.jsonl")
    assert session.returncode == 0, session.stderr[-3000:]
    out = session.client
    assert out is not None, session.stderr[-3000:]
    summary = session.proxy_lines[-1]
    assert len(session.proxy_lines) == 1 and "; 0 violations, 0 warnings;" in summary, session.proxy_lines
    assert f"{len(session.transcript)} messages" in summary and "exited with status 0" in summary
    first = session.transcript[0]["message"]
    if name == "python-client-auto-typescript-server":
        # the probe at 2026-07-28, refused as an unknown method; the handshake at 2025-11-25
        assert out["protocolVersion"] == LEGACY and summary.split("; transcript: ")[0].endswith(FALLBACK)
        assert _methods(session.transcript)[:3] == ["server/discover", "error", "initialize"]
        assert session.transcript[1]["message"]["error"]["code"] == -32601
        assert session.transcript[2]["message"]["params"]["protocolVersion"] == LEGACY
        assert out["sampling"] == ["the model says: why?"] and out["ping_again"] == "EmptyResult"
    else:
        assert out["protocolVersion"] == MODERN and summary.split("; transcript: ")[0].endswith(f"revision {MODERN}")
        probe = first["method"] == "server/discover"
        assert probe is (name == "python-sdk-auto")
        assert first["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == MODERN
        assert "initialize" not in _methods(session.transcript)
        # the modern scenario: MRTR, progress, cancellation, log levels, subscriptions
        assert out["greet"] == ["hello scenario user: the model says: capital of France?, 1 root(s)"]
        assert out["count"] == ["counted to 3"] and out["progress"] == [1.0, 2.0, 3.0] and out["cancelled"] == "MCPError"
        assert out["logs"] == ["info: an info line", "warning: a warning line"] and out["missing"] == "MCPError"
        assert out["events"] == ["ResourceUpdated", "ToolsListChanged"] and out["completion"] == ["python"]
        results = [e["message"]["result"] for e in session.transcript if "result" in e["message"]]
        assert {r["resultType"] for r in results} == {"complete", "input_required"}
        [asking] = [r for r in results if r["resultType"] == "input_required"]
        assert sorted(q["method"] for q in asking["inputRequests"].values()) == ["elicitation/create", "roots/list", "sampling/createMessage"]
        retried = [e["message"] for e in session.transcript if "inputResponses" in e["message"].get("params", {})]
        assert len(retried) == 1 and retried[0]["params"]["requestState"] == asking["requestState"]
        assert "subscriptions/listen" in _methods(session.transcript) and "notifications/subscriptions/acknowledged" in _methods(session.transcript)
    revisions, findings = _judged((tmp_path / "session.jsonl").read_bytes().splitlines())
    assert findings == []
    assert set(revisions) == ({MODERN, LEGACY} if name == "python-client-auto-typescript-server" else {MODERN})


@pytest.mark.parametrize("sample", sorted(scenarios.REVISION_SAMPLES.glob("*.jsonl")), ids=lambda p: p.stem)
def test_recorded_sessions_decode_strictly_as_their_revision(sample: Path) -> None:
    lines = sample.read_bytes().splitlines()
    revisions, findings = _judged(lines)
    assert findings == [] and len(lines) > 40
    assert revisions[0] == MODERN


def test_the_revision_samples_are_the_pairings() -> None:
    assert {p.stem for p in scenarios.REVISION_SAMPLES.glob("*.jsonl")} == set(PAIRS)


# -- variants of the recorded traffic: each breaks one rule of the family ---------------------------


def _sample(name: str) -> list[bytes]:
    return (scenarios.REVISION_SAMPLES / f"{name}.jsonl").read_bytes().splitlines()


def _line(party: str, message: dict[str, Any]) -> bytes:
    return json.dumps({"from": party, "message": message}, separators=(",", ":")).encode()


def test_a_fallback_after_a_modern_answer_draws_exactly_its_rule() -> None:
    """The fallback session with the probe answered as the SDK's own (modern) server answers it,
    offering 2026-07-28 only: falling back to the handshake is MCP-ERA-FALLBACK, and only that."""
    lines = _sample("python-client-auto-typescript-server")
    modern = json.loads(_sample("python-sdk-auto")[1])["message"]
    modern["id"] = json.loads(lines[0])["message"]["id"]
    modern["result"]["supportedVersions"] = [MODERN]
    _, findings = _judged([lines[0], _line("server", modern), *lines[2:]])
    assert [(f.rule, f.level, f.index) for f in findings] == [("MCP-ERA-FALLBACK", "SHOULD NOT", 2)]


def test_a_second_change_of_era_draws_exactly_its_rule() -> None:
    """The legacy session (from the handshake on) followed by a modern request on the same
    server process: the client did not keep the era it determined, MCP-ERA-AGAIN, and only that."""
    legacy = _sample("python-client-auto-typescript-server")[2:]  # from the handshake on
    modern_request = json.loads(_sample("python-sdk-2026-07-28")[0])["message"]
    modern_request["id"] = 9999
    _, findings = _judged([*legacy, _line("client", modern_request)])
    assert [(f.rule, f.level, f.index) for f in findings] == [("MCP-ERA-AGAIN", "SHOULD", len(legacy))]


def test_a_result_without_its_result_type_is_refused_by_the_modern_revision_only() -> None:
    """2026-07-28 requires resultType on every result (basic/index.mdx "Result Responses"): the
    modern session with one result stripped of it does not decode, where 2025-11-25 never had it."""
    _, codecs = _family()
    lines = _sample("python-sdk-2026-07-28")
    index = next(i for i, line in enumerate(lines) if b'"resultType":"complete"' in line)
    entry = json.loads(lines[index])
    del entry["message"]["result"]["resultType"]
    with pytest.raises(codecs[MODERN].DecodeError):
        _judged([*lines[:index], json.dumps(entry).encode(), *lines[index + 1:]])
