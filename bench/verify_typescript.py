"""The full-size agreement run between the Python and TypeScript bindings (the make-test one,
tests/test_typescript.py, runs the same corpus with 1,000 mutants): gen_corpus.py's 10,000 runs
judged whole, the corpus broken on purpose, and one mutant stream per run of the corpus (10,000),
every report compared field by field; then every fixture, derived case, rule example and
conformance stream of both specs.

    python bench/verify_typescript.py [--runs 10000] [--mutants 10000]

Prints the counts and exits 1 on any difference."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))

import typescript_agreement as agree  # noqa: E402
from generator.render import cache_dir  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10000)
    ap.add_argument("--mutants", type=int, default=10000)
    args = ap.parse_args()
    folder = cache_dir() / "corpus"
    folder.mkdir(parents=True, exist_ok=True)
    summary: dict[str, object] = {}
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        corpus = agree.corpus(args.runs, folder)
        streams: list[tuple[str, bytes | Path]] = [("corpus", corpus), ("broken corpus", agree.broken_copy(corpus, work / "broken.jsonl"))]
        streams += agree.mutants(corpus, args.mutants)
        result = agree.compare_streams("agui", streams, work)
        summary["corpus and mutants"] = {k: (len(v) if k == "differences" else v) for k, v in result.items()}
        failed |= bool(result["differences"])
        for spec in sorted(agree.SPECS):
            docs = agree.compare_documents(spec, work)
            examples = agree.compare_streams(spec, list(agree.stream_examples(spec)), work)  # type: ignore[arg-type]
            summary[f"{spec} documents"] = {k: (len(v) if k == "differences" else v) for k, v in docs.items()}
            summary[f"{spec} rule examples and conformance"] = {k: (len(v) if k == "differences" else v) for k, v in examples.items()}
            failed |= bool(docs["differences"] or examples["differences"])
            if docs["differences"] or examples["differences"]:
                print(json.dumps((docs["differences"] + examples["differences"])[:3], indent=1, ensure_ascii=False)[:4000])
        if result["differences"]:
            print(json.dumps(result["differences"][:3], indent=1, ensure_ascii=False)[:4000])
    print(json.dumps(summary, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
