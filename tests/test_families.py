"""Protocol families: the revisions of one protocol declared together (`[family]` in the home
spec's binding.toml, generator/family.py), each session routed to the revision its messages name
(the generated `family` module's Router), and `specbind proxy` judging each session by it, with
`--revision` to force one. On MCP (2025-11-25 beside 2026-07-28: a handshake, a probe, a fallback)
and on AG-UI-shaped streams, whose eras are named by a field of one event: nothing in the router
is MCP's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from generator.errors import SpecError
from generator.family import load_family

from conftest import GENERATED, PYTHON, REPO, run_cli

sys.path.insert(0, str(GENERATED))

from mcp.family import FAMILY, Router  # noqa: E402  (generated/mcp, the family's home)

SPECBIND = str(Path(PYTHON).parent / "specbind")
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
DISCOVER = {"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {"_meta": META}}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
NOT_FOUND = {"jsonrpc": "2.0", "id": 0, "error": {"code": -32601, "message": "Method not found"}}


def discovered(*versions: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 0, "result": {"resultType": "complete", "supportedVersions": list(versions), "capabilities": {}}}


def unsupported(*versions: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 0, "error": {"code": -32022, "message": "Unsupported protocol version", "data": {"supported": list(versions), "requested": "2026-07-28"}}}


def session(messages: list[tuple[str | None, Any]], table: dict[str, Any] | None = None, **options: Any) -> tuple[Router, list[tuple[int, str]], list[Any]]:
    router = Router(table, **options)
    routed: list[tuple[int, str]] = []
    findings: list[Any] = []
    for party, document in messages:
        deliveries, found = router.feed(party, document)
        routed += [(d.index, d.revision) for d in deliveries]
        findings += found
    deliveries, found = router.finish()
    routed += [(d.index, d.revision) for d in deliveries]
    return router, routed, findings + found


# -- MCP: which revision a session speaks ------------------------------------------------------


def test_the_family_is_declared_in_the_home_binding() -> None:
    family = load_family(REPO / "spec" / "mcp")
    assert family is not None and family.versions == ["2025-11-25", "2026-07-28"]
    assert FAMILY["revisions"] == family.table["revisions"] and FAMILY["packages"] == {"2025-11-25": "mcp", "2026-07-28": "mcp_2026_07_28"}
    assert load_family(REPO / "spec" / "mcp-2026-07-28") is None  # a member, not a home


SESSIONS = [
    # a modern client: the probe answered by a DiscoverResult
    ([("client", DISCOVER), ("server", discovered("2026-07-28"))], ["2026-07-28"] * 2, []),
    # a modern request without a probe: its _meta names the revision
    ([("client", {"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"_meta": META}})], ["2026-07-28"], []),
    # a legacy client: the handshake
    ([("client", INITIALIZE), ("server", {"jsonrpc": "2.0", "id": 1, "result": {}}), ("client", INITIALIZED)], ["2025-11-25"] * 3, []),
    # a dual-era client and a legacy server: the probe refused as an unknown method, then the handshake
    ([("client", DISCOVER), ("server", NOT_FOUND), ("client", INITIALIZE)], ["2026-07-28", "2026-07-28", "2025-11-25"], []),
    # a modern error that offers 2025-11-25: falling back to it is using a supported version
    ([("client", DISCOVER), ("server", unsupported("2026-07-28", "2025-11-25")), ("client", INITIALIZE)], ["2026-07-28", "2026-07-28", "2025-11-25"], []),
    # a modern server that offers no legacy version: the fallback is refuted
    ([("client", DISCOVER), ("server", discovered("2026-07-28")), ("client", INITIALIZE)], ["2026-07-28", "2026-07-28", "2025-11-25"], ["MCP-ERA-FALLBACK"]),
    ([("client", DISCOVER), ("server", unsupported("2027-01-01")), ("client", INITIALIZE)], ["2026-07-28", "2026-07-28", "2025-11-25"], ["MCP-ERA-FALLBACK"]),
    # a client that switches era again after the handshake
    ([("client", INITIALIZE), ("server", {"jsonrpc": "2.0", "id": 1, "result": {}}), ("client", DISCOVER)], ["2025-11-25", "2025-11-25", "2026-07-28"], ["MCP-ERA-AGAIN"]),
    # nothing names a revision: the default (2025-11-25, whose rules judge the missing handshake)
    ([("client", {"jsonrpc": "2.0", "id": 5, "method": "tools/list"}), ("server", {"jsonrpc": "2.0", "id": 5, "result": {"tools": []}})], ["2025-11-25"] * 2, []),
]
SESSION_IDS = ["modern-probe", "modern-inline", "legacy", "probe-then-fallback", "fallback-to-an-offered-version",
               "fallback-refuted-by-a-result", "fallback-refuted-by-a-modern-error", "era-again", "unnamed-default"]
ROUTED = [messages for messages, _, _ in SESSIONS]


@pytest.mark.parametrize(("messages", "revisions", "rules"), SESSIONS, ids=SESSION_IDS)
def test_each_session_is_routed_to_the_revision_its_messages_name(messages: list[tuple[str, Any]], revisions: list[str], rules: list[str]) -> None:
    _, routed, findings = session(messages)
    assert routed == list(enumerate(revisions))
    assert [f.rule for f in findings] == rules


def test_messages_before_the_first_named_one_are_held_and_judged_by_it() -> None:
    log = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "early"}}
    router, routed, _ = session([("server", log), ("client", "not an object"), ("client", DISCOVER)])
    assert routed == [(0, "2026-07-28"), (1, "2026-07-28"), (2, "2026-07-28")]
    assert router.segments[0].first == 0 and "message 2" in router.segments[0].reason


def test_a_late_answer_is_judged_with_its_request() -> None:
    """The probe timed out (the client fell back without its answer); the answer arrives after
    the handshake began and goes to the revision that judged the probe."""
    late = {"jsonrpc": "2.0", "id": 0, "error": {"code": -32601, "message": "late"}}
    answer = {"jsonrpc": "2.0", "id": 1, "result": {}}
    router, routed, findings = session([("client", DISCOVER), ("client", INITIALIZE), ("server", answer), ("server", late)])
    assert routed == [(0, "2026-07-28"), (1, "2025-11-25"), (2, "2025-11-25"), (3, "2026-07-28")]
    assert findings == []
    assert router.describe() == "2026-07-28 (message 0: message 0 from client names it), then 2025-11-25 (from message 1: fallback from 2026-07-28 at message 1)"


def test_revision_forced() -> None:
    router, routed, findings = session([("client", DISCOVER), ("client", INITIALIZE)], forced="2026-07-28")
    assert routed == [(0, "2026-07-28"), (1, "2026-07-28")] and findings == [] and router.describe() == "2026-07-28"
    with pytest.raises(ValueError, match="no revision '1999'"):
        Router(forced="1999")


def test_a_session_no_message_names_is_decided_after_hold_messages() -> None:
    """A live relay cannot hold a session forever: after `hold` messages the default is taken."""
    quiet = {"jsonrpc": "2.0", "method": "notifications/message", "params": {}}
    router = Router(hold=3)
    released = [len(router.feed("server", quiet)[0]) for _ in range(5)]
    assert released == [0, 0, 0, 4, 1] and router.revision == "2025-11-25"
    assert "first 3" in router.segments[0].reason


# -- AG-UI-shaped eras: the same router, one party, no exchanges ---------------------------------

AGUI_FAMILY = """
[family]
switch = "ERA-MIXED"

# a producer that declares its version on RUN_STARTED (basic/versioning: 1.0 and later)
[[family.revision]]
spec = "."
marks = [{ match = { "/type" = "RUN_STARTED" }, present = ["/protocolVersion"] }]

# a producer from before the protocol carried a version
[[family.revision]]
spec = "../agui-legacy"
marks = [{ match = { "/type" = "RUN_STARTED" }, absent = ["/protocolVersion"] }]

[[family.rule]]
id = "ERA-MIXED"
level = "SHOULD NOT"
ref = ["basic/versioning", "Compatibility"]
message = "{detail}"
"""


AGUI = '[protocol]\nname = "AG-UI"\nversion = "1.1"\nschema = "schema.json"\nroot = "Event"\n\n[python]\npackage = "agui"\n'


def _agui_family(root: Path) -> Path:
    """Two AG-UI revisions beside each other (binding.toml only: the family is read, not
    generated): 1.1, the home, and a producer from before the protocol carried a version."""
    home = root / "agui"
    legacy = root / "agui-legacy"
    home.mkdir()
    legacy.mkdir()
    (home / "binding.toml").write_text(AGUI + AGUI_FAMILY, encoding="utf-8")
    (legacy / "binding.toml").write_text('[protocol]\nname = "AG-UI"\nversion = "0.0.39"\nschema = "schema.json"\n\n[python]\npackage = "agui_legacy"\n', encoding="utf-8")
    return home


def test_agui_eras_are_expressible_the_same_way(tmp_path: Path) -> None:
    family = load_family(_agui_family(tmp_path))
    assert family is not None and family.versions == ["1.1", "0.0.39"]
    modern = [{"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"}, {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}]
    old = [{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}, {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}]
    _, routed, findings = session([(None, e) for e in modern], family.table)
    assert [r for _, r in routed] == ["1.1", "1.1"] and findings == []
    _, routed, findings = session([(None, e) for e in old], family.table)
    assert [r for _, r in routed] == ["0.0.39", "0.0.39"] and findings == []
    router, routed, findings = session([(None, e) for e in modern + old], family.table)
    assert [r for _, r in routed] == ["1.1", "1.1", "0.0.39", "0.0.39"]
    assert [(f.rule, f.level, f.index) for f in findings] == [("ERA-MIXED", "SHOULD NOT", 2)]


# -- the [family] table is checked ------------------------------------------------------------------


def _home(root: Path, family: str) -> Path:
    home = _agui_family(root)
    (home / "binding.toml").write_text(AGUI + family, encoding="utf-8")
    return home


REVISIONS = '[[family.revision]]\nspec = "."\nmarks = [{ match = { "/type" = "RUN_STARTED" } }]\n\n[[family.revision]]\nspec = "../agui-legacy"\nmarks = [{ absent = ["/x"] }]\n'


@pytest.mark.parametrize(
    ("family", "where", "message"),
    [
        ("[family]\n", "[family]", "names no revision"),
        ("[family]\nrevisions = 1\n", "[family].revisions", "unknown key"),
        ('[[family.revision]]\nspec = "."\nmarks = [{ absent = ["/x"] }]\n', "[[family.revision]]", "at least two revisions"),
        (REVISIONS.replace('"../agui-legacy"', '"../nowhere"'), "[[family.revision]] #2.spec", "is not a spec folder"),
        (REVISIONS.replace('spec = "."', 'spec = "../agui-legacy"', 1), "[[family.revision]] #2.spec", "two revisions are '0.0.39'"),
        (REVISIONS.replace('"/type"', '"type"'), "[[family.revision]] #1.marks[0].match", "is not a JSON Pointer"),
        (REVISIONS.replace('"/type"', '"/a~b"'), "[[family.revision]] #1.marks[0].match", "~ is written ~0"),
        (REVISIONS.replace('absent = ["/x"]', 'from = "client"'), "[[family.revision]] #2.marks[0]", "tests nothing"),
        (REVISIONS.replace('absent = ["/x"]', 'equals = 3'), "[[family.revision]] #2.marks[0].equals", "unknown key"),
        (REVISIONS.replace('marks = [{ absent = ["/x"] }]', "marks = []"), "[[family.revision]] #2.marks", "at least one condition"),
        (REVISIONS + '[[family.fallback]]\nfrom = "1.1"\nto = "2.0"\n', "[[family.fallback]] #1.to", "one of the family's revisions: 1.1, 0.0.39"),
        (REVISIONS + '[[family.fallback]]\nfrom = "1.1"\nto = "0.0.39"\nevidence = [{ present = ["/a"] }]\nrule = "R"\n', "[[family.fallback]] #1.rule", "names no [[family.rule]]"),
        (REVISIONS + '[family]\nswitch = "R"\n[[family.rule]]\nid = "R"\nlevel = "SOMETIMES"\nref = ["p", "s"]\nmessage = "m"\n', "[[family.rule]] #1.level", "one of MUST"),
        (REVISIONS + '[[family.rule]]\nid = "R"\nlevel = "MAY"\nref = ["p", "s"]\nmessage = "m"\n', "[[family.rule]] R", "no fallback or switch uses it"),
        (REVISIONS + '[family]\nexchanges = { id = "/id" }\n', "[family].exchanges", "what a request and its answer share"),
    ],
    ids=["no-revision", "unknown-key", "one-revision", "missing-folder", "same-version", "not-a-pointer", "bad-escape",
         "empty-condition", "unknown-test", "no-marks", "fallback-to-unknown", "unknown-rule", "bad-level", "unused-rule", "exchanges"],
)
def test_a_malformed_family_names_its_place(tmp_path: Path, family: str, where: str, message: str) -> None:
    with pytest.raises(SpecError) as caught:
        load_family(_home(tmp_path, family))
    assert caught.value.where == where and message in caught.value.message, str(caught.value)


def test_a_family_without_its_home_is_refused(tmp_path: Path) -> None:
    text = REVISIONS.replace('spec = "."', 'spec = "../agui-legacy"', 1).replace('spec = "../agui-legacy"\nmarks = [{ absent', 'spec = "../agui-other"\nmarks = [{ absent')
    home = _home(tmp_path, text)
    other = tmp_path / "agui-other"
    other.mkdir()
    (other / "binding.toml").write_text((tmp_path / "agui-legacy" / "binding.toml").read_text().replace("0.0.39", "0.0.47").replace("agui_legacy", "agui_other"))
    with pytest.raises(SpecError, match="the family's home is one of its revisions"):
        load_family(home)


# -- specbind proxy judges each session by its revision ----------------------------------------------

# A stand-in MCP server: it answers the probe as told (argv[1]: "legacy" refuses server/discover as
# an unknown method, "modern" answers it with a DiscoverResult), the handshake, and tools/list in
# the shape of the era the request came in.
SERVER = r"""
import json, sys
mode = sys.argv[1]
modern = {"resultType": "complete"}
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m["method"] == "server/discover":
        if mode == "legacy":
            out = {"error": {"code": -32601, "message": "Method not found"}}
        else:
            out = {"result": {**modern, "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}}
    elif m["method"] == "initialize":
        out = {"result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}}
    elif "_meta" in m.get("params", {}):
        out = {"result": {**modern, "tools": [], "ttlMs": 0, "cacheScope": "private"}}
    else:
        out = {"result": {"tools": []}}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], **out}) + "\n")
    sys.stdout.flush()
"""


def _proxy(mode: str, client: list[dict[str, Any]], *options: str, wait: bool = True) -> tuple[int, list[str], list[dict[str, Any]]]:
    """Run the proxy with the stand-in server, writing the client's messages one at a time and
    (with `wait`) reading the answer to each request before the next: the wire order a client
    that waits for its answers makes."""
    command = [SPECBIND, "proxy", "--spec", str(REPO / "spec" / "mcp"), "--out", str(GENERATED), *options, "--", PYTHON, "-c", SERVER, mode]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdin is not None and process.stdout is not None
    answers = []
    for message in client:
        process.stdin.write(json.dumps(message).encode() + b"\n")
        process.stdin.flush()
        if wait and "id" in message:
            answers.append(json.loads(process.stdout.readline()))
    process.stdin.close()
    rest = process.stdout.read()
    answers += [json.loads(line) for line in rest.splitlines()]
    stderr = process.stderr.read().decode() if process.stderr else ""
    return process.wait(timeout=60), [line for line in stderr.splitlines() if line.startswith("specbind proxy: ")], answers


TOOLS_MODERN = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": META}}
TOOLS_LEGACY = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def test_proxy_names_the_revision_of_a_modern_session() -> None:
    code, lines, answers = _proxy("modern", [DISCOVER, TOOLS_MODERN])
    assert code == 0 and len(answers) == 2
    assert lines[-1].endswith("; 0 violations, 0 warnings; the server exited with status 0; revision 2026-07-28"), lines
    assert lines[-1].startswith("specbind proxy: 4 messages (2 from the client, 2 from the server)")


def test_proxy_follows_a_probe_and_its_fallback() -> None:
    code, lines, _ = _proxy("legacy", [DISCOVER, INITIALIZE, INITIALIZED, TOOLS_LEGACY])
    assert code == 0 and len(lines) == 1, lines
    assert "0 violations, 0 warnings" in lines[-1]
    assert lines[-1].endswith("revision 2026-07-28 (messages 0-1: message 0 from client names it), then 2025-11-25 (from message 2: fallback from 2026-07-28 at message 2)")


def test_proxy_reports_a_fallback_the_probe_refuted() -> None:
    code, lines, _ = _proxy("modern", [DISCOVER, INITIALIZE, INITIALIZED, TOOLS_LEGACY])
    assert code == 0
    [finding] = [line for line in lines if "MCP-ERA-FALLBACK" in line]
    assert "[SHOULD NOT] message 2: the session fell back from 2026-07-28 to 2025-11-25" in finding
    assert "message 1 from server showed a peer speaking 2026-07-28" in finding and "stdio.mdx, Backward Compatibility" in finding
    assert "0 violations, 1 warnings" in lines[-1]


def test_proxy_judges_each_message_with_the_revision_of_its_session() -> None:
    """A 2025-11-25 result is no 2026-07-28 result (no resultType): a legacy session's traffic
    decodes as 2025-11-25, and the same traffic forced to 2026-07-28 does not."""
    code, lines, _ = _proxy("legacy", [INITIALIZE, INITIALIZED, TOOLS_LEGACY])
    assert code == 0 and lines[-1].endswith("revision 2025-11-25") and "0 violations" in lines[-1]
    code, lines, _ = _proxy("legacy", [INITIALIZE, INITIALIZED, TOOLS_LEGACY], "--revision", "2026-07-28")
    assert code == 0 and lines[-1].endswith("revision 2026-07-28")
    # the two results lack resultType (the requests still decode as the schema's generic JSONRPCRequest)
    refused = [line for line in lines if "not a valid JSONRPCMessage" in line and line.endswith("(2026-07-28)")]
    assert [line.split(":")[1].strip() for line in refused] == ["[MUST] message 1 from server", "[MUST] message 4 from server"], lines


def test_proxy_of_a_session_with_no_message_says_so() -> None:
    code, lines, _ = _proxy("legacy", [])
    assert code == 0 and lines[-1].endswith("revision none (no message)"), lines


def test_revision_must_be_one_of_the_family() -> None:
    result = run_cli("proxy", "--spec", REPO / "spec" / "mcp", "--out", GENERATED, "--revision", "2024-11-05", "--", PYTHON, "-c", "pass")
    assert result.exit_code == 2 and "'2024-11-05' is no revision of" in result.output and "2025-11-25, 2026-07-28" in result.output
    result = run_cli("proxy", "--spec", REPO / "spec" / "mcp-2026-07-28", "--out", GENERATED, "--revision", "2025-11-25", "--", PYTHON, "-c", "pass")
    assert result.exit_code == 2 and "no revision of" in result.output


# -- specbind replay judges each stream by its revisions ---------------------------------------------

# Signals (tests/test_toy_protocols.py), in two revisions: 0.2 adds `version` to `open`, and holds an
# unclosed session to MUST where 0.1 said SHOULD. The family names 0.2 by an `open` carrying
# version "2", and 0.1 by one carrying none.
SIGNALS_FAMILY = """
[family]
switch = "S-ERA"

[[family.revision]]
spec = "."
marks = [{ match = { "/kind" = "open" }, absent = ["/version"] }]

[[family.revision]]
spec = "../signals-v2"
marks = [{ match = { "/kind" = "open", "/version" = "2" } }]

[[family.rule]]
id = "S-ERA"
level = "SHOULD NOT"
ref = ["toy.md", "Revisions"]
message = "{detail}"
"""


@pytest.fixture(scope="module")
def signals(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    from test_toy_protocols import EXAMPLES, RULES, SCHEMA

    root = tmp_path_factory.mktemp("family")
    schema = json.loads(json.dumps(SCHEMA))
    schema["$defs"]["Open"]["properties"]["version"] = {"type": "string"}
    for name, version, package, rules, extra in (
        ("signals", "0.1", "signals_v1", RULES, SIGNALS_FAMILY),
        ("signals-v2", "0.2", "signals_v2", RULES.replace("rule S-UNCLOSED SHOULD", "rule S-UNCLOSED MUST"), ""),
    ):
        spec = root / "spec" / name
        spec.mkdir(parents=True)
        (spec / "schema.json").write_text(json.dumps(schema))
        (spec / "signals.rules").write_text(rules)
        (spec / "rule-examples.json").write_text(json.dumps(EXAMPLES))
        (spec / "binding.toml").write_text(
            f'[protocol]\nname = "Signals"\nversion = "{version}"\nschema = "schema.json"\nroot = "Signal"\nrules = "signals.rules"\n\n'
            f'[python]\npackage = "{package}"\n{extra}'
        )
    out = root / "out"
    for name in ("signals", "signals-v2"):
        result = run_cli("generate", "--spec", root / "spec" / name, "--out", out)
        assert result.exit_code == 0, result.output
    return root / "spec" / "signals", out


def _stream(path: Path, events: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def test_replay_judges_each_stream_with_the_rules_of_its_revision(signals: tuple[Path, Path], tmp_path: Path) -> None:
    """The same unclosed session is a warning in 0.1 and a violation in 0.2: the revision the
    stream names chooses the tables that judge it."""
    spec, out = signals
    old = _stream(tmp_path / "old.jsonl", [{"kind": "open", "sessionId": "s"}, {"kind": "note", "noteId": "n"}])
    new = _stream(tmp_path / "new.jsonl", [{"kind": "open", "sessionId": "s", "version": "2"}, {"kind": "note", "noteId": "n"}])
    result = run_cli("replay", "--spec", spec, "--out", out, "--json", old)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["outcome"] == "completed" and [w["rule"] for w in report["warnings"]] == ["S-UNCLOSED"]
    assert report["warnings"][0]["revision"] == "0.1" and report["revisions"] == [{"revision": "0.1", "first": 0, "messages": 2, "reason": "message 0 names it"}]
    result = run_cli("replay", "--spec", spec, "--out", out, "--json", new)
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert [(v["rule"], v["revision"], v["index"], v["line"]) for v in report["violations"]] == [("S-UNCLOSED", "0.2", 1, 2)]
    assert report["notes"] == ["revision 0.2"]
    # forced: the 0.2 stream judged by 0.1's rules, and the other way round
    result = run_cli("replay", "--spec", spec, "--out", out, "--json", "--revision", "0.1", new)
    assert result.exit_code == 0 and json.loads(result.stdout)["revisions"][0]["reason"] == "forced: revision 0.1"


def test_replay_keeps_wire_order_across_a_change_of_revision(signals: tuple[Path, Path], tmp_path: Path) -> None:
    """A stream of two sessions from producers of two revisions: each session judged by its
    own revision, every finding at its place in the whole stream, and the family's own finding
    for the change."""
    spec, out = signals
    events = [
        {"kind": "open", "sessionId": "a"}, {"kind": "close", "sessionId": "a"},
        {"kind": "open", "sessionId": "b", "version": "2"}, {"kind": "note", "noteId": "n"}, {"kind": "note", "noteId": "n"},
    ]
    mixed = _stream(tmp_path / "mixed.jsonl", events)
    result = run_cli("replay", "--spec", spec, "--out", out, "--json", mixed)
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    found = sorted((f["index"], f["rule"], f["revision"]) for f in report["violations"] + report["warnings"])
    assert found == [(2, "S-ERA", "family"), (4, "S-NOTE-ONCE", "0.2"), (4, "S-UNCLOSED", "0.2")]
    assert [s["revision"] for s in report["revisions"]] == ["0.1", "0.2"] and report["events"] == 5
    text = run_cli("replay", "--spec", spec, "--out", out, mixed)
    assert "S-NOTE-ONCE [MUST NOT] event 4 (note): note n again [0.2]" in text.output
    assert "note: revision 0.1 (messages 0-1: message 0 names it), then 0.2 (from message 2: message 2 names it)" in text.output


def test_replay_of_a_family_refuses_what_does_not_apply(signals: tuple[Path, Path], tmp_path: Path) -> None:
    spec, out = signals
    stream = _stream(tmp_path / "s.jsonl", [{"kind": "open", "sessionId": "s"}])
    for extra, says in (
        (["--format", "sse"], "judged from JSON Lines"),
        (["--after", "3"], "do not apply"),
        (["--revision", "9"], "'9' is no revision of"),
    ):
        result = run_cli("replay", "--spec", spec, "--out", out, *extra, stream)
        assert result.exit_code == 2 and says in result.output, (extra, result.output)
    # the SARIF log knows every rule a finding may name: each revision's and the family's
    sarif = tmp_path / "r.sarif"
    run_cli("replay", "--spec", spec, "--out", out, "--report", "sarif", sarif, stream)
    ids = {r["id"] for r in json.loads(sarif.read_text())["runs"][0]["tool"]["driver"]["rules"]}
    assert {"S-ERA", "S-UNCLOSED", "S-NOTE-ONCE"} <= ids


# -- the TypeScript binding's router agrees ---------------------------------------------------------


def _python_trace(job: dict[str, Any]) -> dict[str, Any]:
    try:
        router = Router(job.get("table"), job.get("forced"), job.get("hold", 64))
    except ValueError as exc:
        return {"error": str(exc)}
    routed: list[list[Any]] = []
    findings: list[list[Any]] = []
    steps = [lambda p=p, d=d: router.feed(p, d) for p, d in job["messages"]] + [router.finish]
    for step in steps:
        deliveries, found = step()
        routed += [[d.index, d.revision] for d in deliveries]
        findings += [[f.rule, f.level, f.index, f.message, list(f.ref)] for f in found]
    segments = [{"revision": s.revision, "first": s.first, "reason": s.reason, "messages": s.messages} for s in router.segments]
    return {"routed": routed, "findings": findings, "describe": router.describe(), "segments": segments}


def test_the_typescript_router_routes_every_session_as_the_python_one(tmp_path: Path) -> None:
    """The same table (the home package's FAMILY, or one given), the same sessions: every MCP
    session of the tests above, the SDK's recorded sessions of both revisions, the AG-UI-shaped
    eras, forced and held sessions: identical deliveries, findings, descriptions, segments."""
    from typescript_agreement import built, require_toolchain

    require_toolchain()
    index = built("mcp") / "dist" / "src" / "index.js"
    quiet = {"jsonrpc": "2.0", "method": "notifications/message", "params": {}}
    jobs: list[dict[str, Any]] = []
    for case in ROUTED:
        jobs.append({"messages": [[p, d] for p, d in case]})
    for sample in sorted((REPO / "spec").glob("mcp*/samples/*.jsonl")):
        entries = [json.loads(line) for line in sample.read_text(encoding="utf-8").splitlines()]
        jobs.append({"messages": [[e["from"], e["message"]] for e in entries]})
    agui = load_family(_agui_family(tmp_path))
    assert agui is not None
    run = [{"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"}, {"type": "RUN_STARTED", "threadId": "t", "runId": "s"}]
    jobs += [
        {"messages": [[None, e] for e in run], "table": agui.table},
        {"messages": [["client", DISCOVER], ["client", INITIALIZE]], "forced": "2026-07-28"},
        {"messages": [], "forced": "1999"},
        {"messages": []},
        {"messages": [["server", quiet]] * 5, "hold": 3},
        {"messages": [["client", "not an object"], ["client", [1, 2]], ["client", None], ["client", {"id": {"a": [1]}, "method": "x"}]]},
    ]
    stdin = "".join(json.dumps(j) + "\n" for j in jobs)
    from generator.targets.typescript import node as ts_node

    done = subprocess.run([ts_node.node(), str(REPO / "tests" / "family_peer.mjs"), str(index)], input=stdin, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    theirs = [json.loads(line) for line in done.stdout.splitlines()]
    ours = [_python_trace(j) for j in jobs]
    assert len(theirs) == len(ours) == len(jobs)
    for job, mine, other in zip(jobs, ours, theirs):
        if "error" in mine:
            assert "error" in other and other["error"].replace('"', "'") == mine["error"], (mine, other)
            continue
        assert other == mine, (job["messages"][:3], mine, other)
    assert sum(1 for t in ours if t.get("findings")) >= 3  # the findings themselves were compared
