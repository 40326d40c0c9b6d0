"""The repository's own ignore file: what a contributor's checkout leaves untracked."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Paths a contributor's setup creates: `make generate` makes .venv, `make test` the Node
# peers. Some point them at a shared copy with a symlink, which a pattern ending in "/"
# (directories only) does not match, so each must be ignored as a directory and as a link.
SETUP_PATHS = (".venv", "tests/node/node_modules")


def _ignored(repo: Path, path: str) -> bool:
    done = subprocess.run(
        ["git", "check-ignore", "-q", path], cwd=repo, capture_output=True, text=True
    )
    assert done.returncode in (0, 1), done.stderr
    return done.returncode == 0


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize("kind", ["directory", "symlink"])
def test_setup_paths_are_ignored_as_directories_and_symlinks(tmp_path: Path, kind: str) -> None:
    repo = tmp_path / "checkout"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    shutil.copyfile(ROOT / ".gitignore", repo / ".gitignore")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for path in SETUP_PATHS:
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if kind == "symlink":
            target.symlink_to(elsewhere, target_is_directory=True)
        else:
            target.mkdir()
            (target / "marker").write_text("x")
    untracked = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=repo, capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    assert untracked == ["?? .gitignore"], untracked
    for path in SETUP_PATHS:
        assert _ignored(repo, path), f"{path} ({kind}) is not ignored"
