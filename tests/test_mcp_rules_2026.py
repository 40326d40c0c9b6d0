"""spec/mcp-2026-07-28's rules (issue 24) against real SDK traffic: the sessions the official
Python SDK (PyPI `mcp` 2.3.0) recorded at 2026-07-28 through `specbind proxy` (pinned to the
revision, and in its default `auto` mode, which probes `server/discover` first) draw no finding;
each violating example of every rule, spliced into that real traffic, draws exactly the findings
it draws alone, in both bindings; the examples file is what its script writes."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import GENERATED, REPO, run_cli

SPEC = REPO / "spec" / "mcp-2026-07-28"
SAMPLES = SPEC / "samples"
EXAMPLES: dict[str, Any] = json.loads((SPEC / "rule-examples.json").read_text(encoding="utf-8"))
# the sessions spoken at 2026-07-28 from the first message (the third sample falls back to the
# 2025-11-25 handshake after its probe: the family's, tests/test_mcp_sdk_revisions.py)
MODERN = ("python-sdk-2026-07-28", "python-sdk-auto")


def entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def judge(stream: list[dict[str, Any]]) -> list[str]:
    from mcp_2026_07_28.automaton import Automaton  # the generated package (generated/ is on the path)

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


def test_every_rule_has_examples_both_ways_and_cites_a_page_of_the_revision() -> None:
    from mcp_2026_07_28.automaton import RULES

    assert sorted(EXAMPLES) == sorted(RULES)
    for rule, example in EXAMPLES.items():
        assert example["violates"] and example["satisfies"], rule
        assert all(v["exactly"] and rule in v["exactly"] for v in example["violates"]), rule
        page = RULES[rule]["page"]
        assert (SPEC / "pages" / f"{page}.mdx").is_file() or (SPEC / "pages" / page / "index.mdx").is_file(), (rule, page)
    assert len(RULES) >= 30


@pytest.mark.parametrize("sample", sorted(SAMPLES.glob("*.jsonl")), ids=lambda p: p.stem)
def test_recorded_sdk_traffic_of_the_revision_draws_no_finding(sample: Path) -> None:
    """The modern sessions, whole, judged by this revision alone: nothing, not even a warning.
    The fallback session through the family (its probe judged here, the rest by 2025-11-25)."""
    if sample.stem in MODERN:
        assert judge(entries(sample)) == []
    else:
        code = run_cli("replay", "--spec", REPO / "spec" / "mcp", "--out", GENERATED, "--json", sample)
        report = json.loads(code.stdout.splitlines()[0])
        assert code.exit_code == 0 and report["violations"] == report["warnings"] == []
        assert [s["revision"] for s in report["revisions"]] == ["2026-07-28", "2025-11-25"]


# -- each violating example, spliced into real traffic ---------------------------------------------

BASES = {name: entries(SAMPLES / f"{name}.jsonl") for name in MODERN}


def renamed(stream: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The example's messages with request ids, progress tokens, subscription ids and request
    states the recorded session never uses."""
    out = copy.deepcopy(stream)

    def fresh(value: Any) -> Any:
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int):
            return value + 100_000
        if isinstance(value, str):
            return "x-" + value
        return value

    def meta(holder: Any, key: str) -> None:
        if isinstance(holder, dict) and isinstance(holder.get("_meta"), dict) and key in holder["_meta"]:
            holder["_meta"][key] = fresh(holder["_meta"][key])

    for entry in out:
        message = entry.get("message")
        if not isinstance(message, dict):
            continue
        if "id" in message:
            message["id"] = fresh(message["id"])
        for holder in (message.get("params"), message.get("result")):
            if not isinstance(holder, dict):
                continue
            for key in ("requestId", "progressToken", "requestState"):
                if key in holder:
                    holder[key] = fresh(holder[key])
            meta(holder, "progressToken")
            meta(holder, "io.modelcontextprotocol/subscriptionId")
    return out


def spliced(example: list[dict[str, Any]], base: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The example's messages spread through the recorded session, each after a recorded
    message, in their order: real traffic interleaved with the one slip."""
    mine = renamed(example)
    out: list[dict[str, Any]] = []
    places = {round((j + 1) * len(base) / (len(mine) + 1)): j for j in range(len(mine))}
    at = sorted(places)
    k = 0
    for i, entry in enumerate(base):
        out.append(entry)
        while k < len(at) and at[k] == i + 1:
            out.append(mine[places[at[k]]])
            k += 1
    return out + [mine[places[p]] for p in at[k:]]


VIOLATIONS = [(rule, n, x) for rule, e in sorted(EXAMPLES.items()) for n, x in enumerate(e["violates"])]


@pytest.mark.parametrize("rule,n,example", VIOLATIONS, ids=[f"{r}-{n}" for r, n, _ in VIOLATIONS])
@pytest.mark.parametrize("base", sorted(BASES))
def test_each_violating_example_spliced_into_sdk_traffic_draws_exactly_its_rule(base: str, rule: str, n: int, example: dict[str, Any]) -> None:
    stream = example["stream"]
    injected = spliced(stream, BASES[base])
    assert len(injected) == len(stream) + len(BASES[base])
    assert judge(injected) == example["exactly"] == judge(stream), injected


def test_both_bindings_give_the_same_verdicts_on_the_samples_examples_and_spliced_sessions(tmp_path: Path) -> None:
    import typescript_agreement as agree

    agree.require_toolchain()
    streams: list[tuple[str, Any]] = [(p.stem, p) for p in sorted(SAMPLES.glob("*.jsonl"))]
    for rule, example in sorted(EXAMPLES.items()):
        for how in ("violates", "satisfies"):
            streams += [(f"{rule}-{how}-{n}", agree.jsonl(x["stream"])) for n, x in enumerate(example[how])]
    streams += [(f"{b}-{r}-{n}", agree.jsonl(spliced(x["stream"], base))) for b, base in sorted(BASES.items()) for r, n, x in VIOLATIONS]
    result = agree.compare_streams("mcp-2026-07-28", streams, tmp_path)
    assert result["differences"] == [], json.dumps(result["differences"][:1], indent=1)[:6000]
    assert result["not_completed"] > 2 * len(VIOLATIONS)


def test_numbers_written_with_a_fraction_compare_by_their_value_in_both_bindings(tmp_path: Path) -> None:
    """An error code written 2000.0 or -32050.0 is the integer it is (JSON Schema's integer rule,
    binding.toml): compared by its value in both bindings (TypeScript compared the wrapper it keeps
    such a number in, and found 2000.0 in the reserved range; found by fuzz/differential.py)."""
    import typescript_agreement as agree

    agree.require_toolchain()
    call = EXAMPLES["ERROR-CODE-LEGACY"]["violates"][0]["stream"][0]
    streams = []
    for code in ("2000.0", "-32050.0", "-32001.0", "-32002.0", "-3.2021e4", "1e0"):
        error = '{"from": "server", "message": {"jsonrpc": "2.0", "id": 1, "error": {"code": %s, "message": "m"}}}\n' % code
        streams.append((code, (json.dumps(call) + "\n" + error).encode()))
    result = agree.compare_streams("mcp-2026-07-28", streams, tmp_path)
    assert result["differences"] == [], json.dumps(result["differences"][:1], indent=1)[:4000]
    from mcp_2026_07_28.replay import replay

    assert [[f["rule"] for f in (lambda r: r["violations"] + r["warnings"])(replay(data))] for _, data in streams] == [
        [], ["ERROR-CODE-RESERVED"], ["ERROR-CODE-LEGACY"], ["ERROR-CODE-RETIRED"], [], []]


def test_replay_names_each_rule_with_its_level_and_page(tmp_path: Path) -> None:
    """`specbind replay --spec spec/mcp-2026-07-28` on a spliced session: the finding's rule,
    level and citation, and the exit code a MUST gives."""
    example = EXAMPLES["MRTR-SUPPORTED"]["violates"][0]["stream"]
    path = tmp_path / "spliced.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in spliced(example, BASES["python-sdk-auto"])), encoding="utf-8")
    code = run_cli("replay", "--spec", SPEC, "--out", GENERATED, "--json", path)
    assert code.exit_code == 1
    [finding] = json.loads(code.stdout.splitlines()[0])["violations"]
    assert finding["rule"] == "MRTR-SUPPORTED" and finding["level"] == "MUST NOT"
    assert "InputRequiredResult answers prompts/get, resources/read and tools/call only" in finding["message"]
