"""Fuzz entry points: one per decoder, automaton and consumer of both generated packages.

Each takes bytes and returns normally when the code under test kept its contract ("a value, a
documented typed error, or a finding"); any other exception is a crash. They check a little more
than "no exception" where it costs nothing: what a decoder accepts, its encoder writes and the
decoder reads back; an SSE stream gives the same events however it is split; the consumer's
report serialises.

Used by fuzz/run.py (atheris, or a deterministic mutator), by `make test`'s short budget
(tests/test_fuzz_smoke.py) and by the hypothesis properties (tests/test_never_raises.py).
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
for entry in (REPO / "generated", REPO):
    if str(entry) not in sys.path:
        sys.path.insert(0, str(entry))

import agui  # noqa: E402
import harness_runtime  # noqa: E402
from agui import codec_json as agui_json  # noqa: E402
from agui import codec_proto as agui_proto  # noqa: E402
from agui import sse  # noqa: E402
from agui import transport_proto as agui_framing  # noqa: E402
from agui.automaton import Automaton as AguiAutomaton  # noqa: E402
from agui.consumer import Consumer  # noqa: E402
from agui.jsonpatch import PatchError, apply_patch  # noqa: E402
from harness_runtime import codec_json as hr_json  # noqa: E402
from harness_runtime import codec_proto as hr_proto  # noqa: E402
from harness_runtime import transport_proto as hr_framing  # noqa: E402
from harness_runtime.automaton import Automaton as HrAutomaton  # noqa: E402

from generator.streams import sse_documents  # noqa: E402

Target = Callable[[bytes], None]


def _json(codec: Any, errors: Any) -> Target:
    def target(data: bytes) -> None:
        for lenient in (False, True):
            try:
                value = codec.decode_lenient(data).value if lenient else codec.decode(data)
            except errors.DecodeError:
                continue
            if value is None:  # lenient: the whole document was an unknown member
                continue
            encoded = codec.encode(value)  # what was accepted encodes, and reads back the same
            again = codec.decode(encoded)
            assert again == value, (data, encoded)

    return target


def _proto(codec: Any, codec_json: Any, errors: Any) -> Target:
    def target(data: bytes) -> None:
        for decode in (codec.decode, codec.decode_lenient):
            try:
                result = decode(data)
            except errors.DecodeError:
                continue
            value = getattr(result, "value", result) if decode is codec.decode_lenient else result
            if value is None:
                continue
            try:
                wire = codec.encode(value)
            except errors.EncodeError:
                continue  # a number the JSON side holds exactly but a double cannot
            assert codec.decode(wire) == value
            codec_json.encode(value)

    return target


def _framing(framing: Any, errors: Any) -> Target:
    def target(data: bytes) -> None:
        cut = data[0] if data else 0
        for lenient in (False, True):
            reader = framing.FrameDecoder(lenient=lenient)
            try:
                reader.feed(data[1 : 1 + cut])
                reader.feed(data[1 + cut :])
                reader.finish()
            except errors.DecodeError:
                pass

    return target


def sse_target(data: bytes) -> None:
    """The generated decoder fed in three pieces (one possibly empty) and the CLI's reader in
    small blocks must dispatch the same events as one whole feed."""
    whole = sse.Decoder(max_size=1 << 16)
    try:
        expected = whole.feed(data)
    except sse.SSEError:
        return
    whole.finish()
    a = data[0] % (len(data) + 1) if data else 0
    b = data[-1] % (len(data) + 1) if data else 0
    a, b = sorted((a, b))
    split = sse.Decoder(max_size=1 << 16)
    got = split.feed(data[:a]) + split.feed(b"") + split.feed(data[a:b]) + split.feed(data[b:])
    split.finish()
    assert got == expected, (data, a, b)
    assert list(sse_documents(io.BytesIO(data), chunk_size=max(1, a))) == expected


def jsonpatch_target(data: bytes) -> None:
    """[document, patch]: a patch that decodes applies, or is a PatchError."""
    try:
        pair = json.loads(data)
    except (ValueError, RecursionError):
        return
    if not (isinstance(pair, list) and len(pair) == 2):
        return
    try:
        ops = agui_json.decode(json.dumps(pair[1]), "JsonPatch")
        document = agui_json.decode(json.dumps(pair[0]), "State")
    except (agui.DecodeError, ValueError, RecursionError):
        return
    try:
        apply_patch(document, ops)
    except PatchError:
        pass


def _automaton(make: Callable[[], Any], codec: Any, errors: Any) -> Target:
    def target(data: bytes) -> None:
        automaton = make()
        for line in data.split(b"\n"):
            automaton.feed_document(line)
        automaton.finish()
        for f in automaton.findings:
            str(f).encode("utf-8")
            json.dumps(f.as_dict())
        # the same lines as decoded events, through feed
        typed = make()
        for line in data.split(b"\n"):
            try:
                typed.feed(codec.decode(line))
            except errors.DecodeError:
                continue
        typed.finish()

    return target


def consumer_target(data: bytes) -> None:
    """The first line is the request (JSON, any shape), the rest the stream."""
    first, _, rest = data.partition(b"\n")
    try:
        request = json.loads(first) if first.strip() else None
    except (ValueError, RecursionError):
        request = None
    version = "0.0.39" if first[:1] == b" " else None
    try:
        consumer = Consumer(client_version=version, input=request)
    except ValueError:  # DecodeError is one: a request the schema refuses
        consumer = Consumer()
    for line in rest.split(b"\n"):
        consumer.feed_document(line)
    consumer.finish()
    text = json.dumps(consumer.report(), ensure_ascii=False)
    text.encode("utf-8")
    for warning in consumer.warnings:
        warning.encode("utf-8")


TARGETS: dict[str, Target] = {
    "agui_json": _json(agui_json, agui),
    "harness_json": _json(hr_json, harness_runtime),
    "agui_proto": _proto(agui_proto, agui_json, agui),
    "harness_proto": _proto(hr_proto, hr_json, harness_runtime),
    "agui_framing": _framing(agui_framing, agui),
    "harness_framing": _framing(hr_framing, harness_runtime),
    "sse": sse_target,
    "jsonpatch": jsonpatch_target,
    "agui_automaton": _automaton(AguiAutomaton, agui_json, agui),
    "harness_automaton": _automaton(HrAutomaton, hr_json, harness_runtime),
    "agui_consumer": consumer_target,
}
