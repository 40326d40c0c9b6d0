"""The wire ledger: every protobuf slot a protocol has ever shipped, one `KEY = NUMBER` a line.

A key names a slot by scope: `Message.field`, `Message.oneof.arm` (an arm of a oneof shares its
message's numbers), `Message.Nested.field` (a nested message: its name starts with a capital) or
`Enum.VALUE`. The file is append-only: a slot keeps its number forever, a slot whose field is
gone stays in the file (the message then declares its number `reserved`), a new slot gets the
next number its scope has never used. The file's leading comment lines are kept as they are; the
entries are written sorted by key (byte order), which is the official ledger's own layout.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import SpecError

_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+) = (0|[1-9][0-9]*)")

# protobuf's own limits: field numbers 1..2^29-1, minus the range the implementation reserves
MAX_FIELD = (1 << 29) - 1
IMPLEMENTATION_RESERVED = range(19000, 20000)
MAX_ENUM = (1 << 31) - 1


@dataclass
class Ledger:
    """A parsed ledger: its header (comment and blank lines before the first entry), its entries
    in file order, and where each came from (for errors)."""

    path: str  # as shown in errors
    header: list[str] = field(default_factory=list)
    entries: dict[str, int] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)

    def render(self) -> str:
        body = [f"{k} = {v}" for k, v in sorted(self.entries.items())]
        return "\n".join([*self.header, *body]) + "\n"

    def where(self, key: str) -> str:
        line = self.lines.get(key)
        return f"line {line}" if line else key


def parse(text: str, shown: str) -> Ledger:
    """Read a ledger. Every malformed line, repeated key and reused number is an error naming the
    file and line: a ledger is never guessed at."""
    ledger = Ledger(shown)
    in_header = True
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        if not line.strip() or line.lstrip().startswith("#"):
            if in_header:
                ledger.header.append(line)
            continue
        in_header = False
        m = _LINE.fullmatch(line.strip())
        if m is None:
            raise SpecError(shown, f"line {number}", f"expected `Scope.name = NUMBER`, got {line.strip()!r}")
        key, value = m.group(1), int(m.group(2))
        if key in ledger.entries:
            raise SpecError(shown, f"line {number}", f"{key} is listed twice (first at line {ledger.lines[key]})")
        ledger.entries[key] = value
        ledger.lines[key] = number
    while ledger.header and not ledger.header[-1].strip():
        ledger.header.pop()
    if ledger.header:
        ledger.header.append("")
    return ledger


def read(path: Path, shown: str) -> Ledger:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecError(shown, "", "the wire ledger named in binding.toml does not exist") from None
    except UnicodeDecodeError as exc:
        raise SpecError(shown, "", f"not UTF-8: {exc}") from None
    return parse(text, shown)


def scope_of(key: str, scopes: set[str]) -> tuple[str, str] | None:
    """(scope, rest) for a key: the longest known scope it starts with. A removed nested message
    (`Outer.Inner.x` once `Outer.Inner` is gone) is not taken for a oneof of `Outer`: oneofs are
    lower-case, message names capitalised."""
    parts = key.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        scope = ".".join(parts[:cut])
        if scope in scopes:
            rest = parts[cut:]
            if len(rest) > 2 or (len(rest) == 2 and rest[0][:1].isupper()):
                return None
            return scope, ".".join(rest)
    return None


def check_numbers(ledger: Ledger, scopes: dict[str, str]) -> None:
    """No number is used twice in one scope, and each is in its kind's range (`scopes` maps a
    scope to "message" or "enum")."""
    seen: dict[tuple[str, int], str] = {}
    for key, number in ledger.entries.items():
        found = scope_of(key, set(scopes))
        if found is None:
            continue
        scope, _ = found
        kind = scopes[scope]
        if kind == "message" and not (1 <= number <= MAX_FIELD) or number in IMPLEMENTATION_RESERVED and kind == "message":
            raise SpecError(ledger.path, ledger.where(key), f"{key} = {number}: not a usable protobuf field number")
        if kind == "enum" and number > MAX_ENUM:
            raise SpecError(ledger.path, ledger.where(key), f"{key} = {number}: not a usable enum number")
        other = seen.get((scope, number))
        if other is not None:
            raise SpecError(
                ledger.path,
                ledger.where(key),
                f"{key} = {number} reuses the number of {other} ({ledger.where(other)}): numbers are never reused",
            )
        seen[(scope, number)] = key


def next_number(ledger: Ledger, scope: str, kind: str, scopes: set[str]) -> int:
    """The next number `scope` has never used: one past the highest it ever had."""
    used = [n for k, n in ledger.entries.items() if (found := scope_of(k, scopes)) is not None and found[0] == scope]
    if kind == "enum":
        return max(used) + 1 if used else 0
    n = max(used) + 1 if used else 1
    if n in IMPLEMENTATION_RESERVED:
        n = IMPLEMENTATION_RESERVED.stop
    if n > MAX_FIELD:
        raise SpecError(ledger.path, scope, "no field number left")
    return n
