"""Kinds of result the answer chooses, and envelopes whose payload must carry members (issue 24's
needs from the two-party engine), on a variant of Courier (tests/data/courier):

- `results: * Later as later when answer present later`: a result any request may get, told by
  the answer itself, not by its request (as a protocol whose "come back later" answer replaces
  any request's result); `fetch FetchReply as cached when answer ... and request params.name ==
  "cached"`: one told by both. Tried before the request's choice; the event type names it
  (`callee fetch:later`), and a result that is that kind but not of its definition is mistyped.
- the envelope's own payload definition (`Answer.ok`, a `Reply`) requires `meta` here: a
  result's envelope is checked whole, never with `{}` standing in for the payload (which such a
  definition refuses), so a conformant result passes and one without `meta` is refused.
- `check ... each MAP`: a rule over every value of a map the answer carries (`Later.asks`, each
  naming an op the callee will ask the caller: none the caller did not declare it takes).
- a notification one party sends naming the *other* party's request by its id (`abort` from the
  callee names the caller's open fetch: `track abort from callee by params.target to ref`), next
  to the same notification naming the sender's own (`cancel abort from caller ...`), and a check
  on what the named request was (`request op == "fetch"`).

Both bindings judge every transcript here alike."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from generator.binding import load_binding
from generator.errors import SpecError
from generator.products import load_ir
from generator.rules.load import load_rules

from conftest import REPO, run_cli

COURIER = REPO / "tests" / "data" / "courier"
LATER = "results\n  * Later as later when answer present later\n"
ABORTS = "  cancel abort from caller by params.target else C-ABORT-UNKNOWN\n  track abort from callee by params.target to ref else C-ABORT-UNKNOWN\n"
EACH = ('rule C-ASK-EACH MUST NOT ref "courier.md" "Asking" message "ask {index} to a caller without the asking feature ({declared})"\n'
        'check C-ASK-EACH on fetch:later probe:later each asks\n  expect op != "ask" or present fact caller-features.asking\n')
CACHED = "  fetch FetchReply as cached when answer present body and request params.name == \"cached\"\n  fetch FetchReply\n"


def variant(folder: Path, rules_edit: tuple[str, str] | None = None) -> Path:
    """Courier with the `Later` result for any request, the `cached` fetch and a `Reply` (every
    result's envelope payload) that requires `meta`."""
    spec = folder / "courier"
    shutil.copytree(COURIER, spec)
    schema = json.loads((spec / "schema.json").read_text(encoding="utf-8"))
    asks = {"type": "object", "additionalProperties": {"type": "object", "properties": {"op": {"type": "string"}}, "required": ["op"]}}
    schema["$defs"]["Later"] = {"type": "object", "properties": {"later": {"type": "string"}, "meta": {"type": "object"}, "asks": asks}, "required": ["later", "meta"]}
    schema["$defs"]["Reply"]["required"] = ["meta"]
    (spec / "schema.json").write_text(json.dumps(schema, indent=1), encoding="utf-8")
    rules = (spec / "courier.rules").read_text(encoding="utf-8")
    rules = rules.replace("results\n", LATER, 1).replace("  fetch FetchReply\n", CACHED, 1)
    rules = rules.replace("  cancel abort by params.target else C-ABORT-UNKNOWN\n", ABORTS, 1)
    rules = rules.replace('''check C-ABORT-HELLO on abort from caller\n  expect request op != "hello"\n''',
                          '''check C-ABORT-HELLO on abort from caller\n  expect request op != "hello"\ncheck C-ABORT-HELLO on abort from callee\n  expect request op == "fetch"\n''', 1)
    rules += EACH
    if rules_edit is not None:
        assert rules_edit[0] in rules
        rules = rules.replace(*rules_edit)
    (spec / "courier.rules").write_text(rules, encoding="utf-8")
    # packages of their own names: Courier's own are imported in this process by other tests
    binding = (spec / "binding.toml").read_text(encoding="utf-8")
    binding = binding.replace('package = "courier"', 'package = "courier_answers"').replace('package = "courier-ts"', 'package = "courier-answers-ts"')
    (spec / "binding.toml").write_text(binding, encoding="utf-8")
    return spec


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("answers")
    spec = variant(root)
    out = root / "out"
    result = run_cli("generate", "--spec", spec, "--out", out)
    assert result.exit_code == 0, result.output
    return spec, out


def entry(sender: str, **message: Any) -> dict[str, Any]:
    return {"from": sender, "message": {"v": "1", **message}}


META = {"meta": {}}
GREETING = [
    entry("caller", ref=1, op="hello", params={"edition": "1", "features": {}}),
    entry("callee", ref=1, ok={"edition": "1", "features": {"tickets": {}}, **META}),
    entry("caller", op="ready"),
]


def judged(built: tuple[Path, Path], tmp_path: Path, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The Python package's report, after checking the TypeScript package's is the same."""
    spec, out = built
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    reports = []
    for target in ([], ["--target", "typescript"]):
        result = run_cli("replay", "--spec", spec, "--out", out, "--json", *target, path)
        assert result.exit_code in (0, 1), result.output
        reports.append(json.loads(result.stdout))
    python, typescript = reports
    assert python == typescript
    return python


def test_the_answer_chooses_its_kind_of_result(built: tuple[Path, Path], tmp_path: Path) -> None:
    pytest.importorskip("typescript_agreement").require_toolchain()
    session = GREETING + [
        entry("caller", ref=2, op="fetch", params={"name": "a"}),
        entry("callee", ref=2, ok={"later": "in a minute", **META}),  # any request may get it
        entry("caller", ref=3, op="probe"),
        entry("callee", ref=3, ok={"later": "soon", **META}),
        entry("caller", ref=4, op="fetch", params={"name": "cached"}),
        entry("callee", ref=4, ok={"body": "b", **META}),  # chosen by the answer and its request
        entry("caller", ref=5, op="fetch", params={"name": "a"}),
        entry("callee", ref=5, ok={"body": "b", **META}),  # the request's choice
        entry("caller", ref=6, op="fetch", params={"name": "a", "ticket": {}}),
        entry("callee", ref=6, ok={"ticket": {"id": "k", "state": "running"}, **META}),  # the request's `when`
    ]
    report = judged(built, tmp_path, session)
    assert report["outcome"] == "completed" and report["violations"] == report["warnings"] == [], report
    types = report["types"]
    assert types["callee fetch:later"] == 1 and types["callee probe:later"] == 1
    assert types["callee fetch:cached"] == 1 and types["callee fetch:result"] == 1 and types["callee fetch:ticket"] == 1


def test_a_result_of_the_answers_kind_but_not_its_definition_is_mistyped(built: tuple[Path, Path], tmp_path: Path) -> None:
    pytest.importorskip("typescript_agreement").require_toolchain()
    session = GREETING + [
        entry("caller", ref=2, op="probe"),
        entry("callee", ref=2, ok={"later": 5, **META}),  # `present later` holds: a Later, badly
    ]
    report = judged(built, tmp_path, session)
    (finding,) = report["violations"]
    assert finding["rule"] == "C-MISTYPED" and finding["type"] == "callee probe:later"
    assert "is not a Later" in finding["message"] and "/later" in finding["message"]


def test_an_envelope_whose_payload_must_carry_members_is_checked_whole(built: tuple[Path, Path], tmp_path: Path) -> None:
    pytest.importorskip("typescript_agreement").require_toolchain()
    session = GREETING + [
        entry("caller", ref=2, op="fetch", params={"name": "a"}),
        entry("callee", ref=2, ok={"body": "b", **META}),  # carries what the envelope's Reply requires
        entry("caller", ref=3, op="fetch", params={"name": "a"}),
        entry("callee", ref=3, ok={"body": "b"}),  # a FetchReply, but no Reply: the envelope refuses it
    ]
    report = judged(built, tmp_path, session)
    (finding,) = report["violations"]
    assert finding["rule"] == "C-DECODE" and finding["index"] == 6 and "meta" in finding["message"], finding
    assert report["types"]["callee fetch:result"] == 1


@pytest.mark.parametrize(
    "edit,message",
    [
        ((LATER, "results\n  * Later as later when present later\n"), "`*` answers every request: its kind of result is chosen by the answer"),
        ((LATER, "results\n  * Later as later\n"), "`*` answers every request"),
        ((LATER, "results\n  * Later when answer present later\n"), "hello's result 'result' is also the name of `*`'s (line 17)"),
        ((LATER, "results\n  * Later as later when answer present nope\n"), "has no field 'nope'"),
        ((LATER, "results\n  * Nothing as later when answer present later\n"), "unknown definition 'Nothing'"),
        ((EACH, EACH.replace("each asks", "each later")), "is neither an array nor a map: `each` walks an array's items or a map's values"),
        ((CACHED, "  fetch FetchReply as cached when answer present body and request params.nam == \"cached\"\n  fetch FetchReply\n"), "has no field 'nam'"),
    ],
)
def test_mistakes_in_answer_chosen_results_are_located(tmp_path: Path, edit: tuple[str, str], message: str) -> None:
    spec = variant(tmp_path, edit)
    binding = load_binding(spec)
    with pytest.raises(SpecError) as caught:
        load_rules(binding, load_ir(binding))
    assert message in str(caught.value), str(caught.value)
    assert caught.value.file.endswith("courier.rules") and caught.value.where.startswith("line ")


def test_a_notification_names_the_other_partys_request(built: tuple[Path, Path], tmp_path: Path) -> None:
    pytest.importorskip("typescript_agreement").require_toolchain()
    session = GREETING + [
        entry("caller", ref=2, op="fetch", params={"name": "a"}),
        entry("callee", op="abort", params={"target": 2}),  # the caller's open fetch
        entry("callee", op="abort", params={"target": 9}),  # no request of the caller
        entry("caller", ref=3, op="probe"),
        entry("callee", op="abort", params={"target": 3}),  # an open request, but not a fetch
        entry("callee", ref=3, ok=META),
        entry("caller", op="abort", params={"target": 2}),  # the caller's own, as before
        entry("callee", ref=2, ok={"body": "b", **META}),
    ]
    report = judged(built, tmp_path, session)
    found = [(f["rule"], f["index"]) for f in report["violations"] + report["warnings"]]
    assert found == [("C-ABORT-UNKNOWN", 5), ("C-ABORT-HELLO", 7), ("C-ABORT-ANSWERED", 10)], report
    assert "no outstanding request of caller carries it" in report["violations"][0]["message"]


def test_a_check_walks_every_value_of_a_map(built: tuple[Path, Path], tmp_path: Path) -> None:
    pytest.importorskip("typescript_agreement").require_toolchain()
    asks = {"b": {"op": "ask"}, "a": {"op": "probe"}, "10": {"op": "ask"}, "9": {"op": "probe"}}
    session = GREETING + [
        entry("caller", ref=2, op="fetch", params={"name": "a"}),
        entry("callee", ref=2, ok={"later": "soon", "asks": asks, **META}),
    ]
    report = judged(built, tmp_path, session)
    # the caller declared no asking: each ask is a finding, named by its member, in name order
    assert [(f["rule"], f["index"]) for f in report["violations"]] == [("C-ASK-EACH", 4), ("C-ASK-EACH", 4)], report
    assert [f["message"].split(" to ")[0] for f in report["violations"]] == ["ask 10", "ask b"], report
    declared = [dict(g, message={**g["message"], "params": {"edition": "1", "features": {"asking": {}}}}) if n == 0 else g for n, g in enumerate(session)]
    assert judged(built, tmp_path, declared)["violations"] == []


NARROWED = ('rule C-CALLEE-CALLS MUST NOT ref "courier.md" "Calls" message "{type}: the callee calls ({detail})"\n'
            'rule C-CALLER-OPEN MUST ref "courier.md" "Answers" message "{detail}"\n')


def test_an_exchanges_rule_narrowed_to_a_kind_of_message_and_its_sender(tmp_path: Path) -> None:
    """`unknown-method request from callee R` beside `unknown-method R2`: a call of a method
    neither party has, made by the callee, is R's; the same method as a notification, or from the
    caller, stays R2's. `open-at-end from caller R3`: the caller's unanswered calls are R3's, the
    callee's the plain slot's. The most specific declared wins, in both bindings."""
    pytest.importorskip("typescript_agreement").require_toolchain()
    spec = variant(tmp_path, ("  unknown-method C-METHOD\n", "  unknown-method C-METHOD\n  unknown-method request from callee C-CALLEE-CALLS\n  open-at-end from caller C-CALLER-OPEN\n"))
    rules = (spec / "courier.rules").read_text(encoding="utf-8")
    (spec / "courier.rules").write_text(rules.replace("rule C-DECODE ", NARROWED + "rule C-DECODE ", 1), encoding="utf-8")
    # packages of their own names: the variant's are imported in this process by the tests above
    binding = (spec / "binding.toml").read_text(encoding="utf-8").replace('"courier_answers"', '"courier_narrowed"').replace('"courier-answers-ts"', '"courier-narrowed-ts"')
    (spec / "binding.toml").write_text(binding, encoding="utf-8")
    out = tmp_path / "out"
    assert run_cli("generate", "--spec", spec, "--out", out).exit_code == 0
    session = GREETING + [
        entry("callee", ref=7, op="launch"),  # a call of a method no party has, from the callee
        entry("callee", op="launch"),  # the same as a notification
        entry("caller", ref=8, op="launch"),  # from the caller
        entry("callee", ref=9, op="probe"),  # the callee's call of the caller's method, unanswered
        entry("caller", ref=10, op="probe"),  # the caller's, unanswered
    ]
    report = judged((spec, out), tmp_path, session)
    found = [(f["rule"], f["index"]) for f in report["violations"] + report["warnings"]]
    assert sorted(found, key=lambda f: (f[1], f[0])) == [("C-CALLEE-CALLS", 3), ("C-METHOD", 4), ("C-METHOD", 5), ("C-CALLER-OPEN", 7), ("C-OPEN", 7)], found
    # a qualifier given twice, or a kind that is none, is a located error
    for edit, message in ((("  unknown-method C-METHOD\n", "  unknown-method from callee C-METHOD\n  unknown-method from callee C-METHOD\n"), "`unknown-method callee` is given twice"),
                          (("  unknown-method C-METHOD\n", "  unknown-method from nobody C-METHOD\n"), "unknown party 'nobody'")):
        bad = variant(tmp_path / message[:8].replace(" ", "_").replace("`", ""), edit)
        result = run_cli("lint", "--spec", bad)
        assert result.exit_code != 0 and message in result.output and "courier.rules" in result.output, result.output
