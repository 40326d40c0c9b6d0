"""spec/mcp's rules against real SDK traffic (issue 20): the sessions the official SDKs recorded
through `specbind proxy` (spec/mcp/samples) draw no MUST finding, except where the SDK breaks a
rule (said below, with the sentence); each violating example of every rule, spliced into each
SDK pairing's real traffic, draws exactly the findings it draws alone, and both bindings agree
on it; the examples file is what its script writes; `specbind replay` judges the samples with
both bindings."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import GENERATED, REPO, run_cli

SPEC = REPO / "spec" / "mcp"
SAMPLES = SPEC / "samples"
EXAMPLES: dict[str, Any] = json.loads((SPEC / "rule-examples.json").read_text(encoding="utf-8"))
# The SDK pairing whose server runs as the Python SDK's documentation writes it: it declares no
# logging capability, yet sends notifications/message (server/utilities/logging "Servers that
# emit log message notifications MUST declare the logging capability"), and the scenario client
# sends logging/setLevel to it anyway (basic/lifecycle "Operation": "Only use capabilities that
# were successfully negotiated"). The SDK is wrong on the first, the scenario client (the SDK
# lets it) on the second; the rules read the sentences as written.
AS_WRITTEN = {"python-sdk-as-written": ["CAP-LOGGING", "DECLARE-LOGGING", "DECLARE-LOGGING", "DECLARE-LOGGING"]}


def entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def judge(stream: list[dict[str, Any]]) -> list[str]:
    from mcp.automaton import Automaton  # the generated package (generated/ is on the path)

    automaton = Automaton()
    found: list[Any] = []
    for entry in stream:
        found += automaton.feed_document(json.dumps(entry))
    found += automaton.finish()
    return [f.rule for f in found]


def test_the_examples_file_is_what_its_script_writes(tmp_path: Path) -> None:
    script = tmp_path / "rule-examples.py"
    script.write_text((SPEC / "rule-examples.py").read_text(encoding="utf-8"), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "rule-examples.json").read_text()) == EXAMPLES


def test_every_rule_has_examples_both_ways() -> None:
    from mcp.automaton import RULES

    assert sorted(EXAMPLES) == sorted(RULES)
    for rule, example in EXAMPLES.items():
        assert example["violates"], rule
        assert all(v["exactly"] and rule in v["exactly"] for v in example["violates"]), rule
    assert len(RULES) >= 50


@pytest.mark.parametrize("sample", sorted(SAMPLES.glob("*.jsonl")), ids=lambda p: p.stem)
def test_recorded_sdk_traffic_draws_no_must_finding(sample: Path) -> None:
    from mcp.automaton import RULES

    found = judge(entries(sample))
    fatal = [r for r in found if RULES[r]["level"] in ("MUST", "MUST NOT")]
    assert fatal == AS_WRITTEN.get(sample.stem, []), found


# -- each violating example, spliced into real traffic ---------------------------------------------

# the recorded sessions an example is spliced into: every SDK pairing that keeps every rule
BASES = {p.stem: entries(p) for p in sorted(SAMPLES.glob("*.jsonl")) if p.stem not in AS_WRITTEN}
BASE = BASES["python-sdk"]


def renamed(stream: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The example's messages with ids and progress tokens the recorded session never uses."""
    out = copy.deepcopy(stream)

    def fresh(value: Any) -> Any:
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int):
            return value + 100_000
        if isinstance(value, str):
            return "x-" + value
        return value

    for entry in out:
        message = entry.get("message")
        if not isinstance(message, dict):
            continue
        if "id" in message:
            message["id"] = fresh(message["id"])
        params = message.get("params")
        if isinstance(params, dict):
            if "requestId" in params:
                params["requestId"] = fresh(params["requestId"])
            if "progressToken" in params:
                params["progressToken"] = fresh(params["progressToken"])
            meta = params.get("_meta")
            if isinstance(meta, dict) and "progressToken" in meta:
                meta["progressToken"] = fresh(meta["progressToken"])
    return out


def correlated(body: list[dict[str, Any]], i: int) -> set[int]:
    """The entries of the recorded body tied to entry i: a request, its answer, the
    notifications naming it (cancellation by id, progress by token)."""
    message = body[i]["message"]
    sender = body[i]["from"]
    ident = message.get("id")
    request = next((j for j, e in enumerate(body) if e["message"].get("id") == ident and "method" in e["message"] and (j == i or e["from"] != sender)), None) if ident is not None else None
    if request is None:
        return {i}
    asker = body[request]["from"]
    token = ((body[request]["message"].get("params") or {}).get("_meta") or {}).get("progressToken")
    tied = {request}
    for j, e in enumerate(body):
        m, params = e["message"], e["message"].get("params") or {}
        if "method" not in m and m.get("id") == ident and e["from"] != asker:
            tied.add(j)
        elif m.get("method") == "notifications/cancelled" and params.get("requestId") == ident and e["from"] == asker:
            tied.add(j)
        elif m.get("method") == "notifications/progress" and token is not None and params.get("progressToken") == token and e["from"] != asker:
            tied.add(j)
    return tied | {i}


def compatible(prefix: list[dict[str, Any]], body: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The recorded body without the exchanges that draw findings after `prefix` (the example's
    own declarations may withhold what the recorded session used): real traffic that keeps every
    rule there."""
    from mcp.automaton import Automaton

    body = list(body)
    for _ in range(len(body)):
        automaton = Automaton()
        for entry in prefix:
            automaton.feed_document(json.dumps(entry))
        before = len(automaton.findings)
        offending = None
        for i, entry in enumerate(body):
            automaton.feed_document(json.dumps(entry))
            if len(automaton.findings) > before:
                offending = i
                break
        if offending is None:
            return body
        drop = correlated(body, offending)
        body = [e for j, e in enumerate(body) if j not in drop]
    return body


def capability_sets(caps: dict[str, Any]) -> list[dict[str, Any]]:
    """The capabilities, and the capabilities less any one member (at any depth): what a
    session may declare around an example that is about one missing capability."""
    out = [caps]

    def without(value: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
        copied = copy.deepcopy(value)
        node = copied
        for part in path[:-1]:
            node = node[part]
        del node[path[-1]]
        return copied

    def walk(value: dict[str, Any], path: tuple[str, ...]) -> None:
        for key, inner in value.items():
            out.append(without(caps, path + (key,)))
            if isinstance(inner, dict):
                walk(inner, path + (key,))

    walk(caps, ())
    return out


def merged(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(a)
    for key, value in b.items():
        out[key] = merged(out[key], value) if isinstance(out.get(key), dict) and isinstance(value, dict) else copy.deepcopy(value)
    return out


def declaring(example: list[dict[str, Any]], client_caps: dict[str, Any], server_caps: dict[str, Any]) -> list[dict[str, Any]]:
    """The example with these capabilities in its initialize request and result."""
    out = copy.deepcopy(example)
    ident = None
    for entry in out:
        message = entry.get("message")
        if not isinstance(message, dict):
            continue
        if message.get("method") == "initialize" and ident is None:
            message["params"]["capabilities"] = client_caps
            ident = message.get("id")
        elif ident is not None and entry["from"] == "server" and message.get("id") == ident and isinstance(message.get("result"), dict) and "capabilities" in message["result"]:
            message["result"]["capabilities"] = server_caps
            break
    return out


def handshake_end(example: list[dict[str, Any]]) -> int:
    """Where the example's handshake ends: after the last of its first initialize request, that
    request's result and the client's notifications/initialized (what of them it has): where the
    recorded session's operations fit (an initialize answered with an error ends no handshake:
    after it nothing but a new initialize may come, so the recorded pings go before it)."""
    end = 0
    ident: Any = None
    for i, entry in enumerate(example):
        message = entry.get("message")
        if not isinstance(message, dict):
            continue
        if message.get("method") == "initialize" and ident is None:
            ident, end = message.get("id"), i + 1
        elif ident is not None and "result" in message and message.get("id") == ident and entry["from"] == "server":
            end = i + 1
        elif ident is not None and message.get("method") == "notifications/initialized":
            end = i + 1
    return end


def completes(example: list[dict[str, Any]]) -> bool:
    """Whether the example's handshake completes (an initialize result, then the client's
    notifications/initialized): a session where operations may follow."""
    answered = False
    for entry in example:
        message = entry.get("message")
        if isinstance(message, dict) and entry["from"] == "server" and isinstance(message.get("result"), dict) and "serverInfo" in message["result"]:
            answered = True
        elif answered and isinstance(message, dict) and message.get("method") == "notifications/initialized":
            return True
    return False


def spliced(example: list[dict[str, Any]], exactly: list[str], base: list[dict[str, Any]] = BASE) -> list[dict[str, Any]]:
    """The example in the recorded session: declaring what the recorded session declared (less
    what the example is about, merged with what it needs), the recorded operations that keep
    every rule there placed after its handshake, its own messages as they are."""
    recorded_client = base[0]["message"]["params"]["capabilities"]
    recorded_server = base[1]["message"]["result"]["capabilities"]
    candidates = [example]
    if any(isinstance(e.get("message"), dict) and e["message"].get("method") == "initialize" for e in example):
        mine = next(e["message"]["params"]["capabilities"] for e in example if isinstance(e.get("message"), dict) and e["message"].get("method") == "initialize")
        theirs = next((e["message"]["result"].get("capabilities", {}) for e in example if e["from"] == "server" and isinstance(e.get("message"), dict) and isinstance(e["message"].get("result"), dict) and "serverInfo" in e["message"]["result"]), {})
        for base_client, base_server in ((recorded_client, recorded_server), (merged(recorded_client, mine), merged(recorded_server, theirs))):
            candidates += [declaring(example, c, base_server) for c in capability_sets(base_client)]
            candidates += [declaring(example, base_client, sv) for sv in capability_sets(base_server)]
    chosen = next(c for c in candidates[1:] + candidates[:1] if judge(c) == exactly)
    cut = handshake_end(chosen)
    head, tail = chosen[:cut], chosen[cut:]
    return head + compatible(head, renamed(base[3:])) + tail


VIOLATIONS = [(rule, n, x) for rule, e in sorted(EXAMPLES.items()) for n, x in enumerate(e["violates"])]


@pytest.mark.parametrize("rule,n,example", VIOLATIONS, ids=[f"{r}-{n}" for r, n, _ in VIOLATIONS])
@pytest.mark.parametrize("base", sorted(BASES))
def test_each_violating_example_spliced_into_sdk_traffic_draws_exactly_its_rule(base: str, rule: str, n: int, example: dict[str, Any]) -> None:
    stream = example["stream"]
    injected = spliced(stream, example["exactly"], BASES[base])
    real = len(injected) - len(stream)
    # a session whose handshake never completes has room for pings alone
    assert real >= (10 if completes(stream) else 2), f"only {real} recorded messages fit beside this example"
    assert judge(injected) == example["exactly"] == judge(stream), injected


def test_replay_judges_the_samples_in_both_bindings(tmp_path: Path) -> None:
    import typescript_agreement as agree

    agree.require_toolchain()
    samples = sorted(SAMPLES.glob("*.jsonl"))
    result = agree.compare_streams("mcp", [(p.stem, p) for p in samples], tmp_path)
    assert result["differences"] == [], result["differences"][:2]
    spliced_streams = [(f"{b}-{r}-{n}", agree.jsonl(spliced(x["stream"], x["exactly"], base))) for b, base in sorted(BASES.items()) for r, n, x in VIOLATIONS]
    result = agree.compare_streams("mcp", spliced_streams, tmp_path)  # type: ignore[arg-type]
    assert result["differences"] == [], result["differences"][:2]
    assert result["not_completed"] > 60 * len(BASES)
    code = run_cli("replay", "--spec", SPEC, "--out", GENERATED, "--json", *samples)
    reports = [json.loads(line) for line in code.stdout.splitlines()]
    assert code.exit_code == 1  # the as-written pairing fails
    assert [r["outcome"] for r in reports[:-1]] == ["completed", "failed", "completed", "completed", "completed"]


def test_replay_of_the_family_with_the_typescript_binding_says_what_python_says(tmp_path: Path) -> None:
    """`replay --spec spec/mcp --target typescript`: each transcript routed to its revisions (a
    2026-07-28 probe, then a fallback to 2025-11-25; sessions of 2026-07-28 alone, which declares
    no rules yet), each revision's messages judged by the TypeScript binding: the same reports,
    SARIF and JUnit files, exit codes and text as the Python packages', broken lines included."""
    import typescript_agreement as agree

    agree.require_toolchain()
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(SAMPLES.joinpath("python-sdk.jsonl").read_bytes().splitlines(keepends=True)[0]
                       + b'{"from":"client","message":{"jsonrpc":"2.0","id":5,"method":"tools/list"\n[1,2]\n{"from":"robot","message":{}}\n'
                       + b'\xff\xfe\n{"from":"client","raw":"hello"}\n{"from":"client","message":{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"cursor":3}}}\n')
    files = [*sorted(SAMPLES.glob("*.jsonl")), *sorted((REPO / "spec" / "mcp-2026-07-28" / "samples").glob("*.jsonl")), broken]
    runs = {}
    for target in ([], ["--target", "typescript"]):
        sarif, junit = tmp_path / f"r{len(target)}.sarif", tmp_path / f"r{len(target)}.xml"
        as_json = run_cli("replay", "--spec", SPEC, "--out", GENERATED, *target, "--json", "--report", "sarif", sarif, *files)
        text = run_cli("replay", "--spec", SPEC, "--out", GENERATED, *target, "--report", "junit", junit, *files)
        runs[tuple(target)] = (as_json.exit_code, as_json.stdout, text.exit_code, text.stdout, sarif.read_text(), junit.read_text())
    assert runs[()] == runs[("--target", "typescript")]
    reports = [json.loads(line) for line in runs[()][1].splitlines()]
    assert runs[()][0] == 1 and reports[-1]["files"] == len(files)
    mixed = next(r for r in reports if r["file"].endswith("python-client-auto-typescript-server.jsonl"))
    assert [s["revision"] for s in mixed["revisions"]] == ["2026-07-28", "2025-11-25"]
    bad = reports[-2]
    assert [(f["rule"], f["line"]) for f in bad["violations"]] == [("MSG-JSONRPC", n) for n in range(2, 8)]


def test_replay_of_the_family_lists_the_first_max_findings_and_counts_the_rest_in_both_bindings(tmp_path: Path) -> None:
    """`replay --spec spec/mcp --max-findings N`: the first N findings of the whole stream (the
    family's own and each revision's, in stream order) listed, the rest counted in omitted by
    rule, the outcome counting them all; the TypeScript binding's report the same."""
    import typescript_agreement as agree

    agree.require_toolchain()
    stream = tmp_path / "many.jsonl"
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    probe = [  # a modern server found, then a fallback to the handshake: the family's own finding
        {"from": "client", "message": {"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {"_meta": meta}}},
        {"from": "server", "message": {"jsonrpc": "2.0", "id": 0, "result": {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {}}}},
    ]
    session = SAMPLES.joinpath("python-sdk.jsonl").read_bytes()  # from its initialize on
    # then findings of the revision's automaton: lines that are no transcript entry, one id reused
    broken = b"".join(b"[1,2]\n" + b'{"from":"client","message":{"jsonrpc":"2.0","id":7,"method":"ping"}}\n' for _ in range(12))
    stream.write_bytes(b"".join(json.dumps(e).encode() + b"\n" for e in probe) + session + broken)
    whole = json.loads(run_cli("replay", "--spec", SPEC, "--out", GENERATED, "--json", "--max-findings", "0", stream).stdout.splitlines()[0])
    found = whole["violations"] + whole["warnings"]
    assert len(found) > 20 and "omitted" not in whole
    assert [f["revision"] for f in found].count("family") == 1
    first = sorted(found, key=lambda f: f["index"])[:5]
    reports = []
    for target in ([], ["--target", "typescript"]):
        code = run_cli("replay", "--spec", SPEC, "--out", GENERATED, *target, "--json", "--max-findings", "5", stream)
        assert code.exit_code == 1
        reports.append(json.loads(code.stdout.splitlines()[0]))
    assert reports[0] == reports[1]
    capped = reports[0]
    listed = capped["violations"] + capped["warnings"]
    assert sorted(listed, key=lambda f: f["index"]) == first
    omitted = capped["omitted"]
    assert omitted["violations"] + omitted["warnings"] == len(found) - 5 == sum(omitted["rules"].values())
    assert capped["outcome"] == whole["outcome"] == "failed"


# -- hostile transcripts ---------------------------------------------------------------------------


def mutants(count: int, seed: int = 20) -> list[tuple[str, bytes]]:
    """Recorded sessions each broken at a few places: a value of another JSON type, a member
    dropped, an id or method changed, a line cut short or made no JSON, lines swapped."""
    import random

    rnd = random.Random(seed)
    kinds: list[Any] = [None, 0, -1, 1.5, 2**60, "", "x", [], {}, True, [1, {"a": None}], {"id": 3}]
    sessions = [entries(p) for p in sorted(SAMPLES.glob("*.jsonl"))]
    out = []
    for n in range(count):
        stream = copy.deepcopy(rnd.choice(sessions))
        for _ in range(rnd.randint(1, 4)):
            i = rnd.randrange(len(stream))
            entry = stream[i]
            node: Any = entry
            path = []
            while isinstance(node, dict) and node and rnd.random() < 0.7:
                key = rnd.choice(sorted(node))
                path.append(key)
                parent, node = node, node[key]
            if path:
                how = rnd.random()
                if how < 0.5:
                    parent[path[-1]] = rnd.choice(kinds)
                elif how < 0.7:
                    del parent[path[-1]]
                else:
                    parent[path[-1] + "x"] = parent.pop(path[-1])
            elif rnd.random() < 0.5 and i + 1 < len(stream):
                stream[i], stream[i + 1] = stream[i + 1], stream[i]
        lines = [json.dumps(e).encode() for e in stream]
        j = rnd.randrange(len(lines))
        roll = rnd.random()
        if roll < 0.2:
            lines[j] = lines[j][: rnd.randrange(len(lines[j]))]
        elif roll < 0.3:
            lines[j] = b"\xff" + lines[j]
        elif roll < 0.4:
            lines.insert(j, b'"a line that is a string"')
        out.append((f"mutant:{n}", b"\n".join(lines) + b"\n"))
    return out


def test_broken_sessions_are_findings_never_exceptions_and_both_bindings_agree(tmp_path: Path) -> None:
    from mcp.replay import replay

    streams = mutants(300)
    failed = 0
    for name, data in streams:
        report = replay(data)  # raises nothing, whatever the bytes
        failed += report["outcome"] != "completed"
        plain = replay(data, plain=True)
        assert plain == report, name
    assert failed > 250
    import typescript_agreement as agree

    agree.require_toolchain()
    result = agree.compare_streams("mcp", streams, tmp_path)  # type: ignore[arg-type]
    assert result["differences"] == [], json.dumps(result["differences"][:1], indent=1)[:6000]
