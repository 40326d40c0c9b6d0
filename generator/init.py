"""`specbind init`: a spec folder for a schema the user already has, with working defaults, so
that `generate` runs with no hand edits.

It copies the schema (JSON Schema draft 2020-12 or draft-07, or an OpenAPI 3.x document, JSON
or YAML), writes a SOURCE note with its sha256 and a `binding.toml` derived from it: the
protocol's name and version from the document, the root definition (the document's `$ref`, or
the root schema itself), JSON Schema's integer rule (1.0 is an integer), the keywords the
document uses only as annotations (ones no JSON Schema vocabulary defines), the Python package
and the TypeScript package (`<name>-ts`). No protobuf binding and no rules file: those are added by hand when wanted.
"""

from __future__ import annotations

import hashlib
import json
import keyword
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .binding import load_binding
from .errors import SpecError
from .ir.naming import snake
from .schema import vocabulary as V
from .schema.loader import read_document


@dataclass
class Initialized:
    folder: Path
    package: str
    root: str | None
    definitions: int
    annotations: list[str]
    draft: str


def _toml(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def unknown_keywords(raw: Any, openapi: bool) -> list[str]:
    """Keywords of the document no vocabulary specbind reads defines (and that are not `x-`
    extensions): they can only be annotations, which JSON Schema ignores."""
    found: set[str] = set()

    def walk(node: Any) -> None:
        if not isinstance(node, dict):
            return
        for key, value in node.items():
            if key not in V.KNOWN and key not in V.REFUSED and not V.is_extension(key) and key not in ("nullable",):
                found.add(key)
            if key in V.SCHEMA_MAPS or key == "dependencies":
                if isinstance(value, dict):
                    for sub in value.values():
                        walk(sub)
            elif key in V.SCHEMA_SINGLE:
                walk(value)
            elif key in V.SCHEMA_LISTS or key == "items":
                for sub in value if isinstance(value, list) else [value]:
                    walk(sub)

    if openapi:
        schemas = (raw.get("components") or {}).get("schemas") or {}
        for node in schemas.values():
            walk(node)
    else:
        top = {k: v for k, v in raw.items() if k not in ("$defs", "definitions")}
        walk(top)
        for key in ("$defs", "definitions"):
            for node in (raw.get(key) or {}).values() if isinstance(raw.get(key), dict) else []:
                walk(node)
    return sorted(found)


def init(schema: Path, name: str, spec_dir: Path) -> Initialized:
    shown = str(schema)
    raw, data = read_document(schema, shown)
    if not isinstance(raw, dict):
        raise SpecError(shown, "", "a schema document must be a JSON object (JSON Schema, or OpenAPI 3.x with components/schemas)")
    package = package_name(name)
    folder = spec_dir / name
    if folder.exists():
        raise SpecError(str(folder), "", "already exists: choose another --name or --spec-dir (init never overwrites)")
    openapi = "openapi" in raw or "swagger" in raw
    annotations = unknown_keywords(raw, openapi)
    info: dict[str, Any] = raw["info"] if isinstance(raw.get("info"), dict) else {}
    title = raw.get("title") if isinstance(raw.get("title"), str) else info.get("title") if isinstance(info.get("title"), str) else name
    version = str(info.get("version")) if openapi and info.get("version") is not None else _version_of(raw)
    target = folder / ("schema" + (schema.suffix if schema.suffix in (".json", ".yaml", ".yml") else ".json"))
    try:
        folder.mkdir(parents=True)
    except OSError as exc:
        raise SpecError(str(folder), "", f"cannot be made ({exc.strerror or exc}): nothing was written") from None
    try:
        target.write_bytes(data)
        sha = hashlib.sha256(data).hexdigest()
        lines = [
            f"# Written by `specbind init` from {schema.name} (sha256 {sha}); edit freely.",
            "",
            "[protocol]",
            f"name = {_toml(title)}",
            f"version = {_toml(version)}",
            f"schema = {_toml(target.name)}",
            "# JSON Schema's integer rule: 1.0 is an integer. specbind's own default, \"exact\", tells",
            "# 1 and 1.0 apart (the AG-UI and Harness bindings keep it).",
            'integers = "json-schema"',
        ]
        if annotations:
            lines += [
                "# keywords the schema uses that no JSON Schema vocabulary defines: read as annotations",
                f"annotations = [{', '.join(_toml(a) for a in annotations)}]",
            ]
        lines += ["", "[python]", f"package = {_toml(package)}", "", "[typescript]", f"package = {_toml(npm_package(name))}", ""]
        (folder / "binding.toml").write_text("\n".join(lines), encoding="utf-8")
        # the root: what the document itself is, when it says
        from .products import load_ir

        ir = load_ir(load_binding(folder))
        if ir.root is not None:
            text = (folder / "binding.toml").read_text(encoding="utf-8")
            text = text.replace(f"schema = {_toml(target.name)}\n", f"schema = {_toml(target.name)}\nroot = {_toml(ir.root)}\n", 1)
            (folder / "binding.toml").write_text(text, encoding="utf-8")
        (folder / "SOURCE.md").write_text(
            "\n".join(
                [
                    f"# {title}",
                    "",
                    f"- Schema: `{target.name}`, copied by `specbind init` from `{schema}`.",
                    f"- sha256: `{sha}`",
                    f"- Draft: {ir.draft if not openapi else 'OpenAPI ' + str(raw.get('openapi', raw.get('swagger')))}.",
                    "- Origin and licence: say where the schema comes from and under which licence it is published.",
                    "",
                ]
            ),
            encoding="utf-8",
        )
        # the whole pipeline up to the generated tests' cases: a schema generate would refuse
        # is refused now, with its pointer
        from .products import compute

        binding = load_binding(folder)
        products = compute(binding)
        _ = products.validation, products.cases
        # and every target's own decisions (what generate runs before its templates), so that
        # init keeps no folder generate would refuse
        from .pipeline import targets_for

        for chosen, options in targets_for(binding):
            chosen.build(products, options)
    except SpecError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        if exc.file.endswith(target.name) and "binding.toml" not in exc.file:
            raise SpecError(shown, exc.where, exc.message) from None  # the user's file, not the copy
        raise
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return Initialized(folder, package, ir.root, len(ir.defs), annotations, ir.draft)


def package_name(name: str) -> str:
    """The Python package a spec named `name` gets (its snake_case), or SpecError when `name`
    is not a plain folder name (a letter, then letters, digits, `_` or `-`: no path) or would
    make a package Python cannot import as itself (a keyword, a standard-library module)."""
    shown = repr(name)
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", name):
        raise SpecError(
            shown, "--name", "must be a letter followed by letters, digits, '_' or '-': it names the spec folder "
            "(inside --spec-dir, never a path) and the Python package"
        )
    package = snake(name)
    if not package.isidentifier() or keyword.iskeyword(package) or keyword.issoftkeyword(package):
        raise SpecError(shown, "--name", f"makes the Python package {package!r}, a Python keyword: choose another name")
    if package in sys.stdlib_module_names:
        raise SpecError(shown, "--name", f"makes the Python package {package!r}, which would hide the standard library's: choose another name")
    return package


def npm_package(name: str) -> str:
    """The TypeScript package's npm name (and folder) for a spec named `name`: `<name>-ts`, lower
    case, any character npm refuses made a hyphen."""
    return re.sub(r"[^a-z0-9._-]+", "-", name.lower()).strip("-._") + "-ts"


def _version_of(raw: dict[str, Any]) -> str:
    """A version the document states: its `version`, one in its `$id`, else "0"."""
    for key in ("version",):
        if isinstance(raw.get(key), (str, int, float)):
            return str(raw[key])
    ident = raw.get("$id")
    if isinstance(ident, str):
        m = re.search(r"/v?(\d+(?:\.\d+)*|\d{4}-\d{2}-\d{2})(?:/|$)", ident)
        if m:
            return m.group(1)
    return "0"
