"""The archive recipe (docs/archive-replay.md, docs/recipes/replay_on_dask.py) on a local Dask
cluster of two worker processes: the generated package, shipped to the workers, is the map
function, and every file's report is the one `specbind replay --json FILE` prints."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from distributed import LocalCluster

from conftest import GENERATED, REPO, SPEC_AGUI, run_cli

RECIPE = REPO / "docs" / "recipes" / "replay_on_dask.py"


def recipe() -> Any:
    spec = importlib.util.spec_from_file_location("replay_on_dask", RECIPE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as local:
        yield local


def archive(root: Path) -> Path:
    """The sample streams, a pretty-printed test case and an empty file, in two folders."""
    folder = root / "archive"
    (folder / "more").mkdir(parents=True)
    for sample in sorted((SPEC_AGUI / "samples").iterdir()):
        (folder / sample.name).write_bytes(sample.read_bytes())
    case = json.loads((SPEC_AGUI / "conformance" / "streams" / "open-message-at-run-finished-fatal.json").read_text())
    (folder / "more" / "case.jsonl").write_text("\n".join(json.dumps(e) for e in case["stream"]) + "\n")
    (folder / "more" / "empty.jsonl").write_text("")
    return folder


def test_the_recipe_reports_what_the_cli_reports(cluster: LocalCluster, tmp_path: Path) -> None:
    from distributed import Client

    module = recipe()
    folder = archive(tmp_path)
    paths = sorted(str(p) for p in folder.rglob("*") if p.suffix in module.SUFFIXES)
    with Client(cluster) as client:
        package = module.ship(client, GENERATED / "agui")
        reports = list(module.replay_archive(client, package, paths))
    assert [r["file"] for r in reports] == paths
    for report in reports:
        alone = run_cli("replay", "--spec", SPEC_AGUI, "--json", report["file"])
        assert report == json.loads(alone.stdout)
    assert [r["outcome"] for r in reports] == ["completed", "failed", "empty", "completed", "failed"]


@pytest.mark.filterwarnings("ignore:Scheduler already contains a plugin")
def test_the_recipe_script_prints_what_replay_of_the_directory_prints(cluster: LocalCluster, tmp_path: Path) -> None:
    folder = archive(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = recipe().main(["--package", str(GENERATED / "agui"), "--scheduler", cluster.scheduler_address, str(folder)])
    cli = run_cli("replay", "--spec", SPEC_AGUI, "--json", "--jobs", "1", folder)
    assert code == cli.exit_code == 1
    ours = [json.loads(line) for line in out.getvalue().splitlines()]
    theirs = [json.loads(line) for line in cli.stdout.splitlines()]
    assert sorted(ours[:-1], key=lambda r: r["file"]) == sorted(theirs[:-1], key=lambda r: r["file"])
    assert ours[-1] == theirs[-1]
