"""The protobuf wire: the number ledger (`ledger`) and the planner (`plan`) that turns the IR and
a spec's `[proto]` table into proto3 messages. `options` carries what the command line decided
(`--allow-new-slots`) to the target builder, and collects the plans a run made so the command
line can write a ledger that grew, once generation succeeded."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .plan import WirePlan


@dataclass
class Options:
    allow_new_slots: bool = False
    plans: list["WirePlan"] = field(default_factory=list)


_OPTIONS: ContextVar[Options | None] = ContextVar("specbind_wire_options", default=None)


def current() -> Options:
    return _OPTIONS.get() or Options()


def record(plan: "WirePlan") -> None:
    options = _OPTIONS.get()
    if options is not None:
        options.plans.append(plan)


@contextmanager
def options(allow_new_slots: bool = False) -> Iterator[Options]:
    """Plan with these options inside the block; the plans made are collected on the result."""
    opts = Options(allow_new_slots=allow_new_slots)
    token = _OPTIONS.set(opts)
    try:
        yield opts
    finally:
        _OPTIONS.reset(token)
