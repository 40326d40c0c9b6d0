"""The HTTP binding against the official implementations, on loopback only (issue 6).

- Our client (`agui.http_client`) against a server built on the official Python SDK's encoder
  (`ag_ui.encoder.EventEncoder`, ag-ui-protocol 1.0.0) and its models.
- The official Node client (`@ag-ui/client` 1.0.0 `HttpAgent`) against `specbind serve` and
  against our server helper (`agui.http_server`).
- `specbind run` / `specbind serve` end to end: the report's transport fields and exit codes.

Where a peer diverges from the binding (seed 004), a test pins what the peer does today, with the
reason, so the divergence is documented and the test fails once it goes away.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui import core as sdk
from ag_ui.encoder import EventEncoder
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from agui import http_server
from agui.http_client import AgentClient, HTTPError, InputRejected, RunStream
from conftest import SPEC_AGUI, run_cli
from http_support import live, node_client, node_server, specbind_serve, specbind_serve_process, write_jsonl

INPUT: dict[str, Any] = {"threadId": "t1", "runId": "r1", "messages": [{"id": "u1", "role": "user", "content": "hi"}]}


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 30))


# -- a server on the official Python SDK -----------------------------------------------------------


def conversation(inp: sdk.RunAgentInput) -> list[sdk.BaseEvent]:
    t, r = inp.thread_id, inp.run_id
    return [
        sdk.RunStartedEvent(thread_id=t, run_id=r),
        sdk.StepStartedEvent(step_name="answer"),
        sdk.TextMessageStartEvent(message_id="m1", role="assistant"),
        sdk.TextMessageContentEvent(message_id="m1", delta="Let me "),
        sdk.TextMessageContentEvent(message_id="m1", delta="look \u00e9\U0001f600"),
        sdk.TextMessageEndEvent(message_id="m1"),
        sdk.ToolCallStartEvent(tool_call_id="c1", tool_call_name="search", parent_message_id="m1"),
        sdk.ToolCallArgsEvent(tool_call_id="c1", delta='{"q":'),
        sdk.ToolCallArgsEvent(tool_call_id="c1", delta='"x"}'),
        sdk.ToolCallEndEvent(tool_call_id="c1"),
        sdk.ToolCallResultEvent(message_id="tm1", tool_call_id="c1", content="found"),
        sdk.TextMessageChunkEvent(message_id="m2", delta="chunked "),
        sdk.TextMessageChunkEvent(delta="reply"),
        sdk.StateSnapshotEvent(snapshot={"n": 0}),
        sdk.StateDeltaEvent(delta=[{"op": "replace", "path": "/n", "value": 1}]),
        sdk.StepFinishedEvent(step_name="answer"),
        sdk.RunFinishedEvent(thread_id=t, run_id=r, result={"ok": True}),
    ]


def interrupted(inp: sdk.RunAgentInput) -> list[sdk.BaseEvent]:
    t, r = inp.thread_id, inp.run_id
    outcome = {"type": "interrupt", "interrupts": [{"id": "approve-1", "reason": "tool_approval"}]}
    return [sdk.RunStartedEvent(thread_id=t, run_id=r), sdk.RunFinishedEvent(thread_id=t, run_id=r, outcome=outcome)]


def failing(inp: sdk.RunAgentInput) -> list[sdk.BaseEvent]:
    return [sdk.RunStartedEvent(thread_id=inp.thread_id, run_id=inp.run_id), sdk.RunErrorEvent(message="boom", code="E1")]


def history(inp: sdk.RunAgentInput) -> list[sdk.BaseEvent]:
    """A replayed history ahead of the requested run: three runs on one POST."""
    t = inp.thread_id
    return [
        sdk.RunStartedEvent(thread_id=t, run_id="old-1"),
        sdk.RunFinishedEvent(thread_id=t, run_id="old-1"),
        sdk.RunStartedEvent(thread_id=t, run_id="old-2"),
        sdk.RunErrorEvent(message="old failure"),
        *conversation(inp),
    ]


SCENARIOS: dict[str, Callable[[sdk.RunAgentInput], list[sdk.BaseEvent]]] = {
    "conversation": conversation,
    "interrupted": interrupted,
    "failing": failing,
    "history": history,
}


class SDKAgent:
    """A Starlette agent endpoint written the way the official Python SDK's examples write one:
    pydantic RunAgentInput, `EventEncoder().encode(event)`, a StreamingResponse."""

    def __init__(self) -> None:
        self.requests: list[tuple[dict[str, str], sdk.RunAgentInput]] = []
        self.gate = threading.Event()
        routes = [Route("/{scenario}", self.endpoint, methods=["POST"])]
        self.app = Starlette(routes=routes)

    async def endpoint(self, request: Request) -> Response:
        scenario = request.path_params["scenario"]
        if scenario == "auth":
            return JSONResponse({"detail": "missing credentials"}, status_code=401)
        try:
            inp = sdk.RunAgentInput.model_validate_json(await request.body())
        except ValidationError as exc:
            return JSONResponse({"detail": json.loads(exc.json())}, status_code=422)
        self.requests.append((dict(request.headers), inp))
        encoder = EventEncoder(accept=request.headers.get("accept"))

        async def events() -> AsyncIterator[str]:
            if scenario == "cut":  # the agent dies after the stream opened: uvicorn resets
                yield encoder.encode(sdk.RunStartedEvent(thread_id=inp.thread_id, run_id=inp.run_id))
                yield encoder.encode(sdk.TextMessageStartEvent(message_id="m1", role="assistant"))
                yield encoder.encode(sdk.TextMessageContentEvent(message_id="m1", delta="half"))
                await asyncio.sleep(0.05)
                raise RuntimeError("agent process died")
            batch = conversation(inp) if scenario == "incremental" else SCENARIOS[scenario](inp)
            for i, event in enumerate(batch):
                if scenario == "incremental" and i == 1:  # hold the rest until the client saw one
                    assert await asyncio.to_thread(self.gate.wait, 20)
                yield encoder.encode(event)

        return StreamingResponse(events(), media_type=encoder.get_content_type())


@pytest.fixture(scope="module")
def sdk_agent() -> Any:
    agent = SDKAgent()
    with live(agent.app) as base:
        agent.base = base  # type: ignore[attr-defined]
        yield agent


async def consume(url: str, document: dict[str, Any] = INPUT, client: AgentClient | None = None) -> RunStream:
    if client is not None:
        async with client.run(document) as stream:
            return await stream.drain()
    async with AgentClient(url, keep_delivered=True) as own:
        async with own.run(document) as stream:
            return await stream.drain()


def test_our_client_reads_the_sdk_encoder_stream(sdk_agent: Any) -> None:
    stream = run(consume(f"{sdk_agent.base}/conversation"))
    assert stream.status == 200 and stream.media_type == "text/event-stream"
    assert stream.outcome == "completed" and stream.run_outcome == "finished"
    assert stream.violations == [] and not stream.truncated
    projection = stream.consumer.projection
    texts = {m.id: m.content for m in projection.messages if isinstance(getattr(m, "content", None), str)}
    assert texts["m1"] == "Let me look \u00e9\U0001f600" and texts["m2"] == "chunked reply"
    assert texts["tm1"] == "found"
    assert projection.state == {"n": 1}
    types = [e.type for e in stream.consumer.delivered]
    assert types.count("TEXT_MESSAGE_START") == 2  # the chunk stream expanded
    # our request, as the SDK's pydantic model read it
    headers, inp = sdk_agent.requests[-1]
    assert (inp.thread_id, inp.run_id, inp.messages[0].content) == ("t1", "r1", "hi")
    assert headers["accept"] == "text/event-stream" and headers["content-type"] == "application/json"
    assert "last-event-id" not in headers


def test_events_reach_us_before_the_sdk_server_sends_the_rest(sdk_agent: Any) -> None:
    sdk_agent.gate.clear()

    async def go() -> list[str]:
        seen = []
        async with AgentClient(f"{sdk_agent.base}/incremental") as client:
            async with client.run(INPUT) as stream:
                async for event in stream:
                    seen.append(event.type)
                    sdk_agent.gate.set()
        return seen

    try:
        seen = run(go())
    finally:
        sdk_agent.gate.set()
    assert seen[0] == "RUN_STARTED" and seen[-1] == "RUN_FINISHED"


def test_sdk_server_run_error_fails_the_run(sdk_agent: Any) -> None:
    stream = run(consume(f"{sdk_agent.base}/failing"))
    assert stream.run_outcome == "failed" and stream.outcome == "completed"
    assert stream.consumer.projection.run_errors == ["boom"]


def test_several_runs_on_one_post(sdk_agent: Any) -> None:
    stream = run(consume(f"{sdk_agent.base}/history"))
    assert [r["state"] for r in stream.runs] == ["finished", "failed", "finished"]
    assert stream.run_outcome == "finished" and stream.outcome == "completed"


def test_sdk_server_cut_mid_run_is_truncated(sdk_agent: Any) -> None:
    stream = run(consume(f"{sdk_agent.base}/cut"))
    assert stream.truncated and stream.run_outcome == "truncated"
    assert stream.transport_error is not None  # the chunked body never ended
    assert [f.rule for f in stream.violations] == ["RUN-TRUNCATED"]
    assert "RUN_FINISHED" not in [e.type for e in stream.consumer.delivered]
    assert stream.consumer.projection.messages[-1].content == "half"


def test_http_error_before_the_stream(sdk_agent: Any) -> None:
    with pytest.raises(HTTPError) as caught:
        run(consume(f"{sdk_agent.base}/auth"))
    assert caught.value.status == 401 and caught.value.problem == {"detail": "missing credentials"}


def test_resume_checked_before_anything_reaches_the_sdk_server(sdk_agent: Any) -> None:
    async def go() -> None:
        async with AgentClient(f"{sdk_agent.base}/interrupted") as client:
            await consume("", INPUT, client)
            assert [i.id for i in client.open_interrupts("t1")] == ["approve-1"]
            before = len(sdk_agent.requests)
            with pytest.raises(InputRejected) as caught:
                client.run({**INPUT, "runId": "r2"})  # answers nothing: uncovered
            assert [f.rule for f in caught.value.findings] == ["RESUME-COVERAGE"]
            assert len(sdk_agent.requests) == before
            resumed = {**INPUT, "runId": "r2", "resume": [{"interruptId": "approve-1", "status": "resolved", "payload": {"ok": True}}]}
            await consume("", resumed, client)
            _, inp = sdk_agent.requests[-1]
            assert inp.resume is not None and inp.resume[0].interrupt_id == "approve-1"

    run(go())


# -- the command line ----------------------------------------------------------------------------


def test_specbind_run_against_the_sdk_server(sdk_agent: Any) -> None:
    result = run_cli("run", "--spec", SPEC_AGUI, "--json", f"{sdk_agent.base}/conversation")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    for key in ("outcome", "violations", "warnings", "events", "runs", "messages", "state", "runErrors", "delivered", "request"):
        assert key in report, key
    assert report["transport"] == {"status": 200, "truncated": False}
    assert report["outcome"] == "completed" and report["events"][-1] == "RUN_FINISHED"
    assert report["state"] == {"n": 1}


def test_specbind_run_reports_truncation_and_http_errors(sdk_agent: Any, tmp_path: Path) -> None:
    cut = run_cli("run", "--spec", SPEC_AGUI, "--json", f"{sdk_agent.base}/cut")
    assert cut.exit_code == 1
    report = json.loads(cut.output)
    assert report["transport"]["status"] == 200 and report["transport"]["truncated"] is True
    assert [v["rule"] for v in report["violations"]] == ["RUN-TRUNCATED"]
    assert "RUN_FINISHED" not in report["events"]
    human = run_cli("run", "--spec", SPEC_AGUI, f"{sdk_agent.base}/cut")
    assert human.exit_code == 1 and "TRUNCATED" in human.output
    refused = run_cli("run", "--spec", SPEC_AGUI, "--json", f"{sdk_agent.base}/auth")
    assert refused.exit_code == 3
    report = json.loads(refused.output)
    assert report["outcome"] == "rejected" and report["events"] == []
    assert report["transport"]["status"] == 401 and report["transport"]["truncated"] is False
    assert report["transport"]["problem"] == {"detail": "missing credentials"}
    bad = tmp_path / "bad.json"
    bad.write_text('{"threadId": "t", "runId": 5, "messages": []}')
    invalid = run_cli("run", "--spec", SPEC_AGUI, "--input", bad, f"{sdk_agent.base}/conversation")
    assert invalid.exit_code == 2 and "/runId" in invalid.output
    requests_before = len(sdk_agent.requests)
    assert run_cli("run", "--spec", SPEC_AGUI, "--input", bad, f"{sdk_agent.base}/x").exit_code == 2
    assert len(sdk_agent.requests) == requests_before


def test_specbind_run_resume_check_with_finished(sdk_agent: Any, tmp_path: Path) -> None:
    finished = tmp_path / "finished.json"
    finished.write_text(json.dumps({"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1", "outcome": {"type": "interrupt", "interrupts": [{"id": "i1", "reason": "x"}]}}))
    uncovered = tmp_path / "input.json"
    uncovered.write_text(json.dumps(INPUT))
    result = run_cli("run", "--spec", SPEC_AGUI, "--input", uncovered, "--finished", finished, f"{sdk_agent.base}/conversation")
    assert result.exit_code == 2 and "RESUME-COVERAGE" in result.output


# -- the official Node client ---------------------------------------------------------------------


def test_node_client_against_specbind_serve_demo() -> None:
    with specbind_serve() as url:
        report = node_client(url, INPUT)
    assert report["error"] is None, report
    types = [e["type"] for e in report["events"]]
    assert types[0] == "RUN_STARTED" and types[-1] == "RUN_FINISHED"
    assert report["events"][0]["threadId"] == "t1" and report["events"][0]["runId"] == "r1"
    assert report["newMessages"] == [{"id": "r1-reply", "role": "assistant", "content": "You said: hi"}]
    assert report["state"] == {"turns": 2}


def test_node_client_against_a_recorded_stream_with_keepalives_and_runs(tmp_path: Path) -> None:
    """Two runs on one response, paced so keep-alive comments fall between events."""
    events = [
        {"type": "RUN_STARTED", "threadId": "t1", "runId": "r0"},
        {"type": "TEXT_MESSAGE_START", "messageId": "a", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a", "delta": "first"},
        {"type": "TEXT_MESSAGE_END", "messageId": "a"},
        {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r0"},
        {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "b", "delta": "second"},
        {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
    ]
    path = write_jsonl(tmp_path / "two-runs.jsonl", events)
    with specbind_serve(path, "--keepalive", "0.02", "--delay", "0.05") as url:
        report = node_client(url, INPUT)
        raw = httpx.post(url, json=INPUT, timeout=30)
    assert raw.content.count(b": keep-alive\n\n") >= 2  # comments were on the wire
    assert report["error"] is None, report
    assert [e["type"] for e in report["events"]].count("RUN_FINISHED") == 2
    contents = [m["content"] for m in report["messages"] if m["role"] == "assistant"]
    assert contents == ["first", "second"]


def test_node_client_meets_a_4xx_with_no_stream() -> None:
    async def guarded(run: http_server.RunContext) -> AsyncIterator[Any]:
        if run.request.headers.get("authorization") != "Bearer ok":
            raise http_server.Reject(401, "no credentials")
        async for event in http_server.demo(run):
            yield event

    with live(http_server.create_app(guarded, path="/agent")) as base:
        refused = node_client(f"{base}/agent", INPUT)
        allowed = node_client(f"{base}/agent", {**INPUT, "headers": {"Authorization": "Bearer ok"}})
    assert refused["events"] == [] and refused["error"]["status"] == 401
    # divergence: @ag-ui/client parses an error body as JSON only when its Content-Type contains
    # "application/json"; application/problem+json stays a string (payload is the raw text)
    assert isinstance(refused["error"]["payload"], str)
    assert json.loads(refused["error"]["payload"])["detail"] == "no credentials"
    assert allowed["error"] is None and allowed["events"][-1]["type"] == "RUN_FINISHED"


def test_node_client_sends_what_our_server_validates() -> None:
    """Every input the official client builds passes our server's strict validation."""
    seen: list[Any] = []

    async def record(run: http_server.RunContext) -> AsyncIterator[Any]:
        seen.append(run)
        async for event in http_server.demo(run):
            yield event

    request = {**INPUT, "state": {"a": [1, 2]}, "resume": [{"interruptId": "i0", "status": "cancelled"}]}
    with live(http_server.create_app(record, lenient=False, check=True)) as base:
        report = node_client(base + "/", request)
    assert report["error"] is None, report
    (context,) = seen
    assert context.warnings == () and context.input.state == {"a": [1, 2]}
    assert context.request.headers["accept"] == "text/event-stream"
    assert "last-event-id" not in context.request.headers


def test_node_client_against_producer_mode_violation(tmp_path: Path) -> None:
    events = [
        {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "ghost", "delta": "x"},
        {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
    ]
    path = write_jsonl(tmp_path / "bad.jsonl", events)
    with specbind_serve(path, "--check") as url:
        report = node_client(url, INPUT)
    types = [e["type"] for e in report["events"]]
    assert types == ["RUN_STARTED", "RUN_ERROR"], report
    assert "TEXT-REQUIRES-OPEN" in report["events"][1]["message"]


def test_node_client_does_not_report_a_truncated_run(tmp_path: Path) -> None:
    """Divergence (seed 004, "a connection that drops without a terminal event is a truncated
    run"): @ag-ui/client 1.0.0 resolves runAgent() normally when the body ends while a run is
    active: no error, no warning, and the partial message lands in newMessages as if complete.
    Ours reports the run as truncated (test_specbind_run_reports_truncation_and_http_errors)."""
    events = [
        {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "partial"},
    ]
    path = write_jsonl(tmp_path / "truncated.jsonl", events)
    with specbind_serve(path) as url:
        report = node_client(url, INPUT)
        ours = run_cli("run", "--spec", SPEC_AGUI, "--json", url)
    assert report["error"] is None and report["warnings"] == []
    assert report["newMessages"] == [{"id": "m1", "role": "assistant", "content": "partial"}]
    assert json.loads(ours.output)["transport"]["truncated"] is True and ours.exit_code == 1


def test_node_client_on_a_connection_reset_mid_run(sdk_agent: Any) -> None:
    """Bug in @ag-ui/client 1.0.0: a connection reset mid-run does reject runAgent() ("TypeError:
    terminated"), but tearing the request down then calls `reader.cancel()`, which rejects with
    the same TypeError, and runHttpRequest's teardown `reader.cancel().catch(e => { if (e?.name
    !== "AbortError") throw e })` rethrows it where nobody listens: an unhandled rejection, which
    ends a Node >= 15 process by default. (http_peer.cjs catches it to report it.) Ours records
    the run as truncated (test_sdk_server_cut_mid_run_is_truncated)."""
    report = node_client(f"{sdk_agent.base}/cut", INPUT, unhandled=True)
    assert report["error"]["message"] == "terminated"
    assert [e["type"] for e in report["events"]] == ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"]
    assert report["unhandled"] == ["TypeError: terminated"]


def test_node_client_reads_the_sdk_encoder_stream_as_we_do(sdk_agent: Any) -> None:
    """The control for the pair above: both official peers together, and ours, agree."""
    report = node_client(f"{sdk_agent.base}/conversation", INPUT)
    ours = run(consume(f"{sdk_agent.base}/conversation"))
    assert report["error"] is None
    assert [e["type"] for e in report["events"]] == [e.type for e in ours.consumer.delivered]
    assert report["state"] == ours.consumer.projection.state == {"n": 1}


def test_node_client_framing_divergence_crlf() -> None:
    """Divergence, allowed by seed 004 (a producer MUST frame with LF; a consumer MAY accept the
    full grammar): @ag-ui/client 1.0.0 splits events on "\\n\\n" only, so a CRLF-framed stream
    is read as one event at the end of the body and fails to parse. Ours reads it."""
    body = b"".join(
        b"data: " + json.dumps(e).encode() + b"\r\n\r\n"
        for e in (
            {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
            {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
        )
    )

    async def crlf(request: Request) -> Response:
        return Response(body, media_type="text/event-stream")

    with live(Starlette(routes=[Route("/", crlf, methods=["POST"])])) as base:
        node = node_client(base + "/", INPUT)
        ours = run(consume(base + "/"))
    assert node["error"] is not None and node["events"] == []
    assert ours.run_outcome == "finished" and ours.outcome == "completed"


# -- `specbind serve` refuses bad input before any stream ---------------------------------------


def test_specbind_serve_refuses_bad_input_with_a_problem() -> None:
    with specbind_serve() as url:
        malformed = httpx.post(url, content=b"{oops", headers={"content-type": "application/json"}, timeout=30)
        invalid = httpx.post(url, json={"threadId": "t", "runId": 3, "messages": []}, timeout=30)
        not_json = httpx.post(url, content=b"x", headers={"content-type": "text/plain"}, timeout=30)
        wrong_accept = httpx.post(url, json=INPUT, headers={"accept": "application/json"}, timeout=30)
        good = httpx.post(url, json=INPUT, timeout=30)
    for response, status in ((malformed, 400), (invalid, 422), (not_json, 415), (wrong_accept, 406)):
        assert response.status_code == status
        assert response.headers["content-type"] == "application/problem+json"
        assert b"data:" not in response.content
        assert response.json()["status"] == status
    assert invalid.json()["errors"][0]["pointer"] == "/runId"
    assert good.status_code == 200 and good.content.endswith(b"\n\n")


# -- the official Node encoder (@ag-ui/encoder), SSE and protobuf ---------------------------------


@pytest.mark.parametrize("proto", [False, True], ids=["sse", "protobuf"])
def test_our_client_against_the_node_encoder_server(proto: bool) -> None:
    async def go(base: str) -> RunStream:
        async with AgentClient(f"{base}/conversation", proto=proto, keep_delivered=True) as client:
            async with client.run(INPUT) as stream:
                return await stream.drain()

    with node_server() as base:
        stream = run(go(base))
        seen = httpx.get(f"{base}/last", timeout=30).json()
    assert stream.media_type == ("application/vnd.ag-ui.event+proto" if proto else "text/event-stream")
    assert stream.outcome == "completed" and stream.run_outcome == "finished" and stream.violations == []
    by_id = {m.id: m for m in stream.consumer.projection.messages}
    assert by_id["m1"].content == "Hello w\u00f6rld \U0001f600" and by_id["m1"].tool_calls[0].id == "c1"
    assert stream.consumer.projection.state == {"count": 1, "tags": ["a", "b"], "done": True}
    assert seen["input"]["threadId"] == "t1" and "last-event-id" not in seen["headers"]
    assert ("application/vnd.ag-ui.event+proto" in seen["headers"]["accept"]) is proto


@pytest.mark.parametrize("proto", [False, True], ids=["sse", "protobuf"])
def test_node_encoder_server_cut_mid_frame_and_run_error(proto: bool) -> None:
    async def go(url: str) -> RunStream:
        async with AgentClient(url, proto=proto) as client:
            async with client.run(INPUT) as stream:
                return await stream.drain()

    with node_server() as base:
        cut = run(go(f"{base}/cut"))
        failed = run(go(f"{base}/error"))
    assert cut.truncated and cut.run_outcome == "truncated" and cut.cut_inside_frame
    assert [f.rule for f in cut.violations] == ["RUN-TRUNCATED"]
    assert failed.run_outcome == "failed" and failed.consumer.projection.run_errors == ["boom"]


def test_node_client_reads_our_protobuf_stream() -> None:
    """HttpAgent never asks for protobuf itself, but reads a protobuf response by its
    Content-Type: with a fetch that asks, it decodes `specbind serve`'s frames (@ag-ui/proto)."""
    with specbind_serve() as url:
        binary = node_client(url, {**INPUT, "proto": True})
        text = node_client(url, INPUT)
    assert binary["accepts"] == ["application/vnd.ag-ui.event+proto, text/event-stream"]
    assert binary["error"] is None, binary
    assert binary["events"] == text["events"]
    assert binary["messages"] == text["messages"] and binary["state"] == text["state"] == {"turns": 2}


def test_specbind_run_proto_against_specbind_serve() -> None:
    with specbind_serve() as url:
        binary = run_cli("run", "--spec", SPEC_AGUI, "--proto", "--json", url)
        human = run_cli("run", "--spec", SPEC_AGUI, "--proto", url)
        text = run_cli("run", "--spec", SPEC_AGUI, "--json", url)
    assert binary.exit_code == 0, binary.output
    report, plain = json.loads(binary.output), json.loads(text.output)
    assert report["transport"] == plain["transport"] == {"status": 200, "truncated": False}
    assert report["events"] == plain["events"] and report["outcome"] == "completed"
    assert "application/vnd.ag-ui.event+proto" in human.output


def test_media_type_choice_next_to_the_node_encoder() -> None:
    """A deliberate difference: @ag-ui/encoder sends protobuf to any Accept its negotiator
    matches, `*/*` included (curl's default); ours sends protobuf only to a client that names
    the media type, so a generic client never gets a binary body it did not ask for."""
    with node_server() as base:
        theirs = httpx.post(f"{base}/conversation", json=INPUT, headers={"accept": "*/*"}, timeout=30)
    with specbind_serve() as url:
        ours = httpx.post(url, json=INPUT, headers={"accept": "*/*"}, timeout=30)
        named = httpx.post(url, json=INPUT, headers={"accept": "application/vnd.ag-ui.event+proto"}, timeout=30)
    assert theirs.headers["content-type"] == "application/vnd.ag-ui.event+proto"
    assert ours.headers["content-type"].startswith("text/event-stream")
    assert named.headers["content-type"] == "application/vnd.ag-ui.event+proto"


# -- our server on a real socket -------------------------------------------------------------------


def test_a_client_going_away_stops_the_handler() -> None:
    """The handler is cancelled and its `finally` runs when the client disconnects mid-run, and
    keep-alive comments flowed while it was silent."""
    stopped = threading.Event()

    async def endless(run: http_server.RunContext) -> AsyncIterator[Any]:
        try:
            yield {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"}
            while True:
                await asyncio.sleep(0.05)
        finally:
            stopped.set()

    async def go(url: str) -> bytes:
        seen = b""
        async with httpx.AsyncClient(timeout=10) as http:
            async with http.stream("POST", url, json=INPUT) as response:
                async for chunk in response.aiter_bytes():
                    seen += chunk
                    if seen.count(b": keep-alive") >= 2:
                        break
        return seen

    with live(http_server.create_app(endless, keepalive=0.05)) as base:
        seen = run(go(base + "/"))
        assert stopped.wait(10), "the handler was not stopped"
    assert seen.startswith(b'data: {"type":"RUN_STARTED"')


def test_specbind_serve_a_captured_sse_file(tmp_path: Path) -> None:
    """A capture in any SSE framing (CRLF, comments, ids) is served re-framed, LF only."""
    events = [
        {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "caf\u00e9"},
        {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
    ]
    capture = tmp_path / "capture.sse"
    capture.write_bytes(
        b"\xef\xbb\xbf: recorded\r\n\r\n"
        + b"".join(b"id: %d\r\ndata: " % i + json.dumps(e).encode() + b"\r\n\r\n" for i, e in enumerate(events))
    )
    with specbind_serve(capture) as url:
        raw = httpx.post(url, json=INPUT, timeout=30)
        report = run_cli("run", "--spec", SPEC_AGUI, "--json", url)
    assert b"\r" not in raw.content and raw.content.count(b"data: ") == 3
    parsed = json.loads(report.output)
    assert report.exit_code == 0 and parsed["messages"][-1]["content"] == "caf\u00e9"


def test_specbind_serve_accepts_connections_once_it_prints_its_url() -> None:
    """Scripts start a client on the `serving ... at URL` line. The socket must be listening by
    then: stopping the server right after that line, a connection is still taken (queued by the
    kernel), never refused. (Before the fix uvicorn's own listen() came later, and a CI run lost
    a test to the gap.)"""
    with specbind_serve_process() as (url, proc):
        os.kill(proc.pid, signal.SIGSTOP)
        port = int(url.rsplit(":", 1)[1].split("/", 1)[0])
        with socket.create_connection(("127.0.0.1", port), timeout=10):
            pass
        os.kill(proc.pid, signal.SIGCONT)
        assert httpx.post(url, json=INPUT, timeout=30).status_code == 200
