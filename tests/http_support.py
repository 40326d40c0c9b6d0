"""Helpers for the HTTP binding tests: a uvicorn server on a loopback socket in a thread,
`specbind serve` as a subprocess, and the official Node client (tests/http_peer.cjs)."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO

SPECBIND = REPO / ".venv" / "bin" / "specbind"
NODE_DIR = REPO / "tests" / "node"
NODE_PEER = REPO / "tests" / "http_peer.cjs"
NODE_SERVER = REPO / "tests" / "http_peer_server.cjs"


@contextmanager
def live(app: Any) -> Iterator[str]:
    """Serve an ASGI app with uvicorn on 127.0.0.1 (a free port) in a thread; yields the base
    URL (no trailing slash)."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="critical", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@contextmanager
def specbind_serve(*args: Any) -> Iterator[str]:
    """`specbind serve --spec spec/agui --port 0 ARGS...` as a subprocess; yields the URL it
    prints. The process is stopped (by its pid) afterwards."""
    with specbind_serve_process(*args) as (url, _):
        yield url


@contextmanager
def specbind_serve_process(*args: Any) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`specbind_serve`, yielding the process too (for tests that signal it)."""
    if not SPECBIND.exists():
        pytest.fail(f"{SPECBIND} is missing: run `make test` (it installs the project)")
    proc = subprocess.Popen(
        [str(SPECBIND), "serve", "--spec", "spec/agui", "--port", "0", *map(str, args)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    assert proc.stdout is not None
    threading.Thread(target=lambda: lines.put(proc.stdout.readline()), daemon=True).start()  # type: ignore[union-attr]
    try:
        try:
            first = lines.get(timeout=30)
        except queue.Empty:
            raise AssertionError("specbind serve printed no URL within 30 s") from None
        if not first.startswith("serving "):
            proc.kill()
            raise AssertionError(f"specbind serve failed: {first!r} {proc.stderr.read() if proc.stderr else ''}")
        yield first.split()[-1], proc
    finally:
        proc.send_signal(signal.SIGCONT)  # a test may have stopped it
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


def node_peer_ready() -> None:
    """Skip (loudly) when node is absent; fail when node is there but the packages are not."""
    if shutil.which("node") is None:
        pytest.skip("SKIPPED LOUDLY: `node` is not installed, so the official Node client (@ag-ui/client) cannot be run")
    if not (NODE_DIR / "node_modules" / "@ag-ui" / "client").is_dir():
        pytest.fail("tests/node/node_modules/@ag-ui/client is missing: run `make test` (its setup runs npm install)")


def node_client(url: str, request: dict[str, Any], timeout: float = 60, unhandled: bool = False) -> dict[str, Any]:
    """Run the official HttpAgent against `url` with `request`; its report (see http_peer.cjs).
    An unhandled promise rejection in the client fails the test unless `unhandled` allows it."""
    node_peer_ready()
    env = {**os.environ, "SUPPRESS_TRANSFORMATION_WARNINGS": ""}
    proc = subprocess.run(
        ["node", str(NODE_PEER), url],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
        env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "fatal" not in report, report
    if not unhandled:
        assert report["unhandled"] == [], report
    return report


@contextmanager
def node_server() -> Iterator[str]:
    """The official Node encoder behind an HTTP server (tests/http_peer_server.cjs) on loopback;
    yields its base URL. It stops when its stdin closes."""
    node_peer_ready()
    proc = subprocess.Popen(
        ["node", str(NODE_SERVER)], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: lines.put(proc.stdout.readline()), daemon=True).start()  # type: ignore[union-attr]
    try:
        try:
            first = lines.get(timeout=30)
        except queue.Empty:
            raise AssertionError("the Node peer server did not start within 30 s") from None
        assert first.startswith("listening "), first + (proc.stderr.read() if proc.stderr else "")
        yield f"http://127.0.0.1:{int(first.split()[1])}"
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


def write_jsonl(path: Path, events: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return path
