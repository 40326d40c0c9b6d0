"""Toy protocols that would catch protocol knowledge hidden in the built-in templates, runtime or
generator (issue 12): events tagged by `kind` (not `type`), a machine that is not a "run" and
whose identity field is not `runId`, no chunks, no owner field, no protobuf. Each generates,
passes its own generated tests, and judges streams through the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import run_cli, run_package_tests

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$ref": "#/$defs/Signal",
    "$defs": {
        "Signal": {"oneOf": [{"$ref": "#/$defs/Open"}, {"$ref": "#/$defs/Note"}, {"$ref": "#/$defs/Close"}]},
        "Open": {
            "type": "object",
            "properties": {"kind": {"const": "open"}, "sessionId": {"type": "string", "minLength": 1}},
            "required": ["kind", "sessionId"],
            "unevaluatedProperties": False,
        },
        "Note": {
            "type": "object",
            "properties": {"kind": {"const": "note"}, "noteId": {"type": "string"}, "text": {"type": "string"}},
            "required": ["kind", "noteId"],
            "unevaluatedProperties": False,
        },
        "Close": {
            "type": "object",
            "properties": {"kind": {"const": "close"}, "sessionId": {"type": "string", "minLength": 1}},
            "required": ["kind", "sessionId"],
            "unevaluatedProperties": False,
        },
    },
}

RULES = """\
events Signal by kind

rule S-OPEN-FIRST MUST ref "toy.md" "Sessions"
  message "a stream opens a session first, not {type}"
rule S-CLOSED-FINAL MUST NOT ref "toy.md" "Sessions"
  message "{type} after session {run} closed"
rule S-NOTE-ONCE MUST NOT ref "toy.md" "Notes"
  message "note {ids} again"
rule S-UNCLOSED SHOULD ref "toy.md" "Sessions"
  message "session {run} never closed"
rule S-DECODE MUST ref "toy.md" "Signals"
  message "signal {index} does not decode: {detail}"

on-decode-error S-DECODE

machine session
  states waiting live done
  initial waiting
  identity sessionId
  on open in waiting -> live
    do begin-run
  on * in waiting fail S-OPEN-FIRST
  on note in live -> stay
  on close in live -> done
    do end-run
  on open in live fail S-OPEN-FIRST
  on * in done fail S-CLOSED-FINAL
  at-end in live fail S-UNCLOSED
end

entity note key noteId
  on note in absent -> seen
  on note in seen fail S-NOTE-ONCE
end
"""

EXAMPLES = {
    "S-OPEN-FIRST": {"violates": [{"stream": [{"kind": "note", "noteId": "n1"}]}], "satisfies": [{"stream": [{"kind": "open", "sessionId": "s"}, {"kind": "close", "sessionId": "s"}]}]},
    "S-CLOSED-FINAL": {"violates": [{"stream": [{"kind": "open", "sessionId": "s"}, {"kind": "close", "sessionId": "s"}, {"kind": "note", "noteId": "n"}]}]},
    "S-NOTE-ONCE": {"violates": [{"stream": [{"kind": "open", "sessionId": "s"}, {"kind": "note", "noteId": "n"}, {"kind": "note", "noteId": "n"}, {"kind": "close", "sessionId": "s"}]}]},
    "S-UNCLOSED": {"violates": [{"stream": [{"kind": "open", "sessionId": "s"}]}]},
    "S-DECODE": {"violates": [{"stream": [{"kind": "open", "sessionId": ""}]}]},
}


def toy(tmp_path: Path) -> Path:
    spec = tmp_path / "spec" / "signals"
    spec.mkdir(parents=True)
    (spec / "schema.json").write_text(json.dumps(SCHEMA))
    (spec / "signals.rules").write_text(RULES)
    (spec / "rule-examples.json").write_text(json.dumps(EXAMPLES))
    (spec / "binding.toml").write_text(
        '[protocol]\nname = "Signals"\nversion = "0.1"\nschema = "schema.json"\nroot = "Signal"\nrules = "signals.rules"\n\n'
        '[python]\npackage = "signals"\n'
    )
    return spec


def test_a_protocol_unlike_either_real_one_generates_and_passes_its_tests(tmp_path: Path) -> None:
    spec = toy(tmp_path)
    out = tmp_path / "out"
    result = run_cli("generate", "--spec", spec, "--out", out)
    assert result.exit_code == 0, result.output
    proc = run_package_tests(out, "signals")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    summary = proc.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary, summary
    rules_md = (out / "signals" / "RULES.md").read_text()
    assert "### machine session" in rules_md and "live --> done: close" in rules_md


def test_its_streams_are_judged_with_its_own_names(tmp_path: Path) -> None:
    spec = toy(tmp_path)
    out = tmp_path / "out"
    assert run_cli("generate", "--spec", spec, "--out", out).exit_code == 0
    stream = tmp_path / "s.jsonl"
    stream.write_text("\n".join(json.dumps(e) for e in [{"kind": "open", "sessionId": "s-42"}, {"kind": "close", "sessionId": "s-42"}, {"kind": "note", "noteId": "n"}]) + "\n")
    result = run_cli("replay", "--spec", spec, "--out", out, "--json", stream)
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    (violation,) = report["violations"]
    assert violation["rule"] == "S-CLOSED-FINAL" and violation["message"] == "note after session s-42 closed"
    assert report["types"] == {"open": 1, "close": 1, "note": 1}
