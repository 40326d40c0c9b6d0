"""Reading event streams from files for the CLI (`specbind serve` replays a recorded one): JSON
Lines, or a captured SSE body whose `data:` fields each carry one event. Both are read
incrementally, so memory stays flat. (`specbind replay` reads files with the generated package's
own `replay` module, which uses `<package>.sse` for SSE.)"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO


def jsonl_documents(stream: BinaryIO) -> Iterator[bytes]:
    """Each non-blank line is one document."""
    for line in stream:
        line = line.strip()
        if line:
            yield line


def sse_documents(stream: BinaryIO, chunk_size: int = 1 << 16) -> Iterator[bytes]:
    """The data of each SSE event: CR, LF and CRLF line ends; multi-line `data:` joined with LF;
    comments and other fields ignored; a leading BOM dropped; input split anywhere, even inside
    a UTF-8 sequence. (The generated packages carry the same grammar as `<package>.sse`;
    tests/test_sse_reference.py holds the two to one reference.)"""
    pieces: list[bytes] = []  # the line being received
    data: list[bytes] = []
    pending_cr = False
    start: bytes | None = b""  # the first bytes, until we know whether they are a BOM
    while True:
        chunk = stream.read(chunk_size)
        if not chunk:
            break
        if start is not None:
            chunk = start + chunk
            if len(chunk) < 3 and _BOM.startswith(chunk):
                start = chunk
                continue
            start = None
            if chunk.startswith(_BOM):
                chunk = chunk[3:]  # a leading byte order mark is not part of the first line
                if not chunk:
                    continue
        if pending_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]  # the LF of a CRLF split across reads
        pending_cr = chunk.endswith(b"\r")
        if b"\n" not in chunk and b"\r" not in chunk:
            pieces.append(chunk)  # a line still arriving: joined once it ends, so a long one stays linear
            continue
        pieces.append(chunk)
        buffer = b"".join(pieces)
        pieces.clear()
        lines = buffer.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
        pieces.append(lines.pop())
        for line in lines:
            event = _line(line, data)
            if event is not None:
                yield event
    # an event the stream ended inside (no blank line after it) is not dispatched, as SSE says


_BOM = b"\xef\xbb\xbf"


def _line(line: bytes, data: list[bytes]) -> bytes | None:
    if not line:
        if not data:
            return None
        event = b"\n".join(data)
        data.clear()
        return event
    if line.startswith(b":"):
        return None
    name, _, value = line.partition(b":")
    if value.startswith(b" "):
        value = value[1:]
    if name == b"data":
        data.append(value)
    return None
