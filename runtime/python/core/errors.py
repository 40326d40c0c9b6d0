"""What the codecs report: every problem in a document, each located exactly."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Issue", "ValidationError", "DecodeError", "EncodeError", "JSONParseError"]


@dataclass(frozen=True, slots=True)
class Issue:
    """One problem (or, from lenient decoding, one stripped member) in a document.

    ``pointer`` is the JSON Pointer of the instance the failing keyword applies to (for a
    warning: of the member that was stripped); ``definition`` the schema definition being
    checked there; ``keyword`` the JSON Schema keyword that failed (``json`` for bytes that are
    not JSON); ``schema_location`` where that keyword sits in the schema.
    """

    pointer: str
    definition: str
    keyword: str
    message: str
    schema_location: str = ""

    def as_dict(self) -> dict[str, str]:
        return {
            "pointer": self.pointer,
            "definition": self.definition,
            "keyword": self.keyword,
            "message": self.message,
            "schemaLocation": self.schema_location,
        }

    def __str__(self) -> str:
        return f"{self.pointer or '/'}: {self.message} [{self.keyword}, {self.definition}]"


class ValidationError(ValueError):
    """A document that is not what the schema says. ``errors`` holds the problems found, the
    first ``limits.MAX_ERRORS`` of them (or as many as the call asked for); ``count`` how many
    there were in all."""

    def __init__(self, definition: str, errors: list[Issue], count: int | None = None) -> None:
        self.definition = definition
        self.errors: tuple[Issue, ...] = tuple(errors)
        self.count: int = count if count is not None else len(self.errors) + getattr(errors, "more", 0)
        super().__init__(definition)  # the message is made when asked for: often it is not

    def __str__(self) -> str:
        head = f"not a valid {self.definition}: {self.count} error{'s' if self.count != 1 else ''}"
        lines = [head, *(str(e) for e in self.errors)]
        if self.count > len(self.errors):
            lines.append(f"... and {self.count - len(self.errors)} more")
        return "\n  ".join(lines)


class DecodeError(ValidationError):
    """Bytes or text that do not decode as the requested definition. A lenient decode that fails
    still says what it stripped before it did: ``warnings`` (the first ``max_errors``, as
    ``Decoded.warnings``) and ``warnings_omitted`` (how many more there were)."""

    def __init__(self, definition: str, errors: list[Issue], count: int | None = None, warnings: Sequence[Issue] = ()) -> None:
        super().__init__(definition, errors, count)
        self.warnings: tuple[Issue, ...] = tuple(warnings)
        self.warnings_omitted: int = getattr(warnings, "more", 0)


class EncodeError(ValidationError):
    """A value that would not encode to a document the schema accepts."""


class JSONParseError(ValueError):
    """Bytes or text that are not one JSON document this package reads (see ``limits``):
    ``issues`` locates each problem (a JSON Pointer where the document parsed, else the line and
    column or byte in the message), with its keyword: ``json``, or ``depth`` for nesting; the
    first ``max_errors`` of them, ``count`` the number in all."""

    def __init__(self, message: str, issues: list[tuple[str, str, str]] | None = None) -> None:
        super().__init__(message)
        self.issues: list[tuple[str, str, str]] = issues if issues is not None else [("", "json", message)]
        self.count: int = len(self.issues) + getattr(self.issues, "more", 0)
