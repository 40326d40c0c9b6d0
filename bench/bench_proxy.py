#!/usr/bin/env python3
"""What `specbind proxy` costs per message: the same child (a line echo) driven directly and
through the proxy, in one run, with the recorded SDK traffic (spec/mcp/samples) as the messages.

    .venv/bin/python bench/bench_proxy.py [--messages 3000] [--rounds 3]

- **round trip**: one message out, wait for its echo, the next: the latency a client sees.
  The proxy adds two hops (launcher -> proxy -> child, and back) and judges each message on a
  thread of its own after forwarding it; overhead per message = (through - direct) / messages.
- **pipelined**: every message written at once, every echo read: the proxy's throughput with
  its judge running on both directions (each message is judged twice: once each way).

A benchmark, not a test: it exits 0 whatever the speed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPECBIND = str(Path(sys.executable).parent / "specbind")
ECHO = "import os\nwhile True:\n    b = os.read(0, 65536)\n    if not b: break\n    os.write(1, b)\n"


def messages(count: int) -> list[bytes]:
    lines = []
    for path in sorted((ROOT / "spec" / "mcp" / "samples").glob("*.jsonl")):
        for line in path.read_bytes().splitlines():
            start = line.index(b'"message":') + len(b'"message":')
            lines.append(line[start:-1] + b"\n")
    return (lines * (count // len(lines) + 1))[:count]


def command(proxied: bool) -> list[str]:
    child = [sys.executable, "-c", ECHO]
    if not proxied:
        return child
    return [SPECBIND, "proxy", "--spec", str(ROOT / "spec" / "mcp"), "--out", str(ROOT / "generated"), "--", *child]


def round_trip(proxied: bool, lines: list[bytes]) -> float:
    proc = subprocess.Popen(command(proxied), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
    assert proc.stdin is not None and proc.stdout is not None
    reader = proc.stdout
    proc.stdin.write(lines[0])  # start-up is not what is measured
    reader.readline()
    start = time.perf_counter()
    for line in lines:
        proc.stdin.write(line)
        if reader.readline() != line:
            raise SystemExit("an echo came back changed")
    elapsed = time.perf_counter() - start
    proc.stdin.close()
    proc.wait(60)
    return elapsed


def pipelined(proxied: bool, lines: list[bytes]) -> float:
    proc = subprocess.Popen(command(proxied), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(lines[0])
    proc.stdout.readline()
    data = b"".join(lines)
    stdin = proc.stdin

    def write() -> None:
        stdin.write(data)
        stdin.close()

    start = time.perf_counter()
    writer = threading.Thread(target=write)
    writer.start()
    got = proc.stdout.read()
    elapsed = time.perf_counter() - start
    writer.join()
    proc.wait(60)
    if got != data:
        raise SystemExit("the stream came back changed")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    lines = messages(args.messages)
    n = len(lines)
    print(f"{n:,} messages of the recorded SDK sessions, {sum(map(len, lines)) / n:.0f} bytes on average; load {os.getloadavg()[0]:.1f}")
    for name, op in (("round trip", round_trip), ("pipelined", pipelined)):
        direct = [op(False, lines) for _ in range(args.rounds)]
        through = [op(True, lines) for _ in range(args.rounds)]
        d, t = statistics.median(direct), statistics.median(through)
        print(f"{name:>10}: direct {n / d:>9,.0f} msg/s ({d / n * 1e6:7.1f} us each), through the proxy {n / t:>9,.0f} msg/s "
              f"({t / n * 1e6:7.1f} us each): +{(t - d) / n * 1e6:.1f} us per message")
    return 0


if __name__ == "__main__":
    sys.exit(main())
