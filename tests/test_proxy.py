"""`specbind proxy`: the stdio relay, on a toy protocol whose binding declares a stdio transport
with parties of its own naming (nothing here is MCP: the relay is general). Every byte passes
through unchanged and in order both ways (binary, CRLF, blank lines, a megabyte line, a last
line without a newline); a finding is printed while the session is still running; the
transcript records what passed, in wire order, a non-JSON line as text; the proxy exits with
the child's status (128 + N for a signal, 127 when the command is not found) and never with a
traceback when the child dies, the launcher leaves early or a signal arrives."""

from __future__ import annotations

import json
import select
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import PYTHON, REPO, make_spec, run_cli
from generator.relay import Framer, exit_status

STDIO = '\n[stdio]\nframing = "lines"\nstdin = "editor"\nstdout = "tool"\nref = "toy pages, stdio"\n'
BINDING = """\
[protocol]
name = "Toy"
version = "0.1"
schema = "schema.json"
root = "Message"

[python]
package = "toyproto"
"""
SPECBIND = str(Path(PYTHON).parent / "specbind")

# children: an echo (every byte back, as read), a writer, and a few misbehaving ones
ECHO = "import os\nwhile True:\n    b = os.read(0, 65536)\n    if not b: break\n    os.write(1, b)\n"
EXIT_AT_ONCE = "import sys\nsys.stdout.write('{\"type\":\"PING\",\"seq\":1}\\n'); sys.stdout.flush(); sys.exit(3)\n"
IGNORE_TERM = "import signal, sys, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('ready', file=sys.stderr, flush=True)\ntime.sleep(60)\n"
SLEEPER = "import signal, sys, time\nsignal.signal(signal.SIGINT, signal.SIG_DFL)\nprint('ready', file=sys.stderr, flush=True)\ntime.sleep(60)\n"


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("proxy")
    spec = make_spec(root, binding=BINDING + STDIO, fixtures={})
    out = root / "out"
    result = run_cli("generate", "--spec", spec, "--out", out)
    assert result.exit_code == 0, result.output
    return spec, out


def _proxy(toy: tuple[Path, Path], child: str, *options: str) -> list[str]:
    spec, out = toy
    return [SPECBIND, "proxy", "--spec", str(spec), "--out", str(out), *options, "--", PYTHON, "-c", child]


def _records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_every_byte_passes_unchanged_both_ways_and_the_transcript_keeps_wire_order(toy: tuple[Path, Path], tmp_path: Path) -> None:
    record = tmp_path / "t.jsonl"
    big = json.dumps({"type": "DATA", "payload": "x" * (1 << 20)}).encode()
    sent = (b'{"type":"PING","seq":1}\n' + b'{"type":"PING","seq":2}\r\n' + b"\n" + b"not json \xff\xfe\n" + big + b"\n"
            + b'{"type":"PING","seq":3, "note": "caf\xc3\xa9 \\u2028"}\n' + b'{"type":"PING","seq":4}')
    done = subprocess.run(_proxy(toy, ECHO, "--record", str(record)), input=sent, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == sent  # the echo child's bytes, as the launcher receives them: unchanged
    assert b"Traceback" not in done.stderr
    entries = _records(record)
    # six messages each way (the blank line carries none); each editor line before its echo
    assert [e["from"] for e in entries][:2] == ["editor", "editor"] and len(entries) == 12
    messages = [e for e in entries if "message" in e]
    assert {"type": "PING", "seq": 3, "note": "caf\u00e9 \u2028"} in [e["message"] for e in messages]
    assert [e["raw"] for e in entries if "raw" in e] == ["not json \ufffd\ufffd"] * 2
    assert record.read_bytes().count(b'"seq":2}') == 2  # the CR is not in the record
    stderr = done.stderr.decode()
    assert stderr.count("not a valid Message") == 2 and "(toy pages, stdio)" in stderr
    assert "stream ended inside a message" in stderr  # the last line had no newline
    assert "12 messages (6 from the editor, 6 from the tool); 2 violations" in stderr


def test_a_finding_is_printed_while_the_session_runs(toy: tuple[Path, Path]) -> None:
    proc = subprocess.Popen(_proxy(toy, ECHO), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stderr is not None and proc.stdout is not None
    proc.stdin.write(b'{"type":"PING","seq":101}\n')
    proc.stdin.flush()
    ready, _, _ = select.select([proc.stderr], [], [], 30)
    assert ready, "no finding within 30 s"
    line = proc.stderr.readline().decode()
    assert line.startswith("specbind proxy: [MUST] message 0 from editor: not a valid Message") and "/seq" in line
    assert proc.stdout.readline() == b'{"type":"PING","seq":101}\n'  # and the session goes on
    proc.stdin.close()
    assert proc.wait(30) == 0


def test_it_exits_with_the_childs_status_and_says_what_was_not_delivered(toy: tuple[Path, Path], tmp_path: Path) -> None:
    record = tmp_path / "t.jsonl"
    proc = subprocess.Popen(_proxy(toy, EXIT_AT_ONCE, "--record", str(record)), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()  # the child's one line: it exits right after
    time.sleep(0.5)
    try:
        proc.stdin.write(b'{"type":"PING","seq":2}\n' * 1000)
    except BrokenPipeError:
        pass  # the proxy had already finished: what it got is in the transcript
    try:
        proc.stdin.close()
    except BrokenPipeError:
        pass
    proc.wait(30)
    out, err = first + proc.stdout.read(), proc.stderr.read()
    assert proc.returncode == 3
    assert out == b'{"type":"PING","seq":1}\n' and b"Traceback" not in err
    assert "the tool exited with status 3" in err.decode()
    # the editor's lines may reach the relay before a slow-starting child's first line
    assert {"from": "tool", "message": {"type": "PING", "seq": 1}} in _records(record)


def test_the_launcher_leaving_early_loses_nothing_from_the_record(toy: tuple[Path, Path], tmp_path: Path) -> None:
    record = tmp_path / "t.jsonl"
    child = "import sys, time\nsys.stdin.read()\ntime.sleep(0.3)\nfor i in range(3):\n    print('{\"type\":\"PING\",\"seq\":%d}' % i, flush=True)\n"
    proc = subprocess.Popen(_proxy(toy, child, "--record", str(record)), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdout.close()  # the launcher stops reading
    proc.stdin.close()  # and closes its end: the child sees EOF, then writes
    assert proc.wait(30) == 0
    assert proc.stderr is not None
    err = proc.stderr.read().decode()
    assert "the editor stopped reading" in err and "Traceback" not in err
    assert [e["message"] for e in _records(record)] == [{"type": "PING", "seq": i} for i in range(3)]


@pytest.mark.parametrize("child,grace,status", [(SLEEPER, "5", 128 + signal.SIGTERM), (IGNORE_TERM, "0.5", 128 + signal.SIGKILL)])
def test_sigterm_is_passed_on_and_a_child_that_ignores_it_is_killed(toy: tuple[Path, Path], child: str, grace: str, status: int) -> None:
    proc = subprocess.Popen(_proxy(toy, child, "--grace", grace), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    assert proc.stderr.readline() == b"ready\n"  # the child's stderr, passed through
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == status
    err = proc.stderr.read().decode()
    assert "Traceback" not in err and f"exited with status {status}" in err
    assert ("killed" in err) == (status == 128 + signal.SIGKILL)


def test_ctrl_c_is_passed_on(toy: tuple[Path, Path]) -> None:
    proc = subprocess.Popen(_proxy(toy, SLEEPER), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stderr is not None
    assert proc.stderr.readline() == b"ready\n"
    proc.send_signal(signal.SIGINT)
    assert proc.wait(30) == 128 + signal.SIGINT
    assert b"Traceback" not in proc.stderr.read()


def test_usage_errors(toy: tuple[Path, Path], tmp_path: Path) -> None:
    spec, out = toy
    missing = subprocess.run([SPECBIND, "proxy", "--spec", str(spec), "--out", str(out), "--", "no-such-command-here"], capture_output=True, text=True, timeout=60)
    assert missing.returncode == 127 and "cannot run no-such-command-here: not found" in missing.stderr
    assert "Traceback" not in missing.stderr
    nothing = run_cli("proxy", "--spec", spec, "--out", out)
    assert nothing.exit_code == 2
    bare = make_spec(tmp_path, binding=BINDING, fixtures={})
    result = run_cli("proxy", "--spec", bare, "--out", out, "--", "cat")
    assert result.exit_code == 2 and "binds no stdio transport" in result.output
    folder = run_cli("proxy", "--spec", spec, "--out", out, "--record", tmp_path, "--", "cat")
    assert folder.exit_code == 2 and "is a directory" in folder.output


@pytest.mark.parametrize("table,complaint", [
    ('[stdio]\nframing = "lines"\nstdin = "a"\nstdout = "a"\n', "two different parties"),
    ('[stdio]\nframing = "frames"\nstdin = "a"\nstdout = "b"\n', "[stdio].framing"),
    ('[stdio]\nframing = "lines"\nstdin = "a"\n', "[stdio].stdout"),
    ('[stdio]\nframing = "lines"\nstdin = "a"\nstdout = "b"\nstderr = "c"\n', "[stdio].stderr"),
])
def test_a_malformed_stdio_table_is_refused(tmp_path: Path, table: str, complaint: str) -> None:
    spec = make_spec(tmp_path, binding=BINDING + table, fixtures={})
    result = run_cli("generate", "--spec", spec, "--out", tmp_path / "out")
    assert result.exit_code == 2 and complaint in result.output, result.output


def test_the_framer_splits_at_lf_only_and_bounds_a_line() -> None:
    framer = Framer(limit=8)
    assert framer.feed(b"ab\r\ncd") == [(b"ab\r", False)]
    assert framer.feed(b"ef\n0123456789abc\nz") == [(b"cdef", False), (b"01234567", True)]
    assert framer.tail() == (b"z", False) and framer.tail() is None
    assert exit_status(-signal.SIGTERM) == 143 and exit_status(4) == 4


def test_the_proxy_names_no_protocol() -> None:
    for path in (REPO / "generator" / "relay.py", REPO / "generator" / "cli" / "proxy.py"):
        text = path.read_text(encoding="utf-8")
        assert "MCP" not in text and "JSON-RPC" not in text and "jsonrpc" not in text, path



SILENT = "import sys, time\nsys.stdin.readline()\ntime.sleep(1.5)\nprint('{\"type\":\"PING\",\"seq\":1}', flush=True)\nsys.stdin.read()\n"


def test_a_silent_child_is_reported_and_the_session_goes_on(toy: tuple[Path, Path]) -> None:
    proc = subprocess.Popen(_proxy(toy, SILENT, "--slow", "0.4"), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(b'{"type":"PING","seq":0}\n')
    proc.stdin.flush()
    assert proc.stdout.readline() == b'{"type":"PING","seq":1}\n'  # the slow answer still arrives
    proc.stdin.close()
    assert proc.wait(30) == 0
    err = proc.stderr.read().decode()
    assert err.count("the tool has written nothing for 0.4 s since message 0 from the editor") == 1, err
