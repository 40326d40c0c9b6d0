"""The protobuf wire, below any message of the spec: varints, tags and lengths read strictly,
unknown fields skipped (or refused), the well-known JSON messages (google.protobuf.Value,
Struct, ListValue) encoded and decoded, and the error a decoder raises for bytes that are not
a well-formed message. The generated ``codec_proto`` module holds one decode and one encode
function per message of ``protocol.proto`` and calls these.

Decoders read ``bytes`` from position 0 to the end and raise ``WireError`` (never another
exception) for malformed bytes; the caller adds the protobuf field path and the byte offset
of the sub-message as the error unwinds (``WireError.at``). An ``IndexError`` (a read past the
end) or a ``UnicodeDecodeError`` inside a message is turned into a ``WireError`` by
``malformed``.
"""

from __future__ import annotations

import math
import struct
from contextvars import ContextVar
from typing import Any

from .errors import Issue
from .limits import MAX_DEPTH, Capped, show_number

__all__ = [
    "DROPPED",
    "LENIENT",
    "M64",
    "MAX_SAFE_INTEGER",
    "SHORT_VARINTS",
    "WIRE_TYPES",
    "Dropped",
    "Unencodable",
    "WireError",
    "decode_list",
    "decode_struct",
    "decode_value",
    "encode_struct",
    "encode_value",
    "locate",
    "malformed",
    "pack_double",
    "read_u32",
    "read_varint",
    "skip",
    "truncated",
    "unpack_double",
    "varint",
]

MAX_SAFE_INTEGER = 2**53 - 1
"""The largest integer a google.protobuf.Value carries exactly (its numbers are doubles)."""

WIRE_TYPES = {
    0: "varint",
    1: "64-bit",
    2: "length-delimited",
    3: "group start",
    4: "group end",
    5: "32-bit",
    6: "wire type 6",
    7: "wire type 7",
}
M64 = (1 << 64) - 1
SHORT_VARINTS = [bytes((i,)) for i in range(128)]
"""The varints of 0 to 127, one byte each (most lengths and enum numbers)."""
pack_double = struct.Struct("<d").pack
unpack_double = struct.Struct("<d").unpack_from
LENIENT: ContextVar[list[Issue] | None] = ContextVar(
    f"{__name__}.lenient", default=None
)
"""While a lenient decode runs: the list unknown fields are reported to (else None: refused)."""

_V = SHORT_VARINTS


class WireError(Exception):
    """Bytes that are not a well-formed message of the wire schema: where (the protobuf field
    path, filled in while the decoder unwinds), what (a keyword) and the byte offset."""

    def __init__(self, keyword: str, message: str, offset: int) -> None:
        super().__init__(message)
        self.keyword = keyword
        self.message = message
        self.offset = offset
        self.path: list[str] = []

    def at(self, name: str, base: int, index: int | None = None) -> WireError:
        self.offset += base
        if index is not None:
            self.path.insert(0, str(index))
        self.path.insert(0, name.replace("~", "~0").replace("/", "~1"))
        return self

    def issue(self, definition: str) -> Issue:
        pointer = "".join("/" + p for p in self.path)
        return Issue(
            pointer, definition, self.keyword, f"{self.message} (at byte {self.offset})"
        )


class Dropped:
    """A oneof message carrying only an arm this build does not know (lenient decoding); also
    what a decoder holds for a singular field not (yet) read."""


DROPPED: Any = Dropped()


class Unencodable(Exception):
    """A value the wire cannot carry exactly (located by `locate` for the error)."""


# -- varints ------------------------------------------------------------------------------------


def varint(n: int) -> bytes:
    """A non-negative integer as a protobuf varint."""
    if n < 0x80:
        return _V[n]
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def read_varint(data: bytes | memoryview, pos: int) -> tuple[int, int]:
    """The varint at pos (a uint64: at most ten bytes) and the position after it."""
    start = pos
    result = 0
    shift = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            break
        shift += 7
        if shift >= 70:
            raise WireError("varint", "varint longer than ten bytes", start)
    if result > M64:
        raise WireError("varint", "varint overflows 64 bits", start)
    return result, pos


def read_u32(data: bytes | memoryview, pos: int, what: str) -> tuple[int, int]:
    """A tag or a length: a varint of at most five bytes holding a uint32."""
    start = pos
    result = 0
    shift = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            break
        shift += 7
        if shift >= 35:
            raise WireError("varint", f"{what} varint longer than five bytes", start)
    if result > 0xFFFFFFFF:
        raise WireError("varint", f"{what} overflows 32 bits", start)
    return result, pos


def truncated(what: str, pos: int) -> WireError:
    return WireError("truncated", f"{what} runs past the end of the message", pos)


def skip(
    data: bytes | memoryview, pos: int, tag: int, message: str, known: dict[int, tuple[str, int]]
) -> int:
    """A field this message does not know (the tag is read, pos is after it): an error, or when
    decoding leniently skipped and reported. ``known``: the message's fields by number, with
    their wire types, so that a known field on another wire type is named as such."""
    number = tag >> 3
    wt = tag & 7
    if number == 0:
        raise WireError("zero-tag", f"field number 0 in {message}", pos - 1)
    if number in known:
        name, expected = known[number]
        raise WireError(
            "wire-type",
            f"{message}.{name} ({number}) is {WIRE_TYPES[expected]}, not {WIRE_TYPES[wt]}",
            pos - 1,
        )
    start = pos
    end = len(data)
    if wt == 0:
        if data[pos] < 0x80:  # a one-byte varint: the commonest unknown field, read inline
            pos += 1
        else:
            _, pos = read_varint(data, pos)
    elif wt == 1:
        pos += 8
    elif wt == 2:
        n, pos = read_u32(data, pos, "length")
        pos += n
    elif wt == 5:
        pos += 4
    else:
        raise WireError(
            "wire-type",
            f"field {number} of {message} uses {WIRE_TYPES[wt]}: groups are not part of proto3",
            start - 1,
        )
    if pos > end:
        raise truncated(f"unknown field {number} of {message}", start)
    warnings = LENIENT.get()
    if warnings is None:
        raise WireError(
            "unknown-field",
            f"{message} has no field {number} ({WIRE_TYPES[wt]})",
            start - 1,
        )
    if type(warnings) is Capped and warnings.limit is not None and len(warnings) >= warnings.limit:
        warnings.more += 1  # counted, not made: a message can carry a field per two bytes
        return pos
    warnings.append(
        Issue(
            "",
            message,
            "unknown-field",
            f"unknown field {number} ({WIRE_TYPES[wt]}) of {message} skipped",
        )
    )
    return pos


def malformed(exc: Exception, message: str, tag: int, pos: int) -> WireError:
    """What an unexpected end of data or invalid UTF-8 inside a message means."""
    where = f"field {tag >> 3} of {message}" if tag else message
    if isinstance(exc, UnicodeDecodeError):
        return WireError("utf8", f"{where} is not valid UTF-8: {exc.reason}", pos)
    return truncated(where, pos)


# -- google.protobuf.Value, Struct, ListValue ------------------------------------------------------

_K_VALUE = {
    1: ("null_value", 0),
    2: ("number_value", 1),
    3: ("string_value", 2),
    4: ("bool_value", 0),
    5: ("struct_value", 2),
    6: ("list_value", 2),
}
_K_STRUCT = {1: ("fields", 2)}
_K_ENTRY = {1: ("key", 2), 2: ("value", 2)}
_K_LIST = {1: ("values", 2)}


def encode_value(v: Any) -> bytes:
    """Any JSON value as a google.protobuf.Value (Unencodable: a value JSON or a double
    cannot hold)."""
    t = type(v)
    if t is str:
        b: bytes = v.encode()
        n = len(b)
        return b"\x1a" + (_V[n] if n < 0x80 else varint(n)) + b
    if t is int:
        if -MAX_SAFE_INTEGER <= v <= MAX_SAFE_INTEGER:
            return b"\x11" + pack_double(v)
        raise Unencodable(
            f"integer {show_number(v)} is beyond 2^53 - 1: a google.protobuf.Value number is a double and would round it"
        )
    if t is float:
        if math.isfinite(v):
            return b"\x11" + pack_double(v)
        raise Unencodable(f"{v} is not a JSON number")
    if t is bool:
        return b"\x20\x01" if v else b"\x20\x00"
    if v is None:
        return b"\x08\x00"
    if t is dict:
        s = encode_struct(v)
        n = len(s)
        return b"\x2a" + (_V[n] if n < 0x80 else varint(n)) + s
    if t is list:
        out = bytearray()
        for x in v:
            e = encode_value(x)
            n = len(e)
            out += b"\x0a"
            out += _V[n] if n < 0x80 else varint(n)
            out += e
        n = len(out)
        return b"\x32" + (_V[n] if n < 0x80 else varint(n)) + out
    raise Unencodable(f"a {t.__name__} is not a JSON value")


def encode_struct(v: dict[str, Any]) -> bytearray:
    """A JSON object as a google.protobuf.Struct, its entries in document order."""
    out = bytearray()
    for key, x in v.items():
        k = key.encode()
        e = encode_value(x)
        n = len(k)
        m = len(e)
        entry = (
            (b"\x0a" + (_V[n] if n < 0x80 else varint(n)) + k if n else b"")
            + b"\x12"
            + (_V[m] if m < 0x80 else varint(m))
            + e
        )
        n = len(entry)
        out += b"\x0a"
        out += _V[n] if n < 0x80 else varint(n)
        out += entry
    return out


_VIEW = 1024
"""A value longer than this is read through a memoryview: each nested struct, list and value is
then a view of the same bytes, not a copy of its own (a struct nested to the depth limit around
a long string would otherwise copy the string once per level)."""


def decode_value(data: bytes | memoryview, depth: int = 1) -> Any:
    """A google.protobuf.Value; ``depth``: the nesting a struct or list here would have."""
    if type(data) is bytes and len(data) > _VIEW:
        data = memoryview(data)
    pos = 0
    end = len(data)
    tag = 0
    kind = 0
    v: Any = None
    try:
        while pos < end:
            tag = data[pos]
            pos += 1
            if tag >= 0x80:
                tag, pos = read_u32(data, pos - 1, "tag")
            if tag in (8, 17, 26, 32, 42, 50):
                if kind:
                    which = "twice" if kind == tag else "more than one kind"
                    raise WireError(
                        "duplicate" if kind == tag else "oneof",
                        f"google.protobuf.Value sets {which}",
                        pos - 1,
                    )
                kind = tag
            if tag == 26:
                n = data[pos]
                if n < 0x80:
                    pos += 1
                else:
                    n, pos = read_u32(data, pos, "length")
                stop = pos + n
                if stop > end:
                    raise truncated("string_value (3)", pos)
                v = data[pos:stop].decode() if type(data) is bytes else str(data[pos:stop], "utf-8")
                pos = stop
            elif tag == 17:
                if pos + 8 > end:
                    raise truncated("number_value (2)", pos)
                x = unpack_double(data, pos)[0]
                if not math.isfinite(x):
                    raise WireError(
                        "value",
                        f"number_value (2) is {x}: JSON has no such number",
                        pos,
                    )
                pos += 8
                # an integral double reads as the integer it prints as, but for -0.0: its
                # sign would be lost, and a second trip would not give the same bytes
                v = (
                    int(x)
                    if x.is_integer() and -MAX_SAFE_INTEGER <= x <= MAX_SAFE_INTEGER and (x or not math.copysign(1.0, x) < 0)
                    else x
                )
            elif tag == 42 or tag == 50:
                n = data[pos]
                if n < 0x80:
                    pos += 1
                else:
                    n, pos = read_u32(data, pos, "length")
                stop = pos + n
                if stop > end:
                    raise truncated(
                        "struct_value (5)" if tag == 42 else "list_value (6)", pos
                    )
                try:
                    v = (
                        decode_struct(data[pos:stop], depth)
                        if tag == 42
                        else decode_list(data[pos:stop], depth)
                    )
                except WireError as exc:
                    exc.offset += pos
                    raise
                pos = stop
            elif tag == 32 or tag == 8:
                n = data[pos]
                if n < 0x80:
                    pos += 1
                else:
                    n, pos = read_varint(data, pos)
                if tag == 8:
                    if n != 0:
                        raise WireError(
                            "enum",
                            f"null_value (1) is {n}: google.protobuf.NullValue has only 0",
                            pos - 1,
                        )
                    v = None
                elif n > 1:
                    raise WireError(
                        "range", f"bool_value (4) is {n}: a bool is 0 or 1", pos - 1
                    )
                else:
                    v = n == 1
            else:
                pos = skip(data, pos, tag, "google.protobuf.Value", _K_VALUE)
    except (IndexError, UnicodeDecodeError) as exc:
        raise malformed(exc, "google.protobuf.Value", tag, pos) from None
    if not kind:
        raise WireError(
            "oneof", "google.protobuf.Value sets no kind (JSON has no such value)", 0
        )
    return v


def decode_struct(data: bytes | memoryview, depth: int = 1) -> dict[str, Any]:
    """A google.protobuf.Struct as a JSON object (a key given twice is an error)."""
    if type(data) is bytes and len(data) > _VIEW:
        data = memoryview(data)
    if depth > MAX_DEPTH:
        raise WireError(
            "depth", f"values nest deeper than {MAX_DEPTH} structs and lists", 0
        )
    out: dict[str, Any] = {}
    pos = 0
    end = len(data)
    tag = 0
    try:
        while pos < end:
            tag = data[pos]
            pos += 1
            if tag >= 0x80:
                tag, pos = read_u32(data, pos - 1, "tag")
            if tag != 10:
                pos = skip(data, pos, tag, "google.protobuf.Struct", _K_STRUCT)
                continue
            n = data[pos]
            if n < 0x80:
                pos += 1
            else:
                n, pos = read_u32(data, pos, "length")
            stop = pos + n
            if stop > end:
                raise truncated("fields (1)", pos)
            try:
                key, value = _decode_entry(data[pos:stop], len(out), depth + 1)
            except WireError as exc:
                exc.offset += pos
                raise
            if key in out:
                raise WireError(
                    "duplicate",
                    f"google.protobuf.Struct has the key {key!r} twice",
                    pos,
                )
            out[key] = value
            pos = stop
    except (IndexError, UnicodeDecodeError) as exc:
        raise malformed(exc, "google.protobuf.Struct", tag, pos) from None
    return out


def _decode_entry(data: bytes | memoryview, index: int, depth: int) -> tuple[str, Any]:
    pos = 0
    end = len(data)
    tag = 0
    key: str | None = None
    value: Any = DROPPED
    try:
        while pos < end:
            tag = data[pos]
            pos += 1
            if tag >= 0x80:
                tag, pos = read_u32(data, pos - 1, "tag")
            if tag == 10 or tag == 18:
                n = data[pos]
                if n < 0x80:
                    pos += 1
                else:
                    n, pos = read_u32(data, pos, "length")
                stop = pos + n
                if stop > end:
                    raise truncated("key (1)" if tag == 10 else "value (2)", pos)
                if tag == 10:
                    if key is not None:
                        raise WireError(
                            "duplicate",
                            "google.protobuf.Struct entry sets its key twice",
                            pos,
                        )
                    key = data[pos:stop].decode() if type(data) is bytes else str(data[pos:stop], "utf-8")
                else:
                    if value is not DROPPED:
                        raise WireError(
                            "duplicate",
                            "google.protobuf.Struct entry sets its value twice",
                            pos,
                        )
                    try:
                        value = decode_value(data[pos:stop], depth)
                    except WireError as exc:
                        raise exc.at(
                            key if key is not None else f"fields[{index}]", pos
                        ) from None
                pos = stop
            else:
                pos = skip(
                    data, pos, tag, "google.protobuf.Struct.FieldsEntry", _K_ENTRY
                )
    except (IndexError, UnicodeDecodeError) as exc:
        raise malformed(exc, "google.protobuf.Struct.FieldsEntry", tag, pos) from None
    if value is DROPPED:
        raise WireError(
            "missing", f"google.protobuf.Struct entry {key or index!r} has no value", 0
        )
    return key or "", value


def decode_list(data: bytes | memoryview, depth: int = 1) -> list[Any]:
    """A google.protobuf.ListValue as a JSON array."""
    if type(data) is bytes and len(data) > _VIEW:
        data = memoryview(data)
    if depth > MAX_DEPTH:
        raise WireError(
            "depth", f"values nest deeper than {MAX_DEPTH} structs and lists", 0
        )
    out: list[Any] = []
    pos = 0
    end = len(data)
    tag = 0
    try:
        while pos < end:
            tag = data[pos]
            pos += 1
            if tag >= 0x80:
                tag, pos = read_u32(data, pos - 1, "tag")
            if tag != 10:
                pos = skip(data, pos, tag, "google.protobuf.ListValue", _K_LIST)
                continue
            n = data[pos]
            if n < 0x80:
                pos += 1
            else:
                n, pos = read_u32(data, pos, "length")
            stop = pos + n
            if stop > end:
                raise truncated("values (1)", pos)
            try:
                out.append(decode_value(data[pos:stop], depth + 1))
            except WireError as exc:
                raise exc.at(str(len(out)), pos) from None
            pos = stop
    except (IndexError, UnicodeDecodeError) as exc:
        raise malformed(exc, "google.protobuf.ListValue", tag, pos) from None
    return out


def locate(value: Any, pointer: str = "") -> tuple[str, str] | None:
    """Where in a document a value sits that the wire cannot carry, and why."""
    t = type(value)
    if t is int and not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
        return (
            pointer,
            f"integer {show_number(value)} is beyond 2^53 - 1: a google.protobuf.Value number is a double and would round it",
        )
    if t is float and not math.isfinite(value):
        return pointer, f"{value} is not a JSON number"
    if t is str:
        try:
            value.encode()
        except UnicodeEncodeError as exc:
            return pointer, f"string is not encodable as UTF-8: {exc.reason}"
    if t is dict:
        for k, v in value.items():
            key = str(k).replace("~", "~0").replace("/", "~1")
            found = locate(k, f"{pointer}/{key}") if type(k) is str else None
            found = found or locate(v, f"{pointer}/{key}")
            if found:
                return found
    if t is list:
        for i, v in enumerate(value):
            found = locate(v, f"{pointer}/{i}")
            if found:
                return found
    return None
