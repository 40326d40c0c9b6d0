"""Writes rule-examples.json beside it: for every rule of mcp.rules, transcripts that break it
(`violates`, each drawing exactly the findings named in `exactly`) and transcripts that keep it
(`satisfies`), built from a few conversation pieces so that each example differs from a
conformant session in the one place its rule is about.

    python spec/mcp/rule-examples.py          # rewrites spec/mcp/rule-examples.json

tests/test_mcp_rules.py checks that the JSON file is what this script writes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
VERSION = "2025-11-25"
NOW = "2025-11-25T10:30:00Z"

Entry = dict[str, Any]


def client(**message: Any) -> Entry:
    return {"from": "client", "message": {"jsonrpc": "2.0", **message}}


def server(**message: Any) -> Entry:
    return {"from": "server", "message": {"jsonrpc": "2.0", **message}}


def request(sender: str, ident: Any, method: str, params: dict[str, Any] | None = None) -> Entry:
    message: dict[str, Any] = {"id": ident, "method": method}
    if params is not None:
        message["params"] = params
    return (client if sender == "client" else server)(**message)


def notify(sender: str, method: str, params: dict[str, Any] | None = None) -> Entry:
    message: dict[str, Any] = {"method": method}
    if params is not None:
        message["params"] = params
    return (client if sender == "client" else server)(**message)


def result(sender: str, ident: Any, payload: dict[str, Any]) -> Entry:
    return (client if sender == "client" else server)(id=ident, result=payload)


def error(sender: str, ident: Any, code: int = -32601, text: str = "Method not found") -> Entry:
    return (client if sender == "client" else server)(id=ident, error={"code": code, "message": text})


def initialize(client_caps: dict[str, Any] | None = None, version: str = VERSION, ident: Any = 0) -> Entry:
    return request("client", ident, "initialize", {"protocolVersion": version, "capabilities": client_caps or {}, "clientInfo": {"name": "example-client", "version": "1.0.0"}})


def initialized_result(server_caps: dict[str, Any] | None = None, version: str = VERSION, ident: Any = 0) -> Entry:
    return result("server", ident, {"protocolVersion": version, "capabilities": server_caps or {}, "serverInfo": {"name": "example-server", "version": "1.0.0"}})


def handshake(client_caps: dict[str, Any] | None = None, server_caps: dict[str, Any] | None = None) -> list[Entry]:
    return [initialize(client_caps), initialized_result(server_caps), notify("client", "notifications/initialized")]


ALL_SERVER = {
    "tools": {"listChanged": True},
    "prompts": {"listChanged": True},
    "resources": {"subscribe": True, "listChanged": True},
    "logging": {},
    "completions": {},
    "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}},
}
ALL_CLIENT = {
    "roots": {"listChanged": True},
    "sampling": {"tools": {}, "context": {}},
    "elicitation": {"form": {}, "url": {}},
    "tasks": {"list": {}, "cancel": {}, "requests": {"sampling": {"createMessage": {}}, "elicitation": {"create": {}}}},
}
FULL = handshake(ALL_CLIENT, ALL_SERVER)
BARE = handshake()


def task(task_id: str = "task-1", status: str = "working") -> dict[str, Any]:
    return {"taskId": task_id, "status": status, "createdAt": NOW, "lastUpdatedAt": NOW, "ttl": 60000}


def related(task_id: str = "task-1") -> dict[str, Any]:
    return {"io.modelcontextprotocol/related-task": {"taskId": task_id}}


TOOL_RESULT = {"content": [{"type": "text", "text": "72F"}]}
SAMPLE = {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 10}
SAMPLED = {"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m"}
FORM = {"message": "Your name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}
URL = {"mode": "url", "message": "Sign in", "url": "https://example.com/auth", "elicitationId": "e-1"}

# Each example: (rule, violates: [(note, stream, exactly)], satisfies: [(note, stream)])
EXAMPLES: dict[str, dict[str, list[dict[str, Any]]]] = {}


def example(rule: str, violates: list[tuple[str, list[Entry], list[str] | None]], satisfies: list[tuple[str, list[Entry]]] = ()) -> None:  # type: ignore[assignment]
    EXAMPLES[rule] = {
        "violates": [{"note": note, "stream": stream, **({"exactly": exactly} if exactly is not None else {"exactly": [rule]})} for note, stream, exactly in violates],
        "satisfies": [{"note": note, "stream": stream} for note, stream in satisfies],
    }


def gate(rule: str, needs: str, uses: list[Entry], caps_without: tuple[dict[str, Any], dict[str, Any]], caps_with: tuple[dict[str, Any], dict[str, Any]]) -> None:
    """A capability gate: the same exchange after a handshake without, then with, the capability."""
    example(
        rule,
        [(f"{needs} not declared", handshake(*caps_without) + uses, None)],
        [(f"{needs} declared", handshake(*caps_with) + uses)],
    )


# -- messages and correlation -------------------------------------------------------------------

example(
    "MSG-JSONRPC",
    [
        ("a request whose id is null", BARE + [client(id=None, method="ping")], None),
        ("an error whose code is not an integer", BARE + [request("client", 1, "ping"), error("server", 1, code=1.5)], None),  # type: ignore[arg-type]
        ("a batch: JSON-RPC allows it, MCP 2025-11-25 messages are single", BARE + [{"from": "client", "message": [{"jsonrpc": "2.0", "id": 1, "method": "ping"}]}], None),
        ("a message that is none of the four kinds", BARE + [client(id=1)], None),
        ("jsonrpc other than 2.0", BARE + [{"from": "client", "message": {"jsonrpc": "1.0", "id": 1, "method": "ping"}}, result("server", 1, {})], None),
        ("a transcript line with no sender", BARE + [{"message": {"jsonrpc": "2.0", "method": "notifications/progress"}}], None),
        ("a line that was no JSON on the wire, as specbind proxy records it", BARE + [{"from": "server", "raw": "Starting server..."}], None),
        ("a tools/call without its params", FULL + [client(id=1, method="tools/call"), error("server", 1, -32602, "Invalid params")], None),
    ],
    [("a ping and its answer", BARE + [request("client", 1, "ping"), result("server", 1, {})]), ("an error that could name no request", BARE + [server(error={"code": -32700, "message": "Parse error"})])],
)
example(
    "MSG-KIND",
    [
        ("a request method sent without an id", FULL + [client(method="tools/list")], None),
        ("a notification method sent with an id", FULL + [client(id=5, method="notifications/roots/list_changed")], None),
    ],
    [("the same methods as they are defined", FULL + [request("client", 1, "tools/list"), result("server", 1, {"tools": []}), notify("client", "notifications/roots/list_changed")])],
)
example(
    "MSG-SENDER",
    [("a client sends sampling/createMessage, which servers send", FULL + [request("client", 1, "sampling/createMessage", SAMPLE), error("server", 1)], None)],
    [("the server sends it", FULL + [request("server", 1, "sampling/createMessage", SAMPLE), result("client", 1, SAMPLED)])],
)
example(
    "ID-REUSED",
    [
        ("an id reused while its request is outstanding", FULL + [request("client", 1, "tools/list"), request("client", 1, "prompts/list"), result("server", 1, {"tools": []})], None),
        ("an id reused after its request was answered", FULL + [request("client", 1, "tools/list"), result("server", 1, {"tools": []}), request("client", 1, "prompts/list"), result("server", 1, {"prompts": []})], None),
    ],
    [
        ("fresh ids", FULL + [request("client", 1, "tools/list"), result("server", 1, {"tools": []}), request("client", 2, "prompts/list"), result("server", 2, {"prompts": []})]),
        ("the same id, once by each party: ids belong to their requestor", FULL + [request("client", 1, "ping"), request("server", 1, "ping"), result("client", 1, {}), result("server", 1, {})]),
        ("1 and \"1\" are different ids", FULL + [request("client", 1, "ping"), request("client", "1", "ping"), result("server", 1, {}), result("server", "1", {})]),
    ],
)
example(
    "RESP-ID",
    [
        ("a result answering no request", FULL + [result("server", 7, {})], None),
        ("an error answering no request", FULL + [error("server", 7)], None),
        ("a client answering its own request", FULL + [request("client", 3, "ping"), result("client", 3, {}), result("server", 3, {})], None),
    ],
    [("the same result with its request", FULL + [request("client", 7, "ping"), result("server", 7, {})])],
)
example(
    "RESP-AGAIN",
    [("a second result to one request", FULL + [request("client", 1, "ping"), result("server", 1, {}), result("server", 1, {})], None), ("an error after the result", FULL + [request("client", 1, "ping"), result("server", 1, {}), error("server", 1)], None)],
    [("one answer each", FULL + [request("client", 1, "ping"), request("client", 2, "ping"), result("server", 2, {}), result("server", 1, {})])],
)
example(
    "RESULT-TYPE",
    [
        ("tools/list answered with a GetPromptResult", FULL + [request("client", 1, "tools/list"), result("server", 1, {"messages": []})], None),
        ("initialize answered without capabilities", [initialize(), result("server", 0, {"protocolVersion": VERSION, "serverInfo": {"name": "s", "version": "1"}}), notify("client", "notifications/initialized")], None),
        ("a task-augmented tools/call to a server that declared task support, answered with the plain result", FULL + [request("client", 1, "tools/call", {"name": "weather", "task": {"ttl": 60000}}), result("server", 1, TOOL_RESULT)], None),
    ],
    [
        ("tools/list answered with its list", FULL + [request("client", 1, "tools/list"), result("server", 1, {"tools": []})]),
        ("a task-augmented tools/call to a server with task support answered with its task", FULL + [request("client", 1, "tools/call", {"name": "weather", "task": {"ttl": 60000}}), result("server", 1, {"task": task()})]),
    ],
)
example(
    "REQ-UNANSWERED",
    [("a request never answered nor cancelled", FULL + [request("client", 1, "tools/list")], None), ("a ping never answered", FULL + [request("server", "p", "ping")], None)],
    [("the request cancelled after a while", FULL + [request("client", 1, "tools/list"), notify("client", "notifications/cancelled", {"requestId": 1, "reason": "timeout"})])],
)

# -- lifecycle ----------------------------------------------------------------------------------

example(
    "INIT-FIRST",
    [
        ("a tools/list before initialize", [request("client", 1, "tools/list"), error("server", 1, -32600, "Not initialized")] + BARE, None),
        ("the server speaks first", [notify("server", "notifications/message", {"level": "info", "data": "hello"})] + BARE, None),
        ("a ping before initialize", [request("client", 1, "ping"), result("server", 1, {})] + BARE, None),
        ("after a refused initialize, a request before initializing again", [initialize(), error("server", 0, -32602, "Unsupported protocol version"), request("client", 1, "tools/list"), error("server", 1)], None),
    ],
    [("initialize first", BARE), ("initialize again after an error", [initialize(), error("server", 0, -32602, "Unsupported protocol version"), initialize(ident=1), initialized_result(ident=1), notify("client", "notifications/initialized")])],
)
example(
    "INIT-CLIENT-EARLY",
    [("a tools/list before the initialize result", [initialize({}), request("client", 1, "tools/list"), initialized_result({"tools": {}}), result("server", 1, {"tools": []}), notify("client", "notifications/initialized")], None)],
    [("a ping before the initialize result", [initialize(), request("client", 1, "ping"), result("server", 1, {}), initialized_result(), notify("client", "notifications/initialized")])],
)
example(
    "INIT-SERVER-EARLY",
    [
        ("a roots/list before notifications/initialized", [initialize(ALL_CLIENT), initialized_result(), request("server", 1, "roots/list"), result("client", 1, {"roots": []}), notify("client", "notifications/initialized")], None),
        ("a sampling request while initialize is outstanding", [initialize(ALL_CLIENT), request("server", 1, "sampling/createMessage", SAMPLE), result("client", 1, SAMPLED), initialized_result(), notify("client", "notifications/initialized")], None),
    ],
    [("a ping and a log message before it", [initialize(ALL_CLIENT), request("server", 1, "ping"), result("client", 1, {}), initialized_result({"logging": {}}), notify("server", "notifications/message", {"level": "info", "data": "starting"}), notify("client", "notifications/initialized")])],
)
example(
    "INIT-NOTIFIED",
    [
        ("a request before notifications/initialized", [initialize(), initialized_result({"tools": {}}), request("client", 1, "tools/list"), result("server", 1, {"tools": []}), notify("client", "notifications/initialized")], None),
        ("notifications/initialized before the initialize result", [initialize(), notify("client", "notifications/initialized"), initialized_result(), notify("client", "notifications/initialized")], None),
    ],
    [
        ("the handshake", BARE),
        ("a client that leaves right after the result (a probe, or one that does not support the version answered)", [initialize(), initialized_result()]),
        ("the server answers with another version and the client goes on with it", [initialize(version=VERSION), initialized_result(version="2025-06-18"), notify("client", "notifications/initialized"), request("client", 1, "ping"), result("server", 1, {})]),
    ],
)

# -- capabilities -------------------------------------------------------------------------------

gate("CAP-RESOURCES", "resources", [request("client", 1, "resources/list"), error("server", 1)], ({}, {}), ({}, {"resources": {}}))
gate("CAP-RESOURCES-SUBSCRIBE", "resources.subscribe", [request("client", 1, "resources/subscribe", {"uri": "file:///a"}), error("server", 1)], ({}, {"resources": {"listChanged": True}}), ({}, {"resources": {"subscribe": True}}))
gate("CAP-PROMPTS", "prompts", [request("client", 1, "prompts/list"), error("server", 1)], ({}, {}), ({}, {"prompts": {}}))
gate("CAP-TOOLS", "tools", [request("client", 1, "tools/call", {"name": "weather"}), error("server", 1)], ({}, {}), ({}, {"tools": {}}))
gate("CAP-LOGGING", "logging", [request("client", 1, "logging/setLevel", {"level": "info"}), error("server", 1)], ({}, {}), ({}, {"logging": {}}))
gate("CAP-COMPLETIONS", "completions", [request("client", 1, "completion/complete", {"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": "v"}}), error("server", 1)], ({}, {}), ({}, {"completions": {}}))
gate("CAP-SAMPLING", "sampling", [request("server", 1, "sampling/createMessage", SAMPLE), error("client", 1)], ({}, {}), ({"sampling": {}}, {}))
gate("CAP-ROOTS", "roots", [request("server", 1, "roots/list"), error("client", 1)], ({}, {}), ({"roots": {}}, {}))
gate("CAP-ELICITATION", "elicitation", [request("server", 1, "elicitation/create", FORM), error("client", 1)], ({}, {}), ({"elicitation": {}}, {}))
example(
    "CAP-TASKS-LIST",
    [
        ("tasks/list to a server without tasks.list", handshake({}, {"tasks": {"cancel": {}}}) + [request("client", 1, "tasks/list"), error("server", 1)], None),
        ("tasks/list to a client without tasks.list", handshake({}, {}) + [request("server", 1, "tasks/list"), error("client", 1)], None),
    ],
    [("both declared it", handshake({"tasks": {"list": {}}}, {"tasks": {"list": {}}}) + [request("client", 1, "tasks/list"), result("server", 1, {"tasks": []}), request("server", 2, "tasks/list"), result("client", 2, {"tasks": []})])],
)
example(
    "CAP-TASKS-CANCEL",
    [
        ("tasks/cancel to a server without tasks.cancel", handshake({}, {"tasks": {"list": {}}}) + [request("client", 1, "tasks/cancel", {"taskId": "t"}), error("server", 1, -32602, "Invalid params")], None),
        ("tasks/cancel to a client without tasks.cancel", handshake({}, {}) + [request("server", 1, "tasks/cancel", {"taskId": "t"}), error("client", 1, -32602, "Invalid params")], None),
    ],
    [("declared", handshake({}, {"tasks": {"cancel": {}}}) + [request("client", 1, "tasks/cancel", {"taskId": "t"}), error("server", 1, -32602, "Task not found")])],
)
example(
    "CAP-TASK-TOOLS",
    [("a task-augmented tools/call to a server without tasks.requests.tools.call", handshake({}, {"tools": {}, "tasks": {"list": {}}}) + [request("client", 1, "tools/call", {"name": "weather", "task": {}}), result("server", 1, TOOL_RESULT)], None)],
    [("declared", handshake({}, {"tools": {}, "tasks": {"requests": {"tools": {"call": {}}}}}) + [request("client", 1, "tools/call", {"name": "weather", "task": {}}), result("server", 1, {"task": task()})])],
)
example(
    "CAP-TASK-REQUEST",
    [
        ("a task-augmented sampling request to a client without task support for it", handshake({"sampling": {}}, {}) + [request("server", 1, "sampling/createMessage", {**SAMPLE, "task": {}}), result("client", 1, SAMPLED)], None),
        ("a task-augmented elicitation to a client without task support for it", handshake({"elicitation": {}, "tasks": {"requests": {"sampling": {"createMessage": {}}}}}, {}) + [request("server", 1, "elicitation/create", {**FORM, "task": {}}), result("client", 1, {"action": "decline"})], None),
    ],
    [("declared", handshake({"sampling": {}, "tasks": {"requests": {"sampling": {"createMessage": {}}}}}, {}) + [request("server", 1, "sampling/createMessage", {**SAMPLE, "task": {}}), result("client", 1, {"task": task("c-1")})])],
)
gate("CAP-SAMPLING-TOOLS", "sampling.tools", [request("server", 1, "sampling/createMessage", {**SAMPLE, "tools": [{"name": "t", "inputSchema": {"type": "object"}}]}), result("client", 1, SAMPLED)], ({"sampling": {}}, {}), ({"sampling": {"tools": {}}}, {}))
gate("CAP-SAMPLING-CONTEXT", "sampling.context", [request("server", 1, "sampling/createMessage", {**SAMPLE, "includeContext": "thisServer"}), result("client", 1, SAMPLED)], ({"sampling": {}}, {}), ({"sampling": {"context": {}}}, {}))
example(
    "CAP-ELICITATION-MODE",
    [
        ("URL mode to a client that declared form only", handshake({"elicitation": {"form": {}}}, {}) + [request("server", 1, "elicitation/create", URL), result("client", 1, {"action": "decline"})], None),
        ("URL mode to a client whose empty elicitation capability means form only", handshake({"elicitation": {}}, {}) + [request("server", 1, "elicitation/create", URL), result("client", 1, {"action": "decline"})], None),
        ("form mode (no mode) to a client that declared URL only", handshake({"elicitation": {"url": {}}}, {}) + [request("server", 1, "elicitation/create", FORM), result("client", 1, {"action": "decline"})], None),
    ],
    [
        ("form mode to an empty elicitation capability", handshake({"elicitation": {}}, {}) + [request("server", 1, "elicitation/create", FORM), result("client", 1, {"action": "accept", "content": {"name": "Ada"}})]),
        ("URL mode declared", handshake({"elicitation": {"url": {}}}, {}) + [request("server", 1, "elicitation/create", URL), result("client", 1, {"action": "accept"})]),
    ],
)
example(
    "CAP-LIST-CHANGED",
    [
        ("tools list_changed without tools.listChanged", handshake({}, {"tools": {}}) + [notify("server", "notifications/tools/list_changed")], None),
        ("prompts list_changed without prompts", handshake({}, {}) + [notify("server", "notifications/prompts/list_changed")], None),
        ("resources list_changed with listChanged false", handshake({}, {"resources": {"listChanged": False}}) + [notify("server", "notifications/resources/list_changed")], None),
        ("roots list_changed without roots.listChanged", handshake({"roots": {}}, {}) + [notify("client", "notifications/roots/list_changed")], None),
    ],
    [("all declared", FULL + [notify("server", "notifications/tools/list_changed"), notify("server", "notifications/prompts/list_changed"), notify("server", "notifications/resources/list_changed"), notify("client", "notifications/roots/list_changed")])],
)
gate("CAP-RESOURCES-UPDATED", "resources.subscribe", [notify("server", "notifications/resources/updated", {"uri": "file:///a"})], ({}, {"resources": {}}), ({}, {"resources": {"subscribe": True}}))
gate("DECLARE-LOGGING", "logging", [notify("server", "notifications/message", {"level": "info", "data": "hi"})], ({}, {}), ({}, {"logging": {}}))
for rule, caps_key, side, method, params, payload in [
    ("DECLARE-TOOLS", "tools", "server", "tools/list", None, {"tools": []}),
    ("DECLARE-PROMPTS", "prompts", "server", "prompts/get", {"name": "p"}, {"messages": []}),
    ("DECLARE-RESOURCES", "resources", "server", "resources/read", {"uri": "file:///a"}, {"contents": []}),
    ("DECLARE-COMPLETIONS", "completions", "server", "completion/complete", {"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": "v"}}, {"completion": {"values": []}}),
    ("DECLARE-SAMPLING", "sampling", "client", "sampling/createMessage", SAMPLE, SAMPLED),
    ("DECLARE-ROOTS", "roots", "client", "roots/list", None, {"roots": []}),
    ("DECLARE-ELICITATION", "elicitation", "client", "elicitation/create", FORM, {"action": "cancel"}),
]:
    requester = "client" if side == "server" else "server"
    gap = "CAP-" + {"completions": "COMPLETIONS"}.get(caps_key, caps_key.upper())
    without = handshake({}, {}) + [request(requester, 1, method, params), result(side, 1, payload)]
    caps = ({}, {caps_key: {}}) if side == "server" else ({caps_key: {}}, {})
    example(
        rule,
        [(f"the {side} answers {method} with a result but did not declare {caps_key}", without, [gap, rule])],
        [("declared", handshake(*caps) + [request(requester, 1, method, params), result(side, 1, payload)])],
    )

# -- cancellation -------------------------------------------------------------------------------

example(
    "CANCEL-UNKNOWN",
    [
        ("cancelling a request never made", FULL + [notify("client", "notifications/cancelled", {"requestId": 9})], None),
        ("cancelling a request of the other party", FULL + [request("server", 4, "ping"), notify("client", "notifications/cancelled", {"requestId": 4}), result("client", 4, {})], None),
    ],
    [
        ("cancelling an outstanding request", FULL + [request("client", 4, "tools/list"), notify("client", "notifications/cancelled", {"requestId": 4, "reason": "user"})]),
        ("a cancellation that crossed the answer", FULL + [request("client", 4, "tools/list"), result("server", 4, {"tools": []}), notify("client", "notifications/cancelled", {"requestId": 4})]),
    ],
)
example(
    "CANCEL-INITIALIZE",
    [
        ("the client cancels its initialize", [initialize(), notify("client", "notifications/cancelled", {"requestId": 0})], ["CANCEL-INITIALIZE"]),
        ("the client cancels its initialize, which the server answers all the same", [initialize(), notify("client", "notifications/cancelled", {"requestId": 0}), initialized_result(), notify("client", "notifications/initialized")], ["CANCEL-INITIALIZE", "CANCEL-ANSWERED"]),
    ],
    [("the server cancels its own ping instead", FULL + [request("server", 0, "ping"), notify("server", "notifications/cancelled", {"requestId": 0})])],
)
example(
    "CANCEL-TASK",
    [("notifications/cancelled for a task-augmented tools/call", FULL + [request("client", 1, "tools/call", {"name": "w", "task": {}}), result("server", 1, {"task": task()}), notify("client", "notifications/cancelled", {"requestId": 1})], None)],
    [("tasks/cancel for it", FULL + [request("client", 1, "tools/call", {"name": "w", "task": {}}), result("server", 1, {"task": task()}), request("client", 2, "tasks/cancel", {"taskId": "task-1"}), result("server", 2, task(status="cancelled"))])],
)
example(
    "CANCEL-ANSWERED",
    [("a result after the request was cancelled", FULL + [request("client", 1, "tools/list"), notify("client", "notifications/cancelled", {"requestId": 1}), result("server", 1, {"tools": []})], None)],
    [("no answer after the cancellation", FULL + [request("client", 1, "tools/list"), notify("client", "notifications/cancelled", {"requestId": 1}), request("client", 2, "ping"), result("server", 2, {})])],
)

# -- progress -----------------------------------------------------------------------------------

WITH_TOKEN = {"name": "weather", "_meta": {"progressToken": "p-1"}}
example(
    "PROGRESS-TOKEN-UNIQUE",
    [("two active requests with one token", FULL + [request("client", 1, "tools/call", WITH_TOKEN), request("client", 2, "tools/call", WITH_TOKEN), result("server", 1, TOOL_RESULT), result("server", 2, TOOL_RESULT)], None)],
    [
        ("the token again once the first request is answered", FULL + [request("client", 1, "tools/call", WITH_TOKEN), result("server", 1, TOOL_RESULT), request("client", 2, "tools/call", WITH_TOKEN), result("server", 2, TOOL_RESULT)]),
        ("the same token for each party", FULL + [request("client", 1, "tools/call", WITH_TOKEN), request("server", 1, "sampling/createMessage", {**SAMPLE, "_meta": {"progressToken": "p-1"}}), result("client", 1, SAMPLED), result("server", 1, TOOL_RESULT)]),
    ],
)
example(
    "PROGRESS-TOKEN",
    [
        ("progress for a token no request carried", FULL + [request("client", 1, "tools/call", {"name": "weather"}), notify("server", "notifications/progress", {"progressToken": "p-1", "progress": 1}), result("server", 1, TOOL_RESULT)], None),
        ("progress after the request was answered", FULL + [request("client", 1, "tools/call", WITH_TOKEN), result("server", 1, TOOL_RESULT), notify("server", "notifications/progress", {"progressToken": "p-1", "progress": 1})], None),
        ("progress to the party that made the request", FULL + [request("client", 1, "tools/call", WITH_TOKEN), notify("client", "notifications/progress", {"progressToken": "p-1", "progress": 1}), result("server", 1, TOOL_RESULT)], None),
    ],
    [
        ("progress while the request is active", FULL + [request("client", 1, "tools/call", WITH_TOKEN), notify("server", "notifications/progress", {"progressToken": "p-1", "progress": 0.5, "total": 1, "message": "half"}), result("server", 1, TOOL_RESULT)]),
        ("progress for a task after its CreateTaskResult", FULL + [request("client", 1, "tools/call", {**WITH_TOKEN, "task": {}}), result("server", 1, {"task": task()}), notify("server", "notifications/progress", {"progressToken": "p-1", "progress": 1})]),
    ],
)
example(
    "PROGRESS-RISING",
    [("progress that does not grow", FULL + [request("client", 1, "tools/call", WITH_TOKEN), notify("server", "notifications/progress", {"progressToken": "p-1", "progress": 2}), notify("server", "notifications/progress", {"progressToken": "p-1", "progress": 2}), result("server", 1, TOOL_RESULT)], None)],
    [("growing, in floating point", FULL + [request("client", 1, "tools/call", WITH_TOKEN), notify("server", "notifications/progress", {"progressToken": "p-1", "progress": 0.25}), notify("server", "notifications/progress", {"progressToken": "p-1", "progress": 0.5}), result("server", 1, TOOL_RESULT)])],
)

# -- ping and tasks -----------------------------------------------------------------------------

example(
    "PING-EMPTY",
    [("a ping answered with an error", FULL + [request("server", "p1", "ping"), error("client", "p1", -32603, "busy")], None)],
    [("answered with the empty result", FULL + [request("server", "p1", "ping"), result("client", "p1", {})])],
)
TASK_CALL = [request("client", 1, "tools/call", {"name": "w", "task": {"ttl": 60000}})]
example(
    "TASK-WORKING",
    [("a task created completed", FULL + TASK_CALL + [result("server", 1, {"task": task(status="completed")})], None)],
    [("created working", FULL + TASK_CALL + [result("server", 1, {"task": task()})])],
)
example(
    "TASK-CANCELLED",
    [("tasks/cancel answered with the task still working", FULL + TASK_CALL + [result("server", 1, {"task": task()}), request("client", 2, "tasks/cancel", {"taskId": "task-1"}), result("server", 2, task())], None)],
    [("answered cancelled", FULL + TASK_CALL + [result("server", 1, {"task": task()}), request("client", 2, "tasks/cancel", {"taskId": "task-1"}), result("server", 2, task(status="cancelled"))])],
)
example(
    "TASK-ID-UNIQUE",
    [("two tasks with one id", FULL + TASK_CALL + [result("server", 1, {"task": task()}), request("client", 2, "tools/call", {"name": "w", "task": {}}), result("server", 2, {"task": task()})], None)],
    [("two ids", FULL + TASK_CALL + [result("server", 1, {"task": task()}), request("client", 2, "tools/call", {"name": "w", "task": {}}), result("server", 2, {"task": task("task-2")})])],
)
CREATED = [result("server", 1, {"task": task()})]
example(
    "TASK-TERMINAL",
    [
        ("a completed task reported working again", FULL + TASK_CALL + CREATED + [notify("server", "notifications/tasks/status", task(status="completed")), request("client", 2, "tasks/get", {"taskId": "task-1"}), result("server", 2, task())], None),
        ("a cancelled task reported completed", FULL + TASK_CALL + CREATED + [request("client", 2, "tasks/cancel", {"taskId": "task-1"}), result("server", 2, task(status="cancelled")), notify("server", "notifications/tasks/status", task(status="completed"))], None),
    ],
    [
        ("working, input required, working, completed, and completed again", FULL + TASK_CALL + CREATED + [notify("server", "notifications/tasks/status", task(status="input_required")), request("client", 2, "tasks/get", {"taskId": "task-1"}), result("server", 2, task()), notify("server", "notifications/tasks/status", task(status="completed")), request("client", 3, "tasks/get", {"taskId": "task-1"}), result("server", 3, task(status="completed"))]),
    ],
)
example(
    "TASK-CANCEL-TERMINAL",
    [("cancelling a completed task is answered with a result", FULL + TASK_CALL + CREATED + [notify("server", "notifications/tasks/status", task(status="completed")), request("client", 2, "tasks/cancel", {"taskId": "task-1"}), result("server", 2, task(status="cancelled"))], None)],
    [("refused with -32602", FULL + TASK_CALL + CREATED + [notify("server", "notifications/tasks/status", task(status="completed")), request("client", 2, "tasks/cancel", {"taskId": "task-1"}), error("server", 2, -32602, "Cannot cancel task: already in terminal status 'completed'")])],
)
RESULT_OF = [result("server", 1, {"task": task()}), request("client", 2, "tasks/result", {"taskId": "task-1"})]
example(
    "TASK-RESULT-RELATED",
    [
        ("tasks/result answered without the related-task metadata", FULL + TASK_CALL + RESULT_OF + [result("server", 2, TOOL_RESULT)], None),
        ("naming another task", FULL + TASK_CALL + RESULT_OF + [result("server", 2, {**TOOL_RESULT, "_meta": related("task-9")})], None),
    ],
    [("with it", FULL + TASK_CALL + RESULT_OF + [result("server", 2, {**TOOL_RESULT, "_meta": related()})])],
)
example(
    "TASK-RELATED-REDUNDANT",
    [
        ("a tasks/get result carrying it", FULL + TASK_CALL + [result("server", 1, {"task": task()}), request("client", 2, "tasks/get", {"taskId": "task-1"}), result("server", 2, {**task(), "_meta": related()})], None),
        ("a status notification carrying it", FULL + TASK_CALL + [result("server", 1, {"task": task()}), notify("server", "notifications/tasks/status", {**task(status="completed"), "_meta": related()})], None),
    ],
    [("without it", FULL + TASK_CALL + [result("server", 1, {"task": task()}), request("client", 2, "tasks/get", {"taskId": "task-1"}), result("server", 2, task()), notify("server", "notifications/tasks/status", task(status="completed"))])],
)


def main() -> int:
    path = HERE / "rule-examples.json"
    path.write_text(json.dumps(EXAMPLES, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{path}: {len(EXAMPLES)} rules, {sum(len(e['violates']) for e in EXAMPLES.values())} violating and {sum(len(e['satisfies']) for e in EXAMPLES.values())} satisfying transcripts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
