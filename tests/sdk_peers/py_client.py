"""An MCP client on the official Python SDK (PyPI `mcp`): it launches its server over stdio (the
command after `--`, in practice `specbind proxy ... -- server`) and runs every scenario the SDK
supports in the revision the session speaks, printing one JSON object on stdout with what each
returned.

`--mode legacy` (the default here): the initialize handshake, where the SDK offers its newest
handshake revision, 2025-11-25. `--mode auto` (the SDK 2.x default) first probes `server/discover`
at 2026-07-28 and falls back to the handshake when the server does not answer it as a modern
server; `--mode 2026-07-28` speaks 2026-07-28 from the first request, without a probe.
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


async def main(command: list[str], scenarios: set[str], mode: str = "legacy") -> dict[str, Any]:
    out: dict[str, Any] = {}
    server = StdioServerParameters(command=command[0], args=command[1:])
    async with Client(
        server,
        mode=mode,  # type: ignore[arg-type]
        sampling_callback=sampling,
        elicitation_callback=elicitation,
        list_roots_callback=roots,
        logging_callback=logging,
        log_level=None if mode == "legacy" else "info",
    ) as client:
        out["protocolVersion"] = client.protocol_version
        if client.protocol_version >= "2026":
            await modern(client, out)
            return out
        out["ping"] = type(await client.send_ping()).__name__
        await tool_calls(client, out, "cancel" in scenarios)
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
        await resource_reads(client, out)
        if "subscribe" in scenarios:
            await client.subscribe_resource("specbind://readme")
            out["touch"] = text(await client.call_tool("touch", {}))
            await client.unsubscribe_resource("specbind://readme")
        await prompt_uses(client, out)
        out["ping_again"] = type(await client.send_ping()).__name__
    out["logs"] = LOGS
    return out


async def tool_calls(client: Client, out: dict[str, Any], cancel: bool) -> None:
    """tools/list; tools/call plain, with progress, cancelled by a timeout, failing."""
    tools = await client.list_tools()
    out["tools"] = sorted(t.name for t in tools.tools)
    out["echo"] = text(await client.call_tool("echo", {"text": "hello"}))
    out["count"] = text(await client.call_tool("count", {"steps": 3}, progress_callback=progress))
    out["progress"] = list(PROGRESS)
    if cancel:
        try:
            await client.call_tool("count", {"steps": 50, "delay": 0.1}, read_timeout_seconds=0.3)
            out["cancelled"] = False
        except Exception as exc:  # noqa: BLE001 - the SDK raises on the timeout it cancels
            out["cancelled"] = type(exc).__name__
    out["fail"] = (await client.call_tool("fail", {})).is_error


async def resource_reads(client: Client, out: dict[str, Any]) -> None:
    """resources/list, resources/templates/list, resources/read of a resource, a template and a
    URI the server does not have (a JSON-RPC error)."""
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


async def prompt_uses(client: Client, out: dict[str, Any]) -> None:
    """prompts/list, prompts/get, completion/complete."""
    prompts = await client.list_prompts()
    out["prompts"] = sorted(p.name for p in prompts.prompts)
    got = await client.get_prompt("review", {"code": "x = 1", "language": "python"})
    out["prompt"] = [getattr(m.content, "text", None) for m in got.messages]
    from mcp.types import PromptReference

    done = await client.complete(PromptReference(type="ref/prompt", name="review"), {"name": "language", "value": "py"})
    out["completion"] = done.completion.values


async def modern(client: Client, out: dict[str, Any]) -> None:
    """The 2026-07-28 session (the SDK's modern mode, or its probe answered by a modern server):
    no handshake, every request with its `_meta`; progress and cancellation as before; a tool
    whose questions come back as an InputRequiredResult the client answers by retrying; logging
    by the level each request carries; change notifications on a subscriptions/listen stream."""
    await tool_calls(client, out, True)
    out["chatter"] = text(await client.call_tool("chatter", {}))
    out["greet"] = text(await client.call_tool("greet", {}))
    await resource_reads(client, out)
    events: list[str] = []
    async with client.listen(tools_list_changed=True, resource_subscriptions=["specbind://readme"]) as subscription:
        out["announce"] = text(await client.call_tool("announce", {}))
        with anyio.move_on_after(5):
            async for event in subscription:
                events.append(type(event).__name__)
                if len(events) == 2:
                    break
    out["events"] = sorted(events)
    await prompt_uses(client, out)
    out["logs"] = LOGS


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--" not in args:
        sys.exit("usage: py_client.py [--scenarios a,b] [--mode legacy|auto|2026-07-28] -- SERVER_COMMAND...")
    cut = args.index("--")
    options, command = args[:cut], args[cut + 1 :]
    chosen = {"cancel", "subscribe"}
    mode = "legacy"
    while options:
        if options[:1] == ["--scenarios"]:
            chosen = set(options[1].split(",")) - {""}
        elif options[:1] == ["--mode"]:
            mode = options[1]  # legacy (the handshake), auto (probe, fall back), or 2026-07-28
        else:
            sys.exit(f"unknown option {options[0]}")
        options = options[2:]
    print(json.dumps(anyio.run(main, command, chosen, mode), sort_keys=True))
