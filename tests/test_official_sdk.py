"""Cross-check with the official AG-UI Python SDK (ag-ui-protocol 1.0.0, pydantic): a corpus
sample from ../shared/bench/gen_corpus.py decodes in both, and both re-encode it to the same
JSON, which is the input's."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from conftest import GENERATED, REPO

GEN_CORPUS = REPO.parent / "shared" / "bench" / "gen_corpus.py"

pytestmark = pytest.mark.skipif(
    not GEN_CORPUS.exists(),
    reason=f"SKIPPED LOUDLY: the corpus generator {GEN_CORPUS} is absent (../shared must sit beside the repo)",
)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    out = tmp_path_factory.mktemp("corpus") / "corpus.jsonl"
    subprocess.run(
        [sys.executable, str(GEN_CORPUS), "--runs", "40", "--seed", "7", "--out", str(out)],
        check=True,
        stdout=subprocess.DEVNULL,
        timeout=120,
    )
    lines = [line for line in out.read_bytes().splitlines() if line.strip()]
    assert len(lines) > 2000
    return lines


def same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def test_corpus_decodes_and_reencodes_the_same_in_both(corpus: list[bytes]) -> None:
    pydantic = pytest.importorskip("pydantic")
    core = pytest.importorskip("ag_ui.core")
    sys.path.insert(0, str(GENERATED))
    from agui import codec_json

    adapter = pydantic.TypeAdapter(core.Event)
    types = set()
    for line in corpus:
        original = json.loads(line)
        ours = json.loads(codec_json.encode(codec_json.decode(line)))
        theirs = json.loads(adapter.validate_json(line).model_dump_json(by_alias=True, exclude_none=True))
        assert same(ours, original), line[:200]
        assert same(theirs, original), line[:200]
        types.add(original["type"])
    assert len(types) >= 20  # the sample covers the corpus's event types


def test_where_we_are_stricter_than_the_sdk() -> None:
    """The SDK is lenient where the schema is exact; each of these it accepts, we refuse."""
    pydantic = pytest.importorskip("pydantic")
    core = pytest.importorskip("ag_ui.core")
    sys.path.insert(0, str(GENERATED))
    from agui import codec_json
    from agui.errors import DecodeError

    adapter = pydantic.TypeAdapter(core.Event)
    lenient_in_sdk = [
        b'{"type":"TEXT_MESSAGE_END","messageId":"m","somethingNewer":1}',  # unknown field kept
        b'{"type":"TEXT_MESSAGE_END","messageId":"m","timestamp":"123"}',  # "123" coerced to 123
        b'{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"n","parentMessageId":null}',
    ]
    for doc in lenient_in_sdk:
        adapter.validate_json(doc)  # the SDK takes it
        with pytest.raises(DecodeError):
            codec_json.decode(doc)
