"""The rules DSL: every mistake in a rules file stops with file:line:column and says what is
wrong; the real AG-UI rules file lints clean; the compiled tables say what the file says."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from generator.errors import SpecError
from generator.products import load_ir
from generator.binding import load_binding
from generator.rules.load import load_rules

from conftest import SPEC_AGUI, run_cli

RULES = (SPEC_AGUI / "lifecycle.rules").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def agui_ir():  # type: ignore[no-untyped-def]
    return load_ir(load_binding(SPEC_AGUI))


def compile_text(tmp_path: Path, text: str, ir):  # type: ignore[no-untyped-def]
    spec = tmp_path / "agui"
    if not spec.exists():
        shutil.copytree(SPEC_AGUI, spec, ignore=shutil.ignore_patterns("conformance", "fixtures", "templates"))
        toml = (spec / "binding.toml").read_text()
        toml = re.sub(r'^(fixtures|conformance|templates) = .*$', "", toml, flags=re.M)
        (spec / "binding.toml").write_text(toml)
    (spec / "lifecycle.rules").write_text(text, encoding="utf-8")
    return load_rules(load_binding(spec), ir)


def error(tmp_path: Path, text: str, ir) -> SpecError:  # type: ignore[no-untyped-def]
    with pytest.raises(SpecError) as caught:
        compile_text(tmp_path, text, ir)
    assert caught.value.file.endswith("lifecycle.rules")
    return caught.value


def line_of(text: str, needle: str, last: bool = False) -> int:
    found = [i for i, line in enumerate(text.splitlines(), start=1) if needle in line]
    return found[-1] if last else found[0]


def test_agui_rules_lint_clean(agui_ir, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    compiled = compile_text(tmp_path, RULES, agui_ir)
    assert compiled is not None
    assert len(compiled.ast.rules) == len(re.findall(r"^rule ", RULES, flags=re.M))
    table = compiled.tables["machine"]["table"]
    assert table["idle"]["TEXT_MESSAGE_START"]["fail"] == "RUN-FIRST-EVENT"
    assert table["idle"]["RUN_STARTED"]["target"] == "active"
    assert table["finished"]["RUN_ERROR"]["target"] == "failed"
    assert table["failed"]["RUN_ERROR"]["fail"] == "RUN-AFTER-ERROR"
    # chunk events never reach the machine: their expansions do
    assert "TEXT_MESSAGE_CHUNK" not in table["active"]


@pytest.mark.parametrize(
    "change,needle,message",
    [
        (("events Event by type", "events Event by kind"), "events Event by kind", "not a union discriminated by 'kind'"),
        (("on TEXT_MESSAGE_START in open fail", "on TEXT_MESSAGE_BEGIN in open fail"), "TEXT_MESSAGE_BEGIN", "unknown event type 'TEXT_MESSAGE_BEGIN'"),
        (("entity text key messageId", "entity text key msgId"), "on TEXT_MESSAGE_START in absent closed -> open", "has no field 'msgId'"),
        (("rule TEXT-REQUIRES-OPEN MUST NOT", "rule TEXT-START-NOT-OPEN MUST NOT"), "rule TEXT-START-NOT-OPEN MUST NOT ref \"basic/patterns/streaming.mdx\" \"Open, content, close\"\n  message \"{type}", "duplicate rule ID"),
        (("fail RUN-AFTER-ERROR", "fail RUN-AFTER-ERRORS"), "RUN-AFTER-ERRORS", "unknown rule 'RUN-AFTER-ERRORS'"),
        (("outcome.type != \"cancelled\"", "outcome.type != \"canceled\""), "canceled", "is never 'canceled'"),
        (("expect totalTokens == inputTokens", "expect totalTokenz == inputTokens"), "totalTokenz", "no field 'totalTokenz'"),
        (("rule RUN-FIRST-EVENT MUST ref", "rule RUN-FIRST-EVENT MUSTN'T ref"), "MUSTN'T", "unexpected character"),
        (("rule RUN-FIRST-EVENT MUST ref", "rule RUN-FIRST-EVENT OUGHT ref"), "OUGHT", "unknown level 'OUGHT'"),
        (("require closed text tool", "require closed text tools"), "require closed text tools", "unknown entity 'tools'"),
        (("on RUN_STARTED in active fail", "on RUN_STARTED in busy fail"), "in busy fail", "unknown state 'busy'"),
        (("\n  RAW CUSTOM REASONING_ENCRYPTED_VALUE", "\n  RAW REASONING_ENCRYPTED_VALUE"), "events Event by type", "neither handled nor passed through: CUSTOM"),
        (("on TEXT_MESSAGE_END in open -> closed", "on TEXT_MESSAGE_CHUNK in open -> closed"), "on TEXT_MESSAGE_CHUNK in open", "expanded before any machine sees it"),
        (("retired THINKING_END as", "retired TEXT_MESSAGE_END as"), "retired TEXT_MESSAGE_END as", "is an event type of the schema: it is not retired"),
        (("set messageId new thinking\n", "set msgId new thinking\n"), "set msgId new thinking", "REASONING_START has no field 'msgId'"),
        (('set role "reasoning"', 'set role "assistant"'), 'set role "assistant"', "cannot be 'assistant'"),
        (("outlives-run closed", "outlives-run finished"), "entity tool key toolCallId", "outlives-run 'finished' is not a state of entity tool"),
        (("on-retired EVENT-RETIRED\n", ""), "retired THINKING_START as", "retired shapes need `on-retired RULE`"),
        (("expect totalTokens == inputTokens + outputTokens", "expect totalTokens in inputTokens"), "expect totalTokens in inputTokens", "'inputTokens' is not an array: `in` looks for a value among"),
        (("expect totalTokens == inputTokens", "expect totalTokens in inputTokens"), "expect totalTokens in inputTokens", "the right side of `in` is no field path"),
        # a message template: a misspelt placeholder printed `?`, a lone brace crashed the automaton
        (("RUN_ERROR, not {type}", "RUN_ERROR, not {tpye}"), "not {tpye}", "rule RUN-FIRST-EVENT: unknown placeholder '{tpye}'"),
        (("RUN_ERROR, not {type}", "RUN_ERROR, not {type} {"), "not {type} {", "rule RUN-FIRST-EVENT: a lone '{'"),
        (("RUN_ERROR, not {type}", "RUN_ERROR, not {type:>9}"), "not {type:>9}", "unknown placeholder '{type:>9}'"),
        (("initial idle\n", "initial idle\n  initial active\n"), "initial active", "`initial` given twice in machine run (first on line"),
        # a check fills {actual} and {expected} for a comparison only: elsewhere they printed `?`
        (("result should be absent", "result {actual} should be absent"), "check RUN-CANCELLED-RESULT",
         "rule RUN-CANCELLED-RESULT's message names {actual}, which a check fills for a comparison only"),
        (("interrupt ids repeat within the run: {ids}", "interrupt ids repeat within the run: {ids} ({kind})"), "check INTERRUPT-ID-UNIQUE",
         "rule INTERRUPT-ID-UNIQUE's message names {kind}, which a check never fills"),
    ],
    ids=[
        "wrong-discriminator", "unknown-event", "unknown-key-field", "duplicate-rule", "unknown-rule",
        "enum-value-that-does-not-exist", "unknown-field-in-expression", "bad-character", "unknown-level",
        "unknown-entity", "unknown-state", "unhandled-event-type", "chunk-in-entity",
        "retired-type-is-current", "retired-sets-unknown-field", "retired-value-not-admitted", "outlives-unknown-state",
        "retired-without-on-retired", "in-something-that-is-no-array", "in-no-path", "message-unknown-placeholder", "message-lone-brace", "message-format-spec", "initial-twice",
        "check-message-actual-without-comparison", "check-message-never-filled",
    ],
)
def test_mistakes_are_located(agui_ir, tmp_path: Path, change: tuple[str, str], needle: str, message: str) -> None:  # type: ignore[no-untyped-def]
    old, new = change
    assert old in RULES
    text = RULES.replace(old, new, 1)
    err = error(tmp_path, text, agui_ir)
    assert message in err.message, err
    m = re.match(r"line (\d+) column (\d+)", err.where)
    assert m, err.where
    # a duplicate is reported where it is declared again
    assert int(m.group(1)) == line_of(text, needle.split("\n")[0], last="duplicate" in message), err


def test_unreachable_state(agui_ir, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = RULES.replace("states idle active finished failed", "states idle active finished failed limbo")
    text = text.replace("  on * in failed fail RUN-AFTER-ERROR\n", "  on * in failed fail RUN-AFTER-ERROR\n  on * in limbo -> limbo\n")
    err = error(tmp_path, text, agui_ir)
    assert "unreachable state 'limbo'" in err.message


def test_undecided_state(agui_ir, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = RULES.replace("  on * in finished fail RUN-AFTER-CLOSE\n", "")
    text = text.replace("rule RUN-AFTER-CLOSE", "rule RUN-AFTER-CLOSE-UNUSED")
    err = error(tmp_path, text, agui_ir)
    assert "does not say what happens on every event" in err.message or "declared but no transition" in err.message


def test_unused_rule(agui_ir, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = RULES + '\nrule NEVER-USED SHOULD ref "x" "y" message "z"\n'
    err = error(tmp_path, text, agui_ir)
    assert "NEVER-USED is declared but" in err.message
    assert err.where.startswith(f"line {line_of(text, 'NEVER-USED')} ")


def test_unterminated_block_and_string(agui_ir, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = RULES.replace("  at-end in active fail RUN-TRUNCATED\nend\n", "  at-end in active fail RUN-TRUNCATED\n")
    assert "block has no matching 'end'" in error(tmp_path, text, agui_ir).message
    text = RULES.replace('message "a stream begins', 'message "a stream begins', 1).replace(
        'not {type}"\n', "not {type}\n", 1
    )
    assert "unterminated string" in error(tmp_path, text, agui_ir).message


def test_cli_lint(tmp_path: Path) -> None:
    result = run_cli("lint", "--spec", SPEC_AGUI)
    assert result.exit_code == 0, result.output
    assert "lifecycle.rules: ok" in result.output and "passed through" in result.output
    spec = tmp_path / "agui"
    shutil.copytree(SPEC_AGUI, spec)
    (spec / "lifecycle.rules").write_text(RULES.replace("entity text key messageId", "entity text key msgId"))
    result = run_cli("lint", "--spec", spec)
    assert result.exit_code == 2
    assert re.search(r"error: .*lifecycle\.rules: line \d+ column \d+: .*msgId", result.output), result.output
    assert "Traceback" not in result.output


HARNESS = SPEC_AGUI.parent / "harness-runtime"
HARNESS_RULES = (HARNESS / "lifecycle.rules").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "change,needle,message",
    [
        (("document ArtifactList artifacts id", "document Artifact artifacts id"), "listing artifacts", "Artifact has no field 'artifacts'"),
        (("document ArtifactList artifacts id", "document ArtifactList artifacts key"), "listing artifacts", "Artifact has no field 'key'"),
        (("created-by artifact.created data", "created-by action.required data"), "listing artifacts", "is not what ArtifactList.artifacts lists"),
        (("  unmatched HR-ARTIFACT-LIST-UNMATCHED\n", ""), "listing artifacts", "needs `unmatched RULE`"),
        (("  created-by artifact.created data\n", ""), "listing artifacts", "needs `created-by`"),
    ],
    ids=["document-without-the-list", "item-without-the-id", "created-by-another-type", "no-unmatched-rule", "no-created-by"],
)
def test_listing_mistakes_are_located(tmp_path: Path, change: tuple[str, str], needle: str, message: str) -> None:
    old, new = change
    assert old in HARNESS_RULES
    spec = tmp_path / "harness"
    shutil.copytree(HARNESS, spec, ignore=shutil.ignore_patterns("templates"))
    (spec / "binding.toml").write_text(re.sub(r"^templates = .*$", "", (spec / "binding.toml").read_text(), flags=re.M))
    text = HARNESS_RULES.replace(old, new, 1)
    (spec / "lifecycle.rules").write_text(text, encoding="utf-8")
    binding = load_binding(spec)
    with pytest.raises(SpecError) as caught:
        load_rules(binding, load_ir(binding))
    assert message in caught.value.message, caught.value
    assert caught.value.where.startswith(f"line {line_of(text, needle)} "), caught.value


def test_a_comparison_check_may_show_its_sides(agui_ir, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = RULES.replace("usage entry {index}: totalTokens is not", "usage entry {index}: {field} {actual} is not {expected} ({detail});", 1)
    assert text != RULES
    compile_text(tmp_path, text, agui_ir)  # lints clean


@pytest.mark.usefixtures("in_repo")
@pytest.mark.parametrize("target", [[], ["--target", "typescript"]], ids=["python", "typescript"])
def test_a_comparison_check_fills_its_message(tmp_path: Path, target: list[str]) -> None:
    """MCP 2026-07-28's CANCEL-SERVER-LISTEN check (`expect request method ==
    "subscriptions/listen"`) shares its rule with a track that fills {detail}: the check's finding
    ended `...of the client: ?`. A comparison's check now fills {actual}, {expected}, {field}
    and {detail}, in both bindings; {ids} names the request the notification names."""
    import json

    if target:
        import typescript_agreement

        typescript_agreement.require_toolchain()
    spec = Path("spec/mcp-2026-07-28")
    example = json.loads((spec / "rule-examples.json").read_text(encoding="utf-8"))["CANCEL-SERVER-LISTEN"]["violates"][0]
    stream = tmp_path / "cancel.jsonl"
    stream.write_text("".join(json.dumps(m) + "\n" for m in example["stream"]), encoding="utf-8")
    result = run_cli("replay", "--spec", spec, *target, "--json", stream)
    assert result.exit_code == 1, result.output
    [finding] = json.loads(result.stdout)["violations"]
    assert finding["rule"] == "CANCEL-SERVER-LISTEN"
    assert finding["message"].endswith("of the client: request method is tools/call, not subscriptions/listen"), finding
    # the notification has no id of its own: {ids} is the request it names (it printed
    # "names request , which")
    assert "names request 1, which" in finding["message"], finding
    assert finding["ids"] == ["1"], finding
