#!/usr/bin/env python3
"""Strict decoding of recorded MCP traffic: the generated package (`generated/mcp`) against the
official Python SDK's own pydantic models (`mcp_types`, which `mcp.types` re-exports object for
object), one process, one corpus, ratios from the same run; and transcript replay throughput.

    .venv/bin/python bench/bench_mcp.py [--repeat 200] [--rounds 5] [--json FILE]

Corpus: the sessions recorded between the official SDKs through `specbind proxy`
(spec/mcp/samples/*.jsonl, both parties, every kind of message), repeated `--repeat` times, each
message held as its wire bytes with its sender and, for a response, the method of the request it
answers (correlated once, before timing, for both sides alike). Each sample file is a traffic
set, timed on its own and reported beside the whole corpus.

What each side does per message, as its SDK or package does on receipt:

- **SDK**: `jsonrpc_message_adapter.validate_json(bytes)` (the envelope), then the body typed by
  its method for protocol version 2025-11-25: `methods.parse_{client,server}_{request,
  notification}` (the per-version wire model, then the version-free model the SDK hands its
  user), a result `methods.parse_{server,client}_result` by the method of its request; an
  error's `ErrorData` is typed by the envelope already.
- **ours**: a request or notification decoded strictly as the definition of its method (the
  definition whose `method` is that const, read from the schema: envelope and params checked
  exactly in one decode); a result as `JSONRPCResultResponse`, and its `result` member's bytes as
  the result definition of its request's method (as the automaton reads them); an error as
  `JSONRPCErrorResponse`.

Which result definition answers which method: the package's rules tables (`results`) when
spec/mcp has a rules file, else the names of the SDK's own surface map for 2025-11-25 (they are
the schema's definition names): the corpus's methods only.

Replay throughput: the whole corpus through the package's automaton (`feed_message`, every rule)
when spec/mcp has rules, else through strict decoding of each message as `JSONRPCMessage`, which
is what `specbind proxy` judges with until then. A benchmark, not a test: it exits 0 whatever the
speed, 3 when either side refuses a corpus message.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
import _peers  # noqa: E402 - bench/ is the script's own folder, first on sys.path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "spec" / "mcp" / "samples"
VERSION = "2025-11-25"


def load_ours() -> Any:
    """generated/mcp under another name, as a vendored copy would be (every import in it is
    relative): the SDK is `mcp` too, and both live in this process."""
    spec = importlib.util.spec_from_file_location("specbind_mcp", ROOT / "generated" / "mcp" / "__init__.py",
                                                  submodule_search_locations=[str(ROOT / "generated" / "mcp")])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["specbind_mcp"] = module
    spec.loader.exec_module(module)
    return module


def corpus(repeat: int) -> dict[str, list[tuple[str, bytes, str, str]]]:
    """Per traffic set (sample file, by stem): (sender, bytes, kind, method) per message; for a
    response, the method it answers."""
    sets: dict[str, list[tuple[str, bytes, str, str]]] = {}
    for path in sorted(SAMPLES.glob("*.jsonl")):
        out = sets[path.stem] = []
        asked: dict[tuple[str, Any], str] = {}
        for line in path.read_bytes().splitlines():
            entry = json.loads(line)
            start = line.index(b'"message":') + len(b'"message":')
            raw, message, sender = line[start:-1], entry["message"], entry["from"]
            if "method" in message and "id" in message:
                asked[(sender, message["id"])] = message["method"]
                out.append((sender, raw, "request", message["method"]))
            elif "method" in message:
                out.append((sender, raw, "notification", message["method"]))
            else:
                other = "server" if sender == "client" else "client"
                method = asked.get((other, message.get("id")), "")
                out.append((sender, raw, "result" if "result" in message else "error", method))
    return {name: messages * repeat for name, messages in sets.items()}


def definitions_by_method(schema: dict[str, Any]) -> dict[str, str]:
    """method const -> the definition carrying it (requests and notifications), from the schema."""
    out = {}
    for name, node in schema["$defs"].items():
        const = node.get("properties", {}).get("method", {}).get("const")
        if isinstance(const, str):
            assert const not in out, f"two definitions carry method {const}"
            out[const] = name
    return out


def result_definitions(ours: Any) -> tuple[dict[str, str], str]:
    try:
        tables = importlib.import_module("specbind_mcp.automaton_table").TABLES
        results = tables.get("results") or {}
    except ModuleNotFoundError:
        results = {}
    if results:
        out = {}
        for method, alternatives in results.items():
            plain = [a for a in alternatives if not a.get("when")]
            out[method] = (plain or alternatives)[-1]["definition"]
        return out, "the package's rules tables"
    from mcp_types import methods

    out = {}
    for table in (methods.SERVER_RESULTS, methods.CLIENT_RESULTS):
        for (method, version), model in table.items():
            if version == VERSION:
                out[method] = "EmptyResult" if model.__name__ == "Result" else model.__name__
    return out, "the SDK's surface map for 2025-11-25 (names only: spec/mcp has no rules file yet)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    _peers.require(__file__, {"mcp_types": "mcp", "pydantic": "pydantic"})

    ours = load_ours()
    codec = importlib.import_module("specbind_mcp.codec_json")
    import msgspec
    from mcp_types import jsonrpc, methods

    sets = corpus(args.repeat)
    messages = [m for one in sets.values() for m in one]
    by_method = definitions_by_method(json.loads((ROOT / "spec" / "mcp" / "schema.json").read_text()))
    results, source = result_definitions(ours)
    entry = msgspec.json.Decoder(dict[str, msgspec.Raw])
    decoders = {name: codec.decoder(name) for name in {*by_method.values(), *results.values(), "JSONRPCResultResponse", "JSONRPCErrorResponse", "JSONRPCMessage"}}

    def our_plan(messages: list[tuple[str, bytes, str, str]]) -> list[tuple[bytes, Any, Any]]:
        plan = []
        for _, raw, kind, method in messages:
            if kind in ("request", "notification"):
                plan.append((raw, decoders[by_method[method]].decode, None))
            elif kind == "result":
                plan.append((raw, decoders["JSONRPCResultResponse"].decode, decoders[results[method]].decode))
            else:
                plan.append((raw, decoders["JSONRPCErrorResponse"].decode, None))
        return plan

    def run_ours(plan: list[tuple[bytes, Any, Any]]) -> None:
        for raw, decode, payload in plan:
            decode(raw)
            if payload is not None:  # the result's own bytes, as the automaton reads them
                payload(bytes(entry.decode(raw)["result"]))

    adapter = jsonrpc.jsonrpc_message_adapter
    parse = {
        ("client", "request"): methods.parse_client_request, ("server", "request"): methods.parse_server_request,
        ("client", "notification"): methods.parse_client_notification, ("server", "notification"): methods.parse_server_notification,
        ("server", "result"): methods.parse_server_result, ("client", "result"): methods.parse_client_result,
    }

    def sdk_plan(messages: list[tuple[str, bytes, str, str]]) -> list[tuple[bytes, Any, str, str]]:
        return [(raw, parse.get((sender, kind)), kind, method) for sender, raw, kind, method in messages]

    def run_sdk(plan: list[tuple[bytes, Any, str, str]]) -> None:
        for raw, fn, kind, method in plan:
            message = adapter.validate_json(raw)
            if kind == "result":
                fn(method, VERSION, message.result)
            elif fn is not None:
                fn(message.method, VERSION, message.params)

    replay_name, run_replay = replay_op(ours, messages, codec)

    # checks before timing: both sides accept every message
    refused = 0
    for sender, raw, kind, method in (m for one in sets.values() for m in one[: len(one) // args.repeat]):
        for side, run, plan in (("ours", run_ours, our_plan), ("the SDK", run_sdk, sdk_plan)):
            try:
                run(plan([(sender, raw, kind, method)]))  # type: ignore[operator]
            except Exception as exc:  # noqa: BLE001 - reported, then the exit code says so
                refused += 1
                print(f"{side} refuses a {kind} of {method} from the {sender}: {exc}")

    # one op per (traffic set, side): the whole corpus's time in a round is the sum of its sets'
    ops: dict[tuple[str, str], Callable[[], None]] = {}
    for name, one in sets.items():
        ours_one, sdk_one = our_plan(one), sdk_plan(one)
        ops[(name, "ours")] = lambda plan=ours_one: run_ours(plan)  # type: ignore[misc]
        ops[(name, "sdk")] = lambda plan=sdk_one: run_sdk(plan)  # type: ignore[misc]
    ops[("", "replay")] = run_replay
    for op in ops.values():
        op()  # warm up
    # process CPU time: on a machine shared with other sessions' test runs, wall-clock rounds
    # move by several times, CPU time by a few percent
    times: dict[tuple[str, str], list[float]] = {key: [] for key in ops}
    for _ in range(args.rounds):
        for key, op in ops.items():
            gc.collect()
            start = time.process_time()
            op()
            times[key].append(time.process_time() - start)
    for side in ("ours", "sdk"):
        times[("all", side)] = [sum(times[(name, side)][i] for name in sets) for i in range(args.rounds)]
    from importlib.metadata import version

    n = len(messages)
    print(f"corpus: {n:,} messages ({n // args.repeat} recorded x {args.repeat}), {sum(len(m[1]) for m in messages) / n:.0f} bytes on average")
    print(f"peers: mcp {version('mcp')} (mcp_types {version('mcp-types')}), pydantic {version('pydantic')}; python {platform.python_version()}")
    print(f"result definitions from {source}; process CPU time, median of {args.rounds} interleaved rounds")
    print(f"  {'traffic set':<38} {'msgs':>6} {'ours msg/s':>12} {'SDK msg/s':>12} {'ours / SDK':>10}")
    report: dict[str, Any] = {}
    for name in [*sets, "all"]:
        count = n if name == "all" else len(sets[name])
        ours_rate = count / statistics.median(times[(name, "ours")])
        sdk_rate = count / statistics.median(times[(name, "sdk")])
        report[name] = {"messages": count, "ours": ours_rate, "sdk": sdk_rate, "ratio": ours_rate / sdk_rate}
        print(f"  {name:<38} {count:>6,} {ours_rate:>12,.0f} {sdk_rate:>12,.0f} {ours_rate / sdk_rate:>9.2f}x")
    replay_rate = n / statistics.median(times[("", "replay")])
    print(f"  {replay_name}: {replay_rate:,.0f} messages/s ({replay_rate / report['all']['sdk']:.2f}x the SDK's parse)")
    ratio = report["all"]["ratio"]
    print(f"strict decode, ours / SDK: {ratio:.2f}x (goal >= 3x); rounds, ours / SDK: "
          + ", ".join(f"{s / o:.2f}x" for o, s in zip(times[("all", "ours")], times[("all", "sdk")])))
    if args.json:
        rounds = {f"{name}/{side}" if name else side: t for (name, side), t in times.items()}
        args.json.write_text(json.dumps({"messages": n, "sets": report, "replay": replay_rate, "rounds": rounds, "ratio": ratio, "results_from": source}, indent=1))
    return 3 if refused else 0


def replay_op(ours: Any, messages: list[tuple[str, bytes, str, str]], codec: Any) -> tuple[str, Callable[[], None]]:
    try:
        automaton = importlib.import_module("specbind_mcp.automaton")
    except ModuleNotFoundError:
        automaton = None
    if automaton is not None and hasattr(automaton.Automaton, "feed_message"):
        sessions = []
        session: list[tuple[str, bytes]] = []
        for sender, raw, kind, method in messages:
            if kind == "request" and method == "initialize" and session:
                sessions.append(session)
                session = []
            session.append((sender, raw))
        sessions.append(session)

        def run() -> None:
            for s in sessions:
                judge = automaton.Automaton()
                for sender, raw in s:
                    judge.feed_message(raw, sender=sender)
                judge.finish()

        return "ours: replay (automaton, every rule)", run
    decode = codec.decoder("JSONRPCMessage").decode

    def run_decode() -> None:
        for _, raw, _, _ in messages:
            decode(raw)

    return "ours: replay (strict decode as JSONRPCMessage)", run_decode


if __name__ == "__main__":
    sys.exit(main())
