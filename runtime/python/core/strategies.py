"""Random valid documents and event streams of this protocol, for your own tests.

With hypothesis (imported only by the functions that return strategies), every choice is a
hypothesis draw, so a failing example shrinks:

    from hypothesis import given
    from <package> import strategies

    @given(strategies.documents("RunAgentInput"))      # any definition; default: the root
    def test_my_handler_takes_any_valid_input(document): ...   # a JSON value (dicts, lists...)

    @given(strategies.values("RunAgentInput"))         # the same, decoded into the models
    def test_with_models(value): ...

    @given(strategies.streams())                        # conformant event streams
    def test_my_client(stream):
        for document in stream.documents: ...           # one JSON value per event
        stream.jsonl()                                  # or the stream as JSON Lines

    @given(strategies.violations("RUN-TRUNCATED"))      # streams breaking that rule only
    def test_my_client_notices(stream):
        assert stream.findings == ("RUN-TRUNCATED",)    # what a conforming judge reports

Without hypothesis, the same generators run from a seed (the same seed gives the same result
everywhere, with nothing but the standard library and msgspec):

    strategies.document("RunAgentInput", seed=7)
    strategies.stream(seed=7)
    strategies.violation("RUN-TRUNCATED", seed=7)

What is generated: a valid document respects every constraint of the schema (absent and null
kept apart, discriminated and untagged unions, undeclared members in open objects, patterns
generated from the pattern itself, lengths, bounds, ``minItems``, ``propertyNames``), and
nothing the codecs refuse beyond it (``limits``). ``mutants`` are valid documents changed at a
random place: most are invalid, some not. A conformant stream is a random walk over the compiled
rule tables (chunked shorthands included) that ends where a stream may end, and draws no finding
at all; a violating stream breaks one rule and draws findings of that rule only. Each
``Stream`` carries its ``documents``, the ``rule`` it breaks (None: conformant) and the
``findings`` a conforming judge reports on it, in order (the end of the stream last).

Sizes: ``max_depth`` (optional nesting), ``max_items`` (array and map lengths beyond their
minimum), ``max_text`` (free text), ``optional`` (how often an optional member is present),
``extras`` (how often an open object carries undeclared members) for documents;
``max_events`` (the length the random part of a stream aims at), ``max_runs`` (how many runs a
stream may hold; None: any), ``opener`` (members every run opener carries, e.g. a request's
identity: see ``opener_from``), ``owners`` (False: no event is attributed to an owner, the
rules' ``owner`` member, such as a subagent's run id) for streams.
"""

from __future__ import annotations

import importlib
import random
from typing import Any

from .docgen import Documents, GenerationError, HypothesisSource, RandomSource, Source, mutate
from .schema_table import DEFINITIONS

__all__ = [
    "GenerationError",
    "definitions",
    "stream_rules",
    "documents",
    "values",
    "mutants",
    "streams",
    "violations",
    "document",
    "mutant",
    "stream",
    "violation",
    "opener_from",
    "Documents",
    "RandomSource",
    "HypothesisSource",
]

_ROOT: str | None = None


def _root() -> str:
    global _ROOT
    if _ROOT is None:
        _ROOT = str(importlib.import_module(f"{__package__}.codec_json").ROOT)
    return _ROOT


def _streamgen() -> Any:
    """The stream engine, which a package has only when its spec has rules."""
    try:
        return importlib.import_module(f"{__package__}.streamgen")
    except ModuleNotFoundError:
        raise GenerationError(f"{__package__} has no rules: there are no event streams to generate") from None


def definitions() -> list[str]:
    """Every definition documents can be generated for, in schema order."""
    return list(DEFINITIONS)


def stream_rules() -> list[str]:
    """The rules a generated stream can break (the others are checked on an input or on a
    listing, not on a stream)."""
    rules: list[str] = _streamgen().stream_rules()
    return rules


_DOC_OPTIONS = ("max_depth", "max_items", "max_text", "optional", "extras", "portable")
_STREAM_OPTIONS = ("max_events", "max_runs", "opener", "owners")


def _split(options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    unknown = set(options) - set(_DOC_OPTIONS) - set(_STREAM_OPTIONS)
    if unknown:
        raise TypeError(f"unknown options: {', '.join(sorted(unknown))}")
    return ({k: v for k, v in options.items() if k in _DOC_OPTIONS},
            {k: v for k, v in options.items() if k in _STREAM_OPTIONS})


def _check(definition: str) -> str:
    if definition not in DEFINITIONS:
        raise ValueError(f"unknown definition {definition!r}")
    return definition


# -- with hypothesis --------------------------------------------------------------------------------


def documents(definition: str | None = None, **options: Any) -> Any:
    """A hypothesis strategy of valid documents (JSON values) of one definition."""
    from hypothesis import strategies as st

    name = _check(definition or _root())
    doc_options, _ = _split(options)

    @st.composite
    def build(draw: Any) -> Any:
        return Documents(HypothesisSource(draw), **doc_options).document(name)

    return build()


def values(definition: str | None = None, **options: Any) -> Any:
    """A hypothesis strategy of valid values of one definition, decoded into the models."""
    codec = importlib.import_module(f"{__package__}.codec_json")
    name = _check(definition or _root())
    import msgspec

    return documents(name, **options).map(lambda doc: codec.decode(msgspec.json.encode(doc), name))


def mutants(definition: str | None = None, **options: Any) -> Any:
    """A hypothesis strategy of valid documents changed at one or two random places (most
    are invalid; which ones is for a reference validator to say)."""
    from hypothesis import strategies as st

    name = _check(definition or _root())
    doc_options, _ = _split(options)

    @st.composite
    def build(draw: Any) -> Any:
        source = HypothesisSource(draw)
        doc = Documents(source, **doc_options).document(name)
        return mutate(doc, source, source.integer(1, 2))

    return build()


def _walker(source: Source, options: dict[str, Any]) -> Any:
    doc_options, stream_options = _split(options)
    docs = Documents(source, **{"max_depth": 3, "max_items": 2, "max_text": 10, "optional": 0.4, "extras": 0.1, **doc_options})
    return _streamgen().Walker(source, documents=docs, **{"max_events": 12, **stream_options})


def streams(**options: Any) -> Any:
    """A hypothesis strategy of conformant event streams (``Stream``).

    A stream is drawn from a seed and a length (``max_events`` at most): its events depend on
    each other, so hypothesis shrinks the two numbers (towards short streams) rather than the
    events. A failure shows the stream; ``stream(seed=S, max_events=N)`` with its ``seed`` and
    ``max_events`` makes it again."""
    from hypothesis import strategies as st

    _streamgen()
    _split(options)
    longest = int(options.get("max_events", 12))

    @st.composite
    def build(draw: Any) -> Any:
        length = draw(st.integers(1, longest))
        seed = draw(st.integers(0, 2**32 - 1))
        return _seeded(draw, lambda: stream(seed, **{**options, "max_events": length}))

    return build()


def violations(rule: str | None = None, **options: Any) -> Any:
    """A hypothesis strategy of streams breaking ``rule`` and no other (None: any rule a
    stream can break, chosen by the strategy). Drawn from a seed, as ``streams`` are;
    ``violation(stream.rule, seed=S, max_events=N)`` makes one again."""
    from hypothesis import strategies as st

    rules = stream_rules()
    if rule is not None and rule not in rules:
        raise ValueError(f"{rule!r} is not a rule a stream can break (stream_rules() lists them)")
    _split(options)
    longest = int(options.get("max_events", 12))

    @st.composite
    def build(draw: Any) -> Any:
        chosen = rule if rule is not None else draw(st.sampled_from(rules))
        length = draw(st.integers(1, longest))
        seed = draw(st.integers(0, 2**32 - 1))
        return _seeded(draw, lambda: violation(chosen, seed, **{**options, "max_events": length}))

    return build()


def _seeded(draw: Any, make: Any) -> Any:
    """A stream from a seed; a seed no stream was found for is an invalid example, not a
    failure."""
    from hypothesis import reject

    try:
        return make()
    except GenerationError:
        reject()


# -- from a seed ------------------------------------------------------------------------------------


def _source(seed: int | None) -> RandomSource:
    return RandomSource(random.Random(seed))


def document(definition: str | None = None, seed: int | None = None, **options: Any) -> Any:
    """One valid document (a JSON value) of a definition, from a seed (None: a random one)."""
    doc_options, _ = _split(options)
    return Documents(_source(seed), **doc_options).document(_check(definition or _root()))


def mutant(definition: str | None = None, seed: int | None = None, **options: Any) -> Any:
    """One mutated document of a definition, from a seed."""
    doc_options, _ = _split(options)
    source = _source(seed)
    doc = Documents(source, **doc_options).document(_check(definition or _root()))
    return mutate(doc, source, source.integer(1, 2))


def stream(seed: int | None = None, **options: Any) -> Any:
    """One conformant event stream (``Stream``), from a seed (None: a random one, recorded
    on the stream)."""
    seed = random.getrandbits(32) if seed is None else seed
    made = _walker(_source(seed), {"max_events": 30, **options}).conformant()
    return made.replace(seed=seed)


def violation(rule: str, seed: int | None = None, **options: Any) -> Any:
    """One stream breaking ``rule`` and no other (``Stream``), from a seed."""
    if rule not in stream_rules():
        raise ValueError(f"{rule!r} is not a rule a stream can break (stream_rules() lists them)")
    seed = random.getrandbits(32) if seed is None else seed
    made = _walker(_source(seed), {"max_events": 30, **options}).violating(rule)
    return made.replace(seed=seed)


def opener_from(request: Any, definition: str | None = None) -> dict[str, Any]:
    """The members a run opener takes from the request that asked for the run: those the
    opener's event and the request both have, by wire name, when the request gives a string
    or a number (a request's thread and run ids, say). ``definition``: the opener's event
    definition (default: that of the rules' run-opening event)."""
    if not isinstance(request, dict):
        return {}
    if definition is None:
        engine = _streamgen()
        definition = engine.opener_definition()
    node = _resolved(DEFINITIONS.get(definition or ""))
    if node is None or node.get("kind") != "object":
        return {}
    out = {}
    for wire, value in request.items():
        spec = node["fields"].get(wire)
        kind = None if spec is None else (_resolved(spec["type"]) or {}).get("kind")
        if (kind == "string" and isinstance(value, str)) or (
            kind in ("integer", "number") and isinstance(value, (int, float)) and not isinstance(value, bool)
        ):
            out[wire] = value
    return out


def _resolved(node: Any) -> Any:
    while isinstance(node, dict) and node.get("kind") == "ref":
        node = DEFINITIONS.get(node["name"])
    return node
