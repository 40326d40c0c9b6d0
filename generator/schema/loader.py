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

_DEF_REF = re.compile(r"^#/\$defs/([^/]+)$")
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

    def def_pointer(self, name: str) -> str:
        return pointer_join(self.defs_pointer, name)

    def resolve(self, ref: Any, at: str) -> str:
        """The definition name a `$ref` names, or a SpecError naming the dangling reference."""
        if not isinstance(ref, str):
            raise SpecError(self.display, at, f"$ref must be a string, got {json.dumps(ref)}")
        m = _DEF_REF.match(ref)
        if m:
            name = m.group(1).replace("~1", "/").replace("~0", "~")
            if name in self.defs:
                return name
            raise SpecError(self.display, at, f"dangling $ref {ref!r}: no definition named {name!r}")
        m = _ANCHOR_REF.match(ref)
        if m:
            if m.group(1) in self.anchors:
                return self.anchors[m.group(1)]
            raise SpecError(self.display, at, f"dangling $ref {ref!r}: no $anchor {m.group(1)!r}")
        raise SpecError(
            self.display,
            at,
            f"unsupported $ref {ref!r}: only local references to named definitions "
            "('#/$defs/Name' or '#Anchor') are supported",
        )


def read_json(path: Path, display: str) -> tuple[Any, bytes]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SpecError(display, "", f"cannot read: {exc.strerror}") from None
    try:
        return json.loads(data), data
    except json.JSONDecodeError as exc:
        raise SpecError(display, f"line {exc.lineno} column {exc.colno}", exc.msg) from None
    except UnicodeDecodeError as exc:
        raise SpecError(display, f"byte {exc.start}", "not valid UTF-8") from None


def load_schema(path: Path, display: str | None = None) -> SchemaDoc:
    shown = display or str(path)
    raw, data = read_json(path, shown)
    if not isinstance(raw, dict):
        raise SpecError(shown, "", "a schema document must be a JSON object")
    defs = raw.get("$defs")
    if not isinstance(defs, dict) or not defs:
        raise SpecError(shown, "/$defs", "the schema has no named definitions ($defs)")
    doc = SchemaDoc(
        path=path,
        display=shown,
        sha256=hashlib.sha256(data).hexdigest(),
        raw=raw,
        defs=defs,
        defs_pointer="/$defs",
    )
    check_vocabulary(doc, raw, "")
    for name, node in defs.items():
        at = doc.def_pointer(name)
        if not isinstance(node, dict):
            raise SpecError(shown, at, "a definition must be a JSON object schema")
        anchor = node.get("$anchor")
        if anchor is not None:
            if anchor in doc.anchors:
                raise SpecError(shown, at, f"duplicate $anchor {anchor!r}")
            doc.anchors[anchor] = name
    if "$ref" in raw:
        doc.root_ref = doc.resolve(raw["$ref"], "/$ref")
    check_refs(doc, raw, "")
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
