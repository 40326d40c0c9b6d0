"""AG-UI specifics of the protobuf codec the generic generated tests cannot name: the envelope's
arm must agree with base_event.type, a split property travels in one form only, an inline
outcome needs its discriminator, an unknown outcome is stripped leniently (never refused at decode
time, as the transport page requires) and refused strictly, and a merged message keeps its
members apart."""

from __future__ import annotations

import sys

import pytest

from conftest import GENERATED

if str(GENERATED) not in sys.path:
    sys.path.insert(0, str(GENERATED))

from agui import codec_json, codec_proto, models  # noqa: E402
from agui.errors import DecodeError, Issue  # noqa: E402


def _ld(tag: int, payload: bytes) -> bytes:
    assert tag < 0x80 and len(payload) < 0x80
    return bytes([tag, len(payload)]) + payload


def _s(number: int, text: str) -> bytes:
    return _ld(number << 3 | 2, text.encode())


def _base(event_type: int) -> bytes:
    return _ld(0x0A, b"\x08" + bytes([event_type]) if event_type else b"")


def _run_finished(*fields: bytes) -> bytes:
    body = _base(12) + _s(2, "t") + _s(3, "r") + b"".join(fields)
    return b"\x6a" + bytes([len(body)]) + body  # Event.run_finished = 13


def _errors(data: bytes, definition: str = "Event") -> list[tuple[str, str]]:
    with pytest.raises(DecodeError) as caught:
        codec_proto.decode(data, definition)
    return [(e.pointer, e.keyword) for e in caught.value.errors]


def test_an_arm_and_its_base_event_type_must_agree() -> None:
    body = _base(2) + _s(2, "m1")  # TEXT_MESSAGE_END inside the text_message_start arm
    assert _errors(_ld(0x0A, body)) == [("", "oneof")]
    assert codec_proto.decode(_ld(0x1A, body)) == models.TextMessageEndEvent(message_id="m1")


def test_an_event_without_base_event_is_refused() -> None:
    assert _errors(_ld(0x1A, _s(2, "m1"))) == [("/text_message_end", "missing")]


def test_an_inline_outcome_needs_its_discriminator() -> None:
    ok = codec_proto.decode(_run_finished(_s(5, "success"), _s(8, "call_1")))
    assert ok.outcome == models.RunFinishedSuccessOutcome(pending_tool_call_ids=["call_1"])
    assert _errors(_run_finished(_s(8, "call_1"))) == [("/run_finished", "missing")]


def test_an_interrupt_outcome_without_interrupts_breaks_the_schema_not_the_wire() -> None:
    assert _errors(_run_finished(_s(5, "interrupt"))) == [("/outcome/interrupts", "minItems")]


def test_an_unknown_outcome_is_stripped_leniently_and_refused_strictly() -> None:
    data = _run_finished(_s(5, "paused"))
    result = codec_proto.decode_lenient(data)
    assert result.value == models.RunFinishedEvent(thread_id="t", run_id="r")
    assert [w.pointer for w in result.warnings] == ["/outcome"]
    assert [p for p, _ in _errors(data)] == ["/outcome"]


def test_a_required_member_of_an_unknown_arm_is_stripped_as_json_strips_it() -> None:
    """An image part whose source carries only an arm this build lacks: the member is required,
    so the JSON lenient rules strip the part (warning at /content/0/source) and keep the
    message. Leniently from protobuf the member was left out, and the message refused with
    `missing required property 'source'`, the skipped arm's warning lost."""
    text = b'{"id":"u","role":"user","content":[{"type":"image","source":{"type":"url","value":"http://x"}},{"type":"text","text":"hi"}]}'
    data = codec_proto.encode(codec_json.decode(text, "Message"), "Message")
    at = data.index(b"\n\x08http://x") - 2
    assert data[at] == 0x12  # InputContentSource.url = 2
    unknown = data[:at] + b"\x4a" + data[at + 1 :]  # field 9: an arm of a newer build
    result = codec_proto.decode_lenient(unknown, "Message")
    as_json = codec_json.decode_lenient(text.replace(b'"type":"url"', b'"type":"carrier-pigeon"'), "Message")
    assert result.value == as_json.value and [type(p).__name__ for p in result.value.content] == ["TextPart"]
    assert [(w.pointer, w.keyword) for w in result.warnings] == [("", "unknown-field"), ("/content/0/source", "oneOf")]
    assert [(e.pointer, e.keyword) for e in _refused(unknown, "Message")] == [("/content_parts/0/image/source", "unknown-field")]


def test_a_failed_lenient_decode_keeps_what_it_skipped() -> None:
    data = _run_finished(_s(5, "interrupt"), _s(15, "from a newer build"))
    with pytest.raises(DecodeError) as caught:
        codec_proto.decode_lenient(data)
    assert [(e.pointer, e.keyword) for e in caught.value.errors] == [("/outcome/interrupts", "minItems")]
    assert [w.keyword for w in caught.value.warnings] == ["unknown-field"]


def _refused(data: bytes, definition: str) -> list[Issue]:
    with pytest.raises(DecodeError) as caught:
        codec_proto.decode(data, definition)
    return list(caught.value.errors)


def test_content_travels_in_one_form_only() -> None:
    body = _base(21) + _s(3, "m") + _s(4, "c") + _s(5, "text") + _ld(0x3A, _ld(0x0A, _s(1, "part")))
    event = b"\xb2\x01" + bytes([len(body)]) + body
    assert _errors(event) == [("/tool_call_result", "oneof")]


def test_a_merged_message_keeps_its_members_apart() -> None:
    """tool_calls on a user message: the wire has the field, the schema's user message does not."""
    call = _ld(0x2A, _s(1, "c1") + _s(2, "function") + _ld(0x1A, _s(1, "f") + _s(2, "{}")))
    message = _s(1, "u1") + _s(2, "user") + _s(3, "hi") + call
    data = _ld(0x2A, message)  # RunAgentInput.messages = 5
    assert codec_proto.decode(_s(1, "u1") + _s(2, "assistant") + call, "Message").tool_calls[0].id == "c1"
    with pytest.raises(DecodeError) as caught:
        codec_proto.decode(data, "RunAgentInput")
    assert [(e.pointer, e.keyword) for e in caught.value.errors] == [("/messages/0", "unevaluatedProperties")]
    assert "toolCalls" in caught.value.errors[0].message


def test_a_user_message_with_no_content_field_has_empty_parts() -> None:
    """A required array decodes as [] when the wire is silent (a repeated field has no presence)."""
    value = codec_proto.decode(_s(1, "u1") + _s(2, "user"), "Message")
    assert isinstance(value, models.UserMessage) and value.content == []


def _nested_list(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("depth", [125, 126, 127, 128, 129, 300, 5000])
def test_the_encoder_refuses_a_document_past_max_depth_whatever_validate_says(depth: int) -> None:
    """The event object is level 1, CUSTOM.value's arrays the levels below it. The encoder
    walks a document for its depth only when its bytes are long enough to hold MAX_DEPTH
    levels (or when encoding failed, as it does past the stack), so the shortest document
    past the limit must encode to at least that many bytes: checked here too."""
    from agui.errors import EncodeError
    from agui.limits import MAX_DEPTH

    document = {"type": "CUSTOM", "name": "x", "value": _nested_list(depth)}
    deep = depth + 1 > MAX_DEPTH
    for validate in (True, False):
        if deep:
            with pytest.raises(EncodeError) as caught:
                codec_proto.encode_document(document, validate=validate)
            assert caught.value.errors[0].keyword == "depth", caught.value.errors
        else:
            data = codec_proto.encode_document(document, validate=validate)
            assert codec_proto.decode_document(data) == document
    if depth == MAX_DEPTH:  # one level past: what it would have encoded to is long
        shallower = {"type": "CUSTOM", "name": "x", "value": _nested_list(depth - 1)}
        assert len(codec_proto.encode_document(shallower, validate=False)) >= MAX_DEPTH
