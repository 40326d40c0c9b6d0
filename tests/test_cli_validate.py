"""`specbind validate --spec spec/agui [--as DEF] [--lenient] [--json] FILE...`: exit 0 when
every document is valid, 1 when any is not, 2 on usage errors; one JSON line per file with
--json; `-` reads stdin; --lenient turns unknown members into warnings."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from conftest import GENERATED, REPO, run_cli

pytestmark = pytest.mark.usefixtures("in_repo")  # the CLI's defaults (generated/) are cwd-relative

GOOD = b'{"type":"TEXT_MESSAGE_END","messageId":"m1"}'
BAD_TIMESTAMP = b'{"type":"TEXT_MESSAGE_END","messageId":"m1","timestamp":1.5}'
UNKNOWN_PROPERTY = b'{"type":"TEXT_MESSAGE_END","messageId":"m1","x":1}'
UNKNOWN_TYPE = b'{"type":"TEXT_MESSAGE_TELEPORTED","messageId":"m1"}'
RUN_AGENT_INPUT = b'{"threadId":"t","runId":"r","messages":[]}'


WriteDoc = Callable[[str, bytes], Path]


@pytest.fixture
def doc(tmp_path: Path) -> WriteDoc:
    def write(name: str, content: bytes) -> Path:
        path = tmp_path / name
        path.write_bytes(content)
        return path

    return write


def validate(*args: Any, input: bytes | None = None) -> Result:
    return run_cli("validate", "--spec", "spec/agui", *args, input=input)


def json_lines(result: Result) -> list[dict[str, Any]]:
    lines = result.stdout.splitlines()
    return [json.loads(line) for line in lines]


# -- exit codes --------------------------------------------------------------------------------


def test_valid_file_exits_0(doc: WriteDoc) -> None:
    path = doc("good.json", GOOD)
    result = validate(path)
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{path}: valid Event\n"


def test_invalid_file_exits_1_and_names_file_and_error(doc: WriteDoc) -> None:
    path = doc("bad.json", BAD_TIMESTAMP)
    result = validate(path)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"{path}: invalid Event",
        "  error   /timestamp: expected integer, got number [type, TextMessageEndEvent]",
    ]


def test_any_invalid_file_makes_the_run_fail(doc: WriteDoc) -> None:
    good, bad = doc("good.json", GOOD), doc("bad.json", BAD_TIMESTAMP)
    result = validate(good, bad, good)
    assert result.exit_code == 1
    assert result.stdout.count(": valid Event") == 2 and result.stdout.count(": invalid Event") == 1


def test_every_file_valid_exits_0(doc: WriteDoc) -> None:
    result = validate(doc("a.json", GOOD), doc("b.json", b'{"type":"RUN_STARTED","threadId":"t","runId":"r"}'))
    assert result.exit_code == 0, result.output


def test_bytes_that_are_not_json_are_invalid_not_a_crash(doc: WriteDoc) -> None:
    result = validate("--json", doc("trunc.json", b'{"type":"TEXT_MESSAGE_END",'), doc("bin.json", b"\xff\xfe\x00"))
    assert result.exit_code == 1
    assert isinstance(result.exception, SystemExit)
    for line in json_lines(result):
        assert line["valid"] is False
        assert [e["keyword"] for e in line["errors"]] == ["json"]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--as", "NoSuchDefinition"], "--as 'NoSuchDefinition': no such definition"),
        (["--as", "TextMessageEndEvnt"], "did you mean TextMessageEndEvent"),
        (["missing-file.json"], "does not exist"),
        ([], "Missing argument 'FILES...'"),
    ],
    ids=["unknown-definition", "near-miss-definition", "missing-file", "no-files"],
)
def test_usage_errors_exit_2(doc: WriteDoc, args: list[str], says: str) -> None:
    files = [doc("good.json", GOOD)] if args and args[0] == "--as" else []
    result = validate(*args, *files)
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)
    assert says in result.stderr
    assert result.stdout == ""


def test_a_directory_is_not_a_file(tmp_path: Path) -> None:
    assert validate(tmp_path).exit_code == 2


def test_missing_spec_folder_is_a_usage_error(doc: WriteDoc) -> None:
    result = run_cli("validate", "--spec", "spec/nope", doc("good.json", GOOD))
    assert result.exit_code == 2


def test_ungenerated_package_is_a_usage_error(doc: WriteDoc, tmp_path: Path) -> None:
    result = validate("--out", tmp_path / "empty", doc("good.json", GOOD))
    assert result.exit_code == 2
    assert f"run `specbind generate --spec spec/agui --out {tmp_path / 'empty'}` first" in result.stderr
    assert "or pass --out with the folder you generated it into" in result.stderr


def test_stale_package_is_refused(doc: WriteDoc, tmp_path: Path) -> None:
    """A package generated from another schema (its SCHEMA_SHA256 differs) is not used. Run in a
    subprocess: the check imports the package by name, which this process already has cached."""
    out = tmp_path / "stale"
    shutil.copytree(GENERATED / "agui", out / "agui", ignore=shutil.ignore_patterns("__pycache__"))
    version = out / "agui" / "version.py"
    version.write_text(version.read_text().replace('SCHEMA_SHA256 = "', 'SCHEMA_SHA256 = "0'))
    specbind = REPO / ".venv" / "bin" / "specbind"
    if not specbind.exists():
        pytest.skip("no .venv/bin/specbind")
    proc = subprocess.run(
        [str(specbind), "validate", "--spec", "spec/agui", "--out", str(out), str(doc("good.json", GOOD))],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    assert "generated from another schema" in proc.stderr
    assert "Traceback" not in proc.stderr


# -- --json ------------------------------------------------------------------------------------


def test_json_gives_one_line_per_file_in_order(doc: WriteDoc) -> None:
    files = [doc("a.json", GOOD), doc("b.json", BAD_TIMESTAMP), doc("c.json", UNKNOWN_PROPERTY)]
    result = validate("--json", *files)
    assert result.exit_code == 1
    lines = json_lines(result)
    assert [line["file"] for line in lines] == [str(f) for f in files]
    assert [line["valid"] for line in lines] == [True, False, False]
    for line in lines:
        assert set(line) == {"file", "valid", "errors", "warnings"}
        assert line["valid"] is (line["errors"] == [])
        assert line["warnings"] == []
        for issue in line["errors"]:
            assert set(issue) == {"pointer", "keyword", "message", "definition", "schemaLocation"}


def test_json_error_names_pointer_and_keyword(doc: WriteDoc) -> None:
    result = validate("--json", doc("bad.json", BAD_TIMESTAMP))
    [line] = json_lines(result)
    assert line["errors"] == [
        {
            "pointer": "/timestamp",
            "definition": "TextMessageEndEvent",
            "keyword": "type",
            "message": "expected integer, got number",
            "schemaLocation": "#/$defs/BaseEvent/properties/timestamp/type",
        }
    ]


def test_json_reports_every_error_of_a_document(doc: WriteDoc) -> None:
    content = b'{"type":"TEXT_MESSAGE_END","timestamp":"now","x":1}'
    [line] = json_lines(validate("--json", doc("bad.json", content)))
    found = sorted((e["pointer"], e["keyword"]) for e in line["errors"])
    assert found == [("", "required"), ("", "unevaluatedProperties"), ("/timestamp", "type")]


def test_json_unknown_property_is_an_error_at_the_object(doc: WriteDoc) -> None:
    [line] = json_lines(validate("--json", doc("x.json", UNKNOWN_PROPERTY)))
    assert [(e["pointer"], e["keyword"]) for e in line["errors"]] == [("", "unevaluatedProperties")]
    assert "'x'" in line["errors"][0]["message"]


# -- stdin -------------------------------------------------------------------------------------


def test_dash_reads_stdin() -> None:
    result = validate("--json", "-", input=GOOD)
    assert result.exit_code == 0, result.output
    assert json_lines(result) == [{"file": "-", "valid": True, "errors": [], "warnings": []}]


def test_dash_reads_an_invalid_document_from_stdin() -> None:
    result = validate("-", input=BAD_TIMESTAMP)
    assert result.exit_code == 1
    assert result.stdout.startswith("-: invalid Event\n")
    assert "/timestamp" in result.stdout


# -- --lenient ---------------------------------------------------------------------------------


def test_lenient_turns_an_unknown_property_into_a_warning(doc: WriteDoc) -> None:
    result = validate("--lenient", "--json", doc("x.json", UNKNOWN_PROPERTY))
    assert result.exit_code == 0, result.output
    [line] = json_lines(result)
    assert line["valid"] is True and line["errors"] == []
    assert [(w["pointer"], w["keyword"]) for w in line["warnings"]] == [("/x", "unevaluatedProperties")]
    assert line["warnings"][0]["definition"] == "TextMessageEndEvent"


def test_lenient_human_output_shows_the_warning(doc: WriteDoc) -> None:
    path = doc("x.json", UNKNOWN_PROPERTY)
    result = validate("--lenient", path)
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        f"{path}: valid Event",
        "  warning /x: unknown property 'x' stripped [unevaluatedProperties, TextMessageEndEvent]",
    ]


def test_lenient_strips_an_unknown_event_type(doc: WriteDoc) -> None:
    result = validate("--lenient", "--json", doc("new.json", UNKNOWN_TYPE))
    assert result.exit_code == 0, result.output
    [line] = json_lines(result)
    assert [(w["pointer"], w["keyword"]) for w in line["warnings"]] == [("", "oneOf")]
    assert validate(doc("new2.json", UNKNOWN_TYPE)).exit_code == 1  # strict: an error


def test_lenient_does_not_excuse_a_wrong_type(doc: WriteDoc) -> None:
    result = validate("--lenient", "--json", doc("bad.json", BAD_TIMESTAMP))
    assert result.exit_code == 1
    [line] = json_lines(result)
    assert [(e["pointer"], e["keyword"]) for e in line["errors"]] == [("/timestamp", "type")]


STRIPPED_AND_BAD = b'{"type":"TEXT_MESSAGE_END","messageId":"m1","x":1,"timestamp":1.5}'
BINDINGS = [pytest.param([], id="python"), pytest.param(["--target", "typescript"], id="typescript")]


def _binding(target: list[str]) -> None:
    if target:
        import typescript_agreement

        typescript_agreement.require_toolchain()


@pytest.mark.parametrize("target", BINDINGS)
def test_a_failed_lenient_decode_still_reports_what_it_stripped(doc: WriteDoc, target: list[str]) -> None:
    """The warnings found before a lenient decode failed were dropped: DecodeError carried the
    errors only, and the report said nothing of the member it had stripped."""
    _binding(target)
    path = doc("both.json", STRIPPED_AND_BAD)
    result = validate(*target, "--lenient", "--json", path)
    assert result.exit_code == 1, result.output
    [line] = json_lines(result)
    assert [(e["pointer"], e["keyword"]) for e in line["errors"]] == [("/timestamp", "type")]
    assert [(w["pointer"], w["keyword"]) for w in line["warnings"]] == [("/x", "unevaluatedProperties")]
    assert "omitted" not in line
    text = validate(*target, "--lenient", path)
    assert text.stdout.splitlines() == [
        f"{path}: invalid Event",
        "  error   /timestamp: expected integer, got number [type, TextMessageEndEvent]",
        "  warning /x: unknown property 'x' stripped [unevaluatedProperties, TextMessageEndEvent]",
    ]
    # past --max-errors the warnings are counted, as a valid document's are
    many = doc("many.json", STRIPPED_AND_BAD[:-1] + b',"y":1,"z":1}')
    [line] = json_lines(validate(*target, "--lenient", "--json", "--max-errors", "1", many))
    assert len(line["warnings"]) == 1 and line["omitted"] == {"errors": 0, "warnings": 2}


def test_decode_error_holds_the_warnings() -> None:
    import sys

    sys.path.insert(0, str(GENERATED))
    from agui import DecodeError, codec_json

    with pytest.raises(DecodeError) as caught:
        codec_json.decode_lenient(STRIPPED_AND_BAD)
    assert [w.pointer for w in caught.value.warnings] == ["/x"] and caught.value.warnings_omitted == 0
    with pytest.raises(DecodeError) as caught:
        codec_json.decode(STRIPPED_AND_BAD)  # strict: the member is an error, nothing is stripped
    assert caught.value.warnings == () and len(caught.value.errors) == 2


@pytest.mark.parametrize("target", BINDINGS)
@pytest.mark.parametrize(("content", "says"), [(b"", "an empty document: no JSON value"), (b" \r\n\t\n", "a document of whitespace only: no JSON value")])
def test_an_empty_document_is_said_to_be_empty(doc: WriteDoc, target: list[str], content: bytes, says: str) -> None:
    """An empty document was told "invalid JSON at line 1 column 1: Expecting value"."""
    _binding(target)
    path = doc("empty.json", content)
    for mode in ([], ["--lenient"]):
        result = validate(*target, *mode, "--json", path)
        assert result.exit_code == 1, result.output
        [line] = json_lines(result)
        assert [(e["pointer"], e["keyword"], e["message"]) for e in line["errors"]] == [("", "json", says)]


# -- --as --------------------------------------------------------------------------------------


def test_as_names_the_definition(doc: WriteDoc) -> None:
    path = doc("input.json", RUN_AGENT_INPUT)
    assert validate(path).exit_code == 1  # not an Event
    result = validate("--as", "RunAgentInput", path)
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{path}: valid RunAgentInput\n"


def test_as_a_union_member_refuses_another_member(doc: WriteDoc) -> None:
    path = doc("start.json", b'{"type":"RUN_STARTED","threadId":"t","runId":"r"}')
    assert validate("--as", "RunStartedEvent", path).exit_code == 0
    result = validate("--as", "TextMessageEndEvent", "--json", path)
    assert result.exit_code == 1
    [line] = json_lines(result)
    assert ("/type", "const") in {(e["pointer"], e["keyword"]) for e in line["errors"]}
