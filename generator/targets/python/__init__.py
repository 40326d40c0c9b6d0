"""The Python target: a package of msgspec models, the exact JSON codec, the lifecycle automaton,
the protobuf codec (when the spec binds protobuf), the transports, and generated pytest modules.
Formatted by black."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import black

from ...products import Products
from .. import Plan, Target
from . import context, wire

_TEMPLATES = Path(__file__).resolve().parents[3] / "templates"
_MODE = black.Mode(line_length=88, target_versions={black.TargetVersion.PY311})  # type: ignore[attr-defined]


def build(products: Products, options: dict[str, Any]) -> list[Plan]:
    plans = [context.build(products, options)]
    if products.wire is not None:
        plans.append(wire.build(products))
    return plans


def format_python(path: str, text: str) -> str:
    """black, for the Python files; everything else as rendered."""
    return black.format_str(text, mode=_MODE) if path.endswith(".py") else text


TARGET = Target(
    name="python",
    description="a vendorable Python package: msgspec models, exact JSON and protobuf codecs, the automaton, transports, tests",
    build=build,
    templates=_TEMPLATES / "python",
    template_sets={"proto": _TEMPLATES / "proto"},
    formatter=format_python,
    formatter_id=f"black {black.__version__} (line length 88, Python 3.11)",  # type: ignore[attr-defined]
    language="Python",
)
