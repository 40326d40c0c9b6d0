"""A small, language-neutral model of a protocol's types.

Every node keeps `loc`, the JSON pointer of the schema node it came from, so any target can name
the exact schema keyword an error is about. Presence (required or optional) and nullability are
kept apart: an optional field may be absent, and that is never the same as null.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Union

JSON_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")


@dataclass(frozen=True)
class TRef:
    name: str
    loc: str


@dataclass(frozen=True)
class TString:
    loc: str
    pattern: str | None = None
    examples: tuple[str, ...] = ()  # the schema's `examples`, used where a sample is needed
    min_length: int | None = None
    max_length: int | None = None
    format: str | None = None  # an annotation only: what a sample value looks like


@dataclass(frozen=True)
class TNull:
    loc: str
    # the keyword its errors stand under: `type`, or `const` for a `const: null` without a type
    keyword: str = "type"


@dataclass(frozen=True)
class TInteger:
    loc: str
    minimum: int | None = None
    maximum: int | None = None
    exclusive_minimum: int | float | None = None
    exclusive_maximum: int | float | None = None


@dataclass(frozen=True)
class TNumber:
    loc: str
    minimum: float | int | None = None
    maximum: float | int | None = None
    exclusive_minimum: float | int | None = None
    exclusive_maximum: float | int | None = None


@dataclass(frozen=True)
class TBoolean:
    loc: str


@dataclass(frozen=True)
class TConst:
    loc: str
    value: str | int | bool


@dataclass(frozen=True)
class TEnum:
    loc: str
    values: tuple[str, ...]
    # where the schema says it: an `enum`, or a oneOf/anyOf of string consts; `typed` when a
    # `type` stands beside it (else a value of another type is refused by the same keyword)
    keyword: str = "enum"
    typed: bool = True


@dataclass(frozen=True)
class TAny:
    """Any JSON value; with `nonnull`, anything but null (`not: {type: null}` at `loc`)."""

    loc: str
    nonnull: bool = False


@dataclass(frozen=True)
class TMap:
    """An object whose keys are data, not fields; `values` None means any JSON value, `keys`
    (from `propertyNames`) constrains the member names, None meaning any string."""

    loc: str
    values: "TypeExpr | None" = None
    keys: "TString | None" = None


@dataclass(frozen=True)
class TArray:
    loc: str
    items: "TypeExpr"
    min_items: int | None = None


@dataclass(frozen=True)
class TUnion:
    """Exactly one member matches. `discriminator` names the property whose const picks the
    member (`tags` maps each const to its member definition); None means the members are told
    apart by JSON type alone."""

    loc: str
    members: tuple["TypeExpr", ...]
    discriminator: str | None = None
    tags: tuple[tuple[str, str], ...] = ()
    keyword: str = "oneOf"  # or anyOf: the same meaning here, since no value matches two members


@dataclass(frozen=True)
class TSchema:
    """A value the typed model does not capture exactly: it is checked by `node`, the schema
    compiled for the general validator (the validation table's `schema` kind, every keyword of
    the vocabulary), and modelled loosely by the JSON types it may have (`types`); an array
    that is inexact only for its `uniqueItems` is modelled by the type of its `items`."""

    loc: str
    node: Any = field(compare=False, hash=False)
    types: tuple[str, ...] = JSON_TYPES
    items: TypeExpr | None = None


TypeExpr = Union[TRef, TString, TInteger, TNumber, TBoolean, TConst, TEnum, TAny, TMap, TArray, TUnion, TNull, TSchema]

NO_DEFAULT: Any = object()


@dataclass(frozen=True)
class Field:
    wire: str  # the property name on the wire
    name: str  # snake_case, decided once for every target
    type: TypeExpr
    required: bool
    loc: str  # pointer of the property's schema
    required_loc: str | None  # pointer of the `required` keyword that lists it
    doc: str | None = None
    default: Any = NO_DEFAULT


@dataclass
class ObjectDef:
    name: str
    loc: str
    doc: str | None
    fields: tuple[Field, ...]
    closed: bool
    closed_loc: str | None  # pointer of the keyword that closes the object
    fragment: bool = False  # composed into others with allOf
    # (discriminator property, const) for every discriminated union this object is a member of
    tags: list[tuple[str, str]] = field(default_factory=list)
    # the object definitions it composes with allOf, directly, in schema order
    composes: tuple[str, ...] = ()
    # the whole schema compiled for the general validator, when the fields and closedness do not
    # say everything it asserts (patternProperties, dependentRequired, if/then...): the
    # definition is then validated by it, and its model is open
    checks: Any = None

    @property
    def closed_by(self) -> str | None:
        """The keyword that closes the object (`additionalProperties` or `unevaluatedProperties`,
        as the schema wrote it): errors about an undeclared member are reported under it."""
        return None if self.closed_loc is None else self.closed_loc.rsplit("/", 1)[1]

    # the fields by wire name, for the tuple they were made from: the passes ask for one field
    # per member of the object, which a scan of the fields made quadratic in a wide object's width
    _by_wire: tuple[tuple[Field, ...], dict[str, Field]] | None = field(default=None, init=False, repr=False, compare=False)

    def field(self, wire: str) -> Field | None:
        if self._by_wire is None or self._by_wire[0] is not self.fields:
            self._by_wire = (self.fields, {f.wire: f for f in reversed(self.fields)})  # the first of a name, as a scan finds
        return self._by_wire[1].get(wire)


@dataclass
class UnionDef:
    name: str
    loc: str
    doc: str | None
    union: TUnion


@dataclass
class EnumDef:
    name: str
    loc: str
    doc: str | None
    values: tuple[str, ...]


@dataclass
class AliasDef:
    name: str
    loc: str
    doc: str | None
    type: TypeExpr


Definition = Union[ObjectDef, UnionDef, EnumDef, AliasDef]


@dataclass
class IR:
    source: str  # display path of the schema
    sha256: str
    title: str | None
    description: str | None
    root: str | None  # the definition the document itself is ($ref at the root)
    defs: dict[str, Definition]  # in schema order
    # the schema as one JSON Schema document, when the source is not one already (OpenAPI,
    # overlays): what a reference validator checks the generated codec against
    reference: dict[str, Any] | None = None
    draft: str = "2020-12"
    # "exact": 1.0 is not an integer (the default of existing bindings); "json-schema": it is
    integers: str = "exact"
    formats: bool = False  # whether `format` asserts (the formats the validator knows)
    # the recursive aliases (a type alias of itself through arrays, maps and unions), each
    # validated by its compiled schema (its definition in `defs`): their exact type, which the
    # targets name for type checkers (the value at run time is the plain JSON value)
    exact: dict[str, TypeExpr] = field(default_factory=dict)

    def deref(self, t: TypeExpr) -> TypeExpr | Definition:
        return self.defs[t.name] if isinstance(t, TRef) else t


def resolve(t: "TypeExpr | Definition", lookup: Callable[[str], "Definition"]) -> "TypeExpr | Definition":
    """What a type is after following references and aliases: an object, union or enum
    definition, or an anonymous type."""
    while True:
        if isinstance(t, TRef):
            t = lookup(t.name)
        elif isinstance(t, AliasDef):
            t = t.type
        else:
            return t


def json_types(t: "TypeExpr | Definition", lookup: Callable[[str], "Definition"], seen: frozenset[str] = frozenset()) -> set[str]:
    """The JSON types an instance of `t` can have; `lookup` resolves definition names. A
    definition met again on the same value (`A: {$ref: A}`, a union member of itself) adds
    nothing: such a cycle is refused once every definition is built, and asking before must end."""
    if isinstance(t, TRef):
        return set() if t.name in seen else json_types(lookup(t.name), lookup, seen | {t.name})
    if isinstance(t, (ObjectDef, TMap)):
        return {"object"}
    if isinstance(t, UnionDef):
        return json_types(t.union, lookup, seen)
    if isinstance(t, TUnion):
        return set().union(*(json_types(m, lookup, seen) for m in t.members))
    if isinstance(t, AliasDef):
        return json_types(t.type, lookup, seen)
    if isinstance(t, (EnumDef, TEnum, TString)):
        return {"string"}
    if isinstance(t, TConst):
        v = t.value
        return {"boolean"} if isinstance(v, bool) else {"integer"} if isinstance(v, int) else {"string"}
    if isinstance(t, TInteger):
        return {"integer"}
    if isinstance(t, TNumber):
        return {"integer", "number"}
    if isinstance(t, TBoolean):
        return {"boolean"}
    if isinstance(t, TNull):
        return {"null"}
    if isinstance(t, TArray):
        return {"array"}
    if isinstance(t, TAny):
        return set(JSON_TYPES) - ({"null"} if t.nonnull else set())
    if isinstance(t, TSchema):
        return set(t.types)
    raise AssertionError(t)
