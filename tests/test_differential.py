"""`make test`'s short budget of differential fuzzing (fuzz/differential.py): the same generated
and mutated inputs through both bindings of each spec (replay with the format sniffed or forced
where the spec has rules, validate strict and lenient), every answer compared whole, notes
included. A fixed
seed, so the same inputs on every run; `make fuzz`'s long run and fuzz/README.md have the
figures of the long one. Skipped loudly where node or tsc is absent."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import typescript_agreement as agree

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))

import differential  # noqa: E402

RUNS = int(os.environ.get("SPECBIND_DIFFERENTIAL_RUNS", "1500"))


@pytest.fixture(scope="module", autouse=True)
def toolchain() -> None:
    agree.require_toolchain()


@pytest.mark.parametrize("spec", sorted(differential.SPECS))
def test_both_bindings_answer_the_same_on_fuzzed_input(spec: str, tmp_path: Path) -> None:
    stats = differential.run(spec, RUNS, seed=22, out=tmp_path)
    assert stats.inputs == RUNS and stats.answers == (3 if differential.replays(spec) else 2) * RUNS
    assert stats.crashes == 0 and stats.disagreements == 0, stats.first


@pytest.mark.parametrize("spec", sorted(differential.SPECS))
def test_both_bindings_answer_the_same_past_the_caps(spec: str, tmp_path: Path) -> None:
    """Inputs taken past the caps of docs/limits.md (errors listed, ids a finding names,
    characters it quotes), and replayed with a findings cap of 0-5 (past it findings are only
    counted, a refused document unread), where two bindings could count or cut differently."""
    stats = differential.run(spec, RUNS // 10, seed=22, out=tmp_path, big=1.0, capped=1.0)
    assert stats.inputs == RUNS // 10
    assert stats.crashes == 0 and stats.disagreements == 0, stats.first


def test_a_disagreement_is_found_and_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The harness can fail: a Python answer changed on purpose is a disagreement, with its
    input and both answers written out."""
    real = differential.Reference.answer

    def wrong(self: differential.Reference, job: dict[str, object], data: bytes) -> dict[str, object]:
        answer = real(self, job, data)
        if job["op"] == "replay":
            answer["events"] = -1
        return answer

    monkeypatch.setattr(differential.Reference, "answer", wrong)
    stats = differential.run("agui", 5, seed=1, out=tmp_path)
    assert stats.disagreements == 5 and stats.crashes == 0
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".bin"] * 5 + [".json"] * 5
