"""One measurement for bench_hostile.py and tests/test_hostile.py: run one entry point of the
generated Python package on one input file in this (fresh) process and print, as JSON, the
seconds it took and the peak memory above the process's baseline.

    python bench/hostile_probe.py ENTRY FILE [--repeat N]

The baseline is the resident set once the package is imported and the input read; the peak is
the kernel's high-water mark (VmHWM), reset just before the call (/proc/self/clear_refs), so
what the imports and reading cost is not counted. Linux only (the memory figure is null
elsewhere). ``ops`` is the count of Python function calls the entry point made (sys.setprofile,
only with --count). ``cpu``: the process's CPU time over the call (others' load counts less in
it than in ``seconds``, the wall time).
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(os.environ.get("HOSTILE_ROOT") or Path(__file__).resolve().parents[1])
sys.path.insert(0, str(ROOT / "generated"))


def _status(key: str) -> int | None:
    try:
        text = Path("/proc/self/status").read_text()
    except OSError:
        return None
    found = re.search(rf"^{key}:\s+(\d+) kB", text, re.M)
    return int(found.group(1)) * 1024 if found else None


def _reset_peak() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def _lines(data: bytes) -> list[bytes]:
    return [line for line in data.split(b"\n") if line.strip()]


def entry(name: str, data: bytes) -> Callable[[], Any]:
    """The call to time (everything it needs prepared outside it). ``harness_`` before a name:
    the Harness package's entry point of that name (json, json_lenient, proto, proto_lenient,
    framing, automaton, replay). ``json_loads`` and ``agui_sdk``: the peers (``json.loads``, the
    official AG-UI SDK's pydantic ``validate_json`` of one event), for the rows that compare."""
    if name == "json_loads":  # a peer: the standard library's reader of the same bytes
        return lambda: json.loads(data)
    if name == "agui_sdk":  # a peer: the official AG-UI SDK (pydantic) validating the same bytes
        from ag_ui.core import Event
        from pydantic import TypeAdapter, ValidationError

        adapter = TypeAdapter(Event)

        def run() -> Any:
            try:
                return adapter.validate_json(data)
            except ValidationError as exc:
                return str(exc)

        return run
    package = "harness_runtime" if name.startswith("harness_") else "agui"
    name = name.removeprefix("harness_")
    if name in ("json", "json_lenient"):
        codec_json = importlib.import_module(f"{package}.codec_json")
        DecodeError = importlib.import_module(package).DecodeError
        decode = codec_json.decode_lenient if name == "json_lenient" else codec_json.decode

        def run() -> Any:
            try:
                return decode(data)
            except DecodeError as exc:
                return str(exc)  # a caller prints it

        return run
    if name in ("proto", "proto_lenient"):
        codec_proto = importlib.import_module(f"{package}.codec_proto")
        DecodeError = importlib.import_module(package).DecodeError
        pdecode = codec_proto.decode_lenient if name == "proto_lenient" else codec_proto.decode

        def run() -> Any:
            try:
                return pdecode(data)
            except DecodeError as exc:
                return str(exc)

        return run
    if name == "framing":
        transport_proto = importlib.import_module(f"{package}.transport_proto")
        DecodeError = importlib.import_module(package).DecodeError

        def run() -> Any:
            decoder = transport_proto.FrameDecoder(lenient=True)
            try:
                out = decoder.feed(data)
                decoder.finish()
                return out
            except DecodeError as exc:
                return str(exc)

        return run
    if name == "sse":
        from agui import sse

        def run() -> Any:
            decoder = sse.Decoder(max_size=None)
            out = decoder.feed(data)
            decoder.finish()
            return out

        return run
    if name == "jsonpatch":
        from agui import DecodeError, codec_json
        from agui.jsonpatch import PatchError, apply_patch

        # as the consumer gets them: a state and a patch that decoded (ValueError: not such a pair)
        try:
            pair = json.loads(data)
            if not (isinstance(pair, list) and len(pair) == 2):
                raise ValueError("not a [document, patch] pair")
            ops = codec_json.decode(json.dumps(pair[1]), "JsonPatch")
            document = codec_json.decode(json.dumps(pair[0]), "State")
        except (DecodeError, RecursionError) as exc:
            raise ValueError(f"not a [document, patch] pair: {exc}") from None

        def run() -> Any:
            try:
                return apply_patch(document, ops)
            except PatchError as exc:
                return str(exc)

        return run
    if name == "automaton":
        Automaton = importlib.import_module(f"{package}.automaton").Automaton

        lines = _lines(data)

        def run() -> Any:
            automaton = Automaton()
            automaton.feed_documents(lines)
            automaton.finish()
            return [str(f) for f in automaton.findings]

        return run
    if name == "consumer":
        from agui.consumer import Consumer

        lines = _lines(data)

        def run() -> Any:
            consumer = Consumer(keep_delivered=False)
            bulk = getattr(consumer, "feed_documents", None)  # as replay --project feeds it
            if bulk is not None:
                bulk(lines)
            else:  # a package from before there was one (the before figures)
                for line in lines:
                    consumer.feed_document(line)
            consumer.finish()
            return json.dumps(consumer.report(), default=str)

        return run
    if name == "replay":
        replay = importlib.import_module(f"{package}.replay").replay

        return lambda: json.dumps(replay(data), ensure_ascii=False, default=str)
    raise SystemExit(f"unknown entry point {name!r}")


def measure(name: str, data: bytes, count: bool = False) -> dict[str, Any]:
    run = entry(name, data)
    gc.collect()
    if count:
        calls = [0]

        def profile(frame: Any, event: str, arg: Any) -> None:
            if event == "call":
                calls[0] += 1

        sys.setprofile(profile)
        run()
        sys.setprofile(None)
        return {"ops": calls[0]}
    baseline = _status("VmRSS")
    reset = _reset_peak()
    started = time.perf_counter()
    cpu = time.process_time()
    result = run()
    seconds = time.perf_counter() - started
    cpu = time.process_time() - cpu
    peak = _status("VmHWM") if reset else None
    del result
    return {"seconds": seconds, "cpu": cpu, "peak": None if peak is None or baseline is None else max(0, peak - baseline)}


def main() -> None:
    if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help"):
        sys.exit("usage: python bench/hostile_probe.py ENTRY FILE [--count] (one measurement, run by bench_hostile.py)")
    name, path = sys.argv[1], sys.argv[2]
    count = "--count" in sys.argv
    data = Path(path).read_bytes()
    print(json.dumps(measure(name, data, count)))


if __name__ == "__main__":
    main()
