"""Any schema, exact and fast: specbind against the validators a user could pick instead, on
public real-world schemas (tests/data/schemas, SOURCE.md there), in one process, one run.

For each schema: `specbind init` + `generate`, datamodel-code-generator's pydantic v2 models of
the same file, jsonschema-rs, fastjsonschema (drafts it supports: draft-07 and older) and
jsonschema (the schema's own draft: the reference, whose labels everything is judged by).

- **Agreement**, on every document specbind derives from the schema's constraints (its generated
  tests/cases.json: valid and invalid, one per constraint and branch) and on the valid documents
  below: how often each tool's verdict is jsonschema's. datamodel-code-generator judges only the
  definitions it made a class for.
- **Speed**, on valid documents only (what a service decodes all day): documents generated from
  each definition by the package's own generator (`strategies.document`, seeded), kept where
  jsonschema accepts them, plus the valid cases. Each tool starts from the bytes: specbind's
  strict `Decoder(definition).decode(data)` (bytes to typed model), pydantic's
  `model_validate_json(data)`, and `json.loads(data)` + `is_valid` (jsonschema-rs, jsonschema)
  or the compiled function (fastjsonschema). Timed in the process's CPU time (other processes
  on a shared machine do not count), rounds of about a quarter second each, interleaved, the
  best reported (the median is in the JSON); the
  documents of the definitions datamodel-code-generator has a class for are the common set every
  ratio is taken on.

    .venv/bin/python bench/bench_schemas.py [--docs 20] [--rounds 5] [--json FILE] [--only NAME]

Needs the bench extra (datamodel-code-generator, jsonschema-rs, fastjsonschema: benchmark peers,
never runtime dependencies of a generated package).
"""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable
import _peers  # noqa: E402 - bench/ is the script's own folder, first on sys.path

REPO = Path(__file__).resolve().parents[1]
SCHEMAS = REPO / "tests" / "data" / "schemas"
BIN = Path(sys.executable).parent

# (file, spec name): every real schema vendored for the generator's tests
CHOSEN = [
    ("dependabot-2.0.schema.json", "dependabot"),
    ("commitlintrc.schema.json", "commitlintrc"),
    ("agent-client-protocol.schema.json", "agent-client-protocol"),
    ("a2a-task-progress.schema.json", "a2a-task-progress"),
    ("mcp-2024-11-05.schema.json", "mcp-2024-11-05"),
]
TOOLS = ("specbind", "pydantic", "jsonschema-rs", "fastjsonschema", "jsonschema")
# import name -> distribution: the peers of the table (pyproject's bench extra)
PEERS = {"datamodel_code_generator": "datamodel-code-generator", "jsonschema_rs": "jsonschema-rs", "fastjsonschema": "fastjsonschema", "jsonschema": "jsonschema", "pydantic": "pydantic"}
ROUND_SECONDS = 0.25


def _specbind(schema: Path, name: str, work: Path) -> tuple[Any, Any, Any, list[dict[str, Any]]]:
    spec_root = work / "spec"
    out = work / "out"
    for args in (["init", str(schema), "--name", name, "--spec-dir", str(spec_root)], ["generate", "--spec", str(spec_root / name), "--out", str(out)]):
        done = subprocess.run([str(BIN / "specbind"), *args], capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"specbind {args[0]} {schema.name}: {done.stderr or done.stdout}")
    package = name.replace("-", "_")
    sys.path.insert(0, str(out))
    codec = importlib.import_module(f"{package}.codec_json")
    support = importlib.import_module(f"{package}.tests.support")
    strategies = importlib.import_module(f"{package}.strategies")
    cases = json.loads((out / package / "tests" / "cases.json").read_text(encoding="utf-8"))["cases"]
    return codec, support, strategies, cases


def _datamodel(schema: Path, name: str, work: Path) -> Any:
    target = work / f"dmcg_{name.replace('-', '_')}.py"
    subprocess.run(
        [str(BIN / "datamodel-codegen"), "--input", str(schema), "--input-file-type", "jsonschema", "--output", str(target),
         "--output-model-type", "pydantic_v2.BaseModel", "--disable-timestamp"],
        check=True,
        capture_output=True,
    )
    sys.path.insert(0, str(work))
    return importlib.import_module(target.stem)


def _dm_model(module: Any, definition: str, root: str | None, title: str | None) -> Any:
    """The pydantic class datamodel-code-generator made for a definition, or None."""
    candidates = [definition, re.sub(r"[^0-9A-Za-z_]", "_", definition), definition[:1].upper() + definition[1:],
                  "".join(w[:1].upper() + w[1:] for w in re.split(r"[^0-9A-Za-z]+", definition) if w)]
    if definition == root:
        candidates += ["Model"] + (["".join(w[:1].upper() + w[1:] for w in re.split(r"[^0-9A-Za-z]+", title) if w)] if title else [])
    for c in candidates:
        found = getattr(module, c, None)
        if isinstance(found, type) and hasattr(found, "model_validate_json"):
            return found
    return None


def _wrapper(schema: dict[str, Any], pointer: str, draft: str) -> dict[str, Any]:
    """One definition of the document as a schema of its own, for the validators that take a
    whole schema: the document embedded under its own `$id`, referenced at the definition."""
    sid = schema.get("$id") if isinstance(schema.get("$id"), str) else "urn:specbind:schema"
    embedded = {**schema, "$id": sid}
    if draft == "draft-07":
        return {"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"specbind_document": embedded}, "allOf": [{"$ref": sid + pointer}]}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": {"specbind_document": embedded}, "$ref": sid + pointer}


def _judge(fn: Callable[[bytes], Any]) -> Callable[[bytes], bool]:
    def judge(data: bytes) -> bool:
        try:
            return fn(data) is not False
        except Exception:  # noqa: BLE001 - any refusal (ValidationError, JsonSchemaException...)
            return False

    return judge


def bench(schema_file: str, name: str, docs_per_definition: int, rounds: int) -> dict[str, Any]:
    import fastjsonschema  # type: ignore[import-untyped]
    import jsonschema_rs

    schema_path = SCHEMAS / schema_file
    work = Path(tempfile.mkdtemp(prefix="bench_schemas_"))
    codec, support, strategies, cases = _specbind(schema_path, name, work)
    module = _datamodel(schema_path, name, work)
    raw = json.loads(schema_path.read_text(encoding="utf-8"))
    package_dir = Path(codec.__file__).parent
    reference_file = package_dir / "tests" / "reference.json"
    reference = json.loads(reference_file.read_text(encoding="utf-8")) if reference_file.is_file() else None
    draft = reference["draft"] if reference else "2020-12"
    pointers = reference["pointers"] if reference else {}
    definitions = sorted({c["definition"] for c in cases})
    title = raw.get("title") if isinstance(raw.get("title"), str) else None

    # every tool's verdict function, per definition (None: the tool has nothing for it)
    tools: dict[str, dict[str, Callable[[bytes], Any] | None]] = {t: {} for t in TOOLS}
    rs_failed: list[str] = []
    for d in definitions:
        decoder = codec.decoder(d)
        tools["specbind"][d] = decoder.decode
        model = _dm_model(module, d, codec.ROOT, title)
        tools["pydantic"][d] = model.model_validate_json if model is not None else None
        ref = support.reference_validator(d)
        tools["jsonschema"][d] = (lambda v: lambda data: v.is_valid(json.loads(data)))(ref)
        pointer = pointers.get(d, f"#/$defs/{d}")
        wrapper = _wrapper(raw, pointer, draft)
        try:
            rs = jsonschema_rs.validator_for(wrapper)
            tools["jsonschema-rs"][d] = (lambda v: lambda data: v.is_valid(json.loads(data)))(rs)
        except Exception as exc:  # noqa: BLE001
            rs_failed.append(f"{d}: {exc}")
            tools["jsonschema-rs"][d] = None
        if draft == "draft-07":
            try:
                fn = fastjsonschema.compile(wrapper)
                tools["fastjsonschema"][d] = (lambda f: lambda data: f(json.loads(data)))(fn)
            except Exception:  # noqa: BLE001 - a construct it does not compile
                tools["fastjsonschema"][d] = None
        else:
            tools["fastjsonschema"][d] = None

    # documents: the derived cases (valid and invalid), and generated valid documents
    labelled: dict[str, tuple[str, bytes, bool]] = {}
    for c in cases:
        data = json.dumps(c["document"], ensure_ascii=False).encode()
        labelled.setdefault(f"{c['definition']}\x00{data.decode()}", (c["definition"], data, support.reference_validator(c["definition"]).is_valid(c["document"])))
    generated = 0
    for d in definitions:
        for seed in range(docs_per_definition):
            try:
                doc = strategies.document(d, seed=seed)
            except Exception:  # noqa: BLE001 - the generator gives up on some definitions
                break
            data = json.dumps(doc, ensure_ascii=False).encode()
            key = f"{d}\x00{data.decode()}"
            if key not in labelled:
                labelled[key] = (d, data, support.reference_validator(d).is_valid(doc))
                generated += 1
    documents = list(labelled.values())

    agreement: dict[str, dict[str, Any]] = {}
    for tool in TOOLS:
        judged = agree = fa = fr = 0
        for d, data, truth in documents:
            fn = tools[tool].get(d)
            if fn is None:
                continue
            got = _judge(fn)(data)
            judged += 1
            agree += got == truth
            fa += got and not truth
            fr += truth and not got
        agreement[tool] = {"judged": judged, "agree": agree, "false_accepts": fa, "false_rejects": fr}

    valid = [(d, data) for d, data, truth in documents if truth]
    # the common set: valid documents of the definitions every tool has something for, that
    # every tool accepts (a false rejection would time a tool's error path; they are counted
    # in the agreement table instead)
    common = [
        (d, data) for d, data in valid
        if all(tools[t].get(d) is not None and _judge(tools[t][d])(data) for t in TOOLS if t != "fastjsonschema" or draft == "draft-07")  # type: ignore[arg-type]
    ]
    # the timed calls: each tool over the common set (ratios) and specbind over every valid document
    timed: dict[str, list[tuple[Callable[[bytes], Any], bytes]]] = {}
    for tool in TOOLS:
        pairs = [(tools[tool][d], data) for d, data in common if tools[tool].get(d) is not None]
        if len(pairs) == len(common) and pairs:
            timed[tool] = pairs  # type: ignore[assignment]
    timed["specbind (every valid document)"] = [(tools["specbind"][d], data) for d, data in valid if _judge(tools["specbind"][d])(data)]  # type: ignore[arg-type, misc]
    for tool, pairs in timed.items():  # warm up; and every timed call must succeed
        for fn, data in pairs:
            if fn(data) is False:
                raise SystemExit(f"{name}: {tool} refused a valid document it is timed on: {data[:200]!r}")
    # each timed round lasts about ROUND_SECONDS of this process's CPU time (the pass repeated):
    # CPU time, not wall time, so that other processes on a shared machine do not count; rounds
    # interleaved, the best one reported (the least disturbed), the median kept in the JSON
    reps: dict[str, int] = {}
    for tool, pairs in timed.items():
        start = time.process_time()
        for fn, data in pairs:
            fn(data)
        reps[tool] = max(1, round(ROUND_SECONDS / max(time.process_time() - start, 1e-6)))
    samples: dict[str, list[float]] = {tool: [] for tool in timed}
    for _ in range(rounds):
        for tool, pairs in timed.items():
            start = time.process_time()
            for _ in range(reps[tool]):
                for fn, data in pairs:
                    fn(data)
            samples[tool].append(reps[tool] * len(pairs) / (time.process_time() - start))
    speed = {tool: max(s) for tool, s in samples.items()}
    median = {tool: statistics.median(s) for tool, s in samples.items()}
    # where the time goes: per definition, microseconds per document of each tool on the common set
    per_definition: dict[str, dict[str, float]] = {}
    for d in sorted({d for d, _ in common}):
        mine = [data for dd, data in common if dd == d]
        row = {}
        for tool in ("specbind", "pydantic", "jsonschema-rs"):
            fn = tools[tool][d]
            best = float("inf")
            for _ in range(3):
                start = time.process_time()
                for data in mine:
                    fn(data)  # type: ignore[misc]
                best = min(best, time.process_time() - start)
            row[tool] = 1e6 * best / len(mine)
        row["documents"] = len(mine)
        row["compiled"] = d in codec._SLOW
        per_definition[d] = row
    slow = sorted(codec._SLOW)
    return {
        "schema": schema_file, "name": name, "draft": draft, "definitions": len(definitions), "slow_definitions": len(slow),
        "documents": len(documents), "generated": generated, "valid": len(valid), "common": len(common),
        "common_definitions": len({d for d, _ in common}),
        "agreement": agreement, "speed": speed, "median": median, "rounds": samples, "jsonschema_rs_refused": rs_failed,
        "per_definition": per_definition,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=20, help="generated valid documents per definition (default 20)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path, help="write every figure as JSON")
    parser.add_argument("--only", action="append", help="a spec name of CHOSEN (repeatable)")
    parser.add_argument("--why", type=int, default=3, help="print the definitions taking most of specbind's time (default 3)")
    args = parser.parse_args()
    unknown = sorted(set(args.only or ()) - {n for _, n in CHOSEN})
    if unknown:  # else the run would print empty tables and exit 0
        parser.error(f"--only {', '.join(unknown)}: no such schema; choose from {', '.join(n for _, n in CHOSEN)}")
    _peers.require(__file__, PEERS)
    import msgspec
    import pydantic

    chosen = [(f, n) for f, n in CHOSEN if not args.only or n in args.only]
    results = []
    for f, n in chosen:
        print(f"... {n}", file=sys.stderr, flush=True)
        results.append(bench(f, n, args.docs, args.rounds))
    from importlib.metadata import version

    versions = {"python": platform.python_version(), "msgspec": msgspec.__version__, "pydantic": pydantic.__version__}
    versions |= {name: version(name) for name in ("datamodel-code-generator", "jsonschema-rs", "fastjsonschema", "jsonschema")}
    print(f"machine: {platform.machine()}, {platform.system()}; " + ", ".join(f"{k} {v}" for k, v in versions.items()))
    print("\n## Agreement with jsonschema's labels (every derived case and every generated valid document)\n")
    print("| schema | tool | judged | agree | false accepts | false rejects |")
    print("|---|---|---:|---:|---:|---:|")
    for res in results:
        for tool, a in res["agreement"].items():
            if not a["judged"]:
                print(f"| {res['name']} | {tool} | - | n/a | | |")
                continue
            pct = 100 * a["agree"] / a["judged"]
            print(f"| {res['name']} | {tool} | {a['judged']} | {a['agree']} ({pct:.2f}%) | {a['false_accepts']} | {a['false_rejects']} |")
    print(f"\n## Valid documents per second, strict decode from bytes (process CPU time, best of {args.rounds} interleaved rounds of ~{ROUND_SECONDS} s)\n")
    print("| schema (draft; defs, of them compiled) | docs timed | specbind | pydantic | jsonschema-rs | fastjsonschema | jsonschema | specbind / pydantic | specbind / jsonschema-rs |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for res in results:
        s = res["speed"]
        cell = lambda t: f"{s[t]:,.0f}" if t in s else "n/a"  # noqa: E731
        ratio = lambda t: f"{s['specbind'] / s[t]:.2f}x" if t in s and "specbind" in s else "n/a"  # noqa: E731
        print(f"| {res['name']} ({res['draft']}; {res['definitions']}, {res['slow_definitions']}) | {res['common']} | {cell('specbind')} | {cell('pydantic')} | "
              f"{cell('jsonschema-rs')} | {cell('fastjsonschema')} | {cell('jsonschema')} | {ratio('pydantic')} | {ratio('jsonschema-rs')} |")
    print("\nspecbind on every valid document (definitions without a pydantic class included):")
    for res in results:
        print(f"- {res['name']}: {res['valid']} valid documents ({res['generated']} generated), {res['speed']['specbind (every valid document)']:,.0f} docs/s")
        worst = sorted(res["per_definition"].items(), key=lambda kv: -kv[1]["specbind"] * kv[1]["documents"])[:args.why]
        for d, row in worst:
            print(f"  {d}{' (compiled)' if row['compiled'] else ''}: {row['documents']} docs, specbind {row['specbind']:.1f} us, "
                  f"pydantic {row['pydantic']:.1f} us, jsonschema-rs {row['jsonschema-rs']:.1f} us per document")
        for line in res["jsonschema_rs_refused"][:3]:
            print(f"  jsonschema-rs could not compile {line[:160]}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"versions": versions, "results": results}, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
