"""YAML read with the YAML 1.2 core schema, which OpenAPI 3.1 documents are written in.

PyYAML implements YAML 1.1, whose implicit types differ where a schema cares: an unquoted
`const: 2026-09-02` is a date there, `on`/`no` are booleans, `017` is octal and `1_000` an
integer. In 1.2 the first three are strings and `017` is seventeen. A schema means what its
authors' 1.2 tooling reads, so the loader resolves plain scalars by the 1.2 core schema only,
and refuses a mapping that repeats a key (YAML forbids it; PyYAML keeps the last silently).

A schema is a JSON value written in YAML, so what YAML has and JSON does not is refused where it
stands (a `MarkedYAMLError` at its line and column), not read into something a later pass or
the generated package cannot hold: `.nan`, `.inf` and numbers past a double (a package naming
`nan` did not import), integers past 4,300 digits, timestamps, binary, sets, ordered maps and
pairs (tagged explicitly: the 1.2 core schema resolves none of them implicitly), keys that are
not strings (JSON's member names are), an alias inside the node it names (a document holding
itself: every walk of it recursed until exit 70), aliases that multiply the document (a few
hundred bytes of nested aliases stand for billions of nodes), and nesting past the loader's
MAX_FILE_DEPTH (PyYAML composes recursively: deeper ended in RecursionError, exit 70).
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml

_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_INT = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_FLOAT = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)

_TAG = "tag:yaml.org,2002:"


class DuplicateKey(yaml.MarkedYAMLError):
    pass


class NotJSON(yaml.MarkedYAMLError):
    """What YAML can say and JSON cannot, at its place."""

    def __init__(self, mark: Any, why: str) -> None:
        super().__init__(problem=why, problem_mark=mark)


# Nodes aliases may add to a document, counted as if each alias were written out (a few aliased
# shared schemas stay far below; "billion laughs" documents pass it within their first levels).
MAX_ALIASED = 1_000_000
_MAX_INT = 10**4300  # Python's int_max_str_digits, as the JSON reader and the generated packages
_REFUSED_TAGS = {
    "timestamp": "a YAML timestamp",
    "binary": "YAML binary data",
    "set": "a YAML set",
    "omap": "a YAML ordered map",
    "pairs": "a YAML list of pairs",
}


class Core12Loader(yaml.SafeLoader):
    """SafeLoader with the YAML 1.2 core schema's implicit resolvers and duplicate-key check."""

    yaml_implicit_resolvers: dict[Any, Any] = {}

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._depth = 0
        self._nodes = 0  # nodes composed so far, each alias counted as the nodes it stands for
        self._aliased = 0  # of which aliases stand for
        self._sizes: dict[int, int] = {}  # id of an anchored node composed whole -> its nodes

    def compose_node(self, parent: Any, index: Any) -> Any:
        from .loader import MAX_FILE_DEPTH, too_deep

        event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent):
            node = self.anchors.get(event.anchor)
            if node is not None:
                size = self._sizes.get(id(node))
                if size is None:
                    raise NotJSON(event.start_mark, f"the alias *{event.anchor} stands inside the node it names: the document would hold itself, which JSON cannot")
                self._nodes += size
                self._aliased += size
                if self._aliased > MAX_ALIASED:
                    raise NotJSON(
                        event.start_mark,
                        f"aliases stand for more than {MAX_ALIASED:,} nodes by the alias *{event.anchor} (each alias counts as the nodes it repeats): write the shared schema once under the definitions and $ref it",
                    )
            return super().compose_node(parent, index)
        opens = not isinstance(event, yaml.ScalarEvent)  # a sequence or a mapping
        self._depth += opens
        if self._depth > MAX_FILE_DEPTH:
            raise NotJSON(event.start_mark, too_deep(self._depth))
        anchor = getattr(event, "anchor", None)
        first = self._nodes
        self._nodes += 1
        node = super().compose_node(parent, index)
        self._depth -= opens
        if anchor is not None:
            self._sizes[id(node)] = self._nodes - first
        return node

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, yaml.Node] = {}
        for key_node, _ in node.value:
            if key_node.tag == _TAG + "merge":
                raise NotJSON(key_node.start_mark, "a merge key (<<) is YAML 1.1's, not JSON's: write the members out")
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, str):
                if not isinstance(key_node, yaml.ScalarNode):
                    raise NotJSON(key_node.start_mark, f"a {key_node.id} as a key: a JSON member name is a string")
                kind = "null" if key is None else "a boolean" if isinstance(key, bool) else "an integer" if isinstance(key, int) else "a number"
                raise NotJSON(key_node.start_mark, f"the key {key_node.value!r} is {kind} in YAML 1.2, and a JSON member name is a string: quote it")
            first = seen.get(key)
            if first is not None:
                raise DuplicateKey(
                    "while reading a mapping", node.start_mark, f"key {key!r} appears twice", key_node.start_mark
                )
            seen[key] = key_node
        return super().construct_mapping(node, deep=deep)


def _resolver(tag: str, rx: re.Pattern[str], first: str) -> None:
    Core12Loader.add_implicit_resolver(_TAG + tag, rx, list(first))


_resolver("null", _NULL, "~nN")
Core12Loader.add_implicit_resolver(_TAG + "null", _NULL, [""])
_resolver("bool", _BOOL, "tTfF")
_resolver("int", _INT, "-+0123456789")
_resolver("float", _FLOAT, "-+.0123456789")


def _int(loader: yaml.SafeLoader, node: yaml.Node) -> int:
    text = str(loader.construct_scalar(node))  # type: ignore[arg-type]
    if not _INT.match(text):  # tagged !!int explicitly
        raise NotJSON(node.start_mark, f"!!int {text!r} is not an integer")
    digits = text.lstrip("-+")
    if not digits.startswith(("0o", "0x")) and len(digits) > 4300:
        # int() itself refuses past Python's int_max_str_digits, with a ValueError (exit 70)
        raise NotJSON(node.start_mark, f"an integer of {len(digits):,} digits: specbind reads integers of up to 4,300 (as the generated packages do)")
    value = int(digits[2:], 8 if digits.startswith("0o") else 16) if digits.startswith(("0o", "0x")) else int(digits, 10)
    if value >= _MAX_INT:
        raise NotJSON(node.start_mark, f"the integer {text[:20]}... is past 4,300 decimal digits: specbind reads integers of up to 4,300 (as the generated packages do)")
    return -value if text.startswith("-") else value


def _float(loader: yaml.SafeLoader, node: yaml.Node) -> float:
    text = str(loader.construct_scalar(node))  # type: ignore[arg-type]
    if text.lower().lstrip("-+") in (".inf", ".nan"):
        raise NotJSON(node.start_mark, f"not JSON: {text} is not a JSON number")
    try:
        value = float(text)
    except ValueError:  # tagged !!float explicitly
        raise NotJSON(node.start_mark, f"!!float {text!r} is not a number") from None
    if math.isinf(value) or math.isnan(value):
        raise NotJSON(node.start_mark, f"the number {text} is beyond a double's range")
    return value


def _bool(loader: yaml.SafeLoader, node: yaml.Node) -> bool:
    text = str(loader.construct_scalar(node))  # type: ignore[arg-type]
    if not _BOOL.match(text):  # tagged !!bool explicitly
        raise NotJSON(node.start_mark, f"!!bool {text!r} is neither true nor false")
    return text.lower() == "true"


def _str(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    text = str(loader.construct_scalar(node))  # type: ignore[arg-type]
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # "\ud800": written, it ended generate in this error (exit 70)
        raise NotJSON(node.start_mark, "the string holds a lone surrogate (half a UTF-16 pair), which no Unicode text holds") from None
    return text


def _refused(what: str) -> Any:
    def construct(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
        raise NotJSON(node.start_mark, f"{what} is not a JSON value: write it as a string, an array or an object")

    return construct


Core12Loader.add_constructor(_TAG + "int", _int)
Core12Loader.add_constructor(_TAG + "float", _float)
Core12Loader.add_constructor(_TAG + "bool", _bool)
Core12Loader.add_constructor(_TAG + "str", _str)
for _tag, _what in _REFUSED_TAGS.items():
    Core12Loader.add_constructor(_TAG + _tag, _refused(_what))


def load(data: bytes) -> Any:
    return yaml.load(data, Loader=Core12Loader)  # noqa: S506 (a SafeLoader subclass)
