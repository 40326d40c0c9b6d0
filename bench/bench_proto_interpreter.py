#!/usr/bin/env python3
"""The protobuf codec's other possible design, measured: a table-driven interpreter in the
runtime (one generic decode and one generic encode function walking per-message tables built
from the wire plan) against the generated straight-line codec (``agui.codec_proto``: one
function per message). docs/protobuf.md ("Straight-line code or an interpreter") has the
figures and the decision.

    .venv/bin/python bench/bench_proto_interpreter.py [--runs 200] [--rounds 5]

The interpreter is a faithful prototype, not a sketch: it keeps every guard of the generated
codec that the corpus can reach (duplicates, truncation, wire types, enum numbers, bool range,
UTF-8, fragments, splits, inline unions, merged unions, oneof arms and their discriminator,
proto3 defaults, required arrays) and must give the same documents and the same bytes on the
whole corpus before anything is timed (exit 3 otherwise). Both sides run the wire part only
(bytes <-> JSON document): the JSON Schema check and msgspec's conversion to typed values cost
the same whatever builds the document.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "generated"))
sys.path.insert(0, str(REPO))

from agui import codec_json, codec_proto  # noqa: E402
from agui.proto_wire import (  # noqa: E402
    DROPPED,
    LENIENT,
    M64,
    SHORT_VARINTS,
    Unencodable,
    WireError,
    decode_struct,
    decode_value,
    encode_struct,
    encode_value,
    malformed,
    pack_double,
    read_u32,
    read_varint,
    skip,
    truncated,
    unpack_double,
    varint,
)

from generator.binding import load_binding  # noqa: E402
from generator.products import load_ir  # noqa: E402
from generator.wire.plan import SCALARS, WField, WirePlan, WMessage, plan  # noqa: E402

GEN_CORPUS = REPO.parent / "shared" / "bench" / "gen_corpus.py"
_V = SHORT_VARINTS

# read kinds
R_STRING, R_MESSAGE, R_VALUE, R_STRUCT, R_INT64, R_BOOL, R_ENUM, R_DOUBLE = range(8)
# where a decoded value goes
S_PROP, S_LIST, S_HOLD, S_HOLD_LIST, S_ARM = range(5)
# where an encoded value comes from
E_DOCUMENT, E_PROP, E_SPLIT, E_INLINE, E_PROMOTED = range(5)
_READ = {"string": R_STRING, "message": R_MESSAGE, "value": R_VALUE, "struct": R_STRUCT, "int64": R_INT64, "bool": R_BOOL, "enum": R_ENUM, "double": R_DOUBLE}
_PYTYPE = {"string": str, "array": list, "object": dict, "boolean": bool, "number": float}
_DEFAULT = {"string": "", "int64": 0, "bool": False, "double": 0.0}


class Table:
    """One message: its fields by tag (decoding), its blocks (encoding), what follows the loop."""

    def __init__(self, m: WMessage) -> None:
        self.name = m.name
        self.known = {f.number: (f.name, f.wire_type) for f in m.fields}
        self.oneof = m.strategy == "oneof"
        self.fields: dict[int, tuple[Any, ...]] = {}
        self.holds: list[Any] = []
        self.finish: list[tuple[Any, ...]] = []
        self.encodes: list[tuple[Any, ...]] = []
        self.arms: dict[Any, tuple[bytes, Table]] = {}
        self.discriminator = m.discriminator
        self.no_arm = f"{m.name} sets none of its {len(m.fields)} arms"


def build(wire: WirePlan) -> dict[str, Table]:
    tables = {name: Table(m) for name, m in wire.messages.items()}
    dv = {name: {n: j for _, n, j in e.values} for name, e in wire.enums.items()}
    ev = {name: {j: n for _, n, j in e.values} for name, e in wire.enums.items()}

    def sub(f: WField) -> Any:
        if f.kind == "message":
            return tables[str(f.ref)]
        if f.kind == "enum":
            return dv[str(f.ref)]
        return None

    def write_sub(f: WField) -> Any:
        if f.kind == "message":
            return tables[str(f.ref)]
        if f.kind == "enum":
            return ev[str(f.ref)]
        return None

    for name, m in wire.messages.items():
        t = tables[name]
        slot: dict[int, int] = {}
        for f in m.fields:
            if f.route.kind in ("fragment", "split", "inline", "promoted"):
                slot[f.number] = len(t.holds)
                t.holds.append(None if f.repeated else DROPPED)
        for f in m.fields:
            label = f"{f.name} ({f.number})"
            where = f"{m.name}.{label}"
            dropped_ok = f.kind == "message" and wire.messages[str(f.ref)].strategy == "oneof"
            read = (_READ[f.kind], sub(f), label, where, f.name, str(f.ref))
            if f.route.kind == "arm":
                carried = m.discriminator if m.carried else None
                t.fields[f.tag] = (*read, S_ARM, f.name, dropped_ok, (carried, f.route.tag))
                t.arms[f.route.tag] = (varint(f.tag), tables[str(f.ref)])
            elif f.route.kind in ("prop", "tag"):
                t.fields[f.tag] = (*read, S_LIST if f.repeated else S_PROP, f.route.key, dropped_ok, None)
            else:
                t.fields[f.tag] = (*read, S_HOLD_LIST if f.repeated else S_HOLD, slot[f.number], dropped_ok, None)
        if t.oneof:
            continue
        for f in m.fields:
            if f.route.kind == "fragment":
                t.finish.append(("fragment", slot[f.number], f"{m.name}.{f.name} ({f.number}) is absent"))
        for f in m.fields:
            plain = f.kind in SCALARS and not f.optional and not f.repeated and not f.oneof
            if plain and f.route.kind in ("prop", "tag"):
                t.finish.append(("default", f.route.key, dv[str(f.ref)][0] if f.kind == "enum" else _DEFAULT[f.kind]))
        splits: dict[str, list[WField]] = {}
        for f in m.fields:
            if f.route.kind == "split":
                splits.setdefault(f.route.key, []).append(f)
        for key, arms in splits.items():
            t.finish.append(("split", key, [(slot[f.number], None if f.repeated else DROPPED) for f in arms], f"{m.name} carries {key} as more than one of ..."))
        for h in m.fields:
            if h.route.kind == "inline":
                promoted = [(slot[f.number], None if f.repeated else DROPPED, f.route.member_key) for f in m.fields if f.route.kind == "promoted" and f.route.key == h.route.key]
                t.finish.append(("inline", slot[h.number], h.route.key, h.route.member_key, promoted, {tag: list(keys) for tag, keys in h.tag_defaults.items()}))
        for k in sorted(m.defaults.get("", {})):
            t.finish.append(("empty", k))
        if m.strategy == "merge" and m.defaults:
            t.finish.append(("member_empty", m.discriminator, {tag: sorted(keys) for tag, keys in m.defaults.items()}))
        if m.constant is not None:
            t.finish.append(("constant", m.discriminator, m.constant))
        for f in m.fields:
            plain = f.kind in SCALARS and not f.optional and not f.repeated and not f.oneof
            w = (_READ[f.kind], varint(f.tag), write_sub(f))
            value = f.kind == "value" and not f.repeated
            absent = DROPPED if value else None
            r = f.route
            if r.kind == "fragment":
                t.encodes.append((E_DOCUMENT, "", absent, None, False, False, *w))
            elif r.kind in ("prop", "tag"):
                t.encodes.append((E_PROP, r.key, absent, None, f.repeated, plain, *w))
            elif r.kind == "split":
                t.encodes.append((E_SPLIT, r.key, absent, _PYTYPE.get(r.jkind, float), f.repeated, plain, *w))
            elif r.kind == "inline":
                t.encodes.append((E_INLINE, r.key, absent, r.member_key, f.repeated, plain, *w))
            else:
                t.encodes.append((E_PROMOTED, r.key, absent, r.member_key, f.repeated, plain, *w))
    return tables


# -- the interpreter ---------------------------------------------------------------------------


def decode(t: Table, data: bytes) -> Any:
    out: dict[str, Any] = {}
    held = t.holds[:]
    fields = t.fields
    pos = 0
    end = len(data)
    tag = 0
    arm = None
    unknown = False
    v: Any
    try:
        while pos < end:
            tag = data[pos]
            pos += 1
            if tag >= 0x80:
                tag, pos = read_u32(data, pos - 1, "tag")
            f = fields.get(tag)
            if f is None:
                pos = skip(data, pos, tag, t.name, t.known)
                unknown = True
                continue
            rk, sub, label, where, path, ref, store, key, dropped_ok, carried = f
            if store == S_PROP and key in out:
                raise WireError("duplicate", f"{where} is given twice", pos - 1)
            if store == S_HOLD and held[key] is not DROPPED:
                raise WireError("duplicate", f"{where} is given twice", pos - 1)
            if store == S_ARM and arm is not None:
                if arm == key:
                    raise WireError("duplicate", f"{where} is given twice", pos - 1)
                raise WireError("oneof", f"{t.name} sets both {arm} and {key}: exactly one arm may be set", pos - 1)
            if rk <= R_STRUCT:
                n = data[pos]
                if n < 0x80:
                    pos += 1
                else:
                    n, pos = read_u32(data, pos, "length")
                stop = pos + n
                if stop > end:
                    raise truncated(label, pos)
                if rk == R_STRING:
                    v = data[pos:stop].decode()
                else:
                    try:
                        v = decode(sub, data[pos:stop]) if rk == R_MESSAGE else decode_value(data[pos:stop]) if rk == R_VALUE else decode_struct(data[pos:stop])
                    except WireError as exc:
                        index = None
                        if store == S_LIST:
                            lst = out.get(key)
                            index = 0 if lst is None else len(lst)
                        elif store == S_HOLD_LIST:
                            index = 0 if held[key] is None else len(held[key])
                        raise exc.at(path, pos, index) from None
                pos = stop
            elif rk == R_DOUBLE:
                if pos + 8 > end:
                    raise truncated(label, pos)
                v = unpack_double(data, pos)[0]
                pos += 8
            else:
                v = data[pos]
                if v < 0x80:
                    pos += 1
                else:
                    v, pos = read_varint(data, pos)
                if rk == R_INT64:
                    if v > 0x7FFFFFFFFFFFFFFF:
                        v -= 0x10000000000000000
                elif rk == R_BOOL:
                    if v > 1:
                        raise WireError("range", f"{where} is {v}: a bool is 0 or 1", pos - 1)
                    v = v == 1
                else:
                    n = v
                    v = sub.get(n)
                    if v is None:
                        raise WireError("enum", f"{where} is {n}: {ref} has no such value", pos - 1)
            if dropped_ok and v is DROPPED:
                continue
            if store == S_PROP:
                out[key] = v
            elif store == S_LIST:
                lst = out.get(key)
                if lst is None:
                    out[key] = [v]
                else:
                    lst.append(v)
            elif store == S_HOLD:
                held[key] = v
            elif store == S_HOLD_LIST:
                lst = held[key]
                if lst is None:
                    held[key] = [v]
                else:
                    lst.append(v)
            else:
                disc, expected = carried
                if disc is not None:
                    got = v.get(disc)
                    if got != expected:
                        raise WireError("oneof", f"arm {label} carries {disc} {got}, not {expected}", pos)
                arm = key
                out = v
    except (IndexError, UnicodeDecodeError) as exc:
        raise malformed(exc, t.name, tag, pos) from None
    if t.oneof:
        if arm is None:
            if unknown and LENIENT.get() is not None:
                return DROPPED
            raise WireError("oneof", t.no_arm, 0)
        return out
    for op in t.finish:
        kind = op[0]
        if kind == "fragment":
            if held[op[1]] is DROPPED:
                raise WireError("missing", op[2], 0)
            out.update(held[op[1]])
        elif kind == "default":
            if op[1] not in out:
                out[op[1]] = op[2]
        elif kind == "split":
            present = [s for s, absent in op[2] if held[s] is not absent]
            if len(present) > 1:
                raise WireError("oneof", op[3], 0)
            if present:
                out[op[1]] = held[present[0]]
        elif kind == "inline":
            _, s, key, disc, promoted, empty = op
            r = held[s]
            if r is not DROPPED and r != "":
                inline = {disc: r}
                for ps, absent, member_key in promoted:
                    if held[ps] is not absent:
                        inline[member_key] = held[ps]
                for k in empty.get(r, ()):
                    inline.setdefault(k, [])
                out[key] = inline
            else:
                for ps, absent, member_key in promoted:
                    if held[ps] is not absent:
                        raise WireError("missing", f"{member_key} is set but {key} is empty", 0)
        elif kind == "empty":
            if op[1] not in out:
                out[op[1]] = []
        elif kind == "member_empty":
            for k in op[2].get(out.get(op[1]), ()):
                if k not in out:
                    out[k] = []
        else:
            out[op[1]] = op[2]
    return out


def encode(t: Table, d: dict[str, Any]) -> bytearray:
    out = bytearray()
    if t.oneof:
        which = d.get(t.discriminator)  # type: ignore[arg-type]
        found = t.arms.get(which)
        if found is None:
            raise Unencodable(f"{t.name} has no arm for {t.discriminator} {which!r}")
        b = encode(found[1], d)
        n = len(b)
        out += found[0]
        out += _V[n] if n < 0x80 else varint(n)
        out += b
        return out
    for source, key, absent, extra, each, plain, wk, tag_bytes, sub in t.encodes:
        if source == E_DOCUMENT:
            v: Any = d
        elif source == E_PROP:
            v = d.get(key, absent)
            if v is absent:
                continue
        elif source == E_SPLIT:
            v = d.get(key)
            if type(v) is not extra:
                continue
        else:
            o = d.get(key)
            if o is None:
                continue
            if source == E_INLINE:
                v = o[extra]
            else:
                v = o.get(extra, absent)
                if v is absent:
                    continue
        for x in v if each else (v,):
            if plain and not (sub[x] if wk == R_ENUM else x):
                continue
            if wk == R_STRING:
                b = x.encode()
            elif wk == R_MESSAGE:
                b = encode(sub, x)
            elif wk == R_VALUE:
                b = encode_value(x)
            elif wk == R_STRUCT:
                b = encode_struct(x)
            elif wk == R_INT64:
                out += tag_bytes
                out += varint(x & M64)
                continue
            elif wk == R_BOOL:
                out += tag_bytes
                out += b"\x01" if x else b"\x00"
                continue
            elif wk == R_ENUM:
                out += tag_bytes
                out += varint(sub[x])
                continue
            else:
                out += tag_bytes
                out += pack_double(x)
                continue
            n = len(b)
            out += tag_bytes
            out += _V[n] if n < 0x80 else varint(n)
            out += b
    return out


# -- measurement -------------------------------------------------------------------------------


def timed(fn: Callable[[], Any], rounds: int) -> list[float]:
    fn()
    out = []
    for _ in range(rounds):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    binding = load_binding(REPO / "spec" / "agui")
    wire = plan(binding, load_ir(binding))
    tables = build(wire)
    event = tables[wire.definitions["Event"]]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "corpus.jsonl"
        subprocess.run([sys.executable, str(GEN_CORPUS), "--runs", str(args.runs), "--seed", str(args.seed), "--out", str(path)], check=True, capture_output=True)
        lines = [line for line in path.read_bytes().splitlines() if line.strip()]
    frames = [codec_proto.encode(codec_json.decode(line)) for line in lines]
    documents = [codec_proto.decode_document(f) for f in frames]
    generated_encode = codec_proto._ENTRIES["Event"].encode  # the generated envelope encoder
    generated_decode = codec_proto._ENTRIES["Event"].decode
    bad = 0
    for f, doc in zip(frames, documents):
        if decode(event, f) != doc or bytes(encode(event, doc)) != f:
            bad += 1
    if bad:
        print(f"the interpreter disagrees with the generated codec on {bad} of {len(frames)} events", file=sys.stderr)
        return 3
    n = len(frames)
    rows = {
        "generated decode (bytes -> document)": lambda: [generated_decode(f) for f in frames],
        "interpreter decode (bytes -> document)": lambda: [decode(event, f) for f in frames],
        "generated encode (document -> bytes)": lambda: [generated_encode(d) for d in documents],
        "interpreter encode (document -> bytes)": lambda: [encode(event, d) for d in documents],
    }
    results: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(args.rounds):  # round-robin, so drift on the machine hits each row alike
        for name, fn in rows.items():
            results[name] += timed(fn, 1)
    print(f"corpus: {n:,} events ({args.runs} runs, seed {args.seed}); median of {args.rounds} rounds, round-robin")
    eps = {name: n / statistics.median(secs) for name, secs in results.items()}
    for name, value in eps.items():
        print(f"  {name:<42} {value:>10,.0f} events/s")
    print(f"  interpreter/generated: decode {eps['interpreter decode (bytes -> document)'] / eps['generated decode (bytes -> document)']:.2f}x, "
          f"encode {eps['interpreter encode (document -> bytes)'] / eps['generated encode (document -> bytes)']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
