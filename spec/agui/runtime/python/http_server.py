"""An AG-UI agent endpoint for the HTTP binding, as an ASGI app (needs ``starlette``, imported
here only).

    async def agent(run: RunContext) -> AsyncIterator[Any]:
        yield models.RunStartedEvent(thread_id=run.input.thread_id, run_id=run.input.run_id)
        ...
        yield models.RunFinishedEvent(thread_id=run.input.thread_id, run_id=run.input.run_id)

    app = create_app(agent, path="/agent", check=True)   # or mount AgentEndpoint(agent)

Before any stream starts the request is checked: POST only (405), a JSON body (415), at most
``max_body`` bytes (413), a RunAgentInput the schema accepts (400 for malformed JSON, 422 for a
failed validation; lenient by default: what a newer client added is stripped and reported on
``RunContext.warnings``), an acceptable media type (406). Each refusal is an
``application/problem+json`` body and no stream. A handler may refuse too, by raising ``Reject``
before its first event (refused auth, say); any other exception before the first event is a 500.

Then the handler's events (model instances, or JSON documents as bytes, str or dict, sent as they
are) are framed as SSE (or protobuf, when negotiated and available), with keep-alive comments
every ``keepalive`` seconds of silence. The body closes when the handler's iterator ends: after
the last terminal event. An exception after the stream opened travels in-stream as RUN_ERROR.
The handler runs in a task of its own from its first event to its last (at most one event
ahead of the response), so what it holds across its yields stays in one task; when the client
goes away it is cancelled and its ``finally`` blocks run.

Producer mode (``check=True``) runs every outgoing event through the lifecycle automaton: an event
that breaks a MUST-level rule is not sent; a RUN_ERROR naming the rule is (when a RUN_ERROR is
still allowed there) and the stream closes cleanly. A handler that ends while a run is active, or
produces nothing, gets the same treatment. Without it, events pass as the handler gives them (a
recorded stream replays as recorded), except that an event value that does not encode is never
sent.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterable, AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from . import codec_json, models
from .automaton import Automaton, Finding
from .automaton_table import TABLES
from .errors import DecodeError, Issue
from .http_binding import (
    INPUT_DEFINITION,
    PROBLEM_MEDIA_TYPE,
    PROTO_MEDIA_TYPE,
    SSE_MEDIA_TYPE,
    Framing,
    Problem,
    framing,
    input_problem,
    media_type_of,
    media_types,
    negotiate,
)

__all__ = [
    "AgentEndpoint",
    "RunContext",
    "Reject",
    "create_app",
    "recorded",
    "demo",
    "VIOLATION_CODE",
    "AGENT_ERROR_CODE",
]

log = logging.getLogger(__name__)

VIOLATION_CODE = "PROTOCOL_VIOLATION"
"""RUN_ERROR.code when producer mode stops a stream that broke a rule."""
AGENT_ERROR_CODE = "AGENT_ERROR"
"""RUN_ERROR.code when the handler raised after the stream opened."""
_MACHINE: dict[str, Any] = TABLES["machine"]
_INPUT = codec_json.decoder(INPUT_DEFINITION)
_END: Any = object()


@dataclass(frozen=True)
class RunContext:
    """What a handler is called with: the validated input, the request (headers, client), what
    lenient decoding stripped from the input, and the media type the events will travel in."""

    input: models.RunAgentInput
    request: Request
    warnings: tuple[Issue, ...]
    media_type: str


Handler = Callable[[RunContext], AsyncIterable[Any]]


class Reject(Exception):
    """Raised by a handler before its first event: the request is refused with ``status`` and a
    problem document, and no stream starts. Raised later, it ends the stream as a RUN_ERROR."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


class _Pump:
    """Runs the handler's iterator in one task of its own, at most one item ahead, so that what
    the handler holds across its yields (an upstream HTTP stream, a cancel scope, a context
    variable) is entered and left in the same task, whichever task reads the items."""

    END = 1
    ERROR = 2
    ITEM = 0

    def __init__(self, source: AsyncIterable[Any]) -> None:
        self._queue: asyncio.Queue[tuple[int, Any]] = asyncio.Queue(maxsize=1)
        self._task = asyncio.ensure_future(self._run(source))

    async def _run(self, items: AsyncIterable[Any]) -> None:
        source = items.__aiter__()
        try:
            while True:
                try:
                    item = await source.__anext__()
                except StopAsyncIteration:
                    await self._queue.put((self.END, None))
                    return
                await self._queue.put((self.ITEM, item))
        except Exception as exc:
            await self._queue.put((self.ERROR, exc))
        finally:
            close = getattr(source, "aclose", None)
            if close is not None:
                await close()

    async def get(self, timeout: float | None = None) -> tuple[int, Any]:
        """The next (kind, value); asyncio.TimeoutError after ``timeout`` seconds."""
        if timeout is None:
            return await self._queue.get()
        return await asyncio.wait_for(self._queue.get(), timeout)

    async def aclose(self) -> None:
        """Stop the handler (its ``finally`` blocks run) unless it already ended."""
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)


def _problem_response(problem: Problem, headers: dict[str, str] | None = None) -> Response:
    return Response(
        problem.encode(),
        status_code=problem.status,
        media_type=PROBLEM_MEDIA_TYPE,
        headers=headers,
    )


def _error_allowed(state: str) -> bool:
    row = _MACHINE["table"].get(state, {}).get("RUN_ERROR")
    return row is not None and not row["fail"]


class AgentEndpoint:
    """The ASGI app of one agent endpoint: mount it at any path (``Route(path, endpoint)``,
    ``Mount``, or as the whole app).

    ``check``: producer mode (above). ``keepalive``: seconds of silence before a keep-alive
    comment (None: never). ``lenient``: strip (and report) what a newer client added to the
    input instead of refusing it. ``max_body``: the largest request accepted. ``protobuf``:
    offer the protobuf media type when the package has it."""

    def __init__(
        self,
        handler: Handler,
        *,
        check: bool = False,
        keepalive: float | None = 15.0,
        lenient: bool = True,
        max_body: int = 16 << 20,
        protobuf: bool = True,
    ) -> None:
        self.handler = handler
        self.check = check
        self.keepalive = keepalive
        self.lenient = lenient
        self.max_body = max_body
        self.offers = media_types() if protobuf else (SSE_MEDIA_TYPE,)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        response = await self.respond(Request(scope, receive))
        await response(scope, receive, send)

    async def respond(self, request: Request) -> Response:
        """The response to one request: a refusal, or the stream."""
        if request.method != "POST":
            return _problem_response(
                Problem(405, f"{request.method}: an agent endpoint takes POST"),
                {"Allow": "POST"},
            )
        content_type = media_type_of(request.headers.get("content-type"))
        if content_type and not (
            content_type == "application/json" or content_type.endswith("+json")
        ):
            return _problem_response(
                Problem(415, f"the body must be application/json, not {content_type}")
            )
        accept = request.headers.get("accept")
        media = negotiate(accept, self.offers, explicit=(PROTO_MEDIA_TYPE,))
        if media is None:
            return _problem_response(
                Problem(
                    406,
                    f"Accept: {accept} admits none of {', '.join(self.offers)}",
                )
            )
        body = await self._body(request)
        if body is None:
            return _problem_response(
                Problem(413, f"the body exceeds {self.max_body} bytes")
            )
        try:
            if self.lenient:
                decoded = _INPUT.decode_lenient(body)
                value, warnings = decoded.value, decoded.warnings
            else:
                value, warnings = _INPUT.decode(body), ()
        except DecodeError as exc:
            return _problem_response(input_problem(exc))
        framing_ = framing(media)
        context = RunContext(value, request, tuple(warnings), media)
        pump = _Pump(self.handler(context))
        try:
            kind, first = await pump.get()
        except BaseException:  # the request was cancelled while the agent was starting
            await pump.aclose()
            raise
        if kind == _Pump.END:
            first = _END
        elif kind == _Pump.ERROR:
            await pump.aclose()
            if isinstance(first, Reject):
                return _problem_response(Problem(first.status, first.detail))
            log.error("the agent failed before its first event", exc_info=first)
            return _problem_response(
                Problem(500, "the agent failed before the run started")
            )
        frames = self._frames(framing_, first, pump)
        return StreamingResponse(
            frames,
            media_type=framing_.media_type,
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    async def _body(self, request: Request) -> bytes | None:
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_body:
            return None
        parts: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > self.max_body:
                return None
            parts.append(chunk)
        return b"".join(parts)

    async def _frames(
        self, framing_: Framing, first: Any, pump: _Pump
    ) -> AsyncIterator[bytes]:
        automaton = Automaton()
        item = first
        idle = self.keepalive if framing_.keepalive is not None else None
        try:
            while item is not _END:
                before = automaton.state
                frame, stop = self._frame(automaton, framing_, item)
                if frame is not None:
                    yield frame
                if stop is not None:
                    closing = self._run_error(framing_, before, stop, VIOLATION_CODE)
                    if closing is not None:
                        yield closing
                    return
                while True:
                    try:
                        kind, item = await pump.get(idle or None)
                        break
                    except asyncio.TimeoutError:  # silence: a keep-alive comment
                        assert framing_.keepalive is not None
                        yield framing_.keepalive
                if kind == _Pump.END:
                    item = _END
                elif kind == _Pump.ERROR:
                    log.error("the agent failed after the stream opened", exc_info=item)
                    message = (
                        item.detail
                        if isinstance(item, Reject)
                        else f"the agent failed: {type(item).__name__}"
                    )
                    closing = self._run_error(
                        framing_, automaton.state, message, AGENT_ERROR_CODE
                    )
                    if closing is not None:
                        yield closing
                    return
            if self.check:
                before, started = automaton.state, automaton.index >= 0
                fatal = [f for f in automaton.finish() if f.fatal]
                reason = None
                if fatal:
                    reason = self._describe(fatal[0])
                elif not started:
                    reason = "the agent produced no event"
                if reason is not None:
                    closing = self._run_error(framing_, before, reason, VIOLATION_CODE)
                    if closing is not None:
                        yield closing
        finally:
            await pump.aclose()

    def _frame(
        self, automaton: Automaton, framing_: Framing, item: Any
    ) -> tuple[bytes | None, str | None]:
        """The frame for one item of the handler, and why the stream must stop (or None)."""
        findings: tuple[Finding, ...]
        if isinstance(item, msgspec.Struct):
            findings = automaton.feed(item)
            fatal = [f for f in findings if f.fatal]
            if self.check and fatal:
                return None, self._describe(fatal[0])
            try:
                frame = framing_.event(item)
            except (ValueError, TypeError) as exc:  # EncodeError, or no definition at all
                log.error("an event the agent produced does not encode: %s", exc)
                return None, f"the agent produced an event that does not encode: {_first(exc)}"
        else:
            if isinstance(item, dict):
                data = json.dumps(item, ensure_ascii=False, separators=(",", ":")).encode()
            elif isinstance(item, str):
                data = item.encode("utf-8")
            elif isinstance(item, (bytes, bytearray, memoryview)):
                data = bytes(item)
            else:
                return None, f"the agent produced a {type(item).__name__}, not an event"
            findings = automaton.feed_document(data)
            fatal = [f for f in findings if f.fatal]
            if self.check and fatal:
                return None, self._describe(fatal[0])
            try:
                frame = framing_.document(data)
            except (ValueError, TypeError) as exc:  # a document protobuf cannot carry
                return None, f"an event does not encode as {framing_.media_type}: {_first(exc)}"
        for f in findings:
            if self.check:
                log.warning("outgoing event %s", f)
        return frame, None

    @staticmethod
    def _describe(finding: Finding) -> str:
        return f"the agent's stream broke {finding.rule} ({finding.level}): {finding.message}"

    @staticmethod
    def _run_error(framing_: Framing, state: str, message: str, code: str) -> bytes | None:
        """A RUN_ERROR frame, when one may follow the events sent so far."""
        if not _error_allowed(state):
            log.warning("stream closed without RUN_ERROR (%s): %s", state, message)
            return None
        return framing_.event(models.RunErrorEvent(message=message, code=code))


def _first(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    return str(errors[0]) if errors else str(exc)


def create_app(handler: Handler, path: str = "/", **options: Any) -> Starlette:
    """A Starlette app serving one agent endpoint at ``path`` (options: see AgentEndpoint)."""
    return Starlette(routes=[Route(path, AgentEndpoint(handler, **options))])


def recorded(documents: Sequence[bytes], delay: float = 0.0) -> Handler:
    """A handler that answers every request with the same recorded events (JSON documents), as
    recorded: a mock agent for frontend work. ``delay``: seconds before each event."""

    async def handler(run: RunContext) -> AsyncIterator[Any]:
        for document in documents:
            if delay:
                await asyncio.sleep(delay)
            yield document

    return handler


async def demo(run: RunContext) -> AsyncIterator[Any]:
    """A small conversational run answering the request's own thread and run ids: a step, an
    assistant message echoing the last user message word by word, a state snapshot."""
    thread, run_id = run.input.thread_id, run.input.run_id
    said = ""
    for message in run.input.messages:
        if getattr(message, "role", None) == "user":
            content = getattr(message, "content", "")
            if isinstance(content, str):
                said = content
            else:
                said = " ".join(
                    str(getattr(p, "text", "")) for p in content if hasattr(p, "text")
                )
    reply = f"You said: {said}" if said else "Hello from the specbind mock agent."
    message_id = f"{run_id}-reply"
    yield models.RunStartedEvent(thread_id=thread, run_id=run_id)
    yield models.StepStartedEvent(step_name="reply")
    yield models.TextMessageStartEvent(
        message_id=message_id, role=models.TextMessageRole.ASSISTANT
    )
    words = reply.split(" ")
    for i, word in enumerate(words):
        delta = word if i == len(words) - 1 else word + " "
        yield models.TextMessageContentEvent(message_id=message_id, delta=delta)
    yield models.TextMessageEndEvent(message_id=message_id)
    yield models.StepFinishedEvent(step_name="reply")
    yield models.StateSnapshotEvent(snapshot={"turns": len(run.input.messages) + 1})
    yield models.RunFinishedEvent(thread_id=thread, run_id=run_id)
