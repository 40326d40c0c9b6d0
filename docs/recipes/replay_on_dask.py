"""Judge an archive of event-stream files on a Dask cluster, the generated package as the map
function. See docs/archive-replay.md.

    python docs/recipes/replay_on_dask.py --package generated/agui ARCHIVE_DIR [--scheduler tcp://HOST:8786]

Without --scheduler a local cluster is started (one worker process per CPU). Prints one JSON
report per file (what `specbind replay --json FILE` prints) and a summary line; exits 1 when a
stream is not conformant. Needs dask[distributed] and msgspec where it runs and on the workers,
not specbind: the workers receive the generated package from the client.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

SUFFIXES = (".jsonl", ".ndjson", ".sse")


def ship(client: Any, package_dir: Path) -> str:
    """Send the generated package (a folder, pure Python) to every worker, present and future,
    and make it importable there and here. Returns the package name."""
    from distributed.diagnostics.plugin import UploadDirectory

    package_dir = package_dir.resolve()
    client.register_plugin(UploadDirectory(str(package_dir), update_path=True))
    if str(package_dir.parent) not in sys.path:
        sys.path.insert(0, str(package_dir.parent))
    return package_dir.name


def replay_archive(client: Any, package: str, paths: Iterable[str], fmt: str = "auto") -> Iterator[dict[str, Any]]:
    """Each file's report, in the order given: `<package>.replay.replay` runs on the workers, one
    task per file (a file is read where it is: paths must be readable by the workers, e.g. on a
    shared file system; see the doc for object stores)."""
    replay = importlib.import_module(f"{package}.replay").replay
    paths = list(paths)
    futures = client.map(replay, paths, fmt=fmt, pure=False)
    for path, future in zip(paths, futures):
        yield {"file": path, **future.result()}
        future.release()  # the report is ours now: the cluster need not keep it


def summary(reports: list[dict[str, Any]]) -> dict[str, Any]:
    outcomes: dict[str, int] = {}
    for r in reports:
        outcomes[r["outcome"]] = outcomes.get(r["outcome"], 0) + 1
    return {
        "files": len(reports),
        "outcome": "completed" if all(r["outcome"] == "completed" for r in reports) else "failed",
        "outcomes": dict(sorted(outcomes.items())),
        "events": sum(r["events"] for r in reports),
        "violations": sum(len(r["violations"]) for r in reports),
        "warnings": sum(len(r["warnings"]) for r in reports),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--package", type=Path, required=True, help="the generated package folder, e.g. generated/agui")
    ap.add_argument("--scheduler", default=None, help="a running cluster's scheduler address (default: a local cluster)")
    ap.add_argument("--format", default="auto", choices=["auto", "jsonl", "sse", "json"])
    ap.add_argument("archive", type=Path, help="a directory searched for *.jsonl, *.ndjson and *.sse files")
    args = ap.parse_args(argv)
    from distributed import Client, LocalCluster

    paths = sorted(str(p.resolve()) for p in args.archive.rglob("*") if p.suffix in SUFFIXES and p.is_file())
    cluster = None if args.scheduler else LocalCluster(threads_per_worker=1, processes=True, dashboard_address=None)
    with Client(args.scheduler or cluster) as client:
        package = ship(client, args.package)
        reports = []
        for report in replay_archive(client, package, paths, args.format):
            print(json.dumps(report, ensure_ascii=False, default=str))
            reports.append({k: report[k] for k in ("outcome", "events", "violations", "warnings")})
        print(json.dumps(summary(reports)))
    if cluster is not None:
        cluster.close()
    return 0 if all(r["outcome"] == "completed" for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
