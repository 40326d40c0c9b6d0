"""Never raises, bounded (issue 16): every decoder, encoder, automaton and consumer of both
generated packages, under random bytes and structured mutations of the specs' own material,
gives a value, a documented typed error or a finding, within a generous per-input deadline.

The properties drive the fuzz entry points (fuzz/targets.py: each checks its own contract, so a
failure here is a crash there too) plus the encoders and the consumer's constructor on values
built by hand. Derandomized with no example database: CI sees the same inputs every run.
"""

from __future__ import annotations

import math
import random
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))

from corpus import mutate, seeds  # noqa: E402
from targets import TARGETS  # noqa: E402

import agui  # noqa: E402
import harness_runtime  # noqa: E402
from agui import codec_json, codec_proto, models  # noqa: E402
from agui.consumer import Consumer  # noqa: E402

SETTINGS = settings(
    max_examples=60,
    derandomize=True,
    database=None,
    deadline=timedelta(seconds=5),  # per input: a bound that flags a blow-up, not a timing test
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def mutated(name: str) -> st.SearchStrategy[bytes]:
    pool = seeds()[name]
    return st.builds(lambda s, r: mutate(pool[s % len(pool)], random.Random(r)), st.integers(0, 10**6), st.integers(0, 2**32))


@pytest.mark.parametrize("name", sorted(TARGETS))
@SETTINGS
@given(data=st.data())
def test_entry_point_keeps_its_contract(name: str, data: st.DataObject) -> None:
    source = data.draw(st.one_of(mutated(name), st.binary(max_size=512)), label="input")
    TARGETS[name](source)


# -- values built by hand, for the encoders and the consumer's constructor ------------------------

ODD_STRINGS = st.sampled_from(["\ud800", "a\udfffb", "\x00", "é😀", "\ufffe", ""])
NUMBERS = st.one_of(
    st.integers(),
    st.sampled_from([4400, -5000, 53, -53]).map(lambda e: 10**e if e > 100 else -(10 ** -e) if e < -100 else 2**e + 1),
    st.floats(allow_nan=True, allow_infinity=True),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, st.text(max_size=8), ODD_STRINGS)


def _deep(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


JSON_VALUES = st.one_of(
    st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4) | ODD_STRINGS, inner, max_size=3), max_leaves=12),
    st.sampled_from([100, 127, 128, 129, 2000]).map(_deep),
)


@SETTINGS
@given(value=JSON_VALUES, name=st.text(max_size=6) | ODD_STRINGS)
def test_encoders_give_bytes_or_encode_error(value: Any, name: str) -> None:
    """A hand-built event with any value: both encoders write bytes their decoders read back,
    or refuse with EncodeError (a lone surrogate, NaN, an integer a double cannot hold, a depth)."""
    event = models.CustomEvent(name=name, value=value)
    for codec in (codec_json, codec_proto):
        try:
            data = codec.encode(event)
        except agui.EncodeError:
            continue
        assert codec.decode(data) == event or _has_nan(value)


def _has_nan(value: Any) -> bool:
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, list):
        return any(_has_nan(v) for v in value)
    if isinstance(value, dict):
        return any(_has_nan(v) for v in value.values())
    return False


REQUESTS = st.one_of(
    JSON_VALUES,
    st.fixed_dictionaries({"messages": JSON_VALUES}, optional={"state": JSON_VALUES, "threadId": SCALARS}),
    st.fixed_dictionaries(
        {"messages": st.lists(st.fixed_dictionaries({"id": SCALARS, "role": st.sampled_from(["user", "activity", "x"]), "content": JSON_VALUES}), max_size=3)}
    ),
    st.builds(set, st.lists(st.integers(), max_size=3)),
)


@SETTINGS
@given(request=REQUESTS, version=st.sampled_from([None, "0.0.39", "0.0.57", "1.1", "9.9", "x"]))
def test_consumer_constructor_refuses_with_value_error_only(request: Any, version: str | None) -> None:
    try:
        Consumer(client_version=version, input=request)
    except ValueError:  # DecodeError is one: the documented refusal
        pass


def test_harness_package_is_covered() -> None:
    assert {n for n in TARGETS if n.startswith("harness")} == {"harness_json", "harness_proto", "harness_framing", "harness_automaton"}
    assert harness_runtime.DecodeError is not agui.DecodeError


# -- the command line on the same inputs ---------------------------------------------------------

SPEC = Path(__file__).resolve().parents[1] / "spec"
REQUEST = b'{"threadId":"t","runId":"r","messages":[],"state":{"a":[1]}}'

# (command, the seeds its input is mutated from, the exit codes its help documents)
COMMANDS: dict[str, tuple[list[str], str, set[int]]] = {
    "validate": (["validate", "--spec", "agui", "--json", "IN"], "agui_json", {0, 1, 2}),
    "validate-lenient": (["validate", "--spec", "agui", "--lenient", "IN"], "agui_json", {0, 1, 2}),
    "replay-json": (["replay", "--spec", "agui", "--json", "--jobs", "1", "IN"], "agui_automaton", {0, 1, 2}),
    "replay-text": (["replay", "--spec", "agui", "--jobs", "1", "IN"], "agui_automaton", {0, 1, 2}),
    "replay-sse": (["replay", "--spec", "agui", "--json", "--format", "sse", "--jobs", "1", "IN"], "sse", {0, 1, 2}),
    "replay-project": (["replay", "--spec", "agui", "--json", "--project", "--jobs", "1", "IN"], "agui_automaton", {0, 1, 2}),
    "replay-harness": (["replay", "--spec", "harness-runtime", "--json", "--jobs", "1", "IN"], "harness_automaton", {0, 1, 2}),
    "convert-json-proto": (["convert", "--spec", "agui", "--from", "json", "--to", "proto", "IN", "OUT"], "agui_json", {0, 2}),
    "convert-proto-json": (["convert", "--spec", "agui", "--from", "proto", "--to", "json", "IN", "OUT"], "agui_proto", {0, 2}),
    "convert-frames": (["convert", "--spec", "agui", "--from", "proto", "--to", "json", "--stream", "IN", "OUT"], "agui_framing", {0, 2}),
    "check-resume": (["check-resume", "--spec", "agui", "--input", "IN"], "request", {0, 1, 2}),
    "check-listing": (["check-listing", "--spec", "harness-runtime", "IN", "LIST"], "harness_automaton", {0, 1, 2}),
}


def _command_seeds(name: str) -> list[bytes]:
    return [REQUEST] if name == "request" else seeds()[name]


@pytest.mark.parametrize("command", sorted(COMMANDS))
@settings(SETTINGS, max_examples=15)
@given(data=st.data())
def test_cli_commands_exit_with_a_documented_code(command: str, data: st.DataObject, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Each command that reads an input, on mutations of its seeds and random bytes: a
    documented exit code (never 70, an internal error) and no traceback."""
    from conftest import run_cli

    args, pool_name, codes = COMMANDS[command]
    pool = _command_seeds(pool_name)
    source = data.draw(
        st.one_of(st.builds(lambda s, r: mutate(pool[s % len(pool)], random.Random(r)), st.integers(0, 10**6), st.integers(0, 2**32)), st.binary(max_size=256)),
        label="input",
    )
    folder = tmp_path_factory.mktemp("cli")
    (folder / "in").write_bytes(source)
    (folder / "list.json").write_bytes(b"[]")
    argv = [str(SPEC / a) if a in ("agui", "harness-runtime") else str(folder / "in") if a == "IN" else str(folder / "out") if a == "OUT" else str(folder / "list.json") if a == "LIST" else a for a in args]
    result = run_cli(*argv)
    assert result.exit_code in codes, (argv, result.exit_code, result.output[-2000:], repr(result.exception))
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
