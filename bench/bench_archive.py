#!/usr/bin/env python3
"""Judging an archive of stream files on a distributed engine: Dask and Ray, each running the
generated package's `replay` as the map function over the same files, next to
`specbind replay --jobs N` on one machine.

    python bench/bench_archive.py [--runs 3000] [--files 24] [--workers 2] [--engines dask ray]

The archive is `bench_replay.py`'s: the corpus of `--runs` runs cut at run boundaries into
`--files` files. Each engine is measured where it imports (run this script with an interpreter
that has dask[distributed] or ray, and msgspec): the time to start a local cluster of
`--workers` worker processes, the first map (workers import the package), a second map (warm),
the shutdown, and the peak RSS of this process. Every report must equal the one `replay`
gives in process. A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
GENERATED = ROOT / "generated"
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(GENERATED))

from bench_codec import corpus_path, machine_info  # noqa: E402
from bench_replay import split_archive  # noqa: E402


def dask_run(paths: list[str], workers: int) -> dict[str, Any]:
    from distributed import Client, LocalCluster
    from distributed.diagnostics.plugin import UploadDirectory

    from agui.replay import replay

    t0 = time.perf_counter()
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    client.register_plugin(UploadDirectory(str(GENERATED / "agui"), update_path=True))
    t1 = time.perf_counter()
    first = client.gather(client.map(replay, paths, pure=False))
    t2 = time.perf_counter()
    second = client.gather(client.map(replay, paths, pure=False))
    t3 = time.perf_counter()
    client.close()
    cluster.close()
    t4 = time.perf_counter()
    return {"start_s": t1 - t0, "first_map_s": t2 - t1, "warm_map_s": t3 - t2, "shutdown_s": t4 - t3, "reports": first, "again": second}


def ray_run(paths: list[str], workers: int) -> dict[str, Any]:
    import ray

    t0 = time.perf_counter()
    ray.init(num_cpus=workers, include_dashboard=False, logging_level="ERROR",
             runtime_env={"py_modules": [str(GENERATED / "agui")]})

    @ray.remote
    def judge(path: str) -> dict[str, Any]:
        from agui.replay import replay

        return replay(path)

    t1 = time.perf_counter()
    first = ray.get([judge.remote(p) for p in paths])
    t2 = time.perf_counter()
    second = ray.get([judge.remote(p) for p in paths])
    t3 = time.perf_counter()
    ray.shutdown()
    t4 = time.perf_counter()
    return {"start_s": t1 - t0, "first_map_s": t2 - t1, "warm_map_s": t3 - t2, "shutdown_s": t4 - t3, "reports": first, "again": second}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--files", type=int, default=24)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--engines", nargs="*", default=["dask", "ray"])
    ap.add_argument("--json", dest="json_out", default=None)
    args = ap.parse_args(argv)
    from agui.replay import replay

    info = machine_info()
    corpus, _ = corpus_path(argparse.Namespace(runs=args.runs, seed=args.seed, corpus=None))
    files = split_archive(corpus, corpus.with_suffix(".archive"), args.files)
    paths = [str(p) for p in files]
    expected = [replay(p) for p in paths]
    events = sum(r["events"] for r in expected)
    print(f"python {info.get('python')} | cpus {info.get('cpu_count')} | load {os.getloadavg()[0]:.2f} (shared machine)")
    print(f"archive: {len(paths)} files, {events:,} events; {args.workers} worker processes\n")
    results: dict[str, Any] = {"machine": info, "files": len(paths), "events": events}
    print("| engine | version | start s | first map s | warm map s | shutdown s | warm events/s | reports equal |\n|---|---|---:|---:|---:|---:|---:|---|")
    for engine in args.engines:
        try:
            module = __import__("distributed" if engine == "dask" else engine)
        except ImportError:
            print(f"| {engine} | not installed here | | | | | | |")
            continue
        run = dask_run(paths, args.workers) if engine == "dask" else ray_run(paths, args.workers)
        equal = run.pop("reports") == expected and run.pop("again") == expected
        run.update(version=module.__version__, equal=equal)
        results[engine] = run
        print(f"| {engine} | {module.__version__} | {run['start_s']:.2f} | {run['first_map_s']:.2f} | {run['warm_map_s']:.2f} | "
              f"{run['shutdown_s']:.2f} | {events / run['warm_map_s']:,.0f} | {'yes' if equal else 'NO'} |")
    specbind = shutil.which("specbind") or str(Path(sys.executable).with_name("specbind"))
    if Path(specbind).exists():
        t0 = time.perf_counter()
        subprocess.run([specbind, "replay", "--spec", "spec/agui", "--json", "--jobs", str(args.workers), str(corpus.with_suffix(".archive"))],
                       cwd=ROOT, stdout=subprocess.DEVNULL, check=False)
        wall = time.perf_counter() - t0
        results["specbind_jobs"] = wall
        print(f"| specbind replay --jobs {args.workers} (one process tree, start included) | | | | {wall:.2f} | | {events / wall:,.0f} | |")
    print(f"\npeak RSS of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
