#!/usr/bin/env python3
"""Strict decoding of recorded MCP traffic: the generated package (`generated/mcp`) against the
official Python SDK's own pydantic models (`mcp_types`, which `mcp.types` re-exports object for
object), one process, one corpus, ratios from the same run; and transcript replay throughput.

    .venv/bin/python bench/bench_mcp.py [--repeat 200] [--rounds 5] [--json FILE]

Corpus: the sessions recorded between the official SDKs through `specbind proxy`
(spec/mcp/samples/*.jsonl, both parties, every kind of message), repeated `--repeat` times, each
message held as its wire bytes with its sender and, for a response, the method of the request it
answers (correlated once, before timing, for both sides alike).

What each side does per message, as its SDK or package does on receipt:

- **SDK**: `jsonrpc_message_adapter.validate_json(bytes)` (the envelope), then the body typed by
  its method for protocol version 2025-11-25: `methods.parse_{client,server}_{request,
  notification}` (the per-version wire model, then the version-free model the SDK hands its
  user), a result `methods.parse_{server,client}_result` by the method of its request; an
  error's `ErrorData` is typed by the envelope already.
- **ours**: a request or notification decoded strictly as the definition of its method (the
  definition whose `method` is that const, read from the schema: envelope and params checked
  exactly in one decode); a result as `JSONRPCResultResponse`, and its `result` member as the
  result definition of its request's method; an error as `JSONRPCErrorResponse`.

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


def corpus(repeat: int) -> list[tuple[str, bytes, str, str]]:
    """(sender, bytes, kind, method) per message; for a response, the method it answers."""
    out: list[tuple[str, bytes, str, str]] = []
    for path in sorted(SAMPLES.glob("*.jsonl")):
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
    return out * repeat


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

    ours = load_ours()
    codec = importlib.import_module("specbind_mcp.codec_json")
    import msgspec
    from mcp_types import jsonrpc, methods

    messages = corpus(args.repeat)
    by_method = definitions_by_method(json.loads((ROOT / "spec" / "mcp" / "schema.json").read_text()))
    results, source = result_definitions(ours)
    entry = msgspec.json.Decoder(dict[str, msgspec.Raw])
    decoders = {name: codec.decoder(name) for name in {*by_method.values(), *results.values(), "JSONRPCResultResponse", "JSONRPCErrorResponse", "JSONRPCMessage"}}
    plan = []
    for sender, raw, kind, method in messages:
        if kind in ("request", "notification"):
            plan.append((raw, decoders[by_method[method]].decode, None))
        elif kind == "result":
            plan.append((raw, decoders["JSONRPCResultResponse"].decode, decoders[results[method]].decode))
        else:
            plan.append((raw, decoders["JSONRPCErrorResponse"].decode, None))

    def run_ours() -> None:
        for raw, decode, payload in plan:
            decode(raw)
            if payload is not None:
                payload(entry.decode(raw)["result"])

    adapter = jsonrpc.jsonrpc_message_adapter
    parse = {
        ("client", "request"): methods.parse_client_request, ("server", "request"): methods.parse_server_request,
        ("client", "notification"): methods.parse_client_notification, ("server", "notification"): methods.parse_server_notification,
        ("server", "result"): methods.parse_server_result, ("client", "result"): methods.parse_client_result,
    }
    sdk_plan = [(raw, parse.get((sender, kind)), kind, method) for sender, raw, kind, method in messages]

    def run_sdk() -> None:
        for raw, fn, kind, method in sdk_plan:
            message = adapter.validate_json(raw)
            if kind == "result":
                fn(method, VERSION, message.result)  # type: ignore[misc]
            elif fn is not None:
                fn(message.method, VERSION, message.params)

    replay_name, run_replay = replay_op(ours, messages, codec)

    # checks before timing: both sides accept every message
    refused = 0
    for (raw, decode, payload), (sender, _, kind, method) in zip(plan[: len(plan) // args.repeat], messages):
        try:
            decode(raw)
            if payload is not None:
                payload(entry.decode(raw)["result"])
        except Exception as exc:  # noqa: BLE001 - reported, then the exit code says so
            refused += 1
            print(f"ours refuses a {kind} of {method} from the {sender}: {exc}")
    for raw, fn, kind, method in sdk_plan[: len(sdk_plan) // args.repeat]:
        try:
            message = adapter.validate_json(raw)
            if kind == "result":
                fn(method, VERSION, message.result)  # type: ignore[misc]
            elif fn is not None:
                fn(message.method, VERSION, message.params)
        except Exception as exc:  # noqa: BLE001
            refused += 1
            print(f"the SDK refuses a {kind} of {method}: {exc}")

    ops: dict[str, Callable[[], None]] = {"ours: strict decode": run_ours, "SDK mcp_types: validate_json + parse": run_sdk, replay_name: run_replay}
    for op in ops.values():
        op()  # warm up
    times: dict[str, list[float]] = {name: [] for name in ops}
    for _ in range(args.rounds):
        for name, op in ops.items():
            gc.collect()
            start = time.perf_counter()
            op()
            times[name].append(time.perf_counter() - start)
    n = len(messages)
    rates = {name: n / statistics.median(t) for name, t in times.items()}
    from importlib.metadata import version

    print(f"corpus: {n:,} messages ({n // args.repeat} recorded x {args.repeat}), {sum(len(m[1]) for m in messages) / n:.0f} bytes on average")
    print(f"peers: mcp {version('mcp')} (mcp_types {version('mcp-types')}), pydantic {version('pydantic')}; python {platform.python_version()}")
    print(f"result definitions from {source}")
    for name, rate in rates.items():
        print(f"  {name:<48} {rate:>12,.0f} messages/s   (rounds: {', '.join(f'{n / t:,.0f}' for t in times[name])})")
    ratio = rates["ours: strict decode"] / rates["SDK mcp_types: validate_json + parse"]
    print(f"strict decode, ours / SDK: {ratio:.2f}x (goal >= 3x)")
    if args.json:
        args.json.write_text(json.dumps({"messages": n, "rates": rates, "rounds": times, "ratio": ratio, "results_from": source}, indent=1))
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
