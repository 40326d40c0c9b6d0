"""JSON Patch (RFC 6902) over plain JSON values, applied atomically: either every operation
applies, or the document is left as it was and PatchError says which operation failed and why.
Operations are the typed patch operations of ``models``; members they do not declare are ignored,
as RFC 6902 requires.

Two ways to apply a patch. ``apply_patch(document, operations)`` returns a new value and never
modifies its input: it copies the document first, so it costs the document's size. A
``Document`` holds a value that patches change in place, each costing what it touches: the
operations, the values they carry, the path they walk (and, for an array, the items an insert
or a removal shifts), never the rest of the document. Atomicity there comes from an undo log: a
patch that fails is rolled back operation by operation, leaving an equal value (an object member
removed and put back may come last among its siblings: JSON objects are unordered, RFC 8259
section 4). The consumer core keeps its state and activity content in Documents, so a stream of
small deltas against a large state costs the deltas, not the state per delta.

A patch may not make the document nest deeper than ``limits.MAX_DEPTH``, so that a stream of
deltas cannot build a state the codecs would refuse or the consumer could not copy; and since
``copy`` is the one operation that can double a document, copies may not grow it past
``MAX_NODES`` values (a few dozen copies could otherwise fill any memory). Both are PatchErrors.
A Document counts its values once, when it takes a value (a snapshot, which costs its size to
read anyway), and keeps the count from then on at the cost of what each patch adds and removes."""

from __future__ import annotations

import copy
from typing import Any, Callable

from msgspec import UNSET

from .limits import MAX_DEPTH, value_depth
from .validation import json_equal

__all__ = ["PatchError", "apply_patch", "Document", "MAX_NODES"]

MAX_NODES = 100_000
"""The most values (scalars, arrays and objects) ``copy`` operations may grow a document to."""

_MISSING: Any = object()


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


class Document:
    """A JSON value patched in place (``value``), each patch atomic and costing what it touches.
    The value is the Document's: change it only through ``apply`` (or ``reset``), or the value
    count the ``copy`` bound keeps goes stale."""

    __slots__ = ("value", "_size", "_undo", "_added", "_removed")

    def __init__(self, value: Any = None) -> None:
        self.reset(value)

    def reset(self, value: Any) -> None:
        """Hold another value (a snapshot replaces the state): counted once, here."""
        self.value = value
        self._size = _nodes(value)  # values in the document, as of the last patch applied
        self._undo: list[Callable[[], None]] = []
        self._added = 0  # values the patch being applied added
        self._removed: list[Any] = []  # values it removed: counted only once it applies

    def apply(self, operations: list[Any], check: Callable[[Any], str | None] | None = None) -> None:
        """Apply every operation, or none: on PatchError the value is as it was. ``check``: a
        last word on the result (a message refuses it: PatchError at the last operation)."""
        self._undo, self._added, self._removed = [], 0, []
        i, name = 0, ""
        try:
            for i, op in enumerate(operations):
                name = str(op.op)
                self._operation(op, name)
            if check is not None:
                refused = check(self.value)
                if refused is not None:
                    raise ValueError(refused)
        except (ValueError, IndexError, TypeError) as exc:
            for undo in reversed(self._undo):
                undo()
            self._undo, self._removed = [], []
            raise PatchError(i, name, str(exc)) from None
        # what was removed is gone for good: each value is counted out once, as it was counted in
        self._size += self._added - sum(_nodes(v) for v in self._removed)
        self._undo, self._removed = [], []

    # -- the operations -----------------------------------------------------------------------

    def _operation(self, op: Any, name: str) -> None:
        if name in ("add", "replace"):
            if op.value is UNSET:
                raise ValueError("no value")
            _fits(op.path, op.value)
            value = copy.deepcopy(op.value)
            self._added += _nodes(value)
            if name == "add":
                self._add(op.path, value)
            else:
                self._replace(op.path, value)
        elif name == "remove":
            self._removed.append(self._remove(op.path))
        elif name in ("move", "copy"):
            source = op.from_
            if name == "move" and (op.path + "/").startswith(source + "/") and op.path != source:
                raise ValueError("cannot move a value into its own child")
            value = _get(self.value, source)
            _fits(op.path, value)
            if name == "copy":
                # the bound holds the document as the patch found it plus what it added so far
                # (what it removed counts once it applies): never more than the truth allows
                added = _nodes(value)
                if self._size + self._added + added > MAX_NODES:
                    raise ValueError(f"copies would grow the document past {MAX_NODES} values")
                self._added += added
                self._add(op.path, copy.deepcopy(value))
            elif source != op.path:
                self._remove(source)  # moved, not removed: the count does not change
                self._add(op.path, value)
        elif name == "test":
            if not json_equal(_get(self.value, op.path), op.value):
                raise ValueError(f"value at {op.path!r} is not the expected one")
        else:
            raise ValueError(f"unknown operation {name!r}")

    def _root(self, value: Any) -> None:
        old = self.value
        self.value = value
        self._removed.append(old)
        self._undo.append(lambda: setattr(self, "value", old))

    def _add(self, pointer: str, value: Any) -> None:
        tokens = _tokens(pointer)
        if not tokens:
            return self._root(value)
        parent = _parent(self.value, tokens)
        last = tokens[-1]
        if isinstance(parent, dict):
            old = parent.get(last, _MISSING)
            parent[last] = value
            if old is not _MISSING:
                self._removed.append(old)
            self._undo.append(lambda: _restore(parent, last, old))
        elif isinstance(parent, list):
            at = _index(last, len(parent), True)
            parent.insert(at, value)
            self._undo.append(lambda: parent.__delitem__(at))
        else:
            raise ValueError(f"cannot add into a {type(parent).__name__}")
        return None

    def _remove(self, pointer: str) -> Any:
        """The value removed."""
        tokens = _tokens(pointer)
        if not tokens:
            raise ValueError("cannot remove the whole document")
        parent = _parent(self.value, tokens)
        last = tokens[-1]
        if isinstance(parent, dict):
            if last not in parent:
                raise ValueError(f"no member {last!r} to remove")
            old = parent.pop(last)
            self._undo.append(lambda: parent.__setitem__(last, old))
        elif isinstance(parent, list):
            at = _index(last, len(parent), False)
            old = parent.pop(at)
            self._undo.append(lambda: parent.insert(at, old))
        else:
            raise ValueError(f"cannot remove from a {type(parent).__name__}")
        return old

    def _replace(self, pointer: str, value: Any) -> None:
        tokens = _tokens(pointer)
        if not tokens:
            return self._root(value)
        parent = _parent(self.value, tokens)
        last: Any = tokens[-1]
        if isinstance(parent, dict):
            if last not in parent:
                raise ValueError(f"no member {last!r}")
        elif isinstance(parent, list):
            last = _index(last, len(parent), False)
        else:
            raise ValueError(f"{pointer!r} does not resolve")
        old = parent[last]
        parent[last] = value
        self._removed.append(old)
        self._undo.append(lambda: parent.__setitem__(last, old))
        return None


def _restore(parent: dict[str, Any], key: str, old: Any) -> None:
    if old is _MISSING:
        del parent[key]
    else:
        parent[key] = old


def apply_patch(document: Any, operations: list[Any]) -> Any:
    """The patched document (a new value); the input is never modified."""
    patched = Document(copy.deepcopy(document))
    patched.apply(operations)
    return patched.value
