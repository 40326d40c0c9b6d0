#!/usr/bin/env python3
"""SSE decode throughput: the generated decoder (``agui.sse.Decoder``) next to ``httpx-sse``.

    .venv/bin/python bench/bench_sse.py [--runs 1000] [--rounds 5] [--json FILE]

The corpus is bench_codec's (``../shared/bench/gen_corpus.py``, cached under ``bench/.cache/``),
framed as a producer frames it: ``data: <event>\\n\\n`` per event (``agui.sse.encode``), LF only.
A second body frames the same events with CRLF line ends and an ``event:``/``id:`` pair and a
keep-alive comment before every tenth event, to show what the full grammar costs. Each body is
cut into chunks as a socket delivers them (``--chunk`` bytes, default 16 KiB; ``--small-chunk``
for a second, choppier pass) and the chunks are held in memory.

Rows (events/s and MB/s of SSE body, median of ``--rounds``, ``gc.collect()`` before each):

- ``ours Decoder.feed``: the generated decoder over the chunks, data as bytes per event.
- ``httpx-sse SSEDecoder``: what ``EventSource.iter_sse()`` does per response: httpx's
  incremental UTF-8 decoding and ``LineDecoder``, then ``SSEDecoder.decode(line)`` per line,
  a ``ServerSentEvent`` per event.
- ``... over httpx.Response``: both through a real ``httpx.Response`` streaming the same chunks
  (``iter_bytes`` for ours, ``EventSource(response).iter_sse()`` for httpx-sse): the path a
  client runs, minus the socket.
- ``generator/streams.py sse_documents``: the reader ``specbind serve`` uses for a recorded SSE
  stream (``specbind replay`` reads SSE with the generated ``<package>.sse.Decoder``).
- ``+ typed decode``: the same, each event's data then decoded into a typed event (ours:
  ``codec_json`` lenient; httpx-sse: the official SDK's pydantic ``TypeAdapter(Event)``): a
  client's floor per event before any lifecycle checking.

Before timing, every path must yield exactly the corpus lines as event data (exit 3 otherwise).
A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(ROOT / "generated"))
sys.path.insert(0, str(ROOT))

from bench_codec import _version, corpus_path, load_lines, machine_info  # noqa: E402
import _peers  # noqa: E402 - bench/ is the script's own folder, first on sys.path


def frame_lf(lines: list[bytes]) -> bytes:
    from agui import sse

    return b"".join(sse.encode(line) for line in lines)


def frame_crlf(lines: list[bytes]) -> bytes:
    parts = []
    for i, line in enumerate(lines):
        if i % 10 == 0:
            parts.append(b": keep-alive\r\n\r\nevent: message\r\nid: %d\r\n" % i)
        parts.append(b"data: " + line + b"\r\n\r\n")
    return b"".join(parts)


def chunked(body: bytes, size: int) -> list[bytes]:
    return [body[i : i + size] for i in range(0, len(body), size)]


def ours(chunks: list[bytes]) -> list[bytes]:
    from agui.sse import Decoder

    decoder = Decoder()
    out: list[bytes] = []
    for chunk in chunks:
        out += decoder.feed(chunk)
    decoder.finish()
    return out


def httpx_sse_lines(chunks: list[bytes]) -> list[str]:
    """httpx-sse's decoding as EventSource.iter_sse() runs it, without the Response object:
    incremental UTF-8 text, its SSELineDecoder, SSEDecoder.decode per line."""
    from httpx._decoders import TextDecoder
    from httpx_sse._decoders import SSEDecoder, SSELineDecoder

    text, lines, sse = TextDecoder("utf-8"), SSELineDecoder(), SSEDecoder()
    out: list[str] = []
    for chunk in chunks:
        for line in lines.decode(text.decode(chunk)):
            event = sse.decode(line.rstrip("\n"))
            if event is not None:
                out.append(event.data)
    tail = text.flush()
    for line in (lines.decode(tail) if tail else []) + lines.flush():
        event = sse.decode(line.rstrip("\n"))
        if event is not None:
            out.append(event.data)
    return out


def _response(chunks: list[bytes]) -> Any:
    """An httpx.Response whose body streams `chunks`, as a transport would hand them over."""
    import httpx

    class Chunks(httpx.SyncByteStream):
        def __iter__(self) -> Iterator[bytes]:
            yield from chunks

    return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=Chunks())


def ours_response(chunks: list[bytes]) -> list[bytes]:
    from agui.sse import Decoder

    response = _response(chunks)
    decoder = Decoder()
    out: list[bytes] = []
    for chunk in response.iter_bytes():
        out += decoder.feed(chunk)
    decoder.finish()
    return out


def httpx_sse_response(chunks: list[bytes]) -> list[str]:
    from httpx_sse import EventSource

    response = _response(chunks)
    return [event.data for event in EventSource(response).iter_sse()]


def replay_reader(chunks: list[bytes]) -> list[bytes]:
    from generator.streams import sse_documents

    return list(sse_documents(io.BytesIO(b"".join(chunks))))


def ours_typed(chunks: list[bytes]) -> list[Any]:
    from agui import codec_json
    from agui.sse import Decoder

    dec = codec_json.decoder("Event")
    decoder = Decoder()
    out: list[Any] = []
    for chunk in chunks:
        for data in decoder.feed(chunk):
            out.append(dec.decode_lenient(data).value)
    return out


def httpx_sse_typed(chunks: list[bytes]) -> list[Any]:
    from ag_ui.core import Event
    from pydantic import TypeAdapter

    ta = TypeAdapter(Event)
    # skipping empty data: httpx-sse dispatches one after a comment once an id was seen (below)
    return [ta.validate_json(data) for data in httpx_sse_lines(chunks) if data]


OPS: list[tuple[str, str, Callable[[list[bytes]], list[Any]], bool]] = [
    # key, label, function, output is bytes (else str)
    ("ours", "ours Decoder.feed", ours, True),
    ("httpx_sse", "httpx-sse SSELineDecoder + SSEDecoder", httpx_sse_lines, False),
    ("ours_response", "ours over httpx.Response.iter_bytes()", ours_response, True),
    ("httpx_sse_response", "httpx-sse EventSource(httpx.Response).iter_sse()", httpx_sse_response, False),
    ("replay_reader", "generator/streams.py sse_documents (replay --format sse)", replay_reader, True),
    ("ours_typed", "ours Decoder + codec_json lenient decode", ours_typed, True),
    ("httpx_sse_typed", "httpx-sse + pydantic TypeAdapter(Event).validate_json", httpx_sse_typed, False),
]


def check(lines: list[bytes], bodies: dict[str, list[bytes]]) -> tuple[list[str], list[str]]:
    """Problems (fatal) and notes: every path must yield exactly the corpus lines as data,
    except that httpx-sse's spurious empty events are counted and reported, not failed."""
    problems, notes = [], []
    for body_name, chunks in bodies.items():
        for key, label, fn, is_bytes in OPS:
            got = fn(chunks)
            if key.endswith("_typed"):
                if len(got) != len(lines):
                    problems.append(f"{label} on {body_name}: {len(got)} events, expected {len(lines)}")
                continue
            want = lines if is_bytes else [line.decode("utf-8") for line in lines]
            if not is_bytes:
                empty = sum(1 for d in got if d == "")
                if empty:
                    notes.append(
                        f"{label} on {body_name}: {empty:,} spurious events with empty data (after an "
                        "`id:` field, httpx-sse dispatches an event at every blank line, e.g. after a "
                        "keep-alive comment; the HTML standard dispatches nothing for an empty data buffer)"
                    )
                    got = [d for d in got if d != ""]
            if got != want:
                first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
                problems.append(f"{label} on {body_name}: differs from the corpus at event {first} ({len(got)} events)")
    return problems, notes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", help="an existing JSONL corpus (default: generate/reuse under bench/.cache/)")
    ap.add_argument("--runs", type=int, default=1000, help="runs to generate (default 1000, ~105k events)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=5, help="timed rounds per op; the median is reported")
    ap.add_argument("--chunk", type=int, default=16 << 10, help="bytes per chunk (a socket read)")
    ap.add_argument("--small-chunk", type=int, default=1 << 10, help="bytes per chunk of the choppy pass")
    ap.add_argument("--json", metavar="FILE", help="write the results as JSON")
    args = ap.parse_args(argv)
    _peers.require(__file__, {"httpx_sse": "httpx-sse", "ag_ui": "ag-ui-protocol", "pydantic": "pydantic"})

    path, how = corpus_path(args)
    lines, size, digest = load_lines(path)
    lines = [line for line in lines if line.strip()]
    print(f"corpus: {path} ({how}), {len(lines):,} events, {size:,} bytes, sha256 {digest}")
    lf, crlf = frame_lf(lines), frame_crlf(lines)
    bodies = {
        f"LF, {args.chunk} B chunks": chunked(lf, args.chunk),
        f"LF, {args.small_chunk} B chunks": chunked(lf, args.small_chunk),
        f"CRLF + fields + comments, {args.chunk} B chunks": chunked(crlf, args.chunk),
    }
    sizes = {name: sum(map(len, chunks)) for name, chunks in bodies.items()}
    problems, notes = check(lines, bodies)
    for p in problems:
        print("CHECK FAILED:", p)
    if problems:
        return 3
    print("checks: every path yields exactly the corpus lines as event data, on every body")
    for n in notes:
        print("  note:", n)
    info = machine_info() | {"httpx": _version("httpx"), "httpx_sse": _version("httpx-sse")}
    results: dict[str, Any] = {"machine": info, "corpus": {"path": str(path), "events": len(lines), "sha256": digest},
                               "notes": notes, "rows": []}
    for body_name, chunks in bodies.items():
        print(f"\n{body_name}: {sizes[body_name]:,} bytes of SSE")
        print(f"  {'operation':<58} {'events/s':>12} {'MB/s':>8}   rounds (events/s)")
        for key, label, fn, _ in OPS:
            if key in ("replay_reader",) and not body_name.startswith("LF, " + str(args.chunk)):
                continue
            fn(chunks)  # warm-up
            rates = []
            for _ in range(args.rounds):
                gc.collect()
                t0 = time.perf_counter()
                fn(chunks)
                rates.append(len(lines) / (time.perf_counter() - t0))
            eps = statistics.median(rates)
            mbps = eps * sizes[body_name] / len(lines) / 1e6
            print(f"  {label:<58} {eps:>12,.0f} {mbps:>8,.1f}   {' / '.join(f'{r:,.0f}' for r in rates)}")
            results["rows"].append({"body": body_name, "op": key, "label": label, "events_per_s": eps, "mb_per_s": mbps, "rounds": rates})
    print()
    by = {(r["body"], r["op"]): r["events_per_s"] for r in results["rows"]}
    for body_name in bodies:
        for a, b in (("ours", "httpx_sse"), ("ours_response", "httpx_sse_response"), ("ours_typed", "httpx_sse_typed")):
            if (body_name, a) in by and (body_name, b) in by:
                ratio = by[(body_name, a)] / by[(body_name, b)]
                print(f"{body_name}: {a} / {b} = {ratio:.2f}x")
                results.setdefault("ratios", {})[f"{body_name}: {a}/{b}"] = ratio
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
