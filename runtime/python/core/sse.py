"""Server-Sent Events framing for an event-stream binding: each SSE event's data is exactly one
document, and every other field is ignored.

The encoder writes the one form every consumer is known to parse: LF line ends only, one
``data:`` line per event (a document holding line breaks is split over several lines, which a
decoder joins with LF), a blank line after each event, and comment lines for keep-alive.

The decoder accepts the whole event-stream grammar of the HTML standard: CR, LF and CRLF line
ends (a CRLF split between two chunks is still one line end), a leading byte order mark, several
``data:`` lines joined with LF, ``event:``, ``id:``, ``retry:`` and unknown fields ignored, comment
lines tolerated, and input split at any byte, even inside a UTF-8 sequence: it works on bytes,
and CR and LF never occur inside a multi-byte sequence. An event the stream ends inside (no blank
line after it) is discarded, as the standard says; ``finish`` tells whether that happened.

    decoder = Decoder()
    for chunk in chunks:
        for data in decoder.feed(chunk):   # bytes: one event's data
            ...
    cut = decoder.finish()                 # True when the stream ended inside an event

Memory is bounded by ``max_size``, the most one event (and one line) may hold.
Standard library only.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

__all__ = [
    "MEDIA_TYPE",
    "KEEPALIVE",
    "SSEError",
    "encode",
    "comment",
    "Decoder",
    "iter_data",
    "aiter_data",
    "with_keepalive",
]

MEDIA_TYPE = "text/event-stream"
KEEPALIVE = b": keep-alive\n\n"
"""The keep-alive comment: a comment line and a blank line, which dispatches nothing."""

_BOM = b"\xef\xbb\xbf"
_DEFAULT_MAX = 16 << 20


class SSEError(ValueError):
    """A stream that cannot be decoded within the limits (an event larger than ``max_size``)."""


def encode(data: bytes) -> bytes:
    """One SSE event carrying ``data``: ``data: ...`` and a blank line, LF line ends only.
    Line breaks inside ``data`` (CR, LF or CRLF) become separate ``data:`` lines, which a
    decoder joins with LF: SSE cannot carry a CR."""
    if b"\n" in data or b"\r" in data:
        lines = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
        return b"".join([b"data: " + line + b"\n" for line in lines]) + b"\n"
    return b"data: " + data + b"\n\n"


def comment(text: str = "keep-alive") -> bytes:
    """A comment (each line of ``text`` a ``:`` line) and a blank line: consumers ignore it."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "".join(f": {line}\n" for line in lines).encode("utf-8") + b"\n"


class Decoder:
    """Incremental decoder: ``feed`` bytes as they arrive, get each completed event's data.
    Not thread-safe; one instance per stream."""

    __slots__ = ("_tail", "_tail_size", "_data", "_size", "_skip_lf", "_start", "max_size")

    def __init__(self, max_size: int | None = _DEFAULT_MAX) -> None:
        self.max_size = max_size
        self._tail: list[bytes] = []  # the line being received, in pieces
        self._tail_size = 0
        self._data: list[bytes] = []  # the data lines of the event being received
        self._size = 0
        self._skip_lf = False  # the last chunk ended with CR: a LF starting the next is its pair
        # bytes held until we know whether the stream opens with a BOM (None: we know)
        self._start: bytes | None = b""

    def feed(self, chunk: bytes) -> list[bytes]:
        """The data of every event ``chunk`` completes, in order."""
        if not chunk:  # nothing arrived: a CR pending from the last chunk still awaits its LF
            return []
        if self._start is not None:
            chunk = self._start + chunk
            if len(chunk) < 3 and _BOM.startswith(chunk):
                self._start = chunk
                return []
            self._start = None
            if chunk.startswith(_BOM):
                chunk = chunk[3:]
        if self._skip_lf:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
        if b"\r" in chunk:
            self._skip_lf = chunk[-1:] == b"\r"
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        if b"\n" not in chunk:
            if chunk:
                self._tail.append(chunk)
                self._tail_size += len(chunk)
                self._limit(self._tail_size)
            return []
        if self._tail:
            self._tail.append(chunk)
            chunk = b"".join(self._tail)
            self._tail.clear()
        lines = chunk.split(b"\n")
        last = lines.pop()
        if last:
            self._tail.append(last)
        self._tail_size = len(last)
        out: list[bytes] = []
        data = self._data
        size = self._size
        limit = self.max_size if self.max_size is not None else -1
        for line in lines:
            if not line:  # a blank line dispatches the event, if it has data
                if data:
                    if size > limit >= 0:
                        self._limit(size)
                    out.append(data[0] if len(data) == 1 else b"\n".join(data))
                    data.clear()
                    size = 0
            elif line[:6] == b"data: ":
                data.append(line[6:])
                size += len(line) - 5
            elif line[:5] == b"data:":
                data.append(line[5:])
                size += len(line) - 4
            elif line == b"data":  # a field with no colon has the empty value
                data.append(b"")
                size += 1
            # anything else is a comment (`:` first), or a field other than `data`: ignored
        self._size = size
        self._limit(self._tail_size + size)
        return out

    def _limit(self, size: int) -> None:
        if self.max_size is not None and size > self.max_size:
            raise SSEError(
                f"an SSE event or line exceeds {self.max_size} bytes (max_size)"
            )

    def finish(self) -> bool:
        """End of stream: True when it ended inside an event (after data lines, or in a line
        that is not a comment), whose data is then discarded. The decoder is reset."""
        tail = b"".join(self._tail)
        if self._start:  # the stream was at most a partial byte order mark
            tail = self._start
        cut = bool(self._data) or (bool(tail) and not tail.startswith(b":"))
        self._tail.clear()
        self._tail_size = 0
        self._data.clear()
        self._size = 0
        self._skip_lf = False
        self._start = b""
        return cut


def iter_data(
    chunks: Iterable[bytes], max_size: int | None = _DEFAULT_MAX
) -> Iterator[bytes]:
    """The data of each event in a stream given as chunks (a file read in blocks, say)."""
    decoder = Decoder(max_size)
    for chunk in chunks:
        yield from decoder.feed(chunk)
    decoder.finish()


async def aiter_data(
    chunks: AsyncIterable[bytes], max_size: int | None = _DEFAULT_MAX
) -> AsyncIterator[bytes]:
    """The data of each event in a stream arriving as chunks (an HTTP response body)."""
    decoder = Decoder(max_size)
    async for chunk in chunks:
        for data in decoder.feed(chunk):
            yield data
    decoder.finish()


async def with_keepalive(
    frames: AsyncIterable[bytes],
    interval: float | None,
    keepalive: bytes = KEEPALIVE,
) -> AsyncIterator[bytes]:
    """``frames`` as they come, with ``keepalive`` sent whenever ``interval`` seconds pass
    without one (None or 0: never). The source runs in one task of its own, at most one frame
    ahead, so context managers it holds across frames enter and exit in the same task; the
    timer never cancels it mid-frame. Closing the result closes the source. Runs on asyncio."""
    if not interval:
        async for frame in frames:
            yield frame
        return
    queue: asyncio.Queue[tuple[int, Any]] = asyncio.Queue(maxsize=1)

    async def pump() -> None:
        source = frames.__aiter__()
        try:
            while True:
                try:
                    frame = await source.__anext__()
                except StopAsyncIteration:
                    await queue.put((1, None))
                    return
                await queue.put((0, frame))
        except Exception as exc:  # the source failed: raised where the frames are read
            await queue.put((2, exc))
        finally:
            close = getattr(source, "aclose", None)
            if close is not None:
                await close()

    task = asyncio.ensure_future(pump())
    try:
        while True:
            try:
                kind, value = await asyncio.wait_for(queue.get(), interval)
            except asyncio.TimeoutError:
                yield keepalive
                continue
            if kind == 1:
                return
            if kind == 2:
                raise value
            yield value
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
