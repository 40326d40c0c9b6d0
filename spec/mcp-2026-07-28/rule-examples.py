"""Writes rule-examples.json beside it: for every rule of mcp.rules (MCP 2026-07-28), transcripts
that break it (`violates`, each drawing exactly the findings named in `exactly`) and transcripts
that keep it (`satisfies`), built from a few conversation pieces so that each example differs
from a conformant session in the one place its rule is about.

    python spec/mcp-2026-07-28/rule-examples.py    # rewrites spec/mcp-2026-07-28/rule-examples.json

tests/test_mcp_rules_2026.py checks that the JSON file is what this script writes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
VERSION = "2026-07-28"

Entry = dict[str, Any]
ALL_CLIENT = {"sampling": {}, "elicitation": {"form": {}, "url": {}}, "roots": {}}


def meta(caps: dict[str, Any] | None = None, **more: Any) -> dict[str, Any]:
    """A request's _meta: the version and capabilities every request carries, and who it is."""
    return {
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientInfo": {"name": "example-client", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": ALL_CLIENT if caps is None else caps,
        **more,
    }


SERVER_META = {"io.modelcontextprotocol/serverInfo": {"name": "example-server", "version": "1.0.0"}}


def client(**message: Any) -> Entry:
    return {"from": "client", "message": {"jsonrpc": "2.0", **message}}


def server(**message: Any) -> Entry:
    return {"from": "server", "message": {"jsonrpc": "2.0", **message}}


def request(ident: Any, method: str, params: dict[str, Any] | None = None, caps: dict[str, Any] | None = None, **more_meta: Any) -> Entry:
    """A client's request, with the _meta every request carries."""
    return client(id=ident, method=method, params={**(params or {}), "_meta": meta(caps, **more_meta)})


def notify(sender: str, method: str, params: dict[str, Any] | None = None) -> Entry:
    message: dict[str, Any] = {"method": method}
    if params is not None:
        message["params"] = params
    return (client if sender == "client" else server)(**message)


def result(ident: Any, payload: dict[str, Any], result_type: str = "complete") -> Entry:
    """The server's result, with its resultType and serverInfo."""
    return server(id=ident, result={"resultType": result_type, **payload, "_meta": {**SERVER_META, **payload.get("_meta", {})}})


def error(ident: Any, code: int = -32601, text: str = "Method not found", data: Any = None) -> Entry:
    body: dict[str, Any] = {"code": code, "message": text}
    if data is not None:
        body["data"] = data
    return server(id=ident, error=body)


TOOL_RESULT = {"content": [{"type": "text", "text": "72F"}]}
CACHED = {"cacheScope": "private", "ttlMs": 0}  # what every list result carries (server/utilities/caching)
TOOLS = {"tools": [], **CACHED}
PROMPTS = {"prompts": [], **CACHED}
CALL = {"name": "weather", "arguments": {"city": "Paris"}}
SAMPLE = {"method": "sampling/createMessage", "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 10}}
FORM = {"method": "elicitation/create", "params": {"mode": "form", "message": "Your name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}
URL = {"method": "elicitation/create", "params": {"mode": "url", "message": "Sign in", "url": "https://example.com/auth", "elicitationId": "e-1"}}
ROOTS = {"method": "roots/list"}
ANSWERS = {"ask_name": {"action": "accept", "content": {"name": "Ada"}}}


def asking(requests: dict[str, Any] | None = None, state: str | None = "s-1") -> dict[str, Any]:
    """An InputRequiredResult's payload (without its resultType)."""
    out: dict[str, Any] = {}
    if requests is not None:
        out["inputRequests"] = requests
    if state is not None:
        out["requestState"] = state
    return out


def listen(ident: Any, **filters: Any) -> Entry:
    return request(ident, "subscriptions/listen", {"notifications": filters})


def on_stream(method: str, sub: Any, **params: Any) -> Entry:
    return notify("server", method, {"_meta": {"io.modelcontextprotocol/subscriptionId": sub}, **params})


def acknowledged(sub: Any, **filters: Any) -> Entry:
    return on_stream("notifications/subscriptions/acknowledged", sub, notifications=filters)


# Each example: (rule, violates: [(note, stream, exactly)], satisfies: [(note, stream)])
EXAMPLES: dict[str, dict[str, list[dict[str, Any]]]] = {}


def example(rule: str, violates: list[tuple[str, list[Entry], list[str] | None]], satisfies: list[tuple[str, list[Entry]]] = ()) -> None:  # type: ignore[assignment]
    EXAMPLES[rule] = {
        "violates": [{"note": note, "stream": stream, "exactly": exactly if exactly is not None else [rule]} for note, stream, exactly in violates],
        "satisfies": [{"note": note, "stream": stream} for note, stream in satisfies],
    }


# -- messages and correlation -------------------------------------------------------------------

example(
    "MSG-JSONRPC",
    [
        ("a request whose id is null", [client(id=None, method="tools/list", params={"_meta": meta()})], None),
        ("a request without the _meta every request carries", [client(id=1, method="tools/list"), error(1, -32602, "Invalid params")], None),
        ("a request whose _meta names no protocol version", [client(id=1, method="tools/list", params={"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}), error(1, -32602, "Invalid params")], None),
        ("a result without its resultType", [request(1, "tools/list"), server(id=1, result={**TOOLS, "_meta": SERVER_META})], None),
        ("an error whose code is not an integer", [request(1, "tools/list"), server(id=1, error={"code": 1.5, "message": "odd"})], None),
        ("a batch: MCP messages are single", [{"from": "client", "message": [{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}}]}], None),
        ("a line that was no JSON on the wire, as specbind proxy records it", [{"from": "server", "raw": "Starting server..."}], None),
        ("an input request of a method InputRequest does not have", [request(1, "tools/call", CALL), result(1, asking({"ask": {"method": "ping"}}), "input_required")], None),
    ],
    [
        ("a request with its _meta, answered with its resultType", [request(1, "tools/list"), result(1, TOOLS)]),
        ("an error that could name no request", [server(error={"code": -32700, "message": "Parse error"})]),
    ],
)
example(
    "MSG-KIND",
    [
        ("a request method sent without an id", [client(method="tools/list", params={"_meta": meta()})], None),
        ("a notification sent with an id", [request(1, "tools/call", CALL), client(id=5, method="notifications/cancelled", params={"requestId": 1}), result(1, TOOL_RESULT)], None),
    ],
    [("the same methods as they are defined", [request(1, "tools/call", CALL), notify("client", "notifications/cancelled", {"requestId": 1})])],
)
example(
    "MSG-SENDER",
    [("the client sends a progress notification, which the server sends", [request(1, "tools/call", CALL, progressToken="p-1"), notify("client", "notifications/progress", {"progressToken": "p-1", "progress": 1}), result(1, TOOL_RESULT)], None)],
    [("the server sends it", [request(1, "tools/call", CALL, progressToken="p-1"), notify("server", "notifications/progress", {"progressToken": "p-1", "progress": 1}), result(1, TOOL_RESULT)])],
)
example(
    "SERVER-REQUEST",
    [
        ("the server asks for a sample with a request, as 2025-11-25's servers did", [request(1, "tools/call", CALL), server(id="s1", method="sampling/createMessage", params=SAMPLE["params"]), result(1, TOOL_RESULT)], None),
        ("the server pings, which 2026-07-28 removed", [server(id="p1", method="ping")], None),
    ],
    [("the server asks for the sample in an InputRequiredResult instead", [request(1, "tools/call", CALL), result(1, asking({"ask": SAMPLE}), "input_required")])],
)
example(
    "MSG-METHOD",
    [
        ("a ping, which 2026-07-28 removed", [client(id=1, method="ping"), error(1)], None),
        ("a notification 2026-07-28 removed", [request(1, "tools/call", CALL), notify("server", "notifications/elicitation/complete", {"elicitationId": "e-1"}), result(1, TOOL_RESULT)], None),
    ],
    [("an extension's method, answered as unknown", [request(1, "tools/call", CALL), error(1, -32601, "Method not found")])],
)
example(
    "ID-REUSED",
    [("an id reused while its request is outstanding", [request(1, "tools/list"), request(1, "prompts/list"), result(1, TOOLS)], None)],
    [
        ("fresh ids", [request(1, "tools/list"), result(1, TOOLS), request(2, "prompts/list"), result(2, PROMPTS)]),
        ("an id used again once its request was answered (2025-11-25 forbade it)", [request(1, "tools/list"), result(1, TOOLS), request(1, "prompts/list"), result(1, PROMPTS)]),
        ("1 and \"1\" are different ids", [request(1, "tools/list"), request("1", "prompts/list"), result(1, TOOLS), result("1", PROMPTS)]),
    ],
)
example(
    "RESP-ID",
    [
        ("a result answering no request", [result(7, TOOLS)], None),
        ("an error answering no request", [error(7)], None),
        ("the client sends a response", [request(3, "tools/list"), client(id=3, result={"resultType": "complete", **TOOLS}), result(3, TOOLS)], None),
    ],
    [("the same result with its request", [request(7, "tools/list"), result(7, TOOLS)])],
)
example(
    "RESP-AGAIN",
    [
        ("a second result to one request", [request(1, "tools/list"), result(1, TOOLS), result(1, TOOLS)], None),
        ("an error after the result", [request(1, "tools/list"), result(1, TOOLS), error(1)], None),
    ],
    [("one answer each", [request(1, "tools/list"), request(2, "prompts/list"), result(2, PROMPTS), result(1, TOOLS)])],
)
example(
    "RESULT-TYPE",
    [
        ("tools/list answered with a GetPromptResult", [request(1, "tools/list"), result(1, {"messages": []})], None),
        ("tools/list answered with its list, less what every list result carries", [request(1, "tools/list"), result(1, {"tools": []})], None),
    ],
    [
        ("tools/list answered with its list", [request(1, "tools/list"), result(1, TOOLS)]),
        ("tools/call answered with an InputRequiredResult", [request(1, "tools/call", CALL), result(1, asking({"ask": FORM}), "input_required")]),
    ],
)
example(
    "RESULT-TYPE-KNOWN",
    [("a resultType the core protocol does not define, to a request that advertised no extension", [request(1, "tools/call", CALL), result(1, {"task": {"taskId": "t-1", "status": "working"}}, "task")], None)],
    [
        ("complete", [request(1, "tools/call", CALL), result(1, TOOL_RESULT)]),
        ("an extension's value, to a request that advertised extensions", [request(1, "tools/call", CALL, {**ALL_CLIENT, "extensions": {"io.modelcontextprotocol/tasks": {}}}), result(1, {"task": {"taskId": "t-1", "status": "working"}}, "task")]),
    ],
)
example(
    "REQ-UNANSWERED",
    [("a request never answered nor cancelled", [request(1, "tools/list")], None)],
    [("the request cancelled after a while", [request(1, "tools/list"), notify("client", "notifications/cancelled", {"requestId": 1, "reason": "timeout"})])],
)
example(
    "CLIENT-INFO",
    [("a request without clientInfo", [client(id=1, method="tools/list", params={"_meta": {"io.modelcontextprotocol/protocolVersion": VERSION, "io.modelcontextprotocol/clientCapabilities": {}}}), result(1, TOOLS)], None)],
    [("with it", [request(1, "tools/list"), result(1, TOOLS)])],
)
example(
    "SERVER-INFO",
    [("a result without serverInfo", [request(1, "tools/list"), server(id=1, result={"resultType": "complete", **TOOLS})], None)],
    [("with it", [request(1, "tools/list"), result(1, TOOLS)])],
)
example(
    "ERROR-CODE-RESERVED",
    [("a code in the reserved range the specification does not define", [request(1, "tools/call", CALL), error(1, -32050, "Busy")], None)],
    [
        ("a defined code", [request(1, "tools/call", CALL), error(1, -32021, "Missing required client capability", {"requiredCapabilities": {"sampling": {}}})]),
        ("an application code outside the JSON-RPC range", [request(1, "tools/call", CALL), error(1, -1, "Busy")]),
    ],
)
example(
    "ERROR-CODE-RETIRED",
    [
        ("2025-11-25's resource not found", [request(1, "resources/read", {"uri": "file:///a"}), error(1, -32002, "Resource not found")], None),
        ("2025-11-25's URL elicitation required", [request(1, "tools/call", CALL), error(1, -32042, "URL elicitation required")], None),
    ],
    [("resource not found as -32602", [request(1, "resources/read", {"uri": "file:///a"}), error(1, -32602, "Resource not found")])],
)
example(
    "ERROR-CODE-LEGACY",
    [("a code of the legacy range", [request(1, "tools/call", CALL), error(1, -32001, "Timeout")], None)],
    [("an application code", [request(1, "tools/call", CALL), error(1, 1001, "Timeout")])],
)

# -- cancellation -------------------------------------------------------------------------------

example(
    "CANCEL-UNKNOWN",
    [("cancelling a request never made", [notify("client", "notifications/cancelled", {"requestId": 9})], None)],
    [
        ("cancelling an outstanding request", [request(4, "tools/list"), notify("client", "notifications/cancelled", {"requestId": 4, "reason": "user"})]),
        ("a cancellation that crossed the answer", [request(4, "tools/list"), result(4, TOOLS), notify("client", "notifications/cancelled", {"requestId": 4})]),
    ],
)
example(
    "CANCEL-SERVER-LISTEN",
    [
        ("the server cancels the client's tools/call", [request(1, "tools/call", CALL), notify("server", "notifications/cancelled", {"requestId": 1}), result(1, TOOL_RESULT)], None),
        ("the server cancels a request never made", [notify("server", "notifications/cancelled", {"requestId": "listen-9"})], None),
    ],
    [("the server tears down a subscription", [listen("l-1", toolsListChanged=True), acknowledged("l-1", toolsListChanged=True), notify("server", "notifications/cancelled", {"requestId": "l-1", "reason": "shutting down"}), notify("client", "notifications/cancelled", {"requestId": "l-1"})])],
)
example(
    "CANCEL-ANSWERED",
    [("a result after the request was cancelled", [request(1, "tools/list"), notify("client", "notifications/cancelled", {"requestId": 1}), result(1, TOOLS)], None)],
    [("no answer after the cancellation", [request(1, "tools/list"), notify("client", "notifications/cancelled", {"requestId": 1}), request(2, "prompts/list"), result(2, PROMPTS)])],
)

# -- progress -----------------------------------------------------------------------------------

example(
    "PROGRESS-TOKEN-UNIQUE",
    [("two active requests with one token", [request(1, "tools/call", CALL, progressToken="p-1"), request(2, "tools/call", CALL, progressToken="p-1"), result(1, TOOL_RESULT), result(2, TOOL_RESULT)], None)],
    [("the token again once the first request is answered", [request(1, "tools/call", CALL, progressToken="p-1"), result(1, TOOL_RESULT), request(2, "tools/call", CALL, progressToken="p-1"), result(2, TOOL_RESULT)])],
)
example(
    "PROGRESS-TOKEN",
    [
        ("progress for a token no request carried", [request(1, "tools/call", CALL), notify("server", "notifications/progress", {"progressToken": "p-1", "progress": 1}), result(1, TOOL_RESULT)], None),
        ("progress after the request was answered", [request(1, "tools/call", CALL, progressToken="p-1"), result(1, TOOL_RESULT), notify("server", "notifications/progress", {"progressToken": "p-1", "progress": 1})], None),
    ],
    [("progress while the request is active", [request(1, "tools/call", CALL, progressToken="p-1"), notify("server", "notifications/progress", {"progressToken": "p-1", "progress": 0.5, "total": 1, "message": "half"}), result(1, TOOL_RESULT)])],
)
example(
    "PROGRESS-RISING",
    [("progress that does not grow", [request(1, "tools/call", CALL, progressToken="p-1"), notify("server", "notifications/progress", {"progressToken": "p-1", "progress": 2}), notify("server", "notifications/progress", {"progressToken": "p-1", "progress": 2}), result(1, TOOL_RESULT)], None)],
    [("growing, in floating point", [request(1, "tools/call", CALL, progressToken="p-1"), notify("server", "notifications/progress", {"progressToken": "p-1", "progress": 0.25}), notify("server", "notifications/progress", {"progressToken": "p-1", "progress": 0.5}), result(1, TOOL_RESULT)])],
)

# -- multi round-trip requests ------------------------------------------------------------------

RETRY = [request(2, "tools/call", {**CALL, "inputResponses": ANSWERS, "requestState": "s-1"}), result(2, TOOL_RESULT)]
example(
    "MRTR-SUPPORTED",
    [
        ("tools/list answered with an InputRequiredResult", [request(1, "tools/list"), result(1, asking({"ask": FORM}), "input_required")], None),
        ("server/discover answered with one", [request(1, "server/discover"), result(1, asking(state="s"), "input_required")], None),
    ],
    [
        ("tools/call, prompts/get and resources/read answered with one", [
            request(1, "tools/call", CALL), result(1, asking({"ask": FORM}, "s-1"), "input_required"),
            request(2, "prompts/get", {"name": "p"}), result(2, asking({"ask": ROOTS}, "s-2"), "input_required"),
            request(3, "resources/read", {"uri": "file:///a"}), result(3, asking({"ask": SAMPLE}, "s-3"), "input_required"),
        ]),
    ],
)
example(
    "MRTR-EMPTY",
    [("an InputRequiredResult asking nothing", [request(1, "tools/call", CALL), result(1, {}, "input_required")], None)],
    [
        ("state alone: the client may retry at once", [request(1, "tools/call", CALL), result(1, asking(state="s-1"), "input_required"), *RETRY]),
        ("input requests alone", [request(1, "tools/call", CALL), result(1, asking({"ask": FORM}, None), "input_required")]),
    ],
)
example(
    "MRTR-CAPABILITY",
    [
        ("an elicitation for a request that declared none", [request(1, "tools/call", CALL, {"sampling": {}}), result(1, asking({"ask_name": FORM}), "input_required")], None),
        ("a sample and roots for a request that declared no capability", [request(1, "prompts/get", {"name": "p"}, {}), result(1, asking({"a": SAMPLE, "b": ROOTS}), "input_required")], ["MRTR-CAPABILITY", "MRTR-CAPABILITY"]),
    ],
    [("each kind declared", [request(1, "tools/call", CALL), result(1, asking({"a": SAMPLE, "b": ROOTS, "c": FORM}), "input_required"), request(2, "tools/call", {**CALL, "requestState": "s-1", "inputResponses": {"a": {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}, "b": {"roots": []}, "c": {"action": "decline"}}}), result(2, TOOL_RESULT)])],
)
example(
    "CAP-ELICITATION-MODE",
    [
        ("URL mode for a request that declared form only", [request(1, "tools/call", CALL, {"elicitation": {"form": {}}}), result(1, asking({"login": URL}), "input_required")], None),
        ("URL mode for a request whose empty elicitation capability means form only", [request(1, "tools/call", CALL, {"elicitation": {}}), result(1, asking({"login": URL}), "input_required")], None),
        ("form mode (no mode) for a request that declared URL only", [request(1, "tools/call", CALL, {"elicitation": {"url": {}}}), result(1, asking({"ask": {"method": "elicitation/create", "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}}}), "input_required")], None),
    ],
    [
        ("form mode for an empty elicitation capability", [request(1, "tools/call", CALL, {"elicitation": {}}), result(1, asking({"ask": FORM}), "input_required")]),
        ("URL mode declared", [request(1, "tools/call", CALL, {"elicitation": {"url": {}}}), result(1, asking({"login": URL}), "input_required")]),
    ],
)
TOOLED = {"method": "sampling/createMessage", "params": {**SAMPLE["params"], "tools": [{"name": "t", "inputSchema": {"type": "object"}}]}}
example(
    "CAP-SAMPLING-TOOLS",
    [("a sample with tools for a request that did not declare sampling.tools", [request(1, "tools/call", CALL, {"sampling": {}}), result(1, asking({"ask": TOOLED}), "input_required")], None)],
    [("declared", [request(1, "tools/call", CALL, {"sampling": {"tools": {}}}), result(1, asking({"ask": TOOLED}), "input_required")])],
)
CONTEXT = {"method": "sampling/createMessage", "params": {**SAMPLE["params"], "includeContext": "thisServer"}}
example(
    "CAP-SAMPLING-CONTEXT",
    [("includeContext thisServer for a request that did not declare sampling.context", [request(1, "tools/call", CALL, {"sampling": {}}), result(1, asking({"ask": CONTEXT}), "input_required")], None)],
    [("declared", [request(1, "tools/call", CALL, {"sampling": {"context": {}}}), result(1, asking({"ask": CONTEXT}), "input_required")])],
)
example(
    "MRTR-STATE-OTHER",
    [("a tools/call's requestState echoed by a prompts/get", [request(1, "tools/call", CALL), result(1, asking({"ask_name": FORM}), "input_required"), request(2, "prompts/get", {"name": "p", "requestState": "s-1"}), result(2, {"messages": []})], None)],
    [
        ("the retry echoes it", [request(1, "tools/call", CALL), result(1, asking({"ask_name": FORM}), "input_required"), *RETRY]),
        ("asked again on the retry, retried again", [request(1, "tools/call", CALL), result(1, asking({"ask_name": FORM}), "input_required"), request(2, "tools/call", {**CALL, "inputResponses": {}, "requestState": "s-1"}), result(2, asking({"ask_name": FORM}), "input_required"), request(3, "tools/call", {**CALL, "inputResponses": ANSWERS, "requestState": "s-1"}), result(3, TOOL_RESULT)]),
    ],
)

# -- subscriptions ------------------------------------------------------------------------------

OPEN = [listen("l-1", toolsListChanged=True, resourceSubscriptions=["file:///a"]), acknowledged("l-1", toolsListChanged=True, resourceSubscriptions=["file:///a"])]
END = [notify("client", "notifications/cancelled", {"requestId": "l-1"})]
example(
    "SUB-TAGGED",
    [
        ("a list change without its subscription id", OPEN + [notify("server", "notifications/tools/list_changed")] + END, None),
        ("a resource update without it", OPEN + [notify("server", "notifications/resources/updated", {"uri": "file:///a"})] + END, None),
    ],
    [("tagged", OPEN + [on_stream("notifications/tools/list_changed", "l-1"), on_stream("notifications/resources/updated", "l-1", uri="file:///a")] + END)],
)
example(
    "SUB-UNKNOWN",
    [
        ("a notification naming no subscriptions/listen", [on_stream("notifications/tools/list_changed", "l-9")], None),
        ("one naming a subscription the server already closed", OPEN + [result("l-1", {"_meta": {"io.modelcontextprotocol/subscriptionId": "l-1"}}), on_stream("notifications/tools/list_changed", "l-1")], None),
    ],
    [("one crossing the client's cancellation", OPEN + END + [on_stream("notifications/tools/list_changed", "l-1")])],
)
example(
    "SUB-ACK-FIRST",
    [("a notification on the stream before its acknowledgment", [listen("l-1", toolsListChanged=True), on_stream("notifications/tools/list_changed", "l-1"), acknowledged("l-1", toolsListChanged=True)] + END, None)],
    [
        ("acknowledged first", OPEN + [on_stream("notifications/tools/list_changed", "l-1")] + END),
        ("another subscription's notification before it (stdio interleaves them)", [listen("l-1", toolsListChanged=True), acknowledged("l-1", toolsListChanged=True), listen("l-2", toolsListChanged=True), on_stream("notifications/tools/list_changed", "l-1"), acknowledged("l-2", toolsListChanged=True)] + END + [notify("client", "notifications/cancelled", {"requestId": "l-2"})]),
    ],
)
example(
    "SUB-FILTER",
    [
        ("a prompts list change the filter did not ask for", OPEN + [on_stream("notifications/prompts/list_changed", "l-1")] + END, None),
        ("a resource update to a filter without resourceSubscriptions", [listen("l-1", toolsListChanged=True), acknowledged("l-1", toolsListChanged=True), on_stream("notifications/resources/updated", "l-1", uri="file:///a")] + END, None),
        ("a resource update for a URI the filter did not name", OPEN + [on_stream("notifications/resources/updated", "l-1", uri="file:///b")] + END, None),
    ],
    [("what the filter asked for", OPEN + [on_stream("notifications/tools/list_changed", "l-1"), on_stream("notifications/resources/updated", "l-1", uri="file:///a")] + END)],
)
example(
    "SUB-CLOSE-ID",
    [("the closing result names another subscription", OPEN + [result("l-1", {"_meta": {"io.modelcontextprotocol/subscriptionId": "l-2"}})], None)],
    [("the closing result names its own", OPEN + [result("l-1", {"_meta": {"io.modelcontextprotocol/subscriptionId": "l-1"}})])],
)

# -- versioning ---------------------------------------------------------------------------------

example(
    "VERSION-SUPPORTED-LIST",
    [
        ("an unsupported version refused without the supported list", [request(1, "tools/list"), error(1, -32022, "Unsupported protocol version")], None),
        ("refused naming another requested version", [request(1, "tools/list"), error(1, -32022, "Unsupported protocol version", {"supported": ["2027-01-01"], "requested": "1900-01-01"})], None),
    ],
    [("refused with the versions the server supports", [request(1, "tools/list"), error(1, -32022, "Unsupported protocol version", {"supported": ["2027-01-01"], "requested": VERSION})])],
)


def main() -> int:
    path = HERE / "rule-examples.json"
    path.write_text(json.dumps(EXAMPLES, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{path}: {len(EXAMPLES)} rules, {sum(len(e['violates']) for e in EXAMPLES.values())} violating and {sum(len(e['satisfies']) for e in EXAMPLES.values())} satisfying transcripts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
