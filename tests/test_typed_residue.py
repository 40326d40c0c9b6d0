"""The typed read of a compiled definition (issue 23, item 2): msgspec reads the document into
the model, checking what it states, and the generated residue (accept.RESIDUE, from
generator/targets/python/residue.py) checks only what the model holds loosely and what an
object asserts beside its fields. Where either refuses, the plain read and the whole compiled
check decide, and the explaining path says why, so every verdict, value and error must be the
one the path without the residue gives: held here on a toy schema that reaches every kind of
residue (presence formulas of oneOf/anyOf/not over required, if/then/else whose branches reach
into the fields of nested models, uniqueItems, if/then on a plain value, a tagged
union with a compiled member, numbers under JSON Schema's integer rule in fields, arrays, maps
and unions), on valid, invalid and integral-float documents."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli, run_python

SCHEMA = Path(__file__).parent / "data" / "residue" / "toy.schema.json"

# (definition, document): valid and invalid, each residue op refusing at least once
DOCUMENTS = [
    ("Root", {"version": 1, "items": [], "a": "x"}),
    ("Root", {"version": 1, "items": [], "b": True}),
    ("Root", {"version": 1, "items": [], "a": "x", "b": True}),  # oneOf: both
    ("Root", {"version": 1, "items": []}),  # oneOf: neither
    ("Root", {"version": 1, "items": [], "a": "x", "c": 3}),  # not required [c, a]
    ("Root", {"version": 1, "items": [], "b": False, "c": 3}),
    ("Root", {"version": 1.0, "items": [], "a": "x"}),
    ("Root", {"version": 2, "items": [], "a": "x"}),
    ("Root", {"version": 1, "items": [], "a": "x", "extra": 2.0}),
    ("Root", {"version": 1, "items": [], "a": "x", "extra": 2.5}),
    ("Root", {"version": 1, "items": [], "a": "x", "extra": "s"}),  # minLength 2
    ("Root", {"version": 1, "items": [], "a": "x", "extra": None}),
    ("Root", {"version": 1, "items": [{"name": "n"}, {"weight": 3.0, "scores": [1.0, 2.5, 3], "meta": {"k": 4.0}}], "a": "x"}),
    ("Root", {"version": 1, "items": [{"tags": ["a"]}], "a": "x"}),  # anyOf: neither name nor weight
    ("Root", {"version": 1, "items": [{"name": "n", "tags": ["a", "a"]}], "a": "x"}),  # uniqueItems
    ("Root", {"version": 1, "items": [{"name": "n", "sched": {"interval": "cron"}}], "a": "x"}),  # if/then
    ("Root", {"version": 1, "items": [{"name": "n", "sched": {"interval": "cron", "cron": "* *"}}], "a": "x"}),
    ("Root", {"version": 1, "items": [{"name": "n", "when": "12:30", "level": None}], "a": "x"}),
    ("Root", {"version": 1, "items": [{"name": "n", "when": "1230"}], "a": "x"}),
    ("Root", {"version": 1, "items": [{"name": "n", "level": 2.0}], "a": "x"}),
    ("Root", {"version": 1, "items": [{"weight": -1.0}], "a": "x"}),
    ("Root", {"version": 1, "items": [], "a": "x", "shape": {"type": "circle", "r": 2.0}}),
    ("Root", {"version": 1, "items": [], "a": "x", "shape": {"type": "circle", "r": 0}}),
    ("Root", {"version": 1, "items": [], "a": "x", "shape": {"type": "square", "side": 1.0, "labels": ["a", "b"]}}),
    ("Root", {"version": 1, "items": [], "a": "x", "shape": {"type": "square", "side": 1, "labels": ["a", "a"]}}),
    ("Root", {"version": 1, "items": [], "a": "x", "shape": {"type": "square", "side": 1, "labels": ["a", "b", "c", "d"]}}),
    ("Root", {"version": 1, "items": [], "a": "x", "shape": {"type": "triangle"}}),
    ("Root", {"version": 1, "items": [], "a": "x", "other": 1}),
    ("Root", {"version": 1, "items": [{"name": "Ab"}], "b": True}),  # then: the pattern
    ("Root", {"version": 1, "items": [{"name": "ab"}], "b": True}),
    ("Root", {"version": 1, "items": [{"name": "Ab", "weight": 100.0}], "a": "x"}),  # else: the maximum
    ("Root", {"version": 1, "items": [{"name": "Ab", "weight": 101}], "a": "x"}),
    ("Root", {"version": 1, "items": [{"name": "Ab", "level": 7}], "a": "x"}),
    ("Root", {"version": 1, "items": [{"name": "Ab", "level": 7.0}], "b": False}),
    ("Root", {"version": 1, "items": [{"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": "d"}], "a": "x"}),
    ("Root", {"version": 1, "items": [{"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": "d"}], "b": True}),
    ("item", {"weight": 1e400}),
    ("Root", {"version": 1, "items": [{"weight": 1e300, "scores": [1.7976931348623157e308]}], "a": "x"}),  # a "+": the plain read
    ("item", {"name": "n", "scores": [1e308, 2.0]}),
    ("item", {"name": "n", "meta": {"a": 1, "b": "x"}}),
    ("shape", {"type": "square", "side": 2.0}),
    ("shapeSquare", {"type": "square", "side": 2, "labels": ["x", "x"]}),
]

CODE = """
import json
import msgspec
from toy import accept, codec_json
from toy.errors import DecodeError

documents = json.loads(DOCUMENTS)
definitions = sorted({d for d, _ in documents})
assert set(accept.RESIDUE) >= {"Root", "item", "shape", "shapeSquare"}, sorted(accept.RESIDUE)

from toy import strategies


def floated(x):
    # every integer written as a float: integral floats, valid under JSON Schema's integer rule
    if isinstance(x, bool):
        return x
    if isinstance(x, int):
        return float(x)
    if isinstance(x, list):
        return [floated(v) for v in x]
    if isinstance(x, dict):
        return {k: floated(v) for k, v in x.items()}
    return x


for d in definitions:
    for seed in range(40):
        doc = strategies.document(d, seed=seed)
        documents += [[d, doc], [d, floated(doc)]]


class Counting:
    # the plain read, counted: a document the typed read and its residue accept never takes it
    def __init__(self, inner):
        self.inner, self.calls = inner, 0

    def decode(self, data):
        self.calls += 1
        return self.inner.decode(data)


plain = codec_json._PLAIN = Counting(codec_json._PLAIN)
new = {d: codec_json.Decoder(d) for d in definitions}
residue = dict(accept.RESIDUE)
accept.RESIDUE.clear()  # decoders made now take the plain read and the whole check
old = {d: codec_json.Decoder(d) for d in definitions}
accept.RESIDUE.update(residue)


def outcome(decoder, data):
    try:
        value = decoder.decode(data)
    except DecodeError as exc:
        return ("refused", [str(e) + repr(vars(e) if hasattr(e, "__dict__") else e) for e in exc.errors], str(exc))
    # the value: its JSON (1 and 1.0 told apart) and every class in it
    classes = []

    def walk(x):
        if isinstance(x, msgspec.Struct):
            classes.append(type(x).__name__)
            for f in x.__struct_fields__:
                walk(getattr(x, f))
        elif isinstance(x, list):
            for v in x:
                walk(v)
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        else:
            classes.append(type(x).__name__)

    walk(value)
    return ("ok", msgspec.json.encode(value).decode(), classes)


valid = refused = typed = 0
for d, doc in documents:
    data = json.dumps(doc).encode()
    want = outcome(old[d], data)
    before = plain.calls
    got = outcome(new[d], data)
    assert got == want, (d, doc, got, want)
    if got[0] == "ok":
        valid += 1
        typed += plain.calls == before
    else:
        refused += 1
print(json.dumps({"valid": valid, "refused": refused, "typed": typed}))
"""


def test_the_typed_read_and_its_residue_decide_as_the_whole_check(tmp_path: Path) -> None:
    made = run_cli("init", str(SCHEMA), "--name", "toy", "--spec-dir", str(tmp_path / "spec"))
    assert made.exit_code == 0, made.output
    done = run_cli("generate", "--spec", str(tmp_path / "spec" / "toy"), "--out", str(tmp_path / "out"))
    assert done.exit_code == 0, done.output
    ran = run_python(f"DOCUMENTS = {json.dumps(json.dumps(DOCUMENTS))}\n" + CODE, tmp_path / "out", [tmp_path / "out"])
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    counts = json.loads(ran.stdout.strip().splitlines()[-1])
    assert counts["refused"] >= 15 and counts["valid"] >= 100, counts
    # most valid documents never took the plain read: the typed read and the residue decided
    # them (the others hold what the typed read leaves to the old path: 1.0 for an integer)
    assert counts["typed"] >= counts["valid"] // 2, counts
