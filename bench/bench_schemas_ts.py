"""Any schema in TypeScript: the generated TypeScript package's strict decode against ajv (the
JSON Schema validator Node users pick; installed in tests/node as a dependency of the MCP SDK),
on bench_schemas.py's schemas and documents, one Node process per schema.

For each schema of bench_schemas.CHOSEN: `specbind init` + `generate`, the TypeScript package
built with tests/node's tsc, and the same documents bench_schemas.py labels with jsonschema (the
derived cases, valid and invalid, and `--docs` generated valid documents per definition).

- **Agreement**: each tool's verdict on every document against jsonschema's label. ajv is told
  that formats are annotations (`validateFormats: false`, as jsonschema and JSON Schema have it)
  and not to refuse unknown keywords (`strict: false`).
- **Speed**: the valid documents both accept, from the text: ours `decode(text, definition)`
  (text to typed value, every constraint checked, strict), ajv `validate(JSON.parse(text))`
  (compiled once per definition, a `$ref` into the schema added once). Node process CPU time,
  rounds of ~0.25 s interleaved, the best reported (medians in the JSON).

    .venv/bin/python bench/bench_schemas_ts.py [--docs 20] [--rounds 5] [--only NAME] [--json FILE] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_schemas  # noqa: E402 - the schemas, the generation and the documents are that script's
import _peers  # noqa: E402 - bench/ is the script's own folder, first on sys.path

REPO = bench_schemas.REPO
NODE_DIR = REPO / "tests" / "node"
TSC = NODE_DIR / "node_modules" / ".bin" / "tsc"


def _documents(support: Any, strategies: Any, cases: list[dict[str, Any]], per_definition: int) -> list[tuple[str, str, bool]]:
    """bench_schemas.py's documents: the derived cases and generated ones, labelled by jsonschema."""
    labelled: dict[str, tuple[str, str, bool]] = {}
    for c in cases:
        text = json.dumps(c["document"], ensure_ascii=False)
        labelled.setdefault(f"{c['definition']}\x00{text}", (c["definition"], text, support.reference_validator(c["definition"]).is_valid(c["document"])))
    for d in sorted({c["definition"] for c in cases}):
        for seed in range(per_definition):
            try:
                doc = strategies.document(d, seed=seed)
            except Exception:  # noqa: BLE001 - the generator gives up on some definitions
                break
            text = json.dumps(doc, ensure_ascii=False)
            labelled.setdefault(f"{d}\x00{text}", (d, text, support.reference_validator(d).is_valid(doc)))
    return list(labelled.values())


def bench(schema_file: str, name: str, per_definition: int, rounds: int, keep: Path | None = None) -> dict[str, Any]:
    schema_path = bench_schemas.SCHEMAS / schema_file
    work = Path(tempfile.mkdtemp(prefix="bench_schemas_ts_")) if keep is None else keep / name
    work.mkdir(parents=True, exist_ok=True)
    try:
        codec, support, strategies, cases = bench_schemas._specbind(schema_path, name, work)
        ts_dir = work / "out" / f"{name}-ts"
        done = subprocess.run([str(TSC), "-p", str(ts_dir)], capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"tsc {ts_dir}: {done.stdout[-2000:]}{done.stderr[-2000:]}")
        reference = json.loads((Path(codec.__file__).parent / "tests" / "reference.json").read_text(encoding="utf-8"))
        documents = _documents(support, strategies, cases, per_definition)
        job = {
            "package": str(ts_dir / "dist" / "src" / "index.js"), "draft": reference["draft"],
            "schema": json.loads(schema_path.read_text(encoding="utf-8")), "pointers": reference["pointers"],
            "ajv_from": str(NODE_DIR / "package.json"), "rounds": rounds, "round_ms": 250,
            "documents": documents,
        }
        job_file = work / "job.json"
        job_file.write_text(json.dumps(job), encoding="utf-8")
        out = subprocess.run(["node", str(Path(__file__).with_suffix(".mjs")), str(job_file)], capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit(f"node {name}: {out.stderr[-3000:]}")
        result: dict[str, Any] = json.loads(out.stdout)
        result |= {"name": name, "draft": reference["draft"], "documents": len(documents), "valid": sum(1 for *_, v in documents if v)}
        return result
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=20, help="generated valid documents per definition (default 20)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", action="append", help="a spec name of bench_schemas.CHOSEN (repeatable)")
    parser.add_argument("--json", type=Path, help="write every figure as JSON")
    parser.add_argument("--keep", type=Path, help="keep each schema's package and job (job.json: `node bench/bench_schemas_ts.mjs DIR/NAME/job.json`) under DIR, to profile")
    args = parser.parse_args()
    unknown = sorted(set(args.only or ()) - {n for _, n in bench_schemas.CHOSEN})
    if unknown:
        parser.error(f"--only {', '.join(unknown)}: no such schema; choose from {', '.join(n for _, n in bench_schemas.CHOSEN)}")
    if args.keep is not None and args.keep.exists() and not args.keep.is_dir():
        parser.error(f"--keep {args.keep}: not a directory")
    _peers.require(__file__, {"jsonschema": "jsonschema"})
    if not TSC.exists() or shutil.which("node") is None:
        raise SystemExit("needs node and tests/node's packages: npm install --prefix tests/node --no-audit --no-fund")
    results = []
    for f, n in bench_schemas.CHOSEN:
        if args.only and n not in args.only:
            continue
        print(f"... {n}", file=sys.stderr, flush=True)
        results.append(bench(f, n, args.docs, args.rounds, args.keep))
    print(f"node {results[0]['node']}, ajv {results[0]['ajv']}")
    print("\n| schema (draft) | docs timed | specbind TS | ajv | specbind / ajv | agreement specbind TS | agreement ajv |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in results:
        s, a = r["speed"], r["agreement"]
        cell = lambda t: f"{a[t]['agree']:,}/{a[t]['judged']:,} ({100 * a[t]['agree'] / max(a[t]['judged'], 1):.1f}%; {a[t]['false_accepts']} FA, {a[t]['false_rejects']} FR)"  # noqa: E731
        ratio = f"{s['specbind'] / s['ajv']:.2f}x" if s["ajv"] else "n/a"
        print(f"| {r['name']} ({r['draft']}) | {r['common']:,} | {s['specbind']:,.0f} | {s['ajv']:,.0f} | **{ratio}** | {cell('specbind')} | {cell('ajv')} |")
        for line in r["ajv_refused"][:3]:
            print(f"  ajv could not compile {line}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
