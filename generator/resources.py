"""Where the generator's own files are: the template sets (`templates/`) and the fixed runtime
modules (`runtime/`). Found through importlib.resources from the `generator` package, so the
same code runs from a checkout, an editable install and a wheel:

- in a wheel they are package data, `generator/templates/` and `generator/runtime/` (setup.py
  maps the repository's top-level folders there);
- in a checkout (and an editable install of it) they are the top-level folders beside
  `generator/`.

A wheel also carries `generator/preformatted.json`, written when it is built (setup.py): the
runtime modules as the Python target's formatter leaves them, so that a first `generate` with an
empty cache does not format the fixed modules every package copies.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

FOLDERS = ("templates", "runtime")


@cache
def folder(name: str) -> Path:
    """The folder `name` ("templates" or "runtime") as a path on disk."""
    if name not in FOLDERS:
        raise ValueError(f"not one of specbind's data folders: {name!r}")
    package = files("generator")
    if not isinstance(package, Path):  # a zipped install: Jinja and the copy need real files
        raise RuntimeError("specbind must be installed as files (pip install), not imported from a zip")
    for candidate in (package / name, package.parent / name):
        if candidate.is_dir():
            return candidate
    raise RuntimeError(f"specbind's {name}/ folder is missing beside {package}: reinstall specbind")


def templates(name: str) -> Path:
    """A built-in template set (`templates/<name>`)."""
    return folder("templates") / name


def runtime(name: str) -> Path:
    """A built-in runtime folder (`runtime/<name>`)."""
    return folder("runtime") / name


PREFORMATTED = "preformatted.json"


@cache
def preformatted() -> dict[str, dict[str, str]]:
    """{formatter id: {sha256 of a runtime module's text: that text formatted}}, as the wheel
    was built with; empty in a checkout, or when the file cannot be read (formatting then runs)."""
    path = files("generator") / PREFORMATTED
    try:
        table: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return table if isinstance(table, dict) else {}
