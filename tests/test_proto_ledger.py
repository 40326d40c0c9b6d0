"""The wire ledger is append-only: a new slot gets the next free number only with
`specbind generate --allow-new-slots`, a removed field's number becomes `reserved` and is never
reused, `specbind check` fails when the ledger would change, and a broken ledger or [proto]
table is an error naming the file and the line or key. Exercised on the toy spec with a
[proto] table; also: the wire planner's output for spec/agui is exactly the official ledger."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, SPEC_AGUI, TOY_BINDING, make_spec, run_cli, run_package_tests, toy_schema
from generator.binding import load_binding
from generator.errors import SpecError
from generator.pipeline import render_spec
from generator.products import load_ir
from generator.wire import ledger as L
from generator.wire.plan import plan

PROTO_TABLE = """
[proto]
package = "toy.wire"
ledger = "wire.txt"
roots = ["Message"]

[proto.enums]
Color = "Color"

[proto.unions]
Message = { as = "oneof", oneof = "message" }
"""

LEDGER = """\
# toy ledger: append-only
# (header lines are kept as they are)

Color.BLUE = 2
Color.GREEN = 1
Color.RED = 0
Data.payload = 1
Message.message.data = 2
Message.message.ping = 1
Ping.color = 3
Ping.note = 2
Ping.seq = 1
"""


def proto_spec(root: Path, schema: dict[str, Any] | None = None, ledger: str = LEDGER, table: str = PROTO_TABLE) -> Path:
    spec = make_spec(root, schema=schema, binding=TOY_BINDING + table)
    (spec / "wire.txt").write_text(ledger, encoding="utf-8")
    return spec


def _proto(out: Path) -> str:
    return (out / "toyproto" / "protocol.proto").read_text(encoding="utf-8")


def _with_ping(extra: dict[str, Any] | None = None, drop: str | None = None) -> dict[str, Any]:
    schema = toy_schema()
    props = schema["$defs"]["Ping"]["properties"]
    props.update(extra or {})
    if drop:
        del props[drop]
    return schema


def _generate(spec: Path, out: Path, *extra: str) -> Any:
    return run_cli("generate", "--spec", spec, "--out", out, *extra)


def test_the_toy_wire_uses_the_ledgers_numbers(tmp_path: Path) -> None:
    spec = proto_spec(tmp_path)
    result = _generate(spec, tmp_path / "out")
    assert result.exit_code == 0, result.output
    text = _proto(tmp_path / "out")
    assert "package toy.wire;" in text
    for line in ("int64 seq = 1;", "optional string note = 2;", "Color color = 3;", "google.protobuf.Value payload = 1;",
                 "Ping ping = 1;", "Data data = 2;", "RED = 0;", "GREEN = 1;", "BLUE = 2;"):
        assert line in text, line
    assert "reserved" not in text.split("syntax")[1]


def test_the_toy_package_passes_its_own_protobuf_tests(tmp_path: Path) -> None:
    """The generated tests are generic: the toy's codec passes them too."""
    spec = proto_spec(tmp_path)
    out = tmp_path / "out"
    result = _generate(spec, out)
    assert result.exit_code == 0, result.output
    proc = run_package_tests(out, "toyproto")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "test_proto.py" in proc.stdout or re.search(r"\d+ passed", proc.stdout)


def test_a_new_field_without_the_flag_is_an_error_naming_the_slot(tmp_path: Path) -> None:
    spec = proto_spec(tmp_path, schema=_with_ping({"memo": {"type": "string"}}))
    result = _generate(spec, tmp_path / "out")
    assert result.exit_code == 2
    assert "wire.txt: Ping.memo: 1 new wire slot needs a number (Ping.memo)" in result.stderr
    assert "specbind generate --allow-new-slots" in result.stderr
    assert (spec / "wire.txt").read_text(encoding="utf-8") == LEDGER
    assert not (tmp_path / "out" / "toyproto").exists()


def test_allow_new_slots_appends_the_next_free_number(tmp_path: Path) -> None:
    spec = proto_spec(tmp_path, schema=_with_ping({"memo": {"type": "string"}}))
    out = tmp_path / "out"
    result = _generate(spec, out, "--allow-new-slots")
    assert result.exit_code == 0, result.output
    assert "1 new slot(s) appended: Ping.memo = 4" in result.stdout
    ledger = (spec / "wire.txt").read_text(encoding="utf-8")
    assert ledger == LEDGER.replace("Ping.color = 3\n", "Ping.color = 3\nPing.memo = 4\n")  # sorted, header kept
    assert "optional string memo = 4;" in _proto(out)
    # now the ledger knows the slot: plain generate and check are clean
    assert _generate(spec, out).exit_code == 0
    assert run_cli("check", "--spec", spec, "--out", out).exit_code == 0


def test_a_new_enum_value_and_a_new_arm_get_numbers_in_their_own_scopes(tmp_path: Path) -> None:
    schema = toy_schema()
    schema["$defs"]["Color"]["enum"].append("pink")
    schema["$defs"]["Pong"] = {
        "type": "object",
        "properties": {"type": {"const": "PONG"}, "seq": {"type": "integer"}},
        "required": ["type"],
        "unevaluatedProperties": False,
    }
    schema["$defs"]["Message"]["oneOf"].append({"$ref": "#/$defs/Pong"})
    spec = proto_spec(tmp_path, schema=schema)
    result = _generate(spec, tmp_path / "out", "--allow-new-slots")
    assert result.exit_code == 0, result.output
    entries = L.parse((spec / "wire.txt").read_text(encoding="utf-8"), "wire.txt").entries
    assert entries["Color.PINK"] == 3 and entries["Message.message.pong"] == 3 and entries["Pong.seq"] == 1
    text = _proto(tmp_path / "out")
    assert "PINK = 3;" in text and "Pong pong = 3;" in text


def test_a_removed_field_is_reserved_and_its_number_never_reused(tmp_path: Path) -> None:
    spec = proto_spec(tmp_path, schema=_with_ping(drop="note"))
    out = tmp_path / "out"
    assert _generate(spec, out).exit_code == 0  # removing needs no new number: the ledger is unchanged
    assert (spec / "wire.txt").read_text(encoding="utf-8") == LEDGER
    ping = _proto(out).split("message Ping {")[1].split("}")[0]
    assert "reserved 2;" in ping and 'reserved "note";' in ping and "note" not in ping.replace('"note"', "")
    # a field added later gets a fresh number, not the removed one's
    (spec / "schema.json").write_text(json.dumps(_with_ping({"memo": {"type": "string"}}, drop="note")), encoding="utf-8")
    assert _generate(spec, out, "--allow-new-slots").exit_code == 0
    ping = _proto(out).split("message Ping {")[1].split("}")[0]
    assert "optional string memo = 4;" in ping and "reserved 2;" in ping


def test_a_removed_arm_and_enum_value_are_reserved(tmp_path: Path) -> None:
    schema = toy_schema()
    schema["$defs"]["Color"]["enum"].remove("green")
    spec = proto_spec(tmp_path, schema=schema)
    assert _generate(spec, tmp_path / "out").exit_code == 0
    color = _proto(tmp_path / "out").split("enum Color {")[1].split("}")[0]
    assert "reserved 1;" in color and 'reserved "GREEN";' in color


def test_check_fails_when_the_ledger_would_change(tmp_path: Path) -> None:
    spec = proto_spec(tmp_path)
    out = tmp_path / "out"
    assert _generate(spec, out).exit_code == 0
    (spec / "schema.json").write_text(json.dumps(_with_ping({"memo": {"type": "string"}})), encoding="utf-8")
    plain = run_cli("check", "--spec", spec, "--out", out)
    assert plain.exit_code == 1 and "Ping.memo" in plain.stderr and "--allow-new-slots" in plain.stderr
    flagged = run_cli("check", "--spec", spec, "--out", out, "--allow-new-slots")
    assert flagged.exit_code == 1
    assert "wire.txt: the wire ledger would change: 1 new slot(s): Ping.memo = 4" in flagged.stdout
    assert "changed  toyproto/protocol.proto" in flagged.stdout
    assert (spec / "wire.txt").read_text(encoding="utf-8") == LEDGER  # check never writes


@pytest.mark.parametrize(
    ("ledger", "where", "says"),
    [
        (LEDGER + "Ping.memo = 2\n", "line 13", "Ping.memo = 2 reuses the number of Ping.note (line 11)"),
        (LEDGER + "Ping.seq = 9\n", "line 13", "Ping.seq is listed twice (first at line 12)"),
        (LEDGER + "Ping.seq: 9\n", "line 13", "expected `Scope.name = NUMBER`"),
        (LEDGER + "Ping.late = 0\n", "line 13", "not a usable protobuf field number"),
        (LEDGER + "Ping.late = 19500\n", "line 13", "not a usable protobuf field number"),
        (LEDGER.replace("Color.RED = 0", "Color.RED = 7"), "Color.GREEN", "no value numbered 0"),
    ],
    ids=["reused-number", "repeated-key", "malformed-line", "field-zero", "implementation-reserved", "enum-without-zero"],
)
def test_a_broken_ledger_is_an_error_naming_the_line(tmp_path: Path, ledger: str, where: str, says: str) -> None:
    spec = proto_spec(tmp_path, ledger=ledger)
    with pytest.raises(SpecError) as caught:
        render_spec(spec, [])
    assert caught.value.file.endswith("wire.txt") and caught.value.where == where
    assert says in caught.value.message


@pytest.mark.parametrize(
    ("table", "where", "says"),
    [
        (PROTO_TABLE.replace('roots = ["Message"]', 'roots = ["Nope"]'), "[proto].roots", "'Nope' names no definition"),
        (PROTO_TABLE.replace('as = "oneof", oneof = "message"', 'as = "scatter"'), "[proto.unions].Message", "oneof, merge or inline"),
        (PROTO_TABLE.replace('as = "oneof", oneof = "message"', 'as = "oneof"'), "[proto.unions].Message", "names its oneof"),
        (PROTO_TABLE.replace("[proto.unions]\n", "[proto.unions]\nColor = { as = \"merge\" }\n"), "[proto.unions].Color", "not a discriminated union"),
        (PROTO_TABLE.replace("[proto.enums]", "[proto.names]\nPing = \"ping\"\n\n[proto.enums]"), "[proto.names].Ping", "not a protobuf message name"),
        (PROTO_TABLE.replace('ledger = "wire.txt"', 'ledger = "missing.txt"'), "", "does not exist"),
        (PROTO_TABLE.replace('package = "toy.wire"', 'package = "toy-wire"'), "[proto].package", "not a protobuf package name"),
        (PROTO_TABLE.replace("\n[proto.unions]\nMessage = { as = \"oneof\", oneof = \"message\" }\n", ""), "[proto.unions]", "says nothing of how it travels"),
        (PROTO_TABLE + '\n[proto.kinds]\n"Ping.nope" = "value"\n', '[proto.kinds]."Ping.nope"', "names no property"),
    ],
    ids=["unknown-root", "unknown-strategy", "oneof-unnamed", "enum-as-union", "bad-message-name", "missing-ledger",
         "bad-package", "union-without-strategy", "unknown-kind-override"],
)
def test_a_broken_proto_table_is_an_error_naming_the_key(tmp_path: Path, table: str, where: str, says: str) -> None:
    spec = proto_spec(tmp_path, table=table)
    with pytest.raises(SpecError) as caught:
        render_spec(spec, [])
    assert caught.value.where == where, caught.value
    assert says in caught.value.message
    result = _generate(spec, tmp_path / "out")
    assert result.exit_code == 2 and result.stderr.startswith("error: ") and "Traceback" not in result.output


def test_a_property_of_several_json_types_needs_a_split(tmp_path: Path) -> None:
    schema = _with_ping({"either": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}})
    spec = proto_spec(tmp_path, schema=schema)
    with pytest.raises(SpecError) as caught:
        render_spec(spec, [])
    assert caught.value.where == "[proto.split].either" and "several JSON types" in caught.value.message
    split = PROTO_TABLE + '\n[proto.split]\neither = { string = "either_text", array = "either_list" }\n'
    spec2 = proto_spec(tmp_path / "b", schema=schema, table=split)
    result = _generate(spec2, tmp_path / "out", "--allow-new-slots")
    assert result.exit_code == 0, result.output
    text = _proto(tmp_path / "out")
    assert "optional string either_text = 4;" in text and "repeated string either_list = 5;" in text


def test_the_ledger_round_trips_byte_for_byte() -> None:
    text = (SPEC_AGUI / "proto-freeze.txt").read_text(encoding="utf-8")
    assert L.parse(text, "proto-freeze.txt").render() == text


def test_the_agui_plan_is_exactly_the_official_ledger() -> None:
    """Every slot of the vendored ledger is planned (none new, none reserved): the schema and
    the [proto] table reproduce the official wire schema's names and numbers."""
    binding = load_binding(SPEC_AGUI)
    wire = plan(binding, load_ir(binding))
    assert wire.new_slots == [] and not wire.ledger_changed
    planned = {f"{m.name}.{f.oneof + '.' if f.oneof else ''}{f.name}": f.number for m in wire.messages.values() for f in m.fields}
    planned |= {f"{e.name}.{name}": n for e in wire.enums.values() for name, n, _ in e.values}
    assert planned == wire.ledger.entries
    assert all(not m.reserved for m in wire.messages.values())


def test_the_generated_proto_compiles_with_protoc(tmp_path: Path) -> None:
    """grpcio-tools' protoc accepts the generated file, and its descriptors carry our numbers."""
    grpc_tools = pytest.importorskip("grpc_tools", reason="grpcio-tools (test extra) is not installed")
    include = Path(grpc_tools.__file__).parent / "_proto"
    package = REPO / "generated" / "agui"
    proc = subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-I{package}", f"-I{include}", f"--python_out={tmp_path}", str(package / "protocol.proto")],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr
    probe = (
        "import sys; sys.path.insert(0, %r)\n"
        "import protocol_pb2 as p\n"
        "e = p.Event.DESCRIPTOR\n"
        "print(e.fields_by_name['reasoning_encrypted_value'].number, p.Message.DESCRIPTOR.fields_by_name['activity_content'].number,"
        " p.EventType.Value('TOOL_CALL_RESULT'), p.ToolCall.Function.DESCRIPTOR.fields_by_name['arguments'].number)\n"
    ) % str(tmp_path)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["31", "13", "21", "2"]


def test_the_vendored_ledger_is_the_official_one_byte_for_byte() -> None:
    import hashlib

    data = (SPEC_AGUI / "proto-freeze.txt").read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    assert f"`{digest}`" in (SPEC_AGUI / "SOURCE.md").read_text(encoding="utf-8")
    official = REPO.parent / "shared" / "agui" / "1.1" / "proto-freeze.txt"
    if official.exists():
        assert official.read_bytes() == data
    golden = hashlib.sha256((SPEC_AGUI / "proto-golden.json").read_bytes()).hexdigest()
    assert f"`{golden}`" in (SPEC_AGUI / "SOURCE.md").read_text(encoding="utf-8")
