"""The bad inputs of issue 21, each one clear line and its documented exit code, no traceback,
nothing partial: a binding.toml that is not UTF-8 (every command), `init --name` that is no plain
package name, `serve` of a file replay would refuse (judged as replay judges it, whatever its
name), Ctrl-C during a replay of several files with workers, Ctrl-C during `fuzz`; and what the
IR tells a target about an init-ed schema's inline root (closed) and its uniqueItems arrays."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import PYTHON, REPO, SPEC_AGUI, make_spec, run_cli
from generator.binding import load_binding
from generator.ir import model as M
from generator.products import load_ir

SPECBIND = str(REPO / ".venv" / "bin" / "specbind")


def _one_line(result: Any, code: int = 2) -> str:
    assert result.exit_code == code, result.output
    err = str(result.stderr)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize(
    "command",
    [["generate"], ["check"], ["lint"], ["targets"], ["validate", "--json", "x.json"], ["replay", "x.jsonl"]],
    ids=lambda c: c[0],
)
def test_a_binding_toml_that_is_not_utf8(tmp_path: Path, command: list[str]) -> None:
    spec = make_spec(tmp_path)
    (spec / "binding.toml").write_bytes((spec / "binding.toml").read_bytes().replace(b"Toy", b"T\xf6y"))
    (tmp_path / "x.json").write_text("{}")
    (tmp_path / "x.jsonl").write_text("{}\n")
    args = [command[0], "--spec", spec, "--out", tmp_path / "out", *[tmp_path / a if "." in a else a for a in command[1:]]]
    if command[0] in ("lint", "targets"):
        args = [command[0], "--spec", spec]
    err = _one_line(run_cli(*args))
    assert "binding.toml: /: not UTF-8 text (byte " in err


@pytest.mark.parametrize(
    "name,says",
    [
        ("../evil", "must be a letter followed by letters, digits"),
        ("a/b", "must be a letter followed by letters, digits"),
        ("1proto", "must be a letter followed by letters, digits"),
        ("my proto", "must be a letter followed by letters, digits"),
        ("class", "makes the Python package 'class', a Python keyword"),
        ("match", "makes the Python package 'match', a Python keyword"),
        ("json", "would hide the standard library's"),
    ],
)
def test_init_name_must_be_a_package_name(tmp_path: Path, name: str, says: str) -> None:
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"a": {"type": "string"}}}))
    root = tmp_path / "work" / "spec"
    err = _one_line(run_cli("init", schema, "--name", name, "--spec-dir", root))
    assert "--name: " in err and says in err
    assert not (tmp_path / "work").exists() and not (tmp_path / "evil").exists(), "nothing written, inside or outside"


def test_init_with_a_good_hyphenated_name(tmp_path: Path) -> None:
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"a": {"type": "string"}}}))
    result = run_cli("init", schema, "--name", "pet-store2", "--spec-dir", tmp_path / "spec")
    assert result.exit_code == 0 and "package 'pet_store2'" in result.stdout, result.output


# -- serve judges a recorded stream as replay does -------------------------------------------------


@pytest.mark.parametrize(
    "content,outcome",
    [(b"hello, this is not an event stream\n", "unrecognized"), (b"", "empty"), (b"\n\n", "empty")],
    ids=["junk", "empty", "blank"],
)
def test_serve_refuses_what_replay_refuses(tmp_path: Path, content: bytes, outcome: str) -> None:
    stream = tmp_path / "junk.txt"
    stream.write_bytes(content)
    replayed = run_cli("replay", "--spec", SPEC_AGUI, "--json", stream)
    assert replayed.exit_code == 1 and json.loads(replayed.stdout)["outcome"] == outcome
    served = subprocess.run([SPECBIND, "serve", "--spec", str(SPEC_AGUI), "--port", "0", str(stream)],
                            cwd=REPO, capture_output=True, text=True, timeout=60)
    assert served.returncode == 2, served.stdout + served.stderr
    assert f"{stream}: {outcome} as" in served.stderr and "nothing to serve" in served.stderr
    assert "Traceback" not in served.stderr and "http://" not in served.stderr


@pytest.mark.parametrize(
    "sample,name,fmt",
    [("capture.sse", "capture.txt", "sse"), ("valid.jsonl", "stream.sse", "jsonl"), ("valid.jsonl", "events.txt", "jsonl")],
)
def test_serve_tells_the_framing_by_content_not_name(tmp_path: Path, sample: str, name: str, fmt: str) -> None:
    from generator.cli.http import _documents, _judged_format

    path = tmp_path / name
    path.write_bytes((SPEC_AGUI / "samples" / sample).read_bytes())
    assert _judged_format(SPEC_AGUI, REPO / "generated", path, None) == fmt
    report = json.loads(run_cli("replay", "--spec", SPEC_AGUI, "--json", path).stdout)
    assert len(_documents(path, fmt)) == report["events"] > 0


def test_serve_reads_a_json_array_and_a_test_case(tmp_path: Path) -> None:
    from generator.cli.http import _documents, _judged_format

    events = [json.loads(line) for line in (SPEC_AGUI / "samples" / "valid.jsonl").read_text().splitlines() if line.strip()]
    for value in (events, {"name": "a case", "stream": events}):
        path = tmp_path / "events.json"
        path.write_text(json.dumps(value, indent=2))
        assert _judged_format(SPEC_AGUI, REPO / "generated", path, None) == "json"
        assert [json.loads(d) for d in _documents(path, "json")] == events


# -- Ctrl-C -----------------------------------------------------------------------------------------


def _interruptible(args: list[str], cwd: Path, group: bool = False) -> subprocess.Popen[str]:
    def start() -> None:
        if group:  # its own process group, which a signal reaches whole, as a terminal's Ctrl-C does
            os.setpgrp()
        # a test run started in the background ignores SIGINT, and a child would inherit that
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    return subprocess.Popen(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=start)


def test_ctrl_c_during_a_replay_with_workers_is_one_line(tmp_path: Path) -> None:
    """Ctrl-C reaches the whole process group: the workers leave it to the parent, so none
    prints a traceback (they did, racing the pool's shutdown: up to ~45 lines), and the
    partial summary is the one line said, exit 130. Three tries, each must be clean."""
    archive = tmp_path / "archive"
    archive.mkdir()
    first = archive / "s000.jsonl"
    first.write_bytes((SPEC_AGUI / "samples" / "valid.jsonl").read_bytes() * 3000)
    for i in range(1, 300):
        os.link(first, archive / f"s{i:03}.jsonl")
    for _ in range(3):
        proc = _interruptible([PYTHON, "-c", "from generator.cli import main; main()", "replay", "--spec", str(SPEC_AGUI),
                               "--jobs", "2", str(archive)], REPO, group=True)
        assert proc.stderr is not None
        progress = proc.stderr.readline()
        assert " of 300 files" in progress, progress
        time.sleep(0.5)  # the workers busy with their streams
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err
        assert err.startswith("interrupted: ") and err.count("\n") == 1 and "of 300 streams judged" in err, err


def test_ctrl_c_during_fuzz_keeps_the_runs_already_judged(tmp_path: Path) -> None:
    """The signal goes in once the server has been asked for a third stream (so two runs
    were judged); the report printed then holds them (it held none before)."""
    from http_support import specbind_serve_process

    with specbind_serve_process("--generate", "--seed", "1", "--delay", "0.02") as (url, server):
        proc = _interruptible([SPECBIND, "fuzz", "--spec", "spec/agui", url, "--runs", "1000", "--seed", "5", "--json"], REPO)
        assert server.stderr is not None
        for line in server.stderr:
            if line.startswith("request 2:"):
                break
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    report = json.loads(out)
    assert report["runs"] == len(report["results"]) >= 2 and report["passed"] == report["runs"], report
    assert err.strip().endswith("interrupted") and "Traceback" not in err


# -- what the IR says about an init-ed schema ------------------------------------------------------


def test_an_inline_root_with_additional_properties_false_is_closed(tmp_path: Path) -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"title": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
                       "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}, "uniqueItems": True}},
        "required": ["title"],
        "additionalProperties": False,
        "$defs": {"Item": {"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": False}},
    }
    path = tmp_path / "todo.json"
    path.write_text(json.dumps(schema))
    assert run_cli("init", path, "--name", "todo", "--spec-dir", tmp_path / "spec").exit_code == 0
    ir = load_ir(load_binding(tmp_path / "spec" / "todo"))
    root = ir.defs["Root"]
    assert isinstance(root, M.ObjectDef) and root.closed and root.closed_loc == "/additionalProperties"
    types = {f.wire: f.type for f in root.fields}
    assert isinstance(types["tags"], M.TSchema) and isinstance(types["tags"].items, M.TString)
    assert isinstance(types["items"], M.TSchema) and types["items"].items == M.TRef("Item", "/properties/items/items")
    out = tmp_path / "out"
    assert run_cli("generate", "--spec", tmp_path / "spec" / "todo", "--out", out).exit_code == 0
    models = (out / "todo" / "models.py").read_text()
    assert "class Root(Struct, kw_only=True, forbid_unknown_fields=True, gc=False)" in models
    assert "tags: list[str] | UnsetType = UNSET" in models and "items: list[Item] | UnsetType = UNSET" in models
    types_ts = (out / "todo-ts" / "src" / "types.ts").read_text()
    assert "tags?: string[];" in types_ts and "items?: Item[];" in types_ts
    refused = run_cli("validate", "--spec", tmp_path / "spec" / "todo", "--out", out, "--json", "-",
                      input='{"title": "t", "tags": ["a", "a"], "extra": 1}')
    assert refused.exit_code == 1
    errors = json.loads(refused.stdout)["errors"]
    assert {(e["keyword"], e["pointer"]) for e in errors if e["keyword"] == "uniqueItems"} == {("uniqueItems", "/tags")}
    assert any(e["schemaLocation"].endswith("/additionalProperties") and "'extra'" in e["message"] for e in errors)


def test_pattern_properties_keep_an_object_open(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "patternProperties": {"^x-": {}},
              "additionalProperties": False}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(schema))
    assert run_cli("init", path, "--name", "open", "--spec-dir", tmp_path / "spec").exit_code == 0
    root = load_ir(load_binding(tmp_path / "spec" / "open")).defs["Root"]
    assert isinstance(root, M.ObjectDef) and not root.closed


def test_a_frozen_models_override_passes_the_generated_tests(tmp_path: Path) -> None:
    """A models template made frozen (`frozen=True` on every Struct): the generated tests build
    changed values with msgspec.structs.replace, and the codec keeps an open object's undeclared
    members beside its fields, so the package's own tests pass and extras survive."""
    from conftest import run_package_tests, run_python

    schema = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "age": {"type": "integer"}, "meta": {"$ref": "#/$defs/Meta"}},
        "required": ["name"],
        "additionalProperties": False,
        "$defs": {"Meta": {"type": "object", "properties": {"k": {"type": "string"}}}},
    }
    path = tmp_path / "pets.json"
    path.write_text(json.dumps(schema))
    assert run_cli("init", path, "--name", "pets", "--spec-dir", tmp_path / "spec").exit_code == 0
    frozen = tmp_path / "frozen" / "python"
    frozen.mkdir(parents=True)
    models = (REPO / "templates" / "python" / "models.py.j2").read_text(encoding="utf-8")
    assert models.count("(Struct, kw_only=True") == 2  # the classes, and their open twins
    (frozen / "models.py.j2").write_text(models.replace("(Struct, kw_only=True", "(Struct, frozen=True, kw_only=True"))
    out = tmp_path / "out"
    done = run_cli("generate", "--spec", tmp_path / "spec" / "pets", "--out", out, "--templates", tmp_path / "frozen",
                   "--only-target", "python")
    assert done.exit_code == 0, done.output
    made = (out / "pets" / "models.py").read_text()
    # Root, Meta; _Open_Root, _Open_Meta, _Top_Meta (a header too long for one line is wrapped)
    assert made.count("frozen=True") == len(re.findall(r"class \w+\(\s*Struct,", made)) == 5
    tested = run_package_tests(out, "pets")
    assert tested.returncode == 0, tested.stdout[-3000:]
    kept = run_python(
        "from pets import codec_json\n"
        "v = codec_json.decode(b'{\"name\": \"Rex\", \"meta\": {\"k\": \"x\", \"extra\": 1}}')\n"
        "assert codec_json.extras(v.meta) == {'extra': 1}, codec_json.extras(v.meta)\n"
        "assert codec_json.encode(v) == b'{\"name\":\"Rex\",\"meta\":{\"k\":\"x\",\"extra\":1}}', codec_json.encode(v)\n",
        out, [out],
    )
    assert kept.returncode == 0, kept.stderr
