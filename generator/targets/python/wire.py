"""The Python target's context for templates/proto/: the `.proto` file, the pure-Python protobuf
codec and its HTTP framing, and their generated tests, all written into the spec's package.

The wire plan (a shared product, generator/wire) decides every message, field, number and
route; this builder shapes it for the templates: the .proto's declarations and doc comments,
the codec's statements per message and field (`codec_plan`: the Python codec's back end), the
data of the generated tests and the spec's golden frames. The codec's fixed part is the
runtime set `runtime/python/proto/`, copied into the package beside it."""

from __future__ import annotations

import hashlib
import json
import textwrap
from typing import Any

from ...binding import CONFIG, Binding
from ...errors import SpecError
from ...products import Products
from ...schema.loader import read_json
from ...wire.plan import WField, WirePlan
from .. import Data, Plan
from . import codec_plan
from .context import python_package

MEDIA_TYPE_DEFAULT = "application/x-protobuf"


def build(products: Products) -> Plan:
    binding, ir, wire = products.binding, products.ir, products.wire
    assert wire is not None
    cfg = binding.target("proto")
    package = python_package(binding)
    ledger_bytes = wire.ledger.render().encode("utf-8")
    golden = _golden(binding, cfg)
    context = {
        "package": package,
        "protocol": binding.name,
        "protocol_version": binding.version,
        "source": binding.stable(binding.schema),
        "sha256": ir.sha256,
        "ledger_source": binding.stable(wire.ledger_path) if wire.ledger_path.exists() else wire.ledger_shown,
        "ledger_sha256": hashlib.sha256(ledger_bytes).hexdigest(),
        "proto_package": wire.package,
        "media_type": cfg.get("media_type", MEDIA_TYPE_DEFAULT),
        "root": binding.root or ir.root,
        "roots": wire.roots,
        "enums": [_enum(e) for e in wire.enums.values()],
        "proto_messages": _nested(wire),
        # the codec, decided per message and field (codec_plan)
        "codec_enums": [codec_plan.enum(e) for e in wire.enums.values()],
        "codec_messages": codec_plan.messages(wire, binding.display(binding.spec_dir / CONFIG)),
        "entries": codec_plan.entries(wire, ir),
        "probes": _probes(wire),
        "error_path": _error_path(wire),
        "golden_count": len(golden),
        "rules": products.rules is not None,
        "slot_count": len(wire.ledger.entries),
    }
    data = [
        Data("tests/proto_golden.json", (json.dumps({"frames": golden}, indent=1, ensure_ascii=False) + "\n").encode("utf-8")),
        Data("tests/proto_ledger.txt", ledger_bytes),
    ]
    return Plan(package_dir=package, context=context, data=tuple(data), templates="proto", runtime=("proto",))


def _golden(binding: Binding, cfg: dict[str, Any]) -> list[Any]:
    """The spec's golden frames (`[proto].golden`): events with the bytes a reference encoder
    produced for them, which the generated tests hold the codec to."""
    name = cfg.get("golden")
    if name is None:
        return []
    path = binding.spec_dir / str(name)
    shown = binding.display(path)
    if not path.is_file():
        raise SpecError(shown, "", "the golden frames named in binding.toml ([proto].golden) do not exist")
    doc, _ = read_json(path, shown)
    frames = doc.get("frames") if isinstance(doc, dict) else None
    if not isinstance(frames, list):
        raise SpecError(shown, "/frames", "expected an array of {name, definition, document, hex}")
    for i, f in enumerate(frames):
        if not isinstance(f, dict) or not all(isinstance(f.get(k), str) for k in ("name", "definition", "hex")) or "document" not in f:
            raise SpecError(shown, f"/frames/{i}", "needs name, definition and hex strings and a document")
        try:
            bytes.fromhex(f["hex"])
        except ValueError:
            raise SpecError(shown, f"/frames/{i}/hex", "not hexadecimal") from None
    return frames


def _comment(text: str | None, width: int = 96) -> list[str]:
    if not text:
        return []
    lines: list[str] = []
    for para in text.split("\n\n"):
        lines += textwrap.wrap(" ".join(para.split()), width=width) or [""]
    return lines


def _first_sentence(text: str | None) -> str:
    if not text:
        return ""
    flat = " ".join(text.split())
    cut = flat.find(". ")
    return flat if cut < 0 else flat[: cut + 1]


def _enum(e: Any) -> dict[str, Any]:
    return {
        "name": e.name,
        "doc": _comment(e.doc),
        "members": [{"name": n, "number": v, "json": j} for n, v, j in e.values],
        "reserved": e.reserved,
    }


def _proto_field(f: WField) -> dict[str, Any]:
    label = "repeated " if f.repeated else "optional " if f.optional and not f.oneof else ""
    return {"decl": f"{label}{f.proto_type} {f.name} = {f.number};", "doc": _first_sentence(f.doc), "oneof": f.oneof}


def _nested(wire: WirePlan) -> list[dict[str, Any]]:
    """Messages as the .proto declares them: top-level ones, each with its nested ones."""
    out: dict[str, dict[str, Any]] = {}
    for m in wire.messages.values():
        entry = {
            "name": m.simple,
            "doc": _comment(m.doc),
            "fields": [_proto_field(f) for f in m.fields if not f.oneof],
            "oneof": m.oneof,
            "arms": [_proto_field(f) for f in m.fields if f.oneof],
            "reserved_numbers": ", ".join(str(n) for n, _ in m.reserved),
            "reserved_names": ", ".join(json.dumps(name) for _, name in m.reserved),
            "nested": [],
        }
        if m.parent is None:
            out[m.name] = entry
        else:
            out[m.parent]["nested"].append(entry)
    return list(out.values())


def _error_path(wire: WirePlan) -> str:
    """A protobuf field path as the codec's errors name it, for its docstring, from the spec's
    own messages: depth-first from the first root, the first path through a repeated message
    field down to a scalar one, else the first path to a scalar."""
    first: list[str] = []

    def walk(name: str, path: list[str], seen: frozenset[str], listed: bool) -> list[str] | None:
        for f in wire.messages[name].fields:
            step = path + [f.name] + (["0"] if f.repeated else [])
            if f.kind == "message" and f.ref is not None:
                if f.ref not in seen:
                    found = walk(f.ref, step, seen | {f.ref}, listed or f.repeated)
                    if found:
                        return found
            elif listed:
                return step
            elif not first:
                first.extend(step)
        return None

    root = wire.definitions[wire.roots[0]]
    return "/" + "/".join(walk(root, [], frozenset({root}), False) or first)


def _probes(wire: WirePlan) -> list[dict[str, Any]]:
    """For the generated bad-bytes tests: per object message, one field of each scalar kind with
    its tag, so bytes breaking exactly that field can be built; `wrap` is the tag of the oneof
    arm a union member travels in (empty when the message travels on its own)."""
    arms: dict[str, int] = {}
    for m in wire.messages.values():
        if m.strategy == "oneof":
            for f in m.fields:
                assert f.ref is not None
                arms[f.ref] = f.tag
    out = []
    for definition, name in sorted(wire.definitions.items(), key=lambda kv: kv[1]):
        msg = wire.messages[name]
        if msg.strategy != "object" or msg.definition != definition:
            continue
        picks: dict[str, Any] = {}
        for f in msg.fields:
            if f.repeated or f.oneof or f.route.kind not in ("prop", "tag"):
                continue
            kind = f.kind if f.kind in ("string", "enum", "value", "bool", "int64") else None
            if kind and kind not in picks:
                picks[kind] = {"tag_hex": codec_plan.varint(f.tag).hex(), "label": f"{name}.{f.name} ({f.number})", "key": f.route.key}
        if picks:
            wrap = codec_plan.varint(arms[name]).hex() if name in arms else ""
            out.append({"definition": definition, "message": name, "wrap": wrap, "fields": picks})
    return out
