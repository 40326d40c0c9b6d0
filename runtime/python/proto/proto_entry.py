"""The protobuf codec's entry points, over the generated message functions: ``Codec`` holds
the table of what the spec carries on its own (``Entry``: per definition, the message it
travels as, that message's decode and encode functions, the type its decoded document is
converted to) and turns bytes into typed values and back, holding every document to the JSON
Schema as ``codec_json`` does. ``codec_proto`` builds one and exports its methods.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import msgspec

from . import codec_json
from .errors import DecodeError, EncodeError, Issue
from . import limits
from .limits import MAX_DEPTH, Capped, value_depth
from .proto_wire import DROPPED, LENIENT, Unencodable, WireError, locate
from .validation import DROP, Validation

__all__ = ["Codec", "Decoded", "Entry"]

Data = bytes | bytearray | memoryview


class Entry(NamedTuple):
    """One definition the codec carries on its own."""

    message: str
    decode: Callable[[bytes], Any]
    encode: Callable[[dict[str, Any]], bytearray]
    convert: Any  # the type the decoded document must be (a union: its members by discriminator)
    expect: Any  # the class the result must then be (a union's member), or None
    discriminator: str | None = None
    classes: dict[Any, Any] | None = None

    def fast_class(self, document: Any) -> Any:
        """The class to convert a document to without going through a union's type (msgspec
        converts to a class in well under a microsecond, to a union alias far slower).
        """
        if self.classes is None:
            return self.convert
        return (
            self.classes.get(document.get(self.discriminator))
            if type(document) is dict
            else None
        )


class Decoded(NamedTuple):
    """A lenient decode: the value, what was skipped or stripped (the first ``limits.MAX_ERRORS``
    of each), whether the whole message was dropped (an envelope's arm this build does not
    know: ``value`` is then None), and how many more warnings there were than are listed."""

    value: Any
    warnings: tuple[Issue, ...]
    dropped: bool = False
    omitted: int = 0


def _too_deep(definition: str) -> DecodeError:
    return DecodeError(
        definition,
        [Issue("", definition, "depth", "the message nests too deeply to decode")],
    )


class Codec:
    """Bytes <-> typed values for the definitions in ``entries``; ``root`` is the definition
    bytes are decoded as when none is named, ``definitions`` the spec's definitions by name
    (``models.DEFINITIONS``: a typed value's class names the definition it is encoded as).
    """

    def __init__(
        self, root: str, entries: dict[str, Entry], definitions: Mapping[str, Any]
    ) -> None:
        self.root = root
        self.entries = entries
        self.by_class: dict[Any, str] = {
            v: k for k, v in definitions.items() if isinstance(v, type) and k in entries
        }

    def _entry(self, definition: str) -> Entry:
        try:
            return self.entries[definition]
        except KeyError:
            raise ValueError(
                f"{definition!r} has no message of its own on the wire: the codec carries {', '.join(self.entries)}"
            ) from None

    def _document(self, entry: Entry, data: Data, definition: str) -> Any:
        """The JSON document the bytes carry, or DecodeError. A document nesting deeper than
        MAX_DEPTH as JSON is refused as codec_json refuses it, so that both codecs accept the
        same documents; each level costs at least a byte, so a short message needs no walk.
        """
        try:
            document = entry.decode(data if type(data) is bytes else bytes(data))
            if len(data) >= MAX_DEPTH and value_depth(document) > MAX_DEPTH:
                raise WireError(
                    "depth",
                    f"the document nests deeper than {MAX_DEPTH} arrays and objects",
                    0,
                )
        except WireError as exc:
            raise DecodeError(definition, [exc.issue(definition)]) from None
        except RecursionError:
            raise _too_deep(definition) from None
        return document

    def decode_document(self, data: Data, definition: str | None = None) -> Any:
        """The JSON document the bytes carry, checked against the wire schema but not yet
        against the JSON Schema (``decode`` does both)."""
        name = self.root if definition is None else definition
        return self._document(self._entry(name), data, name)

    def decode(self, data: Data, definition: str | None = None) -> Any:
        """Strictly decode one message as a definition (default: the root): the typed value,
        or DecodeError."""
        name = self.root if definition is None else definition
        entry = self.entries.get(name) or self._entry(name)
        document = self._document(entry, data, name)
        # the usual case, inline (`_fast`): a document msgspec converts as it is
        classes = entry.classes
        if classes is None:
            cls = entry.convert
        elif type(document) is dict:
            cls = classes.get(document.get(entry.discriminator))
        else:
            cls = None
        if cls is not None:
            try:
                value = msgspec.convert(document, cls, strict=True)
            except (msgspec.ValidationError, RecursionError):
                pass
            else:
                if entry.expect is None or type(value) is entry.expect:
                    return value
        return _typed(document, name, entry, False).value

    def decode_lenient(self, data: Data, definition: str | None = None) -> Decoded:
        """Decode as a receiver from an older build does: fields and oneof arms this schema
        does not know are skipped, and what the JSON Schema's lenient rules strip (an unknown
        property, an unknown discriminator value...) is stripped; each is reported. A known
        field with a wrong value is still an error."""
        name = self.root if definition is None else definition
        entry = self._entry(name)
        skipped = Capped(limits.MAX_ERRORS)
        token = LENIENT.set(skipped)
        try:
            document = self._document(entry, data, name)
        finally:
            LENIENT.reset(token)
        if document is DROPPED:
            return Decoded(None, tuple(skipped), True, skipped.more)
        try:
            result = _typed(document, name, entry, True)
        except DecodeError as exc:  # what was skipped and stripped before it failed goes with it
            raise DecodeError(name, list(exc.errors), exc.count, (*skipped, *exc.warnings)) from None
        return Decoded(result.value, tuple(skipped) + result.warnings, result.dropped, skipped.more + result.omitted)

    def encode(
        self,
        value: Any,
        definition: str | type[Any] | None = None,
        *,
        validate: bool = True,
    ) -> bytes:
        """The protobuf bytes of a typed value; a oneof union's member is wrapped in its
        union's message, as it travels (an event in its envelope). With ``validate`` (the
        default) the value is first held to the JSON Schema, so a hand-built value with a wrong
        type raises EncodeError instead of reaching a peer as something else."""
        if definition is None:
            found = self.by_class.get(type(value))
            if found is None:
                raise TypeError(
                    f"name the definition a {type(value).__name__} should be encoded as"
                )
            name = found
        elif isinstance(definition, str):
            name = definition
        else:
            name = self.by_class.get(definition, getattr(definition, "__name__", "?"))
        entry = self._entry(name)
        try:
            document = msgspec.to_builtins(value)
        except (TypeError, ValueError, RecursionError, msgspec.EncodeError) as exc:
            raise EncodeError(
                name, [Issue("", name, "type", f"cannot encode: {type(exc).__name__}")]
            ) from None
        if validate:
            _check(document, name, entry)
        return _wire(document, name, entry)

    def encode_document(
        self, document: Any, definition: str | None = None, *, validate: bool = True
    ) -> bytes:
        """The protobuf bytes of a JSON document (plain dicts and lists, camelCase names). With
        ``validate`` the document is held to the JSON Schema first, and what an open object
        carries beyond its declared members (accepted and ignored, as by ``codec_json``) is
        left out."""
        name = self.root if definition is None else definition
        entry = self._entry(name)
        if validate:
            value = _check(document, name, entry)
            try:
                document = msgspec.to_builtins(value)
            except RecursionError:  # a JSON value deeper than the stack: past MAX_DEPTH
                raise _nests_too_deep(name) from None
        return _wire(document, name, entry)


def _fast(document: Any, entry: Entry) -> Any:
    """The typed value when the document is exactly right, else None."""
    cls = entry.fast_class(document)
    if cls is None:
        return None
    try:
        value = msgspec.convert(document, cls, strict=True)
    except (msgspec.ValidationError, RecursionError):
        return None
    if entry.expect is not None and type(value) is not entry.expect:
        return None
    return value


def _typed(document: Any, definition: str, entry: Entry, lenient: bool) -> Decoded:
    value = _fast(document, entry)
    if value is not None:
        return Decoded(value, ())
    check = Validation(lenient)
    cleaned = check.run(document, definition)
    if check.errors or check.errors.more:  # type: ignore[attr-defined]
        raise DecodeError(definition, check.errors, warnings=check.warnings)
    omitted = getattr(check.warnings, "more", 0)
    if cleaned is DROP:
        return Decoded(None, tuple(check.warnings), True, omitted)
    try:
        try:
            value = msgspec.convert(cleaned, entry.convert, strict=True)
        except msgspec.ValidationError:
            # the classes refuse undeclared members: a document whose open objects carry some
            # is made as codec_json makes it, through the open twins
            value = codec_json.decoder(definition)._convert(cleaned)
    except msgspec.ValidationError as exc:
        raise DecodeError(
            definition, [Issue("", definition, "representation", str(exc))]
        ) from None
    if entry.expect is not None and type(value) is not entry.expect:
        raise DecodeError(
            definition,
            [Issue("", definition, "oneOf", f"decodes as {type(value).__name__}")],
        )
    return Decoded(value, tuple(check.warnings), False, omitted)


def _wire(document: Any, definition: str, entry: Entry) -> bytes:
    """The bytes of a document, or EncodeError: a document nesting deeper than MAX_DEPTH as
    JSON is refused (as codec_json refuses to write it). Each level of a document costs at
    least a byte of its encoding, so short output needs no walk."""
    try:
        data = bytes(entry.encode(document))
    except (
        Unencodable,
        UnicodeEncodeError,
        KeyError,
        TypeError,
        AttributeError,
        ValueError,
        RecursionError,
    ) as exc:
        if value_depth(document) > MAX_DEPTH:
            raise _nests_too_deep(definition) from None
        found = locate(document)
        if found is not None:
            pointer, message = found
        else:
            pointer, message = "", f"cannot encode: {exc}"
        raise EncodeError(
            definition, [Issue(pointer, definition, "wire", message)]
        ) from None
    if len(data) >= MAX_DEPTH and value_depth(document) > MAX_DEPTH:
        raise _nests_too_deep(definition)
    return data


def _nests_too_deep(definition: str) -> EncodeError:
    return EncodeError(
        definition,
        [
            Issue(
                "",
                definition,
                "depth",
                f"nested deeper than {MAX_DEPTH} arrays and objects",
            )
        ],
    )


def _check(document: Any, definition: str, entry: Entry) -> Any:
    """The typed value of a document about to be encoded, or EncodeError naming each problem."""
    value = _fast(document, entry)
    if value is not None:
        return value
    try:
        return _typed(document, definition, entry, False).value
    except DecodeError as exc:
        raise EncodeError(definition, list(exc.errors)) from None
