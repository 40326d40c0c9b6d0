"""Run one fuzz entry point.

    python fuzz/run.py TARGET --runs N [--engine atheris|mutate] [--seed S] [--corpus DIR]

``atheris`` (coverage-guided, libFuzzer; the default where it imports) starts from the seed corpus
(fuzz/corpus.py writes it) and stops at the first crash, leaving ``crash-*`` with the input.
``mutate`` is deterministic and needs nothing: N structured mutations of the seeds from a fixed
seed, for CI. Both print the inputs run and the wall time, and exit 1 on a crash.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.setrecursionlimit(1000)  # the interpreter's default: no target may lean on a raised one


def run_mutate(name: str, runs: int, seed: int) -> int:
    from corpus import mutate, seeds
    from targets import TARGETS

    target = TARGETS[name]
    pool = seeds()[name]
    rng = random.Random(seed)
    started = time.monotonic()
    for i in range(runs):
        data = mutate(rng.choice(pool), rng)
        try:
            target(data)
        except Exception:  # noqa: BLE001 - a crash is what we are looking for
            print(f"{name}: CRASH on input {i} (seed {seed}): {data[:300]!r}", file=sys.stderr)
            traceback.print_exc()
            return 1
    print(f"{name}: {runs:,} inputs, {time.monotonic() - started:.1f} s, 0 crashes (mutate, seed {seed})")
    return 0


def run_atheris(name: str, runs: int, corpus: Path) -> int:
    import atheris

    with atheris.instrument_imports(include=["agui", "harness_runtime", "generator", "targets"]):
        from targets import TARGETS
    target = TARGETS[name]
    folder = corpus / name
    if not folder.exists():
        from corpus import write

        write(corpus)
    started = time.monotonic()

    def one(data: bytes) -> None:
        target(data)

    args = [sys.argv[0], str(folder), f"-runs={runs}", "-max_len=65536", "-timeout=20", "-rss_limit_mb=2048",
            "-print_final_stats=1"]
    atheris.Setup(args, one)
    try:
        atheris.Fuzz()
    finally:
        print(f"{name}: wall time {time.monotonic() - started:.1f} s", file=sys.stderr)
    return 0


NAMES = ["agui_automaton", "agui_consumer", "agui_framing", "agui_json", "agui_proto", "harness_automaton",
         "harness_framing", "harness_json", "harness_proto", "jsonpatch", "sse"]  # targets.TARGETS, unimported:
# atheris instruments only what is imported inside its instrument_imports block


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("target", choices=NAMES + ["all"])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--engine", choices=["atheris", "mutate"], default=None)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--corpus", type=Path, default=HERE / "corpus")
    args = parser.parse_args()
    engine = args.engine
    if engine is None:
        try:
            import atheris  # noqa: F401
        except ImportError:
            engine = "mutate"
        else:
            engine = "atheris"
    names = NAMES if args.target == "all" else [args.target]
    if engine == "atheris":
        if len(names) != 1:
            parser.error("atheris runs one target per process: name it")
        return run_atheris(names[0], args.runs, args.corpus)
    return max(run_mutate(n, args.runs, args.seed) for n in names)


if __name__ == "__main__":
    sys.exit(main())
