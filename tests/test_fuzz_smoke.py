"""`make test`'s short fuzz budget: each fuzz entry point (fuzz/targets.py) on a few thousand
structured mutations of its seeds, deterministic (a fixed seed, the mutate engine: no atheris
needed). `make fuzz` is the long, coverage-guided run; fuzz/README.md has its figures."""

from __future__ import annotations

import sys
from pathlib import Path

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
