"""Tokens and statements of the rules DSL. A statement is a line; a more-indented line continues
the statement above it; `#` starts a comment. Every token keeps its line and column.

A word may hold `/`, `:` and `$` after its first character (a method name such as `files/read`,
a response `files/read:result`) and bracketed segments (`_meta.[io.example/key].id`: a member
name holding dots, as one segment of a path)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import SpecError

_TOKEN = re.compile(
    r"""
    (?P<space>[ \t]+)
  | (?P<comment>\#.*)
  | (?P<string>"(?:[^"\\]|\\.)*"?)
  | (?P<number>-?\d+(?:\.\d+)?(?![A-Za-z_]))
  | (?P<op>->|==|!=|<=|>=|<|>|\+|-|=|\(|\))
  | (?P<word>[A-Za-z_*$](?:[A-Za-z0-9_.*/:$-]|\[[^\]\s]*\])*)
    """,
    re.VERBOSE,
)


@dataclass(frozen=True)
class Token:
    kind: str  # word, string, number, op
    text: str
    line: int
    col: int

    @property
    def value(self) -> str | int | float:
        if self.kind == "string":
            return bytes(self.text[1:-1], "utf-8").decode("unicode_escape") if "\\" in self.text else self.text[1:-1]
        if self.kind == "number":
            return float(self.text) if "." in self.text else int(self.text)
        return self.text


@dataclass
class Statement:
    tokens: list[Token]
    indent: int

    @property
    def head(self) -> Token:
        return self.tokens[0]


def statements(text: str, file: str, blocks: tuple[str, ...] = ()) -> list[Statement]:
    """`blocks` are the keywords that open a block: the lines after one start statements."""
    out: list[Statement] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        tokens: list[Token] = []
        pos = 0
        while pos < len(raw):
            m = _TOKEN.match(raw, pos)
            if m is None:
                raise SpecError(file, f"line {lineno} column {pos + 1}", f"unexpected character {raw[pos]!r}")
            kind = m.lastgroup
            assert kind is not None
            if kind == "string" and (len(m.group()) < 2 or not m.group().endswith('"')):
                raise SpecError(file, f"line {lineno} column {pos + 1}", "unterminated string")
            if kind not in ("space", "comment"):
                tokens.append(Token(kind, m.group(), lineno, pos + 1))
            pos = m.end()
        if not tokens:
            continue
        indent = len(raw) - len(raw.lstrip(" \t"))
        if out and indent > out[-1].indent and out[-1].head.text not in blocks:
            out[-1].tokens.extend(tokens)
        else:
            out.append(Statement(tokens, indent))
    return out


def split_path(dotted: str) -> list[str]:
    """A dotted field path as its member names: `a.b` is two, `a.[x.y/z].b` three (a bracketed
    segment is one name, dots and all)."""
    parts: list[str] = []
    current = ""
    depth = 0
    for ch in dotted:
        if ch == "[" and depth == 0 and not current:
            depth = 1
        elif ch == "]" and depth == 1:
            depth = 0
        elif ch == "." and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return parts
