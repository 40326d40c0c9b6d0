"""The TypeScript target: each spec's TypeScript package compiles under `tsc --strict` and
passes its own generated tests under Node's test runner, and the two bindings agree: identical
accept/reject (and identical errors) on every fixture and derived case, identical reports on
every rule example, every conformance stream, gen_corpus.py's corpus and its mutants.

The corpus here is the full 10,000 runs (about 1M events) from ../shared/bench/gen_corpus.py,
judged whole by each binding (one Node process), plus the corpus broken on purpose (every kind
of line-level trouble) and `MUTANTS` streams of one run each broken in one way;
bench/verify_typescript.py runs a mutant per run of the corpus (10,000). SPECBIND_TS_RUNS sets
the corpus size (CI machines short of time). Skipped loudly where node or tsc is absent."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import typescript_agreement as agree
from generator.targets.typescript import node as ts_node

RUNS = int(os.environ.get("SPECBIND_TS_RUNS", "10000"))
MUTANTS = int(os.environ.get("SPECBIND_TS_MUTANTS", "1000"))
SPECS = sorted(agree.SPECS)


@pytest.fixture(scope="module", autouse=True)
def toolchain() -> None:
    if shutil.which("node") is None:
        pytest.skip("SKIPPED LOUDLY: `node` is not installed, so the TypeScript packages cannot be built or run")
    try:
        ts_node.tsc()
    except ts_node.NodeMissing as exc:
        pytest.skip(f"SKIPPED LOUDLY: {exc}")


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("typescript")


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The corpus is made once per machine (28 s for 10,000 runs): kept in the cache folder."""
    from generator.render import cache_dir

    folder = cache_dir() / "corpus"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.parametrize("spec", SPECS)
def test_package_compiles_strict_and_its_tests_pass(spec: str) -> None:
    built = agree.built(spec)
    config = json.loads((built / "tsconfig.json").read_text())
    assert config["compilerOptions"]["strict"] is True
    assert (built / "dist" / "src" / "index.d.ts").is_file() and (built / "dist" / "src" / "index.js").is_file()
    package = json.loads((built / "package.json").read_text())
    assert package["type"] == "module" and not package.get("dependencies")
    done = subprocess.run([ts_node.node(), "--test", "dist/tests/"], cwd=built, capture_output=True, text=True)
    tail = done.stdout[-3000:]
    assert done.returncode == 0, tail + done.stderr[-3000:]
    assert "# fail 0" in tail and "# pass 0" not in tail, tail


@pytest.mark.parametrize("spec", SPECS)
def test_fixtures_and_cases_agree(spec: str, work: Path) -> None:
    result = agree.compare_documents(spec, work)
    assert result["documents"] > 100
    assert result["differences"] == [], json.dumps(result["differences"][:3], indent=1, ensure_ascii=False)


@pytest.mark.parametrize("spec", SPECS)
def test_rule_examples_and_conformance_streams_agree(spec: str, work: Path) -> None:
    streams = list(agree.stream_examples(spec))
    assert streams
    result = agree.compare_streams(spec, streams, work)  # type: ignore[arg-type]
    assert result["differences"] == [], json.dumps(result["differences"][:2], indent=1, ensure_ascii=False)
    assert result["not_completed"] > 0 and result["findings"] > 0


def test_corpus_and_mutants_agree(work: Path, corpus_dir: Path) -> None:
    corpus = agree.corpus(RUNS, corpus_dir)
    broken = agree.broken_copy(corpus, work / "broken.jsonl")
    streams: list[tuple[str, bytes | Path]] = [("corpus", corpus), ("broken corpus", broken)]
    streams += agree.mutants(corpus, MUTANTS)
    result = agree.compare_streams("agui", streams, work)
    assert result["differences"] == [], json.dumps(result["differences"][:2], indent=1, ensure_ascii=False)[:6000]
    assert result["events"] > RUNS * 100 and result["not_completed"] > MUTANTS // 2
