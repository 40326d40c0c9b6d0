"""Targets are a registry (issue 12): a target defined in a folder outside the repository
generates and is tested with no change to generator/; binding.toml names targets and nothing
else; the lifecycle diagrams say what the compiled tables do."""

from __future__ import annotations

import importlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, SPEC_AGUI, make_spec, run_cli
from generator.rules.diagram import parse_mermaid

EXAMPLE = REPO / "examples" / "targets" / "lifecycle"
HARNESS = REPO / "spec" / "harness-runtime"


def tables_of(package: str) -> dict[str, Any]:
    module = importlib.import_module(f"{package}.automaton_table")
    return dict(module.TABLES)


def expected_edges(tables: dict[str, Any]) -> dict[str, set[tuple[str, str, str]]]:
    """(from, to, event type) of every legal transition, read from the tables directly."""
    out: dict[str, set[tuple[str, str, str]]] = {}
    machine = tables["machine"]
    edges = out.setdefault(f"machine {machine['name']}", set())
    for state, rows in machine["table"].items():
        for event, row in rows.items():
            for alt in [row, *row.get("cases", [])]:
                if alt.get("target") and not alt.get("fail"):
                    edges.add((state, alt["target"], event))
    for name in tables["entities"]:
        out[f"entity {name}"] = set()
    for event, steps in tables["entity_steps"].items():
        for step in steps:
            for source, row in step["transitions"].items():
                if row["target"] and not row["fail"]:
                    out[f"entity {step['entity']}"].add((source, row["target"], event))
    return out


def drawn(markdown: str) -> dict[str, dict[tuple[str, str], str]]:
    sections = re.findall(r"^##+ (machine \S+|entity \S+)\n\n```mermaid\n(.*?)```", markdown, flags=re.S | re.M)
    return {title: parse_mermaid(body) for title, body in sections}


def labelled(edges: dict[tuple[str, str], str], expected: set[tuple[str, str, str]], listed: bool) -> None:
    assert set(edges) == {(a, b) for a, b, _ in expected}
    for (a, b), label in edges.items():
        events = sorted(e for x, y, e in expected if (x, y) == (a, b))
        if listed or len(events) <= 4:
            assert sorted(label.split(", ")) == events, (a, b, label)
        else:
            assert label == f"{len(events)} event types"


@pytest.mark.parametrize("package", ["agui", "harness_runtime"])
def test_rules_md_draws_every_legal_transition_and_nothing_else(package: str) -> None:
    tables = tables_of(package)
    pictures = drawn((REPO / "generated" / package / "RULES.md").read_text(encoding="utf-8"))
    expected = expected_edges(tables)
    assert set(pictures) == set(expected)
    for title, edges in pictures.items():
        labelled(edges, expected[title], listed=False)


# -- a target from a folder outside the repository ----------------------------------------------------


def test_a_target_from_an_outside_folder_generates_and_is_checked(tmp_path: Path) -> None:
    folder = tmp_path / "elsewhere" / "lifecycle"
    shutil.copytree(EXAMPLE, folder)
    out = tmp_path / "out"
    result = run_cli("generate", "--spec", HARNESS, "--target", folder, "--out", out)
    assert result.exit_code == 0, result.output
    page = (out / "harness-runtime-lifecycle" / "LIFECYCLE.md").read_text(encoding="utf-8")
    data = json.loads((out / "harness-runtime-lifecycle" / "lifecycle.json").read_bytes())
    expected = expected_edges(tables_of("harness_runtime"))
    pictures = drawn(page)
    assert set(pictures) == set(expected) == {d["title"] for d in data["diagrams"]}
    for title, edges in pictures.items():
        labelled(edges, expected[title], listed=True)
    # the same command checks it, and a change to its template is drift
    assert run_cli("check", "--spec", HARNESS, "--target", folder, "--out", out).exit_code == 0
    template = folder / "templates" / "LIFECYCLE.md.j2"
    template.write_text(template.read_text().replace("lifecycles", "state machines"))
    drift = run_cli("check", "--spec", HARNESS, "--target", folder, "--out", out)
    assert drift.exit_code == 1 and "harness-runtime-lifecycle/LIFECYCLE.md" in drift.output
    assert not (REPO / "generated" / "harness-runtime-lifecycle").exists()


def test_a_target_named_in_binding_toml(tmp_path: Path) -> None:
    spec = tmp_path / "spec" / "harness-runtime"
    shutil.copytree(HARNESS, spec)
    target = tmp_path / "targets" / "lifecycle"
    shutil.copytree(EXAMPLE, target)
    with (spec / "binding.toml").open("a") as f:
        f.write('\n[targets.lifecycle]\nfrom = "../../targets/lifecycle"\nfolder = "diagrams"\n')
    out = tmp_path / "out"
    result = run_cli("generate", "--spec", spec, "--out", out, "--allow-new-slots")
    assert result.exit_code == 0, result.output
    assert (out / "diagrams" / "LIFECYCLE.md").is_file() and (out / "harness_runtime" / "models.py").is_file()
    listed = json.loads(run_cli("targets", "--spec", spec, "--json").stdout)
    assert [t["name"] for t in listed] == ["lifecycle", "python", "typescript"]
    assert listed[0]["origin"].endswith("targets/lifecycle") and listed[1]["origin"] == "built-in"


@pytest.mark.parametrize(
    "content,message",
    [
        (None, "not a target folder: it has no target.py"),
        ("x = 1\n", "defines no TARGET"),
        ("raise RuntimeError('boom')\n", "cannot be loaded: RuntimeError: boom"),
        ("import nonexistent_module_xyz\n", "cannot be loaded: ModuleNotFoundError"),
    ],
    ids=["no-module", "no-TARGET", "raises", "bad-import"],
)
def test_a_broken_target_folder_is_a_clear_error(tmp_path: Path, content: str | None, message: str) -> None:
    folder = tmp_path / "broken"
    (folder / "templates").mkdir(parents=True)
    if content is not None:
        (folder / "target.py").write_text(content)
    for command in ("generate", "targets"):
        args = ["--spec", SPEC_AGUI] if command == "generate" else []
        result = run_cli(command, *args, "--target", folder, "--out", tmp_path / "out") if command == "generate" else run_cli(command, "--target", folder)
        assert result.exit_code == 2, result.output
        assert message in result.stderr and "Traceback" not in result.output


# -- binding.toml names targets and nothing else -------------------------------------------------------


@pytest.mark.parametrize(
    "extra,message",
    [
        ('[pyhton]\npackage = "x"\n', "[pyhton]: names no target and no table this file has (did you mean [python]?)"),
        ('[targets.x]\nfrom = "no/such/folder"\n', "[targets.x].from: 'no/such/folder' is not a folder"),
        ("[targets]\nx = 1\n", "[targets.x]: must be a table"),
    ],
    ids=["misspelt-table", "target-folder-missing", "target-not-a-table"],
)
def test_binding_tables_that_name_no_target_are_errors(tmp_path: Path, extra: str, message: str) -> None:
    spec = make_spec(tmp_path)
    with (spec / "binding.toml").open("a") as f:
        f.write("\n" + extra)
    result = run_cli("generate", "--spec", spec, "--out", tmp_path / "out")
    assert result.exit_code == 2 and message in result.stderr, result.output


def test_two_specs_writing_one_package_is_an_error(tmp_path: Path) -> None:
    first = make_spec(tmp_path / "a")
    second = make_spec(tmp_path / "b")
    result = run_cli("generate", "--spec", first, "--spec", second, "--out", tmp_path / "out")
    assert result.exit_code == 2 and "writes the package 'toyproto', which" in result.stderr, result.output
    assert not (tmp_path / "out").exists()


def test_a_templates_folder_that_overrides_nothing_is_an_error(tmp_path: Path) -> None:
    spec = make_spec(tmp_path)
    empty = tmp_path / "tpl"
    (empty / "python").mkdir(parents=True)
    result = run_cli("generate", "--spec", spec, "--out", tmp_path / "out", "--templates", empty)
    assert result.exit_code == 2 and "overrides nothing" in result.stderr


def test_overrides_recorded_in_binding_toml_are_honoured_by_check(tmp_path: Path) -> None:
    spec = make_spec(tmp_path)
    mine = spec / "my-templates" / "python"
    mine.mkdir(parents=True)
    (mine / "version.py.j2").write_text((REPO / "templates" / "python" / "version.py.j2").read_text() + "EXTRA = 1\n")
    toml = (spec / "binding.toml").read_text().replace('[protocol]\n', '[protocol]\ntemplates = ["my-templates"]\n', 1)
    (spec / "binding.toml").write_text(toml)
    out = tmp_path / "out"
    assert run_cli("generate", "--spec", spec, "--out", out).exit_code == 0
    assert "EXTRA = 1" in (out / "toyproto" / "version.py").read_text()
    assert run_cli("check", "--spec", spec, "--out", out).exit_code == 0


def test_generation_with_nothing_to_do_formats_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The formatted output is cached by content: a second run formats no file (the speed of
    `specbind check` is measured, not asserted: make test runs it)."""
    monkeypatch.setenv("SPECBIND_CACHE", str(tmp_path / "cache"))
    spec = make_spec(tmp_path)
    first = run_cli("generate", "--spec", spec, "--out", tmp_path / "out")
    assert first.exit_code == 0 and "formatting" in first.stderr
    second = run_cli("check", "--spec", spec, "--out", tmp_path / "out")
    assert second.exit_code == 0 and "formatting" not in second.stderr
