"""Differential fuzzing: the same inputs through both bindings of a spec, whole answers compared.

    python fuzz/differential.py [--spec agui|harness-runtime|mcp|mcp-2026-07-28|all] [--runs N] [--seed S] [--big P] [--capped P] [--out DIR]

Every input (a stream from the specs' own material, framed as JSON Lines, SSE, a JSON array, a
test case or one document; or one document of any definition from the package's ``docgen``;
then mutated: in its values, then in its bytes) goes through

- ``replay`` (the whole report: outcome, every finding, runs, events, types, format, notes), with
  the format sniffed and, for some inputs, forced; for Harness streams, sometimes after a cursor
  (specs with rules only: the MCP revisions have none yet, so their inputs are validated only);
- ``validate`` strict and lenient (valid, every error and warning), as the root definition or,
  for a generated document, mostly as its own definition,

in the Python package, in process, and in the TypeScript package, in one long-lived Node process
(``node dist/bin/cli.js batch -``) fed job after job while Python works on its side. Any
difference is a disagreement; a Python exception, or Node dying, is a crash. Each disagreement's
input is written to ``--out`` (``<spec>-<n>.bin`` and the two answers in ``<spec>-<n>.json``).
Each spec's line gives its inputs, answers, disagreements, crashes, wall time, inputs/s and the
peak RSS of both processes.

Exit 0 when every answer agreed, 1 otherwise. ``make test`` runs a short budget
(tests/test_differential.py); fuzz/README.md has the long run's figures.
"""

from __future__ import annotations

import argparse
import base64
import importlib
import importlib.util
import json
import queue
import random
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
for entry in (REPO / "generated", REPO, HERE):
    if str(entry) not in sys.path:
        sys.path.insert(0, str(entry))

from corpus import mutate as mutate_bytes  # noqa: E402
from corpus import spec_streams  # noqa: E402

from generator.targets.typescript import node as ts_node  # noqa: E402

# spec folder -> (Python package, TypeScript package folder under generated/)
SPECS = {
    "agui": ("agui", "agui-ts"),
    "harness-runtime": ("harness_runtime", "harness-runtime-ts"),
    "mcp": ("mcp", "mcp-ts"),
    "mcp-2026-07-28": ("mcp_2026_07_28", "mcp-2026-07-28-ts"),
}


def replays(spec: str) -> bool:
    """Whether the spec's packages replay streams (it has rules), or only validate documents."""
    return importlib.util.find_spec(f"{SPECS[spec][0]}.replay") is not None


# -- the TypeScript side -----------------------------------------------------------------------


class Peer:
    """One Node process running `batch -`: jobs written by a thread, answers read in order."""

    def __init__(self, package: Path) -> None:
        built = ts_node.build(package)
        self.process = subprocess.Popen(
            [ts_node.node(), str(built / "dist" / "bin" / "cli.js"), "batch", "-"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        self.jobs: queue.Queue[bytes | None] = queue.Queue()
        self.writer = threading.Thread(target=self._write, daemon=True)
        self.writer.start()

    def _write(self) -> None:
        assert self.process.stdin is not None
        while True:
            line = self.jobs.get()
            if line is None:
                break
            try:
                self.process.stdin.write(line)
                self.process.stdin.flush()
            except (BrokenPipeError, OSError):
                break

    def send(self, jobs: list[dict[str, Any]]) -> None:
        self.jobs.put(b"".join(json.dumps(j).encode() + b"\n" for j in jobs))

    def answer(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            self.process.wait(timeout=10)
            err = self.process.stderr.read().decode("utf-8", "replace") if self.process.stderr else ""
            raise RuntimeError(f"node exited {self.process.returncode}: {err[-2000:]}")
        # JSON Lines split at LF only (a message may hold U+2028)
        answer: dict[str, Any] = json.loads(line)
        return answer

    def peak_rss_kb(self) -> int:
        """The Node process's peak resident set so far (VmHWM), 0 where /proc cannot say."""
        try:
            status = Path(f"/proc/{self.process.pid}/status").read_text()
        except OSError:
            return 0
        return next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")), 0)

    def close(self) -> None:
        self.jobs.put(None)
        self.writer.join(timeout=10)
        if self.process.stdin is not None:
            try:
                self.process.stdin.close()
            except OSError:
                pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


# -- the Python side ----------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """A report as the command line prints it and reads back (JSON values only)."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


class Reference:
    """The Python package's answers, in process."""

    def __init__(self, package: str) -> None:
        self.package = importlib.import_module(package)
        self.codec = self.package.codec_json
        self.replay_module = importlib.import_module(f"{package}.replay") if importlib.util.find_spec(f"{package}.replay") else None

    def answer(self, job: dict[str, Any], data: bytes) -> dict[str, Any]:
        if job["op"] == "replay":
            assert self.replay_module is not None
            capped = {"max_findings": job["max_findings"]} if "max_findings" in job else {}
            report = self.replay_module.replay(data, fmt=job["format"], after=job["after"], **capped)
            return _plain(report)
        errors: list[Any] = []
        warnings: list[Any] = []
        omitted: dict[str, int] | None = None  # past the error cap: how many were not listed
        dropped = False  # lenient: the document stripped whole, as the command line says it
        definition = job.get("definition", self.codec.ROOT)
        try:
            if job["lenient"]:
                decoded = self.codec.decode_lenient(data, definition)
                warnings = list(decoded.warnings)
                dropped = decoded.dropped
                if getattr(decoded, "omitted", 0):
                    omitted = {"errors": 0, "warnings": decoded.omitted}
            else:
                self.codec.decode(data, definition)
        except self.package.DecodeError as exc:
            errors = list(exc.errors)
            # a lenient decode that failed: what it had stripped, as the command line lists it
            warnings = list(getattr(exc, "warnings", ()))
            more = getattr(exc, "warnings_omitted", 0)
            if getattr(exc, "count", len(errors)) > len(errors) or more:
                omitted = {"errors": exc.count - len(errors), "warnings": more}
        answer: dict[str, Any] = {"valid": not errors, "errors": [e.as_dict() for e in errors], "warnings": [w.as_dict() for w in warnings]}
        if omitted is not None:
            answer["omitted"] = omitted
        if dropped:
            answer["dropped"] = True
        return _plain(answer)


# -- inputs -------------------------------------------------------------------------------------

# code points whose printability differs between Unicode versions or that printers treat
# specially: recently assigned ones (CJK extensions G-I, symbols of Unicode 14-16), unassigned
# ones, format and separator characters, private use, the non-characters
CODE_POINTS = [
    0x85, 0xA0, 0xAD, 0x34F, 0x61C, 0x890, 0x1680, 0x180E, 0x200B, 0x200D, 0x2028, 0x2029, 0x2060,
    0x2066, 0x3000, 0xD7FF, 0xE000, 0xFDD0, 0xFEFF, 0xFFF9, 0xFFFD, 0xFFFE, 0x10FFFF, 0x1F600,
    0x1FAE8, 0x1FAF8, 0x1FB00, 0x1BC9D, 0x1D173, 0x2B739, 0x2B81D, 0x2EBF0, 0x31350, 0x323AF,
    0x2EE5D, 0xE0001, 0xE0100, 0xF0000, 0x100000, 0x16FE4, 0x11F00, 0x13430, 0x13455, 0x0378,
    0x05C8, 0x1E030, 0x1E4D0, 0x0B55, 0x1D2C0, 0x10EFD, 0x11241,
]
UNKNOWN_MEMBERS = ["0", "1", "10", "4294967294", "4294967295", "01", "-1", "__proto__", "constructor", "é", "\U0001f600", "a b"]
ODD_STRINGS = ["tool", "narrator", "", "USER", "__proto__", "toString", "x" * 3, "\u00e9", "\U0002b739", "\u0085", "\u2028"]
NUMBERS: list[Any] = [1.0, 2.0e3, -0.0, 0, -1, 2**53, 2**53 + 1, 2**63, 1.5, 1e16, 1e-7, 10**903, -(10**904), 10**904 + 7, 10**905]


def _objects(value: Any, found: list[Any]) -> None:
    if isinstance(value, dict):
        found.append(value)
        for v in value.values():
            _objects(v, found)
    elif isinstance(value, list):
        for v in value:
            _objects(v, found)


def _slots(value: Any, found: list[tuple[Any, Any]]) -> None:
    """(container, key) of every value below `value`."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        found.append((value, k))
        _slots(v, found)


# the member that names what a document is, and names to put there: known ones, retired ones,
# unknown ones (per spec: the one place the fuzzer knows the protocols' words)
TAGS: dict[str, tuple[str, list[str]]] = {
    "agui": ("type", ["THINKING_START", "THINKING_TEXT_MESSAGE_CONTENT", "THINKING_END", "X_UNKNOWN", "RUN_STARTED", "TEXT_MESSAGE_CHUNK"]),
    "harness-runtime": ("type", ["run.unknown", "provider.event", "run.started", "checkpoint.created"]),
    "mcp": ("method", ["tools/call", "initialize", "notifications/unknown", "x/unknown", "", "ping"]),
}
TAGS["mcp-2026-07-28"] = TAGS["mcp"]


def mutate_values(events: list[Any], rng: random.Random, spec: str = "agui") -> list[Any]:
    """One change to the events as values: a member with an array-index or prototype name, a
    string of odd code points, an unknown enum member or type, a retired type, a number that
    binds differently, an event delivered again (changed or reordered)."""
    events = json.loads(json.dumps(events))
    if not events:
        return events
    kind = rng.randrange(8)
    objects: list[Any] = []
    _objects(events, objects)
    slots: list[tuple[Any, Any]] = []
    _slots(events, slots)
    if kind == 0 and objects:
        target = rng.choice(objects)
        members = list(target.items())
        members.insert(rng.randrange(len(members) + 1), (rng.choice(UNKNOWN_MEMBERS), rng.choice([1, "x", {"b": 1}, [2], None])))
        target.clear()
        target.update(members)
    elif kind == 1 and slots:
        strings = [(c, k) for c, k in slots if isinstance(c[k], str)] or slots
        c, k = rng.choice(strings)
        c[k] = "".join(chr(rng.choice(CODE_POINTS)) if rng.random() < 0.5 else rng.choice("ab'\"\\\n") for _ in range(rng.randrange(1, 6)))
    elif kind == 2 and slots:
        strings = [(c, k) for c, k in slots if isinstance(c[k], str)] or slots
        c, k = rng.choice(strings)
        c[k] = rng.choice(ODD_STRINGS)
    elif kind == 3:
        event = rng.choice(events)
        if _entry(event) and rng.random() < 0.3:  # a transcript's sender: a party, the other, none
            event["from"] = rng.choice(["client", "server", "proxy", "", None])
        elif _entry(event) and isinstance(event["message"], dict):
            event = event["message"]
        if isinstance(event, dict):
            tag, names = TAGS[spec]
            event[tag] = rng.choice(names)
            if rng.random() < 0.5:
                event["__proto__"] = {"polluted": 1}
    elif kind == 4 and slots:
        numbers = [(c, k) for c, k in slots if isinstance(c[k], (int, float)) and not isinstance(c[k], bool)] or slots
        c, k = rng.choice(numbers)
        c[k] = rng.choice(NUMBERS)
    elif kind == 5:
        i = rng.randrange(len(events))
        again = json.loads(json.dumps(events[i]))
        if isinstance(again, dict) and again:
            members = list(again.items())
            rng.shuffle(members)
            again = dict(members)
            if rng.random() < 0.5 and "data" in again:
                again["data"] = {"changed": True}
        events.insert(rng.randrange(i, len(events)) + 1, again)
    elif kind == 6 and objects:
        target = rng.choice(objects)
        members = list(target.items())
        rng.shuffle(members)
        target.clear()
        target.update(members)
    elif slots:
        c, k = rng.choice(slots)
        c[k] = rng.choice([None, True, "x", [], {}, [[[[1]]]], {"0": {"1": 2}}])
    return events


def mutate_big(events: list[Any], rng: random.Random) -> list[Any]:
    """One change that takes an input past the caps of docs/limits.md, where two bindings can
    count or cut differently: a member holding 90-260 wrong items or an object 90-260 unknown
    members (past the error cap of 100), a text of 150-450 code points, astral ones among them
    (past the 200 a finding quotes), or an event again 21-60 times with its text members made
    distinct (past the 20 ids a finding lists: open streams, repeated ids)."""
    events = json.loads(json.dumps(events))
    if not events:
        return events
    kind = rng.randrange(4)
    objects: list[Any] = []
    _objects(events, objects)
    slots: list[tuple[Any, Any]] = []
    _slots(events, slots)
    n = rng.randrange(90, 261)
    if kind == 0 and slots:
        c, k = rng.choice(slots)
        c[k] = [rng.choice([None, 1.5, "x", {}, [], True, {"zz": 1}])] * n
    elif kind == 1 and objects:
        target = rng.choice(objects)
        for i in range(n):
            target[f"z{i}"] = rng.choice([1, "x", None])
    elif kind == 2 and slots:
        strings = [(c, k) for c, k in slots if isinstance(c[k], str)] or slots
        c, k = rng.choice(strings)
        c[k] = "".join(chr(rng.choice(CODE_POINTS)) if rng.random() < 0.3 else rng.choice("abc'\\\"") for _ in range(rng.randrange(150, 451)))
    else:
        i = rng.randrange(len(events))
        copies = []
        for j in range(rng.randrange(21, 61)):
            again = json.loads(json.dumps(events[i]))
            found: list[tuple[Any, Any]] = []
            _slots(again, found)
            for c, k in found:
                if isinstance(c[k], str) and k not in ("type", "method", "from", "jsonrpc"):
                    c[k] = f"{c[k]}-{j}"
            copies.append(again)
        events[i + 1 : i + 1] = copies
    return events


def frame(events: list[Any], rng: random.Random) -> bytes:
    """Events as one of the formats `replay` reads."""
    kind = rng.randrange(7)
    dumps = (lambda v: json.dumps(v, ensure_ascii=rng.random() < 0.3)) if rng.random() < 0.5 else (lambda v: json.dumps(v, ensure_ascii=False, separators=(",", ":")))
    if kind <= 2:
        return "\n".join(dumps(e) for e in events).encode("utf-8", "surrogatepass") + b"\n"
    if kind == 3:
        return "".join(f"data: {dumps(e)}\n\n" for e in events).encode("utf-8", "surrogatepass")
    if kind == 4:
        return json.dumps(events, indent=rng.choice([None, 1]), ensure_ascii=False).encode("utf-8", "surrogatepass")
    if kind == 5:
        return json.dumps({"name": "case", "stream": events, "expect": {"outcome": "completed"}}, ensure_ascii=False).encode("utf-8", "surrogatepass")
    return dumps(rng.choice(events) if events else {}).encode("utf-8", "surrogatepass")


def streams_of(spec: str) -> list[list[Any]]:
    """A spec's own streams: its conformance streams and rule examples, its recorded sessions
    (samples/*.jsonl) and its example documents. A spec of two parties replays transcripts
    (`{"from", "message"}` lines, as its rule examples and sessions are written); one without
    rules validates messages, so its sessions' lines are their messages."""
    found = spec_streams().get(spec)
    if found is not None:
        return [s for s in found if s]
    folder = REPO / "spec" / spec
    whole = replays(spec)
    out: list[list[Any]] = []
    if (folder / "rule-examples.json").is_file():
        examples = json.loads((folder / "rule-examples.json").read_text(encoding="utf-8"))
        for rule in sorted(examples):
            for kind in ("violates", "satisfies"):
                out += [e["stream"] for e in examples[rule].get(kind, []) if "stream" in e]
    for path in sorted((folder / "samples").glob("*.jsonl")):
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        out.append(lines if whole else [m["message"] if _entry(m) else m for m in lines])
    out += [[json.loads(p.read_text(encoding="utf-8"))] for p in sorted((folder / "examples").glob("*/*.json"))]
    return [s for s in out if s]


def _entry(line: Any) -> bool:
    """Whether a line is a transcript's entry: {"from": PARTY, "message": MESSAGE}."""
    return isinstance(line, dict) and "from" in line and "message" in line


def inputs(spec: str, seed: int, big: float = 0.0) -> Iterator[tuple[bytes, str | None]]:
    """Inputs for one spec, forever, from a seed (the same sequence for the same seed and `big`):
    each its bytes and the definition to validate it as (None: the root). For a spec with rules,
    mostly streams; for one without, mostly single documents. `big`: how often an input is also
    taken past the caps (`mutate_big`); at 0 the sequence is the one earlier runs recorded."""
    rng = random.Random(seed)
    streams = streams_of(spec)
    package = importlib.import_module(f"{SPECS[spec][0]}.docgen")
    documents = package.Documents(package.RandomSource(rng))
    names = sorted(package.DEFINITIONS)
    whole = replays(spec)
    while True:
        definition: str | None = None
        if rng.random() < (0.15 if whole else 0.5):  # one document of any definition
            definition = rng.choice(names)
            try:
                events = [documents.document(definition)]
            except (ValueError, RecursionError):  # a definition with no finite instance
                continue
            if rng.random() < 0.2:
                definition = None
        else:
            events = list(rng.choice(streams))
            if rng.random() < (0.3 if whole else 0.8):  # a piece of a stream
                i = rng.randrange(len(events))
                events = events[i : i + rng.randrange(1, 6 if whole else 2)]
        for _ in range(rng.choice([0, 1, 1, 2, 3])):
            events = mutate_values(events, rng, spec)
        if big and rng.random() < big:
            events = mutate_big(events, rng)
        data = frame(events, rng) if definition is None else frame_one(events, rng)
        if rng.random() < 0.5:
            data = mutate_bytes(data, rng)
        yield data, definition


def frame_one(events: list[Any], rng: random.Random) -> bytes:
    """A generated document (the first of `events`: a mutation may have added one) as one JSON
    text, compact or not."""
    value = events[0] if events else {}
    text = json.dumps(value, ensure_ascii=rng.random() < 0.3, indent=rng.choice([None, None, 1]))
    return text.encode("utf-8", "surrogatepass")


def jobs_for(spec: str, n: int, rng: random.Random, definition: str | None = None, capped: float = 0.0) -> list[dict[str, Any]]:
    """The jobs of the n-th input: replay where the spec has rules (the format sniffed, or one
    forced; for a spec with a replay cursor, sometimes after one; `capped`: how often with a
    findings cap of 0-5, so that what is only counted past it is compared too) and validate,
    strict and lenient (as `definition`, or the root)."""
    jobs = []
    if replays(spec):
        fmt = "auto" if rng.random() < 0.7 else rng.choice(["jsonl", "sse", "json"])
        after = rng.choice([None, None, None, 0, 1, 3]) if spec == "harness-runtime" else None
        cap = {"max_findings": rng.randrange(6)} if capped and rng.random() < capped else {}
        jobs.append({"id": f"{n}:replay", "op": "replay", "format": fmt, "after": after, **cap})
    named = {} if definition is None else {"definition": definition}
    jobs.append({"id": f"{n}:strict", "op": "validate", "lenient": False, **named})
    jobs.append({"id": f"{n}:lenient", "op": "validate", "lenient": True, **named})
    return jobs


# -- the run ------------------------------------------------------------------------------------


@dataclass
class Stats:
    inputs: int = 0
    answers: int = 0
    disagreements: int = 0
    crashes: int = 0
    seconds: float = 0.0
    python_rss_kb: int = 0  # peak resident set of this process (all specs run in it so far)
    node_rss_kb: int = 0  # peak resident set of the Node process
    first: list[dict[str, Any]] = field(default_factory=list)  # the first few, for the report


def run(spec: str, runs: int, seed: int, out: Path | None = None, batch: int = 200, keep: int = 5,
        budget: float | None = None, on_batch: Callable[[Stats], None] | None = None, big: float = 0.0, capped: float = 0.0) -> Stats:
    """`runs` inputs of one spec through both bindings (or until `budget` seconds passed)."""
    python, typescript = SPECS[spec]
    reference = Reference(python)
    peer = Peer(REPO / "generated" / typescript)
    stats = Stats()
    started = time.monotonic()
    rng = random.Random(seed * 7919 + 1)
    source = inputs(spec, seed, big)
    try:
        while stats.inputs < runs and (budget is None or time.monotonic() - started < budget):
            block = []
            for n in range(stats.inputs, min(runs, stats.inputs + batch)):
                data, definition = next(source)
                block.append((n, data, jobs_for(spec, n, rng, definition, capped)))
            peer.send([{**j, "data": base64.b64encode(data).decode()} for _, data, js in block for j in js])
            for n, data, js in block:
                mine: dict[str, Any] = {}
                for job in js:
                    try:
                        mine[job["id"]] = reference.answer(job, data)
                    except Exception as exc:  # noqa: BLE001 - a crash is what we look for
                        mine[job["id"]] = {"crash": f"{type(exc).__name__}: {exc}"}
                        stats.crashes += 1
                for job in js:
                    theirs = peer.answer()
                    key = theirs.pop("id", None)
                    stats.answers += 1
                    if key != job["id"] or theirs != mine[job["id"]]:
                        stats.disagreements += 1
                        _record(stats, out, spec, n, data, job, mine[job["id"]], theirs, keep)
                stats.inputs += 1
            stats.node_rss_kb = max(stats.node_rss_kb, peer.peak_rss_kb())
            if on_batch is not None:
                on_batch(stats)
    except RuntimeError as exc:  # node died: a crash of the TypeScript side
        stats.crashes += 1
        stats.first.append({"spec": spec, "input": stats.inputs, "node": str(exc)})
    finally:
        stats.node_rss_kb = max(stats.node_rss_kb, peer.peak_rss_kb())
        peer.close()
        stats.seconds = time.monotonic() - started
        stats.python_rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return stats


def _record(stats: Stats, out: Path | None, spec: str, n: int, data: bytes, job: dict[str, Any],
            mine: dict[str, Any], theirs: dict[str, Any], keep: int) -> None:
    entry = {"spec": spec, "input": n, "job": job, "python": mine, "typescript": theirs}
    if len(stats.first) < keep:
        stats.first.append({**entry, "data": data[:2000].decode("utf-8", "backslashreplace")})
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / f"{spec}-{n}.bin").write_bytes(data)
        with (out / f"{spec}-{n}.json").open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry, ensure_ascii=False) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spec", choices=[*SPECS, "all"], default="all")
    parser.add_argument("--runs", type=int, default=10_000, help="inputs per spec")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="where to write each disagreeing input")
    parser.add_argument("--progress", type=float, default=30.0, help="seconds between progress lines")
    parser.add_argument("--big", type=float, default=0.0, help="how often an input is taken past the caps (0-1; default 0)")
    parser.add_argument("--capped", type=float, default=0.0, help="how often a replay has a findings cap of 0-5 (0-1; default 0)")
    args = parser.parse_args()
    failed = False
    for spec in SPECS if args.spec == "all" else [args.spec]:
        ticks = [time.monotonic() + args.progress]

        def progress(stats: Stats, spec: str = spec, ticks: list[float] = ticks) -> None:
            if time.monotonic() >= ticks[0]:
                ticks[0] = time.monotonic() + args.progress
                print(f"  {spec}: {stats.inputs:,} inputs, {stats.disagreements:,} disagreements, {stats.crashes:,} crashes", file=sys.stderr, flush=True)

        stats = run(spec, args.runs, args.seed, args.out, on_batch=progress, big=args.big, capped=args.capped)
        print(f"{spec}: {stats.inputs:,} inputs ({stats.answers:,} answers compared), {stats.disagreements:,} disagreements, "
              f"{stats.crashes:,} crashes, {stats.seconds:.1f} s ({stats.inputs / max(stats.seconds, 1e-9):,.0f} inputs/s), seed {args.seed}, "
              f"peak RSS python {stats.python_rss_kb / 1024:.0f} MB, node {stats.node_rss_kb / 1024:.0f} MB", flush=True)
        for entry in stats.first:
            print(json.dumps(entry, ensure_ascii=False)[:3000])
        failed |= bool(stats.disagreements or stats.crashes)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
