"""Targets: each builds the template context for one folder under templates/."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..binding import Binding
from ..ir.model import IR


@dataclass(frozen=True)
class Data:
    """An output that is data, not code: written as given."""

    path: str
    content: bytes


@dataclass(frozen=True)
class Plan:
    """What a target contributes: where its package goes, the context every template in its
    folder is rendered with, and any data files."""

    package_dir: str
    context: dict[str, Any]
    data: tuple[Data, ...] = ()


TargetBuilder = Callable[[Binding, IR], Plan]


def builders() -> dict[str, TargetBuilder]:
    from . import proto, python

    return {"python": python.build, "proto": proto.build}
