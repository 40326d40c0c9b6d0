"""A stdio relay: it stands between a party that launches a child process (a client launching its
server) and that child, passing every byte through unchanged and in order in both directions,
and hands each complete line to a callback in the order the relay saw them (wire order).

Bytes are forwarded as they arrive, before anything looks at them: the callback runs on a thread
of its own behind a queue, so a slow judge delays nobody. The child's stderr is the relay's own
(inherited): its logs reach the launcher's stderr untouched. Nothing here knows any protocol: the
framing is one message per line (`[stdio] framing = "lines"` in binding.toml), the parties are
named by the binding.

What can go wrong is told through `Relay.events` (and the `on_event` callback), never raised: the
child exits while the launcher still writes (the rest is read and judged, not delivered), the
launcher stops reading (the child's output is still drained and judged), a line that never ends,
a child silent for `slow` seconds after the launcher wrote.
SIGTERM and SIGINT are passed on to the child; one that has not exited `grace` seconds later is
killed. `run` returns the child's exit status the way a shell reports it (128 + N for signal N).
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import FrameType

CHUNK = 1 << 16
# A line longer than this is still forwarded whole, but not kept for the judge: memory stays
# bounded whatever a peer writes.
MAX_LINE = 64 << 20


@dataclass(frozen=True)
class Line:
    """One message as framed on the wire: who wrote it, its place among all messages of both
    parties (from 0), its bytes without the newline, and whether a newline ended it (`False`:
    the stream closed in the middle of it, or it was longer than MAX_LINE and cut)."""

    party: str
    index: int
    data: bytes
    complete: bool = True
    truncated: bool = False


class Framer:
    """Newline-delimited framing, incremental: bytes in, complete lines out (LF ends a line; a
    CR before it stays in the line, as JSON whitespace)."""

    def __init__(self, limit: int = MAX_LINE) -> None:
        self.buffer = bytearray()
        self.limit = limit
        self.dropped = 0  # bytes of the current line past the limit

    def feed(self, chunk: bytes) -> list[tuple[bytes, bool]]:
        """The lines `chunk` completes, each with whether it was cut at the limit."""
        out: list[tuple[bytes, bool]] = []
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                self._keep(chunk[start:])
                return out
            if not self.buffer and not self.dropped and end - start <= self.limit:
                out.append((chunk[start:end], False))
            else:
                self._keep(chunk[start:end])
                out.append((bytes(self.buffer), self.dropped > 0))
                self.buffer.clear()
                self.dropped = 0
            start = end + 1

    def _keep(self, part: bytes) -> None:
        room = self.limit - len(self.buffer)
        if len(part) > room:
            self.dropped += len(part) - max(room, 0)
            part = part[: max(room, 0)]
        self.buffer += part

    def tail(self) -> tuple[bytes, bool] | None:
        """What the stream left without a newline at its end (None: nothing)."""
        if not self.buffer and not self.dropped:
            return None
        data, cut = bytes(self.buffer), self.dropped > 0
        self.buffer.clear()
        self.dropped = 0
        return data, cut


def exit_status(returncode: int) -> int:
    """A child's status as a shell reports it: 128 + N when signal N ended it."""
    return 128 - returncode if returncode < 0 else returncode


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class Relay:
    """Run `command` as the child, relaying the launcher's stdin to it and its stdout back.

    `parties` names who writes the child's stdin and who writes its stdout. `on_line` is called
    with every Line in wire order, from one thread; `on_event` with each thing worth telling the
    user (a sentence), from any thread."""

    def __init__(
        self,
        command: Sequence[str],
        parties: tuple[str, str],
        on_line: Callable[[Line], None],
        on_event: Callable[[str], None] = lambda text: None,
        grace: float = 5.0,
        slow: float = 0.0,
        stdin_fd: int = 0,
        stdout_fd: int = 1,
    ) -> None:
        self.command = list(command)
        self.parties = parties
        self.on_line = on_line
        self.on_event = on_event
        self.grace = grace
        self.slow = slow  # seconds of silence from the child after the launcher wrote (0: never said)
        self._last = {parties[0]: 0.0, parties[1]: 0.0}  # when each party last completed a line
        self.stdin_fd = stdin_fd
        self.stdout_fd = stdout_fd
        self.events: list[str] = []
        self.counts = {parties[0]: 0, parties[1]: 0}
        self.undelivered = {parties[0]: 0, parties[1]: 0}  # bytes read but not delivered
        self._lines: queue.SimpleQueue[Line | None] = queue.SimpleQueue()
        self._order = threading.Lock()  # one index sequence across both directions
        self._next = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._signalled: int | None = None

    def event(self, text: str) -> None:
        self.events.append(text)
        self.on_event(text)

    # -- the threads --------------------------------------------------------------------------

    def _emit(self, party: str, data: bytes, complete: bool, truncated: bool) -> None:
        with self._order:
            index = self._next
            self._next += 1
            self.counts[party] += 1
            self._last[party] = time.monotonic()
            self._lines.put(Line(party, index, data, complete, truncated))

    def _pump(self, party: str, source: int, sink: int, on_eof: Callable[[], None]) -> None:
        """Copy `source` to `sink` until `source` ends, framing what passes. Each chunk's lines
        are queued before the chunk is forwarded, so an answer can never be queued ahead of the
        message it answers. When `sink` goes away, the rest is still read and framed (and counted
        as undelivered)."""
        framer = Framer()
        delivering = True
        while True:
            try:
                chunk = os.read(source, CHUNK)
            except OSError:
                chunk = b""
            if not chunk:
                break
            for data, cut in framer.feed(chunk):
                if cut:
                    self.event(f"a line from the {party} was longer than {MAX_LINE} bytes: delivered whole, judged from its first {MAX_LINE}")
                self._emit(party, data, True, cut)
            if delivering:
                try:
                    _write_all(sink, chunk)
                except OSError:
                    delivering = False
                    self.event(f"the {self._reader_of(party)} stopped reading: what the {party} writes from here on is judged and recorded, not delivered")
            if not delivering:
                self.undelivered[party] += len(chunk)
        left = framer.tail()
        if left is not None:
            if left[0].strip():
                self.event(f"the {party}'s stream ended inside a message (no newline after its last {len(left[0])} bytes)")
            self._emit(party, left[0], False, left[1])
        on_eof()

    def _reader_of(self, party: str) -> str:
        return self.parties[1] if party == self.parties[0] else self.parties[0]

    def _judge(self) -> None:
        while True:
            line = self._lines.get()
            if line is None:
                return
            self.on_line(line)

    def _watch(self, done: threading.Event) -> None:
        """Say once per silence when the child has written nothing for `slow` seconds since the
        launcher's last message (a slow or hung child: the session is not touched)."""
        launcher, child = self.parties
        told = 0.0
        while not done.wait(min(self.slow / 4, 1.0)):
            with self._order:
                asked, answered, n = self._last[launcher], self._last[child], self._next
            if asked > answered and asked != told and time.monotonic() - asked >= self.slow:
                told = asked
                self.event(f"the {child} has written nothing for {self.slow:g} s since message {n - 1} from the {launcher}")

    # -- the child and its end ------------------------------------------------------------------

    def _signal(self, signum: int, frame: FrameType | None) -> None:
        process = self._process
        self._signalled = signum
        if process is None or process.poll() is not None:
            return
        try:
            process.send_signal(signum)
        except ProcessLookupError:
            return
        timer = threading.Timer(self.grace, self._kill)
        timer.daemon = True
        timer.start()

    def _kill(self) -> None:
        process = self._process
        if process is not None and process.poll() is None:
            self.event(f"the {self.parties[1]} did not exit {self.grace:g} s after the signal: killed")
            process.kill()

    def start(self) -> subprocess.Popen[bytes]:
        """Start the child (OSError when it cannot be run)."""
        self._process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        return self._process

    def run(self) -> int:
        """Relay until the child exits and its output is drained; the child's exit status."""
        process = self._process or self.start()
        assert process.stdin is not None and process.stdout is not None
        child_in, child_out = process.stdin, process.stdout
        launcher, child = self.parties
        previous = {s: signal.signal(s, self._signal) for s in (signal.SIGTERM, signal.SIGINT)}
        judge = threading.Thread(target=self._judge, name="relay-judge", daemon=True)
        down_done = threading.Event()

        def close_child_in() -> None:
            try:
                child_in.close()
            except OSError:
                pass

        up = threading.Thread(target=self._pump, args=(launcher, self.stdin_fd, child_in.fileno(), close_child_in), name="relay-up", daemon=True)
        down = threading.Thread(target=self._pump, args=(child, child_out.fileno(), self.stdout_fd, down_done.set), name="relay-down", daemon=True)
        judge.start()
        up.start()
        down.start()
        if self.slow > 0:
            threading.Thread(target=self._watch, args=(down_done,), name="relay-watch", daemon=True).start()
        try:
            returncode = process.wait()
            # the child's output is drained; a grandchild keeping the pipe open is not waited for
            if not down_done.wait(self.grace):
                self.event(f"the {child} exited but its stdout stayed open (a process it started holds it): stopped relaying it")
            # what the launcher wrote before the end is judged; the launcher's stdin may stay open
            up.join(0.05)
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)
        self._lines.put(None)
        judge.join()
        if self.undelivered[launcher]:
            self.event(f"{self.undelivered[launcher]} bytes from the {launcher} reached no {child}: it had exited")
        if self.undelivered[child]:
            self.event(f"{self.undelivered[child]} bytes from the {child} reached no {launcher}: it had stopped reading")
        return exit_status(returncode)

    @property
    def signalled(self) -> int | None:
        """The signal the relay received and passed on, if any."""
        return self._signalled
