"""Hostile inputs at any size: the shapes issue 22 measured, and the worst case we could build
for each entry point. Every builder takes ``n``, a size knob, and returns the bytes an entry
point reads; the size in bytes grows linearly with ``n`` (so doubling ``n`` doubles the input).

``SIZES`` maps every shape to ``(builder, n)``, ``n`` the size that makes it just under 1 MB;
``SHAPES`` holds the four issue 22 measured. Used by ``tests/test_hostile.py`` (reduced sizes, the
doubling checks), ``bench/bench_hostile.py`` (full sizes, both bindings) and ``fuzz/run.py
--large`` (random sizes).

Standard library plus the generated package (for the protobuf shape's encoder).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO / "generated") not in sys.path:
    sys.path.insert(0, str(REPO / "generated"))

Builder = Callable[[int], bytes]


def _lines(events: list[dict[str, object]]) -> bytes:
    return b"".join(json.dumps(e, separators=(",", ":")).encode() + b"\n" for e in events)


_RUN = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}


def state_deltas(n: int) -> bytes:
    """A STATE_SNAPSHOT of ``n`` keys, then ``0.4 n`` one-operation STATE_DELTAs (issue 22:
    n = 20,000, 873 KB): a consumer that copies the state per delta is quadratic."""
    snapshot = {f"k{i}": i for i in range(n)}
    events: list[dict[str, object]] = [_RUN, {"type": "STATE_SNAPSHOT", "snapshot": snapshot}]
    for i in range(n * 2 // 5):
        events.append({"type": "STATE_DELTA", "delta": [{"op": "replace", "path": f"/k{i % n}", "value": 0}]})
    return _lines(events)


def state_copies(n: int) -> bytes:
    """A STATE_SNAPSHOT of ``n`` keys, then ``0.4 n`` deltas that each copy one key and test
    one (what the copy bound and `test` cost per delta)."""
    snapshot = {f"k{i:06d}": i for i in range(n)}
    events: list[dict[str, object]] = [_RUN, {"type": "STATE_SNAPSHOT", "snapshot": snapshot}]
    for i in range(n * 2 // 5):
        ops = [{"op": "copy", "from": f"/k{i % n:06d}", "path": f"/c{i:06d}"}, {"op": "test", "path": f"/c{i:06d}", "value": i % n}]
        events.append({"type": "STATE_DELTA", "delta": ops})
    return _lines(events)


def state_list_deltas(n: int) -> bytes:
    """A STATE_SNAPSHOT holding a list of ``n`` zeros, then ``n / 50`` deltas each adding at
    its head (each shifts the whole list: an array insert's own cost) and removing its tail."""
    events: list[dict[str, object]] = [_RUN, {"type": "STATE_SNAPSHOT", "snapshot": {"l": [0] * n}}]
    for _ in range(n // 50):
        events.append({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/l/0", "value": 1}, {"op": "remove", "path": f"/l/{n}"}]})
    return _lines(events)


def ambiguous_chunks(n: int) -> bytes:
    """``n`` TEXT_MESSAGE_CHUNK lanes opened and left open, then ``11 n / 6`` chunks naming no
    message (issue 22: n = 6,000, 958 KB): a finding listing every open lane is quadratic."""
    events: list[dict[str, object]] = [_RUN]
    for i in range(n):
        events.append({"type": "TEXT_MESSAGE_CHUNK", "messageId": f"m{i}", "subagentRunId": f"s{i}", "delta": "x"})
    for _ in range(n * 11 // 6):
        events.append({"type": "TEXT_MESSAGE_CHUNK", "delta": "x"})
    return _lines(events)


def lanes_closed(n: int) -> bytes:
    """``n`` TEXT_MESSAGE_CHUNK lanes opened, then RUN_FINISHED closing them all at once."""
    events: list[dict[str, object]] = [_RUN]
    for i in range(n):
        events.append({"type": "TEXT_MESSAGE_CHUNK", "messageId": f"m{i}", "subagentRunId": f"s{i}", "delta": "x"})
    events.append({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"})
    return _lines(events)


def bad_numbers(n: int) -> bytes:
    """A MESSAGES_SNAPSHOT whose ``messages`` are ``n`` numbers (issue 22: n = 500,000, 1 MB):
    a decoder that builds and formats one issue per item costs far more than the bytes."""
    return b'{"type":"MESSAGES_SNAPSHOT","messages":[' + b",".join([b"1"] * n) + b"]}"


def bad_members(n: int) -> bytes:
    """A MESSAGES_SNAPSHOT of ``n`` messages each with an unknown member (one issue per item,
    each with a pointer and a name to format)."""
    item = b'{"id":"m","role":"user","content":"c","zz":0}'
    return b'{"type":"MESSAGES_SNAPSHOT","messages":[' + b",".join([item] * n) + b"]}"


def nested_struct(n: int) -> bytes:
    """A protobuf CUSTOM event whose value is a Struct nested to the depth limit around a
    string of ``n`` bytes (issue 22: n = 900,000, 904 KB): a decoder that slices each level
    copies the string once per level."""
    from agui import codec_proto, models
    from agui.limits import MAX_DEPTH

    value: object = "x" * n
    for _ in range(MAX_DEPTH - 1):
        value = {"a": value}
    return bytes(codec_proto.encode(models.CustomEvent(name="n", value=value)))


def nested_list(n: int) -> bytes:
    """The same through ListValues, the string in the innermost list."""
    from agui import codec_proto, models
    from agui.limits import MAX_DEPTH

    value: object = "x" * n
    for _ in range(MAX_DEPTH - 1):
        value = [value]
    return bytes(codec_proto.encode(models.CustomEvent(name="n", value=value)))


def many_findings(n: int) -> bytes:
    """``n`` lines that are each an event out of order (a content delta for a message never
    started): one finding per line, the most findings per byte a stream can draw."""
    return b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}\n' * n


def many_decode_failures(n: int) -> bytes:
    """``n`` lines that do not decode: one EVENT-DECODE finding per line."""
    return b"{}\n" * n


def refused_numbers(n: int) -> bytes:
    """A CUSTOM event whose value is ``n`` numbers beyond a double (each refused, located)."""
    return b'{"type":"CUSTOM","name":"n","value":[' + b",".join([b"1e400"] * n) + b"]}"


def big_exponents(n: int) -> bytes:
    """A CUSTOM event whose value is ``n`` numbers ``1e300`` (valid: any JSON). msgspec's own
    number reader takes 7-14 us for each of 10^289 or more (its fast algorithm stops at an
    exponent of 288), ~400 times any other number: 1 MB of them cost 1.5 s, ``json.loads`` 50 ms."""
    return b'{"type":"CUSTOM","name":"n","value":[' + b",".join([b"1e300"] * n) + b"]}"


def big_exponent_lines(n: int) -> bytes:
    """``n`` lines, each a CUSTOM event whose value is ten numbers ``1.7976931348623157e308``
    (the slowest for msgspec's reader) and whose rawEvent is one: a stream of valid events."""
    line = b'{"type":"CUSTOM","name":"n","value":[' + b",".join([b"1.7976931348623157e308"] * 10) + b'],"rawEvent":1e300}\n'
    return line * n


def refused_big_exponents(n: int) -> bytes:
    """A MESSAGES_SNAPSHOT whose ``messages`` are ``n`` numbers ``1e300`` (each the wrong type:
    the explaining path reads the document again, as plain JSON)."""
    return b'{"type":"MESSAGES_SNAPSHOT","messages":[' + b",".join([b"1e300"] * n) + b"]}"


def big_exponent_members(n: int) -> bytes:
    """A MESSAGES_SNAPSHOT of ``n`` user messages, each one text part whose metadata is
    ``1e300`` (a member typed any JSON but null: msgspec reads a number there itself, by type)."""
    item = b'{"id":"m","role":"user","content":[{"type":"text","text":"t","metadata":1e300}]}'
    return b'{"type":"MESSAGES_SNAPSHOT","messages":[' + b",".join([item] * n) + b"]}"


def deep_units(n: int) -> bytes:
    """A CUSTOM event whose value holds ``n`` arrays each nested 120 deep (within the limit): a
    depth check that peels one level per pass over the whole text costs 120 passes."""
    unit = b"[" * 120 + b"]" * 120
    return b'{"type":"CUSTOM","name":"n","value":[' + b",".join([unit] * n) + b"]}"


def _field(number: int, wire: int, payload: bytes) -> bytes:
    from agui.proto_wire import varint

    head = varint(number << 3 | wire)
    return head + (varint(len(payload)) + payload if wire == 2 else payload)


def unknown_fields(n: int) -> bytes:
    """A protobuf RUN_STARTED carrying ``n`` fields its schema does not know (lenient decoding
    skips and reports each)."""
    from agui import codec_proto, models

    known = bytes(codec_proto.encode(models.RunStartedEvent(thread_id="t", run_id="r")))
    return known + _field(2047, 0, b"\x01") * n


def unknown_field_frames(n: int) -> bytes:
    """``n`` frames, each a RUN_STARTED with one field its schema does not know."""
    from agui import codec_proto, models, transport_proto

    frame = transport_proto.frame(bytes(codec_proto.encode(models.RunStartedEvent(thread_id="t", run_id="r"))) + _field(2047, 0, b"\x01"))
    return frame * n


def unique_garbage(n: int) -> bytes:
    """``n`` lines, each a different number: none is an event, and no two are alike (so that no
    refused line is remembered from before)."""
    return b"".join(b"%d\n" % i for i in range(n))


def sse_lines(n: int) -> bytes:
    """One SSE event of ``n`` data lines (the decoder joins them)."""
    return b"data: x\n" * n + b"\n"


def sse_events(n: int) -> bytes:
    """``n`` SSE events, each an event out of order: a finding each."""
    return b'data: {"type":"TEXT_MESSAGE_END","messageId":"m"}\n\n' * n


def big_patch(n: int) -> bytes:
    """``[document, patch]``: a document of ``n`` members and a patch of ``n`` operations over
    them (jsonpatch.apply_patch: one call)."""
    document = {f"k{i}": i for i in range(n)}
    patch = [{"op": "replace", "path": f"/k{i}", "value": -i} for i in range(n)]
    return json.dumps([document, patch], separators=(",", ":")).encode()


def text_deltas(n: int) -> bytes:
    """One text message built from ``n`` content deltas of 60 characters (a consumer that copies
    the content per delta is quadratic in the message's length)."""
    events: list[dict[str, object]] = [_RUN, {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}]
    events += [{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x" * 60}] * n
    return _lines(events)


def tool_calls(n: int) -> bytes:
    """``n`` tool calls under one assistant message, each with a metadata member (a consumer that
    copies the message's call list, or the metadata, per event is quadratic)."""
    events: list[dict[str, object]] = [_RUN, {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}]
    for i in range(n):
        events.append({"type": "TOOL_CALL_START", "toolCallId": f"c{i}", "toolCallName": "f", "parentMessageId": "m", "metadata": {f"k{i}": 0}})
    return _lines(events)


def replaced_last(n: int) -> bytes:
    """``n`` messages, then ``n`` activity snapshots replacing the last one (a consumer that
    searches the conversation for the message it replaces is quadratic)."""
    events: list[dict[str, object]] = [_RUN]
    events += [{"type": "TEXT_MESSAGE_START", "messageId": f"m{i}"} for i in range(n)]
    events += [{"type": "ACTIVITY_SNAPSHOT", "messageId": "a", "activityType": "t", "content": {}}] * (n + 1)
    return _lines(events)


def long_name_reopened(n: int) -> bytes:
    """A tool call whose name is ``n`` characters, then reopened under other names 1,000 times: a
    warning quoting the long name each time would cost its length per event."""
    events: list[dict[str, object]] = [_RUN, {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f" * n}]
    events += [{"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "g"}] * 1000
    return _lines(events)


SIZES: dict[str, tuple[Builder, int]] = {
    "state_deltas": (state_deltas, 20_000),
    "state_copies": (state_copies, 15_000),
    "state_list_deltas": (state_list_deltas, 240_000),
    "ambiguous_chunks": (ambiguous_chunks, 6_000),
    "lanes_closed": (lanes_closed, 11_500),
    "bad_numbers": (bad_numbers, 500_000),
    "bad_members": (bad_members, 20_000),
    "refused_numbers": (refused_numbers, 160_000),
    "deep_units": (deep_units, 4_000),
    "big_exponents": (big_exponents, 166_000),
    "big_exponent_lines": (big_exponent_lines, 3_450),
    "refused_big_exponents": (refused_big_exponents, 166_000),
    "big_exponent_members": (big_exponent_members, 12_300),
    "nested_struct": (nested_struct, 900_000),
    "nested_list": (nested_list, 900_000),
    "unknown_fields": (unknown_fields, 300_000),
    "unknown_field_frames": (unknown_field_frames, 50_000),
    "many_findings": (many_findings, 16_000),
    "many_decode_failures": (many_decode_failures, 330_000),
    "unique_garbage": (unique_garbage, 158_000),
    "sse_lines": (sse_lines, 120_000),
    "sse_events": (sse_events, 19_000),
    "big_patch": (big_patch, 16_000),
    "text_deltas": (text_deltas, 7_500),
    "tool_calls": (tool_calls, 8_000),
    "replaced_last": (replaced_last, 5_500),
    "long_name_reopened": (long_name_reopened, 900_000),
}
"""Every shape and the size (``n``) that makes it just under 1 MB."""

SHAPES: dict[str, tuple[Builder, int]] = {
    "state_deltas": (state_deltas, 20_000),
    "ambiguous_chunks": (ambiguous_chunks, 6_000),
    "bad_numbers": (bad_numbers, 500_000),
    "nested_struct": (nested_struct, 900_000),
}
