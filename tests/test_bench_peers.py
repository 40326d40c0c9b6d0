"""The bench scripts run without the bench extra (a `.venv` from `make generate` or `make test`):
each stops before any work with one line naming the missing peers and how to install them, and
exit code 4 (bench/README.md), never an ImportError's traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# script -> the peers hidden from it (import names) and the distributions the message must name
CASES = {
    "bench_schemas.py": (["fastjsonschema", "jsonschema_rs"], ["fastjsonschema", "jsonschema-rs"]),
    "bench_codec.py": (["ag_ui"], ["ag-ui-protocol"]),
    "bench_mcp.py": (["mcp_types"], ["mcp"]),
    "bench_transcripts.py": (["mcp_types"], ["mcp"]),
    "bench_replay.py": (["ag_ui_validate"], ["ag-ui-validate"]),
    "bench_sse.py": (["httpx_sse"], ["httpx-sse"]),
    "bench_schemas_ts.py": (["jsonschema"], ["jsonschema"]),
}

# A module set to None in sys.modules is one `import` refuses and find_spec reports absent: the
# interpreter then behaves as one where the distribution was never installed. The script's folder
# goes first on sys.path, as `python bench/SCRIPT` puts it.
RUN = "import os, runpy, sys\nfor m in sys.argv[2:]: sys.modules[m] = None\nsys.argv = [sys.argv[1]]\nsys.path.insert(0, os.path.dirname(sys.argv[0]))\nrunpy.run_path(sys.argv[0], run_name='__main__')\n"


@pytest.mark.parametrize("script", sorted(CASES))
def test_missing_peer_is_one_line_and_exit_4(script: str) -> None:
    hidden, named = CASES[script]
    done = subprocess.run([sys.executable, "-c", RUN, str(REPO / "bench" / script), *hidden], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 4, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    for dist in named:
        assert dist in lines[0]
    assert "make bench-setup" in lines[0] and "[bench]" in lines[0]
    assert done.stdout == ""


def test_hostile_probe_without_arguments_prints_usage() -> None:
    done = subprocess.run([sys.executable, str(REPO / "bench" / "hostile_probe.py")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stderr.startswith("usage: ") and "Traceback" not in done.stderr


@pytest.mark.parametrize("script", ["bench_schemas.py", "bench_schemas_ts.py"])
def test_an_unknown_schema_name_is_a_bad_option(script: str) -> None:
    """`--only` with a name no vendored schema has printed empty tables and exited 0 (or 1): it
    is a bad option, exit 2, before any work or peer check."""
    done = subprocess.run([sys.executable, str(REPO / "bench" / script), "--only", "dependabot", "--only", "nosuch"], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr
    assert "--only nosuch: no such schema; choose from dependabot" in done.stderr


def test_an_unknown_hostile_shape_is_a_bad_option() -> None:
    """bench_hostile's `--only` with a misspelt shape ran nothing and exited 0."""
    done = subprocess.run([sys.executable, str(REPO / "bench" / "bench_hostile.py"), "--only", "big_exponents", "--only", "nosuch"], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr
    assert "--only nosuch: no such shape; choose from " in done.stderr and "big_exponents" in done.stderr


def test_keep_that_is_a_file_is_a_bad_option(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("", encoding="utf-8")
    done = subprocess.run([sys.executable, str(REPO / "bench" / "bench_schemas_ts.py"), "--keep", str(afile)], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr
    assert "not a directory" in done.stderr


def test_bench_cases_pairs_two_checkouts(tmp_path: Path) -> None:
    """bench_cases times a package's codec beside another checkout's, after checking that the two
    agree on every case; a checkout without the package is a one-line refusal."""
    out = tmp_path / "cases.json"
    script = str(REPO / "bench" / "bench_cases.py")
    done = subprocess.run([sys.executable, script, "--before", str(REPO), "--rounds", "1", "--repeat", "10", "--json", str(out)], capture_output=True, text=True, timeout=300, cwd=REPO)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(out.read_text(encoding="utf-8"))
    assert found["package"] == "harness_runtime" and sorted(found["ops"]) == ["encode", "lenient", "refused", "strict"]
    assert all(op["ours_ns"] > 0 and op["before_ns"] > 0 for op in found["ops"].values())
    done = subprocess.run([sys.executable, script, "--before", str(tmp_path)], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "no package harness_runtime" in done.stderr
