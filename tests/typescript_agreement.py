"""The two bindings side by side: the Python package and the TypeScript package of a spec run
over the same inputs, their answers compared. Used by tests/test_typescript.py (make test) and
by bench/verify_typescript.py (the full-size run); the TypeScript side runs in one Node process
per batch (`node dist/bin/cli.js batch JOBS`).

What is compared: for documents (every fixture and derived case), accept or reject, and every
error and warning (pointer, keyword, message, definition, schema location); for streams (every
rule example and conformance stream, the corpus and its mutants), the outcome, every finding's
rule, level, index, type, message and ids, the runs, the event count and the types."""

from __future__ import annotations

import importlib
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
GENERATED = REPO / "generated"
SHARED = REPO.parent / "shared"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(GENERATED))

from generator.targets.typescript import node as ts_node  # noqa: E402

# The TypeScript compiler `make test`'s setup installs into tests/node: the tests and benchmarks
# (and every command they start) build the TypeScript packages with it, never fetching one.
LOCAL_TSC = REPO / "tests" / "node" / "node_modules" / ".bin" / "tsc"
if LOCAL_TSC.exists():
    os.environ.setdefault("SPECBIND_TSC", str(LOCAL_TSC))

SPECS = {
    "agui": ("agui", "agui-ts"),
    "harness-runtime": ("harness_runtime", "harness-runtime-ts"),
    "mcp": ("mcp", "mcp-ts"),
    "mcp-2026-07-28": ("mcp_2026_07_28", "mcp-2026-07-28-ts"),
}
# the folder each spec's two packages are in: generated/, or where `register` says
OUT: dict[str, Path] = {}


def register(spec: str, out: Path, python: str, typescript: str) -> None:
    """A spec generated elsewhere (`specbind generate --out OUT`): its Python package `python`
    and its TypeScript package `typescript`, both under `out`, compared like the two above."""
    SPECS[spec] = (python, typescript)
    OUT[spec] = out
    if str(out) not in sys.path:
        sys.path.insert(0, str(out))


def folder_of(spec: str, which: int) -> Path:
    """The Python (0) or TypeScript (1) package's folder of a spec."""
    return OUT.get(spec, GENERATED) / SPECS[spec][which]


def require_toolchain() -> None:
    """Skip the calling test, loudly, where node or tsc is absent."""
    import pytest

    reason = ts_node.missing()
    if reason is not None:
        pytest.skip(f"SKIPPED LOUDLY: {reason}, so the TypeScript packages cannot be built or run")


def built(spec: str) -> Path:
    return ts_node.build(folder_of(spec, 1))


def python_package(spec: str) -> Any:
    return importlib.import_module(SPECS[spec][0])


def run_batch(spec: str, jobs: list[dict[str, Any]], folder: Path) -> dict[str, dict[str, Any]]:
    """The TypeScript package's answers to jobs, by id (one Node process)."""
    path = folder / f"jobs-{spec}.jsonl"
    path.write_text("".join(json.dumps(j, ensure_ascii=False) + "\n" for j in jobs), encoding="utf-8")
    code, lines, err = ts_node.run_cli(built(spec), ["batch", str(path)])
    assert code == 0, err
    return {line.pop("id"): line for line in lines}


# -- documents --------------------------------------------------------------------------------------


def documents(spec: str) -> Iterator[tuple[str, str, str]]:
    """(id, definition, text) of every fixture and derived case of a spec."""
    tests = folder_of(spec, 0) / "tests"
    for f in json.loads((tests / "fixtures.json").read_text(encoding="utf-8"))["fixtures"]:
        yield f"fixture:{f['name']}", f["definition"], json.dumps(f["document"], ensure_ascii=False)
    for c in json.loads((tests / "cases.json").read_text(encoding="utf-8"))["cases"]:
        yield f"case:{c['name']}", c["definition"], json.dumps(c["document"], ensure_ascii=False)


def python_validation(spec: str, definition: str, text: str, lenient: bool, **options: Any) -> dict[str, Any]:
    """validate --json's result for one document (``options``: decode's ``max_errors``)."""
    package = python_package(spec)
    try:
        if lenient:
            result = package.codec_json.decode_lenient(text.encode("utf-8"), definition, **options)
            found = {"valid": True, "errors": [], "warnings": [w.as_dict() for w in result.warnings]}
            if result.omitted:
                found["omitted"] = {"errors": 0, "warnings": result.omitted}
            if result.dropped:
                found["dropped"] = True
            return found
        package.codec_json.decode(text.encode("utf-8"), definition, **options)
        return {"valid": True, "errors": [], "warnings": []}
    except package.DecodeError as exc:
        # a lenient decode that failed: what it had stripped is reported beside the errors
        found = {"valid": False, "errors": [e.as_dict() for e in exc.errors], "warnings": [w.as_dict() for w in exc.warnings]}
        if exc.count > len(exc.errors) or exc.warnings_omitted:
            found["omitted"] = {"errors": exc.count - len(exc.errors), "warnings": exc.warnings_omitted}
        return found


def compare_documents(spec: str, folder: Path, extra: list[tuple[str, str, str]] = (), base: bool = True, **options: Any) -> dict[str, Any]:  # type: ignore[assignment]
    """Every document (the fixtures and derived cases unless not `base`, then `extra`) strictly
    and leniently through both bindings: the differences, and counts. ``options``: decode's
    (``max_errors``), given to both."""
    docs = (list(documents(spec)) if base else []) + list(extra)
    jobs = [
        {"id": f"{i}:{mode}", "op": "validate", "definition": d, "text": t, "lenient": mode == "lenient", **options}
        for i, (_, d, t) in enumerate(docs)
        for mode in ("strict", "lenient")
    ]
    ts = run_batch(spec, jobs, folder)
    differences = []
    accepted = 0
    for i, (name, definition, text) in enumerate(docs):
        for mode in ("strict", "lenient"):
            mine = python_validation(spec, definition, text, mode == "lenient", **options)
            theirs = ts[f"{i}:{mode}"]
            if mode == "strict":
                accepted += mine["valid"]
            if mine != theirs:
                differences.append({"document": name, "mode": mode, "python": mine, "typescript": theirs})
    return {"documents": len(docs), "accepted": accepted, "differences": differences}


def generated_documents(spec: str, seeds: int) -> Iterator[tuple[str, str, str]]:
    """(id, definition, text) of documents and mutants the Python package's `strategies` makes,
    `seeds` of each for every definition (seeded: the same on every run)."""
    strategies = importlib.import_module(f"{SPECS[spec][0]}.strategies")
    for definition in strategies.definitions():
        for seed in range(seeds):
            for kind, make in (("document", strategies.document), ("mutant", strategies.mutant)):
                yield f"{kind}:{definition}:{seed}", definition, json.dumps(make(definition, seed=seed), ensure_ascii=False)


def generated_streams(spec: str, conformant: int, per_rule: int) -> Iterator[tuple[str, bytes, tuple[str, ...]]]:
    """(id, JSON Lines, the findings it was generated to draw) of conformant streams and of
    streams breaking each rule a stream can break, from the Python package's `strategies`."""
    strategies = importlib.import_module(f"{SPECS[spec][0]}.strategies")
    for seed in range(conformant):
        stream = strategies.stream(seed=seed)
        yield f"conformant:{seed}", jsonl(list(stream.documents)), tuple(stream.findings)
    for n, rule in enumerate(strategies.stream_rules()):
        for seed in range(per_rule):
            stream = strategies.violation(rule, seed=n * per_rule + seed)
            yield f"violation:{rule}:{seed}", jsonl(list(stream.documents)), tuple(stream.findings)


def two_party(spec: str) -> bool:
    """Whether a spec's rules are of two parties (transcripts, not event streams)."""
    tables = importlib.import_module(f"{SPECS[spec][0]}.automaton_table").TABLES
    return bool(tables.get("parties"))


def conversations(spec: str) -> list[tuple[str, bytes]]:
    """(id, JSON Lines) of the transcript each machine-row test of a two-party package's
    generated tests drives: the conversations made from its tables."""
    module = importlib.import_module(f"{SPECS[spec][0]}.tests.test_automaton")
    return [(f"row:{name}", jsonl(entries)) for name, entries in module.row_transcripts()]


def findings_of(report: dict[str, Any]) -> list[str]:
    """The rule IDs a replay report holds, violations and warnings together, sorted (a report
    keeps the two apart, so the order between them is not in it)."""
    return sorted(f["rule"] for f in report["violations"] + report["warnings"])


# -- streams ----------------------------------------------------------------------------------------


def judges_streams(spec: str) -> bool:
    """Whether a spec's packages judge streams (its binding has a rules file): the stream
    comparisons apply to those only."""
    return (folder_of(spec, 0) / "tests" / "rule_examples.json").is_file()


def stream_examples(spec: str) -> Iterator[tuple[str, bytes]]:
    """(id, JSON Lines) of every rule example with a stream and every conformance stream."""
    tests = folder_of(spec, 0) / "tests"
    examples = json.loads((tests / "rule_examples.json").read_text(encoding="utf-8"))["examples"]
    for rule, entry in sorted(examples.items()):
        for kind in ("violates", "satisfies"):
            for n, example in enumerate(entry.get(kind, [])):
                if "stream" in example:
                    yield f"example:{rule}:{kind}:{n}", jsonl(example["stream"])
    conformance = tests / "conformance.json"
    if conformance.is_file():
        for stream in json.loads(conformance.read_text(encoding="utf-8"))["streams"]:
            yield f"conformance:{stream['name']}", jsonl(stream["stream"])


def jsonl(events: list[Any]) -> bytes:
    return b"".join(json.dumps(e, ensure_ascii=False).encode("utf-8") + b"\n" for e in events)


def python_replay(spec: str, data: bytes | Path, **options: Any) -> dict[str, Any]:
    module = importlib.import_module(f"{SPECS[spec][0]}.replay")
    return dict(module.replay(data, **options))


def verdict(report: dict[str, Any]) -> dict[str, Any]:
    """What must be identical: everything in the report but notes (which describe the input)."""
    keep = ("outcome", "events", "types", "runs", "format")
    return {**{k: report[k] for k in keep}, "violations": report["violations"], "warnings": report["warnings"], "omitted": report.get("omitted")}


def compare_streams(spec: str, streams: list[tuple[str, bytes | Path]], folder: Path, **options: Any) -> dict[str, Any]:
    """Every stream through both bindings' replay: the differences, and counts. ``options``:
    replay's (``max_findings``), given to both."""
    jobs = []
    for i, (_, data) in enumerate(streams):
        if isinstance(data, Path):
            jobs.append({"id": str(i), "op": "replay", "path": str(data), **options})
        else:
            jobs.append({"id": str(i), "op": "replay", "text": data.decode("utf-8", "surrogateescape"), **options} if _text_safe(data) else {"id": str(i), "op": "replay", "path": str(_spill(folder, i, data)), **options})
    ts = run_batch(spec, jobs, folder)
    differences = []
    events = findings = failed = 0
    for i, (name, data) in enumerate(streams):
        mine = verdict(python_replay(spec, data, **options))
        theirs = verdict(ts[str(i)])
        events += mine["events"]
        findings += len(mine["violations"]) + len(mine["warnings"])
        failed += mine["outcome"] != "completed"
        if mine != theirs:
            differences.append({"stream": name, "python": mine, "typescript": theirs})
    return {"streams": len(streams), "events": events, "findings": findings, "not_completed": failed, "differences": differences}


def _text_safe(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _spill(folder: Path, i: int, data: bytes) -> Path:
    path = folder / f"stream-{i}.jsonl"
    path.write_bytes(data)
    return path


# -- the corpus and its mutants ---------------------------------------------------------------------


def corpus(runs: int, folder: Path) -> Path:
    """gen_corpus.py's corpus of `runs` runs (seed 1), made once per folder."""
    path = folder / f"agui-corpus-{runs}.jsonl"
    if not path.is_file():
        subprocess.run([sys.executable, str(SHARED / "bench" / "gen_corpus.py"), "--runs", str(runs), "--out", str(path)], check=True, capture_output=True)
    return path


def broken_copy(src: Path, dst: Path, seed: int = 7) -> Path:
    """The corpus with trouble of every kind (bench/bench_replay.py uses it too): events dropped, cut short,
    doubled, given an unknown member or type, blank and padded lines."""
    rnd = random.Random(seed)
    out = []
    for line in src.read_bytes().split(b"\n"):
        if not line:
            continue
        r = rnd.random()
        if r < 0.002:
            continue
        if r < 0.003:
            out.append(line[: len(line) // 2])
        elif r < 0.004:
            out += [line, line]
        elif r < 0.005:
            out += [line, b"", b"   \r"]
        elif r < 0.006:
            out.append(line[:-1] + b',"zzUnknown":1}')
        elif r < 0.007:
            out.append(line.replace(b'"type":"', b'"type":"X_', 1))
        elif r < 0.0075:
            out.append(b"  " + line + b" \r")
        else:
            out.append(line)
    dst.write_bytes(b"\n".join(out) + b"\n")
    return dst


def _runs(path: Path) -> Iterator[list[bytes]]:
    run: list[bytes] = []
    for line in path.read_bytes().split(b"\n"):
        if not line:
            continue
        if line.startswith(b'{"type":"RUN_STARTED"') and run:
            yield run
            run = []
        run.append(line)
    if run:
        yield run


def _mutate(run: list[bytes], rnd: random.Random) -> list[bytes]:
    """One run broken in one way: the lifecycle (an event dropped, doubled, moved, the end cut),
    an id changed, a field given the wrong type or an unknown member, a byte flipped."""
    run = list(run)
    i = rnd.randrange(len(run))
    kind = rnd.randrange(9)
    if kind == 0:
        del run[i]
    elif kind == 1:
        run.insert(i, run[i])
    elif kind == 2:
        j = rnd.randrange(len(run))
        run[i], run[j] = run[j], run[i]
    elif kind == 3:
        run = run[: max(1, i)]
    elif kind == 4:
        event = json.loads(run[i])
        for key in ("messageId", "toolCallId", "stepName", "runId", "subagentRunId"):
            if key in event:
                event[key] = event[key] + "-x"
                break
        run[i] = json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode()
    elif kind == 5:
        event = json.loads(run[i])
        key = rnd.choice(sorted(event))
        event[key] = rnd.choice([None, 1.0, -1, "x", [], {}, True, 2**60])
        run[i] = json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode()
    elif kind == 6:
        run[i] = run[i][:-1] + b',"extra":{"a":[1,2.5]}}'
    elif kind == 7:
        b = bytearray(run[i])
        k = rnd.randrange(len(b))
        b[k] ^= 1 << rnd.randrange(7)
        run[i] = bytes(b)
    else:
        run[i] = run[i].replace(b'"type":"', b'"type":"' + rnd.choice([b"THINKING_", b"X_", b""]), 1)
    return run


def mutants(path: Path, count: int, seed: int = 14) -> list[tuple[str, bytes]]:
    """`count` streams, each one run of the corpus broken in one way (runs taken in order)."""
    rnd = random.Random(seed)
    out = []
    for n, run in enumerate(_runs(path)):
        if n >= count:
            break
        out.append((f"mutant:{n}", b"\n".join(_mutate(run, rnd)) + b"\n"))
    return out
