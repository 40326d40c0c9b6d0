"""JSON Patch (RFC 6902) over plain JSON values, applied atomically: either every operation
applies, or the document is left as it was and PatchError says which operation failed and why.
Operations are the typed patch operations of ``models``; members they do not declare are ignored,
as RFC 6902 requires.

A patch may not make the document nest deeper than ``limits.MAX_DEPTH``, so that a stream of
deltas cannot build a state the codecs would refuse or the consumer could not copy; and since
``copy`` is the one operation that can double a document, copies may not grow it past
``MAX_NODES`` values (a few dozen copies could otherwise fill any memory). Both are PatchErrors."""

from __future__ import annotations

import copy
from typing import Any

from msgspec import UNSET

from .limits import MAX_DEPTH, value_depth
from .validation import json_equal

__all__ = ["PatchError", "apply_patch", "MAX_NODES"]

MAX_NODES = 100_000
"""The most values (scalars, arrays and objects) ``copy`` operations may grow a document to. A
patch costs a copy of the document (it applies atomically), so this also bounds the time one
delta can take once copies have grown the state."""


class PatchError(ValueError):
    """An operation that does not apply to the document."""

    def __init__(self, index: int, op: str, message: str) -> None:
        self.index = index
        self.op = op
        super().__init__(f"operation {index} ({op}): {message}")


def _tokens(pointer: str) -> list[str]:
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"{pointer!r} is not a JSON Pointer")
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


def _index(token: str, size: int, allow_end: bool) -> int:
    if token == "-" and allow_end:
        return size
    if not token.isdigit() or (len(token) > 1 and token[0] == "0"):
        raise ValueError(f"{token!r} is not an array index")
    i = int(token)
    if i > size or (i == size and not allow_end):
        raise ValueError(f"index {i} is out of range (array of {size})")
    return i


def _parent(doc: Any, tokens: list[str]) -> Any:
    node = doc
    for token in tokens[:-1]:
        if isinstance(node, dict):
            if token not in node:
                raise ValueError(f"no member {token!r}")
            node = node[token]
        elif isinstance(node, list):
            node = node[_index(token, len(node), False)]
        else:
            raise ValueError(f"cannot descend into a {type(node).__name__} at {token!r}")
    return node


def _get(doc: Any, pointer: str) -> Any:
    tokens = _tokens(pointer)
    if not tokens:
        return doc
    parent = _parent(doc, tokens)
    last = tokens[-1]
    if isinstance(parent, dict):
        if last not in parent:
            raise ValueError(f"no member {last!r}")
        return parent[last]
    if isinstance(parent, list):
        return parent[_index(last, len(parent), False)]
    raise ValueError(f"{pointer!r} does not resolve")


def _add(doc: Any, pointer: str, value: Any) -> Any:
    tokens = _tokens(pointer)
    if not tokens:
        return value
    parent = _parent(doc, tokens)
    last = tokens[-1]
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list):
        parent.insert(_index(last, len(parent), True), value)
    else:
        raise ValueError(f"cannot add into a {type(parent).__name__}")
    return doc


def _remove(doc: Any, pointer: str) -> Any:
    tokens = _tokens(pointer)
    if not tokens:
        raise ValueError("cannot remove the whole document")
    parent = _parent(doc, tokens)
    last = tokens[-1]
    if isinstance(parent, dict):
        if last not in parent:
            raise ValueError(f"no member {last!r} to remove")
        del parent[last]
    elif isinstance(parent, list):
        del parent[_index(last, len(parent), False)]
    else:
        raise ValueError(f"cannot remove from a {type(parent).__name__}")
    return doc


def _nodes(value: Any) -> int:
    count = 0
    stack = [value]
    while stack:
        node = stack.pop()
        count += 1
        if type(node) is dict:
            stack.extend(node.values())
        elif type(node) is list:
            stack.extend(node)
    return count


def _fits(pointer: str, value: Any) -> None:
    """A value placed at ``pointer`` must leave the document within MAX_DEPTH."""
    depth = pointer.count("/") + value_depth(value, MAX_DEPTH)
    if depth > MAX_DEPTH:
        raise ValueError(f"the document would nest deeper than {MAX_DEPTH} arrays and objects")


def apply_patch(document: Any, operations: list[Any]) -> Any:
    """The patched document (a new value); the input is never modified."""
    doc = copy.deepcopy(document)
    size = -1  # counted on the first copy operation only
    for i, op in enumerate(operations):
        name = str(op.op)
        try:
            if name in ("add", "replace"):
                _fits(op.path, op.value)
            if name == "add":
                doc = _add(doc, op.path, copy.deepcopy(op.value))
            elif name == "remove":
                doc = _remove(doc, op.path)
            elif name == "replace":
                _get(doc, op.path)
                doc = _add(_remove(doc, op.path), op.path, copy.deepcopy(op.value)) if op.path else copy.deepcopy(op.value)
            elif name in ("move", "copy"):
                source = op.from_
                if name == "move" and (op.path + "/").startswith(source + "/") and op.path != source:
                    raise ValueError("cannot move a value into its own child")
                value = _get(doc, source)
                _fits(op.path, value)
                if name == "copy":
                    size = _nodes(doc) if size < 0 else size
                    size += _nodes(value)
                    if size > MAX_NODES:
                        raise ValueError(f"copies would grow the document past {MAX_NODES} values")
                value = copy.deepcopy(value)
                if name == "move":
                    doc = _remove(doc, source)
                doc = _add(doc, op.path, value)
            elif name == "test":
                if not json_equal(_get(doc, op.path), op.value):
                    raise ValueError(f"value at {op.path!r} is not the expected one")
            else:
                raise ValueError(f"unknown operation {name!r}")
        except (ValueError, IndexError, TypeError) as exc:
            raise PatchError(i, name, str(exc)) from None
        if doc is UNSET:
            raise PatchError(i, name, "no value")
    return doc
