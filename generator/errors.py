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


class TargetError(SpecError):
    """A target's own code or template failed: located at the file and line in that code (the
    innermost frame outside specbind), with the traceback kept for `--debug`."""

    def __init__(self, file: str, where: str, message: str, debug: str) -> None:
        super().__init__(file, where, message)
        self.debug = debug


def located(exc: BaseException, what: str) -> TargetError:
    """`exc`, raised somewhere under a target's code, as a TargetError naming the innermost
    frame that is not specbind's own (the target's module, or a filter it registered)."""
    import traceback
    from pathlib import Path

    own = Path(__file__).resolve().parent
    frames = traceback.extract_tb(exc.__traceback__)
    theirs = [f for f in frames if own not in Path(f.filename).resolve().parents] or frames
    frame = theirs[-1] if theirs else None
    debug = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    message = f"{what}: {type(exc).__name__}: {exc}"
    if frame is None:
        return TargetError("<unknown>", "", message, debug)
    return TargetError(frame.filename, f"line {frame.lineno}", message, debug)
