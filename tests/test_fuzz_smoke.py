"""`make test`'s short fuzz budget: each fuzz entry point (fuzz/targets.py) on a few thousand
structured mutations of its seeds, deterministic (a fixed seed, the mutate engine: no atheris
needed). `make fuzz` is the long, coverage-guided run; fuzz/README.md has its figures."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))

from run import NAMES, run_mutate  # noqa: E402
from targets import TARGETS  # noqa: E402

RUNS = 3000


def test_the_runner_names_every_entry_point() -> None:
    assert sorted(NAMES) == sorted(TARGETS)


@pytest.mark.parametrize("name", NAMES)
def test_entry_point_survives_a_short_budget(name: str) -> None:
    assert run_mutate(name, RUNS, seed=16) == 0


@pytest.mark.parametrize("name", NAMES)
def test_large_inputs_keep_the_time_and_memory_budget(name: str) -> None:
    """fuzz/run.py --large, briefly: a few inputs up to 256 KB (mutated seeds grown, and the
    hostile shapes at random sizes) through each entry point, failing on time or memory as well
    as on a crash; the budget is docs/limits.md's, with room for a loaded machine."""
    from run import run_large

    assert run_large(name, 4, seed=22, most=256 << 10, seconds=2.0, megabytes=64.0) == 0


@pytest.mark.parametrize("cost", ["time", "memory"])
def test_the_large_input_mode_fails_on_cost_not_only_on_crashes(
    cost: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """An entry point that returns normally but costs more than the budget fails the run, and
    the input is saved for the reproducer (the mode would otherwise pass a quadratic decoder)."""
    import time

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    import hostile_probe
    import run as runner

    def costly(name: str, data: bytes) -> Any:
        def call() -> Any:
            if cost == "time":
                until = time.process_time() + 0.3
                while time.process_time() < until:
                    pass
                return None
            held = bytearray(48 << 20)
            held[::4096] = b"x" * len(held[::4096])  # touched, so resident
            return len(held)

        return call

    monkeypatch.setattr(hostile_probe, "entry", costly)
    monkeypatch.setattr(runner, "HERE", tmp_path)  # where the failing input is saved
    # only the cost under test has a tight budget: touching 48 MB of pages is CPU time too, and on
    # a loaded machine it once passed 0.1 s and tripped the time budget first
    budgets = {"seconds": 0.1, "megabytes": 4096.0} if cost == "time" else {"seconds": 60.0, "megabytes": 16.0}
    assert runner.run_large("jsonpatch", 1, seed=1, most=4096, **budgets) == 1
    assert len(list(tmp_path.glob("large-failure-jsonpatch-*"))) == 1
    why = capsys.readouterr().err
    assert ("s of CPU time" in why) if cost == "time" else ("MB above the baseline" in why)
