"""The one error type generation raises: it always names the file and where in it."""

from __future__ import annotations


class SpecError(Exception):
    """A problem in a spec input, located by file and JSON pointer (or line:column)."""

    def __init__(self, file: str, where: str, message: str) -> None:
        self.file = file
        self.where = where
        self.message = message
        super().__init__(f"{file}: {where or '/'}: {message}")


class ToolError(SpecError):
    """Another target's binding refused a tool command's input (`--target NAME`): shown as
    `NAME: message`, since there is no spec location to point at."""

    def __init__(self, tool: str, message: str) -> None:
        super().__init__(tool, "", message)
        self.args = (f"{tool}: {message}",)

    def __str__(self) -> str:
        return str(self.args[0])


class LedgerWouldGrow(SpecError):
    """The schema needs wire slots its ledger lacks, and growing the ledger was not allowed:
    drift for `check` (exit 1), a refusal for `generate` (exit 2)."""


def pointer_escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def pointer_join(base: str, *tokens: str | int) -> str:
    return base + "".join("/" + pointer_escape(str(t)) for t in tokens)
