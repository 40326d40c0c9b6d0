"""The SSE decoders against a literal transcription of the HTML standard's event-stream
interpretation, on random streams of the whole grammar: the generated one (`agui.sse.Decoder`,
fed at random split points) and the CLI's file reader (`generator/streams.py`, read in small
blocks) must both yield exactly what the standard dispatches."""

from __future__ import annotations

import io
import random
import re

import pytest

from agui import sse
from generator.streams import sse_documents

_LINE_END = re.compile(r"\r\n|\r|\n")


def reference(stream: bytes) -> list[str]:
    """html.spec.whatwg.org, "Interpreting an event stream", data only: UTF-8 decode, one
    leading BOM dropped, lines split on CRLF/LF/CR, the data buffer dispatched (its last LF
    removed) at a blank line unless empty; an unterminated last line and event discarded."""
    text = stream.decode("utf-8", "replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    pieces = _LINE_END.split(text)
    pieces.pop()  # what follows the last line end is not a line
    out: list[str] = []
    buffer = ""
    for line in pieces:
        if line == "":
            if buffer:
                out.append(buffer[:-1] if buffer.endswith("\n") else buffer)
            buffer = ""
            continue
        if line.startswith(":"):
            continue
        if ":" in line:
            name, _, value = line.partition(":")
            if value.startswith(" "):
                value = value[1:]
        else:
            name, value = line, ""
        if name == "data":
            buffer += value + "\n"
    return out


VALUES = ['{"type":"X","d":"caf\u00e9"}', "", " lead", "a:b", "\U0001f600\u00e9", "x" * 50, "{", ":"]


def random_stream(rng: random.Random) -> bytes:
    ends = ["\n", "\r", "\r\n"]
    text = "\ufeff" if rng.random() < 0.3 else ""
    for _ in range(rng.randrange(1, 30)):
        for _ in range(rng.randrange(0, 4)):
            kind = rng.randrange(8)
            value = rng.choice(VALUES)
            line = {
                0: f"data: {value}",
                1: f"data:{value}",
                2: "data",
                3: f"event: {value}",
                4: f"id: {rng.randrange(9)}",
                5: f": {value}",
                6: f"retry: {rng.randrange(100)}",
                7: f"Data: {value}",
            }[kind]
            text += line + rng.choice(ends)
        text += rng.choice(ends)  # the blank line
    if rng.random() < 0.3:
        text += "data: cut"  # unterminated
    return text.encode("utf-8")


@pytest.mark.parametrize("seed", range(40))
def test_generated_decoder_and_cli_reader_match_the_standard(seed: int) -> None:
    rng = random.Random(seed)
    stream = random_stream(rng)
    want = [d.encode("utf-8") for d in reference(stream)]
    for _ in range(5):
        cuts = sorted(rng.sample(range(1, len(stream)), min(len(stream) - 1, rng.randrange(1, 40))))
        decoder = sse.Decoder()
        got: list[bytes] = []
        start = 0
        for cut in [*cuts, len(stream)]:
            got += decoder.feed(stream[start:cut])
            if rng.random() < 0.3:
                got += decoder.feed(b"")  # a read that returned nothing changes nothing
            start = cut
        decoder.finish()
        assert got == want
        block = rng.randrange(1, 9)
        assert list(sse_documents(io.BytesIO(stream), chunk_size=block)) == want, block
