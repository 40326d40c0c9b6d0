"""Generated schemas, differentially checked, for as long as you like (issue 23).

    python fuzz/schemas.py --examples 200 --seed 1 [--batch 8] [--seeds 4] [--no-typescript] [--out DIR]

Draws `--examples` schemas (tests/schema_draws.py's hypothesis strategy, seeded), `--batch` of
them per generated package, and runs every check of `schema_draws.check_batch`: init against
generate, Python strict decoding against jsonschema, the TypeScript binding against Python, the
round trip of valid documents. Prints progress per batch and, for each finding, the schema alone
(as drawn, its own definition names) and the document, made smaller while it still disagrees
(Python-side findings: the document's members and items dropped one at a time). Exit 0 when
nothing was found, 1 otherwise. `tests/test_generated_schemas.py` is the bounded run CI does."""

from __future__ import annotations

import argparse
import json
import os
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
        except RecursionError:
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seeds", type=int, default=4, help="documents and mutants of each definition from the package's strategies")
    parser.add_argument("--no-typescript", action="store_true")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="schema-fuzz-"))
    started = time.monotonic()
    drawn = sd.draw_schemas(args.examples, args.seed)
    print(f"{len(drawn)} schemas drawn (seed {args.seed}) in {time.monotonic() - started:.1f}s; work in {out}; load {os.getloadavg()[0]:.2f}", flush=True)
    found = 0
    shown: set[tuple[str, str]] = set()
    totals = {"schemas": 0, "refused": 0, "documents": 0, "accepted": 0}
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
            if finding.document is not None:
                print("document:", json.dumps(document, ensure_ascii=False))
            print(finding.detail[-2500:], flush=True)
    print(f"done: {totals} in {time.monotonic() - started:.0f}s, {found} findings", flush=True)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
