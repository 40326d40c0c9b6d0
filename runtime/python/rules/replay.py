"""Judge a whole event stream of this package's protocol: the report ``specbind replay
--json`` prints for one file, from this package alone.

    from <package>.replay import replay
    report = replay("stream.jsonl")   # a path, bytes, or a binary file object
    report["outcome"]                 # "completed" | "failed" | "empty" | "unrecognized"

The report holds the outcome, the findings (``violations``: MUST-level; ``warnings``), the
number of ``events`` and their ``types`` counted by name, how each run ended (``runs``), the
``format`` read and ``notes`` on the input. It grows with the findings and the runs, never with
the number of events, and reading is incremental for JSON Lines and SSE, so memory stays flat
on files of any length. The findings listed are the first ``max_findings`` (``MAX_FINDINGS`` by
default); when more were found, ``omitted`` counts the rest (``{"violations", "warnings",
"rules"}``, the last by rule) and a note says so: the outcome counts them all. Nothing here needs more than the package and msgspec: it can be the map
function of a job that judges an archive of stream files on many machines.

Formats: ``jsonl`` (each non-blank line one event), ``sse`` (a captured ``text/event-stream``
body: each SSE event's data one event), ``json`` (a JSON array of events, one event, or a test
case: an object whose ``stream`` member is the array; read whole), and ``auto``, the default,
which tells them apart by their first bytes and says what it saw in ``notes``.

``outcome``: ``completed`` when no MUST-level rule is broken, ``failed`` when one is, ``empty``
when the stream holds no event, ``unrecognized`` when not one of its documents decodes as an
event of this protocol (another protocol's stream, or not an event stream at all). Only
``completed`` is conformant.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, BinaryIO


from . import codec_json, models
from .automaton import MAX_FINDINGS, RULES, Automaton, Finding
from .automaton_table import TABLES
from .errors import JSONParseError
from .jsonscan import Scanned, scan, scan_text
from .version import PROTOCOL, PROTOCOL_VERSION

__all__ = ["FORMATS", "OUTCOMES", "MAX_FINDINGS", "sniff", "replay", "conformant"]

FORMATS = ("auto", "jsonl", "sse", "json")
OUTCOMES = ("completed", "failed", "empty", "unrecognized")
BLOCK = 1 << 20
"""Bytes read at a time."""
_HEAD = 1 << 16
_BOM = b"\xef\xbb\xbf"
_SSE_STARTS = (b"data:", b"event:", b"id:", b"retry:", b":")
# event class -> its type, for the counts
_TYPE_OF: dict[Any, str] = {
    models.DEFINITIONS[cls]: type_ for type_, cls in TABLES["event_classes"].items()
}
_NAME = f"{PROTOCOL} {PROTOCOL_VERSION}"
_FATAL_LEVELS = frozenset(TABLES["fatal_levels"])
_ORDINARY = "one JSON document per line"


def sniff(head: bytes, whole: bool = False) -> tuple[str, str]:
    """The format of a stream from its first bytes (``whole``: they are all of it), and what
    gave it away."""
    text = head[3:] if head.startswith(_BOM) else head
    text = text.lstrip()
    if not text:
        return "jsonl", "no content"
    if text.startswith(b"["):
        return "json", "a JSON array"
    if text.startswith(_SSE_STARTS):
        return "sse", "SSE fields (data:)"
    if not text.startswith(b"{"):
        return "jsonl", "neither JSON nor SSE at its start; read as JSON Lines"
    end = text.find(b"\n")
    if end < 0 and not whole:
        return "jsonl", "JSON on its first line"  # a line longer than the head: JSON Lines
    line = text if end < 0 else text[:end]
    try:  # the grammar alone: bytes that are not UTF-8 are characters of no meaning here
        first = scan_text(line.decode("utf-8", "surrogateescape"))
    except JSONParseError:
        return "json", "a JSON document over several lines"
    if _stream_of(first) is not None and not _is_event(line):
        return "json", "a test case (an object with a stream)"
    return "jsonl", _ORDINARY


def _stream_of(shape: Scanned) -> Scanned | None:
    """The items of a top-level object's ``stream`` member when it is an array (the last member
    of that name, as parsing keeps), else None."""
    if shape.kind != "object":
        return None
    spans = [(a, b) for name, a, b in shape.members if name == "stream"]
    if not spans or shape.text[spans[-1][0]] != "[":
        return None
    return scan_text(shape.text[spans[-1][0] : spans[-1][1]])


def _is_event(data: bytes) -> bool:
    """Whether a document is an event as the codec reads it (its limits included)."""
    if TABLES["events_definition"] is None:  # two parties: a transcript line is never a test case
        return False
    return bool(codec_json.decoder(TABLES["events_definition"]).accepts(data))


def conformant(report: dict[str, Any]) -> bool:
    """Whether a report's stream is conformant (its outcome is ``completed``)."""
    return bool(report["outcome"] == "completed")


def replay(
    source: str | os.PathLike[str] | bytes | BinaryIO,
    *,
    fmt: str = "auto",
    after: int | None = None,
    consumer: Any = None,
    on_findings: Callable[[list[Finding]], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
    plain: bool = False,
    max_findings: int | None = MAX_FINDINGS,
) -> dict[str, Any]:
    """Judge one stream and return its report (see the module docstring).

    ``after``: the stream is a replay that starts after this cursor. ``consumer``: a consumer
    core driving its own automaton (``feed_document``, ``finish``, ``report``; ``feed_documents``
    if it has one, the findings then only kept), fed one document at a time; its report is merged in and its warnings join the findings. ``on_findings`` gets
    the new findings as they are made (in order, a block at a time); ``progress`` the number of
    events and bytes read so far, once per block. ``plain``: feed every document through
    ``feed_document``, one at a time (the reference the fast path is held to).
    ``max_findings``: how many findings the report lists (None: all of them)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")
    if consumer is not None and after is not None:
        raise ValueError("after replays the automaton alone: it does not combine with a consumer")
    run = _Run(after, consumer, on_findings, progress, plain or consumer is not None)
    run.automaton.max_findings = max_findings
    if isinstance(source, (bytes, bytearray, memoryview)):
        import io

        run.read(io.BytesIO(bytes(source)), fmt)
    elif isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as handle:
            run.read(handle, fmt)
    else:
        run.read(source, fmt)
    return run.report()


class _Run:
    """One stream being judged."""

    def __init__(
        self,
        after: int | None,
        consumer: Any,
        on_findings: Callable[[list[Finding]], None] | None,
        progress: Callable[[int, int], None] | None,
        plain: bool,
    ) -> None:
        self.consumer = consumer
        self.automaton: Automaton = consumer.automaton if consumer is not None else Automaton(after=after)
        self.driver: Any = consumer if consumer is not None else self.automaton
        self.automaton.counts = {}
        self.on_findings = on_findings
        self.progress = progress
        self.plain = plain
        self.format = "jsonl"
        self.notes: list[str] = []
        self.lines: dict[int, int] = {}  # event index -> line, for the findings (JSON Lines)
        self.line = 0  # lines read
        self.last_line = 0  # the line of the last event
        self.done = 0  # bytes read
        self.told = 0  # findings handed to on_findings

    # -- reading --------------------------------------------------------------------------------

    def read(self, handle: BinaryIO, fmt: str) -> None:
        head = b""
        while len(head) < _HEAD:  # a pipe may give less than asked before its end
            chunk = handle.read(_HEAD - len(head))
            if not chunk:
                break
            head += chunk
        whole = len(head) < _HEAD
        if fmt == "auto":
            fmt, why = sniff(head, whole)
            if why != _ORDINARY:  # the report's format says the rest
                self.notes.append(f"read as {_FORMAT_NAMES[fmt]} (auto: {why})")
        self.format = fmt
        if head.startswith(_BOM) and fmt != "sse":  # the SSE decoder drops its own
            head = head[3:]
        if fmt == "jsonl":
            self._jsonl(handle, head)
        elif fmt == "sse":
            self._sse(handle, head)
        else:
            self._json(head if whole else head + handle.read())
        self._tell()
        self.driver.finish()
        self._tell(end=True)

    def _jsonl(self, handle: BinaryIO, head: bytes) -> None:
        # a line longer than a block waits in pieces, joined once it ends (joining at every
        # block would copy a long line once per block)
        pending = [head] if head else []
        while True:
            chunk = handle.read(BLOCK)
            if chunk:
                cut = chunk.rfind(b"\n") + 1
                if not cut:
                    pending.append(chunk)
                    continue
                pending.append(chunk[:cut])
                block = b"".join(pending)
                pending = [chunk[cut:]] if cut < len(chunk) else []
            else:
                block, pending = b"".join(pending), []
            self.done += len(block)
            lines = block.split(b"\n")
            if lines[-1] == b"":
                lines.pop()
            self._lines(lines)
            if not chunk:
                return

    def _lines(self, lines: list[bytes]) -> None:
        automaton = self.automaton
        first = automaton.index + 1
        before = len(automaton.findings)
        if self.plain:
            documents = [line for line in (line.strip() for line in lines) if line]
            skipped = len(lines) - len(documents)
            self._feed(documents)
        else:
            skipped = automaton.feed_documents(lines, skip_blank=True)
        count = automaton.index + 1 - first
        where: list[int] = []
        if count:
            if skipped:
                where = [n for n, line in enumerate(lines) if line.strip()]
            for f in automaton.findings[before:]:
                if first <= f.index < first + count:
                    offset = f.index - first
                    self.lines[f.index] = self.line + 1 + (where[offset] if skipped else offset)
            last = where[-1] if skipped else count - 1
            self.last_line = self.line + 1 + last
        self.line += len(lines)
        self._tell()

    def _sse(self, handle: BinaryIO, head: bytes) -> None:
        from .sse import Decoder

        decoder = Decoder(max_size=None)
        chunk = head
        while chunk:
            self.done += len(chunk)
            documents = decoder.feed(chunk)
            if documents:
                self._documents(documents)
            chunk = handle.read(BLOCK)
        if decoder.finish():
            self.notes.append("the stream ends inside an SSE event (no blank line after it): that event is not read")

    def _json(self, data: bytes) -> None:
        """A JSON text: its grammar read whole (``jsonscan``: no nesting stops it), then each
        item of an array, or of a test case's stream, decoded on its own as one event."""
        self.done = len(data)
        text = data.strip()
        documents: list[bytes]
        try:
            shape = scan(text) if text else None
        except JSONParseError as exc:
            self.notes.append(f"not one JSON document: {exc}")
            shape, documents = None, [text]
        else:
            documents = [text] if text else []
        if shape is not None and shape.kind == "array":
            documents = [shape.text[a:b].encode() for a, b in shape.spans]
            self.notes.append(f"a JSON array of {len(documents):,} events")
        elif shape is not None and shape.kind == "object":
            items = _stream_of(shape)
            if items is not None and not _is_event(text):
                documents = [items.text[a:b].encode() for a, b in items.spans]
                rest = ", ".join(sorted({name for name, _, _ in shape.members if name != "stream"}))
                also = f" (its {rest} not checked)" if rest else ""
                self.notes.append(f"a test case: its stream of {len(documents):,} events{also}")
            else:
                self.notes.append("one JSON object: a stream of one event")
        self._documents(documents)

    def _feed(self, documents: list[bytes]) -> None:
        """Documents one at a time (the plain path): a consumer's in bulk, the findings only kept."""
        bulk = getattr(self.consumer, "feed_documents", None)
        if bulk is not None:
            bulk(documents)
        else:
            for doc in documents:
                self.driver.feed_document(doc)

    def _documents(self, documents: list[bytes]) -> None:
        if self.plain:
            self._feed(documents)
        else:
            self.automaton.feed_documents(documents)
        self._tell()

    def _tell(self, end: bool = False) -> None:
        findings = self.automaton.findings
        if end and self.format == "jsonl":
            last = self.automaton.index
            for f in findings[self.told :]:
                if f.index == last and last >= 0:
                    self.lines[f.index] = self.last_line
        if self.on_findings is not None and len(findings) > self.told:
            self.on_findings(findings[self.told :])
        self.told = len(findings)
        if self.progress is not None and not end:
            self.progress(self.automaton.index + 1, self.done)

    # -- the report -----------------------------------------------------------------------------

    def report(self) -> dict[str, Any]:
        automaton = self.automaton
        counts = automaton.counts or {}
        violations: list[dict[str, Any]] = []
        warnings: list[dict[str, Any]] = []
        for f in automaton.findings:
            entry = f.as_dict()
            line = self.lines.get(f.index)
            if line is not None:
                entry["line"] = line
            (violations if f.fatal else warnings).append(entry)
        extra: dict[str, Any] = {}
        if self.consumer is not None:
            extra = self.consumer.report()
            warnings += [_consumer_warning(text) for text in extra.pop("consumerWarnings", [])]
        events = automaton.index + 1
        decoded = sum(counts.values())
        notes = list(self.notes)
        if events == 0:
            outcome = "empty"
            notes.append("the stream holds no event: an empty stream is not a conformant one")
        elif decoded == 0:
            outcome = "unrecognized"
            notes.append(
                f"not one of its {events:,} documents decodes as an event of {_NAME}: "
                "is this a stream of another protocol (the right --spec)?"
            )
        else:
            outcome = automaton.outcome
        omitted: dict[str, Any] = {}
        if automaton.omitted:
            fatal = sum(n for rule, n in automaton.omitted_rules.items() if _fatal(rule))
            omitted = {"omitted": {"violations": fatal, "warnings": automaton.omitted - fatal, "rules": dict(sorted(automaton.omitted_rules.items()))}}
            notes.append(f"{automaton.omitted} more findings than the {len(automaton.findings)} listed (max_findings): counted in omitted")
        types = sorted(((c if isinstance(c, str) else _TYPE_OF.get(c, getattr(c, "__name__", "?")), n) for c, n in counts.items()), key=lambda t: (-t[1], t[0]))
        return {
            "outcome": outcome,
            "violations": violations,
            "warnings": warnings,
            "events": events,
            "types": dict(types),
            "runs": automaton.runs,
            "format": self.format,
            "notes": notes,
            **omitted,
            **extra,
        }


def _fatal(rule: str) -> bool:
    return RULES.get(rule, {}).get("level") in _FATAL_LEVELS


def _consumer_warning(text: str) -> dict[str, Any]:
    """A consumer-core warning in the shape of a finding (it names no rule)."""
    return {"rule": None, "level": "SHOULD", "index": None, "type": None, "message": text, "ids": []}


_FORMAT_NAMES = {"jsonl": "JSON Lines", "sse": "SSE", "json": "JSON"}
