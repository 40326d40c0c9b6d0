"""`specbind convert --spec DIR --from json|proto --to json|proto [--as DEFINITION] [--stream] IN OUT`:
one document or a stream (JSON Lines <-> length-prefixed frames), files or - for stdin/stdout;
exit 0 on success, 1 on invalid input (with the error located, nothing written), 2 on usage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import Result

from conftest import REPO, run_cli

GOLDEN = json.loads((REPO / "spec" / "agui" / "proto-golden.json").read_text(encoding="utf-8"))["frames"]
EVENTS = [f["document"] for f in GOLDEN]


@pytest.fixture(autouse=True)
def _in_repo(in_repo: Path) -> None:
    """convert resolves generated/ from the working directory, as the CLI is meant to run."""


def _convert(*args: object, input: bytes | None = None) -> Result:
    return run_cli("convert", "--spec", "spec/agui", *args, input=input)


def test_one_event_json_to_proto_gives_the_official_bytes(tmp_path: Path) -> None:
    for frame in GOLDEN[:8]:
        src = tmp_path / "e.json"
        src.write_text(json.dumps(frame["document"]), encoding="utf-8")
        result = _convert("--from", "json", "--to", "proto", src, tmp_path / "e.bin")
        assert result.exit_code == 0, result.output
        assert (tmp_path / "e.bin").read_bytes().hex() == frame["hex"]


def test_proto_to_json_on_stdin_and_stdout() -> None:
    frame = GOLDEN[0]
    result = _convert("--from", "proto", "--to", "json", "-", "-", input=bytes.fromhex(frame["hex"]))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == frame["document"]


def test_a_stream_round_trips_through_frames(tmp_path: Path) -> None:
    jsonl = tmp_path / "in.jsonl"
    jsonl.write_text("".join(json.dumps(e) + "\n" for e in EVENTS) + "\n", encoding="utf-8")
    body = tmp_path / "body.bin"
    assert _convert("--from", "json", "--to", "proto", "--stream", jsonl, body).exit_code == 0
    data = body.read_bytes()
    expected = b"".join(len(b).to_bytes(4, "big") + b for b in (bytes.fromhex(f["hex"]) for f in GOLDEN))
    assert data == expected
    back = tmp_path / "out.jsonl"
    assert _convert("--from", "proto", "--to", "json", "--stream", body, back).exit_code == 0
    lines = back.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["type"] for line in lines] == [e["type"] for e in EVENTS]


def test_as_names_another_definition(tmp_path: Path) -> None:
    run_input = {"threadId": "t", "runId": "r", "messages": [{"id": "u1", "role": "user", "content": "hi"}]}
    src = tmp_path / "input.json"
    src.write_text(json.dumps(run_input), encoding="utf-8")
    out = tmp_path / "input.bin"
    assert _convert("--from", "json", "--to", "proto", "--as", "RunAgentInput", src, out).exit_code == 0
    result = _convert("--from", "proto", "--to", "json", "--as", "RunAgentInput", out, "-")
    assert result.exit_code == 0 and json.loads(result.stdout) == run_input


def test_an_invalid_document_is_refused_with_exit_2_its_pointer_and_writes_nothing(tmp_path: Path) -> None:
    src = tmp_path / "bad.json"
    src.write_text('{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":5}', encoding="utf-8")
    out = tmp_path / "bad.bin"
    result = _convert("--from", "json", "--to", "proto", src, out)
    assert result.exit_code == 2
    assert "/delta: expected string, got integer" in result.stderr and not out.exists()


def test_malformed_bytes_are_refused_with_exit_2_naming_field_keyword_and_offset(tmp_path: Path) -> None:
    result = _convert("--from", "proto", "--to", "json", "-", "-", input=bytes.fromhex(GOLDEN[0]["hex"])[:-2])
    assert result.exit_code == 2
    assert "[truncated, Event]" in result.stderr and "at byte" in result.stderr


def test_a_bad_line_of_a_stream_is_named(tmp_path: Path) -> None:
    jsonl = tmp_path / "in.jsonl"
    jsonl.write_text(json.dumps(EVENTS[0]) + "\n" + '{"type":"NOPE"}\n', encoding="utf-8")
    result = _convert("--from", "json", "--to", "proto", "--stream", jsonl, tmp_path / "o.bin")
    assert result.exit_code == 2 and ": line 2: not a valid Event" in result.stderr
    assert not (tmp_path / "o.bin").exists()


def test_a_truncated_body_is_named_as_such(tmp_path: Path) -> None:
    body = b"".join(len(b).to_bytes(4, "big") + b for b in (bytes.fromhex(f["hex"]) for f in GOLDEN[:3]))
    result = _convert("--from", "proto", "--to", "json", "--stream", "-", "-", input=body[:-1])
    assert result.exit_code == 2 and "ends inside frame 2" in result.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--from", "json", "--to", "proto", "--as", "Nope", "-", "-"], "--as 'Nope'"),
        (["--from", "xml", "--to", "proto", "-", "-"], "'xml' is not one of"),
        (["--from", "json", "--to", "proto", "-"], "Missing argument 'OUTPUT'"),
        (["--from", "json", "--to", "proto", "--as", "Attributable", "-", "-"], "no message of the wire carries it"),
    ],
    ids=["unknown-definition", "unknown-format", "missing-out", "definition-without-message"],
)
def test_usage_errors_exit_2(args: list[str], says: str) -> None:
    result = _convert(*args, input=b"{}")
    assert result.exit_code == 2 and says in result.output
