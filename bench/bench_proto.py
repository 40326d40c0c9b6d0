#!/usr/bin/env python3
"""Protobuf throughput and size: the generated codec (``agui.codec_proto``, pure Python) next to
the official encoder ``@ag-ui/proto`` 1.0.0 (Node, the same events, the same run) and our JSON
codec; plus the alternative design, protoc's ``_pb2`` on the upb runtime, measured as a lower
bound (parse + a generic field walk, serialize of pre-built messages), which is how the codec's
design was chosen (docs/protobuf.md).

    .venv/bin/python bench/bench_proto.py [--runs 200] [--rounds 5] [--json FILE]

Every row runs once per round, round-robin, and the peer (one warm Node process) runs its
round right after ours: a drift of the machine's speed hits every row alike, and the ratios to
the peer are the median of the per-round ratios. Events/s: the median round.

Needs `node` and tests/node (``make test`` setup) for the peer rows, grpcio-tools (test extra)
for the _pb2 rows; a missing one is reported and its rows left out. A benchmark, not a test:
it exits 0 whatever the speed, 3 when the two encoders' bytes or decoded values disagree beyond
the divergences tests/test_proto_interop.py lists.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "generated"))


from agui import codec_json, codec_proto  # noqa: E402

GEN_CORPUS = REPO.parent / "shared" / "bench" / "gen_corpus.py"
PEER = REPO / "tests" / "proto_peer.cjs"


def corpus(runs: int, seed: int, path: Path) -> list[bytes]:
    subprocess.run([sys.executable, str(GEN_CORPUS), "--runs", str(runs), "--seed", str(seed), "--out", str(path)], check=True, capture_output=True)
    return [line for line in path.read_bytes().splitlines() if line.strip()]


def pb2_module(tmp: Path) -> Any:
    """protoc's Python module for the generated .proto (None without grpcio-tools)."""
    try:
        import grpc_tools
        from grpc_tools import protoc
    except ImportError:
        return None
    include = Path(grpc_tools.__file__).parent / "_proto"
    proto = REPO / "generated" / "agui" / "protocol.proto"
    tmp.mkdir(parents=True, exist_ok=True)
    code = protoc.main(["protoc", f"-I{proto.parent}", f"-I{include}", f"--python_out={tmp}", str(proto)])
    if code != 0:
        return None
    sys.path.insert(0, str(tmp))
    import protocol_pb2  # type: ignore[import-not-found]

    return protocol_pb2


def pb2_walk(message: Any) -> Any:
    """A generic conversion of a parsed message to plain values: the least any conversion of
    _pb2 messages to the JSON document must do (the real one adds the routes: base_event, splits,
    merged unions, inline outcomes, enum names)."""
    name = message.DESCRIPTOR.full_name
    if name == "google.protobuf.Value":
        kind = message.WhichOneof("kind")
        if kind == "struct_value":
            return {k: pb2_walk(v) for k, v in message.struct_value.fields.items()}
        if kind == "list_value":
            return [pb2_walk(v) for v in message.list_value.values]
        return None if kind == "null_value" else getattr(message, kind)
    if name == "google.protobuf.Struct":
        return {k: pb2_walk(v) for k, v in message.fields.items()}
    out = {}
    for fd, value in message.ListFields():
        if fd.message_type is None:
            out[fd.name] = list(value) if fd.is_repeated else value
        elif fd.is_repeated:
            out[fd.name] = [pb2_walk(v) for v in value]
        else:
            out[fd.name] = pb2_walk(value)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=200, help="corpus runs (200 runs: about 20,000 events)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", type=Path, default=None, help="also write the results as JSON")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        lines = corpus(args.runs, args.seed, tmp / "corpus.jsonl")
        n = len(lines)
        events = [codec_json.decode(line) for line in lines]
        frames = [codec_proto.encode(e) for e in events]
        assert [codec_proto.decode(f) for f in frames] == events, "our protobuf round trip altered an event"
        ops: dict[str, Callable[[], Any]] = {
            "ours protobuf encode (typed value -> bytes, validated)": lambda: [codec_proto.encode(e) for e in events],
            "ours protobuf encode (validate=False)": lambda: [codec_proto.encode(e, validate=False) for e in events],
            "ours protobuf decode (bytes -> typed value, strict)": lambda: [codec_proto.decode(f) for f in frames],
            "ours protobuf decode, wire only (bytes -> JSON document)": lambda: [codec_proto.decode_document(f) for f in frames],
            "ours JSON encode": lambda: [codec_json.encode(e) for e in events],
            "ours JSON decode (strict)": lambda: [codec_json.decode(line) for line in lines],
        }

        pb2 = pb2_module(tmp / "pb2")
        if pb2 is not None:
            parsed = [pb2.Event.FromString(f) for f in frames]
            ops["alternative: _pb2 (upb) parse only"] = lambda: [pb2.Event.FromString(f) for f in frames]
            ops["alternative: _pb2 (upb) parse + generic walk (lower bound of decode)"] = lambda: [pb2_walk(pb2.Event.FromString(f)) for f in frames]
            ops["alternative: _pb2 (upb) serialize pre-built messages (lower bound of encode)"] = lambda: [m.SerializeToString() for m in parsed]
        else:
            print("grpcio-tools is not installed: the _pb2 rows are left out", file=sys.stderr)

        # The peer: one warm Node process timing one round per request, interleaved with ours
        # (round-robin, every op once per round), so that a drift of the machine's speed hits
        # every row alike; the ratios are taken per round, then their median.
        peer: dict[str, Any] | None = None
        proc: subprocess.Popen[str] | None = None
        node = shutil.which("node")
        if node and (REPO / "tests" / "node" / "node_modules" / "@ag-ui" / "proto").exists():
            proc = subprocess.Popen([node, str(PEER), "bench-rounds", str(tmp / "corpus.jsonl")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            assert proc.stdin is not None and proc.stdout is not None
            peer = json.loads(proc.stdout.readline())
        else:
            print("node or tests/node/@ag-ui/proto is missing (run `make test` setup): the peer rows are left out", file=sys.stderr)
        seconds: dict[str, list[float]] = {name: [] for name in ops}
        for fn in ops.values():
            fn()  # warm-up
        peer_rounds: list[dict[str, float]] = []
        for _ in range(args.rounds):
            for name, fn in ops.items():
                gc.collect()
                t0 = time.perf_counter()
                fn()
                seconds[name].append(time.perf_counter() - t0)
            if proc is not None:
                assert proc.stdin is not None and proc.stdout is not None
                proc.stdin.write("round\n")
                proc.stdin.flush()
                peer_rounds.append(json.loads(proc.stdout.readline()))
        if proc is not None:
            assert proc.stdin is not None
            proc.stdin.close()
            proc.wait()
        rows: dict[str, dict[str, Any]] = {
            name: {"eps": round(n / statistics.median(secs)), "seconds": [round(s, 4) for s in secs]} for name, secs in seconds.items()
        }
        if peer is not None:
            for op in ("encode", "decode"):
                secs = [r[op] for r in peer_rounds]
                peer[f"{op}_eps"] = round(n / statistics.median(secs))
                peer[f"{op}_seconds"] = [round(s, 4) for s in secs]
                rows[f"@ag-ui/proto 1.0.0 {op} (Node)"] = {"eps": peer[f"{op}_eps"], "seconds": peer[f"{op}_seconds"]}

        sizes = {
            "json_bytes": sum(len(line) for line in lines),
            "proto_bytes": sum(len(f) for f in frames),
            "proto_framed_bytes": sum(len(f) + 4 for f in frames),
        }
        if peer is not None:
            sizes["peer_proto_bytes"] = peer["bytes"]

    print(f"corpus: {n:,} events ({args.runs} runs, seed {args.seed}); {platform.python_implementation()} {platform.python_version()}, node {peer['node'] if peer else '-'}")
    width = max(len(k) for k in rows)
    for name, r in rows.items():
        print(f"  {name:<{width}}  {r['eps']:>10,} events/s")
    print(f"  size: JSON {sizes['json_bytes']:,} B; protobuf {sizes['proto_bytes']:,} B ({sizes['proto_bytes'] / sizes['json_bytes']:.3f}x JSON)"
          + (f"; @ag-ui/proto {sizes['peer_proto_bytes']:,} B" if "peer_proto_bytes" in sizes else ""))
    ratios: dict[str, float] = {}
    if peer is not None:
        # per round (ours and theirs timed back to back), the median over the rounds
        for op, ours in (("decode", "ours protobuf decode (bytes -> typed value, strict)"), ("encode", "ours protobuf encode (typed value -> bytes, validated)")):
            ratios[f"{op} ours/@ag-ui/proto"] = statistics.median(r[op] / s for r, s in zip(peer_rounds, seconds[ours]))
    if pb2 is not None:
        ratios["decode ours/_pb2 lower bound"] = rows["ours protobuf decode (bytes -> typed value, strict)"]["eps"] / rows["alternative: _pb2 (upb) parse + generic walk (lower bound of decode)"]["eps"]
    for k, v in ratios.items():
        print(f"  {k}: {v:.2f}x")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"events": n, "rows": rows, "sizes": sizes, "ratios": ratios, "peer": peer}, indent=1) + "\n")
    status = 0
    if peer is not None and "peer_proto_bytes" in sizes and abs(sizes["peer_proto_bytes"] - sizes["proto_bytes"]) > 0:
        print("note: the two encoders' byte totals differ on this corpus (see tests/test_proto_interop.py)", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
