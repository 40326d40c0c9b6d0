#!/usr/bin/env python3
"""Transcript replay benchmark (issue 20): judging an MCP session, two parties and all, with the
generated Python package and with the generated TypeScript package, on one long transcript made
from the sessions the official SDKs recorded (spec/mcp/samples: one handshake, then the recorded
operations repeated with fresh request ids and progress tokens, so it stays one conformant
session). Messages per second, in interleaved rounds, with reference points measured in the same
run on the same messages:

  py_replay       mcp.replay.replay(path): read, decode, correlate, type every result, judge
  py_feed         Automaton().feed_document(line) per line (the in-process end to end path)
  py_live         Automaton().feed_message(bytes, sender) per message (what a relay calls)
  py_decode       codec_json.decode(message) alone: strict decoding, no rules (a floor)
  sdk_pydantic    the SDK's own models, mcp_types.JSONRPCMessage.model_validate_json (parse only,
                  no correlation or rules: what every SDK pays to read a message)
  ts_replay       the TypeScript package's replay of the same file (one Node process per round,
                  its start included; the in-process rate is printed by the Node side too)

    python bench/bench_transcripts.py [--copies N] [--rounds R]

A benchmark, not a test: it exits 3 when the two bindings' reports differ or the session is not
conformant (the numbers would be of the wrong thing)."""

from __future__ import annotations

import argparse
import copy
import gc
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable
import _peers  # noqa: E402 - bench/ is the script's own folder, first on sys.path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "generated"))

SAMPLES = ROOT / "spec" / "mcp" / "samples"


def long_session(copies: int) -> list[dict[str, Any]]:
    """One conformant session: a recorded handshake, then every recorded session's operations,
    `copies` times over, ids and progress tokens made fresh in each copy."""
    files = sorted(p for p in SAMPLES.glob("*.jsonl") if "as-written" not in p.stem)
    sessions = [[json.loads(line) for line in p.read_text().splitlines() if line.strip()] for p in files]
    out = sessions[0][:3]
    serial = 0
    for _ in range(copies):
        for session in sessions:
            serial += 1
            for entry in session[3:]:
                out.append(_fresh(entry, serial))
    return out


def _fresh(entry: dict[str, Any], serial: int) -> dict[str, Any]:
    entry = copy.deepcopy(entry)
    message = entry["message"]

    def renamed(value: Any) -> Any:
        return f"{serial}-{value}" if isinstance(value, (str, int)) and not isinstance(value, bool) else value

    if "id" in message:
        message["id"] = renamed(message["id"])
    params = message.get("params")
    if isinstance(params, dict):
        for key in ("requestId", "progressToken"):
            if key in params:
                params[key] = renamed(params[key])
        meta = params.get("_meta")
        if isinstance(meta, dict) and "progressToken" in meta:
            meta["progressToken"] = renamed(meta["progressToken"])
    return entry


def rate(fn: Callable[[], int]) -> float:
    gc.collect()
    t0 = time.perf_counter()
    n = fn()
    return n / (time.perf_counter() - t0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=60, help="recorded operations repeated this many times per session file (default 60: about 15k messages)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    _peers.require(__file__, {"mcp_types": "mcp", "pydantic": "pydantic"})

    from mcp import codec_json
    from mcp.automaton import Automaton
    from mcp.replay import replay
    import mcp_types

    session = long_session(args.copies)
    folder = Path(tempfile.mkdtemp(prefix="bench-transcripts-"))
    path = folder / "session.jsonl"
    lines = [json.dumps(e, ensure_ascii=False).encode() for e in session]
    path.write_bytes(b"\n".join(lines) + b"\n")
    messages = [(json.dumps(e["message"], ensure_ascii=False).encode(), e["from"]) for e in session]
    adapter = mcp_types.jsonrpc_message_adapter if hasattr(mcp_types, "jsonrpc_message_adapter") else None
    from pydantic import TypeAdapter

    sdk = adapter or TypeAdapter(mcp_types.JSONRPCMessage)

    report = replay(path)
    if report["outcome"] != "completed":
        print(f"the long session is not conformant: {report['violations'][:3]}", file=sys.stderr)
        return 3

    def py_replay() -> int:
        return int(replay(path)["events"])

    def py_feed() -> int:
        a = Automaton()
        for line in lines:
            a.feed_document(line)
        a.finish()
        return len(lines)

    def py_live() -> int:
        a = Automaton()
        for data, sender in messages:
            a.feed_message(data, sender)
        a.finish()
        return len(messages)

    def py_decode() -> int:
        decode = codec_json.decoder("JSONRPCMessage").decode
        for data, _ in messages:
            decode(data)
        return len(messages)

    def sdk_pydantic() -> int:
        for data, _ in messages:
            sdk.validate_json(data)
        return len(messages)

    from generator.targets.typescript import node as ts_node

    built = ts_node.build(ROOT / "generated" / "mcp-ts")
    bench_js = folder / "bench.mjs"
    bench_js.write_text(
        "import { readFileSync } from 'node:fs';\n"
        f"const {{ replay }} = await import({json.dumps(str(built / 'dist' / 'src' / 'replay.js'))});\n"
        "const data = readFileSync(process.argv[2]);\n"
        "const t0 = performance.now();\n"
        "const report = replay(data);\n"
        "const s = (performance.now() - t0) / 1000;\n"
        "console.log(JSON.stringify({events: report.events, seconds: s, report}));\n"
    )
    ts_inproc: list[float] = []

    def ts_replay() -> int:
        t0 = time.perf_counter()
        done = subprocess.run([ts_node.node(), str(bench_js), str(path)], capture_output=True, text=True, check=True)
        out = json.loads(done.stdout)
        ts_inproc.append(out["events"] / out["seconds"])
        ts_replay.report = out["report"]  # type: ignore[attr-defined]
        return int(out["events"]) if time.perf_counter() - t0 > 0 else 0

    ops: dict[str, Callable[[], int]] = {"py_replay": py_replay, "py_feed": py_feed, "py_live": py_live, "py_decode": py_decode, "sdk_pydantic": sdk_pydantic, "ts_replay": ts_replay}
    rates: dict[str, list[float]] = {name: [] for name in ops}
    for _ in range(args.rounds):  # interleaved: load on the machine hits every op alike
        for name, fn in ops.items():
            rates[name].append(rate(fn))
    theirs = ts_replay.report  # type: ignore[attr-defined]
    keep = ("outcome", "events", "types", "runs", "violations", "warnings")
    if {k: theirs[k] for k in keep} != {k: report[k] for k in keep}:
        print("the two bindings' reports differ", file=sys.stderr)
        return 3
    size = path.stat().st_size
    shutil.rmtree(folder, ignore_errors=True)
    median = {name: statistics.median(r) for name, r in rates.items()}
    median["ts_replay_in_process"] = statistics.median(ts_inproc)
    print(f"one MCP session of {len(session):,} messages ({size / 1e6:.1f} MB), {args.rounds} interleaved rounds, median messages/s:")
    for name, value in median.items():
        print(f"  {name:22} {value:>12,.0f}   {value / median['sdk_pydantic']:.2f}x sdk_pydantic")
    print(json.dumps({"messages": len(session), "rates": rates, "median": median}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
