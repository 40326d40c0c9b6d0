#!/usr/bin/env python3
"""Replay benchmark: the generated AG-UI lifecycle automaton and consumer core next to
ag-ui-validate 0.4.0, in process and as command lines.

In process, on a corpus from ../shared/bench/gen_corpus.py (>= 100k events):

  pre-decoded   ours: Automaton.feed(typed event)       agv: Validator.feed(dict)  (rule engines)
  end to end    ours: Automaton.feed_document(line)     agv: Validator.feed(line)  (decode + rules)
  fused         ours: Automaton.feed_documents(lines)   (the hot path `specbind replay` uses)
  consumer      ours: Consumer.feed_document(line)      (decode + rules + messages/state projection)

Then the command lines, each a separate process under a watcher that reads its peak RSS, in
interleaved rounds on the same file (`--cli-runs`, default 3000 runs, about 300k events):
`specbind replay --json` (the target: >= 7x the `ag-ui-validate` CLI, <= 60 MB peak RSS),
`specbind replay --json --project` (the consumer core's cost), and `ag-ui-validate FILE`. Before
timing, the findings of the fast path must equal those of the plain path (every line through
`feed_document`) on that corpus and on a copy broken on purpose (exit 3 otherwise). Then
`--jobs` scaling over an archive of files cut from the same corpus, and the large corpus
(`--big-runs`, about 1M events) through a plain `specbind replay`. A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
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
import _peers  # noqa: E402 - bench/ is the script's own folder, first on sys.path

TARGET_RATIO = 4.0
TARGET_CLI_RATIO = 7.0
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

    def ours_fused() -> int:
        a = Automaton()
        for start in range(0, len(lines), 8192):  # as the file reader hands them over
            a.feed_documents(lines[start : start + 8192], skip_blank=True)
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
        "ours_fused_feed_documents": ours_fused,
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
    "usage = resource.getrusage(resource.RUSAGE_CHILDREN); "
    "print(done.returncode, usage.ru_maxrss, usage.ru_utime + usage.ru_stime)"
)


def child(cmd: list[str]) -> dict[str, Any]:
    """Run a command under a fresh watcher process, so its peak RSS is its own."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _PEAK, *cmd], capture_output=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    code, peak_kb, cpu = done.stdout.split()
    return {
        "cmd": " ".join(cmd),
        "exit": int(code),
        "wall_s": wall,
        "cpu_s": float(cpu),
        "peak_rss_mb": int(peak_kb) / 1024,
        "stderr_tail": done.stderr.decode("utf-8", "replace"),
    }



def broken_copy(src: Path, dst: Path, seed: int = 7) -> Path:
    """The corpus with trouble of every kind, for the findings check (the agreement tests' own
    broken corpus: events dropped, cut short, doubled, given an unknown member or type, blank and
    padded lines), made once per corpus."""
    if dst.is_file() and dst.stat().st_mtime >= src.stat().st_mtime:
        return dst
    sys.path.insert(0, str(ROOT / "tests"))
    from typescript_agreement import broken_copy as make

    return make(src, dst, seed)


def same_findings(path: Path) -> dict[str, Any]:
    """The fast path's report next to the plain path's (every line through feed_document)."""
    from agui.replay import replay

    fast = replay(path)
    plain = replay(path, plain=True)
    return {
        "file": path.name,
        "identical": fast == plain,
        "events": fast["events"],
        "violations": len(fast["violations"]),
        "warnings": len(fast["warnings"]),
        "outcome": fast["outcome"],
    }


def cli_rounds(cmds: dict[str, list[str]], rounds: int) -> dict[str, list[dict[str, Any]]]:
    """Each command once per round, round-robin, so load on the machine hits them alike."""
    out: dict[str, list[dict[str, Any]]] = {name: [] for name in cmds}
    for _ in range(rounds):
        for name, cmd in cmds.items():
            out[name].append(child(cmd))
    return out


def split_archive(src: Path, folder: Path, files: int) -> list[Path]:
    """The corpus cut at run boundaries into `files` JSON Lines files (a toy archive)."""
    folder.mkdir(parents=True, exist_ok=True)
    done = sorted(folder.glob("*.jsonl"))
    if len(done) == files and all(p.stat().st_mtime >= src.stat().st_mtime for p in done):
        return done
    for p in done:
        p.unlink()
    lines = src.read_bytes().split(b"\n")
    starts = [i for i, ln in enumerate(lines) if b'"type":"RUN_STARTED"' in ln[:40]] + [len(lines)]
    per = max(1, (len(starts) - 1) // files)
    paths = []
    for k in range(files):
        lo = starts[min(k * per, len(starts) - 1)]
        hi = starts[min((k + 1) * per, len(starts) - 1)] if k < files - 1 else len(lines)
        p = folder / f"part-{k:03d}.jsonl"
        p.write_bytes(b"\n".join(ln for ln in lines[lo:hi] if ln) + b"\n")
        paths.append(p)
    return paths


def cli_section(args: argparse.Namespace, specbind: str, agv_cli: str) -> dict[str, Any]:
    """`specbind replay --json` and `--project` next to the ag-ui-validate CLI, same file."""
    corpus, how = corpus_path(argparse.Namespace(runs=args.cli_runs, seed=args.seed, corpus=None))
    n = sum(1 for _ in open(corpus, "rb"))
    size = corpus.stat().st_size
    print(f"\n## command lines on {corpus.name} ({how}): {n:,} events, {size / 1e6:.1f} MB")
    checks = [same_findings(corpus), same_findings(broken_copy(corpus, corpus.with_suffix(".broken.jsonl")))]
    print("\nfindings check, fast path (feed_documents) vs plain path (feed_document per line):")
    for c in checks:
        print(f"  {c['file']}: {'identical' if c['identical'] else 'DIFFERENT'} ({c['events']:,} events, "
              f"{c['violations']:,} violations, {c['warnings']:,} warnings, {c['outcome']})")
    if not all(c["identical"] for c in checks):
        print("the fast path does not report what the plain path reports: not timing")
        sys.exit(3)
    # bytecode compiled as an installation has it (pip compiles the peer's at install time; an
    # environment with PYTHONDONTWRITEBYTECODE would otherwise recompile our sources every run)
    subprocess.run([sys.executable, "-m", "compileall", "-q", "generator", "generated"], cwd=ROOT, stdout=subprocess.DEVNULL, check=False)
    base = [specbind, "replay", "--spec", "spec/agui"]
    cmds = {
        "specbind replay --json": base + ["--json", str(corpus)],
        "specbind replay --json --project": base + ["--json", "--project", str(corpus)],
        "specbind replay (text)": base + [str(corpus)],
    }
    if Path(agv_cli).exists():
        cmds["ag-ui-validate FILE"] = [agv_cli, str(corpus), "--no-color", "--json-file", "/dev/null"]
    cli_rounds(cmds, 1)  # warm-up, untimed: the file cache, the bytecode
    runs = cli_rounds(cmds, args.cli_rounds)
    table = {}
    print(f"\n{args.cli_rounds} interleaved rounds (median wall; peak RSS: the largest of the rounds):\n")
    print("| command | exit | wall s (median) | rounds (s) | events/s | CPU s | peak RSS MB |\n|---|---:|---:|---|---:|---:|---:|")
    for name, rs in runs.items():
        walls = [r["wall_s"] for r in rs]
        wall = statistics.median(walls)
        rss = max(r["peak_rss_mb"] for r in rs)
        cpu = statistics.median(r["cpu_s"] for r in rs)
        table[name] = {"wall_s": wall, "rounds_s": walls, "cpu_s": cpu, "peak_rss_mb": rss, "exit": rs[0]["exit"]}
        print(f"| {name} | {rs[0]['exit']} | {wall:.2f} | {' / '.join(f'{w:.2f}' for w in walls)} | {n / wall:,.0f} | {cpu:.2f} | {rss:.1f} |")
    out: dict[str, Any] = {"corpus": {"events": n, "bytes": size, "path": str(corpus)}, "checks": checks, "commands": table}
    if "ag-ui-validate FILE" in runs:
        ratios = [a["wall_s"] / o["wall_s"] for a, o in zip(runs["ag-ui-validate FILE"], runs["specbind replay --json"])]
        ratio = statistics.median(ratios)
        rss = table["specbind replay --json"]["peak_rss_mb"]
        out["ratio_json_vs_agv"] = {"median": ratio, "rounds": ratios}
        cpu_ratio = statistics.median(a["cpu_s"] / o["cpu_s"] for a, o in zip(runs["ag-ui-validate FILE"], runs["specbind replay --json"]))
        out["cpu_ratio_json_vs_agv"] = cpu_ratio
        proj = statistics.median(a["wall_s"] / o["wall_s"] for a, o in zip(runs["ag-ui-validate FILE"], runs["specbind replay --json --project"]))
        out["ratio_project_vs_agv"] = proj
        print(f"\nreplay --json / ag-ui-validate CLI, same file, per round: {' / '.join(f'{r:.2f}x' for r in ratios)}; "
              f"median {ratio:.2f}x (target >= {TARGET_CLI_RATIO:.0f}x: {'met' if ratio >= TARGET_CLI_RATIO else 'NOT met'})")
        print(f"the same in CPU time (user + system, less sensitive to the machine's other load): median {cpu_ratio:.2f}x")
        print(f"replay --json peak RSS {rss:.1f} MB (target <= {TARGET_RSS_MB:.0f} MB: {'met' if rss <= TARGET_RSS_MB else 'NOT met'})")
        print(f"replay --json --project / ag-ui-validate CLI: {proj:.2f}x, peak RSS "
              f"{table['specbind replay --json --project']['peak_rss_mb']:.1f} MB (the consumer holds the conversation)")
    return out


def jobs_section(args: argparse.Namespace, specbind: str) -> dict[str, Any]:
    """`--jobs N` over an archive cut from a corpus of `--archive-runs` runs."""
    corpus, _ = corpus_path(argparse.Namespace(runs=args.archive_runs, seed=args.seed, corpus=None))
    folder = corpus.with_suffix(".archive")
    files = split_archive(corpus, folder, args.archive_files)
    n = sum(1 for p in files for _ in open(p, "rb"))
    levels = sorted({1, 2, *args.jobs})
    cmds = {f"--jobs {j}": [specbind, "replay", "--spec", "spec/agui", "--json", "--jobs", str(j), str(folder)] for j in levels}
    runs = cli_rounds(cmds, args.cli_rounds)
    print(f"\n## --jobs over {len(files)} files ({n:,} events), {args.cli_rounds} interleaved rounds, machine CPUs: {os.cpu_count()}\n")
    print("| command | wall s (median) | rounds (s) | events/s | speed-up | CPU s | CPU / wall | peak RSS MB (largest process) |\n|---|---:|---|---:|---:|---:|---:|---:|")
    one = statistics.median(r["wall_s"] for r in runs["--jobs 1"])
    out = {}
    for name, rs in runs.items():
        wall = statistics.median(r["wall_s"] for r in rs)
        rss = max(r["peak_rss_mb"] for r in rs)
        cpu = statistics.median(r["cpu_s"] for r in rs)
        out[name] = {"wall_s": wall, "rounds_s": [r["wall_s"] for r in rs], "cpu_s": cpu, "peak_rss_mb": rss, "speedup": one / wall}
        shown = " / ".join(f"{r['wall_s']:.2f}" for r in rs)
        print(f"| specbind replay --json {name} DIR | {wall:.2f} | {shown} | {n / wall:,.0f} | {one / wall:.2f}x | {cpu:.2f} | {cpu / wall:.2f} | {rss:.1f} |")
    print(f"\nload average when done: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (the machine is shared: "
          "a speed-up needs idle cores; CPU / wall is the parallelism the workers got)")
    return {"files": len(files), "events": n, "runs": out}

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=1000, help="corpus runs for the in-process ops")
    ap.add_argument("--big-runs", type=int, default=10000, help="corpus runs for the end-to-end CLI ops (0: skip)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--corpus", default=None, help="use this JSONL corpus for the in-process ops")
    ap.add_argument("--cli-runs", type=int, default=3000, help="corpus runs for the command-line comparison (0: skip it and --jobs)")
    ap.add_argument("--cli-rounds", type=int, default=5, help="interleaved rounds of the command lines")
    ap.add_argument("--archive-files", type=int, default=24, help="files the --jobs archive is cut into")
    ap.add_argument("--archive-runs", type=int, default=10000, help="corpus runs the --jobs archive is cut from (0: skip --jobs)")
    ap.add_argument("--jobs", type=int, nargs="*", default=[4], help="--jobs levels besides 1 and 2")
    ap.add_argument("--no-in-process", action="store_true", help="skip the in-process ops")
    ap.add_argument("--json", dest="json_out", default=None, help="write the results here")
    args = ap.parse_args(argv)
    _peers.require(__file__, {"ag_ui_validate": "ag-ui-validate"})

    info = machine_info()
    print(f"python {info.get('python')} | cpus {info.get('cpu_count')} | {info.get('cpu_model', '')}")
    results: dict[str, Any] = {"machine": info, "shared_machine_load": os.getloadavg()}
    specbind = shutil.which("specbind") or str(Path(sys.executable).with_name("specbind"))
    agv_cli = shutil.which("ag-ui-validate") or str(Path(sys.executable).with_name("ag-ui-validate"))
    if not args.no_in_process:
        path, how = corpus_path(args)
        lines, size, digest = load_lines(path)
        print(f"corpus {path} ({how}): {len(lines):,} events, {size / 1e6:.1f} MB, sha256 {digest[:16]}...")
        if len(lines) < 100_000:
            print("warning: fewer than 100k events; pass --runs 1000 or more")

        results["corpus"] = {"events": len(lines), "bytes": size, "sha256": digest}
        results["in_process"] = ip = in_process(lines, args.rounds)
        print(f"\nautomaton outcome on the corpus: {ip['outcome']}; findings by rule: {ip['findings_by_rule'] or 'none'}")
        print("\n| operation | events/s (median) | rounds |\n|---|---:|---|")
        for name in ("ours_predecoded", "agv_predecoded_dicts", "ours_end_to_end", "agv_end_to_end_lines", "ours_fused_feed_documents", "ours_consumer_end_to_end"):
            r = ip[name]
            print(f"| {name} | {r['events_per_s']:,.0f} | {' / '.join(f'{x:,.0f}' for x in r['rounds'])} |")
        pre = ip["ours_predecoded"]["events_per_s"] / ip["agv_predecoded_dicts"]["events_per_s"]
        e2e = ip["ours_end_to_end"]["events_per_s"] / ip["agv_end_to_end_lines"]["events_per_s"]
        proj = ip["ours_consumer_end_to_end"]["events_per_s"] / ip["agv_end_to_end_lines"]["events_per_s"]
        fused = ip["ours_fused_feed_documents"]["events_per_s"] / ip["agv_end_to_end_lines"]["events_per_s"]
        results["ratios"] = {"predecoded_vs_agv": pre, "end_to_end_vs_agv": e2e, "fused_vs_agv": fused, "consumer_vs_agv": proj}
        print(f"\npre-decoded: ours / ag-ui-validate = {pre:.2f}x (target >= {TARGET_RATIO}x: {'met' if pre >= TARGET_RATIO else 'NOT met'})")
        print(f"end to end:  ours / ag-ui-validate = {e2e:.2f}x")
        print(f"fused (feed_documents) / ag-ui-validate end to end = {fused:.2f}x")
        print(f"consumer (decode + automaton + projection) / ag-ui-validate end to end = {proj:.2f}x")

    if args.cli_runs:
        results["cli"] = cli_section(args, specbind, agv_cli)
        if args.archive_runs:
            results["jobs"] = jobs_section(args, specbind)
    if args.big_runs:
        big_args = argparse.Namespace(runs=args.big_runs, seed=args.seed, corpus=None)
        big, how = corpus_path(big_args)
        n_big = sum(1 for _ in open(big, "rb"))
        print(f"\nlarge corpus {big} ({how}): {n_big:,} events, {big.stat().st_size / 1e6:.1f} MB")
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
        Path(args.json_out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json_out).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
