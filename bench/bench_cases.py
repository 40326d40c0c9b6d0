"""A generated package's JSON codec against another checkout's same package, on the package's own
derived cases, in one process: an A/B under one load (default: the Harness Runtime package, which
has no corpus of its own; bench_codec.py times AG-UI on its corpus).

    .venv/bin/python bench/bench_cases.py --before DIR [--package harness_runtime] [--rounds 9]
        [--repeat 200] [--json FILE]

Documents: the package's tests/cases.json (one case per constraint and branch of each
definition), as bytes, each valid one ``--repeat`` times. Ops, each ours and before:
- strict: ``Decoder(definition).decode(data)`` of the valid cases;
- lenient: ``Decoder(definition).decode_lenient(data)`` of the same;
- encode: ``codec_json.encode(value)`` (``validate=True``) of what strict decoded (naming the
  definition where the value is not a Struct);
- refused: ``Decoder(definition).decode(data)`` of the invalid cases (the explaining path),
  ``--repeat`` / 10 times each.
Before any timing both packages must give the same verdict on every case and encode every valid
one to the same bytes. Each round times every op of both packages in the process's CPU time (other
processes on a shared machine do not count), the order of the two alternating from round to
round; ns a document is each op's best and median round, and the ratio is before / ours of the
best (above 1.00x: ours is faster).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]


def stop(code: int, message: str) -> None:
    """Exit with one line and the bench scripts' code (bench/README.md): 2 a bad option (a
    checkout without the package), 3 a check before the timing failed."""
    print(f"bench_cases.py: {message}", file=sys.stderr)
    sys.exit(code)


def load(where: Path, package: str, name: str) -> Any:
    """The codec_json module of ``package`` under checkout ``where`` (or its generated/, or the
    package itself), imported as ``name`` from a copy (the package imports itself relatively)."""
    for candidate in (where / "generated" / package, where / package, where):
        if (candidate / "codec_json.py").is_file() and (candidate / "tests" / "cases.json").is_file():
            break
    else:
        stop(2, f"--before {where}: no package {package} (generated/{package}/codec_json.py, tests/cases.json) there")
    home = Path(tempfile.mkdtemp(prefix="bench-cases-"))
    shutil.copytree(candidate, home / name, ignore=shutil.ignore_patterns("__pycache__"))
    sys.path.insert(0, str(home))
    return importlib.import_module(f"{name}.codec_json")


def cases(codec: Any) -> list[dict[str, Any]]:
    path = Path(codec.__file__).parent / "tests" / "cases.json"
    found: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["cases"]
    return found


def ops(codec: Any, valid: list[tuple[str, bytes]], invalid: list[tuple[str, bytes]]) -> dict[str, Callable[[], None]]:
    """The timed loops of one package, their inputs prepared outside them."""
    decoders = {d: codec.Decoder(d) for d, _ in valid + invalid}  # one a definition, as a service keeps them
    strict = [(decoders[d].decode, data) for d, data in valid]
    lenient = [(decoders[d].decode_lenient, data) for d, data in valid]
    refused = [(decoders[d].decode, data) for d, data in invalid]
    encode = codec.encode
    values = [(value, None if isinstance(value, codec.msgspec.Struct) else d)
              for (read, data), (d, _) in zip(strict, valid) for value in (read(data),)]
    DecodeError = codec.DecodeError

    def run_strict() -> None:
        for read, data in strict:
            read(data)

    def run_lenient() -> None:
        for read, data in lenient:
            read(data)

    def run_encode() -> None:
        for value, definition in values:
            encode(value, definition)

    def run_refused() -> None:
        for read, data in refused:
            try:
                read(data)
            except DecodeError:
                pass

    return {"strict": run_strict, "lenient": run_lenient, "encode": run_encode, "refused": run_refused}


def check(ours: Any, before: Any, all_cases: list[dict[str, Any]]) -> None:
    """Same verdicts and same bytes from both, before anything is timed."""
    for c in all_cases:
        data = json.dumps(c["document"]).encode()
        verdicts = []
        for codec in (ours, before):
            try:
                value = codec.decoder(c["definition"]).decode(data)
            except codec.DecodeError as exc:
                verdicts.append(("refused", [(i.pointer, i.keyword, i.message) for i in exc.errors]))
            else:
                named = None if isinstance(value, codec.msgspec.Struct) else c["definition"]
                verdicts.append(("read", codec.encode(value, named)))
        if verdicts[0] != verdicts[1]:
            stop(3, f"the two packages disagree on case {c['name']!r} of {c['definition']}: {verdicts}")
        if (verdicts[0][0] == "read") != c["valid"]:
            stop(3, f"case {c['name']!r} of {c['definition']}: {verdicts[0][0]}, labelled valid={c['valid']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, required=True, metavar="DIR", help="another checkout (or its generated/, or the package)")
    ap.add_argument("--package", default="harness_runtime", help="a Python package under generated/ (default harness_runtime)")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--repeat", type=int, default=200, help="times each valid case is read in a round")
    ap.add_argument("--json", type=Path, metavar="FILE", help="write the results as JSON")
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.repeat < 10:
        ap.error("--rounds must be at least 1 and --repeat at least 10")
    ours = load(REPO, args.package, f"{args.package}_ours")
    before = load(args.before.resolve(), args.package, f"{args.package}_before")
    all_cases = cases(ours)
    if all_cases != cases(before):
        stop(3, "the two packages' tests/cases.json differ: nothing to pair")
    check(ours, before, all_cases)
    valid = [(c["definition"], json.dumps(c["document"]).encode()) for c in all_cases if c["valid"]] * args.repeat
    invalid = [(c["definition"], json.dumps(c["document"]).encode()) for c in all_cases if not c["valid"]] * (args.repeat // 10)
    sides = {"ours": ops(ours, valid, invalid), "before": ops(before, valid, invalid)}
    counts = {"strict": len(valid), "lenient": len(valid), "encode": len(valid), "refused": len(invalid)}
    times: dict[tuple[str, str], list[float]] = {(side, op): [] for side in sides for op in counts}
    load_start = os.getloadavg()[0]
    for r in range(args.rounds):
        for op in counts:
            for side in (("ours", "before") if r % 2 == 0 else ("before", "ours")):
                gc.collect()
                t0 = time.process_time()
                sides[side][op]()
                times[(side, op)].append((time.process_time() - t0) / counts[op] * 1e9)
    load_end = os.getloadavg()[0]
    print(f"{args.package}: {sum(c['valid'] for c in all_cases)} valid cases x{args.repeat}, "
          f"{sum(not c['valid'] for c in all_cases)} invalid x{args.repeat // 10}; {args.rounds} rounds; "
          f"load {load_start:.2f} -> {load_end:.2f}; before: {args.before}")
    print(f"{'op':<9} {'ours best':>10} {'median':>8} {'before best':>12} {'median':>8} {'before/ours':>12}")
    results = {}
    for op in counts:
        o, b = times[("ours", op)], times[("before", op)]
        ratio = min(b) / min(o)
        results[op] = {"ours_ns": min(o), "ours_median_ns": statistics.median(o), "before_ns": min(b),
                       "before_median_ns": statistics.median(b), "before_over_ours": ratio,
                       "median_ratio": statistics.median(b) / statistics.median(o)}
        print(f"{op:<9} {min(o):>10,.0f} {statistics.median(o):>8,.0f} {min(b):>12,.0f} "
              f"{statistics.median(b):>8,.0f} {ratio:>11.2f}x")
    if args.json:
        args.json.write_text(json.dumps({"package": args.package, "before": str(args.before), "rounds": args.rounds,
                                         "repeat": args.repeat, "load": [load_start, load_end], "ops": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
