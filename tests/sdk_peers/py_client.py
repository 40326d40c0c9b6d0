"""An MCP client on the official Python SDK (PyPI `mcp`), driven in 2025-11-25 mode: it launches
its server over stdio (the command after `--`, in practice `specbind proxy ... -- server`) and
runs every scenario the SDK supports, printing one JSON object on stdout with what each returned.

`mode="legacy"`: the SDK 2.x default (`auto`) first probes `server/discover` at 2026-07-28; legacy
is the initialize handshake, where the SDK offers its newest handshake revision, 2025-11-25.
Runs in a process of its own: the SDK and the generated package are both `mcp`."""

from __future__ import annotations

import json
import sys
import warnings
from typing import Any

import anyio

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import (
    CreateMessageResult,
    ElicitResult,
    ListRootsResult,
    Root,
    TextContent,
)

warnings.simplefilter("ignore")  # sampling, logging, roots, ping: deprecated in 2026-07-28, not in 2025-11-25


async def sampling(context: Any, params: Any) -> CreateMessageResult:
    question = params.messages[0].content.text
    return CreateMessageResult(role="assistant", content=TextContent(type="text", text=f"the model says: {question}"), model="scenario-model", stop_reason="endTurn")


async def elicitation(context: Any, params: Any) -> ElicitResult:
    return ElicitResult(action="accept", content={"name": "scenario user", "verbose": True})


async def roots(context: Any) -> ListRootsResult:
    return ListRootsResult(roots=[Root(uri="file:///tmp/specbind-scenario", name="scenario")])


LOGS: list[str] = []
PROGRESS: list[float] = []


async def logging(params: Any) -> None:
    LOGS.append(f"{params.level}: {params.data}")


async def progress(value: float, total: float | None, message: str | None) -> None:
    PROGRESS.append(value)


def text(result: Any) -> Any:
    return [c.text for c in result.content if isinstance(c, TextContent)]


async def main(command: list[str], scenarios: set[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    server = StdioServerParameters(command=command[0], args=command[1:])
    async with Client(
        server,
        mode="legacy",
        sampling_callback=sampling,
        elicitation_callback=elicitation,
        list_roots_callback=roots,
        logging_callback=logging,
    ) as client:
        out["protocolVersion"] = client.protocol_version
        out["ping"] = type(await client.send_ping()).__name__
        tools = await client.list_tools()
        out["tools"] = sorted(t.name for t in tools.tools)
        out["echo"] = text(await client.call_tool("echo", {"text": "hello"}))
        out["count"] = text(await client.call_tool("count", {"steps": 3}, progress_callback=progress))
        out["progress"] = list(PROGRESS)
        if "cancel" in scenarios:
            try:
                await client.call_tool("count", {"steps": 50, "delay": 0.1}, read_timeout_seconds=0.3)
                out["cancelled"] = False
            except Exception as exc:  # noqa: BLE001 - the SDK raises on the timeout it cancels
                out["cancelled"] = type(exc).__name__
        out["fail"] = (await client.call_tool("fail", {})).is_error
        try:
            await client.set_logging_level("info")
            out["setLevel"] = True
        except Exception as exc:  # noqa: BLE001 - a server without the logging capability refuses it
            out["setLevel"] = type(exc).__name__
        out["chatter"] = text(await client.call_tool("chatter", {}))
        out["sampling"] = text(await client.call_tool("ask_model", {"question": "why?"}))
        out["elicitation"] = text(await client.call_tool("ask_user", {}))
        out["roots"] = text(await client.call_tool("list_roots", {}))
        await client.send_roots_list_changed()
        resources = await client.list_resources()
        out["resources"] = sorted(str(r.uri) for r in resources.resources)
        templates = await client.list_resource_templates()
        out["templates"] = sorted(t.uri_template for t in templates.resource_templates)
        read = await client.read_resource("specbind://readme")
        out["read"] = [getattr(c, "text", None) for c in read.contents]
        out["read_template"] = [getattr(c, "text", None) for c in (await client.read_resource("specbind://items/a")).contents]
        try:
            await client.read_resource("specbind://missing")
            out["missing"] = None
        except Exception as exc:  # noqa: BLE001 - the SDK raises the server's JSON-RPC error
            out["missing"] = type(exc).__name__
        if "subscribe" in scenarios:
            await client.subscribe_resource("specbind://readme")
            out["touch"] = text(await client.call_tool("touch", {}))
            await client.unsubscribe_resource("specbind://readme")
        prompts = await client.list_prompts()
        out["prompts"] = sorted(p.name for p in prompts.prompts)
        got = await client.get_prompt("review", {"code": "x = 1", "language": "python"})
        out["prompt"] = [getattr(m.content, "text", None) for m in got.messages]
        from mcp.types import PromptReference

        done = await client.complete(PromptReference(type="ref/prompt", name="review"), {"name": "language", "value": "py"})
        out["completion"] = done.completion.values
        out["ping_again"] = type(await client.send_ping()).__name__
    out["logs"] = LOGS
    return out


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--" not in args:
        sys.exit("usage: py_client.py [--scenarios a,b] -- SERVER_COMMAND...")
    cut = args.index("--")
    options, command = args[:cut], args[cut + 1 :]
    chosen = {"cancel", "subscribe"}
    if options[:1] == ["--scenarios"]:
        chosen = set(options[1].split(",")) - {""}
    print(json.dumps(anyio.run(main, command, chosen), sort_keys=True))
