#!/usr/bin/env python3
"""Replay benchmark: the generated AG-UI lifecycle automaton and consumer core next to
ag-ui-validate 0.4.0.

In one run, on a corpus from ../shared/bench/gen_corpus.py (>= 100k events):

  pre-decoded   ours: Automaton.feed(typed event)       agv: Validator.feed(dict)  (rule engines)
  end to end    ours: Automaton.feed_document(line)     agv: Validator.feed(line)  (decode + rules)
  consumer      ours: Consumer.feed_document(line)      (decode + rules + messages/state projection)

and then, as separate processes, `specbind replay` and the `ag-ui-validate` CLI over the large
corpus (`--big-runs`, default 10000 runs, about 1M events and 115 MB), reporting wall time and
peak RSS. Prints the ratios; the targets are >= 4x ag-ui-validate on pre-decoded events and
<= 60 MB peak RSS for `specbind replay` on the large corpus. A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(ROOT / "generated"))

from bench_codec import corpus_path, load_lines, machine_info  # noqa: E402

TARGET_RATIO = 4.0
TARGET_RSS_MB = 60.0


def timed(fn: Callable[[], int], rounds: int) -> tuple[float, list[float]]:
    rates = []
    for _ in range(rounds):
        gc.collect()
        t0 = time.perf_counter()
        n = fn()
        rates.append(n / (time.perf_counter() - t0))
    return statistics.median(rates), rates


def in_process(lines: list[bytes], rounds: int) -> dict[str, Any]:
    from ag_ui_validate import ValidatorOptions, create_validator
    from agui import codec_json
    from agui.automaton import Automaton

    decoder = codec_json.decoder("Event")
    events = [decoder.decode(line) for line in lines]
    dicts = [json.loads(line) for line in lines]

    def ours_predecoded() -> int:
        a = Automaton()
        for e in events:
            a.feed(e)
        a.finish()
        return len(events)

    def ours_end_to_end() -> int:
        a = Automaton()
        for line in lines:
            a.feed_document(line)
        a.finish()
        return len(lines)

    from agui.consumer import Consumer

    def ours_consumer() -> int:
        c = Consumer(keep_delivered=False)
        for line in lines:
            c.feed_document(line)
        c.finish()
        return len(lines)

    def agv(items: list[Any]) -> Callable[[], int]:
        def run() -> int:
            v = create_validator(ValidatorOptions())
            for item in items:
                v.feed(item)
            v.finalize()
            return len(items)

        return run

    check = Automaton()
    for e in events:
        check.feed(e)
    check.finish()
    by_rule: dict[str, int] = {}
    for f in check.findings:
        by_rule[f.rule] = by_rule.get(f.rule, 0) + 1

    ops = {
        "ours_predecoded": ours_predecoded,
        "agv_predecoded_dicts": agv(dicts),
        "ours_end_to_end": ours_end_to_end,
        "agv_end_to_end_lines": agv(lines),
        "ours_consumer_end_to_end": ours_consumer,
    }
    results: dict[str, Any] = {"findings_by_rule": by_rule, "outcome": check.outcome}
    rates: dict[str, list[float]] = {name: [] for name in ops}
    for _ in range(rounds):  # interleaved, so drift hits every op alike
        for name, fn in ops.items():
            rates[name].append(timed(fn, 1)[0])
    for name, r in rates.items():
        results[name] = {"events_per_s": statistics.median(r), "rounds": r}
    return results


_PEAK = (
    "import resource, subprocess, sys; "
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE); "
    "sys.stderr.buffer.write(done.stderr[-300:]); "
    "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def child(cmd: list[str]) -> dict[str, Any]:
    """Run a command under a fresh watcher process, so its peak RSS is its own."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _PEAK, *cmd], capture_output=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    code, peak_kb = (int(x) for x in done.stdout.split())
    return {
        "cmd": " ".join(cmd),
        "exit": code,
        "wall_s": wall,
        "peak_rss_mb": peak_kb / 1024,
        "stderr_tail": done.stderr.decode("utf-8", "replace"),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=1000, help="corpus runs for the in-process ops")
    ap.add_argument("--big-runs", type=int, default=10000, help="corpus runs for the end-to-end CLI ops (0: skip)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--corpus", default=None, help="use this JSONL corpus for the in-process ops")
    ap.add_argument("--json", dest="json_out", default=None, help="write the results here")
    args = ap.parse_args(argv)

    info = machine_info()
    print(f"python {info.get('python')} | cpus {info.get('cpu_count')} | {info.get('cpu_model', '')}")
    path, how = corpus_path(args)
    lines, size, digest = load_lines(path)
    print(f"corpus {path} ({how}): {len(lines):,} events, {size / 1e6:.1f} MB, sha256 {digest[:16]}...")
    if len(lines) < 100_000:
        print("warning: fewer than 100k events; pass --runs 1000 or more")

    results: dict[str, Any] = {"machine": info, "corpus": {"events": len(lines), "bytes": size, "sha256": digest}}
    results["in_process"] = ip = in_process(lines, args.rounds)
    print(f"\nautomaton outcome on the corpus: {ip['outcome']}; findings by rule: {ip['findings_by_rule'] or 'none'}")
    print("\n| operation | events/s (median) | rounds |\n|---|---:|---|")
    for name in ("ours_predecoded", "agv_predecoded_dicts", "ours_end_to_end", "agv_end_to_end_lines", "ours_consumer_end_to_end"):
        r = ip[name]
        print(f"| {name} | {r['events_per_s']:,.0f} | {' / '.join(f'{x:,.0f}' for x in r['rounds'])} |")
    pre = ip["ours_predecoded"]["events_per_s"] / ip["agv_predecoded_dicts"]["events_per_s"]
    e2e = ip["ours_end_to_end"]["events_per_s"] / ip["agv_end_to_end_lines"]["events_per_s"]
    proj = ip["ours_consumer_end_to_end"]["events_per_s"] / ip["agv_end_to_end_lines"]["events_per_s"]
    results["ratios"] = {"predecoded_vs_agv": pre, "end_to_end_vs_agv": e2e, "consumer_vs_agv": proj}
    print(f"\npre-decoded: ours / ag-ui-validate = {pre:.2f}x (target >= {TARGET_RATIO}x: {'met' if pre >= TARGET_RATIO else 'NOT met'})")
    print(f"end to end:  ours / ag-ui-validate = {e2e:.2f}x")
    print(f"consumer (decode + automaton + projection) / ag-ui-validate end to end = {proj:.2f}x")

    if args.big_runs:
        big_args = argparse.Namespace(runs=args.big_runs, seed=args.seed, corpus=None)
        big, how = corpus_path(big_args)
        n_big = sum(1 for _ in open(big, "rb"))
        print(f"\nlarge corpus {big} ({how}): {n_big:,} events, {big.stat().st_size / 1e6:.1f} MB")
        specbind = shutil.which("specbind") or str(Path(sys.executable).with_name("specbind"))
        agv_cli = shutil.which("ag-ui-validate") or str(Path(sys.executable).with_name("ag-ui-validate"))
        cli = {"specbind_replay": child([specbind, "replay", "--spec", "spec/agui", str(big)])}
        if Path(agv_cli).exists():
            cli["agv_cli"] = child([agv_cli, str(big), "--no-color", "--json-file", "/dev/null"])
        results["end_to_end_cli"] = cli
        print("\n| command | exit | wall s | events/s | peak RSS MB |\n|---|---:|---:|---:|---:|")
        for name, r in cli.items():
            rss = f"{r['peak_rss_mb']:.1f}"
            print(f"| {name} | {r['exit']} | {r['wall_s']:.1f} | {n_big / r['wall_s']:,.0f} | {rss} |")
        rss = cli["specbind_replay"]["peak_rss_mb"]
        if rss:
            print(f"\nspecbind replay peak RSS {rss:.1f} MB (target <= {TARGET_RSS_MB:.0f} MB: {'met' if rss <= TARGET_RSS_MB else 'NOT met'})")
        if cli["specbind_replay"]["exit"] not in (0, 1):
            print("specbind replay failed:", cli["specbind_replay"]["stderr_tail"])
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
