"""How schemas are read: YAML by the 1.2 core schema, ECMA-262 patterns with their own meaning,
and strings derived from patterns for the generated tests."""

from __future__ import annotations

import re

import pytest
import yaml

from generator.regex import Untranslatable, ecma_to_python
from generator.regex_sample import sample
from generator.schema import yaml12

# -- YAML 1.2 --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,value",
    [
        ("2026-09-02", "2026-09-02"),  # a date in YAML 1.1; the string the schema means in 1.2
        ("on", "on"),
        ("no", "no"),
        ("yes", "yes"),
        ("017", 17),  # octal in 1.1
        ("0o17", 15),
        ("0x1F", 31),
        ("1_000", "1_000"),
        ("1:20", "1:20"),  # sexagesimal in 1.1
        ("true", True),
        ("False", False),
        ("~", None),
        ("null", None),
        ("-3", -3),
        ("1.5e3", 1500.0),
        ('"2026-09-02"', "2026-09-02"),
    ],
)
def test_plain_scalars_resolve_by_the_yaml_1_2_core_schema(text: str, value: object) -> None:
    got = yaml12.load(f"k: {text}\n".encode())["k"]
    assert got == value and type(got) is type(value)


def test_a_repeated_key_is_an_error_naming_both_lines() -> None:
    with pytest.raises(yaml.MarkedYAMLError) as caught:
        yaml12.load(b"a: 1\nb: 2\na: 3\n")
    assert "appears twice" in str(caught.value) and "line 3" in str(caught.value)


def test_the_harness_edition_const_is_a_string() -> None:
    from conftest import REPO

    doc = yaml12.load((REPO / "spec" / "harness-runtime" / "openapi.yaml").read_bytes())
    schemas = doc["components"]["schemas"]
    assert schemas["ProviderManifest"]["properties"]["protocolVersion"]["const"] == "2026-09-02"
    assert schemas["RuntimeDescription"]["properties"]["protocolVersion"]["const"] == "2026-09-02"


# -- ECMA-262 patterns -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pattern,text,matches",
    [
        (r"^\d+$", "123", True),
        (r"^\d+$", "١٢٣", False),  # Arabic-Indic digits: \d is ASCII in ECMA-262
        (r"^\w+$", "abc_9", True),
        (r"^\w+$", "é", False),
        (r"^\s$", "\u00a0", True),  # no-break space is ECMA-262 whitespace
        (r"^\s$", "\u2028", True),
        (r"^\s$", "\u0085", False),  # NEL: whitespace to Python, not to ECMA-262
        (r"^a$", "a\n", False),  # $ does not match before a final newline
        (r"^a.b$", "a\rb", False),  # . excludes every line terminator
        (r"^a.b$", "a\u2028b", False),
        (r"^a.b$", "a b", True),
        (r"^[^]$", "\n", True),  # [^] is any character
        (r"^[]$", "", False),  # [] matches nothing
        (r"^(?<y>\d)\k<y>$", "77", True),
        (r"\bfoo\b", "a foo b", True),
        (r"\bfoo\b", "éfooé", True),  # é is not an ECMA-262 word character
        (r"^\cJ$", "\n", True),
        (r"^[\d-]+$", "1-2", True),
        (r"^x\/y$", "x/y", True),
    ],
)
def test_patterns_keep_their_ecma_262_meaning(pattern: str, text: str, matches: bool) -> None:
    assert (re.search(ecma_to_python(pattern), text) is not None) is matches


@pytest.mark.parametrize("pattern", [r"[\D]", "(?P<x>a)", "\\", "[abc"])
def test_untranslatable_patterns_say_so(pattern: str) -> None:
    with pytest.raises(Untranslatable):
        ecma_to_python(pattern)


# -- samples from patterns -------------------------------------------------------------------------

DATE_TIME = (
    r"^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-"
    r"(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))"
    r"T(?:(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:Z))$"
)


@pytest.mark.parametrize(
    "pattern",
    [DATE_TIME, r"^(/([^/~]|~[01])*)*$", r"^[a-z]+@[a-z]+\.com$", r"^(?!x)[a-z]{3,5}$", r"(a)\1", r"^\S+$", r"^[A-Z]{2}-\d{4}$"],
)
def test_a_sample_matches_its_pattern(pattern: str) -> None:
    python = ecma_to_python(pattern)
    found = sample(python)
    assert found is not None and re.search(python, found)
