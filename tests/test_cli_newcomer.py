"""What a newcomer met following README.md and docs/ literally, with right and wrong inputs: each
case failed (a wrong word, a traceback, a silent acceptance) before its fix."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import REPO, SPEC_AGUI, run_cli

SPEC_MCP = REPO / "spec" / "mcp"


def test_a_family_of_two_parties_counts_messages(in_repo: Path) -> None:
    """README's session example says `message 6 (server tools/list:result)`: a family's replay
    printed `event N` where the proxy and a revision's own package say `message N`."""
    result = run_cli("replay", "--spec", SPEC_MCP, SPEC_MCP / "samples" / "python-sdk-as-written.jsonl")
    assert result.exit_code == 1, result.output
    assert "DECLARE-LOGGING [MUST] message 21 (server notifications/message): " in result.output
    assert "] event " not in result.output


def test_a_missing_package_names_the_command_and_out(tmp_path: Path, in_repo: Path) -> None:
    result = run_cli("replay", "--spec", SPEC_AGUI, "--out", tmp_path, SPEC_AGUI / "samples" / "valid.jsonl")
    assert result.exit_code == 2
    assert f"run `specbind generate --spec {SPEC_AGUI} --out {tmp_path}` first" in result.stderr


def test_init_into_a_folder_that_cannot_be_made(tmp_path: Path) -> None:
    """It printed the bare OSError (`error: [Errno 2] No such file or directory: ...`)."""
    schema = tmp_path / "schema.json"
    schema.write_text('{"$defs": {"A": {"type": "string"}}}')
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, where the spec folder's parent would be")
    result = run_cli("init", schema, "--name", "pets", "--spec-dir", blocker / "spec")
    assert result.exit_code == 2
    assert f"error: {blocker / 'spec' / 'pets'}: /: cannot be made (Not a directory): nothing was written" in result.stderr
    assert "Errno" not in result.stderr


def test_the_api_refuses_what_the_options_refuse(toy_spec: Path, tmp_path: Path) -> None:
    """specbind.generate(templates=["nope"]) generated as if none was given (the command line's
    --templates refuses a missing folder); an `out` that is a file failed deep in the write."""
    import pytest

    import specbind

    with pytest.raises(specbind.SpecError, match="templates: not a folder"):
        specbind.generate(toy_spec, out=tmp_path / "out", templates=[tmp_path / "nope"])
    assert not (tmp_path / "out").exists()
    (tmp_path / "file").write_text("")
    with pytest.raises(specbind.SpecError, match="out: a file"):
        specbind.check(toy_spec, out=tmp_path / "file")


def test_a_schema_outside_the_spec_folder_is_refused(toy_spec: Path, tmp_path: Path) -> None:
    """`schema = "../../schema.json"` crashed generate (an internal ValueError, naming pathlib)."""
    toml = toy_spec / "binding.toml"
    (toy_spec.parent / "elsewhere.json").write_bytes((toy_spec / "schema.json").read_bytes())
    toml.write_text(toml.read_text().replace('schema = "schema.json"', 'schema = "../elsewhere.json"'))
    result = run_cli("generate", "--spec", toy_spec, "--out", tmp_path / "out")
    assert result.exit_code == 2, result.output
    assert "[protocol].schema: '../elsewhere.json' is outside the spec folder" in result.stderr
    assert "internal error" not in result.stderr


def test_a_schema_linked_from_elsewhere_generates(toy_spec: Path, tmp_path: Path) -> None:
    (tmp_path / "real.json").write_bytes((toy_spec / "schema.json").read_bytes())
    (toy_spec / "schema.json").unlink()
    (toy_spec / "schema.json").symlink_to(tmp_path / "real.json")
    result = run_cli("generate", "--spec", toy_spec, "--out", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert "spec/toy/schema.json" in next((tmp_path / "out").glob("*/models.py")).read_text()


def test_check_says_the_generate_that_fixes_it(toy_spec: Path, tmp_path: Path) -> None:
    """`check --spec S --out O` said to run a bare `specbind generate`: every spec under ./spec
    into ./generated, not what was checked."""
    out = tmp_path / "my vendor"
    assert run_cli("generate", "--spec", toy_spec, "--out", out).exit_code == 0
    (next(out.glob("*/models.py"))).write_text("# edited\n")
    result = run_cli("check", "--spec", toy_spec, "--out", out)
    assert result.exit_code == 1
    assert f"run `specbind generate --spec {toy_spec} --out '{out}'` and commit the result" in result.stderr


def test_ctrl_c_while_the_command_line_loads(tmp_path: Path) -> None:
    """Ctrl-C in the first half second (the imports) printed a KeyboardInterrupt traceback."""
    import subprocess

    from conftest import PYTHON

    code = (
        "import sys\n"
        "class Interrupt:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'generator.cli.common':\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Interrupt())\n"
        "from generator.entry import main\n"
        "main()\n"
    )
    proc = subprocess.run([PYTHON, "-c", code, "--version"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr == "interrupted\n"


def test_an_enum_that_is_no_list_of_values_is_refused(tmp_path: Path) -> None:
    """`"enum": []` crashed init (an internal IndexError) or generated invalid Python
    (`Literal[]`); `"enum": "abc"` was read as the three values a, b and c."""
    import json

    for enum, says in (([], "an empty enum admits no value"), ("abc", "enum must be an array")):
        for where, schema in (("/$defs/A/enum", {"enum": enum}), ("/$defs/A/items/enum", {"type": "array", "items": {"enum": enum}})):
            path = tmp_path / "schema.json"
            path.write_text(json.dumps({"$defs": {"A": schema}}))
            result = run_cli("init", path, "--name", "e", "--spec-dir", tmp_path / "spec")
            assert result.exit_code == 2, result.output
            assert f"{path}: {where}: {says}" in result.stderr
            assert not (tmp_path / "spec" / "e").exists()


def test_lenient_validate_says_a_document_was_stripped_whole(tmp_path: Path, in_repo: Path) -> None:
    """`validate --lenient` reported a document stripped whole as valid with a warning, as if only
    the member the warning names were stripped."""
    import json

    doc = tmp_path / "event.json"
    doc.write_text('{"type": "NOT_AN_EVENT_TYPE", "messageId": "m"}')
    kept = tmp_path / "kept.json"
    kept.write_text('{"type": "TEXT_MESSAGE_END", "messageId": "m", "x": 1}')
    result = run_cli("validate", "--spec", SPEC_AGUI, "--lenient", "--json", doc, kept)
    assert result.exit_code == 0, result.output
    reports = [json.loads(line) for line in result.stdout.splitlines()]
    assert reports[0]["dropped"] is True and reports[0]["valid"] is True and reports[0]["warnings"]
    assert "dropped" not in reports[1] and reports[1]["warnings"]
    text = run_cli("validate", "--spec", SPEC_AGUI, "--lenient", doc)
    assert f"{doc}: valid Event (stripped whole: nothing of it is kept)" in text.stdout


def test_check_resume_names_the_file_it_refuses(tmp_path: Path, in_repo: Path) -> None:
    finished = tmp_path / "finished.json"
    finished.write_text('{"type": "RUN_FINISHED"}')
    good = tmp_path / "input.json"
    good.write_text('{"threadId": "t", "runId": "r", "messages": []}')
    result = run_cli("check-resume", "--spec", SPEC_AGUI, "--finished", finished, "--input", good)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {finished}: not a valid ")
    result = run_cli("check-resume", "--spec", SPEC_AGUI, "--input", finished)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {finished}: not a valid RunAgentInput")


def test_validate_reads_stdin_once(in_repo: Path) -> None:
    """`validate - -` judged stdin, then an empty second document (invalid JSON), exit 1."""
    result = run_cli("validate", "--spec", SPEC_AGUI, "-", "-", input=b'{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}')
    assert result.exit_code == 2
    assert "stdin (-) can be read once" in result.stderr


def test_lint_refuses_what_generate_refuses(toy_spec: Path) -> None:
    """lint passed a binding.toml whose [python].package generate refuses (lint is the
    pre-commit hook that says a spec folder is refused: docs/ci.md)."""
    toml = toy_spec / "binding.toml"
    toml.write_text(re.sub(r'(?m)^package = .*$', "package = 5", toml.read_text(), count=1))
    result = run_cli("lint", "--spec", toy_spec)
    assert result.exit_code == 2, result.output
    assert "[python].package: must be a Python identifier" in result.stderr


def test_init_names_an_openapi_document_as_such(tmp_path: Path) -> None:
    api = tmp_path / "api.yaml"
    api.write_text("openapi: 3.0.3\ninfo: {title: Shop, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    Item: {type: string}\n")
    result = run_cli("init", api, "--name", "shop", "--spec-dir", tmp_path / "spec")
    assert result.exit_code == 0, result.output
    assert "1 definitions (OpenAPI 3.0.3)" in result.stdout


def test_a_misspelt_protocol_key_is_refused(toy_spec: Path) -> None:
    """`rule = "x.rules"` (for `rules`) was ignored: the spec generated without its rules."""
    toml = toy_spec / "binding.toml"
    toml.write_text(toml.read_text().replace("[protocol]\n", '[protocol]\nrule = "lifecycle.rules"\n', 1))
    result = run_cli("lint", "--spec", toy_spec)
    assert result.exit_code == 2, result.output
    assert "[protocol].rule: unknown key (did you mean rules?)" in result.stderr


def test_a_mistyped_result_reads_as_english(tmp_path: Path, in_repo: Path) -> None:
    """'is not a InitializeResult': the article follows the definition's name."""
    import json

    session = tmp_path / "session.jsonl"
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}
    lines = [{"from": "client", "message": request}, {"from": "server", "message": {"jsonrpc": "2.0", "id": 1, "result": {}}}]
    session.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = run_cli("replay", "--spec", SPEC_MCP, "--revision", "2025-11-25", session)
    assert result.exit_code == 1, result.output
    assert "(request 1, message 0) is not an InitializeResult: " in result.output
