"""Where the generator's own files are: the template sets (`templates/`) and the fixed runtime
modules (`runtime/`). Found through importlib.resources from the `generator` package, so the
same code runs from a checkout, an editable install and a wheel:

- in a wheel they are package data, `generator/templates/` and `generator/runtime/` (setup.py
  maps the repository's top-level folders there);
- in a checkout (and an editable install of it) they are the top-level folders beside
  `generator/`.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from pathlib import Path

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
