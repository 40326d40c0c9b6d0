"""AG-UI's HTTP binding, the parts its client (``http_client``) and server (``http_server``)
share: media types and ``Accept`` negotiation, how events are framed in each media type, problem
documents for requests refused before a stream starts, and the errors both raise.

The application POSTs a RunAgentInput; a run that starts answers 200 with a stream of events,
``text/event-stream`` by default (each SSE event's data exactly one event as JSON, LF line ends)
or the protobuf media type when the client offers it and the package has the protobuf codec.
Input refused before the run starts is an HTTP error status with no stream; a failure after the
stream opened travels in-stream as RUN_ERROR; a connection that ends without a terminal event is
a truncated run. There is no resumption (no ``Last-Event-ID``).

Specified by AG-UI 1.1 basic/transports (HTTP + SSE, HTTP + protobuf), public repository
ag-ui-protocol/ag-ui, docs/spec/1.1/. Standard library and msgspec only.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Protocol

from . import codec_json, sse
from .automaton import Finding
from .errors import DecodeError, Issue

__all__ = [
    "SSE_MEDIA_TYPE",
    "PROTO_MEDIA_TYPE",
    "PROBLEM_MEDIA_TYPE",
    "INPUT_DEFINITION",
    "FRAME_ERRORS",
    "TransportError",
    "HTTPError",
    "UnsupportedMediaType",
    "InputRejected",
    "Framing",
    "SSEFraming",
    "ProtoFraming",
    "FrameTooLarge",
    "framing",
    "media_types",
    "proto_framing",
    "media_type_of",
    "negotiate",
    "Problem",
    "problem",
    "input_problem",
]

SSE_MEDIA_TYPE = sse.MEDIA_TYPE
PROTO_MEDIA_TYPE = "application/vnd.ag-ui.event+proto"
PROBLEM_MEDIA_TYPE = "application/problem+json"
INPUT_DEFINITION = "RunAgentInput"


class TransportError(Exception):
    """The exchange failed at the HTTP level (as opposed to a stream the automaton judges)."""


class HTTPError(TransportError):
    """The server answered with an error status before any stream: the run never started.
    ``body`` is what it sent (at most the first 64 KiB); ``problem`` its parsed JSON when the
    body is a JSON object (an ``application/problem+json`` document, say)."""

    def __init__(self, status: int, body: bytes, content_type: str = "") -> None:
        self.status = status
        self.body = body
        self.content_type = content_type
        self.problem: dict[str, Any] | None = None
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            self.problem = parsed
        detail = ""
        if self.problem is not None:
            detail = str(self.problem.get("detail") or self.problem.get("title") or "")
        elif body:
            detail = body[:200].decode("utf-8", "replace")
        super().__init__(f"HTTP {status}" + (f": {detail}" if detail else ""))


class UnsupportedMediaType(TransportError):
    """A media type this package cannot stream in (the protobuf one, until the package has
    its protobuf codec), or a response in a media type the client did not ask for."""


class InputRejected(ValueError):
    """A RunAgentInput refused before anything was sent: ``errors`` from validation against the
    schema, ``findings`` from checking its resume list against the run it continues."""

    def __init__(
        self,
        message: str,
        errors: tuple[Issue, ...] = (),
        findings: tuple[Finding, ...] = (),
    ) -> None:
        self.errors = errors
        self.findings = findings
        lines = [message, *(str(e) for e in errors), *(str(f) for f in findings)]
        super().__init__("\n  ".join(lines))


# -- framings -------------------------------------------------------------------------------------

class FrameTooLarge(TransportError):
    """A frame larger than the reader's ``max_size``."""


FRAME_ERRORS: tuple[type[Exception], ...] = (sse.SSEError, FrameTooLarge, DecodeError)
"""What a frame decoder raises for a body it cannot frame: an oversized frame, or (protobuf)
a frame whose bytes do not decode, which its binding makes fatal to the stream."""


class FrameDecoder(Protocol):
    """Incremental: bytes in, complete frames out (in the form ``Framing.deliver`` takes);
    ``finish`` is True when the body ended inside a frame (which is discarded)."""

    def feed(self, chunk: bytes) -> list[Any]: ...

    def finish(self) -> bool: ...


class Target(Protocol):
    """What received frames are fed to: an ``Automaton`` or a ``consumer.Consumer``."""

    def feed(self, event: Any) -> tuple[Finding, ...]: ...

    def feed_document(self, data: bytes | str) -> tuple[Finding, ...]: ...


class Framing(Protocol):
    """How events travel in one media type."""

    media_type: str
    keepalive: bytes | None

    def event(self, event: Any) -> bytes:
        """One event value, encoded (and checked against the schema) and framed."""
        ...

    def document(self, data: bytes) -> bytes:
        """One event given as a JSON document, framed as it is (not checked)."""
        ...

    def decoder(self, max_size: int | None) -> FrameDecoder: ...

    def deliver(self, target: Target, frame: Any) -> tuple[Finding, ...]:
        """Feed one received frame to ``target`` (decoding it leniently first, for SSE)."""
        ...


class SSEFraming:
    """``text/event-stream``: each event's data is one event as compact JSON."""

    media_type = SSE_MEDIA_TYPE
    keepalive: bytes | None = sse.KEEPALIVE

    def event(self, event: Any) -> bytes:
        return sse.encode(codec_json.encode(event))

    def document(self, data: bytes) -> bytes:
        return sse.encode(data)

    def decoder(self, max_size: int | None) -> FrameDecoder:
        return sse.Decoder(max_size)

    def deliver(self, target: Target, frame: Any) -> tuple[Finding, ...]:
        return target.feed_document(frame)


_SSE = SSEFraming()


class _ProtoFrames:
    """The protobuf binding's reader (``transport_proto.FrameDecoder``, lenient: what this build
    does not know is stripped and reported, not fatal), bounded by ``max_size``, returning each
    decoded event, preceded by what was stripped from the frames of the chunk."""

    def __init__(self, module: Any, max_size: int | None) -> None:
        self._reader = module.FrameDecoder(lenient=True)
        self._truncated: type[Exception] = module.TruncatedStream
        self._max = max_size
        self._warned = 0

    def feed(self, chunk: bytes) -> list[Any]:
        events: list[Any] = self._reader.feed(chunk)
        if self._max is not None and self._reader.pending > self._max + 4:
            raise FrameTooLarge(f"a protobuf frame exceeds {self._max} bytes (max_size)")
        warnings: list[Any] = self._reader.warnings[self._warned :]
        self._warned += len(warnings)
        return [*warnings, *events] if warnings else events

    def finish(self) -> bool:
        try:
            self._reader.finish()
        except self._truncated:
            return True
        return False


class ProtoFraming:
    """``application/vnd.ag-ui.event+proto``: 4-byte big-endian length frames of protobuf
    events, from the package's ``transport_proto`` module. A frame that does not decode is
    fatal to the stream (that binding's rule); there are no keep-alive comments."""

    media_type = PROTO_MEDIA_TYPE
    keepalive: bytes | None = None

    def __init__(self, module: Any) -> None:
        self._module = module

    def event(self, event: Any) -> bytes:
        frame: bytes = self._module.encode_frame(event)
        return frame

    def document(self, data: bytes) -> bytes:
        decoded = codec_json.decode_lenient(data)
        if decoded.value is None:
            raise DecodeError(
                "Event", [Issue("", "Event", "oneOf", "an event type this build lacks")]
            )
        return self.event(decoded.value)

    def decoder(self, max_size: int | None) -> FrameDecoder:
        return _ProtoFrames(self._module, max_size)

    def deliver(self, target: Target, frame: Any) -> tuple[Finding, ...]:
        if isinstance(frame, Issue):  # stripped from the frame that follows
            automaton: Any = getattr(target, "automaton", target)
            found: tuple[Finding, ...] = automaton.note_stripped(str(frame))
            return found
        return target.feed(frame)


_PROTO: list[Framing | None] = []


def proto_framing() -> Framing | None:
    """The protobuf framing, when this package has the protobuf binding's HTTP framing
    (``transport_proto``: ``MEDIA_TYPE``, ``encode_frame``, ``FrameDecoder``,
    ``TruncatedStream``); None otherwise, and the protobuf media type is then refused with
    ``UnsupportedMediaType`` by ``framing`` and never offered by ``media_types``."""
    if not _PROTO:
        try:
            module: Any = importlib.import_module(f"{__package__}.transport_proto")
        except ImportError:
            module = None
        needed = ("MEDIA_TYPE", "encode_frame", "FrameDecoder", "TruncatedStream")
        usable = (
            module is not None
            and all(hasattr(module, n) for n in needed)
            and module.MEDIA_TYPE == PROTO_MEDIA_TYPE
        )
        _PROTO.append(ProtoFraming(module) if usable else None)
    return _PROTO[0]


def media_types() -> tuple[str, ...]:
    """The media types events can be streamed in here, the server's preference first (the
    protobuf one is chosen only for a client that names it: see ``negotiate``)."""
    return (PROTO_MEDIA_TYPE, SSE_MEDIA_TYPE) if proto_framing() else (SSE_MEDIA_TYPE,)


def framing(media_type: str) -> Framing:
    """The framing of a media type, or UnsupportedMediaType."""
    if media_type == SSE_MEDIA_TYPE:
        return _SSE
    if media_type == PROTO_MEDIA_TYPE:
        found = proto_framing()
        if found is None:
            raise UnsupportedMediaType(
                f"{PROTO_MEDIA_TYPE}: this package has no protobuf HTTP framing "
                f"(no transport_proto module with framing functions); "
                f"use {SSE_MEDIA_TYPE}"
            )
        return found
    raise UnsupportedMediaType(f"{media_type or '(none)'}: not an AG-UI event stream")


# -- content negotiation --------------------------------------------------------------------------


def media_type_of(header: str | None) -> str:
    """The bare media type of a Content-Type value, lower-cased (parameters dropped)."""
    return (header or "").split(";", 1)[0].strip().lower()


def _ranges(accept: str) -> list[tuple[str, str, float]]:
    out = []
    for part in accept.split(","):
        items = [p.strip() for p in part.split(";")]
        kind = items[0].lower()
        if "/" not in kind:
            continue
        main, _, sub = kind.partition("/")
        q = 1.0
        for param in items[1:]:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value.strip())
                except ValueError:
                    q = 0.0
        out.append((main, sub, max(0.0, min(q, 1.0))))
    return out


def negotiate(
    accept: str | None, offers: tuple[str, ...], explicit: tuple[str, ...] = ()
) -> str | None:
    """The offer an Accept header prefers (RFC 9110 §12.5.1): the highest quality, by the most
    specific range matching each offer; ties go to the earlier offer. An offer in ``explicit``
    is only chosen when the header names it exactly (a wildcard does not reach it: a client
    that accepts ``*/*`` is not sent a binary stream it never asked for). No header (or an
    empty one) accepts anything: the first offer not in ``explicit``. None when nothing
    offered is acceptable."""
    if not accept or not accept.strip():
        return next((o for o in offers if o not in explicit), None)
    ranges = _ranges(accept)
    best: tuple[float, int] | None = None
    chosen = None
    for position, offer in enumerate(offers):
        main, _, sub = offer.partition("/")
        quality, specificity = 0.0, -1
        for r_main, r_sub, q in ranges:
            if (r_main, r_sub) == (main, sub):
                rank = 2
            elif offer in explicit:
                continue
            elif (r_main, r_sub) == (main, "*"):
                rank = 1
            elif (r_main, r_sub) == ("*", "*"):
                rank = 0
            else:
                continue
            if rank > specificity:
                quality, specificity = q, rank
        if quality > 0 and (best is None or (quality, -position) > best):
            best, chosen = (quality, -position), offer
    return chosen


# -- problem documents ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """An RFC 9457 problem document: the body of every refusal before a stream."""

    status: int
    detail: str
    errors: tuple[Issue, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "about:blank",
            "title": HTTPStatus(self.status).phrase,
            "status": self.status,
            "detail": self.detail,
        }
        if self.errors:
            out["errors"] = [e.as_dict() for e in self.errors]
        return out

    def encode(self) -> bytes:
        return json.dumps(self.as_dict(), ensure_ascii=False).encode("utf-8")


def problem(status: int, detail: str, errors: tuple[Issue, ...] = ()) -> Problem:
    return Problem(status, detail, errors)


def input_problem(exc: DecodeError) -> Problem:
    """The refusal of a body that is not a valid RunAgentInput: 400 when it is not JSON at all,
    422 when it is JSON the schema refuses."""
    if any(e.keyword == "json" for e in exc.errors):
        return Problem(400, "the request body is not JSON", exc.errors)
    return Problem(422, f"the request body is not a valid {INPUT_DEFINITION}", exc.errors)
