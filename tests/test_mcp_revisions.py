"""MCP's two revisions side by side: 2025-11-25 (spec/mcp, generated/mcp) and 2026-07-28
(spec/mcp-2026-07-28, generated/mcp_2026_07_28). The official example documents of 2026-07-28, the
readings taken where schema.json and schema.ts disagree, and the `examples` / `[[rejected_example]]`
binding options on a toy spec."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from generator.binding import load_binding
from generator.errors import SpecError
from generator.pipeline import render_spec

from conftest import GENERATED, REPO, TOY_BINDING, make_spec, run_cli, run_package_tests

sys.path.insert(0, str(GENERATED))

import mcp as mcp_2025  # noqa: E402  (generated/mcp: the SDK never runs in this process)
import mcp_2026_07_28 as mcp_2026  # noqa: E402

SPEC_2026 = REPO / "spec" / "mcp-2026-07-28"
SHARED_2026 = REPO.parent / "shared" / "mcp" / "2026-07-28"
EXAMPLES = sorted(SPEC_2026.glob("examples/*/*.json"))


def _schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((SPEC_2026 / "schema.json").read_bytes())
    return schema


def _reference_rejects(definition: str, document: Any) -> list[str]:
    jsonschema = pytest.importorskip("jsonschema")
    schema = _schema()
    validator = jsonschema.Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]})
    return [e.message for e in validator.iter_errors(document)]


def test_the_revision_is_vendored_byte_for_byte() -> None:
    if not SHARED_2026.is_dir():
        pytest.skip("../shared is not beside the checkout")
    # ours: the binding, the source note, the rules and their examples, what they do not judge
    ours = {p.relative_to(SPEC_2026).as_posix() for p in SPEC_2026.rglob("*") if p.is_file()}
    ours -= {"binding.toml", "SOURCE.md", "mcp.rules", "rule-examples.py", "rule-examples.json", "not-checkable.md"}
    ours = {rel for rel in ours if not rel.startswith("samples/")}  # ours: sessions recorded here
    theirs = {p.relative_to(SHARED_2026).as_posix() for p in SHARED_2026.rglob("*") if p.is_file()}
    assert ours == theirs
    for rel in sorted(ours):
        assert (SPEC_2026 / rel).read_bytes() == (SHARED_2026 / rel).read_bytes(), rel
    digest = hashlib.sha256((SPEC_2026 / "schema.json").read_bytes()).hexdigest()
    assert digest in (SPEC_2026 / "SOURCE.md").read_text(encoding="utf-8")
    assert mcp_2026.version.SCHEMA_SHA256 == digest


def test_every_official_example_decodes_strictly_as_its_folder_names() -> None:
    """129 documents in 88 folders: each decodes strictly as the definition its folder names,
    re-encodes to the same JSON, and the reference validator agrees. None is rejected, which is
    what binding.toml says by listing no [[rejected_example]]."""
    assert len(EXAMPLES) == 129
    rejected_by_us, rejected_by_reference = {}, {}
    for path in EXAMPLES:
        definition = path.parent.name
        document = json.loads(path.read_bytes())
        try:
            value = mcp_2026.codec_json.decode(path.read_bytes(), definition)
        except mcp_2026.errors.DecodeError as exc:
            rejected_by_us[f"{definition}/{path.stem}"] = str(exc)
        else:
            assert json.loads(mcp_2026.codec_json.encode(value, definition)) == document, path
        problems = _reference_rejects(definition, document)
        if problems:
            rejected_by_reference[f"{definition}/{path.stem}"] = problems
    declared = {r.example: r.reason for r in load_binding(SPEC_2026).rejected_examples}
    assert rejected_by_us == rejected_by_reference == declared == {}


def test_the_wire_message_union_takes_every_example_message() -> None:
    """The examples that are whole JSON-RPC messages (requests, notifications, responses, errors)
    decode as the wire root, JSONRPCMessage, too: what replay and proxy read."""
    messages = 0
    for path in EXAMPLES:
        document = json.loads(path.read_bytes())
        if isinstance(document, dict) and document.get("jsonrpc") == "2.0":
            mcp_2026.codec_json.decode(path.read_bytes(), "JSONRPCMessage")
            messages += 1
    assert messages == 32


@pytest.mark.parametrize(
    "value",
    [None, 0.5, {"nested": [1, None]}],
    ids=["null", "fraction", "nested-null"],
)
def test_json_value_follows_schema_json_where_schema_ts_is_wider(value: Any) -> None:
    """schema.ts: JSONValue = string | number | boolean | null | JSONObject | JSONArray;
    schema.json (what decodes): string, integer, boolean, JSONObject, array. A capability
    setting holding null or a fraction is refused by 2026-07-28 and was accepted by 2025-11-25,
    whose schema left these settings open (SOURCE.md, "Readings taken")."""
    doc = json.dumps({"experimental": {"x": {"setting": value}}}).encode()
    with pytest.raises(mcp_2026.errors.DecodeError) as caught:
        mcp_2026.codec_json.decode(doc, "ClientCapabilities")
    assert caught.value.errors[0].definition == "JSONValue"
    assert _reference_rejects("ClientCapabilities", json.loads(doc))
    mcp_2025.codec_json.decode(doc, "ClientCapabilities")
    ok = json.dumps({"experimental": {"x": {"setting": [1, "two", True, {"k": 3}]}}}).encode()
    mcp_2026.codec_json.decode(ok, "ClientCapabilities")


def test_the_per_request_meta_is_the_schemas_own() -> None:
    """2026-07-28 puts the version and capabilities in every request's `_meta`, and its schema
    requires them (RequestMetaObject): a request without them does not decode."""
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    good = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}
    mcp_2026.codec_json.decode(json.dumps(good).encode(), "JSONRPCMessage")
    for missing in meta:
        bad = {**good, "params": {"_meta": {k: v for k, v in meta.items() if k != missing}}}
        with pytest.raises(mcp_2026.errors.DecodeError):
            mcp_2026.codec_json.decode(json.dumps(bad).encode(), "ListToolsRequest")
    # the same request is a valid 2025-11-25 request without any `_meta`
    mcp_2025.codec_json.decode(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode(), "JSONRPCMessage")


# -- the `examples` and `[[rejected_example]]` binding options, on a toy spec ----------------------

EXAMPLE_BINDING = TOY_BINDING.replace('fixtures = "fixtures"\n', 'fixtures = "fixtures"\nexamples = "examples"\n')


def _toy_with_examples(root: Path, examples: dict[str, Any], rejected: str = "") -> Path:
    spec = make_spec(root, binding=EXAMPLE_BINDING + rejected)
    for rel, doc in examples.items():
        path = spec / "examples" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc), encoding="utf-8")
    return spec


def _generate(spec: Path, out: Path) -> None:
    result = run_cli("generate", "--spec", str(spec), "--out", str(out))
    assert result.exit_code == 0, result.output


REJECTED_SEQ = '\n[[rejected_example]]\nexample = "Ping/too-far"\nreason = "seq is at most 100"\n'


def test_examples_become_generated_tests_and_a_rejected_one_is_held_refused(tmp_path: Path) -> None:
    spec = _toy_with_examples(tmp_path, {"Ping/near.json": {"type": "PING", "seq": 3}, "Ping/too-far.json": {"type": "PING", "seq": 101}}, REJECTED_SEQ)
    _generate(spec, tmp_path / "out")
    fixtures = json.loads((tmp_path / "out" / "toyproto" / "tests" / "fixtures.json").read_text())["fixtures"]
    by_name = {f["name"]: f for f in fixtures}
    assert by_name["Ping/example/near"]["valid"] is True
    assert by_name["Ping/example/too-far"] == {
        "name": "Ping/example/too-far", "definition": "Ping", "valid": False,
        "document": {"type": "PING", "seq": 101}, "rejected": "seq is at most 100",
    }
    result = run_package_tests(tmp_path / "out", "toyproto")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "test_rejected_example_is_still_refused" in (tmp_path / "out" / "toyproto" / "tests" / "test_schema_fixtures.py").read_text()


def test_a_rejected_example_the_schema_accepts_fails_the_generated_tests(tmp_path: Path) -> None:
    spec = _toy_with_examples(tmp_path, {"Ping/too-far.json": {"type": "PING", "seq": 100}}, REJECTED_SEQ)
    _generate(spec, tmp_path / "out")
    result = run_package_tests(tmp_path / "out", "toyproto")
    assert result.returncode == 1 and "test_rejected_example_is_still_refused" in result.stdout


def test_an_unlisted_invalid_example_fails_the_generated_tests(tmp_path: Path) -> None:
    spec = _toy_with_examples(tmp_path, {"Ping/too-far.json": {"type": "PING", "seq": 101}})
    _generate(spec, tmp_path / "out")
    result = run_package_tests(tmp_path / "out", "toyproto")
    assert result.returncode == 1 and "Ping/example/too-far" in result.stdout


@pytest.mark.parametrize(
    ("examples", "rejected", "message"),
    [
        ({"Nowhere/x.json": {}}, "", "example folder names no definition 'Nowhere'"),
        ({"Ping/a.json": {"type": "PING", "seq": 1}}, REJECTED_SEQ, "names no example: ['Ping/too-far']"),
        ({"Ping/a.json": {"type": "PING", "seq": 1}}, "\n[[rejected_example]]\nexample = 3\n", "needs `example` (Definition/name) and `reason` strings"),
        # a file elsewhere than <Definition>/<name>.json was silently left out
        ({"a.json": {"type": "PING", "seq": 1}}, "", "examples live at <Definition>/<name>.json"),
        ({"Ping/more/a.json": {"type": "PING", "seq": 1}}, "", "examples live at <Definition>/<name>.json"),
    ],
    ids=["unknown-definition", "stale-rejection", "malformed-entry", "beside-the-folders", "one-folder-too-deep"],
)
def test_example_options_are_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, examples: dict[str, Any], rejected: str, message: str) -> None:
    spec = _toy_with_examples(tmp_path, examples, rejected)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SpecError) as caught:
        render_spec(spec.relative_to(tmp_path))
    assert message in str(caught.value)


def test_an_examples_folder_that_is_missing_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = make_spec(tmp_path, binding=EXAMPLE_BINDING)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SpecError) as caught:
        render_spec(spec.relative_to(tmp_path))
    assert "examples folder named in binding.toml does not exist" in str(caught.value)


def test_the_change_report_in_docs_is_current(in_repo: Path) -> None:
    result = run_cli("diff", "--markdown", "spec/mcp", "spec/mcp-2026-07-28")
    committed = (REPO / "docs" / "changes" / "mcp-2026-07-28.md").read_text(encoding="utf-8")
    assert result.exit_code == 1
    assert result.stdout in committed, "regenerate docs/changes/mcp-2026-07-28.md (see its header)"
