"""Run one fuzz entry point.

    python fuzz/run.py TARGET --runs N [--engine atheris|mutate] [--seed S] [--corpus DIR]
    python fuzz/run.py TARGET --large --runs N [--max-size BYTES] [--seconds S] [--megabytes M]

``atheris`` (coverage-guided, libFuzzer; the default where it imports) starts from the seed corpus
(fuzz/corpus.py writes it) and stops at the first crash, leaving ``crash-*`` with the input.
``mutate`` is deterministic and needs nothing: N structured mutations of the seeds from a fixed
seed, for CI. Both print the inputs run and the wall time, and exit 1 on a crash.

``--large`` is the large-input mode: N inputs of up to ``--max-size`` bytes (default 1 MB), each
a seed mutated and then grown (a span of it repeated, so that it nests, lists, repeats lines or
lengthens a string), or one of fuzz/hostile.py's shapes at a random size, through the target's
entry points one at a time (bench/hostile_probe.py's calls, without the round trips the crash
targets add). It fails, and saves the input beside the corpus, when an entry point crashes or
when one input costs more than ``--seconds`` of CPU time (default 1) or ``--megabytes`` of memory
above the process's baseline (default 64): the budget of docs/limits.md.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
import traceback
from pathlib import Path
from typing import Any

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


# target -> (the entry points of bench/hostile_probe.py the large-input mode runs, the hostile
# shapes that feed them)
LARGE: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "agui_json": (("json", "json_lenient"), ("bad_numbers", "bad_members", "refused_numbers", "deep_units")),
    "harness_json": (("harness_json", "harness_json_lenient"), ()),
    "agui_proto": (("proto", "proto_lenient"), ("nested_struct", "nested_list", "unknown_fields")),
    "harness_proto": (("harness_proto", "harness_proto_lenient"), ()),
    "agui_framing": (("framing",), ("unknown_field_frames",)),
    "harness_framing": (("harness_framing",), ()),
    "sse": (("sse",), ("sse_lines", "sse_events")),
    "jsonpatch": (("jsonpatch",), ("big_patch",)),
    "agui_automaton": (("automaton", "replay"), ("ambiguous_chunks", "many_findings", "many_decode_failures", "state_deltas")),
    "harness_automaton": (("harness_automaton", "harness_replay"), ()),
    "agui_consumer": (("consumer",), ("state_deltas", "state_copies", "state_list_deltas", "ambiguous_chunks", "many_decode_failures",
                                      "text_deltas", "tool_calls", "replaced_last", "long_name_reopened")),
}


def grow(data: bytes, rng: random.Random, most: int) -> bytes:
    """``data`` with one span of it repeated until the whole is a random size up to ``most``
    (log-uniform): the same construct many times over, nested, listed or lengthened."""
    if not data:
        return data
    size = int(min(most, len(data) * 2 ** rng.uniform(0, 20)))
    start = rng.randrange(len(data))
    span = data[start : start + rng.randint(1, 64)]
    times = max(0, (size - len(data)) // len(span))
    return data[:start] + span * times + data[start:]


def _cost(run: Any) -> tuple[float, int, BaseException | None]:
    """CPU seconds, peak bytes above the baseline (Linux; tracemalloc's peak elsewhere) and the
    exception, if the call raised one."""
    import tracemalloc

    from hostile_probe import _reset_peak, _status

    gc.collect()
    baseline = _status("VmRSS")
    kernel = baseline is not None and _reset_peak()
    if not kernel:
        tracemalloc.start()
    started = time.process_time()
    error: BaseException | None = None
    try:
        run()
    except Exception as exc:  # noqa: BLE001 - a crash is what we are looking for
        error = exc
    seconds = time.process_time() - started
    if kernel:
        peak = max(0, (_status("VmHWM") or 0) - (baseline or 0))
    else:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return seconds, peak, error


def run_large(name: str, runs: int, seed: int, most: int = 1 << 20, seconds: float = 1.0, megabytes: float = 64.0) -> int:
    """The large-input mode (see the module docstring); 0 when every input kept the budget."""
    sys.path.insert(0, str(HERE.parent / "bench"))
    import hostile
    import hostile_probe
    from corpus import mutate, seeds

    entries, shapes = LARGE[name]
    pool = seeds()[name]
    rng = random.Random(seed)
    started = time.monotonic()
    worst = (0.0, 0)
    for i in range(runs):
        if shapes and rng.random() < 0.3:
            build, full = hostile.SIZES[rng.choice(shapes)]
            data = build(max(1, int(full * min(1.0, most / (1 << 20)) * rng.uniform(0.05, 1.0))))
        else:
            data = grow(mutate(rng.choice(pool), rng), rng, most)
        for entry in entries:
            try:
                run = hostile_probe.entry(entry, data)
            except ValueError:  # the probe's own preparation (a patch input that is not one)
                continue
            cpu, peak, error = _cost(run)
            worst = (max(worst[0], cpu), max(worst[1], peak))
            why = None
            if error is not None:
                why = f"{type(error).__name__}: {error}"[:300]
            elif cpu > seconds:
                why = f"{cpu:.2f} s of CPU time (budget {seconds} s)"
            elif peak > megabytes * (1 << 20):
                why = f"{peak / (1 << 20):.1f} MB above the baseline (budget {megabytes} MB)"
            if why is not None:
                saved = HERE / f"large-failure-{name}-{entry}-{seed}-{i}.bin"
                saved.write_bytes(data)
                print(f"{name}: input {i} ({len(data):,} bytes) through {entry}: {why}; saved as {saved}", file=sys.stderr)
                return 1
    print(
        f"{name}: {runs:,} large inputs (up to {most:,} bytes), {time.monotonic() - started:.1f} s, "
        f"within budget (the costliest: {worst[0]:.2f} s CPU, {worst[1] / (1 << 20):.1f} MB)"
    )
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
    parser.add_argument("--large", action="store_true", help="the large-input mode: fail on time or memory too")
    parser.add_argument("--max-size", type=int, default=1 << 20, help="--large: the largest input, in bytes")
    parser.add_argument("--seconds", type=float, default=1.0, help="--large: CPU seconds one input may cost")
    parser.add_argument("--megabytes", type=float, default=64.0, help="--large: memory one input may cost above the baseline")
    args = parser.parse_args()
    if args.large:
        names = NAMES if args.target == "all" else [args.target]
        return max(run_large(n, args.runs, args.seed, args.max_size, args.seconds, args.megabytes) for n in names)
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
