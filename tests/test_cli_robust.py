"""The command line on input that broke it (issue 16): a number or a string the decoders refuse,
text the terminal cannot encode, control characters in a report. Every command answers with a
message and its documented exit code, never a traceback. The CLI runs in a real subprocess here,
since what is at stake is the process's own stdout encoding."""

from __future__ import annotations

import json
import os
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from conftest import PYTHON, REPO, SPEC_AGUI

RUN = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
END = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def cli(*args: Any, encoding: str = "ascii") -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONIOENCODING=encoding)
    return subprocess.run(
        [PYTHON, "-c", "from generator.cli import main; main()", *map(str, args)],
        cwd=REPO, env=env, capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=120,
    )


def lines(tmp_path: Path, *documents: bytes) -> Path:
    path = tmp_path / "stream.jsonl"
    path.write_bytes(b"\n".join([json.dumps(RUN).encode(), *documents, json.dumps(END).encode()]) + b"\n")
    return path


HOSTILE = {
    "huge-integer": b'{"type":"CUSTOM","name":"x","value":' + b"9" * 5000 + b"}",
    "lone-surrogate": b'{"type":"TEXT_MESSAGE_START","messageId":"m\\ud800"}',
    "beyond-a-double": b'{"type":"CUSTOM","name":"x","value":1e400}',
    "utf-16": json.dumps({"type": "CUSTOM", "name": "x", "value": 1}).encode("utf-16"),
}


@pytest.mark.parametrize("document", list(HOSTILE.values()), ids=list(HOSTILE))
def test_replay_json_reports_a_refused_document_as_a_decode_violation(tmp_path: Path, document: bytes) -> None:
    """`replay --json` printed a traceback and exited 1 on these; the document is an
    EVENT-DECODE violation (exit 1) in a report that parses."""
    result = cli("replay", "--spec", SPEC_AGUI, "--json", lines(tmp_path, document))
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert [v["rule"] for v in report["violations"]] == ["EVENT-DECODE"]
    assert report["outcome"] == "failed"


@pytest.mark.parametrize("document", list(HOSTILE.values()), ids=list(HOSTILE))
def test_validate_names_the_problem(tmp_path: Path, document: bytes) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(document)
    for extra in ([], ["--json"], ["--lenient"]):
        result = cli("validate", "--spec", SPEC_AGUI, *extra, path)
        assert "Traceback" not in result.stderr and result.returncode == 1, result.stderr


def test_text_the_terminal_cannot_encode_is_escaped_not_fatal(tmp_path: Path) -> None:
    """A finding quoting a document's text printed to an ASCII (or any non-UTF-8) stdout raised
    UnicodeEncodeError."""
    unknown = json.dumps({"type": "TÿPE_ÉVÈNT"}, ensure_ascii=False).encode()
    stray = json.dumps({"type": "TEXT_MESSAGE_CONTENT", "messageId": "mé😀", "delta": "x"}, ensure_ascii=False).encode()
    path = lines(tmp_path, unknown, stray)
    for encoding in ("ascii", "latin-1"):
        result = cli("replay", "--spec", SPEC_AGUI, path, encoding=encoding)
        assert "Traceback" not in result.stderr, result.stderr
        assert result.returncode == 1
        # click itself writes UTF-8 to an ASCII stream; any other encoding gets escapes
        assert encoding == "ascii" or "\\U0001f600" in result.stdout
    doc = tmp_path / "doc.json"
    doc.write_bytes(b'{"type":"TEXT_MESSAGE_START","messageId":"m","role":"\xc3\xa9"}')
    result = cli("validate", "--spec", SPEC_AGUI, doc, encoding="latin-1")
    assert result.returncode == 1 and "Traceback" not in result.stderr


def test_junit_report_stays_xml_whatever_the_messages_quote(tmp_path: Path) -> None:
    stray = json.dumps({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m\u0001\u001f", "delta": "x"}).encode()
    report = tmp_path / "report.xml"
    result = cli("replay", "--spec", SPEC_AGUI, "--report", "junit", report, lines(tmp_path, stray))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    tree = ET.fromstring(report.read_text(encoding="utf-8"))
    assert "\\u0001" in ET.tostring(tree, encoding="unicode")


def test_an_unreadable_input_is_a_usage_error(tmp_path: Path) -> None:
    result = cli("convert", "--spec", SPEC_AGUI, "--from", "json", "--to", "proto", tmp_path / "absent.json", "-")
    assert result.returncode == 2 and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("content", "says"),
    [(b"", "empty: a JSON file holds one value"), (b"\x00\xc4binary", "byte 1: not valid UTF-8"), (b"{1}", "line 1 column 2: not JSON")],
    ids=["empty", "binary", "not-json"],
)
def test_a_request_file_is_refused_with_where_it_is_wrong(tmp_path: Path, content: bytes, says: str) -> None:
    """`run --input` and `check-resume --input` read a request as a schema file is read: the
    error names the file, where it is wrong and how (it quoted Python's exception before)."""
    path = tmp_path / "input.json"
    path.write_bytes(content)
    result = cli("run", "--spec", SPEC_AGUI, "--input", path, "http://127.0.0.1:9/")
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert f"{path}: {says}" in result.stderr, result.stderr


# -- the contract every command shares (issue 12): usage errors before any work, Ctrl-C -------------


@pytest.mark.parametrize(
    "args,says",
    [
        (["serve", "--spec", SPEC_AGUI, "--port", "99999"], "99999 is not in the range 0<=x<=65535"),
        (["replay", "--spec", SPEC_AGUI, "--report", "sarif", "/no/such/dir/x.sarif", SPEC_AGUI / "samples" / "valid.jsonl"], "/no/such/dir does not exist"),
        (["convert", "--spec", SPEC_AGUI, "--generated", "generated", "--from", "json", "--to", "proto", "-", "-"], "No such option '--generated'"),
        (["validate", "--spec", SPEC_AGUI, "--out", "/no/such/out", SPEC_AGUI / "samples" / "valid.jsonl"], "does not exist: run `specbind generate --spec"),
        (["generate", "--templates", SPEC_AGUI / "samples"], "overrides nothing"),
        (["nope"], "No such command 'nope'"),
        (["fuzz", "--spec", SPEC_AGUI.parent / "harness-runtime", "--runs", "1", "http://127.0.0.1:9/"], "harness_runtime has no http_client module"),
        (["run", "--spec", SPEC_AGUI.parent / "harness-runtime", "http://127.0.0.1:9/"], "harness_runtime has no http_client module"),
    ],
    ids=["serve-port-out-of-range", "report-folder-missing", "convert-generated-is-gone", "out-missing", "templates-override-nothing", "unknown-command", "fuzz-no-http-binding", "run-no-http-binding"],
)
def test_usage_errors_exit_2_before_any_work(args: list[Any], says: str) -> None:
    result = cli(*args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert says in result.stderr and "Traceback" not in result.stderr
    assert "completed" not in result.stdout  # the replay did not run first


def test_ctrl_c_exits_130_after_the_partial_summary(tmp_path: Path) -> None:
    import os
    import signal

    archive = tmp_path / "archive"
    archive.mkdir()
    first = archive / "s000.jsonl"
    first.write_bytes((SPEC_AGUI / "samples" / "valid.jsonl").read_bytes() * 2000)
    for i in range(1, 400):  # far more than can be judged before the signal; links cost no disk
        os.link(first, archive / f"s{i:03}.jsonl")
    proc = subprocess.Popen(
        [PYTHON, "-c", "from generator.cli import main; main()", "replay", "--spec", str(SPEC_AGUI), "--jobs", "1", str(archive)],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # a test run started in the background (`make test &`) ignores SIGINT, and a child
        # inherits that: Python then installs no handler and Ctrl-C would do nothing
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stderr is not None
    progress = proc.stderr.readline()  # the signal goes in once the run is under way, however fast
    assert " of 400 files" in progress, progress
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    err = progress + err
    assert proc.returncode == 130, err
    assert "interrupted:" in err and "of 400 streams judged" in err and "Traceback" not in err
