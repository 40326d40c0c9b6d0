"""Toy specs that would catch protocol knowledge leaking into the protobuf codec: nothing of
AG-UI (an event `type`, a `base_event`, an `outcome`) may be assumed by the built-in templates
or the Python target's wire context. Each toy generates, passes its own generated tests and
round-trips through the protobuf codec."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import make_spec, run_cli, run_package_tests, run_python

# a discriminator value that is no identifier: the generated code quotes it, never pastes it
DONE = 'done {ok} "x" \\'

# Jobs whose events are told apart by `kind`, and whose result is an inline union, also
# tagged by `kind` (AG-UI tags both by `type`); labels are an array of any JSON values (a
# repeated google.protobuf.Value, which AG-UI does not have).
KIND_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://example.invalid/jobs.json",
    "title": "Jobs",
    "$ref": "#/$defs/JobEvent",
    "$defs": {
        "JobStarted": {
            "type": "object",
            "description": "A job started.",
            "properties": {
                "kind": {"const": "started"},
                "jobId": {"type": "string"},
                "labels": {"type": "array", "items": {}, "description": "Any JSON values."},
            },
            "required": ["kind", "jobId"],
            "unevaluatedProperties": False,
        },
        "JobEnded": {
            "type": "object",
            "description": "A job ended, with a result unless it was abandoned.",
            "properties": {
                "kind": {"const": "ended"},
                "jobId": {"type": "string"},
                "result": {"$ref": "#/$defs/JobResult"},
            },
            "required": ["kind", "jobId"],
            "unevaluatedProperties": False,
        },
        "JobResult": {
            "description": "How a job ended, told apart by `kind`.",
            "oneOf": [{"$ref": "#/$defs/Done"}, {"$ref": "#/$defs/Failed"}],
        },
        "Done": {
            "type": "object",
            "properties": {
                "kind": {"const": DONE},
                "outputs": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["kind", "outputs"],
            "unevaluatedProperties": False,
        },
        "Failed": {
            "type": "object",
            "properties": {
                "kind": {"const": "failed"},
                "reason": {"type": "string"},
                "details": {"not": {"type": "null"}},
            },
            "required": ["kind", "reason"],
            "unevaluatedProperties": False,
        },
        "JobEvent": {
            "description": "Any job event, told apart by `kind`.",
            "oneOf": [{"$ref": "#/$defs/JobStarted"}, {"$ref": "#/$defs/JobEnded"}],
        },
    },
}

KIND_BINDING = """\
[protocol]
name = "Jobs"
version = "0.1"
schema = "schema.json"
root = "JobEvent"
fixtures = "fixtures"

[python]
package = "jobs"

[proto]
package = "jobs.wire"
ledger = "wire.txt"
roots = ["JobEvent"]

[proto.unions]
JobEvent = { as = "oneof", oneof = "event" }
JobResult = { as = "inline" }
"""

KIND_DOCUMENTS = [
    {"kind": "started", "jobId": "j1"},
    {"kind": "started", "jobId": "j1", "labels": [1, "x", None, {"a": [True]}, []]},
    {"kind": "ended", "jobId": "j1"},
    {"kind": "ended", "jobId": "j1", "result": {"kind": DONE, "outputs": ["a", "b"]}},
    {"kind": "ended", "jobId": "j1", "result": {"kind": DONE, "outputs": []}},
    {"kind": "ended", "jobId": "j2", "result": {"kind": "failed", "reason": "oom", "details": {"rss": 1}}},
]

KIND_FIXTURES: dict[str, Any] = {
    **{f"JobEvent/valid/doc{i}.json": doc for i, doc in enumerate(KIND_DOCUMENTS)},
    "JobStarted/invalid/job-id-not-a-string.json": {"kind": "started", "jobId": 5},
    "JobStarted/invalid/job-id-not-a-string.expect.json": {
        "keyword": "type",
        "instanceLocation": "/jobId",
        "keywordLocation": "#/properties/jobId/type",
    },
}


def _kind_spec(root: Path) -> Path:
    spec = make_spec(root, schema=KIND_SCHEMA, binding=KIND_BINDING, fixtures=KIND_FIXTURES, name="jobs")
    (spec / "wire.txt").write_text("# the jobs wire ledger\n", encoding="utf-8")
    return spec


def test_an_inline_union_tagged_by_kind_generates_and_round_trips(tmp_path: Path) -> None:
    spec = _kind_spec(tmp_path)
    out = tmp_path / "out"
    result = run_cli("generate", "--spec", spec, "--out", out, "--allow-new-slots")
    assert result.exit_code == 0, result.output
    proto = (out / "jobs" / "protocol.proto").read_text(encoding="utf-8")
    # the inline union's discriminator rides in the parent's `result` field, its members'
    # fields beside it
    for line in ("string result = ", "repeated string outputs = ", "optional string reason = ", "google.protobuf.Value details = ",
                 "repeated google.protobuf.Value labels = "):
        assert line in proto, line
    checked = run_cli("check", "--spec", spec, "--out", out)
    assert checked.exit_code == 0, checked.output
    code = """
import json
from jobs import codec_json, codec_proto, models
documents = json.loads(DOCUMENTS)
for document in documents:
    event = codec_json.decode(json.dumps(document).encode())
    data = codec_proto.encode(event)
    back = codec_proto.decode(data)
    assert back == event, (document, back)
    assert codec_proto.decode_document(data) == document, (document, codec_proto.decode_document(data))
    assert codec_proto.encode_document(document) == data
ended = codec_proto.decode(codec_proto.encode_document(documents[3]))
assert isinstance(ended, models.JobEnded) and ended.result.kind == documents[3]["result"]["kind"] and ended.result.outputs == ["a", "b"]
print("ok", len(documents))
""".replace("DOCUMENTS", repr(json.dumps(KIND_DOCUMENTS)))
    proc = run_python(code, cwd=tmp_path, path=[out])
    assert proc.returncode == 0 and proc.stdout.strip() == f"ok {len(KIND_DOCUMENTS)}", proc.stdout + proc.stderr
    # and its own generated tests (every fixture JSON -> protobuf -> JSON, bad bytes, framing)
    tests = run_package_tests(out, "jobs")
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]


def test_the_codec_plan_quotes_spec_text_in_every_literal() -> None:
    """The Python target's codec back end makes every literal itself: text from the spec
    (names, discriminator values) is escaped, in plain strings and in f-strings alike."""
    from generator.targets.python.codec_plan import fstr, pystr

    text = 'a {b} "c" \\ d\n\u00e9'
    assert eval(pystr(text)) == text
    got = 7
    assert eval(fstr(f"arm {text} carries ", "got", " then ", "got + 1")) == f"arm {text} carries {got} then {got + 1}"


def test_two_messages_one_python_name_is_an_error(tmp_path: Path) -> None:
    """`Data.X` (nested) and `Data_X` would both be `_d_Data_X`: refused, not overwritten."""
    from conftest import TOY_BINDING

    table = '\n[proto]\npackage = "toy.wire"\nledger = "wire.txt"\nroots = ["Message"]\n\n' \
        '[proto.names]\nPing = "Data.X"\nMessage = "Data_X"\n\n[proto.unions]\nMessage = { as = "oneof", oneof = "message" }\n'
    spec = make_spec(tmp_path, binding=TOY_BINDING + table)
    (spec / "wire.txt").write_text("", encoding="utf-8")
    result = run_cli("generate", "--spec", spec, "--out", tmp_path / "out", "--allow-new-slots")
    assert result.exit_code == 2, result.output
    assert "[proto.names]" in result.stderr and "Data.X and Data_X would both be _d_Data_X" in result.stderr
