"""Hostile input (issue 22): what a finding, an error list or a report holds is bounded, in
both bindings alike, without changing which input is valid or which stream conforms; and every
hostile shape costs what its size costs (the doubling checks, at reduced sizes: the full sizes
are bench/bench_hostile.py's)."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "generated"))
sys.path.insert(0, str(REPO / "tests"))

import typescript_agreement as agreement  # noqa: E402
from agui import replay as agui_replay  # noqa: E402
from agui.automaton import MAX_IDS, MAX_SHOWN, Automaton  # noqa: E402


def _lines(*events: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(e).encode() + b"\n" for e in events)


RUN = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
FINISHED = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}


def _ambiguous(lanes: int) -> bytes:
    opened = [{"type": "TEXT_MESSAGE_CHUNK", "messageId": f"m{i:02d}", "subagentRunId": f"s{i}", "delta": "x"} for i in range(lanes)]
    return _lines(RUN, *opened, *[{"type": "TEXT_MESSAGE_CHUNK", "delta": "y"}] * 3)


def _left_open(messages: int, name: str = "m") -> bytes:
    started = [{"type": "TEXT_MESSAGE_START", "messageId": f"{name}{i:02d}", "role": "assistant"} for i in range(messages)]
    return _lines(RUN, *started, FINISHED)


def _repeated_interrupts(ids: int) -> bytes:
    interrupts = [{"id": f"i{i:02d}", "reason": "tool_approval"} for i in range(ids)] * 2
    return _lines(RUN, {**FINISHED, "outcome": {"type": "interrupt", "interrupts": interrupts}})


def _out_of_order(n: int) -> bytes:
    return _lines(RUN, *[{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"}] * n)


def _mixed() -> bytes:
    """Every kind of finding counting must count as making it would: undecodable lines (some
    repeated), events with more unknown members than a decode lists, events out of order."""
    members = b'{"type":"RUN_STARTED","threadId":"t","runId":"r",' + b",".join(b'"x%d":0' % i for i in range(150)) + b"}"
    lines = [json.dumps(RUN).encode()] + [b"{}"] * 30 + [members] * 5 + [str(i).encode() for i in range(20)]
    lines += [json.dumps({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"}).encode()] * 10
    return b"\n".join(lines) + b"\n"


def _not_objects() -> bytes:
    """Lines that are no object (numbers, strings, arrays, literals, text that is not JSON at
    all, each different), among objects that do not decode and events out of order: past the
    cap the ones that are no object are refused unread (``objects_only``), the others as
    before."""
    odd = [b"-", b"-0", b"tru", b"nul", b"[1,", b'"\\ud800"', b"\xff1", b"\xef\xbb\xbf7", b" 8", b"[]", b"null", b"false", b'"x"']
    lines = [json.dumps(RUN).encode()]
    for i in range(30):
        lines += [str(i * 7).encode(), b'"s%d"' % i, b"[%d]" % i, odd[i % len(odd)], b"{}", b'{"type":"NOPE%d"}' % i]
        lines.append(json.dumps({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"}).encode())
    return b"\n".join(lines) + b"\n"


STREAMS = {
    "ambiguous chunks, 30 lanes open": _ambiguous(30),
    "ambiguous chunks, 2 lanes open": _ambiguous(2),
    "a run finished with 25 messages open": _left_open(25),
    "a run finished with 3 messages open": _left_open(3),
    "25 interrupt ids repeated": _repeated_interrupts(25),
    "a run finished with a message whose id is 300 characters": _left_open(1, "\U0001f600" * 150 + "x" * 150),
    "12 findings": _out_of_order(12),
    "every kind of finding, mixed": _mixed(),
    "lines that are no object, among others": _not_objects(),
}


def _by_rule(report: dict[str, Any], rule: str) -> list[dict[str, Any]]:
    return [f for f in report["violations"] + report["warnings"] if f["rule"] == rule]


def test_a_finding_about_a_growing_set_lists_a_sample_and_says_how_many() -> None:
    ambiguous = _by_rule(agui_replay.replay(STREAMS["ambiguous chunks, 30 lanes open"]), "CHUNK-LANE-RESOLVE")
    assert len(ambiguous) == 3
    assert ambiguous[0]["ids"] == [f"m{i:02d}" for i in range(MAX_IDS)]
    assert ambiguous[0]["message"].endswith(f"m{MAX_IDS - 1:02d} and {30 - MAX_IDS} more")
    small = _by_rule(agui_replay.replay(STREAMS["ambiguous chunks, 2 lanes open"]), "CHUNK-LANE-RESOLVE")
    assert small[0]["ids"] == ["m00", "m01"] and small[0]["message"].endswith("open for m00, m01")
    closing = _by_rule(agui_replay.replay(STREAMS["a run finished with 25 messages open"]), "RUN-CLOSE-ALL")
    assert [len(f["ids"]) for f in closing] == [MAX_IDS] and " and 5 more is still open" in closing[0]["message"]
    assert _by_rule(agui_replay.replay(STREAMS["a run finished with 3 messages open"]), "RUN-CLOSE-ALL")[0]["ids"] == ["m00", "m01", "m02"]
    unique = _by_rule(agui_replay.replay(STREAMS["25 interrupt ids repeated"]), "INTERRUPT-ID-UNIQUE")
    assert unique[0]["ids"] == [f"i{i:02d}" for i in range(MAX_IDS)] and unique[0]["message"].endswith(" and 5 more")


def test_a_finding_quotes_an_id_up_to_max_shown_characters() -> None:
    [found] = _by_rule(agui_replay.replay(STREAMS["a run finished with a message whose id is 300 characters"]), "RUN-CLOSE-ALL")
    assert found["ids"] == ["\U0001f600" * 150 + "x" * (MAX_SHOWN - 153) + "..."]
    assert len(found["ids"][0]) == MAX_SHOWN


def test_findings_beyond_max_findings_are_counted_not_listed_and_still_decide_the_outcome() -> None:
    data = STREAMS["12 findings"]
    whole = agui_replay.replay(data, max_findings=None)
    assert len(whole["violations"]) == 13 and "omitted" not in whole  # 12, and the run truncated
    capped = agui_replay.replay(data, max_findings=5)
    assert capped["violations"] == whole["violations"][:5]
    assert capped["omitted"] == {"violations": 8, "warnings": 0, "rules": {"RUN-TRUNCATED": 1, "TEXT-REQUIRES-OPEN": 7}}
    assert capped["outcome"] == whole["outcome"] == "failed"
    assert any("8 more findings" in note for note in capped["notes"])
    automaton = Automaton(max_findings=1)
    returned = [f for line in data.splitlines() for f in automaton.feed_document(line)]
    assert len(returned) == 12 and automaton.findings == returned[:1] and automaton.omitted == 11  # every one returned, one kept


@pytest.mark.parametrize("most", [0, 5, 40, 200])
def test_findings_past_the_cap_are_counted_as_making_them_would(most: int) -> None:
    from collections import Counter

    for name, data in STREAMS.items():
        whole = agui_replay.replay(data, max_findings=None)
        capped = agui_replay.replay(data, max_findings=most)
        found = whole["violations"] + whole["warnings"]
        kept = capped["violations"] + capped["warnings"]
        assert len(kept) == min(most, len(found)), name
        assert capped["outcome"] == whole["outcome"], name
        omitted = Counter(f["rule"] for f in found) - Counter(f["rule"] for f in kept)
        assert capped.get("omitted", {}).get("rules", {}) == dict(omitted), name


@pytest.mark.parametrize("most", [0, 5, 40])
def test_past_the_cap_a_line_that_is_no_object_is_counted_unread(most: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past max_findings a line that is no object is refused without being decoded or explained
    (only counted), in the automaton's bulk loop and in feed_document alike: the same counts,
    the same kept findings, the same outcome as explaining every line."""
    from agui import validation

    data = STREAMS["lines that are no object, among others"]
    lines = [line.strip() for line in data.split(b"\n") if line.strip()]
    whole = Automaton(max_findings=None)
    whole.feed_documents(lines)
    whole.finish()
    explained: list[bytes] = []
    parse = validation.parse_json

    def parse_json(text: Any, *args: Any) -> Any:  # the explaining path's first step
        explained.append(bytes(text))
        return parse(text, *args)

    def unread() -> int:  # lines opening a number, a string, an array or a literal, explained
        return sum(1 for t in explained if t[:1] in (b"-", b'"', b"[", b"t", b"f", b"n") or t[:1].isdigit())

    monkeypatch.setattr(validation, "parse_json", parse_json)
    bulk = Automaton(max_findings=most)
    bulk.feed_documents(lines)
    bulk.finish()
    assert [str(f) for f in bulk.findings] == [str(f) for f in whole.findings[:most]]
    assert bulk.omitted == len(whole.findings) - most
    assert bulk.omitted_rules == dict(Counter(f.rule for f in whole.findings[most:]))
    assert bulk.failed == whole.failed and bulk.index == whole.index
    assert 0 < unread() <= most or most == 0 and unread() == 0  # each made a kept finding: none past the cap
    assert len(explained) > unread()  # objects past the cap still are (their verdict needs it)
    explained.clear()
    fed = Automaton(max_findings=most)
    fed.bulk = True  # as Consumer.feed_documents feeds it: one document at a time
    for line in lines:
        fed.feed_document(line)
    fed.finish()
    assert [str(f) for f in fed.findings] == [str(f) for f in bulk.findings]
    assert (fed.omitted, fed.omitted_rules, fed.failed, fed.index) == (bulk.omitted, bulk.omitted_rules, bulk.failed, bulk.index)
    assert unread() <= most


@pytest.mark.parametrize("options", [{}, {"max_findings": 5}, {"max_findings": 40}, {"max_findings": None}], ids=["default", "5", "40", "all"])
def test_both_bindings_bound_findings_alike(options: dict[str, Any], tmp_path: Path) -> None:
    agreement.require_toolchain()
    found = agreement.compare_streams("agui", list(STREAMS.items()), tmp_path, **options)
    assert found["differences"] == []


# -- error lists ------------------------------------------------------------------------------------

sys.path.insert(0, str(REPO / "fuzz"))
import hostile  # noqa: E402
from agui import DecodeError, codec_json, limits  # noqa: E402


def _unreadable(n: int) -> str:
    """A CUSTOM event whose value holds ``n`` numbers out of range and ``n`` lone surrogates."""
    items = ",".join(f'1e400,"\\ud800{i}"' for i in range(n))
    return f'{{"type":"CUSTOM","name":"n","value":[{items}]}}'


DOCUMENTS = [
    ("250 items of the wrong type", "Event", hostile.bad_numbers(250).decode()),
    ("150 unknown members", "Event", hostile.bad_members(150).decode()),
    ("3 unknown members", "Event", hostile.bad_members(3).decode()),
    ("120 numbers out of range and 120 lone surrogates", "Event", _unreadable(120)),
]


def test_a_decode_error_lists_the_first_max_errors_and_counts_them_all() -> None:
    data = hostile.bad_numbers(250)
    with pytest.raises(DecodeError) as caught:
        codec_json.decode(data)
    assert len(caught.value.errors) == limits.MAX_ERRORS == 100 and caught.value.count == 250
    assert [e.pointer for e in caught.value.errors[:3]] == ["/messages/0", "/messages/1", "/messages/2"]
    assert str(caught.value).startswith("not a valid Event: 250 errors") and str(caught.value).endswith("... and 150 more")
    with pytest.raises(DecodeError) as every:
        codec_json.decode(data, max_errors=None)
    assert every.value.errors[:100] == caught.value.errors and every.value.count == len(every.value.errors) == 250
    with pytest.raises(DecodeError) as five:
        codec_json.Decoder("Event", max_errors=5).decode(data)
    assert five.value.errors == caught.value.errors[:5] and five.value.count == 250
    lenient = codec_json.decode_lenient(hostile.bad_members(150))
    assert len(lenient.warnings) == 100 and lenient.omitted == 50


def test_refused_numbers_and_lone_surrogates_are_listed_in_pointer_order_and_counted() -> None:
    with pytest.raises(DecodeError) as every:
        codec_json.decode(_unreadable(120), max_errors=None)
    with pytest.raises(DecodeError) as capped:
        codec_json.decode(_unreadable(120))
    assert every.value.count == capped.value.count == 240
    assert capped.value.errors == every.value.errors[:100]
    pointers = [e.pointer for e in every.value.errors]
    assert pointers == sorted(pointers)


def test_the_automaton_says_how_many_more_were_stripped() -> None:
    found = Automaton().feed_document(hostile.bad_members(150))
    stripped = [f for f in found if f.rule == "EVENT-UNKNOWN-STRIPPED"]
    assert len(stripped) == 101 and stripped[-1].message == "and 50 more stripped"
    [undecodable] = Automaton().feed_document(hostile.bad_numbers(250))
    assert undecodable.message.endswith("; and 247 more")


@pytest.mark.parametrize("options", [{}, {"max_errors": 5}, {"max_errors": None}], ids=["default", "5", "all"])
def test_both_bindings_cap_error_lists_alike(options: dict[str, Any], tmp_path: Path) -> None:
    agreement.require_toolchain()
    found = agreement.compare_documents("agui", tmp_path, DOCUMENTS, base=False, **options)
    assert found["differences"] == []
    # (not the numbers out of range as a stream: how a first line msgspec refuses is sniffed is
    # one of the bindings' known disagreements, issue 22's cause 2, fixed apart)
    streams = [(name, text.encode() + b"\n") for name, _, text in DOCUMENTS[:3]]
    assert agreement.compare_streams("agui", streams, tmp_path)["differences"] == []


def test_validate_max_errors_in_both_bindings(tmp_path: Path) -> None:
    agreement.require_toolchain()
    import subprocess

    path = tmp_path / "bad.json"
    path.write_bytes(hostile.bad_numbers(30))
    outputs = []
    for target in ([], ["--target", "typescript"]):
        done = subprocess.run(
            [str(REPO / ".venv/bin/specbind"), "validate", "--spec", str(REPO / "spec/agui"), "--json", "--max-errors", "4", *target, str(path)],
            capture_output=True, text=True, cwd=REPO,
        )
        assert done.returncode == 1, done.stderr
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1]
    assert len(outputs[0]["errors"]) == 4 and outputs[0]["omitted"] == {"errors": 26, "warnings": 0}


# -- the consumer extends what it owns in place, and only that --------------------------------------


def test_the_consumer_extends_in_place_only_what_it_made() -> None:
    from agui.consumer import Consumer

    snapshot = {
        "type": "MESSAGES_SNAPSHOT",
        "messages": [{"id": "m", "role": "assistant", "toolCalls": [{"id": "c0", "type": "function", "function": {"name": "f", "arguments": ""}}]}],
    }
    events = [
        RUN, snapshot,
        {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f", "parentMessageId": "m", "metadata": {"a": 1}},
        {"type": "TOOL_CALL_START", "toolCallId": "c2", "toolCallName": "f", "parentMessageId": "m"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{}", "metadata": {"b": 2}},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "[]", "metadata": {"a": 3}},
        {"type": "TEXT_MESSAGE_START", "messageId": "t", "metadata": {"x": 1}},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "t", "delta": "he"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "t", "delta": "llo", "metadata": {"y": 2}},
    ]
    consumer = Consumer()
    for event in events[:2]:
        consumer.feed_document(json.dumps(event))
    came = consumer.projection.messages[0].tool_calls  # the snapshot event's own list
    for event in events[2:]:
        consumer.feed_document(json.dumps(event))
    assert [c.id for c in came] == ["c0"]  # copied before it was extended, never extended itself
    message = consumer.projection.messages[0]
    assert [c.id for c in message.tool_calls] == ["c0", "c1", "c2"]
    assert message.tool_calls[1].function.arguments == "{}[]" and message.tool_calls[1].metadata == {"a": 3, "b": 2}
    start = next(e for e in consumer.delivered if e.type == "TOOL_CALL_START")
    assert start.metadata == {"a": 1}  # merged into a dict of the projection's own
    text = consumer.projection.messages[1]
    assert text.content == "hello" and text.metadata == {"x": 1, "y": 2}


# -- costs: doubling the input at most doubles time and memory ----------------------------------------

sys.path.insert(0, str(REPO / "bench"))
import gc  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from collections.abc import Callable  # noqa: E402

import hostile_probe  # noqa: E402

# Time: the least CPU time of REPEATS runs (others' load counts less in CPU time than in wall
# time, and the least of several is the least disturbed), after a run to warm up. Doubling the
# input may multiply it (or TIME_FLOOR, the larger) by at most TIME_RATIO (a linear cost
# doubles; a quadratic one quadruples), tried up to ATTEMPTS times before it fails. Memory: the allocation peak
# (tracemalloc: exact and repeatable for Python; the kernel's high-water mark above the baseline
# for Node, with MEMORY_SLACK for its garbage collector's own rhythm) may grow by at most
# MEMORY_RATIO. Sizes are chosen so that the quadratic implementations these replaced cost many
# times their linear successors (test_the_doubling_check_fails_a_quadratic_cost proves the
# check red on one).
REPEATS, ATTEMPTS = 5, 3
TIME_RATIO, MEMORY_RATIO = 3.0, 2.5
MEMORY_SLACK = {"python": 256 << 10, "typescript": 12 << 20}
# Node's CPU time counts V8's background compiler and collector threads: below ~30 ms the same
# input's best of REPEATS ranged 9-28 ms between processes, so a smaller time is read as 30 ms
TIME_FLOOR = {"python": 1e-3, "typescript": 0.03}

DOUBLING: list[tuple[str, Callable[[int], bytes], int, str, str]] = [
    # the four shapes of issue 22
    ("state deltas, consumer", hostile.state_deltas, 3_000, "python", "consumer"),
    ("ambiguous chunks, automaton", hostile.ambiguous_chunks, 600, "python", "automaton"),
    ("ambiguous chunks, replay", hostile.ambiguous_chunks, 600, "python", "replay"),
    ("ambiguous chunks, replay", hostile.ambiguous_chunks, 3_000, "typescript", "replay"),
    ("lanes closed at once, replay", hostile.lanes_closed, 3_000, "python", "replay"),
    ("lanes closed at once, replay", hostile.lanes_closed, 6_000, "typescript", "replay"),
    ("bad numbers, strict decode", hostile.bad_numbers, 40_000, "python", "json"),
    ("bad numbers, strict decode", hostile.bad_numbers, 40_000, "typescript", "json"),
    ("nested struct, protobuf decode", hostile.nested_struct, 200_000, "python", "proto"),
    # the worst cases per entry point
    ("copies and tests, consumer", hostile.state_copies, 3_000, "python", "consumer"),
    ("a finding per line, replay", hostile.many_findings, 3_000, "python", "replay"),
    ("a finding per line, replay", hostile.many_findings, 3_000, "typescript", "replay"),
    ("undecodable lines, replay", hostile.many_decode_failures, 20_000, "python", "replay"),
    ("undecodable lines, replay", hostile.many_decode_failures, 20_000, "typescript", "replay"),
    ("lines no two alike, none an event, replay", hostile.unique_garbage, 15_000, "python", "replay"),
    ("lines no two alike, none an event, replay", hostile.unique_garbage, 15_000, "typescript", "replay"),
    ("unknown members, lenient decode", hostile.bad_members, 4_000, "python", "json_lenient"),
    ("unknown members, lenient decode", hostile.bad_members, 4_000, "typescript", "json_lenient"),
    ("numbers out of range, strict decode", hostile.refused_numbers, 20_000, "python", "json"),
    ("many arrays nested 120 deep, strict decode", hostile.deep_units, 400, "python", "json"),
    ("many arrays nested 120 deep, strict decode", hostile.deep_units, 400, "typescript", "json"),
    ("numbers out of range, strict decode", hostile.refused_numbers, 20_000, "typescript", "json"),
    ("unknown fields, lenient protobuf", hostile.unknown_fields, 40_000, "python", "proto_lenient"),
    ("frames with unknown fields, framing", hostile.unknown_field_frames, 3_000, "python", "framing"),
    ("nested list, protobuf decode", hostile.nested_list, 200_000, "python", "proto"),
    ("an event of many data lines, SSE", hostile.sse_lines, 40_000, "python", "sse"),
    ("an event of many data lines, SSE", hostile.sse_lines, 40_000, "typescript", "sse"),
    ("one patch of many operations, JSON Patch", hostile.big_patch, 4_000, "python", "jsonpatch"),
    ("one message of many deltas, consumer", hostile.text_deltas, 4_000, "python", "consumer"),
    ("many calls under one message, consumer", hostile.tool_calls, 2_000, "python", "consumer"),
    ("the last message replaced, consumer", hostile.replaced_last, 1_500, "python", "consumer"),
    ("a long name quoted by every warning, consumer", hostile.long_name_reopened, 200_000, "python", "consumer"),
]


def _python_cost(entry: str, data: bytes) -> tuple[float, int]:
    run = hostile_probe.entry(entry, data)
    run()  # warm up (caches, decoders built on first use)
    times = []
    for _ in range(REPEATS):
        gc.collect()
        # the interpreter's cycle collector runs on a schedule of allocations, a step function
        # of the size that blurs a small input's doubling: timed without it, what is timed is
        # the code's own cost (bench_hostile.py's full-size figures include it)
        gc.disable()
        try:
            started = time.process_time()
            run()
            times.append(time.process_time() - started)
        finally:
            gc.enable()
    gc.collect()
    tracemalloc.start()
    try:
        run()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return min(times), peak


def _typescript_cost(entry: str, data: bytes, folder: Path) -> tuple[float, int]:
    path = folder / f"input-{len(data)}"
    path.write_bytes(data)
    done = subprocess.run(
        ["node", "--expose-gc", str(REPO / "bench" / "hostile_probe.mjs"), str(agreement.built("agui")), entry, str(path), "--repeat", str(REPEATS)],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    return float(found["cpu"]), int(found["peak"] or 0)


def doubles(cost: Callable[[bytes], tuple[float, int]], build: Callable[[int], bytes], n: int, binding: str) -> list[str]:
    """Why doubling the input more than doubles its cost (empty: it does not), trying up to
    ATTEMPTS times before believing a slow time."""
    small, large = build(n), build(2 * n)
    problems: list[str] = []
    for _ in range(ATTEMPTS):
        (t1, m1), (t2, m2) = cost(small), cost(large)
        problems = []
        if t2 > TIME_RATIO * max(t1, TIME_FLOOR[binding]):
            problems.append(f"time {t1:.4f} s -> {t2:.4f} s ({t2 / max(t1, 1e-9):.2f}x for 2x the input)")
        if m2 > MEMORY_RATIO * m1 + MEMORY_SLACK[binding]:
            problems.append(f"memory {m1:,} -> {m2:,} bytes ({m2 / max(m1, 1):.2f}x for 2x the input)")
        if not problems:
            return []
    return problems


@pytest.mark.parametrize("name,build,n,binding,entry", DOUBLING, ids=[f"{d[0]} ({d[3]})" for d in DOUBLING])
def test_doubling_the_input_at_most_doubles_the_cost(name: str, build: Callable[[int], bytes], n: int, binding: str, entry: str, tmp_path: Path) -> None:
    if binding == "typescript":
        agreement.require_toolchain()
        problems = doubles(lambda data: _typescript_cost(entry, data, tmp_path), build, n, binding)
    else:
        problems = doubles(lambda data: _python_cost(entry, data), build, n, binding)
    assert not problems, f"{name} ({binding} {entry}): " + "; ".join(problems)


def _quadratic(data: bytes) -> tuple[float, int]:
    """A deliberately quadratic reader, as the ambiguous-chunk finding was: each line lists
    every line before it."""
    started = time.process_time()
    tracemalloc.start()
    seen: list[bytes] = []
    kept = []
    for line in data.split(b"\n"):
        seen.append(line)
        kept.append(b", ".join(seen))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return time.process_time() - started, peak


def test_the_doubling_check_fails_a_quadratic_cost() -> None:
    problems = doubles(_quadratic, hostile.many_findings, 1_500, "python")
    assert any(p.startswith("time") for p in problems) and any(p.startswith("memory") for p in problems)


# -- the fast path: checks that cannot fail on a document cost nothing --------------------------------


def test_checks_that_cannot_fail_on_a_document_are_not_made(monkeypatch: pytest.MonkeyPatch) -> None:
    """A short document without a backslash never reaches the lone-surrogate or the depth
    check; a long one whose any-JSON members hold no array or object skips the depth scan; the
    checks still refuse what they must (issue 22, item 5)."""
    calls: list[str] = []

    def spy(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def called(*args: Any) -> Any:
            calls.append(name)
            return real(*args)

        return called

    monkeypatch.setattr(codec_json, "lone_surrogate_escape", spy("surrogates", codec_json.lone_surrogate_escape))
    monkeypatch.setattr(codec_json, "too_deep", spy("depth", codec_json.too_deep))
    short = b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hello"}'
    codec_json.decode(short)
    codec_json.decode_lenient(short)
    long = b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"' + b"x" * 400 + b'","rawEvent":"scalar"}'
    codec_json.decode(long)
    assert calls == []
    codec_json.decode(b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a\\nb"}')
    assert calls == (["surrogates"] if codec_json._LONE_READ else [])  # msgspec 0.23 refuses them itself
    deep = b"[" * 128 + b"]" * 128  # 129 with the event's own object
    with pytest.raises(DecodeError) as caught:
        codec_json.decode(b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","rawEvent":' + deep + b"}")
    assert caught.value.errors[0].keyword == "depth" and calls[-1] == "depth"
    with pytest.raises(DecodeError):
        codec_json.decode(b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\\ud800"}')


@pytest.mark.parametrize("package", ["agui", "harness_runtime"])
def test_closed_classes_are_not_tracked_by_the_collector_and_open_ones_keep_their_members(package: str) -> None:
    """Closed classes are made untracked (msgspec gc=False: a decode costs fewer steps), open
    ones keep the default, which their ``__dict__`` (the undeclared members) needs; a twin has
    its class's setting, so that it can become one (``_adopt`` assigns ``__class__``)."""
    import gc
    import importlib

    import msgspec

    models = importlib.import_module(f"{package}.models")
    classes = [c for c in vars(models).values() if isinstance(c, type) and issubclass(c, msgspec.Struct) and c.__module__ == models.__name__]
    public = [c for c in classes if not c.__name__.startswith("_")]
    assert public and all(c.__struct_config__.gc is (c in models.OPEN) for c in public)
    assert all(c.__struct_config__.dict is (c in models.OPEN) for c in public)
    for twin, of in models.TWINS.items():
        assert twin.__struct_config__.gc is of.__struct_config__.gc
    # one holding a list (which a tracked instance would be tracked for): not tracked
    closed = [c for c in public if c not in models.OPEN and msgspec.structs.fields(c)]
    assert closed or package != "agui"  # the Harness Runtime API's objects are all open
    for cls in closed[:1]:
        assert not gc.is_tracked(cls(**{f.name: [] for f in msgspec.structs.fields(cls)}))


def test_a_model_where_any_json_may_be_is_looked_into_before_the_text_is_scanned(monkeypatch: pytest.MonkeyPatch) -> None:
    """A long document whose any-JSON member holds a model bounded by its class (a run's
    success outcome: the outcome's union holds an unbounded member too) skips the depth scan;
    the interrupt outcome holds a list, which the scan decides, and refuses past the limit."""
    calls: list[str] = []
    real = codec_json.too_deep
    monkeypatch.setattr(codec_json, "too_deep", lambda data: calls.append("depth") or real(data))
    head = b'{"type":"RUN_FINISHED","threadId":"' + b"[" * 300 + b'","runId":"r","outcome":'  # brackets in text: the count alone would scan
    value = codec_json.decode(head + b'{"type":"success","pendingToolCallIds":["a","b"]}}')
    assert type(value.outcome).__name__ == "RunFinishedSuccessOutcome" and calls == []
    nested = b'{"type":"interrupt","interrupts":[{"id":"i","reason":"r","metadata":{"a":%s}}]}}'
    for depth, refused in ((123, False), (124, True)):  # 5 levels above it: event, outcome, list, interrupt, metadata
        document = head + nested % (b"[" * depth + b"]" * depth)
        if refused:
            with pytest.raises(DecodeError) as caught:
                codec_json.decode(document)
            assert caught.value.errors[0].keyword == "depth"
        else:
            assert type(codec_json.decode(document).outcome).__name__ == "RunFinishedInterruptOutcome"
    assert calls and set(calls) == {"depth"}


def test_a_definition_read_through_its_union_refuses_the_other_members_on_every_path() -> None:
    """A definition read through its union (the ``_looking`` closures) refuses another member's
    document, short or long, bytes or str, in strict, lenient and fast reading; the union itself
    reads it. The module's decode finds the same shared Decoder by name and by class, an error
    list of its own with max_errors, and nothing for what is not a definition (issue 22, item 5)."""
    own = b'{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}'
    member = codec_json.decoder("TextMessageContentEvent")
    for other in (b'{"type":"TEXT_MESSAGE_END","messageId":"m"}', b'{"type":"TEXT_MESSAGE_END","messageId":"' + b"m" * 400 + b'"}'):
        for data in (other, other.decode()):
            with pytest.raises(DecodeError):
                member.decode(data)
            with pytest.raises(DecodeError):
                member.decode_lenient(data)
            assert type(codec_json.decode(data)).__name__ == "TextMessageEndEvent"
        assert member.fast(other) is codec_json.FULL
    value = member.decode(own)
    assert type(value).__name__ == "TextMessageContentEvent" and member.fast(own) == value == member.decode_lenient(own.decode()).value
    assert codec_json.decode(own, type(value)) == codec_json.decode(own, "TextMessageContentEvent") == value
    assert codec_json.decoder("Event") is codec_json.decoder("Event") is not codec_json.decoder("Event", max_errors=1)
    with pytest.raises(DecodeError) as caught:
        codec_json.decode(b'{"type":"TEXT_MESSAGE_CONTENT"}', max_errors=1)
    assert len(caught.value.errors) == 1 and caught.value.count == 2
    for wrong in (("Event", 1), "NoSuchDefinition"):
        with pytest.raises(ValueError):
            codec_json.decode(own, wrong)  # type: ignore[arg-type]


def test_a_long_document_in_a_memoryview_is_read_as_its_bytes() -> None:
    """The checks after the typed read take bytes: a memoryview long enough to be looked at is
    read as its bytes (was: AttributeError from the depth check), and refused when too deep."""
    long = b'{"type":"STATE_SNAPSHOT","snapshot":{"a":[' + b"1," * 200 + b"1]}}"
    deep = b'{"type":"STATE_SNAPSHOT","snapshot":' + b"[" * 200 + b"]" * 200 + b"}"
    events = codec_json.decoder("Event")
    assert events.decode(memoryview(long)) == events.decode_lenient(memoryview(long)).value == events.decode(long)
    assert events.fast(memoryview(long)) is codec_json.FULL  # the full path decides
    for read in (events.decode, events.decode_lenient):
        with pytest.raises(DecodeError) as caught:
            read(memoryview(deep))
        assert caught.value.errors[0].keyword == "depth"
