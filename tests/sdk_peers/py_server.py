"""An MCP server on the official Python SDK (PyPI `mcp`), over stdio: the peer the scenario
client talks to through `specbind proxy` (tests/test_mcp_sdk.py). Everything on the wire is the
SDK's own doing; the tools exist to make it send each kind of message: progress, logging,
sampling, elicitation and roots requests, list_changed and resource-updated notifications, a
tool error; and, for a 2026-07-28 client, a tool whose questions ride an InputRequiredResult
(multi round-trip requests) and one that notifies subscriptions/listen streams. Runs in a process of its own: the SDK and the generated package are both `mcp`.

By default the server declares what it uses (the logging capability, listChanged, subscribe),
registering the handlers the SDK's MCPServer does not add by itself on its low-level server.
`--as-written` runs the MCPServer as its documentation writes it (`server.run("stdio")`): it
then logs without declaring the logging capability, which the logging page forbids."""

from __future__ import annotations

import logging
import sys
import warnings
from typing import Annotated

import anyio
from pydantic import BaseModel

from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import Context, Elicit, ListRoots, MCPServer, Resolve, Sample
from mcp.server.stdio import stdio_server
from mcp.types import (
    Completion,
    CreateMessageResult,
    EmptyResult,
    ListRootsResult,
    PromptReference,
    ResourceTemplateReference,
    SamplingMessage,
    TextContent,
)

warnings.simplefilter("ignore")  # sampling, logging, roots: deprecated in 2026-07-28, not in 2025-11-25
logging.getLogger("mcp").setLevel(logging.CRITICAL)  # the failing tool's traceback is expected

server = MCPServer("specbind-scenario-server", instructions="A server for specbind's SDK scenarios.")


SUBSCRIBED: set[str] = set()


@server.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@server.tool()
async def count(steps: int, ctx: Context, delay: float = 0.0) -> str:
    """Count to `steps`, reporting progress at each step (and sleeping `delay` seconds: long
    enough, the client cancels it)."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
        if delay:
            await anyio.sleep(delay)
    return f"counted to {steps}"


@server.tool()
async def chatter(ctx: Context) -> str:
    """Log at three levels (the client set a level with logging/setLevel)."""
    await ctx.debug("a debug line")
    await ctx.info("an info line")
    await ctx.warning("a warning line")
    return "logged"


@server.tool()
async def ask_model(question: str, ctx: Context) -> str:
    """Ask the client's model (sampling/createMessage)."""
    result = await ctx.session.create_message(
        [SamplingMessage(role="user", content=TextContent(type="text", text=question))],
        max_tokens=50,
        related_request_id=ctx.request_id,
    )
    content = result.content
    return content.text if isinstance(content, TextContent) else str(content)


class Preferences(BaseModel):
    name: str
    verbose: bool = False


@server.tool()
async def ask_user(ctx: Context) -> str:
    """Ask the user (elicitation/create, form mode)."""
    answer = await ctx.elicit("Who are you?", Preferences)
    return f"{answer.action}: {getattr(answer, 'data', None)}"


@server.tool()
async def list_roots(ctx: Context) -> str:
    """Ask the client for its roots (roots/list)."""
    roots = await ctx.session.list_roots()
    return ", ".join(str(root.uri) for root in roots.roots)


@server.tool()
def fail() -> str:
    """A tool that fails: the SDK answers with isError, not with a protocol error."""
    raise ValueError("this tool always fails")


@server.tool()
async def touch(ctx: Context) -> str:
    """Change the resources and tools the client sees: resources/updated for a subscribed
    resource and the list_changed notifications (the session's handshake-era senders: the
    Context's notify_* reach 2026-07-28 `subscriptions/listen` streams only)."""
    if "specbind://readme" in SUBSCRIBED:
        await ctx.session.send_resource_updated("specbind://readme")
    await ctx.session.send_resource_list_changed()
    await ctx.session.send_tool_list_changed()
    await ctx.session.send_prompt_list_changed()
    return "touched"


class Who(BaseModel):
    name: str


def ask_name() -> Elicit[Who]:
    return Elicit("Who are you?", Who)


def ask_capital() -> Sample:
    return Sample([SamplingMessage(role="user", content=TextContent(type="text", text="capital of France?"))], max_tokens=20)


def ask_roots() -> ListRoots:
    return ListRoots()


@server.tool()
def greet(
    who: Annotated[Who, Resolve(ask_name)],
    answer: Annotated[CreateMessageResult, Resolve(ask_capital)],
    where: Annotated[ListRootsResult, Resolve(ask_roots)],
) -> str:
    """Greet the user, with what the client's model and roots say: the SDK's resolvers ask the
    client (elicitation, sampling, roots). In 2026-07-28 they ride one InputRequiredResult and the
    client retries with its inputResponses (multi round-trip requests); in 2025-11-25 they are
    the server's own requests, sent during the call."""
    text = answer.content.text if isinstance(answer.content, TextContent) else "?"
    return f"hello {who.name}: {text}, {len(where.roots)} root(s)"


@server.tool()
async def announce(ctx: Context) -> str:
    """Tell 2026-07-28 subscribers (subscriptions/listen) that the tools and a resource changed."""
    await ctx.notify_tools_changed()
    await ctx.notify_resource_updated("specbind://readme")
    return "announced"


@server.resource("specbind://readme", mime_type="text/plain")
def readme() -> str:
    """What this server is."""
    return "A server for specbind's SDK scenarios."


@server.resource("specbind://items/{name}", mime_type="application/json")
def item(name: str) -> str:
    """One item, by name."""
    return '{"name": "%s"}' % name


@server.prompt()
def review(code: str, language: str = "python") -> str:
    """Review some code."""
    return f"Please review this {language} code:\n{code}"


@server.completion()
async def complete(ref: PromptReference | ResourceTemplateReference, argument: object, context: object) -> Completion:
    name = getattr(argument, "name", "")
    value = getattr(argument, "value", "")
    if name == "language":
        values = [v for v in ("python", "typescript", "rust") if v.startswith(value)]
        return Completion(values=values, total=len(values), has_more=False)
    return Completion(values=[f"{value}-1", f"{value}-2"], total=2, has_more=False)


async def set_level(ctx: object, params: object) -> EmptyResult:
    return EmptyResult()


async def subscribe(ctx: object, params: object) -> EmptyResult:
    SUBSCRIBED.add(str(getattr(params, "uri", "")))
    return EmptyResult()


async def unsubscribe(ctx: object, params: object) -> EmptyResult:
    SUBSCRIBED.discard(str(getattr(params, "uri", "")))
    return EmptyResult()


async def declared() -> None:
    """The same server, declaring every capability it uses."""
    import mcp.types as types

    low = server._lowlevel_server  # the SDK's MCPServer keeps its low-level Server here
    low.add_request_handler("logging/setLevel", types.SetLevelRequestParams, set_level)
    low.add_request_handler("resources/subscribe", types.SubscribeRequestParams, subscribe)
    low.add_request_handler("resources/unsubscribe", types.UnsubscribeRequestParams, unsubscribe)
    options = NotificationOptions(prompts_changed=True, resources_changed=True, tools_changed=True)
    async with stdio_server() as (read_stream, write_stream):
        await low.run(read_stream, write_stream, low.create_initialization_options(options))


if __name__ == "__main__":
    print("specbind-scenario-server: starting (a log line on stderr)", file=sys.stderr, flush=True)
    if "--as-written" in sys.argv[1:]:
        server.run("stdio")
    else:
        anyio.run(declared)
