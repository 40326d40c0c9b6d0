"""Harness Runtime API rules that are functions rather than stream order: the capability
preflight, idempotency equivalence, and the protocol's Problem values with their stable codes.

Specified in protocol.md (§ Capability Preflight, § Idempotency, § Errors) and
runtime-model.md (§ Invariants 3 and 4), vendored in spec/harness-runtime/.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from msgspec import UNSET

from . import models
from .validation import json_equal

__all__ = ["PASSING", "Preflight", "preflight", "equivalent", "idempotency_problem", "problem"]

PASSING = frozenset({"native", "emulated", "degraded"})
"""Support levels a required capability may have for an execution to start."""


def problem(code: models.ErrorCode | str, message: str, details: dict[str, Any] | None = None) -> models.Problem:
    """A Problem with one of the stable error codes (an unknown code is refused)."""
    stable = models.ErrorCode(code)
    if details is None:
        return models.Problem(code=str(stable), message=message)
    return models.Problem(code=str(stable), message=message, details=details)


@dataclass(frozen=True)
class Preflight:
    """The preflight decision: `problem` is None when the execution may start. `degraded`
    names the capabilities a caller that cannot tolerate degradation should look at."""

    levels: dict[str, str | None]
    degraded: tuple[str, ...]
    problem: models.Problem | None

    @property
    def ok(self) -> bool:
        return self.problem is None


def preflight(manifest: models.ProviderManifest, required: Iterable[str]) -> Preflight:
    """Each requested capability must be advertised as native, emulated or degraded;
    unsupported or absent fails with CAPABILITY_UNSUPPORTED before the provider starts."""
    levels: dict[str, str | None] = {}
    for name in required:
        level = manifest.capabilities.get(name)
        levels[name] = None if level is None else str(level)
    refused = sorted(n for n, level in levels.items() if level not in PASSING)
    degraded = tuple(sorted(n for n, level in levels.items() if level == "degraded"))
    if not refused:
        return Preflight(levels, degraded, None)
    described = ", ".join(f"{n} ({levels[n] or 'absent'})" for n in refused)
    found = problem(
        "CAPABILITY_UNSUPPORTED",
        f"provider {manifest.id} cannot run this execution: {described}",
        {"providerId": manifest.id, "capabilities": {n: levels[n] or "absent" for n in refused}},
    )
    return Preflight(levels, degraded, found)


def _config(request: models.StartExecutionRequest) -> Any:
    # an absent config asks for no overrides, as an empty one does
    return {} if request.config is UNSET else request.config


def equivalent(a: models.StartExecutionRequest, b: models.StartExecutionRequest) -> bool:
    """Whether a retried request is the same request: same conversation, provider, input,
    required capabilities (as a set: their order asks nothing different) and config."""
    caps_a = set() if a.required_capabilities is UNSET else set(a.required_capabilities)
    caps_b = set() if b.required_capabilities is UNSET else set(b.required_capabilities)
    return (
        a.conversation_id == b.conversation_id
        and a.provider_id == b.provider_id
        and a.input == b.input
        and caps_a == caps_b
        and json_equal(_config(a), _config(b))
    )


def idempotency_problem(original: models.StartExecutionRequest, retry: models.StartExecutionRequest) -> models.Problem | None:
    """None when `retry` may return the original execution; IDEMPOTENCY_CONFLICT when it
    reuses the key for a different request. Requests without a key, or with different keys,
    never conflict."""
    if original.idempotency_key is UNSET or original.idempotency_key != retry.idempotency_key:
        return None
    if equivalent(original, retry):
        return None
    return problem(
        "IDEMPOTENCY_CONFLICT",
        f"idempotency key {retry.idempotency_key!r} was used for a different request",
        {"idempotencyKey": retry.idempotency_key},
    )
