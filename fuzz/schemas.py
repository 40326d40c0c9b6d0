"""Generated schemas, differentially checked, for as long as you like (issue 23).

    python fuzz/schemas.py --examples 200 --seed 1 [--batch 8] [--seeds 4] [--no-typescript] [--out DIR]

Draws `--examples` schemas (tests/schema_draws.py's hypothesis strategy, seeded), `--batch` of
them per generated package, and runs every check of `schema_draws.check_batch`: init against
generate, Python strict decoding against jsonschema, the TypeScript binding against Python, the
round trip of valid documents. Prints progress per batch and, for each finding, the schema alone
(as drawn, its own definition names), the schema made smaller while the same kind of finding
still shows on it (definitions, keywords, union members dropped, subschemas made `true`; each
candidate checked alone, `--shrink-seconds` per finding) and the document, made smaller while
it still disagrees (Python-side findings: the document's members and items dropped one at a
time). Exit 0 when
nothing was found, 1 otherwise. `tests/test_generated_schemas.py` is the bounded run CI does."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import schema_draws as sd  # noqa: E402


def smaller(document: Any) -> list[Any]:
    """Documents one step smaller: a member or item dropped, a container emptied."""
    out: list[Any] = []
    if isinstance(document, dict):
        for key in document:
            out.append({k: v for k, v in document.items() if k != key})
        for key, value in document.items():
            out += [{**document, key: v} for v in smaller(value)]
    elif isinstance(document, list):
        for i in range(len(document)):
            out.append(document[:i] + document[i + 1 :])
        for i, value in enumerate(document):
            out += [document[:i] + [v] + document[i + 1 :] for v in smaller(value)]
    return out


def minimize(finding: sd.Finding, package: str, draft: str) -> Any:
    """The smallest document (greedily) on which Python and jsonschema still disagree."""
    import importlib

    if finding.kind != "reference" or finding.definition is None:
        return finding.document
    module = importlib.import_module(package)
    codec = importlib.import_module(f"{package}.codec_json")
    reference = sd._reference(package, draft)

    def disagrees(document: Any) -> bool:
        data = json.dumps(document, ensure_ascii=False).encode("utf-8")
        try:
            codec.decode(data, finding.definition)
            mine = True
        except module.DecodeError:
            mine = False
        except Exception:  # noqa: BLE001
            return False
        try:
            return mine != reference(finding.definition, document)
        except (RecursionError, sd.NoReference, sd.Unresolvable):
            return False

    document = finding.document
    progress = True
    while progress:
        progress = False
        for candidate in smaller(document):
            if disagrees(candidate):
                document, progress = candidate, True
                break
    return document


def schema_steps(schema: Any) -> list[Any]:
    """Schemas one step smaller: a definition dropped, a keyword dropped, a union's member or a
    list's item dropped, a subschema made `true` (the `$schema` and the definitions' folder kept)."""
    out: list[Any] = []

    def walk(node: Any, rebuild: Any, top: bool) -> None:
        if isinstance(node, dict):
            for key in node:
                if top and key in ("$schema", "definitions", "$defs"):
                    continue
                out.append(rebuild({k: v for k, v in node.items() if k != key}))
            for key, value in node.items():
                if top and key == "$schema":
                    continue
                if isinstance(value, dict) and value and not (top and key in ("definitions", "$defs")):
                    out.append(rebuild({**node, key: True}))
                walk(value, lambda v, key=key: rebuild({**node, key: v}), top=False)
        elif isinstance(node, list):
            for i in range(len(node)):
                if len(node) > 1:
                    out.append(rebuild(node[:i] + node[i + 1 :]))
            for i, value in enumerate(node):
                walk(value, lambda v, i=i: rebuild(node[:i] + [v] + node[i + 1 :]), top=False)

    folder = "definitions" if "definitions" in schema else "$defs"
    out += [{**schema, folder: {k: v for k, v in schema[folder].items() if k != name}} for name in schema[folder] if len(schema[folder]) > 1]
    walk(schema, lambda v: v, top=True)
    return out


def shrink_schema(finding: sd.Finding, document: Any, out: Path, seconds: float) -> Any:
    """The smallest schema (greedily, within `seconds`) on which the same kind of finding shows,
    with the same definition and document: each candidate goes through the whole check alone."""
    schema = finding.schema
    if not isinstance(schema, dict) or "batch" in schema or seconds <= 0:
        return schema
    definition = finding.definition.split("_", 1)[1] if finding.definition and "_" in finding.definition else finding.definition
    typescript = finding.kind.startswith("typescript")
    deadline = time.monotonic() + seconds
    n = 0

    def shows(candidate: Any) -> bool:
        nonlocal n
        n += 1
        folder = "definitions" if "definitions" in candidate else "$defs"
        if definition is not None and definition not in candidate.get(folder, {}) and not (definition == sd.ROOT and sd.root_of(candidate)):
            return False
        extra = [(0, definition, document)] if definition is not None and finding.document is not None else []
        try:
            report = sd.check_batch([candidate], out / f"shrink{n}", f"shrink{os.getpid()}_{n}", seeds=1, typescript=typescript, extra=extra)
        except Exception:  # noqa: BLE001 - a candidate the harness cannot run shows nothing
            return False
        finally:
            shutil.rmtree(out / f"shrink{n}", ignore_errors=True)
        return any(f.kind == finding.kind and (f.document is None or f.document == document or finding.document is None) for f in report.findings)

    progress = True
    while progress and time.monotonic() < deadline:
        progress = False
        for candidate in schema_steps(schema):
            if time.monotonic() >= deadline:
                break
            if shows(candidate):
                schema, progress = candidate, True
                break
    return schema


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seeds", type=int, default=4, help="documents and mutants of each definition from the package's strategies")
    parser.add_argument("--no-typescript", action="store_true")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--shrink-seconds", type=float, default=120, help="time to make each finding's schema smaller (0: print it as drawn)")
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="schema-fuzz-"))
    started = time.monotonic()
    drawn = sd.draw_schemas(args.examples, args.seed)
    print(f"{len(drawn)} schemas drawn (seed {args.seed}) in {time.monotonic() - started:.1f}s; work in {out}; load {os.getloadavg()[0]:.2f}", flush=True)
    found = 0
    shown: set[tuple[str, str]] = set()
    totals = {"schemas": 0, "refused": 0, "documents": 0, "accepted": 0, "unjudged": 0}
    for b in range(0, len(drawn), args.batch):
        batch = drawn[b : b + args.batch]
        tag = f"fz{args.seed}_{b // args.batch}"
        t0 = time.monotonic()
        report = sd.check_batch(batch, out / tag, tag, seeds=args.seeds, typescript=not args.no_typescript, rnd_seed=args.seed * 100003 + b)
        for k in totals:
            totals[k] += getattr(report, k)
        print(
            f"batch {b // args.batch}: {report.schemas} schemas ({report.refused} refused by init), {report.documents} documents "
            f"({report.accepted} valid), typescript: {report.typescript}, {len(report.findings)} findings, {time.monotonic() - t0:.1f}s",
            flush=True,
        )
        for finding in report.findings:
            found += 1
            key = (finding.kind, json.dumps(finding.schema, sort_keys=True))
            if key in shown:  # the same schema failing the same way on another document
                continue
            shown.add(key)
            draft = finding.schema.get("$schema", "") if isinstance(finding.schema, dict) else ""
            document = minimize(finding, finding.package, draft) if finding.kind == "reference" and finding.package else finding.document
            definition = finding.definition
            if definition and definition.startswith("s") and "_" in definition:
                definition = definition.split("_", 1)[1]
            print(f"--- FINDING {finding.kind} (definition {definition!r})", flush=True)
            print("schema:", json.dumps(finding.schema, ensure_ascii=False))
            smallest = shrink_schema(finding, document, out / "shrink", args.shrink_seconds)
            if smallest != finding.schema:
                print("schema made smaller:", json.dumps(smallest, ensure_ascii=False))
            if finding.document is not None:
                print("document:", json.dumps(document, ensure_ascii=False))
            print(finding.detail[-2500:], flush=True)
    print(f"done: {totals} in {time.monotonic() - started:.0f}s, {found} findings", flush=True)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
