"""A replay client for `GET /v1/executions/{id}/events?after=N` (protocol § Replay).

It reads the JSON replay or follows the SSE stream, reconnects from the last sequence it
delivered when a connection drops, drops redeliveries (at-least-once delivery: the automaton's
sequence stage compares each redelivered event with the one first delivered), validates order as
it goes, and stops at the terminal event. Standard library HTTP only.

    replay = EventReplay("http://127.0.0.1:4310", "exec-1")
    for event in replay:
        ...
    replay.outcome, replay.findings
"""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Generator, Iterator
from typing import Any

from . import codec_json, models, sse
from .automaton import Automaton, Finding
from .errors import DecodeError

__all__ = ["TERMINAL", "EventReplay", "ReplayError"]

TERMINAL = frozenset({"run.completed", "run.failed", "run.cancelled"})
"""Exactly one of these ends an execution's stream (runtime model § Invariants)."""


class ReplayError(RuntimeError):
    """The replay cannot go on: an HTTP error status (with the Problem the server sent, when it
    sent one), or a connection that kept dropping."""

    def __init__(self, message: str, status: int | None = None, problem: models.Problem | None = None) -> None:
        self.status = status
        self.problem = problem
        super().__init__(message)


Opener = Callable[[urllib.request.Request, float], Any]


def _open(request: urllib.request.Request, timeout: float) -> Any:
    return urllib.request.urlopen(request, timeout=timeout)  # noqa: S310 (the caller's URL)


class EventReplay:
    """Iterate over an execution's events once each, in order, up to the terminal event.

    `after` is the cursor to start from; `follow` True reads the SSE stream (the default),
    False the JSON replay (polled until the terminal event, or until a page brings nothing new
    when `poll` is False). `max_reconnects` bounds the reconnections without progress."""

    def __init__(
        self,
        base_url: str,
        execution_id: str,
        *,
        after: int = 0,
        follow: bool = True,
        poll: bool = False,
        timeout: float = 30.0,
        max_reconnects: int = 5,
        backoff: float = 0.2,
        headers: dict[str, str] | None = None,
        opener: Opener = _open,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.execution_id = execution_id
        self.cursor = after
        self.follow = follow
        self.poll = poll
        self.timeout = timeout
        self.max_reconnects = max_reconnects
        self.backoff = backoff
        self.headers = dict(headers or {})
        self.opener = opener
        self.automaton = Automaton(after=after)
        self.done = False
        self.reconnects = 0
        self.dropped = 0

    @property
    def findings(self) -> list[Finding]:
        return self.automaton.findings

    @property
    def outcome(self) -> str:
        """completed, failed (a MUST-level rule was broken), or truncated (no terminal event)."""
        if self.automaton.failed:
            return "failed"
        return "completed" if self.done else "truncated"

    def _url(self) -> str:
        quoted = urllib.parse.quote(self.execution_id, safe="")
        return f"{self.base_url}/v1/executions/{quoted}/events?after={self.cursor}"

    def _request(self) -> Any:
        accept = "text/event-stream" if self.follow else "application/json"
        request = urllib.request.Request(self._url(), headers={**self.headers, "Accept": accept})
        try:
            return self.opener(request, self.timeout)
        except urllib.error.HTTPError as exc:
            body = exc.read()
            problem = None
            try:
                problem = codec_json.decode(body, models.Problem)
            except DecodeError:
                pass
            detail = f": {problem.code}: {problem.message}" if problem is not None else ""
            raise ReplayError(f"GET {self._url()} answered {exc.code}{detail}", exc.code, problem) from None

    def _deliver(self, data: bytes) -> Iterator[Any]:
        before = self.automaton.index
        self.automaton.feed_document(data)
        delivered = self.automaton.expanded
        if self.automaton.index == before or not delivered:
            self.dropped += 1  # a redelivery, or a document that did not decode (a finding)
            return
        for event in delivered:
            self.cursor = max(self.cursor, event.sequence)
            yield event
            if str(event.type) in TERMINAL:
                self.done = True
                return

    def __iter__(self) -> Iterator[Any]:
        stalled = 0
        while not self.done:
            start = self.cursor
            try:
                response = self._request()
                try:
                    if self.follow:
                        yield from self._stream(response)
                    else:
                        page = yield from self._page(response)
                        if not self.done and not self.poll and not page:
                            return  # the backlog is all there is for now
                finally:
                    response.close()
            except (urllib.error.URLError, ConnectionError, socket.timeout, TimeoutError, sse.SSEError):
                pass  # a dropped connection: reconnect from the cursor
            if self.done:
                return
            stalled = 0 if self.cursor > start else stalled + 1
            if stalled > self.max_reconnects:
                raise ReplayError(f"no progress after {self.max_reconnects} reconnections at cursor {self.cursor}")
            self.reconnects += 1
            time.sleep(self.backoff * min(stalled, 5))

    def _stream(self, response: Any) -> Iterator[Any]:
        decoder = sse.Decoder()
        while not self.done:
            chunk = response.read1(65536) if hasattr(response, "read1") else response.read(65536)
            if not chunk:
                break
            for data in decoder.feed(chunk):
                yield from self._deliver(data)
                if self.done:
                    return
        decoder.finish()

    def _page(self, response: Any) -> Generator[Any, None, int]:
        body = response.read()
        try:
            page = codec_json.decode(body, models.EventList)
        except DecodeError as exc:
            raise ReplayError(f"GET {self._url()} returned no EventList: {exc.errors[0]}") from None
        raw = json.loads(body)["events"]
        for doc in raw:
            yield from self._deliver(json.dumps(doc).encode("utf-8"))
            if self.done:
                break
        return len(page.events)
