"""The TypeScript binding against the official Node packages, on gen_corpus.py's corpus: strict
decode + validate against @ag-ui/core's zod EventSchemas, and the automaton (all 45 AG-UI rules)
against @ag-ui/client's verifyEvents (which checks event order only). One Node process, rounds
interleaved, medians (bench/bench_typescript.mjs).

    python bench/bench_typescript.py [--runs 10000] [--rounds 5]

Prints the JSON result and writes it to bench/results/typescript.json."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

import typescript_agreement as agree  # noqa: E402
from generator.render import cache_dir  # noqa: E402
from generator.targets.typescript import node as ts_node  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    folder = cache_dir() / "corpus"
    folder.mkdir(parents=True, exist_ok=True)
    corpus = agree.corpus(args.runs, folder)
    built = agree.built("agui")
    done = subprocess.run(
        [ts_node.node(), str(HERE / "bench_typescript.mjs"), str(built), str(REPO / "tests" / "node" / "node_modules"), str(corpus), str(args.rounds)],
        capture_output=True, text=True, check=True,
    )
    result = json.loads(done.stdout)
    result["corpus"] = {"runs": args.runs, "path": corpus.name}
    result["rules_checked"]["verifyEvents"] = "event order only: no rule IDs, first error only (see docs/typescript.md)"
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "typescript.json").write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
