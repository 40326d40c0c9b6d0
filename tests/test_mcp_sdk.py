"""Checked against what no one here wrote: clients and servers built on the official MCP SDKs
(Python `mcp` 2.3.0 in 2025-11-25 mode, TypeScript `@modelcontextprotocol/sdk` 1.32.2) run their
scenarios through `specbind proxy` (tests/mcp_scenarios.py). Every scenario completes as the SDK
reports it, the proxy reports nothing, the session speaks 2025-11-25, and every message of the
transcript decodes strictly with the generated package (the SDK runs in processes of its own:
it and generated/mcp are both `mcp`). The recorded samples in spec/mcp/samples decode too.
The TypeScript pairings skip loudly where node or the npm peers are absent."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import mcp_scenarios as scenarios

# What the rules find on each pairing's traffic (MUST level): the SDKs' own sessions draw nothing.
# The Python SDK's MCPServer run as its documentation writes it declares no logging capability
# yet sends notifications/message (pages/server/utilities/logging.mdx: "Servers that emit log
# message notifications MUST declare the logging capability"), and the SDK's client sends
# logging/setLevel to it without the capability (basic/lifecycle.mdx, Operation: "Only use
# capabilities that were successfully negotiated"); the SDK checks neither.
EXPECTED = {"python-sdk-as-written": ["CAP-LOGGING", "DECLARE-LOGGING", "DECLARE-LOGGING", "DECLARE-LOGGING"]}


def _codec() -> Any:
    from mcp import codec_json  # the generated package (generated/ is on pytest's path)

    assert codec_json.__file__.startswith(str(scenarios.REPO / "generated")), "generated/mcp must be the one imported here"
    return codec_json


def _message_bytes(record: bytes) -> bytes:
    """The message of a transcript line as its bytes were on the wire (the proxy writes them
    unchanged after `"message":`)."""
    start = record.index(b'"message":') + len(b'"message":')
    assert record.endswith(b"}")
    return record[start:-1]


def _kinds(transcript: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """(party, kind) of every message: which parties sent requests, notifications, results and
    errors (the kind read off the members the message has, for this summary only)."""
    out = set()
    for entry in transcript:
        message = entry["message"]
        kind = "request" if "method" in message and "id" in message else "notification" if "method" in message else "error" if "error" in message else "result"
        out.add((entry["from"], kind))
    return out


@pytest.mark.parametrize("pair", scenarios.PAIRS, ids=lambda p: p.name)
def test_sdk_sessions_through_the_proxy(pair: scenarios.Pair, tmp_path: Path) -> None:
    scenarios.skip_without_node(pair)
    session = scenarios.run(pair, tmp_path / "session.jsonl")
    assert session.returncode == 0, session.stderr[-3000:]
    out = session.client
    assert out is not None, session.stderr[-3000:]
    # the scenarios did what the SDKs say they did
    assert out["echo"] == ["hello"] and out["count"] == ["counted to 3"] and out["fail"] is True
    assert out["sampling"] == ["the model says: why?"] and out["roots"] == ["file:///tmp/specbind-scenario"]
    assert out["elicitation"][0].startswith("accept: ") and out["cancelled"] in ("MCPError", "McpError")
    assert out["missing"] in ("MCPError", "McpError")
    assert out["prompt"] == ["Please review this python code:\nx = 1"] and out["ping_again"] == "EmptyResult"
    # the proxy passed the session through and judged every message by spec/mcp's rules: nothing
    # on the SDKs' traffic, but where the Python SDK's MCPServer, as its documentation writes
    # it, logs without declaring logging (and the client, unstopped by the SDK, set a level)
    summary = session.proxy_lines[-1]
    found = sorted(line.split()[2] for line in session.proxy_lines[:-1])
    assert found == EXPECTED.get(pair.name, []), session.proxy_lines
    assert f"{len(session.transcript)} messages" in summary and f"; {len(found)} violations, 0 warnings;" in summary, session.proxy_lines
    # the server exits when the client closes its stdin; a client that waited long enough for it
    # then sends SIGTERM (the TypeScript SDK after 2 s, as the lifecycle page's shutdown says),
    # which the proxy passes on: 143 on a machine too loaded for the server to exit in time
    assert re.search(r"exited with status (0|143);", summary) and len(session.proxy_lines) == 1 + len(found), session.proxy_lines
    assert "a log line on stderr" in session.stderr  # the server's stderr reached the client's
    # the transcript: 2025-11-25 on the wire, both parties sending every kind of message
    first, answer = session.transcript[0], session.transcript[1]
    assert first["from"] == "client" and first["message"]["method"] == "initialize"
    assert first["message"]["params"]["protocolVersion"] == "2025-11-25"
    assert answer["from"] == "server" and answer["message"]["result"]["protocolVersion"] == "2025-11-25"
    kinds = _kinds(session.transcript)
    assert {("client", "request"), ("client", "notification"), ("client", "result"), ("server", "request"),
            ("server", "notification"), ("server", "result"), ("server", "error")} <= kinds, kinds
    # every message decodes strictly as the schema's JSONRPCMessage
    codec = _codec()
    for line in (tmp_path / "session.jsonl").read_bytes().splitlines():
        codec.decode(_message_bytes(line))


@pytest.mark.parametrize("sample", sorted(scenarios.SAMPLES.glob("*.jsonl")), ids=lambda p: p.stem)
def test_recorded_samples_decode_strictly(sample: Path) -> None:
    codec = _codec()
    lines = sample.read_bytes().splitlines()
    assert len(lines) > 40
    for line in lines:
        entry = json.loads(line)
        assert set(entry) == {"from", "message"} and entry["from"] in ("client", "server")
        codec.decode(_message_bytes(line))


def test_the_samples_are_the_pairings() -> None:
    assert {p.stem for p in scenarios.SAMPLES.glob("*.jsonl")} == {p.name for p in scenarios.PAIRS}
