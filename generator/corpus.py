"""The spec's schema fixtures, read once for every target's generated tests."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from .binding import Binding
from .errors import SpecError
from .schema.loader import read_json


def load_fixtures(binding: Binding, definitions: Collection[str]) -> dict[str, Any]:
    out: list[dict[str, Any]] = []
    root = binding.fixtures
    divergent = {d.fixture: d.reason for d in binding.fixture_divergences}
    if root is not None:
        if not root.is_dir():
            raise SpecError(binding.display(root), "", "fixtures folder named in binding.toml does not exist")
        # every JSON file under the folder is a fixture or refused: one elsewhere than
        # <Definition>/<verdict>/ would otherwise be silently ignored
        for path in sorted(root.rglob("*.json"), key=lambda p: p.as_posix()):
            if path.name.endswith(".expect.json") and len(path.relative_to(root).parts) == 3:
                continue
            definition, verdict = path.parent.parent.name, path.parent.name
            if len(path.relative_to(root).parts) != 3 or verdict not in ("valid", "invalid"):
                raise SpecError(binding.display(path), "", "fixtures live under <Definition>/valid or <Definition>/invalid")
            name = f"{definition}/{verdict}/{path.stem}"
            if definition not in definitions:
                raise SpecError(binding.display(path.parent.parent), "", f"fixture folder names no definition {definition!r}")
            doc, _ = read_json(path, binding.display(path))
            entry: dict[str, Any] = {"name": name, "definition": definition, "valid": verdict == "valid", "document": doc}
            expect = path.with_name(path.stem + ".expect.json")
            if verdict == "invalid":
                if not expect.exists():
                    raise SpecError(binding.display(path), "", "an invalid fixture needs its .expect.json")
                entry["expect"], _ = read_json(expect, binding.display(expect))
                if name in divergent:
                    entry["divergence"] = divergent.pop(name)
            out.append(entry)
    if divergent:
        raise SpecError(binding.display(binding.spec_dir / "binding.toml"), "[[fixture_divergence]]", f"names no fixture: {sorted(divergent)}")
    return {"fixtures": out + _examples(binding, definitions)}


def fixture_kinds(fixtures: dict[str, Any]) -> list[str]:
    """Which kinds of fixture a spec has (valid, invalid, divergent, rejected): the generated
    tests hold a test for each kind present, never one parametrized over nothing."""
    kinds = set()
    for f in fixtures["fixtures"]:
        kinds.add("divergent" if "divergence" in f else "rejected" if "rejected" in f else "valid" if f["valid"] else "invalid")
    return sorted(kinds)


def _examples(binding: Binding, definitions: Collection[str]) -> list[dict[str, Any]]:
    """Upstream's example documents (`<Definition>/<name>.json`), each meant to be valid as the
    definition its folder names: valid fixtures, except those binding.toml lists as rejected
    (`[[rejected_example]]`, with the reason), which the generated tests hold refused."""
    root = binding.examples
    if root is None:
        return []
    if not root.is_dir():
        raise SpecError(binding.display(root), "", "examples folder named in binding.toml does not exist")
    rejected = {r.example: r.reason for r in binding.rejected_examples}
    out: list[dict[str, Any]] = []
    for path in sorted(root.rglob("*.json"), key=lambda p: p.as_posix()):
        if len(path.relative_to(root).parts) != 2:  # refused, not silently ignored
            raise SpecError(binding.display(path), "", "examples live at <Definition>/<name>.json")
        definition = path.parent.name
        if definition not in definitions:
            raise SpecError(binding.display(path.parent), "", f"example folder names no definition {definition!r}")
        doc, _ = read_json(path, binding.display(path))
        key = f"{definition}/{path.stem}"
        entry: dict[str, Any] = {"name": f"{definition}/example/{path.stem}", "definition": definition, "valid": True, "document": doc}
        if key in rejected:
            entry.update(valid=False, rejected=rejected.pop(key))
        out.append(entry)
    if rejected:
        raise SpecError(binding.display(binding.spec_dir / "binding.toml"), "[[rejected_example]]", f"names no example: {sorted(rejected)}")
    return out


def load_conformance(binding: Binding) -> dict[str, Any]:
    """The spec's conformance streams, each whole (stream, expect, overrides)."""
    root = binding.conformance
    streams: list[dict[str, Any]] = []
    if root is not None:
        if not root.is_dir():
            raise SpecError(binding.display(root), "", "conformance folder named in binding.toml does not exist")
        for path in sorted(root.rglob("*.json"), key=lambda p: p.as_posix()):
            if path.parent != root:  # refused, not silently ignored
                raise SpecError(binding.display(path), "", "conformance fixtures are the folder's own *.json files, not its subfolders'")
            doc, _ = read_json(path, binding.display(path))
            if not isinstance(doc, dict) or not isinstance(doc.get("stream"), list) or "expect" not in doc:
                raise SpecError(binding.display(path), "", "a conformance fixture needs `stream` (an array) and `expect`")
            streams.append({"name": path.stem, **doc})
    return {"streams": _overridden(binding, streams)}


def _overridden(binding: Binding, streams: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The fixtures with this binding's overrides applied, as the corpus's README defines them:
    the keys an override names replace those of `expect`, every other key still applies; the
    fixture keeps what the corpus expects (`corpusExpect`) and why this binding differs
    (`override`), so that every test reading the corpus holds the binding to the override and
    shows both."""
    by_name = {s["name"]: s for s in streams}
    for entry in binding.conformance_overrides:
        fixture = by_name.get(entry["fixture"])
        if fixture is None:
            raise SpecError(binding.display(binding.spec_dir / "binding.toml"), "[[conformance_override]]", f"names no fixture: {entry['fixture']!r}")
        original = fixture["expect"]
        missing = [k for k in entry["drop"] if k not in original]
        if missing:
            raise SpecError(binding.display(binding.spec_dir / "binding.toml"), "[[conformance_override]]", f"{entry['fixture']}: drops keys its expect has not: {missing}")
        expect = {k: v for k, v in original.items() if k not in entry["drop"]}
        expect.update(entry["expect"])
        fixture["expect"] = expect
        fixture["corpusExpect"] = original
        fixture["override"] = {"intentional": entry["intentional"], "expect": entry["expect"], "drop": entry["drop"]}
    return streams


def load_rule_examples(binding: Binding, ast: Any) -> dict[str, Any]:
    """Per-rule example streams (`rule-examples.json` beside the rules file): every rule needs a
    stream that violates it; `satisfies` streams must draw no finding of that rule."""
    assert binding.rules is not None
    path = binding.rules.with_name("rule-examples.json")
    if not path.exists():
        return {"examples": {}}  # the generated tests fail: every rule needs an example
    doc, _ = read_json(path, binding.display(path))
    if not isinstance(doc, dict):
        raise SpecError(binding.display(path), "", "expected an object keyed by rule ID")
    for rule, entry in doc.items():
        if rule not in ast.rules:
            raise SpecError(binding.display(path), f"/{rule}", "names no rule of the rules file")
        if not isinstance(entry, dict) or not entry.get("violates"):
            raise SpecError(binding.display(path), f"/{rule}", "needs `violates`: a list of streams")
    return {"examples": doc}
