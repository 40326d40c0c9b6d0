"""What the codecs refuse that the JSON grammar alone would allow, and why.

RFC 8259 lets an implementation limit nesting depth and the range of numbers (§9), and requires
JSON exchanged between systems to be UTF-8 (§8.1); I-JSON (RFC 7493) adds that strings hold
Unicode text only. This package follows both, so that whatever a decoder accepts every encoder
can write and every peer can read:

- **UTF-8 only.** Bytes must be UTF-8 (UTF-16 or UTF-32 text, encoded surrogates, overlong forms
  are refused); a leading byte order mark is refused too (RFC 8259 forbids senders to add one and
  lets parsers choose; the SSE decoder drops one at the head of a stream, as SSE says).
- **No lone surrogates.** A ``\\ud800`` escape not paired with a low surrogate (or a lone low
  one) is refused on decode, as I-JSON requires: such a string is not Unicode text, could not be
  written back as UTF-8, and would break every printer downstream. Encoders refuse a hand-built
  string holding one.
- **Nesting** deeper than ``MAX_DEPTH`` arrays and objects is refused (keyword ``depth``): one
  fixed limit, where before each step had its own (whatever the stack allowed it), so that a value
  one accepted could crash the next. Every recursive step downstream (validation, the consumer's
  state, JSON Patch, the protobuf codec) then needs at most a few hundred frames.
- **Errors**: a document is checked whole, and every problem in it counts, but an error list keeps
  the first ``MAX_ERRORS`` (``DecodeError.errors``; ``count`` says how many there were); lenient
  warnings likewise. Which documents are valid does not change; what an invalid one costs to
  report does (a 1 MB array of wrong items once made half a million located errors).
- **Numbers**: a number beyond the range of a double (``1e400``) is refused; an integer is kept
  exact, as a Python int, up to CPython's limit on integer digits (4300 by default,
  ``sys.set_int_max_str_digits``), and refused beyond it. Integer fields of the schema are bounded
  to the safe range (2^53 - 1) by the schema itself; integers in any-JSON values beyond it are
  kept exact by the JSON codec but are not portable (I-JSON §2.2: peers reading them as doubles
  round them), and the protobuf codec, whose numbers are doubles, refuses them on encode.
  ``-0`` is the integer 0; ``-0.0`` and ``1e-400`` (0.0) are numbers.

Standard library only.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from .shown import show_number  # noqa: F401 - where it was, for code that imports it from here

__all__ = ["MAX_DEPTH", "MAX_ERRORS", "Capped", "show_number", "too_deep", "value_depth", "lone_surrogate_escape", "lone_surrogate", "safe_text", "int_digits_limit", "finite_float", "big_exponent", "hook_first"]

MAX_DEPTH = 128
"""The deepest nesting of arrays and objects a document may have (the top-level value counts
as 1). serde_json's default; far beyond any real event, and within the interpreter's stack for
every recursive step downstream."""

MAX_ERRORS = 100
"""How many errors (and lenient warnings) a decode keeps by default: the first ones, in the
order found; the others are counted. Set it here for the whole package, or per call
(``max_errors``); None keeps every one."""


class Capped(list):  # type: ignore[type-arg]
    """A list that keeps its first ``limit`` items (None: every one) and counts the rest in
    ``more``; extending it by another Capped adds that one's ``more`` too."""

    __slots__ = ("limit", "more")

    def __init__(self, limit: int | None) -> None:  # an empty list: list.__init__ has nothing to do
        self.limit = limit
        self.more = 0

    def append(self, item: Any) -> None:
        if self.limit is None or len(self) < self.limit:
            super().append(item)
        else:
            self.more += 1

    def extend(self, items: Any) -> None:
        for item in items:
            self.append(item)
        self.more += getattr(items, "more", 0)

# A JSON string, unrolled so the regex engine does not backtrack per character.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def too_deep(data: bytes) -> bool:
    """Whether a JSON text nests deeper than MAX_DEPTH: whether, strings set aside, the `[` and
    `{` open at some point outnumber it (a `]` or `}` closes the innermost one open; with none
    open it closes nothing: the parser reports such a text). Cheap when it cannot (short texts,
    few brackets); otherwise one pass over the brackets alone (the strings and everything else
    removed in C)."""
    # the brackets counted by one pass that drops them (in C), not two counts: ~30% less
    if len(data) <= 2 * MAX_DEPTH or len(data) - len(data.translate(None, b"[{")) <= MAX_DEPTH:
        return False
    depth = 0
    for c in _STRING.sub(b"", data).translate(None, _NOT_BRACKETS):
        if c == 91 or c == 123:  # [ {
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif depth:
            depth -= 1
    return False


def value_depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """The nesting depth of a Python JSON value (dicts and lists), counted without recursion and
    stopping once it passes ``limit``."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if type(node) is dict:
            children: Any = node.values()
        elif type(node) is list:
            children = node
        else:
            continue
        if depth > deepest:
            deepest = depth
            if deepest > limit:
                return deepest
        stack.extend((c, depth + 1) for c in children if type(c) is dict or type(c) is list)
    return deepest


# A surrogate escape not part of a high-low pair. The escape must start a real escape: preceded
# by an even number of backslashes (an odd one makes its backslash a literal).
_LONE_ESCAPE = re.compile(
    rb"(?<!\\)(?:\\\\)*(?:\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|(\\u[dD][89a-fA-F][0-9a-fA-F]{2}))"
)

_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def lone_surrogate_escape(data: bytes) -> bool:
    """Whether a JSON text (one the parser accepts) holds a lone surrogate escape. False
    positives are possible only on text that is not JSON; there are no false negatives."""
    if _SURROGATE_ESCAPE.search(data) is None:  # one C scan: no escape in the surrogate range
        return False
    return any(m.group(1) for m in _LONE_ESCAPE.finditer(data))


_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate(text: str) -> int | None:
    """The index of the first lone surrogate in a str, or None. (A Python str never holds a
    valid pair as two code points once decoded, so any surrogate is lone.)"""
    if text.isascii():
        return None
    found = _SURROGATE.search(text)
    return None if found is None else found.start()


def safe_text(text: str) -> str:
    """Text that can be printed and written as UTF-8: each lone surrogate becomes its escape."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def int_digits_limit() -> int:
    """The most digits an integer may have (0: no limit): CPython's, which msgspec follows too."""
    return sys.get_int_max_str_digits()


def finite_float(text: str) -> float:
    """A JSON number with a fraction or an exponent, as msgspec reads one where any JSON may be
    (its ``float_hook``): the same double (both round correctly), and one beyond a double's range
    refused with msgspec's own words (ValueError, which msgspec reports as the ValidationError
    ``Number out of range - at `$...` `` it raises itself).

    Why a hook: msgspec's own reader takes 7-14 us for a number of 10^289 or more (``1e300``,
    ``1.7976931348623157e308``: its fast algorithm covers exponents up to 288 and it falls back
    to a decimal long division), ~400 times its ~20 ns for any other, so a megabyte of them cost
    1.5 s where ``json.loads`` takes 50 ms; ``float`` reads each in ~0.1-0.3 us. A value msgspec
    reads by type (a field typed ``float``) it still reads itself: docs/limits.md says what that
    costs."""
    value = float(text)
    if value in _INFINITIES:
        raise ValueError("Number out of range")
    return value


_INFINITIES = (float("inf"), float("-inf"))


def big_exponent(data: bytes | bytearray | memoryview | str) -> bool:
    """Whether a text may hold a number msgspec's own reader reads slowly: an exponent of three
    digits or more (``e300``, ``E+0300``), which every such number written in fewer than ~190
    digits has; a number it misses takes that many bytes beside it (~60 ns a byte at most).
    True for some texts that hold none (a word ending in e before three digits): those are read
    through the hook, with the same result. One pass in C (``translate``, then one search):
    ~0.75 ns a byte, which a short text's few numbers would not repay."""
    if isinstance(data, str):
        return _EXPONENT_TEXT(data.translate(_EXPONENT_MAP)) is not None
    if isinstance(data, memoryview):
        data = data.tobytes()
    return _EXPONENT(data.translate(_EXPONENT_BYTES)) is not None


def hook_first(data: bytes | bytearray | memoryview | str) -> bool:
    """Whether a long text is read with msgspec's ``float_hook`` rather than without: it holds no
    ``.`` (a number of any JSON with a fraction has one, so the hook has few numbers to cost, and
    a memchr answers), or it may hold a number msgspec reads slowly (``big_exponent``)."""
    if isinstance(data, str):
        return "." not in data or big_exponent(data)
    return 46 not in data or big_exponent(data)


# every digit a 0, E and + an e: an exponent of three digits or more is then "e000"
_EXPONENT_BYTES = bytes.maketrans(b"0123456789E+", b"0000000000ee")
_EXPONENT_MAP = {c: "0" for c in range(0x30, 0x3A)} | {0x45: "e", 0x2B: "e"}
_EXPONENT = re.compile(rb"e000").search
_EXPONENT_TEXT = re.compile("e000").search
