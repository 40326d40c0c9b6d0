"""YAML read with the YAML 1.2 core schema, which OpenAPI 3.1 documents are written in.

PyYAML implements YAML 1.1, whose implicit types differ where a schema cares: an unquoted
`const: 2026-09-02` is a date there, `on`/`no` are booleans, `017` is octal and `1_000` an
integer. In 1.2 the first three are strings and `017` is seventeen. A schema means what its
authors' 1.2 tooling reads, so the loader resolves plain scalars by the 1.2 core schema only,
and refuses a mapping that repeats a key (YAML forbids it; PyYAML keeps the last silently).
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


class Core12Loader(yaml.SafeLoader):
    """SafeLoader with the YAML 1.2 core schema's implicit resolvers and duplicate-key check."""

    yaml_implicit_resolvers: dict[Any, Any] = {}

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, yaml.Node] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                first = seen.get(key)
            except TypeError:
                continue  # an unhashable key: SafeConstructor reports it
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
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)


def _float(loader: yaml.SafeLoader, node: yaml.Node) -> float:
    text = str(loader.construct_scalar(node)).lower()  # type: ignore[arg-type]
    if text.endswith(".inf"):
        return -math.inf if text.startswith("-") else math.inf
    if text == ".nan":
        return math.nan
    return float(text)


def _bool(loader: yaml.SafeLoader, node: yaml.Node) -> bool:
    return str(loader.construct_scalar(node)).lower() == "true"  # type: ignore[arg-type]


Core12Loader.add_constructor(_TAG + "int", _int)
Core12Loader.add_constructor(_TAG + "float", _float)
Core12Loader.add_constructor(_TAG + "bool", _bool)


def load(data: bytes) -> Any:
    return yaml.load(data, Loader=Core12Loader)  # noqa: S506 (a SafeLoader subclass)
