"""The general validator: every keyword of JSON Schema's validation vocabulary (draft 2020-12 and
draft-07, compiled to one form by the generator), for the parts of a schema the typed models do
not capture exactly. It extends ``validation.Validation`` with the ``schema`` node kind:

- assertions: ``type``, ``const`` and ``enum`` of any JSON value, ``multipleOf`` (exact, on
  the numbers' decimal values), the four bounds, string lengths in code points, ``pattern``
  (ECMA-262, translated), ``minItems``/``maxItems``, ``uniqueItems``, ``contains`` with
  ``minContains``/``maxContains``, ``required``, ``minProperties``/``maxProperties``,
  ``dependentRequired`` (and draft-07's ``dependencies``), ``format`` where the binding asserts it;
- applicators: ``properties``, ``patternProperties``, ``additionalProperties``,
  ``propertyNames``, ``dependentSchemas``, ``prefixItems`` and ``items`` (draft-07's tuple
  ``items`` and ``additionalItems``), ``allOf``, ``anyOf`` (at least one), ``oneOf`` (exactly
  one), ``not``, ``if``/``then``/``else``, ``$ref``, boolean schemas, and ``unevaluatedProperties``
  and ``unevaluatedItems``, which see what every successful subschema evaluated.

``INTEGERS`` (from the schema table) is the binding's integer rule: ``"json-schema"`` counts
``1.0`` as an integer (and equal to ``1``), as JSON Schema does; ``"exact"`` tells them apart.
"""

from __future__ import annotations

import calendar
import ipaddress
import json
import re
from datetime import date
from fractions import Fraction
from typing import Any, Callable
from uuid import UUID

from .errors import Issue
from .shown import quote, show_number
from .schema_table import DEFINITIONS, FORMATS, INTEGERS
from .validation import DROP, JSONParseError, Validation as _Base, json_equal, json_type, parse_json, unreadable

__all__ = [
    "DROP", "FORMAT_CHECKS", "JSONParseError", "Validation", "distinct", "first_duplicate", "json_equal", "json_type", "multiple", "normalize",
    "parse_json", "same", "unreadable",
]

_PATTERNS: dict[str, re.Pattern[str]] = {}
ALL: Any = object()
"""Every item of an array evaluated (the annotation of ``items``)."""

Ann = tuple[set[str], Any]  # (evaluated property names, evaluated item indices or ALL)


def _regex(pattern: str) -> re.Pattern[str]:
    rx = _PATTERNS.get(pattern)
    if rx is None:
        rx = _PATTERNS[pattern] = re.compile(pattern)
    return rx


def _kind(value: Any) -> str:
    """The JSON type of a value under the binding's integer rule."""
    t = type(value)
    if t is float:
        return "integer" if INTEGERS == "json-schema" and value.is_integer() else "number"
    return json_type(value)


def same(a: Any, b: Any) -> bool:
    """JSON equality under the integer rule: by value (1 == 1.0) for json-schema, else 1 and
    1.0 differ; a boolean is never a number."""
    if INTEGERS == "json-schema":
        return json_equal(a, b)
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return bool(a.keys() == b.keys()) and all(same(a[k], b[k]) for k in a)
    if type(a) is list:
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def first_duplicate(items: list[Any]) -> tuple[int, int] | None:
    """The first pair of equal items (under the integer rule), for uniqueItems."""
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            if same(items[i], items[j]):
                return i, j
    return None


def distinct(items: list[Any]) -> bool:
    """Whether no two items are equal (uniqueItems). First by a set, in C: two values equal
    under either integer rule are equal to Python too (numbers by value, strings, lists and
    dicts member by member), so when Python's set keeps every item no two are equal. Only when
    it does not (1 and True, or 1 and 1.0, are one to Python), or an item is a list or an
    object (not hashable), is it decided pair by pair under the rule."""
    try:
        if len(set(items)) == len(items):
            return True
    except TypeError:  # a list or an object among the items
        pass
    return first_duplicate(items) is None


def _is_number(value: Any) -> bool:
    return type(value) is int or type(value) is float


def multiple(value: int | float, divisor: int | float) -> bool:
    """Whether value is an integer multiple of divisor, exactly, on the decimal values the
    document and the schema wrote (0.3 is a multiple of 0.1)."""
    q = Fraction(repr(value) if type(value) is float else value) / Fraction(repr(divisor) if type(divisor) is float else divisor)
    return q.denominator == 1


def _show(value: Any) -> str:
    if type(value) is int:
        return show_number(value)
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def normalize(document: Any) -> Any:
    """A valid document with every integral float as an int (``1.0`` -> ``1``), for the typed
    models under the json-schema integer rule: the same JSON number, as an ``int`` field holds it."""
    t = type(document)
    if t is float and document.is_integer():
        return int(document)
    if t is dict:
        return {k: normalize(v) for k, v in document.items()}
    if t is list:
        return [normalize(v) for v in document]
    return document


# -- formats (asserted only where the binding says so) ----------------------------------------
# Each as jsonschema's FormatChecker reads it (the reference, docs/schemas.md), with the
# checkers of its `format-nongpl` extra: rfc3339-validator (date-time, time: no leap second),
# rfc3986-validator (uri), fqdn (hostname); date by `date.fromisoformat`, uuid by `uuid.UUID`
# (which reads the hex digits as `int(..., 16)` does), email by its "@" alone.

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$", re.ASCII)
_RFC3339 = re.compile(
    r"^(\d{4})-(0[1-9]|1[0-2])-(\d{2})T(?:[01]\d|2[0123]):(?:[0-5]\d):(?:[0-5]\d)(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0123]):[0-5]\d)$", re.ASCII
)
_HEX = "[0-9A-Fa-f]"
_OCTET = "(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)"
_V4 = f"(?:{_OCTET}\\.){{3}}{_OCTET}"
_H16 = f"{_HEX}{{1,4}}"
_LS32 = f"(?:{_H16}:{_H16}|{_V4})"
_V6 = "(?:" + "|".join([
    f"(?:{_H16}:){{6}}{_LS32}",
    f"::(?:{_H16}:){{5}}{_LS32}",
    f"(?:{_H16})?::(?:{_H16}:){{4}}{_LS32}",
    f"(?:(?:{_H16}:)?{_H16})?::(?:{_H16}:){{3}}{_LS32}",
    f"(?:(?:{_H16}:){{0,2}}{_H16})?::(?:{_H16}:){{2}}{_LS32}",
    f"(?:(?:{_H16}:){{0,3}}{_H16})?::(?:{_H16}:){_LS32}",
    f"(?:(?:{_H16}:){{0,4}}{_H16})?::{_LS32}",
    f"(?:(?:{_H16}:){{0,5}}{_H16})?::{_H16}",
    f"(?:(?:{_H16}:){{0,6}}{_H16})?::",
]) + ")"
_SUB = "a-zA-Z0-9_.~\\-!$&'()*+,;="
_PCHAR = f"(?:[{_SUB}:@]|%{_HEX}{{2}})"
_QUERY = f"(?:[{_SUB}:@/?]|%{_HEX}{{2}})*"
_AUTHORITY = (
    f"(?:(?:[{_SUB}:]|%{_HEX}{{2}})*@)?"
    f"(?:\\[(?:{_V6}|v{_HEX}+\\.[{_SUB}:]+)\\]|{_V4}|(?:[{_SUB}]|%{_HEX}{{2}})*)"
    "(?::[0-9]*)?"
)
_URI = re.compile(
    f"^[a-zA-Z][a-zA-Z0-9+.-]*:(?://{_AUTHORITY}(?:/{_PCHAR}*)*|/(?:{_PCHAR}+(?:/{_PCHAR}*)*)?|{_PCHAR}+(?:/{_PCHAR}*)*|)"
    f"(?:\\?{_QUERY})?(?:\\#{_QUERY})?$"
)
# fqdn's preferred name syntax: Unicode digits (no ASCII flag), letters ignoring case
_HOST = re.compile(r"^((?![-])[-A-Z\d]{1,63}(?<!-)[.])*(?!-)[-A-Z\d]{1,63}(?<!-)[.]?$", re.IGNORECASE)


def _reads(read: Callable[[str], object], text: str, refused: type[Exception] = ValueError) -> bool:
    """Whether `read` takes the text (the checkers jsonschema uses answer by raising)."""
    try:
        read(text)
    except refused:
        return False
    return True


def _date(text: str) -> bool:
    return _DATE.fullmatch(text) is not None and _reads(date.fromisoformat, text)


def _date_time(text: str) -> bool:
    m = _RFC3339.match(text.upper())
    if m is None:
        return False
    year, month, day = int(m[1]), int(m[2]), int(m[3])
    return year != 0 and 1 <= day <= calendar.monthrange(year, month)[1]


def _hostname(text: str) -> bool:
    name = text.lower()
    if not name or len(name) - name.endswith(".") > 253:
        return False
    return _HOST.match(name) is not None


def _ipv6(text: str) -> bool:
    try:
        return not ipaddress.IPv6Address(text).scope_id
    except ValueError:
        return False


def _uuid(text: str) -> bool:
    return _reads(UUID, text) and all(text[at] == "-" for at in (8, 13, 18, 23))


FORMAT_CHECKS: dict[str, Any] = {
    "date": _date,
    "time": lambda t: _date_time("1970-01-01T" + t),
    "date-time": _date_time,
    "uuid": _uuid,
    "email": lambda t: "@" in t,
    "uri": lambda t: _URI.match(t) is not None,
    "hostname": _hostname,
    "ipv4": lambda t: _reads(ipaddress.IPv4Address, t),
    "ipv6": _ipv6,
    "regex": lambda t: _reads(re.compile, t, re.error),
}



class Validation(_Base):
    """The table interpreter with the ``schema`` kind, and the binding's integer rule."""

    # -- the typed kinds under the integer rule ---------------------------------------------

    def _integer(self, value: Any, node: dict[str, Any], ptr: str, definition: str) -> Any:
        if type(value) is float and INTEGERS == "json-schema" and value.is_integer():
            return self._bounds(value, node, ptr, definition)
        return super()._integer(value, node, ptr, definition)

    def _const(self, value: Any, node: dict[str, Any], ptr: str, definition: str) -> Any:
        if INTEGERS == "json-schema":
            if not json_equal(value, node["value"]):
                want = node["value"]
                self.error(ptr, definition, "const", f"expected {_show(want)}, got {_show(value)}", f"#{node['loc']}/const")
            return value
        return super()._const(value, node, ptr, definition)

    # -- the schema kind -------------------------------------------------------------------

    def _schema(self, value: Any, node: dict[str, Any], ptr: str, definition: str) -> Any:
        lenient, self.lenient = self.lenient, False  # stripping is for the typed kinds only
        try:
            self.evaluate(value, node, ptr, definition)
        finally:
            self.lenient = lenient
        return value

    def trial(self, value: Any, node: dict[str, Any], ptr: str, definition: str) -> tuple[bool, Ann, list[Issue]]:
        """Evaluate a subschema apart: whether it holds, its annotations, its errors."""
        saved, self.errors = self.errors, []
        try:
            ann = self.evaluate(value, node, ptr, definition)
            return not self.errors, ann, self.errors
        finally:
            self.errors = saved

    def evaluate(self, value: Any, node: dict[str, Any], ptr: str, definition: str) -> Ann:
        """Check value against a node, appending errors; return what it evaluated (property
        names, item indices), for unevaluatedProperties/unevaluatedItems above it."""
        kind = node["kind"]
        if kind == "ref":
            name = node["name"]
            return self.evaluate(value, DEFINITIONS[name], ptr, name)
        if kind != "schema":
            return self._typed(value, node, ptr, definition)
        loc = node["loc"]
        props: set[str] = set()
        items: Any = set()
        if node.get("bool") is False:
            self.error(ptr, definition, "false", "no value is valid here (the schema is false)", f"#{loc}")
            return props, items

        def merge(ann: Ann) -> None:
            nonlocal items
            props.update(ann[0])
            if ann[1] is ALL or items is ALL:
                items = ALL
            else:
                items = items | ann[1]

        if "ref" in node:
            name = node["ref"]
            merge(self.evaluate(value, DEFINITIONS[name], ptr, name))
        kind_of = _kind(value)
        types = node.get("types")
        if types is not None and kind_of not in types and not (kind_of == "integer" and "number" in types):
            expected = " or ".join(types)
            got = kind_of
            if type(value) is float and value.is_integer() and "integer" in types:
                got = "a number with a fraction part (integers are written without one)"
            self.error(ptr, definition, "type", f"expected {expected}, got {got}", f"#{loc}/type")
        if "const" in node and not same(value, node["const"][0]):
            self.error(ptr, definition, "const", f"expected {_show(node['const'][0])}, got {_show(value)}", f"#{loc}/const")
        if "enum" in node and not any(same(value, v) for v in node["enum"]):
            shown = ", ".join(_show(v) for v in node["enum"][:10]) + (", ..." if len(node["enum"]) > 10 else "")
            self.error(ptr, definition, "enum", f"{_show(value)} is not one of {shown}", f"#{loc}/enum")
        if _is_number(value):
            self.numeric(value, node, ptr, definition)
        elif type(value) is str:
            self.textual(value, node, ptr, definition)
        elif type(value) is list:
            merge(self.array(value, node, ptr, definition))
        elif type(value) is dict:
            merge(self.object(value, node, ptr, definition))
        for sub in node.get("all_of", ()):
            merge(self.evaluate(value, sub, ptr, definition))
        if "any_of" in node:
            passed = False
            failures: list[Issue] = []
            for sub in node["any_of"]:
                ok, ann, errs = self.trial(value, sub, ptr, definition)
                if ok:
                    passed = True
                    merge(ann)
                else:
                    failures.extend(errs[:1])
            if not passed:
                self.error(ptr, definition, "anyOf", "matches none of the anyOf members" + _why(failures), f"#{loc}/anyOf")
        if "one_of" in node:
            matched: list[int] = []
            failures = []
            kept: Ann | None = None
            for i, sub in enumerate(node["one_of"]):
                ok, ann, errs = self.trial(value, sub, ptr, definition)
                if ok:
                    matched.append(i)
                    kept = ann
                else:
                    failures.extend(errs[:1])
            if len(matched) == 1 and kept is not None:
                merge(kept)
            elif not matched:
                self.error(ptr, definition, "oneOf", "matches none of the oneOf members" + _why(failures), f"#{loc}/oneOf")
            else:
                self.error(ptr, definition, "oneOf", f"matches oneOf members {matched}, where exactly one must match", f"#{loc}/oneOf")
        if "not" in node:
            ok, _, _ = self.trial(value, node["not"], ptr, definition)
            if ok:
                self.error(ptr, definition, "not", "matches the schema under not", f"#{loc}/not")
        if "if" in node:
            ok, ann, _ = self.trial(value, node["if"], ptr, definition)
            if ok:
                merge(ann)
                if "then" in node:
                    merge(self.evaluate(value, node["then"], ptr, definition))
            elif "else" in node:
                merge(self.evaluate(value, node["else"], ptr, definition))
        if type(value) is dict:
            deps = node.get("dependent_schemas")
            if deps:
                for prop, sub in deps.items():
                    if prop in value:
                        merge(self.evaluate(value, sub, ptr, definition))
            if "unevaluated_properties" in node:
                sub = node["unevaluated_properties"]
                for key, member in value.items():
                    if key in props:
                        continue
                    ok, _, errs = self.trial(member, sub, f"{ptr}/{_escape(key)}", definition)
                    if not ok:
                        if sub.get("bool") is False:
                            self.error(ptr, definition, "unevaluatedProperties", f"unknown property {quote(key)}", f"#{loc}/unevaluatedProperties")
                        else:
                            self.errors.extend(errs)
                props.update(value)
        if type(value) is list and "unevaluated_items" in node:
            sub = node["unevaluated_items"]
            for i, member in enumerate(value):
                if items is ALL or i in items:
                    continue
                ok, _, errs = self.trial(member, sub, f"{ptr}/{i}", definition)
                if not ok:
                    if sub.get("bool") is False:
                        self.error(ptr, definition, "unevaluatedItems", f"item {i} is not allowed here", f"#{loc}/unevaluatedItems")
                    else:
                        self.errors.extend(errs)
            items = ALL
        return props, items

    def _typed(self, value: Any, node: dict[str, Any], ptr: str, definition: str) -> Ann:
        """A typed node inside a general one: checked by its own kind; what it evaluated."""
        self.check(value, node, ptr, definition)
        return self.annotate(value, node, ptr, definition)

    def annotate(self, value: Any, node: dict[str, Any], ptr: str, definition: str) -> Ann:
        """What a node evaluated of a value, without reporting anything."""
        kind = node["kind"]
        if kind == "ref":
            return self.annotate(value, DEFINITIONS[node["name"]], ptr, node["name"])
        if kind == "schema":
            return self.trial(value, node, ptr, definition)[1]
        if kind == "object" and type(value) is dict:
            if node["closed"] is not None:
                return set(value), set()
            return {k for k in value if k in node["fields"]}, set()
        if kind == "map" and type(value) is dict:
            return (set(value) if node["values"] is not None else set()), set()
        if kind == "tagged" and type(value) is dict:
            tag = value.get(node["field"])
            member = node["tags"].get(tag) if type(tag) is str else None
            if member is not None:
                return self.annotate(value, DEFINITIONS[member], ptr, member)
        if kind == "union":
            got = json_type(value)
            for kinds, member in node["members"]:
                if got in kinds or (got == "integer" and "number" in kinds):
                    return self.annotate(value, member, ptr, definition)
        if kind == "array" and type(value) is list:
            return set(), ALL
        return set(), set()

    def numeric(self, value: int | float, node: dict[str, Any], ptr: str, definition: str) -> None:
        loc = node["loc"]
        lo, hi = node.get("minimum"), node.get("maximum")
        if lo is not None and value < lo:
            self.error(ptr, definition, "minimum", f"{show_number(value)} is less than the minimum {lo}", f"#{loc}/minimum")
        if hi is not None and value > hi:
            self.error(ptr, definition, "maximum", f"{show_number(value)} is greater than the maximum {hi}", f"#{loc}/maximum")
        xlo, xhi = node.get("exclusive_minimum"), node.get("exclusive_maximum")
        if xlo is not None and value <= xlo:
            self.error(ptr, definition, "exclusiveMinimum", f"{show_number(value)} is not greater than {xlo}", f"#{loc}/exclusiveMinimum")
        if xhi is not None and value >= xhi:
            self.error(ptr, definition, "exclusiveMaximum", f"{show_number(value)} is not less than {xhi}", f"#{loc}/exclusiveMaximum")
        step = node.get("multiple_of")
        if step is not None and not multiple(value, step):
            self.error(ptr, definition, "multipleOf", f"{show_number(value)} is not a multiple of {step}", f"#{loc}/multipleOf")

    def textual(self, value: str, node: dict[str, Any], ptr: str, definition: str) -> None:
        loc = node["loc"]
        least, most = node.get("min_length"), node.get("max_length")
        if least is not None and len(value) < least:
            self.error(ptr, definition, "minLength", f"is {len(value)} characters long, shorter than {least}", f"#{loc}/minLength")
        if most is not None and len(value) > most:
            self.error(ptr, definition, "maxLength", f"is {len(value)} characters long, longer than {most}", f"#{loc}/maxLength")
        pattern = node.get("pattern")
        if pattern is not None and _regex(pattern).search(value) is None:
            shown = node.get("source", pattern)
            self.error(ptr, definition, "pattern", f"{_show(value)} does not match {shown}", f"#{loc}/pattern")
        fmt = node.get("format")
        if fmt is not None and FORMATS:
            check = FORMAT_CHECKS.get(fmt)
            if check is not None and not check(value):
                self.error(ptr, definition, "format", f"{_show(value)} is not a valid {fmt}", f"#{loc}/format")

    def array(self, value: list[Any], node: dict[str, Any], ptr: str, definition: str) -> Ann:
        loc = node["loc"]
        items: Any = set()
        prefix = node.get("prefix_items")
        if prefix is not None:
            for i, (member, sub) in enumerate(zip(value, prefix)):
                self.evaluate(member, sub, f"{ptr}/{i}", definition)
            items = set(range(min(len(prefix), len(value))))
        rest = node.get("items")
        if rest is not None:
            start = len(prefix) if prefix is not None else 0
            if rest.get("bool") is False and len(value) > start:
                keyword = node.get("items_keyword", "items")
                self.error(ptr, definition, keyword, f"has {len(value)} items, where at most {start} are allowed", f"#{loc}/{keyword}")
            else:
                for i in range(start, len(value)):
                    self.evaluate(value[i], rest, f"{ptr}/{i}", definition)
            items = ALL
        contains = node.get("contains")
        if contains is not None:
            found = {i for i, member in enumerate(value) if self.trial(member, contains, f"{ptr}/{i}", definition)[0]}
            least = node.get("min_contains", 1)
            most = node.get("max_contains")
            if len(found) < least:
                keyword = "contains" if "min_contains" not in node else "minContains"
                self.error(ptr, definition, keyword, f"holds {len(found)} matching item(s), fewer than {least}", f"#{loc}/{keyword}")
            if most is not None and len(found) > most:
                self.error(ptr, definition, "maxContains", f"holds {len(found)} matching items, more than {most}", f"#{loc}/maxContains")
            if items is not ALL:
                items = items | found
        least, most = node.get("min_items"), node.get("max_items")
        if least is not None and len(value) < least:
            self.error(ptr, definition, "minItems", f"has {len(value)} items, fewer than the minimum {least}", f"#{loc}/minItems")
        if most is not None and len(value) > most:
            self.error(ptr, definition, "maxItems", f"has {len(value)} items, more than the maximum {most}", f"#{loc}/maxItems")
        if node.get("unique_items"):
            pair = first_duplicate(value)
            if pair is not None:
                self.error(ptr, definition, "uniqueItems", f"items {pair[0]} and {pair[1]} are equal", f"#{loc}/uniqueItems")
        return set(), items

    def object(self, value: dict[str, Any], node: dict[str, Any], ptr: str, definition: str) -> Ann:
        loc = node["loc"]
        props: set[str] = set()
        for name in node.get("required", ()):
            if name not in value:
                self.error(ptr, definition, "required", f"missing required property {quote(name)}", f"#{loc}/required")
        deps = node.get("dependent_required")
        if deps:
            keyword = node.get("dependencies_keyword", "dependentRequired")
            for prop, needed in deps.items():
                if prop in value:
                    for name in needed:
                        if name not in value:
                            self.error(ptr, definition, keyword, f"{quote(prop)} is present, so {quote(name)} is required", f"#{loc}/{keyword}")
        least, most = node.get("min_properties"), node.get("max_properties")
        if least is not None and len(value) < least:
            self.error(ptr, definition, "minProperties", f"has {len(value)} properties, fewer than {least}", f"#{loc}/minProperties")
        if most is not None and len(value) > most:
            self.error(ptr, definition, "maxProperties", f"has {len(value)} properties, more than {most}", f"#{loc}/maxProperties")
        names = node.get("property_names")
        if names is not None:
            for key in value:
                ok, _, errs = self.trial(key, names, ptr, definition)
                if not ok:
                    why = errs[0].message if errs else "refused"
                    self.error(ptr, definition, "propertyNames", f"property name {_show(key)}: {why}", errs[0].schema_location if errs else f"#{loc}/propertyNames")
        properties = node.get("properties")
        patterns = node.get("pattern_properties")
        extra = node.get("additional_properties")
        if properties is None and patterns is None and extra is None:
            return props, set()
        for key, member in value.items():
            sub = f"{ptr}/{_escape(key)}"
            known = False
            if properties is not None and key in properties:
                known = True
                self.evaluate(member, properties[key], sub, definition)
            if patterns is not None:
                for entry in patterns:
                    if _regex(entry["pattern"]).search(key) is not None:
                        known = True
                        self.evaluate(member, entry["schema"], sub, definition)
            if known:
                props.add(key)
            elif extra is not None:
                if extra.get("bool") is False:
                    self.error(ptr, definition, "additionalProperties", f"unknown property {quote(key)}", f"#{loc}/additionalProperties")
                else:
                    self.evaluate(member, extra, sub, definition)
                props.add(key)
        return props, set()


def _why(failures: list[Issue]) -> str:
    if not failures:
        return ""
    first = failures[0]
    return f" (the first: {first.pointer or '/'}: {first.message})"
