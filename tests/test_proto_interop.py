"""Byte-level interop with the official encoder, npm @ag-ui/proto 1.0.0 (installed into tests/node
by `make test`'s setup; driven by tests/proto_peer.cjs in one Node process per batch).

For every valid schema fixture (events as they are; run inputs, messages, tools, resume entries
and interrupts inside the event that carries them), every valid derived case of an event, and
a corpus sample (bench/gen_corpus.py --runs 20):

- their encode -> our decode gives the same JSON,
- our encode -> their decode gives the same JSON,
- where both encode the same event, the bytes are equal.

"The same JSON" is exact except for what protobuf cannot tell apart (an empty array is an
absent one; a number inside a JSON value is a double, so 1.0 is 1). Every other difference must
be one of DIVERGENCES, each with its reason, and every listed divergence must still occur (a
stale entry fails). Skipped, loudly, only when `node` is not installed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import msgspec
import pytest

from conftest import GENERATED, REPO

NODE = shutil.which("node")
PEER = REPO / "tests" / "proto_peer.cjs"
NODE_DIR = REPO / "tests" / "node"
GEN_CORPUS = REPO.parent / "shared" / "bench" / "gen_corpus.py"

pytestmark = pytest.mark.skipif(
    NODE is None,
    reason="NODE IS NOT INSTALLED: the protobuf interop tests against @ag-ui/proto@1.0.0 did not run "
    "(install Node 20+ and run `make test`, whose setup installs the peer into tests/node)",
)

if str(GENERATED) not in sys.path:
    sys.path.insert(0, str(GENERATED))

from agui import codec_json, codec_proto  # noqa: E402
from agui.errors import EncodeError  # noqa: E402

# What differs between the two implementations on valid events, and why. Each entry: the
# direction it shows in (theirs->ours: their bytes read by us; ours->theirs: our bytes read by
# them; bytes: the two encodings), what it looks like, and the reason.
DIVERGENCES: dict[str, dict[str, str]] = {
    "predates-1.1-slots": {
        "shows": "theirs->ours, ours->theirs, bytes",
        "reason": "@ag-ui/proto 1.0.0 was built before the 1.1 ledger slots encryptedValueType "
        "(Message 14, ToolCall 6, ReasoningEncryptedValueEvent 6): its encoder (zod parse) drops the "
        "property and its decoder skips the field as unknown. Our bytes carry it; theirs do not.",
    },
    "undeclared-member-carried": {
        "shows": "bytes",
        "reason": "An open object's member the schema does not declare there (a remove operation's "
        "`value`, which RFC 6902 ignores): their encoder writes it, since the merged wire message has a "
        "value field for every operation; ours leaves undeclared members out, as the transport page says "
        "they do not survive this binding. Both byte strings decode to the same value.",
    },
}


def _ours_missing_only(expected: Any, actual: Any, keys: set[str], path: str = "") -> bool:
    """actual is expected minus members named in `keys` (at any depth), and nothing else differs."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for k in expected:
            if k not in actual:
                if k not in keys:
                    return False
            elif not _ours_missing_only(expected[k], actual[k], keys, f"{path}/{k}"):
                return False
        return set(actual) <= set(expected)
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(_ours_missing_only(e, a, keys) for e, a in zip(expected, actual))
    return _same(expected, actual)


def normal(document: Any) -> Any:
    """What protobuf cannot tell apart: an empty array is absent; a JSON-value number is a double."""
    if isinstance(document, dict):
        return {k: normal(v) for k, v in document.items() if v != []}
    if isinstance(document, list):
        return [normal(v) for v in document]
    if type(document) is float and document.is_integer() and abs(document) <= codec_proto.MAX_SAFE_INTEGER:
        return int(document)
    return document


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and bool(a == b)


def _classify(direction: str, expected: Any, actual: Any) -> str | None:
    """The known divergence explaining a difference (expected != actual), or None."""
    if not _same(expected, actual) and _ours_missing_only(expected, actual, {"encryptedValueType"}):
        return "predates-1.1-slots"
    return None


def _classify_bytes(ours: bytes, theirs: bytes) -> str | None:
    """Why two encodings of one event differ, or None."""
    mine, other = codec_proto.decode_document(ours), codec_proto.decode_document(theirs)
    if _same(mine, other):
        return None  # same fields, other order: nothing listed explains that
    if _ours_missing_only(mine, other, {"encryptedValueType"}):
        return "predates-1.1-slots"
    if _same(msgspec.to_builtins(codec_proto.decode(ours)), msgspec.to_builtins(codec_proto.decode(theirs))):
        return "undeclared-member-carried"
    return None


# -- the peer ---------------------------------------------------------------------------------------


def _peer(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if not (NODE_DIR / "node_modules" / "@ag-ui" / "proto" / "package.json").exists():
        pytest.fail("node is installed but @ag-ui/proto is not: run `make test` (its setup runs npm install in tests/node)")
    payload = "".join(json.dumps(r) + "\n" for r in requests)
    proc = subprocess.run([NODE or "node", str(PEER), "ops"], input=payload, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(answers) == len(requests)
    return answers


def _peer_version() -> str:
    return str(json.loads((NODE_DIR / "node_modules" / "@ag-ui" / "proto" / "package.json").read_text())["version"])


# -- what is compared ---------------------------------------------------------------------------------


def _carried_as_event(definition: str, doc: Any) -> dict[str, Any] | None:
    """A valid document of any definition, inside the event that carries it (None: no such event)."""
    run = {"threadId": "t1", "runId": "r1"}
    if definition == "Event" or definition.endswith("Event") and definition not in ("BaseEvent",):
        return dict(doc)
    if definition == "RunAgentInput":
        return {"type": "RUN_STARTED", **run, "input": doc}
    if definition in ("ResumeEntry", "Tool", "Context"):
        key = {"ResumeEntry": "resume", "Tool": "tools", "Context": "context"}[definition]
        return {"type": "RUN_STARTED", **run, "input": {**run, "messages": [], key: [doc]}}
    if definition == "Message" or definition.endswith("Message") and definition != "BaseMessage":
        return {"type": "MESSAGES_SNAPSHOT", "messages": [doc]}
    if definition == "Interrupt":
        return {"type": "RUN_FINISHED", **run, "outcome": {"type": "interrupt", "interrupts": [doc]}}
    return None


def _load(name: str) -> Any:
    return json.loads((GENERATED / "agui" / "tests" / name).read_text(encoding="utf-8"))


@cache
def _corpus() -> list[dict[str, Any]]:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "corpus.jsonl"
        proc = subprocess.run(
            [sys.executable, str(GEN_CORPUS), "--runs", "20", "--seed", "7", "--out", str(out)],
            capture_output=True, text=True, timeout=300,
        )
        assert proc.returncode == 0, proc.stderr
        return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line.strip()]


def _items() -> list[tuple[str, str, dict[str, Any]]]:
    items: list[tuple[str, str, dict[str, Any]]] = []
    for f in _load("fixtures.json")["fixtures"]:
        if f["valid"] and (event := _carried_as_event(f["definition"], f["document"])) is not None:
            items.append(("fixture", f["name"], event))
    for n, c in enumerate(_load("cases.json")["cases"]):
        if c["valid"] and (event := _carried_as_event(c["definition"], c["document"])) is not None:
            items.append(("case", f"{c['definition']}:{n}", event))
    if GEN_CORPUS.exists():
        for n, event in enumerate(_corpus()):
            items.append(("corpus", f"corpus:{n}", event))
    return items


@cache
def _interop() -> dict[str, Any]:
    """Run every comparison once; the tests below read the result."""
    items = _items()
    ours = [codec_proto.encode_document(e) for _, _, e in items]
    encoded = _peer([{"op": "encode", "event": e} for _, _, e in items])
    decoded = _peer([{"op": "decode", "hex": b.hex()} for b in ours])
    report: dict[str, Any] = {"items": len(items), "by_kind": Counter(k for k, _, _ in items), "unexplained": [], "divergent": Counter(), "equal_bytes": 0, "examples": {}}
    for (kind, name, event), mine, theirs, back in zip(items, ours, encoded, decoded):
        expected = normal(msgspec.to_builtins(codec_json.decode(msgspec.json.encode(event))))
        if "hex" not in theirs:
            report["unexplained"].append((name, "their encode threw", theirs))
            continue
        their_bytes = bytes.fromhex(theirs["hex"])
        if their_bytes == mine:
            report["equal_bytes"] += 1
        checks = []
        try:
            checks.append(("theirs->ours", normal(msgspec.to_builtins(codec_proto.decode(their_bytes)))))
        except Exception as exc:  # noqa: BLE001 (recorded as unexplained)
            report["unexplained"].append((name, "our decode of their bytes failed", str(exc)[:300]))
        if "event" in back:
            checks.append(("ours->theirs", normal(back["event"])))
        else:
            report["unexplained"].append((name, "their decode of our bytes threw", back))
        for direction, actual in checks:
            if _same(expected, actual):
                continue
            reason = _classify(direction, expected, actual)
            if reason is None:
                report["unexplained"].append((name, direction, {"expected": expected, "actual": actual}))
            else:
                report["divergent"][(reason, direction)] += 1
                report["examples"].setdefault(reason, name)
        if their_bytes != mine:
            reason = _classify_bytes(mine, their_bytes)
            if reason is None:
                report["unexplained"].append((name, "bytes differ", {"ours": mine.hex(), "theirs": their_bytes.hex()}))
            else:
                report["divergent"][(reason, "bytes")] += 1
    return report


def test_the_peer_is_the_pinned_version() -> None:
    _peer([])
    assert _peer_version() == "1.0.0"


def test_every_fixture_case_and_corpus_event_interoperates() -> None:
    report = _interop()
    assert report["by_kind"]["fixture"] > 100 and report["by_kind"]["case"] > 50
    assert report["by_kind"]["corpus"] > 1000 or not GEN_CORPUS.exists()
    assert report["unexplained"] == []


def test_the_bytes_are_equal_wherever_no_listed_divergence_applies() -> None:
    report = _interop()
    differing = sum(n for (reason, direction), n in report["divergent"].items() if direction == "bytes")
    assert report["equal_bytes"] + differing == report["items"] - len(report["unexplained"])
    assert report["equal_bytes"] > 0.9 * report["items"]


def test_every_listed_divergence_still_occurs() -> None:
    report = _interop()
    seen = {reason for reason, _ in report["divergent"]}
    assert seen == set(DIVERGENCES), f"stale or missing entries: {sorted(set(DIVERGENCES) ^ seen)}"


def test_the_golden_frames_are_what_the_peer_encodes() -> None:
    """spec/agui/proto-golden.json (which the generated tests pin) is still the peer's output."""
    frames = json.loads((REPO / "spec" / "agui" / "proto-golden.json").read_text(encoding="utf-8"))["frames"]
    answers = _peer([{"op": "encode", "event": f["document"]} for f in frames])
    assert [a.get("hex") for a in answers] == [f["hex"] for f in frames]


def test_the_peer_is_lossy_where_we_refuse() -> None:
    """The official encoder's known lossy conversions (bench/PEERS.md), each refused by ours."""
    lossy = [
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": 5},  # a number becomes "5"
        {"type": "TEXT_MESSAGE_CONTENT", "delta": "x"},  # a missing id becomes "undefined"
        {"type": "TEXT_MESSAGE_END", "messageId": "m1", "bogus": 1},  # an unknown member vanishes
    ]
    answers = _peer([{"op": "encode", "event": e} for e in lossy])
    assert all("hex" in a for a in answers)  # they encode all three anyway
    assert answers[0]["warnings"] and answers[1]["warnings"] and not answers[2]["warnings"]  # the last silently
    back = [codec_proto.decode_document(bytes.fromhex(a["hex"])) for a in answers]
    assert back[0]["delta"] == "5" and back[1]["messageId"] == "undefined" and "bogus" not in back[2]
    for event in lossy:
        with pytest.raises(EncodeError):
            codec_proto.encode_document(event)
