"""The packages of the distribution (the metadata is pyproject.toml's). The repository's
top-level `templates/` and `runtime/` folders ship as package data of `generator`
(`generator/templates/...`, `generator/runtime/...`), where `generator.resources` finds them in
an installed wheel; every folder under them is listed, so a new template folder ships without
an edit here.

A built wheel also carries `generator/preformatted.json`: every Python runtime module as the
Python target's formatter leaves it (black, pinned in pyproject.toml, with the target's mode),
so a user's first `generate` does not format the fixed modules (most of a small schema's cold
time). tests/test_install.py checks the wheel generates the checkout's bytes with it."""

import hashlib
import json
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
DATA = ("templates", "runtime")
SKIP = {"__pycache__", "node_modules", "dist"}


def data_packages(top: str) -> dict[str, str]:
    """Every folder under `top` as a package of `generator.<top>`, by name -> folder."""
    found = {}
    for path in sorted([HERE / top, *(p for p in (HERE / top).rglob("*") if p.is_dir())]):
        rel = path.relative_to(HERE)
        if SKIP & set(rel.parts):
            continue
        found[".".join(("generator", *rel.parts))] = rel.as_posix()
    return found


# the Python target's formatter (generator/targets/python: format_python, formatter_id), which
# tests/test_install.py holds this copy to
LINE_LENGTH = 88


def preformatted() -> dict[str, dict[str, str]]:
    import black

    mode = black.Mode(line_length=LINE_LENGTH, target_versions={black.TargetVersion.PY311})
    formatter_id = f"black {black.__version__} (line length {LINE_LENGTH}, Python 3.11)"
    table = {}
    for path in sorted((HERE / "runtime" / "python").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        table[hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()] = black.format_str(text, mode=mode)
    return {formatter_id: table}


class BuildWithPreformatted(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "generator" / "preformatted.json"
        target.write_text(json.dumps(preformatted(), ensure_ascii=False, sort_keys=True), encoding="utf-8")


data = {name: folder for top in DATA for name, folder in data_packages(top).items()}
setup(
    cmdclass={"build_py": BuildWithPreformatted},
    packages=[*find_packages(include=["generator", "generator.*", "specbind"]), *data],
    package_dir={f"generator.{top}": top for top in DATA},
    package_data={name: ["*"] for name in data},
    exclude_package_data={name: ["*.pyc"] for name in data},
)
