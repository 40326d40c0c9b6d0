"""Names decided once: wire camelCase to snake_case, enum values to constant names."""

from __future__ import annotations

import re

_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def snake(name: str) -> str:
    """`toolCallId` -> `tool_call_id`, `HTTPStatus` -> `http_status`, `a-b` -> `a_b`."""
    s = _BOUNDARY.sub("_", name)
    s = re.sub(r"[^0-9A-Za-z_]+", "_", s)
    return s.strip("_").lower() or "_"


def constant(value: str) -> str:
    """An enum value as a constant name: `tool-call` -> `TOOL_CALL`."""
    s = snake(value).upper()
    return s if not s[0].isdigit() else "_" + s
