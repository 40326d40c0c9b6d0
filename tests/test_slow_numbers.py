"""Numbers msgspec's own reader reads slowly (10^289 or more: ``1e300`` takes it 7-14 us, any
other number ~20 ns) are read by ``limits.finite_float`` wherever msgspec reads a number of any
JSON: the same double, the same refusal, on every path a document takes. These tests count the
hook's calls (which path a number takes); what it saves is bench/bench_hostile.py's to measure
(the ``big_exponent*`` shapes, beside ``json.loads``)."""

from __future__ import annotations

import importlib
import math
import random
import struct
import sys
from pathlib import Path
from typing import Any, Callable

import msgspec
import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "generated"))

PACKAGES = ["agui", "harness_runtime", "mcp", "mcp_2026_07_28"]

NUMBERS = [
    "1e300", "1E300", "1e+300", "-1e300", "1e289", "1e288", "9.99e288", "0.00001e294", "1e0000000300",
    "1.7976931348623157e308", "1.7976931348623158e308", "2.2250738585072014e-308", "4.9e-324", "1e-400",
    "1e23", "2e23", "9007199254740993.0", "1.00000000000000011102230246251565404236316680908203125",
    "-0.0", "0.0", "1.5", "1E5", "123456789012345678901234567890.5", "1" * 400 + ".0", "0." + "0" * 300 + "1",
]


def _bits(value: Any) -> Any:
    return struct.pack("<d", value) if isinstance(value, float) else value


def _read(read: Callable[[bytes], Any], document: bytes) -> Any:
    try:
        return [_bits(v) for v in read(document)]
    except msgspec.ValidationError as exc:
        return str(exc)


def _calls(run: Callable[[], Any], function: Callable[..., Any]) -> int:
    """How many times ``run`` called the Python ``function``."""
    code, calls = function.__code__, [0]

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code is code:
            calls[0] += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return calls[0]


@pytest.mark.parametrize("package", PACKAGES)
def test_the_hook_reads_every_number_as_msgspec_does(package: str) -> None:
    limits = importlib.import_module(f"{package}.limits")
    hooked = msgspec.json.Decoder(float_hook=limits.finite_float)
    rng = random.Random(7)
    texts = NUMBERS + [repr(rng.uniform(-1, 1) * 10 ** rng.randint(-320, 308)) for _ in range(2000)]
    texts += [f"{rng.randint(1, 9)}.{rng.randint(0, 10**15)}e{rng.randint(-330, 308)}" for _ in range(2000)]
    refused = 0
    for text in texts:
        document = f"[{text}]".encode()
        assert _read(hooked.decode, document) == _read(msgspec.json.decode, document), text
        refused += isinstance(_read(hooked.decode, document), str)
    assert 0 < refused < len(texts) // 10
    for text in ["1e400", "-1e400", "1.8e308", "[1, {\"a\": 2e308}]"]:
        document = (text if text.startswith("[") else f"[{text}]").encode()
        with pytest.raises(msgspec.ValidationError) as native:
            msgspec.json.decode(document)
        with pytest.raises(msgspec.ValidationError) as ours:
            hooked.decode(document)
        assert str(ours.value) == str(native.value)


def _agui(k: int) -> tuple[bytes, bytes, bytes]:
    numbers = b",".join([b"1e300", b"1.7976931348623157e308"] * (k // 2))
    valid = b'{"type":"CUSTOM","name":"n","value":[' + numbers + b'],"rawEvent":{"a":[' + numbers + b"]}}"
    refused = b'{"type":"MESSAGES_SNAPSHOT","messages":[' + numbers + b"]}"
    state = b'{"type":"STATE_SNAPSHOT","snapshot":{"a":[' + numbers + b"]}}"
    return valid, refused, state


def test_a_number_of_any_json_takes_the_hook_on_every_path() -> None:
    """Red before: msgspec read these numbers itself (no call), 1.5 s a megabyte."""
    from agui import DecodeError, codec_json, limits, validation
    from agui.automaton import Automaton

    hook, k = limits.finite_float, 40
    valid, refused, state = _agui(k)
    decoder = codec_json.Decoder("Event")
    expected = codec_json.decode(valid)
    assert expected.value[:2] == [1e300, 1.7976931348623157e308]
    for name, run in [
        ("decode", lambda: decoder.decode(valid)),
        ("decode_lenient", lambda: decoder.decode_lenient(valid)),
        ("fast", lambda: decoder.fast(valid)),
        ("accepts", lambda: decoder.accepts(valid)),
        ("a str", lambda: decoder.decode(valid.decode())),
        ("a state", lambda: decoder.decode(state)),
        ("a definition of its own", lambda: codec_json.decode(b'{"a":[' + b",".join([b"1e300"] * k) + b"]}", "State")),
    ]:
        assert _calls(run, hook) >= k, name
    assert decoder.decode(valid) == expected and decoder.fast(valid) == expected
    assert decoder.decode_lenient(valid).value == expected

    def explain() -> None:
        with pytest.raises(DecodeError):
            decoder.decode(refused)

    assert _calls(explain, hook) >= k  # the explaining path's plain read
    assert _calls(lambda: validation.parse_json(refused), hook) == k
    assert _calls(lambda: Automaton().feed_document(valid), hook) >= k
    assert _calls(lambda: Automaton().feed_document(refused), hook) >= k


@pytest.mark.parametrize("package", PACKAGES)
def test_every_reader_of_any_json_has_the_hook(package: str) -> None:
    """Every msgspec decoder the codec reads documents through (each definition's typed read,
    the plain reads, the explaining path's) reads a number of any JSON with a hook."""
    codec_json = importlib.import_module(f"{package}.codec_json")
    validation = importlib.import_module(f"{package}.validation")
    assert validation._READ.__self__.float_hook is not None
    for name, held in vars(codec_json).items():
        if isinstance(held, msgspec.json.Decoder) and held.type is Any:
            assert held.float_hook is not None, name
    for definition in codec_json._FAST:
        decoder = codec_json.Decoder(definition)
        assert decoder._fast.float_hook is not None, definition


def test_an_out_of_range_number_of_any_json_is_refused_as_before() -> None:
    from agui import DecodeError, codec_json

    decoder = codec_json.Decoder("Event")
    for document in [b'{"type":"CUSTOM","name":"n","value":[1.5,1e400]}', b'{"type":"CUSTOM","name":"n","value":-1e400}']:
        with pytest.raises(DecodeError) as refused:
            decoder.decode(document)
        assert [(i.pointer, i.keyword) for i in refused.value.errors] == [("/value/1" if b"[" in document else "/value", "json")]
        assert "out of the range of a double" in str(refused.value)
        assert decoder.fast(document) is codec_json.FULL
        with pytest.raises(DecodeError):
            decoder.decode_lenient(document)
    assert math.isinf(float("1e400"))


def _members(n: int) -> dict[str, Any]:
    return {"type": "RUN_STARTED", "threadId": "t", "runId": "r", **{f"x{i}": i for i in range(n)}}


def test_a_validation_keeps_nothing_for_the_undeclared_members_of_an_open_object() -> None:
    """A member an open object does not declare is valid and left as it is: the validator made
    and kept its pointer (``Validation.ignored``, read by nothing: 100,000 strings for a document
    of 100,000 such members) until the pass ended. Red before: the list was there and grew."""
    from agui import validation

    sizes = []
    for n in (10, 10_000):
        check = validation.Validation()
        assert check.run(_members(n), "BaseEvent") is not None and not check.errors
        sizes.append({name: len(held) if isinstance(held, list) else None for name, held in vars(check).items()})
    assert sizes[0] == sizes[1] == {"lenient": None, "errors": 0, "warnings": 0}


def test_the_typescript_validation_keeps_nothing_for_them_either() -> None:
    import json
    import shutil
    import subprocess

    if shutil.which("node") is None:
        pytest.skip("node is not installed: the TypeScript binding's validator cannot be run")
    sys.path.insert(0, str(REPO / "tests"))
    import typescript_agreement as agree

    validation = agree.built("agui") / "dist" / "src" / "validation.js"
    script = (
        f"const V = await import({json.dumps(validation.as_uri())});"
        "const doc = {type: 'RUN_STARTED', threadId: 't', runId: 'r'};"
        "for (let i = 0; i < 10000; i++) doc['x' + i] = i;"
        "const v = new V.Validation(); v.run(doc, 'BaseEvent');"
        "console.log(JSON.stringify(Object.entries(v).filter(([, x]) => Array.isArray(x)).map(([k, x]) => [k, x.length])));"
    )
    done = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [["errors", 0], ["warnings", 0]]


def test_which_read_a_document_takes() -> None:
    """A text up to ``_SCANNED`` bytes, or one with no ``.``, is read through the hook (free where
    no number of any JSON has a fraction or exponent); a longer one with a ``.`` is scanned, and
    read without the hook unless the scan finds an exponent of three digits (the hook costs
    ~0.15 us a number: 1,536 floats 52 us natively, 353 us through it)."""
    from agui import codec_json, limits

    decoder = codec_json.Decoder("Event")
    hook = limits.finite_float

    def doc(numbers: list[str]) -> bytes:
        return b'{"type":"CUSTOM","name":"n","value":[' + ",".join(numbers).encode() + b"]}"

    short = doc(["0.5", "1e300"])
    # longer than a text the hot path reads without a look (_CLEAR, as short as encode's _SHORT),
    # not than _SCANNED: through the hook, on the hot path's second branch
    middle = doc([f"0.{i:04d}" for i in range(50)])
    floats = doc([f"0.{i:04d}" for i in range(200)])
    hostile = doc([f"0.{i:04d}" for i in range(200)] + ["1e300"])
    undotted = doc([f"{i}e-5" for i in range(200)])
    assert len(short) <= codec_json._CLEAR == codec_json._SHORT < len(middle) <= codec_json._SCANNED < min(len(floats), len(hostile), len(undotted))
    cases = [(short, 2), (middle, 50), (floats, 0), (hostile, 201), (undotted, 200), (floats.decode(), 0), (bytearray(hostile), 201)]
    for data, calls in cases:
        for run in (decoder.decode, decoder.decode_lenient, decoder.fast):
            assert _calls(lambda: run(data), hook) == calls, (data[:40], run)
        value = decoder.decode(data)  # the encoder's check of its output reads it likewise
        if data is not undotted:  # written back as 1e-05, 0.00012...: dotted
            assert _calls(lambda: codec_json.encode(value), hook) == calls, data[:40]
    assert decoder.decode(hostile).value[-1] == 1e300 and decoder.decode(floats).value[-1] == 0.0199
    assert limits.big_exponent(b"1E+300") and limits.big_exponent("1e0300") and limits.big_exponent(memoryview(b"1e300"))
    assert not limits.big_exponent(b"[1e-300, 1e99, 123.5]")
