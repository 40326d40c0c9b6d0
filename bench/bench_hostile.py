#!/usr/bin/env python3
"""Hostile input at full size (issue 22): every shape of ``fuzz/hostile.py`` through every entry
point that reads it, in both bindings, each in a fresh process; time (wall, and the process's
CPU time beside it) and peak memory above the process baseline against the goal (<= 1 s and
<= 64 MB at under 1 MB of input; the verdict reads the wall time).

    .venv/bin/python bench/bench_hostile.py [--repeat 3] [--json FILE] [--compare BEFORE.json]
    .venv/bin/python bench/bench_hostile.py --before OTHER_CHECKOUT [--timeout 120]

``--before`` measures another checkout's generated packages too (its ``generated/``, its
TypeScript package built into the cache), with this checkout's shapes and probes, each row's
runs interleaved with this checkout's (the same load on both): the before figures beside the
after ones. ``--root`` measures another checkout alone; ``--compare`` prints a previous run's
``--json`` figures beside this one's.

Rows:
- in-process (``bench/hostile_probe.py``, ``bench/hostile_probe.mjs``): the entry point alone,
  after its package is imported and the input read; memory is the kernel's high-water mark
  above the resident set just before the call (Linux; reset through /proc/self/clear_refs);
- command line (``cli ...``): the whole ``specbind`` command, wall time and peak RSS of the
  process tree, minus the same command on a one-line input (the baseline).

Each row runs ``--repeat`` times; the median is reported. A row past ``--timeout`` seconds is
reported as such (the before figures of the quadratic paths). Exit 0 whatever the figures (a
benchmark, not a test); 3 when a row crashed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT / "fuzz"))
sys.path.insert(0, str(ROOT))

import hostile  # noqa: E402

BUDGET_SECONDS = 1.0
BUDGET_BYTES = 64 << 20

# shape -> (builder, full n, rows): a row is (binding, entry point) for the probes, or
# ("cli", "python"|"typescript", command words) for the command line
SHAPES: dict[str, tuple[Any, int, list[tuple[str, ...]]]] = {
    # the four shapes issue 22 measured
    "state_deltas": (hostile.state_deltas, 20_000, [
        ("python", "consumer"), ("python", "automaton"), ("typescript", "replay"),
        ("cli", "python", "replay", "--json", "--project"),
    ]),
    "ambiguous_chunks": (hostile.ambiguous_chunks, 6_000, [
        ("python", "automaton"), ("python", "replay"), ("python", "consumer"), ("typescript", "replay"),
        ("cli", "python", "replay", "--json"), ("cli", "typescript", "replay", "--json"),
    ]),
    "lanes_closed": (hostile.lanes_closed, 11_500, [("python", "replay"), ("typescript", "replay"), ("python", "consumer")]),
    "bad_numbers": (hostile.bad_numbers, 500_000, [
        ("python", "json"), ("python", "json_lenient"), ("typescript", "json"), ("typescript", "json_lenient"),
        ("cli", "python", "validate", "--json"), ("cli", "typescript", "validate", "--json"),
    ]),
    "nested_struct": (hostile.nested_struct, 900_000, [("python", "proto"), ("python", "proto_lenient")]),
    # the worst cases we built for each entry point
    "state_copies": (hostile.state_copies, 15_000, [("python", "consumer")]),
    "state_list_deltas": (hostile.state_list_deltas, 240_000, [("python", "consumer")]),
    "bad_members": (hostile.bad_members, 20_000, [
        ("python", "json"), ("python", "json_lenient"), ("typescript", "json"), ("typescript", "json_lenient"),
        ("python", "automaton"), ("typescript", "replay"),
    ]),
    "refused_numbers": (hostile.refused_numbers, 160_000, [("python", "json"), ("typescript", "json")]),
    "deep_units": (hostile.deep_units, 4_000, [("python", "json"), ("typescript", "json"), ("python", "automaton"), ("typescript", "replay")]),
    "many_findings": (hostile.many_findings, 16_000, [
        ("python", "automaton"), ("python", "replay"), ("typescript", "replay"),
        ("cli", "python", "replay", "--json"), ("cli", "typescript", "replay", "--json"),
    ]),
    "many_decode_failures": (hostile.many_decode_failures, 330_000, [
        ("python", "automaton"), ("python", "replay"), ("typescript", "replay"),
        ("cli", "python", "replay", "--json"), ("cli", "typescript", "replay", "--json"),
    ]),
    "unique_garbage": (hostile.unique_garbage, 158_000, [
        ("python", "automaton"), ("python", "replay"), ("typescript", "replay"), ("python", "consumer"),
        ("cli", "python", "replay", "--json"), ("cli", "typescript", "replay", "--json"),
    ]),
    "nested_list": (hostile.nested_list, 900_000, [("python", "proto"), ("python", "proto_lenient")]),
    "unknown_fields": (hostile.unknown_fields, 300_000, [("python", "proto_lenient")]),
    "unknown_field_frames": (hostile.unknown_field_frames, 50_000, [("python", "framing")]),
    "sse_lines": (hostile.sse_lines, 120_000, [("python", "sse"), ("typescript", "sse"), ("python", "replay"), ("typescript", "replay")]),
    "sse_events": (hostile.sse_events, 19_000, [("python", "sse"), ("typescript", "sse"), ("python", "replay"), ("typescript", "replay")]),
    "big_patch": (hostile.big_patch, 16_000, [("python", "jsonpatch")]),
    "text_deltas": (hostile.text_deltas, 7_500, [("python", "consumer")]),
    "tool_calls": (hostile.tool_calls, 8_000, [("python", "consumer")]),
    "replaced_last": (hostile.replaced_last, 5_500, [("python", "consumer")]),
    "long_name_reopened": (hostile.long_name_reopened, 900_000, [("python", "consumer"), ("python", "automaton"), ("typescript", "replay")]),
    # numbers msgspec's own reader reads slowly (10^289 or more), beside the peers on the same bytes
    "big_exponents": (hostile.big_exponents, 166_000, [
        ("python", "json"), ("python", "json_lenient"), ("typescript", "json"), ("typescript", "json_lenient"),
        ("python", "automaton"), ("typescript", "replay"), ("python", "json_loads"), ("python", "agui_sdk"),
    ]),
    "big_exponent_lines": (hostile.big_exponent_lines, 3_450, [
        ("python", "automaton"), ("python", "replay"), ("typescript", "replay"), ("python", "consumer"),
    ]),
    "refused_big_exponents": (hostile.refused_big_exponents, 166_000, [
        ("python", "json"), ("python", "json_lenient"), ("typescript", "json"), ("python", "json_loads"),
    ]),
    "big_exponent_members": (hostile.big_exponent_members, 12_300, [
        ("python", "json"), ("python", "json_lenient"), ("typescript", "json"), ("python", "json_loads"), ("python", "agui_sdk"),
    ]),
}


def _typescript_package(root: Path) -> Path:
    from generator.targets.typescript.node import build

    return build(root / "generated" / "agui-ts")


def _probe(binding: str, entry: str, path: Path, root: Path, built: Path | None, timeout: float) -> dict[str, Any]:
    if binding == "python":
        command = [sys.executable, str(BENCH / "hostile_probe.py"), entry, str(path)]
        env = {**os.environ, "HOSTILE_ROOT": str(root)}
    else:
        command = ["node", "--expose-gc", str(BENCH / "hostile_probe.mjs"), str(built), entry, str(path)]
        env = dict(os.environ)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"timeout": timeout}
    if done.returncode != 0:
        return {"crash": done.stderr.strip()[-400:]}
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


_MEASURE = """
import json, resource, subprocess, sys, time
started = time.perf_counter()
try:
    done = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=float(sys.argv[1]))
except subprocess.TimeoutExpired:
    print(json.dumps({"timeout": float(sys.argv[1])}))
    raise SystemExit
seconds = time.perf_counter() - started
used = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"seconds": seconds, "cpu": used.ru_utime + used.ru_stime, "rss": used.ru_maxrss * 1024, "rc": done.returncode, "err": done.stderr.decode()[-300:]}))
"""


def _command(words: tuple[str, ...], path: Path, root: Path, timeout: float) -> dict[str, Any]:
    """One command in a fresh measuring process (its RUSAGE_CHILDREN is this command's tree)."""
    target, *rest = words
    command = [str(root / ".venv" / "bin" / "specbind") if (root / ".venv").exists() else str(ROOT / ".venv" / "bin" / "specbind")]
    command += [rest[0], "--spec", str(root / "spec" / "agui"), "--out", str(root / "generated"), *rest[1:]]
    if target == "typescript":
        command += ["--target", "typescript"]
    command.append(str(path))
    done = subprocess.run([sys.executable, "-c", _MEASURE, str(timeout), *command], capture_output=True, text=True, cwd=root)
    return dict(json.loads(done.stdout))


def _cli(words: tuple[str, ...], path: Path, tiny: Path, root: Path, timeout: float) -> dict[str, Any]:
    found = _command(words, path, root, timeout)
    if "timeout" in found:
        return found
    base = _command(words, tiny, root, timeout)
    if found["rc"] not in (0, 1):
        return {"crash": found["err"]}
    return {
        "seconds": max(0.0, found["seconds"] - base["seconds"]),
        "cpu": max(0.0, found["cpu"] - base["cpu"]),
        "peak": max(0, found["rss"] - base["rss"]),
        "raw_seconds": found["seconds"],
    }


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    if any("crash" in r for r in runs):
        return next(r for r in runs if "crash" in r)
    if any("timeout" in r for r in runs):
        return next(r for r in runs if "timeout" in r)
    out: dict[str, Any] = {"seconds": statistics.median(r["seconds"] for r in runs)}
    cpus = [r["cpu"] for r in runs if r.get("cpu") is not None]
    if cpus:  # the process's CPU time: what the others' load inflates less than the wall time
        out["cpu"] = statistics.median(cpus)
    peaks = [r["peak"] for r in runs if r.get("peak") is not None]
    out["peak"] = statistics.median(peaks) if peaks else None
    out["runs"] = [round(r["seconds"], 3) for r in runs]
    return out


def _name(row: tuple[str, ...]) -> str:
    return " ".join(row) if row[0] != "cli" else "cli " + row[1] + ": " + " ".join(row[2:])


def _shown(result: dict[str, Any] | None) -> str:
    if result is None:
        return "-"
    if "timeout" in result:
        return f"> {result['timeout']:.0f} s"
    if "crash" in result:
        return "crash"
    peak = result.get("peak")
    mb = "?" if peak is None else f"{peak / 1e6:,.1f} MB"
    cpu = f" (cpu {result['cpu']:.3f})" if result.get("cpu") is not None else ""
    return f"{result['seconds']:.3f} s{cpu}, {mb}"


def _verdict(result: dict[str, Any]) -> str:
    if "seconds" not in result:
        return "OVER"
    over = result["seconds"] > BUDGET_SECONDS or (result.get("peak") or 0) > BUDGET_BYTES
    return "OVER" if over else "ok"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a row is given up (default 60)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose generated packages are measured")
    parser.add_argument("--before", type=Path, default=None, help="another checkout, measured beside (interleaved)")
    parser.add_argument("--only", action="append", default=[], help="shapes to run (default: all)")
    parser.add_argument("--json", type=Path, default=None, help="write the figures as JSON")
    parser.add_argument("--compare", type=Path, default=None, help="a previous run's --json, printed beside")
    args = parser.parse_args()
    unknown = sorted(set(args.only) - set(SHAPES))
    if unknown:  # a misspelt shape would run nothing and exit 0
        parser.error(f"--only {', '.join(unknown)}: no such shape; choose from {', '.join(SHAPES)}")
    root = args.root.resolve()
    before = json.loads(args.compare.read_text()) if args.compare else None
    built = _typescript_package(root)
    old_root = args.before.resolve() if args.before else None
    old_built = _typescript_package(old_root) if old_root else None
    if old_root is not None:
        before = {"rows": {}}
    print(f"machine: {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}; root {root}; repeat {args.repeat}")
    results: dict[str, Any] = {"load": os.getloadavg(), "root": str(root), "rows": {}}
    crashed = False
    with tempfile.TemporaryDirectory(prefix="hostile-") as tmp:
        tiny = Path(tmp) / "tiny"
        tiny.write_bytes(b'{"type":"RUN_STARTED","threadId":"t","runId":"r"}\n')
        header = f"{'shape':<22}{'bytes':>11}  {'entry point':<42}{'after' if before else 'figures':<38}{'before' if before else '':<38}budget"
        print(header)
        print("-" * len(header))
        for shape, (build, n, rows) in SHAPES.items():
            if args.only and shape not in args.only:
                continue
            path = Path(tmp) / shape
            data = build(n)
            path.write_bytes(data)
            for row in rows:
                runs: list[dict[str, Any]] = []
                old_runs: list[dict[str, Any]] = []
                for _ in range(args.repeat):
                    for where, tree, package, found in ((root, root, built, runs), (old_root, old_root, old_built, old_runs)):
                        if where is None or (found and ("timeout" in found[-1] or "crash" in found[-1])):
                            continue
                        if row[0] == "cli":
                            found.append(_cli(row[1:], path, tiny, tree, args.timeout))
                        else:
                            found.append(_probe(row[0], row[1], path, tree, package, args.timeout))
                result = _median(runs)
                if old_root is not None:
                    assert before is not None
                    before["rows"][f"{shape} | {_name(row)}"] = {"bytes": len(data), **_median(old_runs)}
                crashed |= "crash" in result
                key = f"{shape} | {_name(row)}"
                results["rows"][key] = {"bytes": len(data), **result}
                old = before["rows"].get(key) if before else None
                print(f"{shape:<22}{len(data):>11,}  {_name(row):<42}{_shown(result):<38}{_shown(old) if before else '':<38}{_verdict(result)}", flush=True)
    print(f"load at the end {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    results["load_end"] = os.getloadavg()
    if args.json:
        if old_root is not None:
            results["before"] = before
        args.json.write_text(json.dumps(results, indent=1))
    return 3 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
