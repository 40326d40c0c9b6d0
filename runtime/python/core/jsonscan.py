"""The members of a JSON text read without building it: where the items of a top-level array, or
the members of a top-level object, begin and end. A file of events in JSON (an array, a test
case) is read so: its grammar checked whole, each item then decoded by the codec on its own, as
a line of JSON Lines is (its depth counted from the item, its numbers and strings held to the
codec's limits there, so that one bad event is that event's finding, not the file's).

The scan needs no stack frames (a list of open containers), so no nesting stops it; it refuses
exactly the texts CPython's ``json`` module refuses, with the same message at the same line and
column (strings are read by that module's own scanner), NaN and Infinity as the codec refuses
them, and a text that is not UTF-8 or opens with a byte order mark as the codec does. Every
binding of this spec scans the same way (the TypeScript binding's ``scanItems`` in json.ts).

Standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from json import JSONDecodeError
from json import decoder as _decoder
from typing import NamedTuple

from .errors import JSONParseError

__all__ = ["Scanned", "scan", "scan_text", "text_of", "member_scalar"]

_WS = re.compile(r"[ \t\n\r]*")
# CPython's own string scanner (C): the same values, messages and positions as json.loads
scanstring: Callable[[str, int, bool], tuple[str, int]] = _decoder.scanstring  # type: ignore[attr-defined]
# CPython's number grammar (json.scanner), ASCII digits only
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)")
_CONSTANTS = (("NaN", "N"), ("Infinity", "I"), ("-Infinity", "-"))
_BOM = b"\xef\xbb\xbf"


class Scanned(NamedTuple):
    """A JSON text's top level: ``kind`` is ``array``, ``object`` or ``value`` (anything else);
    ``spans`` the (start, end) of each item of an array, in order; ``members`` the (name, start,
    end) of each member of an object, in document order (a name may repeat)."""

    text: str
    kind: str
    spans: list[tuple[int, int]]
    members: list[tuple[str, int, int]]


def text_of(data: bytes) -> str:
    """A JSON text's bytes as text, or JSONParseError: not UTF-8, or a byte order mark first
    (the codec's rule and messages: ``limits``)."""
    if data[:3] == _BOM:
        raise JSONParseError("a byte order mark opens the document: JSON text is UTF-8 without one (RFC 8259 section 8.1)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JSONParseError(f"not UTF-8 at byte {exc.start}: {exc.reason} (JSON text is UTF-8, RFC 8259 section 8.1)") from None


def scan(data: bytes) -> Scanned:
    """A JSON text's top level, or JSONParseError with the codec's message: not UTF-8, a byte
    order mark, or not JSON."""
    return scan_text(text_of(data))


def _error(message: str, text: str, pos: int) -> JSONParseError:
    line = text.count("\n", 0, pos) + 1
    column = pos - text.rfind("\n", 0, pos)
    return JSONParseError(f"invalid JSON at line {line} column {column}: {message}")


def scan_text(text: str) -> Scanned:
    """``scan`` of a text already decoded."""
    n = len(text)
    ws = _ws
    pos = ws(text, 0)
    kind = "value" if pos >= n or text[pos] not in "[{" else ("array" if text[pos] == "[" else "object")
    spans: list[tuple[int, int]] = []
    members: list[tuple[str, int, int]] = []
    open_: list[bool] = []  # the containers open around pos: True an object, False an array
    key = ""  # the name of the top-level member being read
    start = pos  # where the top-level item or member value being read began
    try:
        while True:
            # a value begins at pos
            if len(open_) == 1:
                start = pos
            if pos >= n:
                raise _error("Expecting value", text, pos)
            c = text[pos]
            if c == '"':
                pos = scanstring(text, pos + 1, True)[1]
            elif c == "{" or c == "[":
                pos = ws(text, pos + 1)
                if pos < n and text[pos] == ("}" if c == "{" else "]"):
                    pos += 1
                else:
                    open_.append(c == "{")
                    if c == "[":
                        continue
                    name, pos = _member_name(text, pos)
                    if len(open_) == 1:
                        key = name
                    continue
            elif c == "n" and text.startswith("null", pos):
                pos += 4
            elif c == "t" and text.startswith("true", pos):
                pos += 4
            elif c == "f" and text.startswith("false", pos):
                pos += 5
            else:
                for constant, first in _CONSTANTS:
                    if c == first and text.startswith(constant, pos):
                        raise JSONParseError(f"{constant} is not JSON")
                found = _NUMBER.match(text, pos)
                if found is None:
                    raise _error("Expecting value", text, pos)
                pos = found.end()
            # a value ended at pos: close what it closes, then a delimiter and the next value
            while True:
                if len(open_) == 1:
                    if open_[0]:
                        members.append((key, start, pos))
                    else:
                        spans.append((start, pos))
                if not open_:
                    end = ws(text, pos)
                    if end != n:
                        raise _error("Extra data", text, end)
                    return Scanned(text, kind, spans, members)
                pos = ws(text, pos)
                is_object = open_[-1]
                if pos < n and text[pos] == ("}" if is_object else "]"):
                    pos += 1
                    open_.pop()
                    continue
                if pos >= n or text[pos] != ",":
                    raise _error("Expecting ',' delimiter", text, pos)
                pos = ws(text, pos + 1)
                if is_object:
                    name, pos = _member_name(text, pos)
                    if len(open_) == 1:
                        key = name
                break
    except JSONDecodeError as exc:  # from the string scanner
        raise JSONParseError(f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None


def _member_name(text: str, pos: int) -> tuple[str, int]:
    """A member's name at pos, its colon and the blanks after it: (name, where its value is)."""
    n = len(text)
    if pos >= n or text[pos] != '"':
        raise _error("Expecting property name enclosed in double quotes", text, pos)
    name, pos = scanstring(text, pos + 1, True)
    pos = _ws(text, pos)
    if pos >= n or text[pos] != ":":
        raise _error("Expecting ':' delimiter", text, pos)
    return name, _ws(text, pos + 1)


def _ws(text: str, pos: int) -> int:
    """Where the blanks at pos end."""
    found = _WS.match(text, pos)
    return pos if found is None else found.end()


def member_scalar(data: bytes | str, dotted: str, digits: int) -> str | int | None:
    """The string or integer at a dotted path of members (``a.b``: member b of member a) of a
    JSON text, read by the grammar alone, or None (not UTF-8, not JSON, no such member, another
    kind of value; an integer of more than ``digits`` digits). Of a name given twice, the last,
    as parsing keeps. What an event that does not decode still says about itself, read the
    same way in every binding."""
    try:
        shape = scan_text(data if isinstance(data, str) else text_of(data))
        *path, last = dotted.split(".")
        for part in path:
            found = _member(shape, part)
            if found is None:
                return None
            shape = scan_text(found)
        text = _member(shape, last)
    except JSONParseError:
        return None
    if text is None:
        return None
    if text[0] == '"':
        name: str = scanstring(text, 1, True)[0]
        return name
    if _INTEGER.fullmatch(text) and len(text) - (text[0] == "-") <= digits:
        return int(text)
    return None


def _member(shape: Scanned, name: str) -> str | None:
    if shape.kind != "object":
        return None
    spans = [(a, b) for key, a, b in shape.members if key == name]
    return shape.text[spans[-1][0] : spans[-1][1]] if spans else None
