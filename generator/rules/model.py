"""The parsed rules file. Every node keeps the token it started at, for file:line:column errors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .syntax import Token

LEVELS = ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY")
FATAL_LEVELS = ("MUST", "MUST NOT")
# What a message template may name: the values every binding's automaton gives a finding. `{{`
# and `}}` are literal braces; anything else in braces would print `?` in one binding and fail
# in another, so the parser refuses it.
PLACEHOLDERS = ("type", "index", "ids", "run", "state", "kind", "field", "actual", "expected", "detail", "declared")


@dataclass
class Rule:
    id: str
    level: str
    page: str
    section: str
    message: str
    at: Token


@dataclass
class Require:
    """A guard on a transition; `kind` is one of closed, same, agree, agree-if-present, exists,
    missing, in-state. A failed guard reports `rule`."""

    kind: str
    args: list[str]
    rule: str
    at: Token
    defaults: dict[str, Any] = field(default_factory=dict)
    target: str | None = None  # for exists/missing: the entity kind


@dataclass
class Transition:
    events: list[str]  # event types, or ["*"]
    sources: list[str]
    target: str | None  # None: stay
    fail: str | None  # a rule id: this (state, event) pair is forbidden
    requires: list[Require]
    actions: list[str]
    at: Token
    exclude: list[str] = field(default_factory=list)
    when: Any = None  # an expression: the transition applies only when it holds
    key: list[str] | None = None  # entity transitions: the field(s) that key the item here
    sender: str | None = None  # two parties: only messages this party sends (`from PARTY`)
    target_field: str | None = None  # entity transitions: the item moves to the state this field names


@dataclass
class Machine:
    name: str
    states: list[str]
    initial: str
    transitions: list[Transition]
    at_end: list[Transition]
    at: Token
    after_cursor: str | None = None  # the state a stream replayed after a cursor starts in
    identity: str | None = None  # the opener's field that names a run in messages ({run})


@dataclass
class Sequence:
    """A per-key counter every event carries: contiguous from `start`; a redelivery of a seen
    value is dropped when identical and reported when different."""

    field: str
    key: str
    start: int
    gap: str
    conflict: str
    at: Token


@dataclass
class Entity:
    name: str
    key: list[str]
    remember: dict[str, Any]  # field -> default when absent (None: no default)
    transitions: list[Transition]
    at: Token
    # the state an item continues in after its run ends; None: it is forgotten with the run
    outlives_run: str | None = None
    # the states transitions `-> from FIELD` may name (the field's values), set by lint
    field_states: list[str] = field(default_factory=list)

    @property
    def states(self) -> list[str]:
        seen = ["absent"]
        for t in self.transitions:
            for s in [*t.sources, *([t.target] if t.target and t.target != "stay" else [])]:
                if s not in seen:
                    seen.append(s)
        return seen + [s for s in self.field_states if s not in seen]


@dataclass
class Chunks:
    lane: str
    close_all: list[str]
    close_owner: list[str]
    close_lane: list[str]
    ambiguous: str
    at: Token


@dataclass
class Chunk:
    event: str
    id_field: str
    start: tuple[str, list[str], dict[str, Any]]  # event type, copied fields, fixed values
    content: tuple[str, list[str], dict[str, Any]]
    end: tuple[str, list[str], dict[str, Any]]
    first_requires: list[str]
    first_rule: str
    agree: dict[str, Any]
    agree_rule: str | None
    at: Token


@dataclass
class Check:
    rule: str
    events: list[str]
    each: str | None
    expr: Any  # nested tuples, see parse.Expr
    at: Token
    sender: str | None = None  # two parties: only messages this party sends


# -- two parties ------------------------------------------------------------------------------

ENVELOPE_KINDS = ("request", "notification", "result", "error")


@dataclass
class EnvelopeKind:
    """One kind of message on the wire (`request`, `notification`, `result`, `error`), the
    schema definition its messages are, and the names of its correlation id, its method and
    the member carrying its payload (a result's result, an error's error)."""

    kind: str
    definition: str
    id: str | None
    method: str | None
    payload: str | None
    at: Token


@dataclass
class ResultAlt:
    """What a request of `method` (`*`: any request) is answered with: `definition`, named
    `name` (the event type `METHOD:NAME`), when `when` holds of the request (None: otherwise),
    or with `by` "answer", when it holds of the result itself (`when answer EXPR`: a kind of
    result the answering party chooses, tried before the request's choice)."""

    method: str
    definition: str
    name: str
    when: Any
    at: Token
    by: str = "request"


@dataclass
class Fact:
    """A value a party declares (a version, capabilities): remembered from the field `path` of
    the messages named, for rules and gates later in the session."""

    name: str
    events: list[str]
    sender: str | None
    path: str
    at: Token


@dataclass
class Reference:
    """A message that refers to a request: `cancel` (the sender's own request, by its id,
    answered or not) or `track` (an open request of the other party, by the value one of its
    fields carries)."""

    how: str  # cancel | track
    events: list[str]
    sender: str | None
    field: str
    request_field: str | None  # track: the request's field holding the value
    keep: list[str]  # track: result alternatives after which the request stays tracked
    rule: str
    at: Token
    unique: str | None = None  # track: a request carrying a value an open request carries


@dataclass
class Rising:
    """Each message of these types referring to one tracked request carries a larger `field`
    than the last one that did."""

    events: list[str]
    field: str
    rule: str
    at: Token


EXCHANGE_RULES = (
    "unknown",
    "again",
    "reused",
    "reused-answered",
    "open-at-end",
    "mistyped",
    "wrong-sender",
    "wrong-kind",
    "unknown-method",
    "answered-after-cancel",
)


@dataclass
class Exchanges:
    """Request/response correlation: a request opens an exchange keyed by (sender, id), the
    other party's result or error with that id closes it; the findings each slip draws."""

    rules: dict[str, tuple[str, Token]]
    references: list[Reference]
    rising: list[Rising]
    at: Token


@dataclass
class Answers:
    name: str
    question_event: str
    question_list: str
    question_id: str
    open_when: Any
    input_definition: str
    input_list: str
    input_id: str
    expires: str | None
    expires_unless: Any
    rules: dict[str, str]  # uncovered, unknown, expired, nothing-to-continue
    at: Token


@dataclass
class Listing:
    """A document listing items the stream created (one event each): every listed item must
    match its creation event, none may be left out, and the list follows creation order."""

    name: str
    definition: str  # the listing document's definition
    list_field: str
    item_id: str  # within a listed item
    event: str  # the event type that creates an item
    item_path: str  # where the item sits in that event
    rules: dict[str, str]  # unmatched, missing, differs, order
    at: Token


@dataclass
class Retired:
    """A shape the protocol retired, translated into its replacement before enforcement."""

    event: str
    replacement: str
    sets: list[tuple[str, str, Any, Token]]  # (field, how: new|current|close|value, slot or value, at)
    drops: list[str]
    at: Token


@dataclass
class RulesFile:
    file: str
    events_union: str = ""
    discriminator: str = ""
    owner: str | None = None
    rules: dict[str, Rule] = field(default_factory=dict)
    machine: Machine | None = None
    entities: list[Entity] = field(default_factory=list)
    chunks: Chunks | None = None
    sequence: Sequence | None = None
    chunk_kinds: list[Chunk] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    passes: list[tuple[str, Token]] = field(default_factory=list)
    answers: list[Answers] = field(default_factory=list)
    listings: list[Listing] = field(default_factory=list)
    retired: list[Retired] = field(default_factory=list)
    parties: list[str] = field(default_factory=list)  # two parties: who sends (empty: one-way)
    envelope: list[EnvelopeKind] = field(default_factory=list)
    sends: dict[str, list[tuple[str, Token]]] = field(default_factory=dict)  # party -> definitions
    results: list[ResultAlt] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    exchanges: Exchanges | None = None
    decode_error_rule: tuple[str, Token] | None = None
    stripped_rule: tuple[str, Token] | None = None
    unknown_event_rule: tuple[str, Token] | None = None
    retired_rule: tuple[str, Token] | None = None
    header: Token | None = None
