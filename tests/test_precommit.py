"""The pre-commit hooks (.pre-commit-hooks.yaml) as a user's repository runs them: pre-commit
installs specbind from a repository holding this tree (committed to a temporary git repository)
into an environment of its own, offline (pip reads the wheelhouse `make test`'s setup fills),
and runs `specbind-check` and `specbind-lint` against a temporary repository that vendors a
binding: passing when it is up to date, failing (naming the file) when it is not."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import REPO, run_cli
from test_install import PET_SCHEMA, SOURCES, WHEELHOUSE

HOOKS = REPO / ".pre-commit-hooks.yaml"


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_the_hooks_file_names_the_documented_hooks() -> None:
    hooks = {h["id"]: h for h in yaml.safe_load(HOOKS.read_text())}
    assert set(hooks) == {"specbind-check", "specbind-lint"}
    assert hooks["specbind-check"]["entry"] == "specbind check" and hooks["specbind-lint"]["entry"] == "specbind lint"
    assert all(h["language"] == "python" and h["pass_filenames"] is False for h in hooks.values())
    docs = (REPO / "docs" / "ci.md").read_text()
    assert all(f"`{name}`" in docs for name in hooks)


@pytest.fixture(scope="module")
def repos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if shutil.which("git") is None:
        pytest.skip("SKIPPED LOUDLY: git is not installed, and pre-commit needs it")
    if not WHEELHOUSE.is_dir():
        pytest.fail(f"{WHEELHOUSE} is missing: `make test`'s setup fills it")
    root = tmp_path_factory.mktemp("precommit")
    hook_repo = root / "specbind"
    hook_repo.mkdir()
    for name in (*SOURCES, ".pre-commit-hooks.yaml"):
        path = REPO / name
        if path.is_dir():
            shutil.copytree(path, hook_repo / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(path, hook_repo / name)
    _git(hook_repo, "init", "-q")
    _git(hook_repo, "add", "-A")
    _git(hook_repo, "commit", "-q", "-m", "specbind")
    rev = _git(hook_repo, "rev-parse", "HEAD")
    user = root / "user"
    user.mkdir()
    (user / "pet.json").write_text(json.dumps(PET_SCHEMA))
    made = run_cli("init", user / "pet.json", "--name", "pets", "--spec-dir", user / "schemas")
    assert made.exit_code == 0, made.output
    done = run_cli("generate", "--spec", user / "schemas" / "pets", "--out", user / "vendor")
    assert done.exit_code == 0, done.output
    config = {"repos": [{"repo": str(hook_repo), "rev": rev, "hooks": [
        {"id": "specbind-check", "args": ["--spec", "schemas/pets", "--out", "vendor"]},
        {"id": "specbind-lint", "args": ["--spec", "schemas/pets"]},
    ]}]}
    (user / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    _git(user, "init", "-q")
    _git(user, "add", "-A")
    _git(user, "commit", "-q", "-m", "vendored pets")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PIP_"))}
    env |= {"PRE_COMMIT_HOME": str(root / "pre-commit-home"), "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(WHEELHOUSE),
            "PIP_DISABLE_PIP_VERSION_CHECK": "1", "SPECBIND_CACHE": str(root / "cache")}
    return {"user": user, "env": env}


def _pre_commit(repos: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    pre_commit = str(Path(sys.executable).parent / "pre-commit")
    return subprocess.run([pre_commit, "run", "--all-files"], cwd=repos["user"], env=repos["env"],
                          capture_output=True, text=True, timeout=600)


def test_the_hooks_pass_on_an_up_to_date_repository_and_fail_on_drift(repos: dict[str, Any]) -> None:
    user = repos["user"]
    ok = _pre_commit(repos)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "specbind check" in ok.stdout and "specbind lint" in ok.stdout and "Passed" in ok.stdout
    (user / "vendor" / "pets" / "NOTES.md").write_text("our own notes: not specbind's\n")
    assert _pre_commit(repos).returncode == 0, "a file of the user's beside the generated ones is not drift"
    models = user / "vendor" / "pets" / "models.py"
    models.write_text(models.read_text() + "# edited by hand\n")
    stale = _pre_commit(repos)
    assert stale.returncode == 1
    assert "changed  pets/models.py" in stale.stdout and "run `specbind generate --spec schemas/pets --out vendor` and commit the result" in stale.stdout
    _git(user, "checkout", "--", "vendor")
    binding = user / "schemas" / "pets" / "binding.toml"
    binding.write_text(binding.read_text().replace("[python]", "[pyhton]"))
    broken = _pre_commit(repos)
    assert broken.returncode == 1
    assert "specbind lint" in broken.stdout and "did you mean [python]?" in broken.stdout
