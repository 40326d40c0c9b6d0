"""Strings that a (Python) regular expression matches, derived from the pattern itself, so a
schema with patterns needs no hand-written examples for its generated tests.

The pattern is walked as `re` parses it; each construct yields candidate texts, shortest first
(fewest repetitions, first alternative, the first member of a set), and every candidate is
checked with `re.search` before it is returned: lookarounds and back-references are honoured by
that check, not by the walk.
"""

from __future__ import annotations

import importlib
import itertools
import re
from collections.abc import Iterator
from typing import Any

# the regex parser's modules (private, but stable since 3.11; `sre_parse` before)
C: Any = importlib.import_module("re._constants")
P: Any = importlib.import_module("re._parser")

_POOL = "aA0 _-.x~/:Z@9"  # characters tried for a set or `.`, in order
_CATEGORIES = {
    C.CATEGORY_DIGIT: "0",
    C.CATEGORY_NOT_DIGIT: "a",
    C.CATEGORY_SPACE: " ",
    C.CATEGORY_NOT_SPACE: "a",
    C.CATEGORY_WORD: "a",
    C.CATEGORY_NOT_WORD: " ",
}
_LIMIT = 200  # candidates tried before giving up


def sample(pattern: str, extra: int = 0) -> str | None:
    """A string `pattern` matches (with `re.search`), or None. `extra` asks for a longer one:
    that many more repetitions of the first repeat that allows them."""
    try:
        rx = re.compile(pattern)
        parsed = P.parse(pattern)
    except re.error:
        return None
    for text in itertools.islice(_seq(list(parsed), {}), _LIMIT):
        if rx.search(text):
            return text
    return None


def _seq(items: list[Any], groups: dict[int, str]) -> Iterator[str]:
    if not items:
        yield ""
        return
    head, rest = items[0], items[1:]
    for first in _one(head, groups):
        for tail in _seq(rest, groups):
            yield first + tail


def _one(item: tuple[Any, Any], groups: dict[int, str]) -> Iterator[str]:
    op, av = item
    if op is C.LITERAL:
        yield chr(av)
    elif op is C.NOT_LITERAL:
        yield next(c for c in _POOL if ord(c) != av)
    elif op is C.ANY:
        yield from _POOL[:3]
    elif op is C.IN:
        yield from _set(av)
    elif op is C.BRANCH:
        for alternative in av[1]:
            yield from _seq(list(alternative), groups)
    elif op is C.SUBPATTERN:
        group, body = av[0], av[-1]
        for text in _seq(list(body), groups):
            if group is not None:
                groups[group] = text
            yield text
    elif op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
        low, high, body = av
        counts = [low] + [n for n in (low + 1, low + 2) if high is C.MAXREPEAT or n <= high]
        for n in counts:
            yield from _seq(list(body) * n, groups)
    elif op is C.GROUPREF:
        yield groups.get(av, "")
    elif op in (C.AT, C.ASSERT, C.ASSERT_NOT):
        yield ""  # anchors and lookarounds match no text; re.search checks them
    elif op is C.CATEGORY:
        yield _CATEGORIES.get(av, "a")
    else:
        yield ""


def _set(members: list[tuple[Any, Any]]) -> Iterator[str]:
    negated = bool(members) and members[0][0] is C.NEGATE
    if negated:
        for c in _POOL:
            if not _in_set(c, members[1:]):
                yield c
        return
    for op, av in members:
        if op is C.LITERAL:
            yield chr(av)
        elif op is C.RANGE:
            yield chr(av[0])
        elif op is C.CATEGORY:
            yield _CATEGORIES.get(av, "a")


def _in_set(c: str, members: list[tuple[Any, Any]]) -> bool:
    for op, av in members:
        if op is C.LITERAL and ord(c) == av:
            return True
        if op is C.RANGE and av[0] <= ord(c) <= av[1]:
            return True
        if op is C.CATEGORY and re.fullmatch(_category_rx(av), c):
            return True
    return False


def _category_rx(cat: Any) -> str:
    names = {
        C.CATEGORY_DIGIT: r"\d",
        C.CATEGORY_NOT_DIGIT: r"\D",
        C.CATEGORY_SPACE: r"\s",
        C.CATEGORY_NOT_SPACE: r"\S",
        C.CATEGORY_WORD: r"\w",
        C.CATEGORY_NOT_WORD: r"\W",
    }
    return names.get(cat, r"[\s\S]")
