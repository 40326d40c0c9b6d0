"""Seed inputs for each fuzz entry point, made from the specs' own material (schema fixtures,
AG-UI conformance streams, both rule-example files), and the structured mutations every engine
applies to them: the inputs that broke the packages before (huge and tiny numbers, 1e400, -0,
deep nesting, lone surrogates, NUL, duplicate keys, invalid UTF-8, bit flips and truncations of
valid protobuf, SSE split anywhere).

    python fuzz/corpus.py OUT_DIR     # writes OUT_DIR/<target>/<n>: the seed corpora for atheris
"""

from __future__ import annotations

import json
import random
import sys
from functools import cache
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SPEC = REPO / "spec"


def _documents(definition_root: Path) -> list[Any]:
    out = []
    for path in sorted(definition_root.glob("*/*/*.json")):
        if not path.name.endswith(".expect.json"):
            out.append(json.loads(path.read_text(encoding="utf-8")))
    return out


@cache
def spec_streams() -> dict[str, list[list[Any]]]:
    """spec name -> event streams (conformance streams and rule examples)."""
    agui: list[list[Any]] = []
    for path in sorted((SPEC / "agui" / "conformance" / "streams").glob("*.json")):
        agui.append(json.loads(path.read_text(encoding="utf-8"))["stream"])
    out = {"agui": agui, "harness-runtime": []}
    for spec in out:
        examples = json.loads((SPEC / spec / "rule-examples.json").read_text(encoding="utf-8"))
        for rule in sorted(examples):
            for kind in ("violates", "satisfies"):
                out[spec] += [e["stream"] for e in examples[rule].get(kind, []) if "stream" in e]
    return out


def _lines(events: list[Any]) -> bytes:
    return b"\n".join(json.dumps(e, ensure_ascii=False).encode() for e in events)


@cache
def seeds() -> dict[str, list[bytes]]:
    """target name -> seed inputs (deterministic)."""
    sys.path.insert(0, str(REPO / "generated"))
    from agui import codec_json as agui_json
    from agui import codec_proto as agui_proto
    from agui import sse
    from agui import transport_proto as agui_framing
    from harness_runtime import codec_json as hr_json
    from harness_runtime import codec_proto as hr_proto
    from harness_runtime import transport_proto as hr_framing

    streams = spec_streams()
    fixtures = _documents(SPEC / "agui" / "fixtures")
    agui_events = [e for s in streams["agui"] for e in s]
    hr_events = [e for s in streams["harness-runtime"] for e in s]
    out: dict[str, list[bytes]] = {}
    out["agui_json"] = [json.dumps(d).encode() for d in fixtures + agui_events[:200]]
    out["harness_json"] = [json.dumps(d).encode() for d in hr_events[:200]]

    def wire(codec: Any, codec_json: Any, events: list[Any]) -> list[bytes]:
        found = []
        for e in events:
            try:
                found.append(codec.encode(codec_json.decode(json.dumps(e))))
            except ValueError:
                continue
        return found

    out["agui_proto"] = wire(agui_proto, agui_json, agui_events[:300])
    out["harness_proto"] = wire(hr_proto, hr_json, hr_events[:300])
    out["agui_framing"] = [bytes([7]) + b"".join(agui_framing.frame(p) for p in out["agui_proto"][i : i + 5]) for i in range(0, 60, 5)]
    out["harness_framing"] = [bytes([7]) + b"".join(hr_framing.frame(p) for p in out["harness_proto"][i : i + 5]) for i in range(0, 60, 5)]
    out["sse"] = [b"".join(sse.encode(json.dumps(e).encode()) for e in s[:6]) for s in streams["agui"][:20]]
    out["sse"] += [b"\xef\xbb\xbfdata: a\r\ndata:b\r\r: c\nid: 1\n\ndata\n\n", b"data:\r", b"data: x\r\n\r\n"]
    patches = []
    for s in streams["agui"]:
        state: Any = {}
        for e in s:
            if e.get("type") == "STATE_SNAPSHOT":
                state = e.get("snapshot")
            elif e.get("type") == "STATE_DELTA":
                patches.append(json.dumps([state, e.get("delta")]).encode())
    out["jsonpatch"] = patches + [b'[{"a":[1]},[{"op":"copy","from":"","path":"/b"},{"op":"move","from":"/a","path":"/b/a/0"}]]']
    out["agui_automaton"] = [_lines(s) for s in streams["agui"]]
    out["harness_automaton"] = [_lines(s) for s in streams["harness-runtime"]]
    request = json.dumps({"threadId": "t", "runId": "r", "messages": [], "state": {"a": [1]}}).encode()
    out["agui_consumer"] = [request + b"\n" + _lines(s) for s in streams["agui"]]
    return out


# -- structured mutations ------------------------------------------------------------------------

NUMBERS = [b"1" * 5000, b"-" + b"9" * 4301, b"1e400", b"-1e400", b"1e-400", b"-0", b"-0.0", b"1.0",
           b"9007199254740993", b"1" + b"0" * 400, b"0." + b"0" * 400 + b"1", b"NaN", b"Infinity"]
STRINGS = [b'"\\ud800"', b'"\\udc00x"', b'"\\ud83d\\ude00"', b'"\\u0000"', b'"\x00"', b'"\xed\xa0\x80"',
           b'"\xff\xfe"', b'"\\\\ud800"', b'"\xc3\xa9\xf0\x9f\x98\x80"', b'"\xc0\xaf"']
BYTES = [b"\xef\xbb\xbf", b"\xff\xfe", b"\x00", b"\r", b"\n", b"\r\n", b"data:", b":", b"\x80"]


def _nest(depth: int, leaf: bytes = b"1") -> bytes:
    return b"[" * depth + leaf + b"]" * depth


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One structured mutation of an input (a few of them chained)."""
    for _ in range(rng.randrange(1, 4)):
        data = _MUTATIONS[rng.randrange(len(_MUTATIONS))](data, rng)
    return data


def _at(data: bytes, rng: random.Random) -> int:
    return rng.randrange(len(data) + 1)


def _replace_value(data: bytes, rng: random.Random, value: bytes) -> bytes:
    """Replace a JSON scalar after a colon or comma by ``value`` (on text that looks like JSON)."""
    starts = [i + 1 for i, b in enumerate(data) if b in b":,["]
    if not starts:
        return data[: _at(data, rng)] + value
    i = rng.choice(starts)
    j = i
    while j < len(data) and data[j] not in b",}]":
        j += 1
    return data[:i] + value + data[j:]


def _bitflip(d: bytes, r: random.Random) -> bytes:
    if not d:
        return bytes([r.randrange(256)])
    i = r.randrange(len(d))
    return d[:i] + bytes([d[i] ^ (1 << r.randrange(8))]) + d[i + 1 :]


def _truncate(d: bytes, r: random.Random) -> bytes:
    return d[: _at(d, r)]


def _byte(d: bytes, r: random.Random) -> bytes:
    i = _at(d, r)
    return d[:i] + r.choice(BYTES + [bytes([r.randrange(256)])]) + d[i:]


def _duplicate(d: bytes, r: random.Random) -> bytes:
    i, j = sorted((_at(d, r), _at(d, r)))
    return d[:j] + d[i:j] + d[j:]


def _dupkey(d: bytes, r: random.Random) -> bytes:
    i = d.find(b"{")
    k = d.find(b",", i)
    return d if i < 0 or k < 0 else d[: k + 1] + d[i + 1 : k + 1] + d[k + 1 :]


_MUTATIONS = [
    _bitflip,
    _truncate,
    _byte,
    _duplicate,
    _dupkey,
    lambda d, r: _replace_value(d, r, r.choice(NUMBERS)),
    lambda d, r: _replace_value(d, r, r.choice(STRINGS)),
    lambda d, r: _replace_value(d, r, _nest(r.choice([100, 127, 128, 129, 1000, 20000]))),
    lambda d, r: _replace_value(d, r, _nest(r.randrange(1, 140), b'{"a":' * 3 + b"1" + b"}" * 3)),
    lambda d, r: d + b"\n" + d,
    lambda d, r: bytes(r.randrange(256) for _ in range(r.randrange(64))),
]


def write(root: Path) -> None:
    for name, inputs in seeds().items():
        folder = root / name
        folder.mkdir(parents=True, exist_ok=True)
        for i, data in enumerate(inputs):
            (folder / f"seed-{i:04d}").write_bytes(data)
        print(f"{folder}: {len(inputs)} seeds")


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "fuzz" / "corpus")
