"""`specbind proxy`: a stdio relay between a party and the child process it launches, for a spec
whose binding declares a stdio transport (`[stdio]` in binding.toml). The launcher starts
`specbind proxy --spec DIR -- CHILD...` instead of the child; every byte passes through unchanged
and in order (generator/relay.py), each message is judged as it passes and each finding printed
on stderr at once, `--record` writes the transcript, and the proxy exits with the child's status:
findings never break the session."""

from __future__ import annotations

import importlib
import json
import os
import sys
import threading
from pathlib import Path
from types import ModuleType
from typing import IO, Any

import click
import msgspec

from ..binding import Stdio, load_binding
from ..errors import SpecError
from ..relay import Line, Relay
from .common import load_package, out_option, spec_option, writable
from .families import FamilyJudge, revision_option, spec_family

PREFIX = "specbind proxy: "
_JSON = msgspec.json.Decoder()


class DecodeJudge:
    """Each message strictly decoded as the spec's root definition: one that does not decode
    (not JSON, not UTF-8, not the schema's) is a finding at the level the transport gives it."""

    def __init__(self, package: ModuleType, stdio: Stdio) -> None:
        self.codec = package.codec_json
        self.root = self.codec.ROOT
        self.ref = stdio.ref
        self.violations = 0
        self.warnings = 0

    def feed(self, line: Line) -> list[str]:
        try:
            self.codec.decode(line.data, self.root)
        except self.codec.DecodeError as exc:
            self.violations += 1
            errors = exc.errors
            first = "; ".join(f"{e.pointer or '/'}: {e.message} [{e.keyword}]" for e in errors[:2])
            more = f" (and {len(errors) - 2} more)" if len(errors) > 2 else ""
            where = f" ({self.ref})" if self.ref else ""
            return [f"[MUST] message {line.index} from {line.party}: not a valid {self.root}{where}: {first}{more}"]
        return []

    def finish(self) -> list[str]:
        return []


class RulesJudge:
    """The spec's rules, as the generated package's automaton judges a session of two parties
    (`Automaton.feed_message(bytes, sender=PARTY)`, docs/rules-dsl.md "Two parties"): each
    finding names its rule, level and message index; `finish` adds what the end of the session
    leaves (requests never answered)."""

    def __init__(self, automaton: ModuleType) -> None:
        self.automaton = automaton.Automaton()
        self.violations = 0
        self.warnings = 0

    def _lines(self, findings: Any) -> list[str]:
        out = []
        for finding in findings:
            if finding.fatal:
                self.violations += 1
            else:
                self.warnings += 1
            out.append(f"{finding.rule} [{finding.level}] message {finding.index} ({finding.type}): {finding.message}")
        return out

    def feed(self, line: Line) -> list[str]:
        return self._lines(self.automaton.feed_message(line.data, sender=line.party))

    def finish(self) -> list[str]:
        return self._lines(self.automaton.finish())


def judge_for(package: ModuleType, stdio: Stdio) -> DecodeJudge | RulesJudge:
    """The rules when the spec's package has a two-party automaton naming the transport's
    parties; strict decoding otherwise."""
    try:
        automaton = importlib.import_module(f"{package.__name__}.automaton")
        parties = importlib.import_module(f"{package.__name__}.automaton_table").TABLES.get("parties") or []
    except ModuleNotFoundError:
        return DecodeJudge(package, stdio)
    if not parties or not hasattr(automaton.Automaton, "feed_message"):
        return DecodeJudge(package, stdio)
    if sorted(parties) != sorted((stdio.stdin, stdio.stdout)):
        raise click.UsageError(
            f"the rules name the parties {' and '.join(parties)}, the [stdio] table {stdio.stdin} and {stdio.stdout}: they must be the same"
        )
    return RulesJudge(automaton)


class Transcript:
    """The session as JSON Lines, in wire order: `{"from": PARTY, "message": MESSAGE}` with the
    message's own bytes; a line that is not JSON is kept as text, `{"from": PARTY, "raw": TEXT}`.
    Flushed line by line, so a session cut short keeps what it had."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        self.heads: dict[str, bytes] = {}

    def write(self, line: Line) -> None:
        data = line.data.strip()
        head = self.heads.get(line.party)
        if head is None:
            head = self.heads[line.party] = b'{"from":' + json.dumps(line.party).encode() + b","
        try:
            _JSON.decode(data)
            record = head + b'"message":' + data + b"}\n"
        except msgspec.DecodeError:
            text = json.dumps(line.data.decode("utf-8", "replace"), ensure_ascii=False).encode("utf-8")
            record = head + b'"raw":' + text + b"}\n"
        self.stream.write(record)
        self.stream.flush()


def _say(text: str) -> None:
    """One line on stderr in one write (the child's own stderr lines interleave whole)."""
    data = (PREFIX + text + "\n").encode("utf-8", "backslashreplace")
    try:
        os.write(2, data)
    except OSError:
        pass


@click.command(context_settings={"allow_interspersed_args": False})
@spec_option
@click.option("--record", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help='Write the transcript to FILE: JSON Lines, {"from": PARTY, "message": MESSAGE} per message in wire order.')
@click.option("--grace", type=click.FloatRange(min=0), default=5.0, show_default=True, metavar="S",
              help="After SIGTERM or Ctrl-C is passed on, how long the child has to exit before it is killed.")
@click.option("--slow", type=click.FloatRange(min=0), default=30.0, show_default=True, metavar="S",
              help="Say so when the child has written nothing for S seconds after the launcher wrote (0: never).")
@revision_option
@out_option
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED, metavar="-- COMMAND...")
def proxy(spec_dir: Path, record: Path | None, grace: float, slow: float, revision: str | None, out: Path, command: tuple[str, ...]) -> None:
    """Relay stdio between the launcher and COMMAND (a child speaking the spec's stdio transport):
    every byte passes unchanged and in order both ways, the child's stderr is passed through,
    each message is judged as it passes and every finding printed on stderr as it happens. When
    the spec declares a protocol family (binding.toml [family]), each session is judged by the
    revision its messages name (a session may begin in one and fall back to another), and the
    last line names it; --revision forces one.

    Exit with COMMAND's status (128 + N when signal N ended it; 127 when it cannot be found,
    126 when it cannot be run): findings never end the session. 2 on usage errors."""
    try:
        stdio = load_binding(spec_dir).stdio
    except SpecError as exc:
        raise click.UsageError(str(exc)) from None
    if stdio is None:
        raise click.UsageError(f"{spec_dir} binds no stdio transport: its binding.toml has no [stdio] table")
    family = spec_family(spec_dir, revision)
    package = load_package(spec_dir, out)
    judge: Any
    if family is not None:
        judge = FamilyJudge(family, out, revision, lambda p, b: judge_for(p, b.stdio or stdio))
    else:
        judge = judge_for(package, stdio)
    transcript = Transcript(open(writable(record, "--record"), "wb")) if record is not None else None  # noqa: SIM115 - closed below
    lock = threading.Lock()
    counts = {stdio.stdin: 0, stdio.stdout: 0}

    def on_line(line: Line) -> None:
        if not line.data.strip():
            return  # a blank line carries no message
        counts[line.party] += 1
        if transcript is not None:
            transcript.write(line)
        for text in judge.feed(line):
            _say(text)

    def on_event(text: str) -> None:
        with lock:
            _say(text)

    # the judge thread holds the interpreter while it decodes; the relay's threads only wait on
    # pipes: a short switch interval lets them forward as soon as bytes arrive
    sys.setswitchinterval(0.0005)
    relay = Relay(command, (stdio.stdin, stdio.stdout), on_line, on_event, grace=grace, slow=slow)
    try:
        relay.start()
    except FileNotFoundError:
        _say(f"cannot run {command[0]}: not found")
        sys.exit(127)
    except OSError as exc:
        _say(f"cannot run {command[0]}: {exc.strerror or exc}")
        sys.exit(126)
    status = relay.run()
    for text in judge.finish():
        _say(text)
    if transcript is not None:
        transcript.stream.close()
    by_party = ", ".join(f"{n} from the {party}" for party, n in counts.items())
    spoken = judge.describe() if family is not None else package.version.PROTOCOL_VERSION
    _say(
        f"{sum(counts.values())} messages ({by_party}); {judge.violations} violations, {judge.warnings} warnings; "
        f"the {stdio.stdout} exited with status {status}; revision {spoken}" + (f"; transcript: {record}" if record is not None else "")
    )
    sys.exit(status)


COMMANDS = [proxy]
