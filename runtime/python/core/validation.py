"""A small interpreter of ``schema_table``: it finds every problem in a parsed document and, when
lenient, strips what a newer peer may have added (unknown properties of closed objects, union
members with an unknown discriminator). It runs only when the fast typed decoder has refused a
document, so it is written for exact messages, not speed.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import msgspec

from . import limits
from .errors import Issue, JSONParseError
from .jsonscan import text_of
from .limits import MAX_DEPTH, Capped, int_digits_limit, lone_surrogate, lone_surrogate_escape, safe_text, too_deep
from .shown import int_digits, quote, show_number
from .schema_table import DEFINITIONS

__all__ = ["DROP", "Validation", "parse_json", "unreadable", "JSONParseError", "json_equal", "json_type"]

DROP: Any = object()
"""Returned in place of a value the lenient validator stripped as a whole."""

_PATTERNS: dict[str, re.Pattern[str]] = {}


class _Refused:
    """A number the parser read but the document may not hold, kept in place so that it can be
    reported at its JSON Pointer (its message made only if it is reported)."""

    __slots__ = ("text", "limit")

    def __init__(self, text: str, limit: int = 0) -> None:
        self.text = text
        self.limit = limit  # an integer's digits limit; 0: a float out of range

    @property
    def message(self) -> str:
        text = self.text
        if not self.limit:
            return f"number {text[:40]}{'...' if len(text) > 40 else ''} is out of the range of a double"
        digits = len(text) - (text[0] == "-")
        return f"integer of {digits} digits: beyond the limit of {self.limit} digits an integer may have"


def _reject_constant(name: str) -> Any:
    raise JSONParseError(f"{name} is not JSON")


class _Hooks:
    """json.loads number hooks that keep, in place, what the document may not hold."""

    __slots__ = ("refused", "limit")

    def __init__(self) -> None:
        self.refused = 0
        self.limit = int_digits_limit()

    def parse_float(self, text: str) -> Any:
        value = float(text)
        if math.isinf(value):
            self.refused += 1
            return _Refused(text)
        return value

    def parse_int(self, text: str) -> Any:
        digits = len(text) - (text[0] == "-")
        if self.limit and digits > self.limit:
            self.refused += 1
            return _Refused(text, self.limit)
        return int(text)


_DEFAULT: Any = object()


def parse_json(data: bytes | str, max_errors: int | None = _DEFAULT) -> Any:
    """The document as Python values, or JSONParseError with where and why: not UTF-8 (or with a
    byte order mark), not JSON, nested deeper than MAX_DEPTH, a number out of range, a lone
    surrogate (``limits`` says why each is refused). ``max_errors``: how many of the last two
    kinds it lists (default ``limits.MAX_ERRORS``; the rest are counted)."""
    if isinstance(data, str):
        at = lone_surrogate(data)
        if at is not None:
            raise JSONParseError(f"character {at} is a lone surrogate, which is not Unicode text")
        raw = data.encode()
    else:
        raw = bytes(data)
    if 92 not in raw and (len(raw) <= 2 * MAX_DEPTH or not too_deep(raw)):
        # no escape (so no lone surrogate), not too deep: what msgspec reads, it reads exactly as
        # the path below would (numbers, strings, member order, the last of a repeated name);
        # what it refuses (a byte order mark, not UTF-8, not JSON, a number out of range...) the
        # path below explains. A refused document's cost is then mostly its checking.
        try:
            return _READ(raw)
        except (msgspec.DecodeError, msgspec.ValidationError):
            pass
    text = text_of(raw)
    if _BLANK.fullmatch(text):
        raise JSONParseError(empty_document(text))
    if too_deep(raw):
        message = f"nested deeper than {MAX_DEPTH} arrays and objects"
        raise JSONParseError(message, [("", "depth", message)])
    hooks = _Hooks()
    try:
        document = json.loads(text, parse_constant=_reject_constant, parse_float=hooks.parse_float, parse_int=hooks.parse_int)
    except json.JSONDecodeError as exc:
        raise JSONParseError(f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:  # not reached past too_deep; kept so that no stack depth escapes
        raise JSONParseError("JSON nested too deeply", [("", "depth", "JSON nested too deeply")]) from None
    # valid UTF-8 holds no surrogate: a lone one can only come from an escape
    if hooks.refused or lone_surrogate_escape(raw):
        issues = unreadable(document, limits.MAX_ERRORS if max_errors is _DEFAULT else max_errors)
        if issues or issues.more:
            raise JSONParseError(issues[0][2] if issues else "numbers or strings this package cannot hold", issues)
    return document


_READ = msgspec.json.Decoder(float_hook=limits.finite_float).decode
"""msgspec's plain read, its numbers with a fraction or exponent read by ``limits.finite_float``
(msgspec's own reader spends 7-14 us on each of 10^289 or more)."""
_BLANK = re.compile(r"[ \t\n\r]*")  # JSON's whitespace (RFC 8259 section 2), and nothing else


def empty_document(text: str) -> str:
    """What an empty document (or one of whitespace only) is told: it holds no JSON value. Said
    as such, not as the parser's "Expecting value" at its line 1 column 1."""
    return "an empty document: no JSON value" if not text else "a document of whitespace only: no JSON value"


def unreadable(document: Any, most: int | None = None) -> Capped:
    """(pointer, keyword, message) of every lone surrogate and refused number in a parsed
    document, in pointer order: the first ``most`` of them (None: all), the rest counted in the
    result's ``more``. Memory: ``most`` at a time, however many there are."""
    found = _First(most)
    limit = int_digits_limit()
    stack: list[tuple[Any, str]] = [(document, "")]
    while stack:
        node, ptr = stack.pop()
        t = type(node)
        if t is str:
            at = lone_surrogate(node)
            if at is not None:
                found.append((ptr, "json", f"a lone surrogate \\u{ord(node[at]):04x} at character {at}: not Unicode text (RFC 7493)"))
        elif t is _Refused:
            found.append((ptr, "json", node.message))
        elif t is int and limit and node.bit_length() > limit * 3.3219 and int_digits(node) > limit:  # log2(10)
            found.append((ptr, "json", f"an integer of {int_digits(node)} digits: beyond the limit of {limit}"))
        elif t is dict:
            for key, value in node.items():
                sub = f"{ptr}/{_escape(safe_text(key))}"
                at = lone_surrogate(key)
                if at is not None:
                    found.append((sub, "json", f"a lone surrogate \\u{ord(key[at]):04x} in a member name: not Unicode text (RFC 7493)"))
                stack.append((value, sub))
        elif t is list:
            stack.extend((v, f"{ptr}/{i}") for i, v in enumerate(node))
    return found.result()


class _First:
    """The first ``most`` of (pointer, keyword, message) items in pointer order (ties: in the
    order added), in memory bounded by ``most``: the items are sorted and cut each time twice
    ``most`` have gathered."""

    def __init__(self, most: int | None) -> None:
        self.most = most
        self.items: list[tuple[str, int, str, str]] = []
        self.count = 0

    def append(self, item: tuple[str, str, str]) -> None:
        self.items.append((item[0], self.count, item[1], item[2]))
        self.count += 1
        if self.most is not None and len(self.items) >= 2 * self.most + 64:
            self.items.sort()
            del self.items[self.most :]

    def result(self) -> Capped:
        self.items.sort()
        out = Capped(self.most)
        for ptr, _, keyword, message in self.items:
            out.append((ptr, keyword, message))
        out.more = self.count - len(out)
        return out


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if value is True or value is False:
        return "boolean"
    if type(value) is int:
        return "integer"
    if type(value) is float:
        return "integer" if value.is_integer() else "number"
    if type(value) is str:
        return "string"
    if type(value) is list:
        return "array"
    if type(value) is dict:
        return "object"
    return type(value).__name__


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality (RFC 6902's, for one): numbers by value, but a boolean is never a number,
    which Python's == does not tell (True == 1)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return bool(a == b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and bool(a == b)


def _show(value: Any) -> str:
    if type(value) is int:
        return show_number(value)
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


_CHOICES: dict[int, tuple[Any, str]] = {}


def _listed(tags: dict[str, str]) -> str:
    """A union's tags, sorted and listed: made once per union (the table lives as long as the
    module), not once per value checked."""
    found = _CHOICES.get(id(tags))
    if found is None or found[0] is not tags:
        found = _CHOICES[id(tags)] = (tags, ", ".join(sorted(tags)))
    return found[1]


def objects_only(definition: str) -> bool:
    """Whether ``definition`` refuses every JSON value that is not an object, before looking
    at anything else (its check starts with the type: a tagged union, an object, a map). A
    caller that only counts refusals (a findings cap reached) may then refuse a document that
    is not one without the walk: the verdict is the walk's, only its words are not made."""
    node = DEFINITIONS.get(definition)
    seen: set[str] = set()
    while node is not None and node["kind"] == "ref" and node["name"] not in seen:
        seen.add(node["name"])
        node = DEFINITIONS.get(node["name"])
    return node is not None and node["kind"] in ("tagged", "object", "map")


def _loc(loc: str, keyword: str) -> str:
    return f"#{loc}/{keyword}"


class Validation:
    """One pass over one document. ``errors`` and (lenient) ``warnings`` fill as it goes."""

    def __init__(self, lenient: bool = False, max_errors: int | None = _DEFAULT) -> None:
        """``max_errors``: how many errors (and warnings) to keep (default ``limits.MAX_ERRORS``,
        None: all); the rest are counted in ``errors.more`` and ``warnings.more``."""
        self.lenient = lenient
        most = limits.MAX_ERRORS if max_errors is _DEFAULT else max_errors
        self.errors: list[Issue] = Capped(most)
        self.warnings: list[Issue] = Capped(most)

    def run(self, value: Any, definition: str) -> Any:
        """The document, with stripped members removed when lenient (or DROP)."""
        try:
            return self.check(value, {"kind": "ref", "name": definition}, "", definition)
        except RecursionError:
            self.error("", definition, "depth", "document nested too deeply to validate", "")
            return value

    def error(self, ptr: str, definition: str, keyword: str, message: str, loc: str) -> None:
        errors = self.errors
        if type(errors) is Capped and errors.limit is not None and len(errors) >= errors.limit:
            errors.more += 1  # counted, not made
        else:
            errors.append(Issue(ptr, definition, keyword, message, loc))

    def warn(self, ptr: str, definition: str, keyword: str, message: str, loc: str) -> None:
        self.warnings.append(Issue(ptr, definition, keyword, message, loc))

    def check(self, value: Any, node: dict[str, Any], ptr: str, definition: str) -> Any:
        kind = node["kind"]
        if kind == "ref":
            name = node["name"]
            return self.check(value, DEFINITIONS[name], ptr, name)
        return getattr(self, "_" + kind)(value, node, ptr, definition)

    def _type_error(self, value: Any, expected: str, node: dict[str, Any], ptr: str, definition: str) -> None:
        got = json_type(value)
        if type(value) is float and value.is_integer() and expected == "integer":
            got = "a number with a fraction part (integers are written without one)"
        self.error(ptr, definition, "type", f"expected {expected}, got {got}", _loc(node["loc"], "type"))

    def _object(self, value: Any, node: dict[str, Any], ptr: str, definition: str) -> Any:
        if type(value) is not dict:
            self._type_error(value, "object", node, ptr, definition)
            return value
        fields = node["fields"]
        for name, spec in fields.items():
            if spec["required"] and name not in value:
                self.error(ptr, definition, "required", f"missing required property {quote(name)}", "#" + spec["required"])
        out = value
        dropped = False
        for name, member in value.items():
            spec = fields.get(name)
            if spec is None and node["closed"] is None:
                continue  # a member an open object does not declare: valid, nothing to check
            sub = f"{ptr}/{_escape(name)}"
            if spec is None:
                closed = node["closed"]
                # the keyword that closed the object, as the schema wrote it: the last token of its pointer
                keyword = closed[closed.rfind("/") + 1 :]
                if self.lenient:
                    self.warn(sub, definition, keyword, f"unknown property {quote(name)} stripped", "#" + closed)
                    out = dict(out) if out is value else out
                    out.pop(name, None)
                else:
                    self.error(ptr, definition, keyword, f"unknown property {quote(name)}", "#" + closed)
                continue
            checked = self.check(member, spec["type"], sub, definition)
            if checked is DROP:
                # a required member stripped: the value holding it goes instead (processing.mdx),
                # its warning says why; the other members are still checked (nothing goes silently)
                dropped = dropped or bool(spec["required"])
                out = dict(out) if out is value else out
                out.pop(name, None)
            elif checked is not member:
                out = dict(out) if out is value else out
                out[name] = checked
        return DROP if dropped else out

    def _tagged(self, value: Any, node: dict[str, Any], ptr: str, definition: str) -> Any:
        tags: dict[str, str] = node["tags"]
        field = node["field"]
        keyword = node["keyword"]
        choices = _listed(tags)
        where = _loc(node["loc"], keyword)
        if type(value) is not dict:
            self.error(ptr, definition, keyword, f"expected an object with a {quote(field)} of {choices}; got {json_type(value)}", where)
            return value
        if field not in value:
            self.error(ptr, definition, keyword, f"missing discriminator {quote(field)} (one of {choices})", where)
            return value
        tag = value[field]
        member = tags.get(tag) if type(tag) is str else None
        if member is None:
            if self.lenient and type(tag) is str:
                self.warn(ptr, definition, keyword, f"unknown {field} {quote(tag)} stripped (known: {choices})", where)
                return DROP
            self.error(ptr, definition, keyword, f"{field} {_show(tag)} is not one of {choices}", where)
            return value
        return self.check(value, DEFINITIONS[member], ptr, member)

    def _union(self, value: Any, node: dict[str, Any], ptr: str, definition: str) -> Any:
        got = json_type(value)
        for kinds, member in node["members"]:
            if got in kinds or (got == "integer" and "number" in kinds):
                return self.check(value, member, ptr, definition)
        expected = " or ".join(sorted({k for kinds, _ in node["members"] for k in kinds}))
        keyword = node["keyword"]
        self.error(ptr, definition, keyword, f"expected {expected}, got {got}", _loc(node["loc"], keyword))
        return value

    def _enum(self, value: Any, node: dict[str, Any], ptr: str, definition: str) -> Any:
        # the keyword the schema wrote (an enum, or a oneOf/anyOf of string consts); without a
        # `type` beside it, a value of another type is refused by that keyword too
        keyword = node.get("keyword", "enum")
        if type(value) is not str and not node.get("untyped"):
            self._type_error(value, "string", node, ptr, definition)
        elif type(value) is not str or value not in node["values"]:
            allowed = ", ".join(node["values"])
            if self.lenient and type(value) is str:  # a closed set of strings is a union of names: an unknown one is stripped
                self.warn(ptr, definition, keyword, f"unknown value {quote(value)} stripped (known: {allowed})", _loc(node["loc"], keyword))
                return DROP
            self.error(ptr, definition, keyword, f"{_show(value)} is not one of {allowed}", _loc(node["loc"], keyword))
        return value

    def _const(self, value: Any, node: dict[str, Any], ptr: str, definition: str) -> Any:
        want = node["value"]
        if type(value) is not type(want) or value != want:
            self.error(ptr, definition, "const", f"expected {_show(want)}, got {_show(value)}", _loc(node["loc"], "const"))
        return value

    def _string(self, value: Any, node: dict[str, Any], ptr: str, definition: str) -> Any:
        if type(value) is not str:
            self._type_error(value, "string", node, ptr, definition)
            return value
        least, most = node.get("min_length"), node.get("max_length")
        if least is not None and len(value) < least:
            self.error(ptr, definition, "minLength", f"is {len(value)} characters long, shorter than {least}", _loc(node["loc"], "minLength"))
        if most is not None and len(value) > most:
            self.error(ptr, definition, "maxLength", f"is {len(value)} characters long, longer than {most}", _loc(node["loc"], "maxLength"))
        pattern = node.get("pattern")
        if pattern is not None:
            rx = _PATTERNS.get(pattern)
            if rx is None:
                rx = _PATTERNS[pattern] = re.compile(pattern)
            if rx.search(value) is None:
                shown = node.get("source", pattern)
                self.error(ptr, definition, "pattern", f"{_show(value)} does not match {shown}", _loc(node["loc"], "pattern"))
        return value

    def _integer(self, value: Any, node: dict[str, Any], ptr: str, definition: str) -> Any:
        if type(value) is not int:
            self._type_error(value, "integer", node, ptr, definition)
            return value
        return self._bounds(value, node, ptr, definition)

    def _number(self, value: Any, node: dict[str, Any], ptr: str, definition: str) -> Any:
        if type(value) not in (int, float):
            self._type_error(value, "number", node, ptr, definition)
            return value
        return self._bounds(value, node, ptr, definition)

    def _bounds(self, value: Any, node: dict[str, Any], ptr: str, definition: str) -> Any:
        lo, hi = node.get("minimum"), node.get("maximum")
        if lo is not None and value < lo:
            self.error(ptr, definition, "minimum", f"{show_number(value)} is less than the minimum {lo}", _loc(node["loc"], "minimum"))
        if hi is not None and value > hi:
            self.error(ptr, definition, "maximum", f"{show_number(value)} is greater than the maximum {hi}", _loc(node["loc"], "maximum"))
        xlo, xhi = node.get("exclusive_minimum"), node.get("exclusive_maximum")
        if xlo is not None and value <= xlo:
            where = _loc(node["loc"], "exclusiveMinimum")
            self.error(ptr, definition, "exclusiveMinimum", f"{show_number(value)} is not greater than {xlo}", where)
        if xhi is not None and value >= xhi:
            where = _loc(node["loc"], "exclusiveMaximum")
            self.error(ptr, definition, "exclusiveMaximum", f"{show_number(value)} is not less than {xhi}", where)
        return value

    def _null(self, value: Any, node: dict[str, Any], ptr: str, definition: str) -> Any:
        if value is not None and "keyword" in node:  # `const: null`, no `type` beside it
            self.error(ptr, definition, "const", f"expected null, got {_show(value)}", _loc(node["loc"], "const"))
        elif value is not None:
            self._type_error(value, "null", node, ptr, definition)
        return value

    def _boolean(self, value: Any, node: dict[str, Any], ptr: str, definition: str) -> Any:
        if type(value) is not bool:
            self._type_error(value, "boolean", node, ptr, definition)
        return value

    def _any(self, value: Any, node: dict[str, Any], ptr: str, definition: str) -> Any:
        if value is None and node["nonnull"]:
            self.error(ptr, definition, "not", "null is not allowed here", _loc(node["loc"], "not"))
        return value

    def _map(self, value: Any, node: dict[str, Any], ptr: str, definition: str) -> Any:
        if type(value) is not dict:
            self._type_error(value, "object", node, ptr, definition)
            return value
        keys = node.get("keys")
        if keys is not None:
            for key in value:
                self._name(key, keys, ptr, definition)
        values = node["values"]
        if values is None:
            return value
        out = value
        for key, member in value.items():
            checked = self.check(member, values, f"{ptr}/{_escape(key)}", definition)
            if checked is not member:
                out = dict(out) if out is value else out
                if checked is DROP:
                    out.pop(key, None)
                else:
                    out[key] = checked
        return out

    def _name(self, key: str, node: dict[str, Any], ptr: str, definition: str) -> None:
        """A member name against `propertyNames`, reported at the object (the name is not a
        location of its own), under that keyword, with the failing constraint's location."""
        before = len(self.errors)
        self._string(key, node, ptr, definition)
        for i in range(before, len(self.errors)):
            issue = self.errors[i]
            message = f"property name {_show(key)}: {issue.message}"
            self.errors[i] = Issue(ptr, definition, "propertyNames", message, issue.schema_location)

    def _array(self, value: Any, node: dict[str, Any], ptr: str, definition: str) -> Any:
        if type(value) is not list:
            self._type_error(value, "array", node, ptr, definition)
            return value
        out = []
        changed = False
        for i, item in enumerate(value):
            checked = self.check(item, node["items"], f"{ptr}/{i}", definition)
            if checked is DROP:
                changed = True
                continue
            changed = changed or checked is not item
            out.append(checked)
        least = node.get("min_items")
        if least and len(out) < least:
            self.error(
                ptr,
                definition,
                "minItems",
                f"has {len(out)} item{'s' if len(out) != 1 else ''}, fewer than the minimum {least}",
                _loc(node["loc"], "minItems"),
            )
        return out if changed else value
