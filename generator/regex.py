"""ECMA-262 regular expressions (JSON Schema's `pattern` dialect) as Python `re` patterns with
the same meaning.

The two dialects read most patterns alike; where they differ, the Python spelling is rewritten:
`\\d`, `\\w` and `\\b` are ASCII in ECMA-262 and Unicode in Python; `\\s` is a fixed set of
Unicode spaces in ECMA-262; `.` excludes every line terminator, not only LF; `$` matches only at
the very end (Python's also before a final LF); `(?<name>` and `\\k<name>` are Python's `(?P<name>`
and `(?P=name)`; `[^]` and `[]` are "any character" and "no character"; `\\cX` is a control
character. A construct with no faithful translation raises `Untranslatable`.
"""

from __future__ import annotations

import functools
import re

_WORD = "A-Za-z0-9_"
_SPACE = "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
_CLASS_ESCAPES = {"d": "0-9", "w": _WORD, "s": _SPACE}
_ESCAPES = {
    "d": "[0-9]",
    "D": "[^0-9]",
    "w": f"[{_WORD}]",
    "W": f"[^{_WORD}]",
    "s": f"[{_SPACE}]",
    "S": f"[^{_SPACE}]",
    "b": f"(?:(?<=[{_WORD}])(?![{_WORD}])|(?<![{_WORD}])(?=[{_WORD}]))",
    "B": f"(?:(?<=[{_WORD}])(?=[{_WORD}])|(?<![{_WORD}])(?![{_WORD}]))",
}
_DOT = "[^\\n\\r\\u2028\\u2029]"


# Unicode property escapes Python's `re` can spell: (\p{...}, \P{...})
_LETTER = ("[^\\W\\d_]", "[\\W\\d_]")
_DIGIT = ("\\d", "\\D")  # Python's \d is Unicode's decimal digits (Nd)
_PROPERTIES = {"L": _LETTER, "Letter": _LETTER, "Nd": _DIGIT, "digit": _DIGIT, "Decimal_Number": _DIGIT}


class Untranslatable(ValueError):
    """An ECMA-262 construct with no Python equivalent here."""


_QUANTIFIER = re.compile(r"\{[0-9]+(?:,[0-9]*)?\}")
_GROUPS = ("(?:", "(?=", "(?!", "(?<=", "(?<!", "(?<")  # every group ECMA-262 has


@functools.lru_cache(maxsize=4096)
def ecma_to_python(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    after = ""  # what the last piece was: "q" a quantifier, "lazy" its `?`, "" anything else
    while i < n:
        c = pattern[i]
        quantified = after
        after = ""
        if c == "\\":
            piece, i = _escape(pattern, i, in_class=False)
            out.append(piece)
        elif c == "[":
            piece, i = _class(pattern, i)
            out.append(piece)
        elif c == "(" and pattern.startswith("(?P", i):
            raise Untranslatable("(?P...) is Python syntax, not ECMA-262")
        elif c == "(" and pattern.startswith("(?", i) and not pattern.startswith(_GROUPS, i):
            # Python's inline flags, comments, atomic groups and conditionals: a syntax error
            # in ECMA-262 (the TypeScript binding could not even load the pattern)
            raise Untranslatable(f"{pattern[i : i + 3]}...: not an ECMA-262 group (those are (?: (?= (?! (?<= (?<! and (?<name>)")
        elif c == "(" and pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
            out.append("(?P<")
            i += 3
        elif c in "*+?{" and quantified and not (c == "?" and quantified == "q"):
            if c != "{" or _QUANTIFIER.match(pattern, i):
                # Python 3.11 reads `a++` `a*+` `a?+` as possessive; ECMA-262 refuses them
                raise Untranslatable(f"a quantifier after a quantifier at {i}: ECMA-262 refuses it (Python 3.11 reads `a++` as possessive)")
            out.append(c)
            i += 1
        elif c in "*+?":
            out.append(c)
            after = "lazy" if c == "?" and quantified == "q" else "q"
            i += 1
        elif c == "{" and pattern.startswith("{,", i) and re.match(r"\{,[0-9]+\}", pattern[i:]):
            raise Untranslatable(f"{{,n}} at {i}: Python reads it as {{0,n}}, ECMA-262 as the characters: write {{0,n}}, or \\{{ for the characters")
        elif c == "{" and _QUANTIFIER.match(pattern, i):
            end = _QUANTIFIER.match(pattern, i).end()  # type: ignore[union-attr]
            out.append(pattern[i:end])
            after = "q"
            i = end
        elif c == ".":
            out.append(_DOT)
            i += 1
        elif c == "$":
            out.append("\\Z")
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _escape(pattern: str, i: int, in_class: bool) -> tuple[str, int]:
    if i + 1 >= len(pattern):
        raise Untranslatable("a pattern cannot end with a lone backslash")
    c = pattern[i + 1]
    if in_class and c in _CLASS_ESCAPES:
        return _CLASS_ESCAPES[c], i + 2
    if in_class and c in "DWS":
        raise Untranslatable(f"\\{c} inside a character class")
    if in_class and c == "b":
        return "\\x08", i + 2  # a backspace inside a class
    if not in_class and c in _ESCAPES:
        return _ESCAPES[c], i + 2
    if c == "c" and i + 2 < len(pattern) and pattern[i + 2].isascii() and pattern[i + 2].isalpha():
        return f"\\x{ord(pattern[i + 2]) % 32:02x}", i + 3
    if c == "k" and not in_class and pattern.startswith("<", i + 2):
        end = pattern.find(">", i + 3)
        if end < 0:
            raise Untranslatable("\\k< without its closing >")
        return f"(?P={pattern[i + 3:end]})", end + 1
    if c == "u" and pattern.startswith("{", i + 2):
        end = pattern.find("}", i + 3)
        if end < 0:
            raise Untranslatable("\\u{ without its closing }")
        return f"\\U{int(pattern[i + 3:end], 16):08x}", end + 1
    if c in "pP" and pattern.startswith("{", i + 2):
        # a Unicode property escape (JSON Schema reads patterns with Unicode semantics)
        end = pattern.find("}", i + 3)
        name = pattern[i + 3 : end] if end > 0 else ""
        found = _PROPERTIES.get(name)
        if found is None or in_class:
            raise Untranslatable(f"\\{c}{{{name}}}: only \\p{{L}} (Letter) and \\p{{Nd}} (digit) are translated, outside classes")
        return found[c == "P"], end + 1
    if c in "AZzGQEaUNpPL" or (c.isascii() and c.isalpha() and c not in "tnvfrux0"):
        # an identity escape in ECMA-262 (\Z is "Z"); Python reads these as something else
        return re.escape(c), i + 2
    if c == "v":
        return "\\x0b", i + 2
    return pattern[i : i + 2], i + 2


def _class(pattern: str, i: int) -> tuple[str, int]:
    """A character class `[...]`, from its `[` to past its `]`."""
    j = i + 1
    negated = pattern.startswith("^", j)
    if negated:
        j += 1
    if pattern.startswith("]", j):
        return ("[\\s\\S]" if negated else "(?!)"), j + 1
    body: list[str] = []
    while j < len(pattern) and pattern[j] != "]":
        c = pattern[j]
        if c == "\\":
            piece, j = _escape(pattern, j, in_class=True)
            body.append(piece)
        elif c == "[":
            body.append("\\[")  # a literal in ECMA-262; Python warns of nested sets
            j += 1
        elif c in "&~|" and pattern.startswith(c * 2, j):
            body.append("\\" + c)  # Python reserves doubled set operators
            j += 1
        else:
            body.append(c)
            j += 1
    if j >= len(pattern):
        raise Untranslatable("an unterminated character class")
    return "[" + ("^" if negated else "") + "".join(body) + "]", j + 1
