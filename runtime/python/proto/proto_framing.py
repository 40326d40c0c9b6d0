"""The HTTP + protobuf binding's framing: the response body is a sequence of frames, each a 4-byte
unsigned big-endian length followed by exactly that many bytes of one encoded event. Frames abut
with no separator; a reader tolerates frames split across chunks and several frames in one
chunk. A body that ends mid-frame is a truncated run (``TruncatedStream``), not malformed
material; a frame whose bytes do not decode is fatal to the stream (``FrameError``).

The generated ``transport_proto`` module exports these with the binding's media type.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from . import codec_proto
from . import limits
from .errors import DecodeError, Issue
from .limits import Capped

__all__ = [
    "HEADER_SIZE",
    "FrameError",
    "TruncatedStream",
    "FrameDecoder",
    "frame",
    "frames",
    "encode_frame",
    "encode_stream",
    "decode_stream",
]

HEADER_SIZE = 4
_MAX = 0xFFFFFFFF


class FrameError(DecodeError):
    """A frame whose bytes do not decode: malformed transport material, fatal to the stream.
    ``index`` is the frame's position in the stream, ``offset`` the byte its header starts at.
    """

    def __init__(
        self, definition: str, errors: list[Issue], index: int, offset: int, count: int | None = None
    ) -> None:
        self.index = index
        self.offset = offset
        located = [
            Issue(
                e.pointer,
                e.definition,
                e.keyword,
                f"frame {index} (body byte {offset}): {e.message}",
                e.schema_location,
            )
            for e in errors
        ]
        super().__init__(definition, located, count)


class TruncatedStream(DecodeError):
    """The body ended inside a frame: a truncated run. ``complete`` frames were read before it."""

    def __init__(
        self, definition: str, complete: int, offset: int, missing: int
    ) -> None:
        self.complete = complete
        self.offset = offset
        self.missing = missing
        message = f"the body ends inside frame {complete} (body byte {offset}): {missing} more byte{'s' if missing != 1 else ''} expected"
        super().__init__(definition, [Issue("", definition, "truncated", message)])


def frame(payload: bytes) -> bytes:
    """One frame around an encoded message."""
    if len(payload) > _MAX:
        raise ValueError(f"a frame holds at most {_MAX} bytes, not {len(payload)}")
    return len(payload).to_bytes(4, "big") + payload


def encode_frame(event: Any, *, validate: bool = True) -> bytes:
    """One event, encoded and framed."""
    return frame(codec_proto.encode(event, codec_proto.ROOT, validate=validate))


def encode_stream(events: Iterable[Any], *, validate: bool = True) -> bytes:
    """A whole response body."""
    return b"".join(encode_frame(e, validate=validate) for e in events)


def frames(data: bytes) -> Iterator[bytes]:
    """The payloads of a complete body, in order (TruncatedStream if it ends mid-frame)."""
    pos = 0
    end = len(data)
    index = 0
    while pos < end:
        if pos + HEADER_SIZE > end:
            raise TruncatedStream(codec_proto.ROOT, index, pos, pos + HEADER_SIZE - end)
        n = int.from_bytes(data[pos : pos + HEADER_SIZE], "big")
        start = pos + HEADER_SIZE
        if start + n > end:
            raise TruncatedStream(codec_proto.ROOT, index, pos, start + n - end)
        yield data[start : start + n]
        pos = start + n
        index += 1


class FrameDecoder:
    """Incremental reader of a framed body: feed it chunks as they arrive, whatever their sizes.

    Strict by default. With ``lenient`` a frame naming only an envelope arm this build predates
    is dropped (and reported in ``warnings``), as the transport page prescribes; fields this
    build does not know are skipped and reported; anything else malformed is still fatal.
    ``warnings`` keeps the first ``limits.MAX_ERRORS`` of the body's warnings and counts the
    rest in ``warnings.more``.
    """

    def __init__(
        self, *, lenient: bool = False, definition: str = codec_proto.ROOT
    ) -> None:
        self.lenient = lenient
        self.definition = definition
        self.warnings: Capped = Capped(limits.MAX_ERRORS)
        self.frames = 0  # complete frames read
        self.consumed = 0  # body bytes consumed by complete frames
        self._buffer = bytearray()

    @property
    def pending(self) -> int:
        """Bytes received that do not yet make a whole frame."""
        return len(self._buffer)

    def feed(self, chunk: bytes | bytearray | memoryview) -> list[Any]:
        """The events completed by this chunk (possibly none, possibly several)."""
        buf = self._buffer
        buf += chunk
        out: list[Any] = []
        pos = 0
        end = len(buf)
        while end - pos >= HEADER_SIZE:
            n = int.from_bytes(buf[pos : pos + HEADER_SIZE], "big")
            start = pos + HEADER_SIZE
            if end - start < n:
                break
            payload = bytes(buf[start : start + n])
            offset = self.consumed
            try:
                if self.lenient:
                    result = codec_proto.decode_lenient(payload, self.definition)
                    for w in result.warnings:
                        self.warnings.append(
                            Issue(
                                w.pointer,
                                w.definition,
                                w.keyword,
                                f"frame {self.frames}: {w.message}",
                                w.schema_location,
                            )
                        )
                    self.warnings.more += result.omitted
                    if not result.dropped:
                        out.append(result.value)
                else:
                    out.append(codec_proto.decode(payload, self.definition))
            except DecodeError as exc:
                raise FrameError(
                    self.definition, list(exc.errors), self.frames, offset, exc.count
                ) from None
            self.frames += 1
            self.consumed += HEADER_SIZE + n
            pos = start + n
        if pos:
            del buf[:pos]
        return out

    def finish(self) -> None:
        """The body ended: TruncatedStream if it ended inside a frame."""
        if self._buffer:
            have = len(self._buffer)
            if have < HEADER_SIZE:
                missing = HEADER_SIZE - have
            else:
                missing = (
                    HEADER_SIZE
                    + int.from_bytes(self._buffer[:HEADER_SIZE], "big")
                    - have
                )
            raise TruncatedStream(self.definition, self.frames, self.consumed, missing)


def decode_stream(
    data: bytes | bytearray | memoryview, *, lenient: bool = False
) -> list[Any]:
    """Every event of a complete body (FrameError, TruncatedStream as for FrameDecoder)."""
    reader = FrameDecoder(lenient=lenient)
    events = reader.feed(data)
    reader.finish()
    return events
