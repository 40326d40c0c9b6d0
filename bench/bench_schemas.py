"""specbind against datamodel-code-generator on public agent-protocol schemas (tests/data/schemas).

For each schema: `specbind init` + `generate` (strict codec), and datamodel-code-generator's
pydantic v2 models from the same file. Both judge every document specbind derives from the
schema's constraints (tests/cases.json of the generated package: valid and invalid, one per
constraint and branch), and jsonschema (the schema's own draft) is the reference. Printed per
schema: agreement, false accepts, false rejects, and the validation speed of each (documents per
second over the same documents, best of 5 rounds), jsonschema's as the floor.

    .venv/bin/python bench/bench_schemas.py            # needs the bench extra
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SCHEMAS = REPO / "tests" / "data" / "schemas"
BIN = Path(sys.executable).parent


def _specbind(schema: Path, name: str, work: Path) -> tuple[Any, list[dict[str, Any]], Any]:
    spec_root = work / "spec"
    out = work / "out"
    subprocess.run([str(BIN / "specbind"), "init", str(schema), "--name", name, "--spec-dir", str(spec_root)], check=True, capture_output=True)
    subprocess.run([str(BIN / "specbind"), "generate", "--spec", str(spec_root / name), "--out", str(out)], check=True, capture_output=True)
    package = name.replace("-", "_")
    sys.path.insert(0, str(out))
    codec = importlib.import_module(f"{package}.codec_json")
    support = importlib.import_module(f"{package}.tests.support")
    cases = json.loads((out / package / "tests" / "cases.json").read_text(encoding="utf-8"))["cases"]
    return codec, cases, support


def _datamodel(schema: Path, name: str, work: Path) -> Any:
    target = work / f"dmcg_{name.replace('-', '_')}.py"
    subprocess.run(
        [
            str(BIN / "datamodel-codegen"), "--input", str(schema), "--input-file-type", "jsonschema", "--output", str(target),
            "--output-model-type", "pydantic_v2.BaseModel", "--disable-timestamp",
        ],
        check=True,
        capture_output=True,
    )
    sys.path.insert(0, str(work))
    return importlib.import_module(target.stem)


def _dm_model(module: Any, definition: str, root: str | None) -> Any:
    """The pydantic class datamodel-code-generator made for a definition, or None."""
    import re

    candidates = [definition, re.sub(r"[^0-9A-Za-z_]", "_", definition), definition[:1].upper() + definition[1:]]
    if definition == root:
        candidates += ["Model"]
    for c in candidates:
        found = getattr(module, c, None)
        if isinstance(found, type) and hasattr(found, "model_validate_json"):
            return found
    return None


def _rate(fn: Any, docs: list[bytes]) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for d in docs:
            fn(d)
        best = min(best, time.perf_counter() - start)
    return len(docs) / best if best > 0 else float("inf")


def bench(schema: Path, name: str) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="bench_schemas_"))
    codec, cases, support = _specbind(schema, name, work)
    module = _datamodel(schema, name, work)
    root = codec.ROOT
    rows = {"specbind": [0, 0, 0, 0], "datamodel-code-generator": [0, 0, 0, 0]}  # agree, false accept, false reject, judged
    ours_docs: list[tuple[Any, bytes]] = []
    theirs_docs: list[tuple[Any, bytes]] = []
    floor_docs: list[tuple[Any, Any]] = []
    for case in cases:
        data = json.dumps(case["document"]).encode()
        reference = support.reference_validator(case["definition"])
        truth = reference.is_valid(case["document"])
        ours = codec.decoder(case["definition"]).accepts(data)
        r = rows["specbind"]
        r[3] += 1
        r[0] += ours == truth
        r[1] += ours and not truth
        r[2] += truth and not ours
        ours_docs.append((codec.decoder(case["definition"]).accepts, data))
        floor_docs.append((reference.is_valid, case["document"]))
        model = _dm_model(module, case["definition"], root)
        if model is None:
            continue
        try:
            model.model_validate_json(data)
            theirs = True
        except Exception:  # noqa: BLE001 - pydantic's ValidationError, or any refusal
            theirs = False
        r = rows["datamodel-code-generator"]
        r[3] += 1
        r[0] += theirs == truth
        r[1] += theirs and not truth
        r[2] += truth and not theirs
        theirs_docs.append((model.model_validate_json, data))

    def run_all(pairs: list[tuple[Any, Any]]) -> Any:
        def go(_: Any) -> None:
            for fn, d in pairs:
                try:
                    fn(d)
                except Exception:  # noqa: BLE001
                    pass

        return go

    speed = {
        "specbind": _rate(run_all(ours_docs), [b""]) * len(ours_docs),
        "datamodel-code-generator": _rate(run_all(theirs_docs), [b""]) * len(theirs_docs) if theirs_docs else 0.0,
        "jsonschema": _rate(run_all(floor_docs), [b""]) * len(floor_docs),
    }
    return {"schema": schema.name, "cases": len(cases), "rows": rows, "speed": speed}


def main() -> None:
    results = [bench(SCHEMAS / f, f.split(".")[0]) for f in ("agent-client-protocol.schema.json", "a2a-task-progress.schema.json", "mcp-2024-11-05.schema.json")]
    print("| schema | tool | judged | agree | false accepts | false rejects | docs/s |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for res in results:
        for tool, (agree, fa, fr, judged) in res["rows"].items():
            pct = 100 * agree / judged if judged else 0.0
            print(f"| {res['schema']} | {tool} | {judged} | {agree} ({pct:.2f}%) | {fa} | {fr} | {res['speed'][tool]:,.0f} |")
        print(f"| {res['schema']} | jsonschema (reference) | {res['cases']} | - | - | - | {res['speed']['jsonschema']:,.0f} |")


if __name__ == "__main__":
    main()
