"""Read a JSON Schema document, pin its keyword vocabulary and resolve its references.

The loader knows JSON Schema, not any protocol: it hands the IR builder a document whose every
`$ref` is known to land on a named definition.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import SpecError, pointer_join
from . import vocabulary as V

_DEF_REF = re.compile(r"^#/(?:\$defs|components/schemas)/([^/]+)$")
_ANCHOR_REF = re.compile(r"^#([A-Za-z_][A-Za-z0-9_.-]*)$")


@dataclass
class SchemaDoc:
    """A loaded schema: its definitions by name, and where each came from."""

    path: Path
    display: str  # the path as reported in errors and banners (relative to the repo when possible)
    sha256: str
    raw: dict[str, Any]
    defs: dict[str, dict[str, Any]]
    defs_pointer: str  # JSON pointer of the container of named definitions, e.g. "/$defs"
    root_ref: str | None = None
    anchors: dict[str, str] = field(default_factory=dict)
    # per definition: the container it sits in ("/$defs", "/components/schemas") and its file
    containers: dict[str, str] = field(default_factory=dict)
    origin: dict[str, str] = field(default_factory=dict)
    overlays: list[tuple[str, str]] = field(default_factory=list)  # (display, sha256)
    inline: dict[str, Any] = field(default_factory=dict)  # names given to inline objects -> node

    def combined(self) -> dict[str, Any] | None:
        """One JSON Schema document with every definition under $defs (refs rewritten), for
        a reference validator; None when the source already is one."""
        if self.defs_pointer == "/$defs" and not self.overlays:
            return None

        def rewrite(node: Any) -> Any:
            if isinstance(node, dict):
                return {
                    k: (v.replace("#/components/schemas/", "#/$defs/") if k == "$ref" and isinstance(v, str) else rewrite(v))
                    for k, v in node.items()
                }
            if isinstance(node, list):
                return [rewrite(v) for v in node]
            return node

        defs = {name: rewrite(node) for name, node in [*self.defs.items(), *self.inline.items()]}
        return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}

    def def_pointer(self, name: str) -> str:
        return pointer_join(self.containers.get(name, self.defs_pointer), name)

    def file_of(self, pointer: str) -> str:
        """The file a pointer into a definition belongs to (overlays add definitions)."""
        for name in self.origin:
            base = self.def_pointer(name)
            if pointer == base or pointer.startswith(base + "/"):
                return self.origin[name]
        return self.display

    def resolve(self, ref: Any, at: str) -> str:
        """The definition name a `$ref` names, or a SpecError naming the dangling reference."""
        if not isinstance(ref, str):
            raise SpecError(self.display, at, f"$ref must be a string, got {json.dumps(ref)}")
        m = _DEF_REF.match(ref)
        if m:
            name = m.group(1).replace("~1", "/").replace("~0", "~")
            if name in self.defs:
                return name
            raise SpecError(self.file_of(at), at, f"dangling $ref {ref!r}: no definition named {name!r}")
        m = _ANCHOR_REF.match(ref)
        if m:
            if m.group(1) in self.anchors:
                return self.anchors[m.group(1)]
            raise SpecError(self.file_of(at), at, f"dangling $ref {ref!r}: no $anchor {m.group(1)!r}")
        raise SpecError(
            self.file_of(at),
            at,
            f"unsupported $ref {ref!r}: only local references to named definitions "
            "('#/$defs/Name' or '#Anchor') are supported",
        )


def read_document(path: Path, display: str) -> tuple[Any, bytes]:
    """JSON, or YAML for .yaml/.yml files (OpenAPI documents usually are), read with the YAML
    1.2 core schema (see yaml12)."""
    if path.suffix not in (".yaml", ".yml"):
        return read_json(path, display)
    import yaml

    from . import yaml12

    data = _read_bytes(path, display)
    try:
        return yaml12.load(data), data
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1} column {mark.column + 1}" if mark else ""
        raise SpecError(display, where, str(exc.problem or exc)) from None
    except yaml.YAMLError as exc:
        raise SpecError(display, "", f"not valid YAML: {exc}") from None


def _read_bytes(path: Path, display: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise SpecError(display, "", f"cannot read: {exc.strerror}") from None


def read_json(path: Path, display: str) -> tuple[Any, bytes]:
    data = _read_bytes(path, display)
    try:
        return json.loads(data), data
    except json.JSONDecodeError as exc:
        raise SpecError(display, f"line {exc.lineno} column {exc.colno}", exc.msg) from None
    except UnicodeDecodeError as exc:
        raise SpecError(display, f"byte {exc.start}", "not valid UTF-8") from None


def load_schema(path: Path, display: str | None = None, overlays: list[tuple[Path, str]] | None = None) -> SchemaDoc:
    """A JSON Schema document (definitions under $defs) or an OpenAPI 3.1 document (under
    components/schemas), plus overlays: JSON Schema documents whose $defs add definitions to the
    same namespace, so a vendored file stays byte-identical to its source."""
    shown = display or str(path)
    raw, data = read_document(path, shown)
    if not isinstance(raw, dict):
        raise SpecError(shown, "", "a schema document must be a JSON object")
    if "openapi" in raw:
        version = str(raw["openapi"])
        if not version.startswith("3.1"):
            raise SpecError(shown, "/openapi", f"OpenAPI {version}: only 3.1 (whose schemas are JSON Schema 2020-12) is supported")
        container = "/components/schemas"
        defs = (raw.get("components") or {}).get("schemas")
    else:
        container = "/$defs"
        defs = raw.get("$defs")
    if not isinstance(defs, dict) or not defs:
        raise SpecError(shown, container, f"the document has no named definitions ({container.lstrip('/')})")
    doc = SchemaDoc(
        path=path,
        display=shown,
        sha256=hashlib.sha256(data).hexdigest(),
        raw=raw,
        defs=dict(defs),
        defs_pointer=container,
    )
    for name in defs:
        doc.containers[name] = container
        doc.origin[name] = shown
    if container == "/$defs":
        check_vocabulary(doc, raw, "")
    else:
        for name, node in defs.items():
            check_vocabulary(doc, node, doc.def_pointer(name))
    for overlay_path, overlay_shown in overlays or []:
        extra, extra_data = read_document(overlay_path, overlay_shown)
        if not isinstance(extra, dict) or not isinstance(extra.get("$defs"), dict):
            raise SpecError(overlay_shown, "/$defs", "an overlay is a JSON Schema document with $defs")
        doc.overlays.append((overlay_shown, hashlib.sha256(extra_data).hexdigest()))
        for name, node in extra["$defs"].items():
            if name in doc.defs:
                raise SpecError(overlay_shown, pointer_join("/$defs", name), f"{name!r} is already defined in {doc.origin[name]}")
            doc.defs[name] = node
            doc.containers[name] = "/$defs"
            doc.origin[name] = overlay_shown
        overlay_doc = SchemaDoc(overlay_path, overlay_shown, "", extra, extra["$defs"], "/$defs")
        check_vocabulary(overlay_doc, extra, "")
    for name, node in doc.defs.items():
        at = doc.def_pointer(name)
        if not isinstance(node, dict):
            raise SpecError(doc.origin[name], at, "a definition must be a JSON object schema")
        anchor = node.get("$anchor")
        if anchor is not None:
            if anchor in doc.anchors:
                raise SpecError(doc.origin[name], at, f"duplicate $anchor {anchor!r}")
            doc.anchors[anchor] = name
    if "$ref" in raw:
        doc.root_ref = doc.resolve(raw["$ref"], "/$ref")
    for name, node in doc.defs.items():
        check_refs(doc, node, doc.def_pointer(name))
    return doc


def check_vocabulary(doc: SchemaDoc, node: Any, at: str) -> None:
    """Every keyword must be one specbind implements; fail on the first that is not."""
    if isinstance(node, bool):
        return
    if not isinstance(node, dict):
        raise SpecError(doc.display, at, f"a schema must be an object or a boolean, got {json.dumps(node)[:40]}")
    for key in sorted(node):
        value = node[key]
        where = pointer_join(at, key)
        if key not in V.KNOWN:
            raise SpecError(doc.display, where, f"unsupported JSON Schema keyword {key!r}")
        if key in V.SCHEMA_MAPS:
            if not isinstance(value, dict):
                raise SpecError(doc.display, where, f"{key} must be an object")
            for name, sub in value.items():
                check_vocabulary(doc, sub, pointer_join(where, name))
        elif key in V.SCHEMA_SINGLE:
            check_vocabulary(doc, value, where)
        elif key in V.SCHEMA_LISTS:
            if not isinstance(value, list) or not value:
                raise SpecError(doc.display, where, f"{key} must be a non-empty array of schemas")
            for i, sub in enumerate(value):
                check_vocabulary(doc, sub, pointer_join(where, i))


def check_refs(doc: SchemaDoc, node: Any, at: str) -> None:
    """Resolve every $ref once up front so a dangling one fails with its own pointer."""
    if isinstance(node, dict):
        for key in sorted(node):
            value = node[key]
            where = pointer_join(at, key)
            if key == "$ref":
                doc.resolve(value, where)
            elif key in V.SCHEMA_MAPS and isinstance(value, dict):
                for name, sub in value.items():
                    check_refs(doc, sub, pointer_join(where, name))
            elif key in V.SCHEMA_SINGLE or key in V.SCHEMA_LISTS:
                for i, sub in enumerate(value if isinstance(value, list) else [value]):
                    check_refs(doc, sub, pointer_join(where, i) if isinstance(value, list) else where)
