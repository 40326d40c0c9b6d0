"""How values are written in messages, the same in every binding of this spec and on every
interpreter: the rule is written down here, not taken from the interpreter's Unicode tables
(Python 3.11's ``repr`` escapes by Unicode 14, Node 20's by its own ICU's, and the two disagreed
on every character assigned in between).

- **Text** is quoted as Python's ``repr`` quotes it (``'x'``; ``"it's"``), and escaped (``\\t``,
  ``\\n``, ``\\r``, ``\\xNN``, ``\\uNNNN``, ``\\UNNNNNNNN``) exactly where ``ESCAPED`` says:
  the control characters, the separators other than the space, the format characters of
  Unicode 14, surrogates, private use and the noncharacters, categories whose members do not
  change between versions (or, for format characters, as of one pinned version). Every other
  character is written as itself, assigned or not.
- **Integers** of more than ``DIGITS_SHOWN`` digits are written ``an integer of N digits`` (N
  exact), so that a message stays short and no binding has to print an integer past its limit.

Standard library only.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["ESCAPED", "DIGITS_SHOWN", "int_digits", "show_number", "quote", "py_repr", "py_str"]

ESCAPED: tuple[tuple[int, int], ...] = (
    (0x0000, 0x001F), (0x007F, 0x00A0), (0x00AD, 0x00AD),  # controls, no-break space, soft hyphen
    (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F),
    (0x0890, 0x0891), (0x08E2, 0x08E2), (0x1680, 0x1680), (0x180E, 0x180E),
    (0x2000, 0x200F), (0x2028, 0x202F), (0x205F, 0x2064), (0x2066, 0x206F), (0x3000, 0x3000),
    (0xD800, 0xDFFF), (0xE000, 0xF8FF), (0xFDD0, 0xFDEF), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB),
    (0xFFFE, 0xFFFF), (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x13438),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F),
    (0xF0000, 0x10FFFF),
) + tuple((plane + 0xFFFE, plane + 0xFFFF) for plane in range(0x10000, 0xF0000, 0x10000))
"""The code points written as escapes in messages, as inclusive ranges (the TypeScript
binding's ``ESCAPED`` in json.ts is the same table)."""

_ESCAPED = re.compile("[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in ESCAPED) + "\\\\'\"]")
_SIMPLE = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}

DIGITS_SHOWN = 900
"""The most digits an integer is written with in a message."""


def int_digits(value: int) -> int:
    """The number of decimal digits of an integer, exactly, without printing it (CPython refuses
    to print one past its digits limit)."""
    value = abs(value)
    below = (value.bit_length() - 1) * 1233 >> 12 if value else 0  # never above floor(log10)
    while value >= 10 ** (below + 1):
        below += 1
    return below + 1


def show_number(value: Any) -> str:
    """A number for a message: as written, or (an integer too long to print) its size."""
    if type(value) is int and value.bit_length() > 2989:  # below 2,990 bits: at most 900 digits
        digits = int_digits(value)
        if digits > DIGITS_SHOWN:
            return f"an integer of {digits} digits"
    return str(value)


def _escape(match: re.Match[str], quote_char: str) -> str:
    ch = match.group()
    if ch in _SIMPLE:
        return _SIMPLE[ch]
    if ch in "'\"":
        return "\\" + ch if ch == quote_char else ch
    c = ord(ch)
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}" if c < 0x10000 else f"\\U{c:08x}"


def quote(text: str) -> str:
    """Text as ``repr`` writes it, escaped by ``ESCAPED`` alone."""
    q = '"' if "'" in text and '"' not in text else "'"
    return q + _ESCAPED.sub(lambda m: _escape(m, q), text) + q


def py_repr(value: Any) -> str:
    """A JSON value as ``repr`` writes it (None, True, 1.0, ['a'], {'a': 1}), text quoted by
    ``quote`` and integers by ``show_number``."""
    if type(value) is str:
        return quote(value)
    if type(value) is int:
        return show_number(value)
    if type(value) is list:
        return "[" + ", ".join(py_repr(v) for v in value) + "]"
    if type(value) is dict:
        return "{" + ", ".join(f"{py_repr(k)}: {py_repr(v)}" for k, v in value.items()) + "}"
    return repr(value)


def py_str(value: Any) -> str:
    """A JSON value as ``str`` writes it: text as itself, anything else as ``py_repr``."""
    return value if type(value) is str else py_repr(value)
