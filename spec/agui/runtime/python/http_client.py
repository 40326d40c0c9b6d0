"""An AG-UI client for the HTTP binding (needs ``httpx``, imported here only).

    async with AgentClient("http://127.0.0.1:8000/agent") as client:
        async with client.run({"threadId": "t1", "runId": "r1", "messages": []}) as stream:
            async for event in stream:          # each event as it arrives, checked in order
                ...
        stream.outcome        # "completed", or "failed" when a MUST-level rule was broken
        stream.run_outcome    # how the last run ended: "finished", "failed" or "truncated"
        stream.consumer.projection.messages

Before anything is sent the input is validated against the schema, prepared for the peer
(``consumer.prepare_input``) and its resume list checked against the interrupts of the run it
continues (``automaton.check_answers``): the client remembers the event that closed the last
run of each thread it saw, or takes it as ``continues=``. A refusal raises ``InputRejected``.

The client never infers success from a 200: an error status before the stream raises
``HTTPError`` (status and body); RUN_ERROR fails the run; a body that ends (or breaks) without a
terminal event is a truncated run, never a synthesized RUN_FINISHED. One response may carry
several runs (a replayed history). There is no resumption: no ``Last-Event-ID`` is sent.
"""

from __future__ import annotations

import datetime as _dt
import json
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from types import TracebackType
from typing import Any

import httpx
import msgspec

from . import codec_json, models
from .automaton import Automaton, Finding, check_answers
from .automaton_table import TABLES
from .consumer import Consumer
from .errors import DecodeError, Issue
from .http_binding import (
    FRAME_ERRORS,
    PROTO_MEDIA_TYPE,
    SSE_MEDIA_TYPE,
    Framing,
    HTTPError,
    InputRejected,
    TransportError,
    UnsupportedMediaType,
    framing,
    media_type_of,
)

__all__ = [
    "default_input",
    "random_input",
    "AgentClient",
    "RunStream",
    "HTTPError",
    "InputRejected",
    "TransportError",
    "UnsupportedMediaType",
    "run",
]

DEFAULT_TIMEOUT = httpx.Timeout(30.0, read=300.0)
"""Connecting and sending may take 30 s; the stream may be silent for 5 minutes (a producer
sends keep-alive comments meanwhile)."""
MAX_ERROR_BODY = 64 << 10
_BROKEN: tuple[type[Exception], ...] = (httpx.HTTPError, *FRAME_ERRORS)
_ANSWERS: dict[str, Any] = TABLES["answers"]
_BLOCK = next(iter(_ANSWERS)) if _ANSWERS else None
_QUESTION: Any = (
    TABLES["event_classes"][_ANSWERS[_BLOCK]["questions"]["event"]] if _BLOCK else None
)
_QUESTION_TYPE = _ANSWERS[_BLOCK]["questions"]["event"] if _BLOCK else None


def default_input() -> dict[str, Any]:
    """A minimal RunAgentInput with fresh ids: an empty conversation (`specbind run`'s default)."""
    return {"threadId": f"thread-{uuid.uuid4()}", "runId": f"run-{uuid.uuid4()}", "messages": []}


def random_input(seed: int | None = None) -> dict[str, Any]:
    """A random valid RunAgentInput (``strategies``), the same for the same seed: anything the
    schema allows (messages of every role and part, tools, context, state, forwarded props),
    but no resume list, which would answer an interrupted run there is none of
    (`specbind fuzz`'s inputs)."""
    from . import strategies

    document: dict[str, Any] = strategies.document("RunAgentInput", seed)
    document.pop("resume", None)
    return document


def _document(value: Any) -> dict[str, Any]:
    """A RunAgentInput given as JSON text, bytes, a dict or a model, as a JSON object."""
    if isinstance(value, (bytes, bytearray, str)):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise InputRejected(
                "the input is not JSON",
                (Issue("", "RunAgentInput", "json", str(exc)),),
            ) from None
    elif isinstance(value, msgspec.Struct):
        value = codec_json.to_builtins(value)
    if not isinstance(value, dict):
        raise InputRejected(
            "the input is not a JSON object",
            (Issue("", "RunAgentInput", "type", f"got {type(value).__name__}"),),
        )
    return value


class AgentClient:
    """Runs an agent at one URL. Keep one per conversation partner: it remembers the event that
    closed the last run of each thread, to check the resume list of the run continuing it.

    ``proto`` adds the protobuf media type to ``Accept`` (refused at once when the package has
    no protobuf framing); ``client_version`` pins the protocol version of the application the
    events are delivered to (see ``consumer.Consumer``); ``keep_delivered`` keeps every event on
    ``stream.consumer.delivered``; ``max_event_size`` bounds one frame. ``http`` may be an
    ``httpx.AsyncClient`` of your own (it is then not closed here)."""

    def __init__(
        self,
        url: str,
        *,
        http: httpx.AsyncClient | None = None,
        headers: Mapping[str, str] | None = None,
        proto: bool = False,
        timeout: httpx.Timeout | float | None = DEFAULT_TIMEOUT,
        client_version: str | None = None,
        keep_delivered: bool = False,
        max_event_size: int | None = 16 << 20,
    ) -> None:
        self.url = url
        self.proto = proto
        if proto:
            framing(PROTO_MEDIA_TYPE)  # UnsupportedMediaType now, not after a request
        self.accept = (
            f"{PROTO_MEDIA_TYPE}, {SSE_MEDIA_TYPE};q=0.9" if proto else SSE_MEDIA_TYPE
        )
        self.headers = dict(headers or {})
        self.client_version = client_version
        self.keep_delivered = keep_delivered
        self.max_event_size = max_event_size
        self._own = http is None
        self.http = http if http is not None else httpx.AsyncClient(timeout=timeout)
        self.closing: dict[str, Any] = {}
        """threadId -> the event that closed the last run seen on that thread."""

    async def __aenter__(self) -> AgentClient:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._own:
            await self.http.aclose()

    def open_interrupts(self, thread_id: str) -> list[Any]:
        """The interrupts the last run of a thread ended with (what a resume list must cover)."""
        closing = self.closing.get(thread_id)
        if closing is None or _BLOCK is None:
            return []
        outcome = getattr(closing, "outcome", msgspec.UNSET)
        interrupts = getattr(outcome, "interrupts", msgspec.UNSET)
        return [] if interrupts is msgspec.UNSET else list(interrupts)

    def run(
        self,
        input: Any,
        *,
        continues: Any = ...,
        now: _dt.datetime | None = None,
    ) -> RunStream:
        """Check and prepare ``input`` (a RunAgentInput as a dict, JSON or model) and return the
        stream that POSTs it when opened (``async with`` or ``async for``).

        ``continues``: the event that closed the run this input continues (a RUN_FINISHED model
        or dict), None for none; by default the one this client saw last on the input's thread.
        Raises ``InputRejected`` when the input is invalid or its resume list does not answer
        exactly the open interrupts (or answers an expired one), all before any request."""
        document = _document(input)
        try:
            codec_json.decode(json.dumps(document), "RunAgentInput")
        except DecodeError as exc:
            raise InputRejected(
                "the input is not a valid RunAgentInput", exc.errors
            ) from None
        consumer = Consumer(
            client_version=self.client_version, input=document, keep_delivered=True
        )
        request = consumer.request
        findings: list[Finding] = []
        if _BLOCK is not None:
            if continues is ...:
                question = self.closing.get(request.thread_id)
            elif continues is None or isinstance(continues, msgspec.Struct):
                question = continues
            else:
                try:
                    question = codec_json.decode(
                        json.dumps(_document(continues)), _QUESTION
                    )
                except DecodeError as exc:
                    raise InputRejected(
                        f"continues= is not a valid {_QUESTION_TYPE} event", exc.errors
                    ) from None
            findings = check_answers(_BLOCK, question, request, now)
            fatal = tuple(f for f in findings if f.fatal)
            if fatal:
                raise InputRejected(
                    "the resume list does not answer the run it continues",
                    findings=fatal,
                )
        body = codec_json.encode(request)
        return RunStream(self, request, body, consumer, findings)

    def _remember(self, event: Any) -> None:
        if getattr(event, "type", None) == _QUESTION_TYPE:
            thread = getattr(event, "thread_id", msgspec.UNSET)
            if thread is not msgspec.UNSET:
                self.closing[thread] = event


class RunStream:
    """One POST and the events it answers. Open it with ``async with`` (or iterate it
    directly); iterate once. Everything below is filled in as events arrive."""

    def __init__(
        self,
        client: AgentClient,
        request: models.RunAgentInput,
        body: bytes,
        consumer: Consumer,
        input_findings: list[Finding],
    ) -> None:
        self.client = client
        self.request = request
        """The RunAgentInput as sent."""
        self.body = body
        self.consumer = consumer
        """The consumer core: ``projection`` holds messages, state and run errors."""
        self.input_findings = input_findings
        """Warnings about the resume list (nothing fatal: that raised InputRejected)."""
        self.status: int | None = None
        self.headers: httpx.Headers | None = None
        self.media_type: str | None = None
        self.truncated = False
        """The body ended without a terminal event: no run, the last run still active, or
        a frame cut off."""
        self.cut_inside_frame = False
        self.transport_error: str | None = None
        """Why reading stopped early (a connection reset, a timeout, an oversized frame)."""
        self.ended = False
        self._response: httpx.Response | None = None
        self._framing: Framing | None = None
        self._events: AsyncGenerator[Any, None] | None = None

    # -- results --------------------------------------------------------------------------

    @property
    def automaton(self) -> Automaton:
        return self.consumer.automaton

    @property
    def findings(self) -> list[Finding]:
        return self.automaton.findings

    @property
    def violations(self) -> list[Finding]:
        return [f for f in self.automaton.findings if f.fatal]

    @property
    def runs(self) -> list[dict[str, Any]]:
        return self.automaton.runs

    @property
    def outcome(self) -> str:
        """The automaton's verdict: "completed", or "failed" once a MUST-level rule was broken
        (a truncated run breaks one)."""
        return self.automaton.outcome

    @property
    def run_outcome(self) -> str:
        """How the last run ended: "finished", "failed" (RUN_ERROR), or "truncated" (the
        body ended first, or carried no run at all)."""
        if self.truncated or not self.runs:
            return "truncated"
        return str(self.runs[-1]["state"])

    # -- the exchange ---------------------------------------------------------------------

    async def __aenter__(self) -> RunStream:
        await self.open()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def open(self) -> None:
        """POST the input. Raises HTTPError for an error status, UnsupportedMediaType for a
        response that is not an event stream this client asked for; the body is then closed."""
        if self._response is not None:
            return
        client = self.client
        headers = {
            **client.headers,
            "Content-Type": "application/json",
            "Accept": client.accept,
        }
        request = client.http.build_request(
            "POST", client.url, content=self.body, headers=headers
        )
        try:
            response = await client.http.send(request, stream=True)
        except httpx.HTTPError as exc:
            raise TransportError(f"POST {client.url}: {type(exc).__name__}: {exc}") from exc
        self.status = response.status_code
        self.headers = response.headers
        content_type = response.headers.get("content-type", "")
        if not 200 <= response.status_code < 300:
            body = b""
            try:
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) >= MAX_ERROR_BODY:
                        body = body[:MAX_ERROR_BODY]
                        break
            except httpx.HTTPError:
                pass
            finally:
                await response.aclose()
            raise HTTPError(response.status_code, body, content_type)
        media = media_type_of(content_type)
        wanted = (SSE_MEDIA_TYPE, PROTO_MEDIA_TYPE) if client.proto else (SSE_MEDIA_TYPE,)
        if media not in wanted:
            await response.aclose()
            raise UnsupportedMediaType(
                f"HTTP {response.status_code} answered {content_type or 'no Content-Type'}, "
                f"not {' or '.join(wanted)}: no run started"
            )
        try:
            self._framing = framing(media)
        except UnsupportedMediaType:
            await response.aclose()
            raise
        self.media_type = media
        self._response = response

    async def aclose(self) -> None:
        """Stop reading and close the body: a run still active then counts as truncated."""
        if self._events is not None:
            await self._events.aclose()
        if self._response is not None:
            await self._response.aclose()

    def __aiter__(self) -> AsyncIterator[Any]:
        if self._events is not None:
            raise RuntimeError("a RunStream can be iterated once")
        events = self._events = self._read()
        return events

    async def _read(self) -> AsyncGenerator[Any, None]:
        await self.open()
        response, framing_ = self._response, self._framing
        assert response is not None and framing_ is not None
        decoder = framing_.decoder(self.client.max_event_size)
        consumer = self.consumer
        delivered = consumer.delivered
        keep = self.client.keep_delivered
        remember = self.client._remember
        try:
            try:
                async for chunk in response.aiter_bytes():
                    for frame in decoder.feed(chunk):
                        start = len(delivered)
                        framing_.deliver(consumer, frame)
                        events = delivered[start:]
                        if not keep:
                            del delivered[:]
                        for event in events:
                            remember(event)
                            yield event
                self.ended = True
            except _BROKEN as exc:  # a broken body, a frame too big or malformed
                self.transport_error = f"{type(exc).__name__}: {exc}"
                if isinstance(exc, DecodeError):  # a frame its binding makes fatal
                    self.automaton.note_decode_error(str(exc.errors[0]))
        finally:
            self.cut_inside_frame = decoder.finish()
            consumer.finish()
            runs = self.automaton.runs
            self.truncated = (
                self.cut_inside_frame or not runs or runs[-1]["state"] == "truncated"
            )
            await response.aclose()

    async def drain(self) -> RunStream:
        """Read the stream to its end (events land on ``consumer``); returns self."""
        async for _ in self:
            pass
        return self


async def run(
    url: str, input: Any, *, continues: Any = None, **options: Any
) -> RunStream:
    """POST one input and read the whole stream: ``(await run(url, input)).run_outcome``."""
    async with AgentClient(url, **options) as client:
        async with client.run(input, continues=continues) as stream:
            return await stream.drain()
