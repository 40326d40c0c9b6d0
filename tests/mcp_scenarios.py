"""The MCP SDK scenarios: a client and a server built on the official SDKs (Python: PyPI `mcp`;
TypeScript: npm `@modelcontextprotocol/sdk`, in tests/node), the client launching
`specbind proxy --spec spec/mcp --record FILE -- SERVER`. Used by tests/test_mcp_sdk.py and, run
as a script, to record the transcripts in spec/mcp/samples/ (`python tests/mcp_scenarios.py`).

The SDK code runs only in processes of its own, without generated/ on its path: the SDK and the
generated package are both imported as `mcp`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
PEERS = REPO / "tests" / "sdk_peers"
SAMPLES = REPO / "spec" / "mcp" / "samples"
PYTHON = sys.executable
# the venv's `specbind` (make test's setup installs it beside the interpreter)
SPECBIND = [str(Path(PYTHON).parent / "specbind")]


@dataclass(frozen=True)
class Pair:
    name: str  # the sample's file name, without .jsonl
    client: tuple[str, ...]
    server: tuple[str, ...]
    node: bool  # needs node and the npm peers

    def describe(self) -> str:
        return f"{self.client[1].rsplit('/', 1)[-1]} -> {' '.join(p.rsplit('/', 1)[-1] for p in self.server[1:])}"


PY_CLIENT = (PYTHON, str(PEERS / "py_client.py"))
TS_CLIENT = ("node", str(PEERS / "ts_client.cjs"))
PY_SERVER = (PYTHON, str(PEERS / "py_server.py"))
TS_SERVER = ("node", str(PEERS / "ts_server.cjs"))

PAIRS = [
    Pair("python-sdk", PY_CLIENT, PY_SERVER, node=False),
    Pair("typescript-sdk", TS_CLIENT, TS_SERVER, node=True),
    Pair("python-client-typescript-server", PY_CLIENT, TS_SERVER, node=True),
    Pair("typescript-client-python-server", TS_CLIENT, PY_SERVER, node=True),
    # the Python SDK's MCPServer as its documentation writes it: it logs without declaring logging
    Pair("python-sdk-as-written", (*PY_CLIENT, "--scenarios", "cancel"), (*PY_SERVER, "--as-written"), node=False),
]


# The SDK's other modes, through the same proxy of the protocol family (spec/mcp declares both
# revisions): the Python client pinned to 2026-07-28 (no probe), in its default mode (`auto`: it
# probes server/discover, and stays modern when the server answers), and in `auto` against the
# TypeScript server, which knows only 2025-11-25 (the probe is refused; it falls back to the
# handshake). Their transcripts are recorded in spec/mcp-2026-07-28/samples.
REVISION_SAMPLES = REPO / "spec" / "mcp-2026-07-28" / "samples"
REVISION_PAIRS = [
    Pair("python-sdk-2026-07-28", (*PY_CLIENT, "--mode", "2026-07-28"), PY_SERVER, node=False),
    Pair("python-sdk-auto", (*PY_CLIENT, "--mode", "auto"), PY_SERVER, node=False),
    Pair("python-client-auto-typescript-server", (*PY_CLIENT, "--mode", "auto"), TS_SERVER, node=True),
]


def skip_without_node(pair: Pair) -> None:
    """Skip the calling test, loudly, when a TypeScript peer of the pairing cannot run."""
    if not pair.node:
        return
    import pytest

    from generator.targets.typescript import node as ts_node

    if ts_node.node() is None:
        pytest.skip("SKIPPED LOUDLY: node is not installed, so the TypeScript SDK cannot run")
    if not (REPO / "tests" / "node" / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        pytest.skip("SKIPPED LOUDLY: @modelcontextprotocol/sdk is not installed: npm install --prefix tests/node")


def sdk_env() -> dict[str, str]:
    """The environment of an SDK process: nothing that would put generated/ on its path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP")}
    env["PYTHONWARNINGS"] = "ignore"
    return env


@dataclass
class Session:
    pair: Pair
    returncode: int
    client: dict[str, Any] | None  # what the client printed
    stderr: str  # the client's, the proxy's and the server's stderr, interleaved
    transcript: list[dict[str, Any]]

    @property
    def proxy_lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.startswith("specbind proxy: ")]


def run(pair: Pair, record: Path, timeout: float = 120) -> Session:
    """Run one pairing through the proxy, recording the transcript to `record`."""
    proxy = [*SPECBIND, "proxy", "--spec", str(REPO / "spec" / "mcp"), "--out", str(REPO / "generated"), "--record", str(record), "--"]
    command = [*pair.client, "--", *proxy, *pair.server]
    done = subprocess.run(command, cwd=REPO, env=sdk_env(), capture_output=True, text=True, timeout=timeout)
    try:
        client = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        client = None
    lines = record.read_text(encoding="utf-8").splitlines() if record.exists() else []
    return Session(pair, done.returncode, client, done.stderr, [json.loads(line) for line in lines])


def record_samples(names: list[str] | None = None) -> None:
    for folder, pairs in ((SAMPLES, PAIRS), (REVISION_SAMPLES, REVISION_PAIRS)):
        folder.mkdir(parents=True, exist_ok=True)
        for pair in pairs:
            if not names or pair.name in names:
                _record(pair, folder)


def _record(pair: Pair, folder: Path) -> None:
    session = run(pair, folder / f"{pair.name}.jsonl")
    print(f"{pair.name}: exit {session.returncode}, {len(session.transcript)} messages; {session.proxy_lines[-1] if session.proxy_lines else 'no proxy summary'}")


if __name__ == "__main__":
    record_samples(sys.argv[1:])
