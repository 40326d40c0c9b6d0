"""The packages of the distribution (the metadata is pyproject.toml's). The repository's
top-level `templates/` and `runtime/` folders ship as package data of `generator`
(`generator/templates/...`, `generator/runtime/...`), where `generator.resources` finds them in
an installed wheel; every folder under them is listed, so a new template folder ships without
an edit here."""

from pathlib import Path

from setuptools import find_packages, setup

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


data = {name: folder for top in DATA for name, folder in data_packages(top).items()}
setup(
    packages=[*find_packages(include=["generator", "generator.*", "specbind"]), *data],
    package_dir={f"generator.{top}": top for top in DATA},
    package_data={name: ["*"] for name in data},
    exclude_package_data={name: ["*.pyc"] for name in data},
)
