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
import shlex
import shutil
import subprocess
import sys
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


# -- generated inputs (the packages' strategies) -------------------------------------------------------

GENERATED_SEEDS = int(os.environ.get("SPECBIND_TS_GENERATED_SEEDS", "3"))


@pytest.mark.parametrize("spec", SPECS)
def test_generated_documents_and_mutants_agree(spec: str, work: Path) -> None:
    """Documents and mutants of every definition from the Python package's strategies, strictly
    and leniently through both bindings: the same verdict, errors and warnings."""
    generated = list(agree.generated_documents(spec, GENERATED_SEEDS))
    result = agree.compare_documents(spec, work, generated, base=False)
    assert result["documents"] == len(generated) > 100
    assert 0 < result["accepted"] < len(generated)  # the documents pass, most mutants do not
    assert result["differences"] == [], json.dumps(result["differences"][:3], indent=1, ensure_ascii=False)


@pytest.mark.parametrize("spec", SPECS)
def test_generated_streams_agree_and_draw_exactly_their_rule(spec: str, work: Path) -> None:
    """Conformant streams and streams breaking each rule a stream can break, from the Python
    package's strategies: both bindings' replay reports are identical, and the TypeScript one
    holds exactly the findings each stream was generated to draw."""
    generated = list(agree.generated_streams(spec, conformant=30, per_rule=2))
    result = agree.compare_streams(spec, [(name, data) for name, data, _ in generated], work)
    assert result["differences"] == [], json.dumps(result["differences"][:2], indent=1, ensure_ascii=False)[:6000]
    jobs = [{"id": name, "op": "replay", "text": data.decode("utf-8")} for name, data, _ in generated]
    reports = agree.run_batch(spec, jobs, work)
    wrong = [(name, want, agree.findings_of(reports[name])) for name, _, want in generated if agree.findings_of(reports[name]) != sorted(want)]
    assert wrong == [], wrong[:5]
    conformant = [reports[name] for name, _, want in generated if not want]
    assert len(conformant) >= 30 and all(r["outcome"] == "completed" for r in conformant)


@pytest.mark.parametrize("spec", SPECS)
def test_the_generated_property_tests_peer_hook_runs_the_typescript_binding(spec: str) -> None:
    """The generated package's own `test_a_peer_binding_agrees`, with the TypeScript binding as
    its peer (tests/typescript_peer.py): the hook is exercised, not only documented."""
    package = agree.SPECS[spec][0]
    peer = shlex.join([sys.executable, str(agree.REPO / "tests" / "typescript_peer.py"), spec])
    env = {**os.environ, f"SPECBIND_PEER_{package.upper()}": peer}
    test = f"generated/{package}/tests/test_properties.py::test_a_peer_binding_agrees"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", test],
                          cwd=agree.REPO, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-4000:] + done.stderr[-2000:]


def test_json_lines_from_node_split_at_lf_only(work: Path) -> None:
    """Regression (found by the peer hook on generated mutants): JSON.stringify leaves U+2028,
    U+0085 and the other line breaks of str.splitlines() raw in strings, and the helper reading
    the TypeScript CLI's JSON Lines (`replay|validate --target typescript` too) cut a report
    where a finding quotes an id holding one."""
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "a\u2028b\x85c", "delta": "x"},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    path = work / "breaks.jsonl"
    path.write_bytes(agree.jsonl(events))
    code, lines, err = ts_node.run_cli(agree.built("agui"), ["replay", str(path)])
    assert code == 1 and len(lines) == 1, (code, lines, err)
    assert lines[0]["violations"] and "a\u2028b\x85c" in json.dumps(lines[0], ensure_ascii=False)
    assert agree.verdict(lines[0]) == agree.verdict(agree.python_replay("agui", path.read_bytes()))


def test_corpus_and_mutants_agree(work: Path, corpus_dir: Path) -> None:
    corpus = agree.corpus(RUNS, corpus_dir)
    broken = agree.broken_copy(corpus, work / "broken.jsonl")
    streams: list[tuple[str, bytes | Path]] = [("corpus", corpus), ("broken corpus", broken)]
    streams += agree.mutants(corpus, MUTANTS)
    result = agree.compare_streams("agui", streams, work)
    assert result["differences"] == [], json.dumps(result["differences"][:2], indent=1, ensure_ascii=False)[:6000]
    assert result["events"] > RUNS * 100 and result["not_completed"] > MUTANTS // 2
