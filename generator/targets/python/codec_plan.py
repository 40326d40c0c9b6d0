"""The Python protobuf codec's back end: every decision the generated `codec_proto.py` embodies,
made here, per message and per field, and handed to `templates/proto/codec_proto.py.j2` as
plain data for it to lay out.

The generated codec is straight-line code: per message one decode function (a loop over the
tags, one branch per field, then the statements that assemble the JSON document) and one encode
function (one block per field). The fixed part (varints, unknown fields, google.protobuf.Value,
the entry points) is the runtime set `runtime/python/proto/`.

Per field this module decides:

- `Decode` (one branch of the tag loop): the tag, where the value goes (`store`: a property of
  the document, an element of a list, a local held until the loop ends, the oneof arm) and how
  one occurrence is read (`Read`: a UTF-8 string, a sub-message by its function, a varint as
  int64, bool or enum, a double);
- `Finish` statements after the loop: fragments merged in, proto3 defaults for plain scalars,
  a split property reassembled, an inline union rebuilt under its discriminator, empty arrays
  for required arrays, the constant a oneof member's message leaves out;
- `Encode` (one block per field): where the value comes from (a property, the whole document
  for a fragment, a property of one JSON type, an inline union's discriminator or member
  property) and how it is written (`Write`), with the proto3 default left out of plain fields.

Every literal is made here (`pystr`, `fstr`), so the templates never quote spec data.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import ClassVar

from ...errors import SpecError
from ...ir import model as M
from ...wire.plan import SCALARS, WEnum, WField, WirePlan, WMessage
from .symbols import identifier

DROPPED = "_DROPPED"  # the generated codec's name of the runtime's "nothing read" sentinel

# a property split by JSON type: the Python type a document value of that JSON type has
_SPLIT_TYPES = {"string": "str", "array": "list", "object": "dict", "boolean": "bool", "number": "float"}
# proto3 defaults of plain (no presence) scalars, as the decoder fills them in
_DEFAULTS = {"string": '""', "int64": "0", "bool": "False", "double": "0.0"}


def pystr(text: str) -> str:
    """A Python string literal (JSON's escaping is valid Python)."""
    return json.dumps(text, ensure_ascii=False)


def fstr(*parts: str) -> str:
    """An f-string literal: `parts` alternate between text (escaped: quotes, braces) and
    expressions evaluated where the literal runs."""
    out = []
    for i, part in enumerate(parts):
        out.append(pystr(part)[1:-1].replace("{", "{{").replace("}", "}}") if i % 2 == 0 else "{" + part + "}")
    return 'f"' + "".join(out) + '"'


# -- names ----------------------------------------------------------------------------------------


def fn(message: str) -> str:
    """The part of a message's Python names after the prefix (`Outer.Inner` -> `Outer_Inner`)."""
    return identifier(message.replace(".", "_"))


def decoder(message: str) -> str:
    return f"_d_{fn(message)}"


def encoder(message: str) -> str:
    return f"_e_{fn(message)}"


def encode_table(enum: str) -> str:
    return f"_EV_{identifier(enum)}"


def decode_table(enum: str) -> str:
    return f"_DV_{identifier(enum)}"


def varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


# -- decoding -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Read:
    """How one occurrence of a field is read into `v` (the tag is read; `pos` is after it).

    kind: `string` (UTF-8), `sub` (a length-delimited message decoded by `call`; an error inside
    is located at `path`, and `index` when the field is repeated), `int64`, `bool`, `enum` (a
    number looked up in `table`), `double`."""

    kind: str
    label: str  # literal naming the field in a truncation error
    call: str = ""
    path: str = ""
    index: str = ""
    table: str = ""
    error: str = ""  # bool, enum: literal of the bad-value error (`v` resp. `n` is the number)


@dataclass(frozen=True)
class Carried:
    """An arm whose member carries the discriminator itself: checked against the arm."""

    key: str  # literal: the discriminator's JSON key
    tag: str  # literal: the value the arm stands for
    error: str


@dataclass(frozen=True)
class Decode:
    """One branch of the tag loop.

    store: `prop` (document property `key`; given twice is an error), `list` (an element of
    the array at `key`), `hold` / `hold_list` (the local `var`, assembled after the loop), `arm`
    (the oneof arm `arm`: the member's document becomes the document)."""

    tag: int
    store: str
    read: Read
    key: str = ""
    var: str = ""
    duplicate: str = ""  # literal: the field given twice
    # a oneof message's document may come back DROPPED (lenient: an arm this build lacks)
    skip_dropped: bool = False
    # prop: literal of what a required member that came back DROPPED stands as (an unknown
    # discriminator value), so that the JSON Schema's lenient rules strip it, and its holder
    # with it, as they strip it in JSON; "" leaves the member out
    dropped: str = ""
    arm: str = ""
    both: str = ""  # arm: literal of the error for a second arm
    carried: Carried | None = None


@dataclass(frozen=True)
class Hold:
    """A local declared before the loop: `var`, starting as `absent`."""

    var: str
    absent: str


@dataclass(frozen=True)
class Fragment:
    """A sub-message whose properties join the document; required."""

    kind: ClassVar[str] = "fragment"
    var: str
    error: str


@dataclass(frozen=True)
class Default:
    """A plain scalar the wire left out: its proto3 default."""

    kind: ClassVar[str] = "default"
    key: str
    value: str


@dataclass(frozen=True)
class Split:
    """A property carried as one field per JSON type: at most one may be set."""

    kind: ClassVar[str] = "split"
    key: str
    present: tuple[Hold, ...]
    error: str


@dataclass(frozen=True)
class Promoted:
    """A member's property of an inline union, carried as a field of the parent."""

    var: str
    absent: str
    key: str  # the member's JSON key
    error: str  # literal: set without the discriminator


@dataclass(frozen=True)
class Inline:
    """An inline union rebuilt: its discriminator (`var`, empty meaning absent) under the
    union's discriminator key, the promoted fields that are set, and per member the required
    arrays the wire could not tell from absent."""

    kind: ClassVar[str] = "inline"
    var: str
    key: str  # the parent's property holding the union
    discriminator: str  # literal: the union's discriminator key
    annotate: bool  # the first inline union of the message declares `inline`
    promoted: tuple[Promoted, ...]
    empty_arrays: tuple[tuple[str, tuple[str, ...]], ...]  # (member tag, its keys)


@dataclass(frozen=True)
class EmptyList:
    """A required array the wire left out (an empty repeated field): []."""

    kind: ClassVar[str] = "empty_list"
    key: str


@dataclass(frozen=True)
class MemberEmptyLists:
    """A merged union's required arrays, per member (the table `table`, keyed by the
    discriminator at `key`)."""

    kind: ClassVar[str] = "member_empty_lists"
    table: str
    key: str


@dataclass(frozen=True)
class Constant:
    """The discriminator a oneof member's message leaves out (the arm says it)."""

    kind: ClassVar[str] = "constant"
    key: str
    value: str


Finish = Fragment | Default | Split | Inline | EmptyList | MemberEmptyLists | Constant


# -- encoding -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Write:
    """How one value is written after its tag bytes.

    kind: `string`, `sub` (length-delimited, the bytes made by `call`), `int64`, `bool`,
    `enum` (its number from `table`), `double`."""

    kind: str
    tag_bytes: str  # literal
    call: str = ""
    table: str = ""


@dataclass(frozen=True)
class Encode:
    """One block of an encode function.

    source: `document` (a fragment: made of the document's own properties), `prop` (property
    `key`, absent when it is `absent`), `split` (property `key` when its Python type is
    `pytype`), `inline` (the discriminator `member_key` of the inline union at `key`),
    `promoted` (property `member_key` of the inline union at `key`, absent when `absent`).
    fetch: the expression reading the value into `v` (`o` for the inline union's object); each:
    repeated (write every element); guard: the test a plain scalar's value must pass to be
    written (proto3 leaves the default out), empty when every value is written."""

    source: str
    write: Write
    fetch: str = ""
    key: str = ""
    absent: str = "None"
    pytype: str = ""
    each: bool = False
    guard: str = ""


@dataclass(frozen=True)
class Arm:
    tag: str  # literal: the discriminator value
    tag_bytes: str
    encoder: str


@dataclass
class MessageCode:
    """Everything the template lays out for one message."""

    name: str  # the protobuf message, as errors name it
    decoder: str
    encoder: str
    known: str  # the table of its fields by number (wire types), for skipping
    fields: list[tuple[int, str, int]]  # (number, name, wire type)
    holds: list[Hold] = field(default_factory=list)
    decodes: list[Decode] = field(default_factory=list)
    finish: list[Finish] = field(default_factory=list)
    encodes: list[Encode] = field(default_factory=list)
    # a oneof message: its arms (encoding), the error for no arm (decoding) and for an unknown
    # discriminator (encoding), and the key of the discriminator
    oneof: bool = False
    arms_table: str = ""
    arms: list[Arm] = field(default_factory=list)
    no_arm: str = ""
    bad_arm: str = ""
    discriminator: str = ""
    # a merged union's required arrays per member
    member_defaults: MemberDefaults | None = None


@dataclass(frozen=True)
class MemberDefaults:
    """The table of a merged union's required arrays: per member tag, the keys decoding fills
    with [] when the wire is silent."""

    table: str
    members: list[tuple[str, list[str]]]  # (tag literal, key literals)


@dataclass(frozen=True)
class EnumCode:
    encode_table: str
    decode_table: str
    members: list[tuple[str, int]]  # (JSON string, number)


@dataclass(frozen=True)
class EntryCode:
    """A definition the codec carries on its own."""

    name: str
    message: str  # the protobuf message it travels as
    decoder: str
    encoder: str
    convert: str  # the models class (or union alias) its document is converted to
    expect: str  # the class the result must be (a member of the union it travels as), or None
    discriminator: str | None
    classes_table: str | None
    classes: dict[str, str] | None  # discriminator value -> models class


# -- per message ----------------------------------------------------------------------------------


def _label(f: WField) -> str:
    return f"{f.name} ({f.number})"


def _absent(f: WField) -> str:
    return "None" if f.repeated else DROPPED


def _read(f: WField, msg: WMessage, wire: WirePlan, index: str) -> Read:
    label = pystr(_label(f))
    where = f"{msg.name}.{_label(f)}"
    if f.kind == "string":
        return Read("string", label)
    if f.kind in ("message", "value", "struct"):
        call = {"value": "_d_value", "struct": "_d_struct"}.get(f.kind) or decoder(wire.messages[str(f.ref)].name)
        return Read("sub", label, call=call, path=pystr(f.name), index=index)
    if f.kind == "int64":
        return Read("int64", label)
    if f.kind == "bool":
        return Read("bool", label, error=fstr(f"{where} is ", "v", ": a bool is 0 or 1"))
    if f.kind == "enum":
        return Read("enum", label, table=decode_table(str(f.ref)), error=fstr(f"{where} is ", "n", f": {f.ref} has no such value"))
    if f.kind == "double":
        return Read("double", label)
    raise AssertionError(f"no reader for the wire kind {f.kind!r}")


def _write(f: WField, wire: WirePlan) -> Write:
    tag_bytes = repr(varint(f.tag))
    if f.kind == "string":
        return Write("string", tag_bytes)
    if f.kind in ("message", "value", "struct"):
        call = {"value": "_e_value", "struct": "_e_struct"}.get(f.kind) or encoder(wire.messages[str(f.ref)].name)
        return Write("sub", tag_bytes, call=call)
    if f.kind == "enum":
        return Write("enum", tag_bytes, table=encode_table(str(f.ref)))
    if f.kind in ("int64", "bool", "double"):
        return Write(f.kind, tag_bytes)
    raise AssertionError(f"no writer for the wire kind {f.kind!r}")


def _plain(f: WField) -> bool:
    """A proto3 scalar without presence: its default is not written and is filled in on decode."""
    return f.kind in SCALARS and not f.optional and not f.repeated and not f.oneof


def _guard(f: WField) -> str:
    if not _plain(f):
        return ""
    return f"{encode_table(str(f.ref))}[v]" if f.kind == "enum" else "v"


def _default(f: WField) -> str:
    if f.kind == "enum":
        return f"{decode_table(str(f.ref))}[0]"
    return _DEFAULTS[f.kind]


def _decodes_dropped(f: WField, wire: WirePlan) -> bool:
    """A field whose message is a oneof: leniently decoded, it may be DROPPED (not kept)."""
    return f.kind == "message" and wire.messages[str(f.ref)].strategy == "oneof"


UNKNOWN_ARM = "(an arm this build does not know)"


def _dropped_stands_as(f: WField, wire: WirePlan) -> str:
    """A required member whose oneof message carried only an unknown arm, as the document holds
    it: its union's discriminator with a value no member has (the JSON lenient rules then strip
    it with a located warning and, it being required, its holder too). Left out ("") when the
    member is optional (the same value either way) or its union has no discriminator."""
    disc = wire.messages[str(f.ref)].discriminator
    if not f.required or not disc:
        return ""
    return "{" + pystr(disc) + ": " + pystr(UNKNOWN_ARM) + "}"


def messages(wire: WirePlan, config: str) -> list[MessageCode]:
    """Every message's code; two messages whose Python names would be one are an error (named
    at `[proto.names]` of `config`, the spec's binding.toml, where a wire name can be given)."""
    seen: dict[str, str] = {}
    for name in wire.messages:
        other = seen.setdefault(fn(name), name)
        if other != name:
            raise SpecError(config, "[proto.names]", f"messages {other} and {name} would both be {decoder(name)} in the Python codec: rename one")
    return [message(m, wire) for m in wire.messages.values()]


def message(m: WMessage, wire: WirePlan) -> MessageCode:
    code = MessageCode(
        name=m.name,
        decoder=decoder(m.name),
        encoder=encoder(m.name),
        known=f"_K_{fn(m.name)}",
        fields=[(f.number, f.name, f.wire_type) for f in m.fields],
    )
    if m.strategy == "oneof":
        _oneof(code, m, wire)
    else:
        _object(code, m, wire)
    return code


def _oneof(code: MessageCode, m: WMessage, wire: WirePlan) -> None:
    assert m.discriminator is not None
    code.oneof = True
    code.discriminator = pystr(m.discriminator)
    code.arms_table = f"_ARMS_{fn(m.name)}"
    code.no_arm = pystr(f"{m.name} sets none of its {len(m.fields)} arms")
    code.bad_arm = fstr(f"{m.name} has no arm for {m.discriminator} ", "which!r")
    for f in m.fields:
        carried = None
        if m.carried:
            carried = Carried(pystr(m.discriminator), pystr(f.route.tag), fstr(f"arm {_label(f)} carries {m.discriminator} ", "got", f", not {f.route.tag}"))
        code.decodes.append(
            Decode(
                f.tag,
                "arm",
                _read(f, m, wire, ""),
                duplicate=pystr(f"{m.name}.{_label(f)} is given twice"),
                arm=pystr(f.name),
                both=fstr(f"{m.name} sets both ", "arm", f" and {f.name}: exactly one arm may be set"),
                carried=carried,
            )
        )
        code.arms.append(Arm(pystr(f.route.tag), repr(varint(f.tag)), encoder(wire.messages[str(f.ref)].name)))


def _object(code: MessageCode, m: WMessage, wire: WirePlan) -> None:
    """An object or a merged union: fields routed to properties, fragments, splits and inline
    unions."""
    var = {f.number: f"r{f.number}" for f in m.fields}
    held = [f for f in m.fields if f.route.kind in ("fragment", "split", "inline")]
    held += [f for f in m.fields if f.route.kind == "promoted"]
    code.holds = [Hold(var[f.number], _absent(f)) for f in held]
    # the loop
    for f in m.fields:
        duplicate = pystr(f"{m.name}.{_label(f)} is given twice")
        skip_dropped = _decodes_dropped(f, wire)
        if f.route.kind in ("prop", "tag"):
            key = pystr(f.route.key)
            if f.repeated:
                code.decodes.append(Decode(f.tag, "list", _read(f, m, wire, "0 if lst is None else len(lst)"), key=key, skip_dropped=skip_dropped))
            else:
                code.decodes.append(Decode(f.tag, "prop", _read(f, m, wire, ""), key=key, duplicate=duplicate, skip_dropped=skip_dropped,
                                           dropped=_dropped_stands_as(f, wire) if skip_dropped else ""))
        else:
            r = var[f.number]
            if f.repeated:
                code.decodes.append(Decode(f.tag, "hold_list", _read(f, m, wire, f"0 if {r} is None else len({r})"), var=r, skip_dropped=skip_dropped))
            else:
                code.decodes.append(Decode(f.tag, "hold", _read(f, m, wire, ""), var=r, duplicate=duplicate))
    # after the loop
    for f in m.fields:
        if f.route.kind == "fragment":
            code.finish.append(Fragment(var[f.number], pystr(f"{m.name}.{_label(f)} is absent")))
    for f in m.fields:
        if _plain(f) and f.route.kind in ("prop", "tag"):
            code.finish.append(Default(pystr(f.route.key), _default(f)))
    splits: dict[str, list[WField]] = {}
    for f in m.fields:
        if f.route.kind == "split":
            splits.setdefault(f.route.key, []).append(f)
    for key, arms in splits.items():
        labels = ", ".join(_label(f) for f in arms)
        code.finish.append(
            Split(pystr(key), tuple(Hold(var[f.number], _absent(f)) for f in arms), pystr(f"{m.name} carries {key} as more than one of {labels}"))
        )
    first = True
    for t in m.fields:
        if t.route.kind != "inline":
            continue
        promoted = tuple(
            Promoted(var[f.number], _absent(f), pystr(f.route.member_key), pystr(f"{m.name}.{_label(f)} is set but {_label(t)} is empty"))
            for f in m.fields
            if f.route.kind == "promoted" and f.route.key == t.route.key
        )
        empty = tuple((pystr(tag), tuple(pystr(k) for k in keys)) for tag, keys in t.tag_defaults.items())
        code.finish.append(Inline(var[t.number], pystr(t.route.key), pystr(t.route.member_key), first, promoted, empty))
        first = False
    for k in sorted(m.defaults.get("", {})):
        code.finish.append(EmptyList(pystr(k)))
    if m.strategy == "merge" and m.defaults:
        assert m.discriminator is not None
        table = f"_DF_{fn(m.name)}"
        code.member_defaults = MemberDefaults(table, [(pystr(tag), [pystr(k) for k in sorted(keys)]) for tag, keys in m.defaults.items()])
        code.finish.append(MemberEmptyLists(table, pystr(m.discriminator)))
    if m.constant is not None:
        assert m.discriminator is not None
        code.finish.append(Constant(pystr(m.discriminator), pystr(m.constant)))
    # encoding
    for f in m.fields:
        w = _write(f, wire)
        route = f.route
        key = pystr(route.key)
        # a JSON value may be null: absent is then a sentinel of its own
        value = f.kind == "value" and not f.repeated
        absent = DROPPED if value else "None"
        if route.kind == "fragment":
            code.encodes.append(Encode("document", w))
        elif route.kind in ("prop", "tag"):
            fetch = f"d.get({key}, {DROPPED})" if value else f"d.get({key})"
            code.encodes.append(Encode("prop", w, fetch, key, absent, each=f.repeated, guard=_guard(f)))
        elif route.kind == "split":
            pytype = _SPLIT_TYPES.get(route.jkind, "float")
            code.encodes.append(Encode("split", w, f"d.get({key})", key, pytype=pytype, each=f.repeated, guard=_guard(f)))
        elif route.kind == "inline":
            fetch = f"o[{pystr(route.member_key)}]"  # the union's discriminator: required
            code.encodes.append(Encode("inline", w, fetch, key, each=f.repeated, guard=_guard(f)))
        elif route.kind == "promoted":
            member = pystr(route.member_key)
            fetch = f"o.get({member}, {DROPPED})" if value else f"o.get({member})"
            code.encodes.append(Encode("promoted", w, fetch, key, absent, each=f.repeated, guard=_guard(f)))
        else:
            raise AssertionError(f"no encoding for the route {route.kind!r}")


def enum(e: WEnum) -> EnumCode:
    return EnumCode(encode_table(e.name), decode_table(e.name), [(json_value, number) for _, number, json_value in e.values])


def entries(wire: WirePlan, ir: M.IR) -> list[EntryCode]:
    """Per definition the codec can carry on its own: the message it travels as, the type its
    decoded document is converted to, and the class the result must then be."""
    unions: dict[str, str] = {}
    for m in wire.messages.values():
        if m.strategy in ("oneof", "merge"):
            for member in m.members.values():
                unions[member] = m.definition
    order = list(ir.defs)
    out = []
    for name, message_name in sorted(wire.definitions.items(), key=lambda kv: order.index(kv[0])):
        via = unions.get(name)
        if via is not None:
            message_name = wire.definitions[via]  # a member travels as its union (an event in the envelope)
        union = via or name
        carrier = wire.messages[wire.definitions[union]]
        classes = None
        if carrier.definition == union and carrier.strategy in ("oneof", "merge"):
            classes = {pystr(tag): f"models.{identifier(member)}" for tag, member in carrier.members.items()}
        out.append(
            EntryCode(
                name=pystr(name),
                message=pystr(message_name),
                decoder=decoder(message_name),
                encoder=encoder(message_name),
                convert=f"models.{identifier(union)}",
                expect=f"models.{identifier(name)}" if via else "None",
                discriminator=pystr(str(carrier.discriminator)) if classes else None,
                classes_table=f"_CLASSES_{identifier(name)}" if classes else None,
                classes=classes,
            )
        )
    return out
