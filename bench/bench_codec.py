#!/usr/bin/env python3
"""Throughput of the generated AG-UI codec (``generated/agui``) against its peers, in one process.

    .venv/bin/python bench/bench_codec.py [--runs 1000] [--rounds 3] [--json FILE] [--before DIR] [--chunk N]

1. Corpus: ``../shared/bench/gen_corpus.py --runs N --seed S`` (the generator the peer numbers in
   ``../shared/bench/PEERS.md`` were measured with), cached under ``bench/.cache/``; or ``--corpus``.
   The lines are held in memory as ``bytes``.
2. Checks, before any timing: our strict decoder must accept every line (each rejection is
   printed with its error), lenient decoding must strip nothing, our encoder's output and
   pydantic's dump must round-trip to the same JSON value, pydantic must accept every line, and
   jsonschema must accept the sample it is timed on. A line some decoder rejects is reported and
   left out of the timing, so no row measures an error path.
3. Timing: every op is warmed up, then all ops run round-robin for ``--rounds`` rounds
   (``gc.collect()`` before each op, ``time.perf_counter``); events/s is the median round.
   Per-call results are discarded (a streaming consumer), as in the peer measurements; the
   ``(results kept)`` rows append each result to a list instead, which is what a consumer that
   accumulates a history pays, garbage collector included. The ratios are printed twice: of the
   median events/s, and the median of the per-round ratios (the two ops of a ratio ran within
   the same round: what a shared machine's changing load disturbs least).
   ``--chunk N`` interleaves finer: each round walks the corpus N lines at a time and runs every
   op over those lines in turn (the order rotating from chunk to chunk), so that a load that
   changes within a round falls on every op alike; the ops over other items (the kept results,
   the jsonschema sample) still run whole after the chunks. It adds a third figure, the least
   disturbed by the other processes on a shared machine: each chunk's fastest round, summed over
   the chunks (a chunk preempted in one round is rarely preempted in every round).
4. ``--before DIR``: another checkout's AG-UI package (DIR is that checkout, its ``generated/``,
   or the package itself), loaded beside ours under another name and timed in the same rounds
   (rows ``before: ...``): an A/B under one load.

This is a benchmark, not a test: whatever the speed, it exits 0, or 3 when ours rejects, strips or
alters a corpus line (2 for a corpus below --min-events).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import hashlib
import importlib.metadata as _md
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any
import _peers  # noqa: E402 - bench/ is the script's own folder, first on sys.path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
GEN_CORPUS = Path(__file__).resolve().parents[2] / "shared/bench/gen_corpus.py"
SCHEMA = ROOT / "spec/agui/schema.json"
CACHE = BENCH / ".cache"
MIN_EVENTS = 100_000

sys.path.insert(0, str(ROOT / "generated"))

TARGETS = {  # ratio name -> minimum
    "strict_decode_vs_pydantic_validate_json": 2.0,
    "encode_vs_pydantic_model_dump_json": 3.0,
}


# --------------------------------------------------------------------------- corpus


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def corpus_path(args: argparse.Namespace) -> tuple[Path, str]:
    """The corpus file and how it was obtained (given / cached / generated)."""
    if args.corpus:
        path = Path(args.corpus)
        if not path.is_file():
            sys.exit(f"--corpus {path}: no such file")
        return path, "given"
    path = CACHE / f"agui-corpus-runs{args.runs}-seed{args.seed}.jsonl"
    stats = Path(str(path) + ".stats.json")
    if path.is_file() and stats.is_file():
        try:
            recorded = json.loads(stats.read_text())["sha256"]
        except (ValueError, KeyError):
            recorded = None
        if recorded == _sha256_file(path):
            return path, "cached"
        print(f"cached corpus {path} does not match its stats file: regenerating")
    if args.runs < 1:
        # the generator divides by the events it made: say so here, not in its traceback
        sys.exit(f"a corpus needs at least one run (asked for {args.runs})")
    if not GEN_CORPUS.is_file():
        sys.exit(f"corpus generator not found at {GEN_CORPUS} (expected ../shared beside the repo)")
    CACHE.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, str(GEN_CORPUS), "--runs", str(args.runs), "--seed", str(args.seed),
           "--out", str(path)]
    print("generating corpus:", " ".join(cmd), flush=True)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    print(f"  done in {time.perf_counter() - t0:.1f} s", flush=True)
    return path, "generated"


def load_lines(path: Path) -> tuple[list[bytes], int, str]:
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines, len(data), digest


# --------------------------------------------------------------------------- environment


def _version(dist: str) -> str:
    try:
        return _md.version(dist)
    except _md.PackageNotFoundError:
        return "not installed"


def machine_info() -> dict[str, Any]:
    cpu_model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    except OSError:
        cpu_model = platform.processor()
    mem_gib = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_gib = round(int(line.split()[1]) / 1024 / 1024, 1)
                break
    except OSError:
        pass
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = None
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
        dirty = bool(subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--",
                                     "generated", "generator", "templates"],
                                    capture_output=True, text=True, check=True).stdout.strip())
        commit += " (generated/generator/templates modified)" if dirty else ""
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    import agui

    return {
        "date_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(),
        "cpu_model": cpu_model,
        "cpu_count": os.cpu_count(),
        "cpus_usable": affinity,
        "mem_gib": mem_gib,
        "msgspec": _version("msgspec"),
        "pydantic": _version("pydantic"),
        "pydantic_core": _version("pydantic-core"),
        "jsonschema": _version("jsonschema"),
        "ag_ui_protocol": _version("ag-ui-protocol"),
        "repo_commit": commit,
        "agui_schema_sha256": agui.SCHEMA_SHA256,
    }


# --------------------------------------------------------------------------- checks


def run_checks(lines: list[bytes], max_show: int) -> tuple[dict[str, Any], list[bytes]]:
    """Correctness before speed. Returns the findings (printed as it goes) and the lines that
    every decoder accepts, which are the ones timed."""
    from agui import DecodeError, codec_json
    from ag_ui.core import Event
    from pydantic import TypeAdapter

    dec = codec_json.decoder("Event")
    ta = TypeAdapter(Event)
    out: dict[str, Any] = {}
    by_type: Counter[str] = Counter()

    rejected: list[dict[str, Any]] = []
    rejected_by_type: Counter[str] = Counter()
    lenient_warned = lenient_dropped = lenient_rejected = 0
    accepted: list[bytes] = []  # lines every decoder accepts: the timed corpus
    ours_rt_mismatch = ours_rt_bytes_equal = 0
    pyd_rejected = pyd_rt_mismatch = pyd_rt_mismatch_exclude_none = 0
    first_problem: dict[str, Any] = {}
    for i, line in enumerate(lines):
        try:
            doc = json.loads(line)
        except ValueError:
            doc = None
        etype = str(doc.get("type", "?")) if isinstance(doc, dict) else "(not a JSON object)"
        by_type[etype] += 1
        try:
            value = dec.decode(line)
        except DecodeError as exc:
            rejected_by_type[etype] += 1
            rejected.append({"line": i + 1, "type": etype, "error": str(exc),
                             "event": line.decode("utf-8", "replace")[:300]})
            value = None
        lenient_ok = True
        try:
            lenient = dec.decode_lenient(line)
        except DecodeError as exc:
            lenient_ok = False
            lenient_rejected += 1
            first_problem.setdefault("lenient_reject", {"line": i + 1, "error": str(exc)})
        else:
            if lenient.warnings:
                lenient_warned += 1
                first_problem.setdefault("lenient", {"line": i + 1, "warnings": [str(w) for w in lenient.warnings]})
            if lenient.dropped:
                lenient_dropped += 1
        if value is not None:
            encoded = codec_json.encode(value)
            if encoded == line:
                ours_rt_bytes_equal += 1
            if json.loads(encoded) != doc:
                ours_rt_mismatch += 1
                first_problem.setdefault("ours_roundtrip", {"line": i + 1, "encoded": encoded.decode()[:300]})
        try:
            model = ta.validate_json(line)
        except Exception as exc:  # noqa: BLE001 - pydantic's ValidationError, reported as found
            pyd_rejected += 1
            first_problem.setdefault("pydantic_reject", {"line": i + 1, "error": str(exc)[:300]})
            continue
        if value is not None and lenient_ok:
            accepted.append(line)
        if json.loads(model.model_dump_json(by_alias=True)) != doc:
            pyd_rt_mismatch += 1
            first_problem.setdefault("pydantic_roundtrip", {"line": i + 1})
        if i % 10 == 0 and json.loads(model.model_dump_json(by_alias=True, exclude_none=True)) != doc:
            pyd_rt_mismatch_exclude_none += 1

    out.update(
        events=len(lines),
        types_covered=len(by_type),
        by_type=dict(by_type.most_common()),
        strict_rejected=len(rejected),
        strict_rejected_by_type=dict(rejected_by_type.most_common()),
        strict_rejections=rejected[:max_show],
        lenient_with_warnings=lenient_warned,
        lenient_dropped=lenient_dropped,
        ours_roundtrip_mismatch=ours_rt_mismatch,
        ours_roundtrip_byte_identical=ours_rt_bytes_equal,
        pydantic_rejected=pyd_rejected,
        pydantic_dump_by_alias_roundtrip_mismatch=pyd_rt_mismatch,
        pydantic_dump_exclude_none_roundtrip_mismatch_every_10th=pyd_rt_mismatch_exclude_none,
        lenient_rejected=lenient_rejected,
        timed_events=len(accepted),
        first_problems=first_problem,
    )

    print(f"\nchecks over {len(lines):,} events ({len(by_type)} event types):")
    print(f"  ours strict decode rejected:           {len(rejected):,}")
    for r in rejected[:max_show]:
        error = r["error"].replace("\n", "\n      ")
        print(f"    line {r['line']} ({r['type']}): {error}")
        print(f"      {r['event']}")
    if len(rejected) > max_show:
        print(f"    ... {len(rejected) - max_show:,} more; by type: {dict(rejected_by_type.most_common())}")
    print(f"  ours lenient decode: rejected {lenient_rejected:,}, with warnings {lenient_warned:,}, "
          f"dropped {lenient_dropped:,}")
    print(f"  ours encode(decode(line)) == line as JSON value: mismatches {ours_rt_mismatch:,} "
          f"(byte-identical: {ours_rt_bytes_equal:,})")
    print(f"  pydantic validate_json rejected:       {pyd_rejected:,}")
    print(f"  pydantic model_dump_json(by_alias=True) round-trip mismatches: {pyd_rt_mismatch:,} "
          f"(with exclude_none=True, every 10th line: {pyd_rt_mismatch_exclude_none:,})")
    for key, val in first_problem.items():
        print(f"  first {key}: {val}")
    if len(accepted) < len(lines):
        print(f"  TIMING ON {len(accepted):,} of {len(lines):,} lines: the ones ours (strict and lenient) "
              "and pydantic all accept")
    return out, accepted


# --------------------------------------------------------------------------- ops


class Op:
    """One timed operation: ``run(items)`` processes every item once; ``reps`` passes per round.
    The warm-up runs it over the first ``warm`` items (default: all of them, so that the first
    timed round does not pay for growing the heap)."""

    def __init__(self, key: str, label: str, group: str, items: list[Any],
                 run: Callable[[list[Any]], None], reps: int = 1, warm: int | None = None) -> None:
        self.key, self.label, self.group = key, label, group
        self.items, self.run, self.reps = items, run, reps
        self.warm = len(items) if warm is None else warm
        self.seconds: list[float] = []
        self.fastest: list[float] = []  # with --chunk: each chunk's fastest round

    @property
    def events(self) -> int:
        return len(self.items) * self.reps

    def timed(self) -> None:
        items, run = self.items, self.run
        gc.collect()
        t0 = time.perf_counter()
        for _ in range(self.reps):
            run(items)
        self.seconds.append(time.perf_counter() - t0)

    def eps(self) -> list[float]:
        return [self.events / s for s in self.seconds]

    def median(self) -> float:
        return self.events / statistics.median(self.seconds)


def run_chunked(ops: list[Op], slices: dict[str, list[list[Any]]]) -> None:
    """One round of ``ops`` interleaved chunk by chunk (``slices``: each op's items, cut alike);
    each op's time is the sum over the chunks."""
    gc.collect()
    spent = dict.fromkeys((op.key for op in ops), 0.0)
    clock = time.perf_counter
    for k in range(len(slices[ops[0].key])):
        turn = k % len(ops)
        for op in ops[turn:] + ops[:turn]:
            items = slices[op.key][k]
            t0 = clock()
            op.run(items)
            took = clock() - t0
            spent[op.key] += took
            if len(op.fastest) <= k:
                op.fastest.append(took)
            elif took < op.fastest[k]:
                op.fastest[k] = took
    for op in ops:
        op.seconds.append(spent[op.key])


def _each(fn: Callable[[Any], Any]) -> Callable[[list[Any]], None]:
    def run(items: list[Any]) -> None:
        for x in items:
            fn(x)
    return run


def _kept(fn: Callable[[Any], Any]) -> Callable[[list[Any]], None]:
    def run(items: list[Any]) -> None:
        kept: list[Any] = []
        append = kept.append
        for x in items:
            append(fn(x))
    return run


def load_before(where: Path) -> Any:
    """The codec_json module of another checkout's AG-UI package, imported as ``agui_before``
    (a copy in a temporary directory: the package imports itself relatively)."""
    for candidate in (where / "generated" / "agui", where / "agui", where):
        if (candidate / "codec_json.py").is_file():
            break
    else:
        print(f"--before {where}: no AG-UI package (generated/agui/codec_json.py) there", file=sys.stderr)
        sys.exit(2)  # a bad option (bench/README.md's exit codes)
    import importlib

    home = Path(tempfile.mkdtemp(prefix="bench-codec-before-"))
    shutil.copytree(candidate, home / "agui_before", ignore=shutil.ignore_patterns("tests", "__pycache__"))
    sys.path.insert(0, str(home))
    return importlib.import_module("agui_before.codec_json")


def build_ops(lines: list[bytes], sample: list[bytes], sample_docs: list[Any],
              js: Any, js_by_type: dict[str, Any] | None, before: Any = None) -> tuple[list[Op], dict[str, Any]]:
    import msgspec
    from agui import codec_json, models
    from ag_ui.core import Event
    from pydantic import TypeAdapter

    dec = codec_json.decoder("Event")
    ta = TypeAdapter(Event)
    print("\npre-decoding values for the encode rows ...", flush=True)
    values = [dec.decode(line) for line in lines]
    pyd_models = [ta.validate_json(line) for line in lines]
    encode = codec_json.encode
    raw_decoder = msgspec.json.Decoder(models.Event)
    module_decode = codec_json.decode

    def encode_validate(items: list[Any]) -> None:
        for v in items:
            encode(v)

    def encode_no_validate(items: list[Any]) -> None:
        for v in items:
            encode(v, validate=False)

    def pyd_dump(items: list[Any]) -> None:
        for m in items:
            m.model_dump_json(by_alias=True)

    # same sample as jsonschema, repeated so a round lasts long enough to time
    sample_reps = max(1, 200_000 // max(1, len(sample)))
    ops = [
        Op("json_loads", "stdlib json.loads(line)", "context", lines, _each(json.loads)),
        Op("msgspec_raw_decode", "msgspec Decoder(models.Event).decode(line), no wrapper", "context",
           lines, _each(raw_decoder.decode)),
        Op("ours_strict", 'ours Decoder("Event").decode(line)  [strict]', "decode", lines, _each(dec.decode)),
        Op("ours_module_decode", "ours codec_json.decode(line)  [strict, module function]", "decode",
           lines, _each(module_decode)),
        Op("ours_lenient", 'ours Decoder("Event").decode_lenient(line)', "decode", lines,
           _each(dec.decode_lenient)),
        Op("pyd_validate_json", "pydantic TypeAdapter(Event).validate_json(line)", "decode", lines,
           _each(ta.validate_json)),
        Op("ours_strict_kept", "ours strict decode (results kept)", "decode-kept", lines, _kept(dec.decode)),
        Op("pyd_validate_json_kept", "pydantic validate_json (results kept)", "decode-kept", lines,
           _kept(ta.validate_json)),
        Op("ours_encode", "ours codec_json.encode(value)  [validate=True]", "encode", values, encode_validate),
        Op("ours_encode_novalidate", "ours codec_json.encode(value, validate=False)", "encode", values,
           encode_no_validate),
        Op("pyd_dump_json", "pydantic model.model_dump_json(by_alias=True)", "encode", pyd_models, pyd_dump),
        Op("ours_strict_sample", f"ours strict decode, jsonschema sample x{sample_reps}", "schema",
           sample, _each(dec.decode), reps=sample_reps),
    ]
    if before is not None:
        old = before.decoder("Event")
        old_values = [old.decode(line) for line in lines]
        old_encode = before.encode

        def old_encode_validate(items: list[Any]) -> None:
            for v in items:
                old_encode(v)

        at = next(i for i, op in enumerate(ops) if op.key == "pyd_validate_json")
        ops[at:at] = [
            Op("before_strict", 'before: Decoder("Event").decode(line)  [strict]', "decode", lines,
               _each(old.decode)),
            Op("before_module_decode", "before: codec_json.decode(line)", "decode", lines,
               _each(before.decode)),
            Op("before_lenient", 'before: Decoder("Event").decode_lenient(line)', "decode", lines,
               _each(old.decode_lenient)),
        ]
        at = next(i for i, op in enumerate(ops) if op.key == "pyd_dump_json")
        ops.insert(at, Op("before_encode", "before: codec_json.encode(value)  [validate=True]", "encode",
                          old_values, old_encode_validate))
    if js is not None:
        ops.append(Op("jsonschema", "jsonschema Draft202012Validator(schema).validate(doc)", "schema",
                      sample_docs, _each(js.validate), warm=20))
    if js_by_type is not None:
        def dispatch(items: list[Any]) -> None:
            for d in items:
                js_by_type.get(d.get("type"), js).validate(d)
        ops.append(Op("jsonschema_dispatch", "jsonschema, dispatched on `type` to its oneOf branch",
                      "schema", sample_docs, dispatch, warm=20))
    extra = {"pre_decoded_values": len(values), "pre_validated_models": len(pyd_models),
             "ours_sample_reps": sample_reps}
    return ops, extra


def jsonschema_validators(schema_path: Path) -> tuple[Any, dict[str, Any] | None]:
    """The whole-schema validator and one validator per event `type` (the oneOf branch)."""
    try:
        import jsonschema
        from referencing import Registry, Resource
    except ImportError:
        return None, None
    schema = json.loads(schema_path.read_text())
    cls = jsonschema.Draft202012Validator
    cls.check_schema(schema)
    whole = cls(schema)
    base = schema.get("$id", "urn:agui")
    registry = Registry().with_resource(base, Resource.from_contents(schema))
    by_type: dict[str, Any] = {}
    for branch in schema["$defs"]["Event"]["oneOf"]:
        name = branch["$ref"].rsplit("/", 1)[-1]
        tag = schema["$defs"][name].get("properties", {}).get("type", {}).get("const")
        if isinstance(tag, str):
            by_type[tag] = cls({"$ref": f"{base}#/$defs/{name}"}, registry=registry)
    return whole, by_type


# --------------------------------------------------------------------------- main


def _target(value: float | None, minimum: float) -> dict[str, Any]:
    return {"min": minimum, "value": None if value is None else round(value, 3),
            "met": value is not None and value >= minimum}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", help="an existing JSONL corpus (default: generate/reuse under bench/.cache/)")
    ap.add_argument("--runs", type=int, default=1000, help="runs to generate (default 1000, ~105k events)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3, help="timed rounds per op; the median is reported")
    ap.add_argument("--js-sample", type=int, default=2000,
                    help="events in the jsonschema sample (every Nth line; default 2000)")
    ap.add_argument("--min-events", type=int, default=MIN_EVENTS,
                    help=f"refuse a smaller corpus (default {MIN_EVENTS:,}; 0 for quick smoke runs)")
    ap.add_argument("--no-jsonschema", action="store_true", help="skip the (slow) jsonschema rows")
    ap.add_argument("--show-rejections", type=int, default=20, help="rejected lines printed in full")
    ap.add_argument("--json", metavar="FILE", help="write the results as JSON")
    ap.add_argument("--chunk", type=int, default=0, metavar="N",
                    help="interleave the ops every N corpus lines within a round (default 0: each op whole)")
    ap.add_argument("--before", type=Path, metavar="DIR",
                    help="another checkout (or its generated/, or its AG-UI package): timed beside ours")
    args = ap.parse_args(argv)
    peers = {"ag_ui": "ag-ui-protocol", "pydantic": "pydantic"} | ({} if args.no_jsonschema else {"jsonschema": "jsonschema"})
    _peers.require(__file__, peers)
    if args.rounds < 1:
        ap.error("--rounds must be >= 1")
    if args.chunk < 0:
        ap.error("--chunk must be >= 0")
    before = load_before(args.before.resolve()) if args.before else None  # a wrong DIR stops here, before the checks

    info = machine_info()
    print("machine:")
    for k, v in info.items():
        print(f"  {k:20s} {v}")

    path, how = corpus_path(args)
    lines, nbytes, digest = load_lines(path)
    print(f"\ncorpus: {path} ({how})")
    print(f"  {len(lines):,} events, {nbytes:,} bytes ({nbytes / max(1, len(lines)):.1f} B/event), sha256 {digest}")
    if len(lines) < args.min_events:
        print(f"corpus has {len(lines):,} events, fewer than --min-events {args.min_events:,}", file=sys.stderr)
        return 2

    checks, timed_lines = run_checks(lines, args.show_rejections)
    if not timed_lines:
        print("no line is accepted by every decoder: nothing to time", file=sys.stderr)
        return 3

    step = max(1, len(timed_lines) // max(1, args.js_sample))
    sample = timed_lines[::step][: args.js_sample]
    sample_docs = [json.loads(line) for line in sample]
    js, js_by_type = (None, None) if args.no_jsonschema else jsonschema_validators(SCHEMA)
    if js is None and not args.no_jsonschema:
        print("jsonschema not installed: its rows are skipped")
    if js is not None:
        keep = [js.is_valid(d) for d in sample_docs]
        checks["jsonschema_sample"] = len(sample)
        checks["jsonschema_sample_rejected"] = keep.count(False)
        print(f"  jsonschema rejected of the {len(sample):,}-event sample: {keep.count(False):,}"
              + (" (left out of its timing)" if not all(keep) else ""))
        sample = [x for x, k in zip(sample, keep) if k]
        sample_docs = [d for d, k in zip(sample_docs, keep) if k]
    ops, extra = build_ops(timed_lines, sample, sample_docs, js, js_by_type, before)
    load = {"start": os.getloadavg()}
    print(f"warm-up ({len(ops)} ops) ...", flush=True)
    for op in ops:
        op.run(op.items[: op.warm])
    chunked = [op for op in ops if args.chunk and op.reps == 1 and op.group != "decode-kept"
               and len(op.items) == len(timed_lines)]
    slices = {op.key: [op.items[i:i + args.chunk] for i in range(0, len(op.items), args.chunk)] for op in chunked}
    for r in range(args.rounds):
        print(f"round {r + 1}/{args.rounds} ...", flush=True)
        if chunked:
            run_chunked(chunked, slices)
        for op in ops:
            if op not in chunked:
                op.timed()
    load["end"] = os.getloadavg()

    by_key = {op.key: op for op in ops}

    def med(key: str) -> float | None:
        return by_key[key].median() if key in by_key else None

    def ratio(a: str, b: str) -> float | None:
        x, y = med(a), med(b)
        return None if x is None or y is None else x / y

    def per_round(a: str, b: str) -> float | None:
        """The median of the rounds' ratios of a to b (each round timed both)."""
        if a not in by_key or b not in by_key:
            return None
        return statistics.median(x / y for x, y in zip(by_key[a].eps(), by_key[b].eps()))

    pairs = {
        "strict_decode_vs_pydantic_validate_json": ("ours_strict", "pyd_validate_json"),
        "lenient_decode_vs_pydantic_validate_json": ("ours_lenient", "pyd_validate_json"),
        "strict_decode_vs_raw_msgspec": ("ours_strict", "msgspec_raw_decode"),
        "before_strict_decode_vs_pydantic_validate_json": ("before_strict", "pyd_validate_json"),
        "before_lenient_decode_vs_pydantic_validate_json": ("before_lenient", "pyd_validate_json"),
        "before_strict_decode_vs_raw_msgspec": ("before_strict", "msgspec_raw_decode"),
        "strict_decode_vs_before": ("ours_strict", "before_strict"),
        "lenient_decode_vs_before": ("ours_lenient", "before_lenient"),
        "module_decode_vs_before": ("ours_module_decode", "before_module_decode"),
        "encode_vs_before": ("ours_encode", "before_encode"),
    }
    round_ratios = {name: per_round(a, b) for name, (a, b) in pairs.items()}

    def fastest(a: str, b: str) -> float | None:
        """a's speed over b's, each the sum of its chunks' fastest rounds (with --chunk)."""
        if a not in by_key or b not in by_key or not by_key[a].fastest or not by_key[b].fastest:
            return None
        return (by_key[a].events / sum(by_key[a].fastest)) / (by_key[b].events / sum(by_key[b].fastest))

    fastest_ratios = {name: fastest(a, b) for name, (a, b) in pairs.items()}
    fastest_ratios["encode_vs_pydantic_model_dump_json"] = fastest("ours_encode", "pyd_dump_json")
    ratios = {
        "strict_decode_vs_pydantic_validate_json": ratio("ours_strict", "pyd_validate_json"),
        "encode_vs_pydantic_model_dump_json": ratio("ours_encode", "pyd_dump_json"),
        "encode_novalidate_vs_pydantic_model_dump_json": ratio("ours_encode_novalidate", "pyd_dump_json"),
        "lenient_decode_vs_pydantic_validate_json": ratio("ours_lenient", "pyd_validate_json"),
        "strict_decode_kept_vs_pydantic_validate_json_kept": ratio("ours_strict_kept", "pyd_validate_json_kept"),
        "strict_decode_vs_raw_msgspec": ratio("ours_strict", "msgspec_raw_decode"),
        "strict_decode_vs_jsonschema": ratio("ours_strict_sample", "jsonschema"),
        "strict_decode_vs_jsonschema_dispatch": ratio("ours_strict_sample", "jsonschema_dispatch"),
    }

    # ------------------------------------------------------------------ report
    print(f"\nresults: events/s, median of {args.rounds} round(s)" + (f", interleaved every {args.chunk:,} lines" if chunked else "") + " "
          f"(corpus {len(lines):,} events, {len(timed_lines):,} timed; "
          f"jsonschema sample {len(sample):,} = one line in {step})\n")
    w = max(len(op.label) for op in ops)
    print(f"{'group':12s} {'operation':{w}s} {'events':>10s} {'events/s':>12s} {'ns/event':>9s}   rounds (events/s)")
    print("-" * (w + 80))
    group = None
    for op in ops:
        if group is not None and op.group != group:
            print()
        group = op.group
        rounds = " / ".join(f"{e:,.0f}" for e in op.eps())
        print(f"{op.group:12s} {op.label:{w}s} {op.events:>10,} {op.median():>12,.0f} {1e9 / op.median():>9,.0f}   {rounds}")

    print("\nratios (median events/s):")
    for name, value in ratios.items():
        if value is None:
            continue
        target = TARGETS.get(name)
        verdict = "" if target is None else (f"  target >= {target:.1f}x: " + ("MET" if value >= target else "NOT MET"))
        print(f"  {name:52s} {value:9.2f}x{verdict}")
    print("\nratios (median of the per-round ratios):")
    for name, value in round_ratios.items():
        if value is not None:
            print(f"  {name:52s} {value:9.2f}x")
    if chunked:
        print(f"\nratios (each {args.chunk:,}-line chunk's fastest of {args.rounds} rounds, summed):")
        for name, value in fastest_ratios.items():
            if value is not None:
                print(f"  {name:52s} {value:9.2f}x")
        print("  ns/event: " + ", ".join(f"{op.key} {1e9 * sum(op.fastest) / op.events:,.0f}" for op in chunked))
    print("\nload average (1, 5, 15 min): {:.2f} {:.2f} {:.2f} at the first round, ".format(*load["start"])
          + "{:.2f} {:.2f} {:.2f} after the last".format(*load["end"]))

    failed = (checks["strict_rejected"] or checks["lenient_rejected"] or checks["lenient_with_warnings"]
              or checks["lenient_dropped"] or checks["ours_roundtrip_mismatch"])
    if failed:
        print("\nFINDING: ours rejected, stripped or altered corpus lines (see the checks above); "
              "the corpus generator writes only valid AG-UI.")

    if args.json:
        result = {
            "machine": info,
            "corpus": {"path": str(path), "source": how, "runs": None if args.corpus else args.runs,
                       "seed": None if args.corpus else args.seed, "events": len(lines), "bytes": nbytes,
                       "sha256": digest, "jsonschema_sample": len(sample), "jsonschema_sample_step": step},
            "rounds": args.rounds,
            "chunk": args.chunk,
            "checks": checks,
            "ops": [{"key": op.key, "label": op.label, "group": op.group, "events": op.events,
                     "seconds": [round(s, 5) for s in op.seconds],
                     "eps": [round(e) for e in op.eps()], "eps_median": round(op.median()),
                     **({"eps_chunks_fastest": round(op.events / sum(op.fastest))} if op.fastest else {})}
                    for op in ops],
            "ratios": {k: (None if v is None else round(v, 3)) for k, v in ratios.items()},
            "ratios_per_round_median": {k: round(v, 3) for k, v in round_ratios.items() if v is not None},
            "ratios_chunks_fastest": {k: round(v, 3) for k, v in fastest_ratios.items() if v is not None},
            "load_average": {k: [round(x, 2) for x in v] for k, v in load.items()},
            "before": None if args.before is None else str(args.before),
            "targets": {k: _target(ratios[k], t) for k, t in TARGETS.items()},
            **extra,
        }
        out = Path(args.json)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
        print(f"\nresults written to {out}")
    return 3 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
