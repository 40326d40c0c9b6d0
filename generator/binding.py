"""A spec folder's binding config (`binding.toml`): what the protocol is called, which file is its
schema, and the names and options each target needs. Protocol facts live here, not in Python."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import SpecError

CONFIG = "binding.toml"
# Top-level tables besides the built-in targets': the protocol, its protobuf wire (a product
# every target shares), its stdio transport (what `specbind proxy` relays), and targets defined
# in folders (`[targets.NAME] from = "..."`), and the protocol family it is the home of (the
# revisions judged together: generator/family.py reads it).
TABLES = ("protocol", "proto", "stdio", "targets", "family")
PROTOCOL_KEYS = (
    "name", "version", "schema", "overlays", "root", "root_name", "rules", "templates", "runtime", "fixtures",
    "examples", "conformance", "integers", "formats", "annotations",
)
# The framings a stdio transport may declare: one message per line, no newline inside one.
STDIO_FRAMINGS = ("lines",)


@dataclass(frozen=True)
class Stdio:
    """A stdio transport: one party launches the other as a child process and writes to its
    stdin; the child answers on its stdout and may log on its stderr."""

    framing: str
    stdin: str  # the party that writes the child's stdin (the launcher)
    stdout: str  # the party that writes the child's stdout (the child)
    ref: str  # where the spec defines it


@dataclass(frozen=True)
class FixtureDivergence:
    fixture: str
    reason: str


@dataclass(frozen=True)
class RejectedExample:
    example: str  # Definition/name
    reason: str


@dataclass(frozen=True)
class Binding:
    spec_dir: Path
    display_dir: str
    name: str
    version: str
    schema: Path
    overlays: tuple[Path, ...]
    root: str | None
    fixtures: Path | None
    rules: Path | None
    conformance: Path | None
    targets: dict[str, dict[str, Any]]  # built-in targets' tables, and [proto]
    templates: tuple[Path, ...] = ()
    # the spec's own fixed modules, `<folder>/<target>/...`, copied into that target's package
    runtime: tuple[Path, ...] = ()
    # [targets.NAME] with `from`: a target defined in that folder, with its options
    target_folders: dict[str, tuple[Path, dict[str, Any]]] = field(default_factory=dict)
    # [targets.NAME] without `from`: options for a target given on the command line
    target_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    conformance_gaps: tuple[dict[str, str], ...] = ()
    # [[conformance_override]]: where this binding reads the spec otherwise than a fixture's
    # `expect` (the corpus's own expectOverrides idea): fixture, intentional, expect, drop
    conformance_overrides: tuple[dict[str, Any], ...] = ()
    fixture_divergences: tuple[FixtureDivergence, ...] = field(default=())
    # upstream's example documents, `<Definition>/<name>.json`, each meant to be valid
    examples: Path | None = None
    # examples the schema refuses, each with the reason (the generated tests hold it refused)
    rejected_examples: tuple[RejectedExample, ...] = ()
    # "exact": 1.0 is not an integer (the default); "json-schema": it is, as JSON Schema says
    integers: str = "exact"
    formats: bool = False  # `format` asserts (formats = "assert") or only annotates
    annotations: frozenset[str] = frozenset()  # keywords read as annotations only
    root_name: str = "Root"  # the definition a root schema becomes
    stdio: Stdio | None = None  # [stdio]: the spec binds a stdio transport

    def display(self, path: Path) -> str:
        try:
            return f"{self.display_dir}/{path.relative_to(self.spec_dir).as_posix()}"
        except ValueError:
            return str(path)

    def stable(self, path: Path) -> str:
        """How generated files name a spec file: from the spec folder's parent (`spec/agui/x`),
        so the output does not depend on where the command runs from."""
        base = self.spec_dir.resolve()
        try:
            rel = path.resolve().relative_to(base).as_posix()
        except ValueError:  # a link in the folder to a file elsewhere: named by its place in the folder
            base = Path(os.path.normpath(self.spec_dir.absolute()))
            rel = Path(os.path.normpath(path.absolute())).relative_to(base).as_posix()
        return f"{base.parent.name}/{base.name}/{rel}" if base.parent.name else f"{base.name}/{rel}"

    def target(self, name: str) -> dict[str, Any]:
        if name not in self.targets:
            raise SpecError(self.display(self.spec_dir / CONFIG), f"[{name}]", f"no [{name}] table: the {name} target needs one")
        return self.targets[name]


def display_dir(spec_dir: Path) -> str:
    """How errors name a spec folder: relative to the working directory when inside it."""
    try:
        return spec_dir.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(spec_dir)


def read_config(spec_dir: Path) -> tuple[dict[str, Any], str]:
    """A spec folder's binding.toml as TOML, and how errors name it."""
    shown = f"{display_dir(spec_dir)}/{CONFIG}"
    try:
        return tomllib.loads((spec_dir / CONFIG).read_text(encoding="utf-8")), shown
    except FileNotFoundError:
        raise SpecError(shown, "", "missing: every spec folder needs a binding.toml") from None
    except UnicodeDecodeError as exc:
        raise SpecError(shown, "", f"not UTF-8 text (byte {exc.start}): TOML files are UTF-8") from None
    except OSError as exc:
        raise SpecError(shown, "", f"cannot be read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(shown, "", f"not valid TOML: {exc}") from None


def load_binding(spec_dir: Path) -> Binding:
    raw, shown = read_config(spec_dir)
    proto = raw.get("protocol")
    if not isinstance(proto, dict):
        raise SpecError(shown, "[protocol]", "missing table")
    for key in ("name", "version", "schema"):
        if not isinstance(proto.get(key), str):
            raise SpecError(shown, f"[protocol].{key}", "missing or not a string")
    for key in proto:  # a misspelt key would be a setting silently not made (`rule =`: no rules)
        if key not in PROTOCOL_KEYS:
            import difflib  # only to name the key a misspelt one was meant to be

            near = difflib.get_close_matches(key, PROTOCOL_KEYS, n=1)
            hint = f" (did you mean {near[0]}?)" if near else ""
            raise SpecError(shown, f"[protocol].{key}", f"unknown key{hint}: [protocol] has {', '.join(PROTOCOL_KEYS)}")
    divergences = []
    for i, entry in enumerate(raw.get("fixture_divergence", [])):
        if not isinstance(entry.get("fixture"), str) or not isinstance(entry.get("reason"), str):
            raise SpecError(shown, f"[[fixture_divergence]] #{i + 1}", "needs `fixture` and `reason` strings")
        divergences.append(FixtureDivergence(entry["fixture"], entry["reason"]))
    rejected = []
    for i, entry in enumerate(raw.get("rejected_example", [])):
        if not isinstance(entry.get("example"), str) or not isinstance(entry.get("reason"), str):
            raise SpecError(shown, f"[[rejected_example]] #{i + 1}", "needs `example` (Definition/name) and `reason` strings")
        rejected.append(RejectedExample(entry["example"], entry["reason"]))
    from .targets import BUILTIN

    for key, value in raw.items():
        if key in TABLES or key in BUILTIN:
            if not isinstance(value, dict):
                raise SpecError(shown, key, "must be a table")
            continue
        if key in ("fixture_divergence", "conformance_gap", "conformance_override", "rejected_example"):
            continue
        import difflib

        near = difflib.get_close_matches(key, [*TABLES, *BUILTIN], n=1)
        hint = f" (did you mean [{near[0]}]?)" if near else ""
        raise SpecError(
            shown, f"[{key}]", f"names no target and no table this file has{hint}: built-in targets: {', '.join(BUILTIN)}; "
            "a target in a folder is [targets.NAME] with from = \"folder\""
        )
    targets = {k: v for k, v in raw.items() if k in BUILTIN or k == "proto"}
    folders: dict[str, tuple[Path, dict[str, Any]]] = {}
    options: dict[str, dict[str, Any]] = {}
    for name, table in raw.get("targets", {}).items():
        if not isinstance(table, dict):
            raise SpecError(shown, f"[targets.{name}]", "must be a table")
        rest = {k: v for k, v in table.items() if k != "from"}
        if "from" not in table:
            options[name] = rest
            continue
        folder = (spec_dir / str(table["from"])).resolve()
        if not folder.is_dir():
            raise SpecError(shown, f"[targets.{name}].from", f"{table['from']!r} is not a folder")
        folders[name] = (folder, rest)
    if not targets and not folders and not options:
        raise SpecError(shown, "", "names no target: add a [python] table (package = \"...\")")
    templates = []
    named = proto.get("templates", [])
    for i, entry in enumerate([named] if isinstance(named, str) else named if isinstance(named, list) else [None]):
        if not isinstance(entry, str):
            raise SpecError(shown, "[protocol].templates", "a folder, or a list of folders, relative to the spec")
        folder = spec_dir / entry
        if not folder.is_dir():
            raise SpecError(shown, "[protocol].templates", f"{entry!r} is not a folder of the spec")
        templates.append(folder)
    integers = proto.get("integers", "exact")
    if integers not in ("exact", "json-schema"):
        raise SpecError(shown, "[protocol].integers", '"exact" (1.0 is not an integer) or "json-schema" (it is)')
    formats = proto.get("formats", "annotate")
    if formats not in ("annotate", "assert"):
        raise SpecError(shown, "[protocol].formats", '"annotate" (format is an annotation, as JSON Schema says by default) or "assert"')
    annotations = proto.get("annotations", [])
    if not isinstance(annotations, list) or not all(isinstance(a, str) for a in annotations):
        raise SpecError(shown, "[protocol].annotations", "a list of keyword names the schema uses as annotations")
    root_name = proto.get("root_name", "Root")
    if not isinstance(root_name, str) or not root_name:
        raise SpecError(shown, "[protocol].root_name", "the name of the definition a root schema becomes")
    gaps = []
    for i, entry in enumerate(raw.get("conformance_gap", [])):
        if not all(isinstance(entry.get(k), str) for k in ("fixture", "key", "reason")):
            raise SpecError(shown, f"[[conformance_gap]] #{i + 1}", "needs `fixture`, `key` and `reason` strings")
        gaps.append({k: entry[k] for k in ("fixture", "key", "reason")})
    overrides = []
    for i, entry in enumerate(raw.get("conformance_override", [])):
        where = f"[[conformance_override]] #{i + 1}"
        if not isinstance(entry.get("fixture"), str) or not isinstance(entry.get("intentional"), str) or not entry["intentional"].strip():
            raise SpecError(shown, where, "needs `fixture` and `intentional` (why this binding differs from the fixture's expect: required, as the corpus requires it)")
        expect, drop = entry.get("expect", {}), entry.get("drop", [])
        if not isinstance(expect, dict) or not isinstance(drop, list) or not all(isinstance(k, str) for k in drop) or not (expect or drop):
            raise SpecError(shown, where, "`expect` (a table: the keys it replaces) and/or `drop` (a list of keys that no longer apply)")
        overrides.append({"fixture": entry["fixture"], "intentional": entry["intentional"], "expect": expect, "drop": drop})
    runtime = []
    named = proto.get("runtime", [])
    for entry in [named] if isinstance(named, str) else named if isinstance(named, list) else [None]:
        if not isinstance(entry, str) or not (spec_dir / entry).is_dir():
            raise SpecError(shown, "[protocol].runtime", "a folder, or a list of folders, of the spec (holding <target>/<file>)")
        runtime.append(spec_dir / entry)
    overlays = proto.get("overlays", [])
    if not isinstance(overlays, list) or not all(isinstance(o, str) for o in overlays):
        raise SpecError(shown, "[protocol].overlays", "must be a list of file names (overlays = [\"overlay.json\"])")
    _inside(shown, spec_dir, proto, overlays)
    _conformance_needs_rules(shown, proto)
    return Binding(
        stdio=_stdio(shown, raw.get("stdio")),
        spec_dir=spec_dir,
        templates=tuple(templates),
        runtime=tuple(runtime),
        conformance_gaps=tuple(gaps),
        conformance_overrides=tuple(overrides),
        display_dir=display_dir(spec_dir),
        name=proto["name"],
        version=proto["version"],
        schema=spec_dir / proto["schema"],
        overlays=tuple(spec_dir / o for o in overlays),
        root=proto.get("root"),
        fixtures=spec_dir / proto["fixtures"] if isinstance(proto.get("fixtures"), str) else None,
        examples=spec_dir / proto["examples"] if isinstance(proto.get("examples"), str) else None,
        rejected_examples=tuple(rejected),
        rules=spec_dir / proto["rules"] if isinstance(proto.get("rules"), str) else None,
        conformance=spec_dir / proto["conformance"] if isinstance(proto.get("conformance"), str) else None,
        targets=targets,
        target_folders=folders,
        target_options=options,
        fixture_divergences=tuple(divergences),
        integers=integers,
        formats=formats == "assert",
        annotations=frozenset(annotations),
        root_name=root_name,
    )


def _conformance_needs_rules(shown: str, proto: dict[str, Any]) -> None:
    """Conformance streams are judged by the rules: without a rules file they would be read by
    nothing, silently."""
    if "conformance" in proto and "rules" not in proto:
        raise SpecError(shown, "[protocol].conformance", "conformance streams are judged by the rules: name the rules file too ([protocol].rules)")


def _inside(shown: str, spec_dir: Path, proto: dict[str, Any], overlays: list[str]) -> None:
    """The files [protocol] names are the spec folder's own: generated files name them by their
    place in it, so that the output does not depend on where the folder is."""
    base = os.path.normpath(spec_dir.absolute())
    named = [(k, proto[k]) for k in ("schema", "rules", "fixtures", "examples", "conformance") if isinstance(proto.get(k), str)]
    for key, value in named + [(f"overlays[{i}]", o) for i, o in enumerate(overlays)]:
        if os.path.commonpath([base, os.path.normpath(os.path.join(base, value))]) != base:
            raise SpecError(shown, f"[protocol].{key}", f"{value!r} is outside the spec folder: copy it in (a spec folder holds what it compiles; `specbind init` copies a schema)")


def _stdio(shown: str, table: dict[str, Any] | None) -> Stdio | None:
    if table is None:
        return None
    unknown = sorted(set(table) - {"framing", "stdin", "stdout", "ref"})
    if unknown:
        raise SpecError(shown, f"[stdio].{unknown[0]}", "unknown key: [stdio] has framing, stdin, stdout and ref")
    if table.get("framing") not in STDIO_FRAMINGS:
        raise SpecError(shown, "[stdio].framing", f"one of {', '.join(map(repr, STDIO_FRAMINGS))} (one message per line)")
    for key in ("stdin", "stdout"):
        if not isinstance(table.get(key), str) or not table[key]:
            raise SpecError(shown, f"[stdio].{key}", "the name of the party that writes it (a non-empty string)")
    if table["stdin"] == table["stdout"]:
        raise SpecError(shown, "[stdio]", "stdin and stdout are written by two different parties")
    ref = table.get("ref", "")
    if not isinstance(ref, str):
        raise SpecError(shown, "[stdio].ref", "where the spec defines the transport (a string)")
    return Stdio(framing=table["framing"], stdin=table["stdin"], stdout=table["stdout"], ref=ref)
