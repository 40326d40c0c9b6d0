"""A protocol family: the revisions of one protocol, each a spec folder, declared together in the
`[family]` table of one binding.toml (the family's home), with what on the wire names each
revision. `replay` and `proxy` judge each session by the revision its messages name
(docs/families.md); the routing itself is the runtime's (`runtime/python/family/family.py`),
which reads the table this module checks and flattens (`Family.table`).

Nothing here knows any protocol: a revision is named by conditions on its messages (JSON Pointer
-> value), a fallback from one revision to another by the answers that refute it, and the
family's own findings by rules the binding declares, with their level and the page they cite.

```toml
[family]
exchanges = { id = "/id", request = "/method" }   # a request and its answer share the id
switch = "RULE"                                   # a change of revision no fallback declares

[[family.revision]]
spec = "."                                        # this folder (the first revision is the default)
marks = [{ from = "client", match = { "/method" = "hello" } }]

[[family.revision]]
spec = "../proto-v2"
marks = [{ from = "client", present = ["/params/version"] }]

[[family.fallback]]
from = "2"            # a session that began in revision 2 ...
to = "1"              # ... may continue in revision 1
evidence = [{ from = "server", present = ["/result"] }]   # answers showing the peer speaks 2
offers = ["/result/versions"]                          # ... unless they list 1 among their own
rule = "RULE"

[[family.rule]]
id = "RULE"
level = "SHOULD NOT"
ref = ["page.md", "section"]
message = "..."
```
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .binding import CONFIG, load_binding, read_config
from .errors import SpecError

LEVELS = ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY")
CONDITION_KEYS = ("from", "match", "one-of", "present", "absent")


@dataclass(frozen=True)
class Revision:
    version: str  # the revision's [protocol].version
    spec_dir: Path
    marks: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class Family:
    home: Path
    revisions: tuple[Revision, ...]  # the first is the default: a session no message names
    table: dict[str, Any]  # what the runtime router reads (plain JSON data)

    def revision(self, version: str) -> Revision:
        for r in self.revisions:
            if r.version == version:
                return r
        raise KeyError(version)

    @property
    def versions(self) -> list[str]:
        return [r.version for r in self.revisions]


def load_family(spec_dir: Path) -> Family | None:
    """The family a spec folder declares (None: it declares none and is a family of one)."""
    raw, shown = read_config(spec_dir)
    table = raw.get("family")
    if table is None:
        return None
    return _Reader(spec_dir, shown).family(table)


class _Reader:
    def __init__(self, spec_dir: Path, shown: str) -> None:
        self.spec_dir = spec_dir
        self.shown = shown

    def fail(self, where: str, message: str) -> SpecError:
        return SpecError(self.shown, where, message)

    def family(self, table: Any) -> Family:
        if not isinstance(table, dict):
            raise self.fail("[family]", "must be a table")
        unknown = sorted(set(table) - {"revision", "fallback", "rule", "exchanges", "switch"})
        if unknown:
            raise self.fail(f"[family].{unknown[0]}", "unknown key: [family] has revision, fallback, rule, exchanges and switch")
        rules = self.rules(table.get("rule", []))
        revisions = self.revisions(table.get("revision"))
        versions = [r.version for r in revisions]
        fallbacks = [self.fallback(i, f, versions, rules) for i, f in enumerate(self._list(table.get("fallback", []), "[[family.fallback]]"))]
        pairs = [(f["from"], f["to"]) for f in fallbacks]
        if len(set(pairs)) != len(pairs):
            raise self.fail("[[family.fallback]]", "one fallback per pair of revisions (from, to)")
        switch = table.get("switch")
        if switch is not None:
            self.rule_ref(switch, "[family].switch", rules)
        exchanges = self.exchanges(table.get("exchanges"))
        used = {f["rule"] for f in fallbacks} | ({switch} if switch else set())
        unused = sorted(set(rules) - used)
        if unused:
            raise self.fail(f"[[family.rule]] {unused[0]}", "declared but no fallback or switch uses it")
        data = {
            "revisions": [{"version": r.version, "marks": list(r.marks)} for r in revisions],
            "exchanges": exchanges,
            "fallbacks": fallbacks,
            "switch": switch,
            "rules": rules,
        }
        json.dumps(data)  # plain data, as the runtime reads it
        return Family(self.spec_dir, tuple(revisions), data)

    def _list(self, value: Any, where: str) -> list[dict[str, Any]]:
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.fail(where, "must be an array of tables")
        return value

    # -- revisions ------------------------------------------------------------------------------

    def revisions(self, value: Any) -> list[Revision]:
        if value is None:
            raise self.fail("[family]", "names no revision: add [[family.revision]] tables, one per spec folder (spec = \".\" for this one)")
        entries = self._list(value, "[[family.revision]]")
        if len(entries) < 2:
            raise self.fail("[[family.revision]]", "a family has at least two revisions")
        out: list[Revision] = []
        for i, entry in enumerate(entries):
            where = f"[[family.revision]] #{i + 1}"
            unknown = sorted(set(entry) - {"spec", "marks"})
            if unknown:
                raise self.fail(f"{where}.{unknown[0]}", "unknown key: a revision has spec and marks")
            spec = entry.get("spec")
            if not isinstance(spec, str):
                raise self.fail(f"{where}.spec", "the revision's spec folder, relative to this one (\".\" for this one)")
            folder = (self.spec_dir / spec).resolve() if spec != "." else self.spec_dir
            if not (folder / CONFIG).is_file():
                raise self.fail(f"{where}.spec", f"{spec!r} is not a spec folder (no {CONFIG} there)")
            try:
                binding = load_binding(folder)
            except SpecError as exc:
                raise self.fail(f"{where}.spec", f"{spec!r}: {exc}") from None
            marks = tuple(self.condition(f"{where}.marks[{j}]", m) for j, m in enumerate(self._list(entry.get("marks", []), f"{where}.marks")))
            if not marks:
                raise self.fail(f"{where}.marks", "what on the wire names this revision: at least one condition")
            if any(r.version == binding.version for r in out):
                raise self.fail(f"{where}.spec", f"two revisions are {binding.version!r} ([protocol].version of each folder)")
            if any(r.spec_dir.resolve() == folder.resolve() for r in out):
                raise self.fail(f"{where}.spec", f"{spec!r} is listed twice")
            out.append(Revision(binding.version, folder, marks))
        if not any(r.spec_dir.resolve() == self.spec_dir.resolve() for r in out):
            raise self.fail("[[family.revision]]", "the family's home is one of its revisions: list it with spec = \".\"")
        return out

    # -- conditions -----------------------------------------------------------------------------

    def condition(self, where: str, entry: dict[str, Any]) -> dict[str, Any]:
        """A condition on one message: every test it names holds. Pointers are JSON Pointers."""
        unknown = sorted(set(entry) - set(CONDITION_KEYS))
        if unknown:
            raise self.fail(f"{where}.{unknown[0]}", f"unknown key: a condition has {', '.join(CONDITION_KEYS)}")
        out: dict[str, Any] = {}
        if "from" in entry:
            if not isinstance(entry["from"], str) or not entry["from"]:
                raise self.fail(f"{where}.from", "the party that sends the message")
            out["from"] = entry["from"]
        for key in ("match", "one-of"):
            if key in entry:
                tests = entry[key]
                if not isinstance(tests, dict) or not tests:
                    raise self.fail(f"{where}.{key}", "a table of JSON Pointer = value" + ("s (an array)" if key == "one-of" else ""))
                for pointer, value in tests.items():
                    self.pointer(f"{where}.{key}", pointer)
                    if key == "one-of" and (not isinstance(value, list) or not value):
                        raise self.fail(f"{where}.{key}.{pointer}", "the values it may have (an array)")
                out[key] = dict(tests)
        for key in ("present", "absent"):
            if key in entry:
                pointers = entry[key]
                if not isinstance(pointers, list) or not pointers or not all(isinstance(p, str) for p in pointers):
                    raise self.fail(f"{where}.{key}", "an array of JSON Pointers")
                for p in pointers:
                    self.pointer(f"{where}.{key}", p)
                out[key] = list(pointers)
        if not set(out) - {"from"}:
            raise self.fail(where, "tests nothing: give match, one-of, present or absent")
        return out

    def pointer(self, where: str, pointer: Any) -> None:
        if not isinstance(pointer, str) or not pointer.startswith("/"):
            raise self.fail(where, f"{pointer!r} is not a JSON Pointer to a member (it starts with /)")
        for token in pointer.split("/")[1:]:
            if "~" in token.replace("~0", "").replace("~1", ""):
                raise self.fail(where, f"{pointer!r}: ~ is written ~0 and / is written ~1 in a JSON Pointer")

    # -- fallbacks, rules, exchanges -------------------------------------------------------------

    def fallback(self, i: int, entry: dict[str, Any], versions: list[str], rules: dict[str, Any]) -> dict[str, Any]:
        where = f"[[family.fallback]] #{i + 1}"
        unknown = sorted(set(entry) - {"from", "to", "evidence", "offers", "rule"})
        if unknown:
            raise self.fail(f"{where}.{unknown[0]}", "unknown key: a fallback has from, to, evidence, offers and rule")
        for key in ("from", "to"):
            if entry.get(key) not in versions:
                raise self.fail(f"{where}.{key}", f"one of the family's revisions: {', '.join(versions)}")
        if entry["from"] == entry["to"]:
            raise self.fail(where, "falls back to the revision it began in")
        evidence = [self.condition(f"{where}.evidence[{j}]", c) for j, c in enumerate(self._list(entry.get("evidence", []), f"{where}.evidence"))]
        offers = entry.get("offers", [])
        if not isinstance(offers, list) or not all(isinstance(p, str) for p in offers):
            raise self.fail(f"{where}.offers", "an array of JSON Pointers to the versions an answer offers")
        for p in offers:
            self.pointer(f"{where}.offers", p)
        rule = entry.get("rule")
        if evidence:
            self.rule_ref(rule, f"{where}.rule", rules)
        elif rule is not None or offers:
            raise self.fail(where, "offers and rule judge the evidence: give evidence too")
        return {"from": entry["from"], "to": entry["to"], "evidence": evidence, "offers": list(offers), "rule": rule}

    def rule_ref(self, rule: Any, where: str, rules: dict[str, Any]) -> None:
        if rule not in rules:
            raise self.fail(where, f"names no [[family.rule]]: {', '.join(sorted(rules)) or 'none is declared'}")

    def rules(self, value: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for i, entry in enumerate(self._list(value, "[[family.rule]]")):
            where = f"[[family.rule]] #{i + 1}"
            unknown = sorted(set(entry) - {"id", "level", "ref", "message"})
            if unknown:
                raise self.fail(f"{where}.{unknown[0]}", "unknown key: a rule has id, level, ref and message")
            rid = entry.get("id")
            if not isinstance(rid, str) or not rid:
                raise self.fail(f"{where}.id", "the rule's stable ID")
            if rid in out:
                raise self.fail(f"{where}.id", f"{rid} is declared twice")
            if entry.get("level") not in LEVELS:
                raise self.fail(f"{where}.level", f"one of {', '.join(LEVELS)} (BCP 14)")
            ref = entry.get("ref")
            if not isinstance(ref, list) or len(ref) != 2 or not all(isinstance(r, str) and r for r in ref):
                raise self.fail(f"{where}.ref", "[page, section]: where the spec says it")
            if not isinstance(entry.get("message"), str) or not entry["message"]:
                raise self.fail(f"{where}.message", "what a finding of it says ({from}, {to}, {detail} are filled in)")
            out[rid] = {"id": rid, "level": entry["level"], "ref": list(ref), "message": entry["message"]}
        return out

    def exchanges(self, value: Any) -> dict[str, str] | None:
        if value is None:
            return None
        if not isinstance(value, dict) or set(value) != {"id", "request"}:
            raise self.fail("[family].exchanges", "{ id = POINTER, request = POINTER }: what a request and its answer share, and what only a request has")
        for key in ("id", "request"):
            self.pointer(f"[family].exchanges.{key}", value[key])
        return {"id": value["id"], "request": value["request"]}
