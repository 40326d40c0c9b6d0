"""How long `specbind check` and `specbind generate` take on a fresh clone (no format cache, no
bytecode), then warm, for this tree and, with --before REV, for an earlier commit in the same
run (interleaved, so machine load hits both alike); and a small schema's first `generate` from an
installed wheel, and that install's size (issue 21's figures; bench/README.md records them).

    python bench/bench_cold.py [--before e6f48c3] [--rounds 3]

Each clone is run by this interpreter (`python -c "from generator.cli import main; main()"` in the
clone, so the clone's generator and templates are the ones timed); the wheel is built from this
tree and installed offline from .venv/wheelhouse (make test's setup fills it)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WHEELHOUSE = REPO / ".venv" / "wheelhouse"
SMALL = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Shop",
    "$defs": {
        "Item": {"type": "object", "properties": {"title": {"type": "string"}, "price": {"type": "number", "minimum": 0}},
                 "required": ["title"], "additionalProperties": False},
        "Color": {"type": "string", "enum": ["red", "green"]},
        "Order": {"type": "object", "properties": {"id": {"type": "string", "pattern": "^o-[0-9]+$"},
                                                   "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}, "minItems": 1},
                                                   "color": {"$ref": "#/$defs/Color"}},
                  "required": ["id", "items"], "additionalProperties": False},
        "Customer": {"type": "object", "properties": {"name": {"type": "string"}, "orders": {"type": "array", "items": {"$ref": "#/$defs/Order"}}},
                     "required": ["name"], "additionalProperties": False},
    },
}


def _env(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["SPECBIND_CACHE"] = str(cache)
    return env


def _timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} in {cwd}: exit {done.returncode}\n{done.stdout[-800:]}{done.stderr[-800:]}")
    return took


def _no_bytecode(clone: Path) -> None:
    for cache in clone.rglob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)


def _clone(rev: str, where: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(REPO), str(where)], check=True)
    subprocess.run(["git", "checkout", "-q", rev], cwd=where, check=True)
    return where


def _tree(where: Path) -> Path:
    """This tree as it is (uncommitted changes too), without .venv and caches."""
    ignore = shutil.ignore_patterns(".venv", "node_modules", "__pycache__", ".mypy_cache", "*.egg-info", "build")
    shutil.copytree(REPO, where, ignore=ignore, symlinks=True)
    return where


def _specs(clone: Path, names: list[str]) -> list[str]:
    return [a for n in names if (clone / "spec" / n).is_dir() for a in ("--spec", f"spec/{n}")]


def _round(name: str, clone: Path, tmp: Path, n: int, results: dict[tuple[str, str], list[float]]) -> None:
    cli = [sys.executable, "-c", "from generator.cli import main; main()"]
    both = _specs(clone, ["agui", "harness-runtime"])
    # every spec: this tree's (the earlier commit's are the two above)
    for label, args in (("both specs", both), ("every spec", [])) if name == "after" else (("both specs", both),):
        for command in ("check", "generate"):
            subprocess.run(["git", "checkout", "-q", "--", "generated"], cwd=clone, check=True)
            cache = tmp / f"cache-{name}-{label}-{command}-{n}"
            _no_bytecode(clone)
            results.setdefault((name, f"{command} {label}, cold"), []).append(_timed([*cli, command, *args], clone, _env(cache)))
            results.setdefault((name, f"{command} {label}, warm"), []).append(_timed([*cli, command, *args], clone, _env(cache)))


def _wheel(tmp: Path) -> tuple[Path, int]:
    """This tree's wheel in a fresh venv (offline), and the venv's size beyond an empty one."""
    dist = tmp / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-build-isolation", "--no-deps", "-w", str(dist), str(_tree(tmp / "src"))],
                   check=True, capture_output=True)
    sizes = []
    for name, extra in (("empty", []), ("venv", [str(next(dist.glob("specbind-*.whl")))])):
        subprocess.run([sys.executable, "-m", "venv", str(tmp / name)], check=True)
        if extra:
            subprocess.run([str(tmp / name / "bin" / "python"), "-m", "pip", "install", "-q", "--no-index", "--find-links", str(WHEELHOUSE), *extra],
                           check=True, capture_output=True)
        site = next((tmp / name / "lib").glob("python3*/site-packages"))
        sizes.append(sum(p.stat().st_size for p in site.rglob("*") if p.is_file()))
    return tmp / "venv", sizes[1] - sizes[0]


def _small(venv: Path, clone: Path | None, tmp: Path, n: int, results: dict[tuple[str, str], list[float]]) -> None:
    """A 4-definition schema: init, then its first generate with an empty cache."""
    schema = tmp / "shop.json"
    schema.write_text(json.dumps(SMALL))
    runs = [("wheel", [str(venv / "bin" / "specbind")], tmp)]
    if clone is not None:
        runs.append(("before", [sys.executable, "-c", "from generator.cli import main; main()"], clone))
    for name, cmd, cwd in runs:
        work = tmp / f"small-{name}-{n}"
        env = _env(work / "cache")
        _timed([*cmd, "init", str(schema), "--name", "shop", "--spec-dir", str(work / "spec")], cwd, env)
        args = ["--spec", str(work / "spec" / "shop"), "--out", str(work / "out")]
        results.setdefault((name, "small schema: generate, cold"), []).append(_timed([*cmd, "generate", *args], cwd, env))
        results.setdefault((name, "small schema: check, warm"), []).append(_timed([*cmd, "check", *args], cwd, env))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", default=None, help="an earlier commit to time in the same run")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    results: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-cold-") as name:
        tmp = Path(name)
        after = _tree(tmp / "after")
        before = _clone(args.before, tmp / "before") if args.before else None
        venv, size = _wheel(tmp)
        for n in range(args.rounds):
            if before is not None:
                _round("before", before, tmp, n, results)
            _round("after", after, tmp, n, results)
            _small(venv, before, tmp, n, results)
    print(f"{'':8} {'what':36} median   runs (s)")
    for (who, what), times in results.items():
        print(f"{who:8} {what:36} {statistics.median(times):6.2f}   {', '.join(f'{t:.2f}' for t in times)}")
    print(f"installed size of the wheel and its dependencies (no extras): {size / 1e6:.1f} MB")
    print(f"load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
