"""The benchmark peers a bench script compares against, checked before any work is done.

The peers are the `bench` extra of pyproject.toml (never dependencies of specbind or of a generated
package), so a `.venv` made by `make generate` or `make test` lacks them. A script run there stops
with one line naming what is missing and how to install it, and exit code ``MISSING_PEER``
(bench/README.md), not with an ImportError's traceback halfway through a run.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

MISSING_PEER = 4
REPO = Path(__file__).resolve().parents[1]


def require(script: str, peers: dict[str, str]) -> None:
    """Exit with MISSING_PEER unless every module of ``peers`` (import name -> distribution) imports."""
    missing = [dist for module, dist in peers.items() if not _importable(module)]
    if not missing:
        return
    what = "benchmark peer" + ("s" if len(missing) > 1 else "")
    sys.stderr.write(
        f"{Path(script).name}: {what} {', '.join(missing)} not installed for {sys.executable}; install the bench extra "
        f"with `make bench-setup` (in {REPO}) or `{sys.executable} -m pip install -e '{REPO}[bench]'`\n"
    )
    sys.exit(MISSING_PEER)


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or a module set to None
        return False
