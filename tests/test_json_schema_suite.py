"""The official JSON-Schema-Test-Suite (tests/data/json-schema-test-suite, MIT), draft 2020-12 and
draft-07, through the whole generator: every test group's schema becomes one definition of a
spec (each under its own `$id`, so its references stay its own), the spec is generated into a
package, and every test instance is decoded by the generated codec, whose verdict must be the
suite's. A group whose schema the generator refuses must be refused for a reason listed here
(and the list fails when it goes stale), as must each test whose verdict differs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, run_python
from schema_draws import keywords as _keywords
from generator.errors import SpecError
from generator.ir.build import build_ir
from generator.pipeline import render_spec, write
from generator.schema.loader import load_schema

SUITE = REPO / "tests" / "data" / "json-schema-test-suite"
DRAFTS = {"draft2020-12": "https://json-schema.org/draft/2020-12/schema", "draft7": "http://json-schema.org/draft-07/schema#"}

# Groups the generator refuses, by "draft/file/description": each with what it uses that
# specbind does not read (a reference to another document, the meta-schema included).
REFUSED = {
    "draft2020-12/defs.json/validate definition against metaschema": "a remote $ref (the meta-schema)",
    "draft2020-12/ref.json/remote ref, containing refs itself": "a remote $ref (the meta-schema)",
    "draft7/definitions.json/validate definition against metaschema": "a remote $ref (the meta-schema)",
    "draft7/ref.json/remote ref, containing refs itself": "a remote $ref (the meta-schema)",
    "draft2020-12/unevaluatedItems.json/unevaluatedItems with $dynamicRef": "$dynamicRef",
    "draft2020-12/unevaluatedProperties.json/unevaluatedProperties with $dynamicRef": "$dynamicRef",
}
# Individual tests whose verdict differs from the suite's, with why.
DIVERGES: dict[str, str] = {}


def _groups() -> list[tuple[str, str, dict[str, Any]]]:
    out = []
    for draft in DRAFTS:
        for path in sorted((SUITE / draft).glob("*.json")):
            for group in json.loads(path.read_text(encoding="utf-8")):
                out.append((draft, f"{draft}/{path.name}/{group['description']}", group))
    return out


GROUPS = _groups()


def _document(draft: str, schema: Any, key: str) -> dict[str, Any]:
    """One group's schema as a document of its own: under its own `$id` (unless it has one)."""
    if isinstance(schema, bool):
        return {"$schema": DRAFTS[draft], "$id": f"https://suite.invalid/{key}.json", "allOf": [schema]}
    doc = dict(schema)
    doc.setdefault("$schema", DRAFTS[draft])
    doc.setdefault("$id", f"https://suite.invalid/{key}.json")
    return doc


def _read_alone(tmp: Path, draft: str, key: str, schema: Any) -> str | None:
    """Why the generator refuses a group's schema, or None."""
    path = tmp / f"{key}.json"
    path.write_text(json.dumps(_document(draft, schema, key)), encoding="utf-8")
    try:
        build_ir(load_schema(path, path.name), "json-schema")
    except SpecError as exc:
        return exc.message
    return None


@pytest.fixture(scope="module")
def suite_package(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], dict[str, str]]:
    """The generated package of every group the generator reads; the refused ones, with why."""
    tmp = tmp_path_factory.mktemp("suite")
    alone = tmp / "alone"
    alone.mkdir()
    refused: dict[str, str] = {}
    keys: dict[str, str] = {}
    defs: dict[str, Any] = {}
    for i, (draft, name, group) in enumerate(GROUPS):
        key = f"g{i}"
        why = _read_alone(alone, draft, key, group["schema"])
        if why is not None:
            refused[name] = why
            continue
        keys[name] = key
        defs[key] = _document(draft, group["schema"], key)
    # draft-07 groups keep their own $schema: a document read as draft 2020-12 holds them, and
    # the loader reads each embedded resource by the draft the whole document declares; so the
    # two drafts are generated as two specs
    packages: dict[str, str] = {}
    for draft in DRAFTS:
        folder = tmp / "spec" / draft.replace("-", "_")
        folder.mkdir(parents=True)
        mine = {k: {kk: vv for kk, vv in v.items() if kk != "$schema"} for k, v in defs.items() if v.get("$schema") == DRAFTS[draft]}
        (folder / "schema.json").write_text(json.dumps({"$schema": DRAFTS[draft], "$defs" if draft != "draft7" else "definitions": mine}), encoding="utf-8")
        package = "suite_" + draft.replace("-", "_")
        (folder / "binding.toml").write_text(
            f'[protocol]\nname = "suite"\nversion = "1"\nschema = "schema.json"\nintegers = "json-schema"\n\n[python]\npackage = "{package}"\n'
            f'\n[typescript]\npackage = "{package.replace("_", "-")}-ts"\n',
            encoding="utf-8",
        )
        out = render_spec(folder)
        write(tmp / "out", out.files)
        for k in mine:
            packages[k] = package
    return tmp / "out", refused, {name: f"{packages[key]}:{key}" for name, key in keys.items()}


def _suite_tests(where: dict[str, str]) -> list[dict[str, Any]]:
    tests = []
    for draft, name, group in GROUPS:
        if name not in where:
            continue
        package, key = where[name].split(":")
        for t in group["tests"]:
            tests.append({"name": f"{name}/{t['description']}", "package": package, "definition": key, "data": t["data"], "valid": t["valid"], "group": name})
    return tests


def test_refused_groups_are_the_listed_ones(suite_package: tuple[Path, dict[str, str], dict[str, str]]) -> None:
    _, refused, _ = suite_package
    assert sorted(refused) == sorted(REFUSED), json.dumps(refused, indent=1)


def test_every_test_of_the_suite_gets_the_suites_verdict(suite_package: tuple[Path, dict[str, str], dict[str, str]]) -> None:
    out, _, where = suite_package
    tests = _suite_tests(where)
    script = """
import json, sys, importlib
from pathlib import Path
tests = json.loads(Path("tests.json").read_text())
wrong = {}
undeclared = {}
for t in tests:
    codec = importlib.import_module(t["package"] + ".codec_json")
    data = json.dumps(t["data"]).encode()
    try:
        codec.decode(data, t["definition"])
        got = True
    except codec.DecodeError as exc:
        got = False
        said = sorted({e.keyword for e in exc.errors if e.message.startswith("unknown property")})
        if said:
            undeclared[t["name"]] = [t["group"], said]
    if got is not t["valid"]:
        wrong[t["name"]] = got
print(json.dumps({"count": len(tests), "wrong": wrong, "undeclared": undeclared}))
"""
    path = out / "tests.json"
    path.write_text(json.dumps(tests), encoding="utf-8")
    result = run_python(script, cwd=out, path=[out], timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["count"] > 1000
    assert report["wrong"] == {k: v for k, v in DIVERGES.items()}, json.dumps(report["wrong"], indent=1)
    # an undeclared member is reported under a keyword its schema uses (`additionalProperties`
    # where the schema closed the object with it, never an `unevaluatedProperties` it lacks)
    schemas = {name: group["schema"] for _, name, group in GROUPS}
    misnamed = {t: said for t, (group, said) in report["undeclared"].items() if not set(said) <= _keywords(schemas[group])}
    assert {k for _, said in report["undeclared"].values() for k in said} == {"additionalProperties", "unevaluatedProperties"}
    assert misnamed == {}, json.dumps(misnamed, indent=1)


@pytest.mark.parametrize("draft", sorted(DRAFTS))
def test_the_typescript_binding_agrees_on_every_test_of_the_suite(suite_package: tuple[Path, dict[str, str], dict[str, str]], draft: str, tmp_path: Path) -> None:
    """The same packages' TypeScript binding (the general validator, vocabulary.ts): every test
    instance of the suite, and every fixture and derived case, strictly and leniently, gives the
    Python binding's verdict and the same errors and warnings (so the suite's verdict too)."""
    import typescript_agreement as agree

    agree.require_toolchain()
    out, _, where = suite_package
    package = "suite_" + draft.replace("-", "_")
    spec = f"suite-{draft}"
    agree.register(spec, out, package, f"{package.replace('_', '-')}-ts")
    extra = [(t["name"], t["definition"], json.dumps(t["data"], ensure_ascii=False)) for t in _suite_tests(where) if t["package"] == package]
    result = agree.compare_documents(spec, tmp_path, extra)
    assert len(extra) > 500 and result["documents"] > len(extra)
    assert result["differences"] == [], json.dumps(result["differences"][:3], indent=1, ensure_ascii=False)
