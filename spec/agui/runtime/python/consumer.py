"""The AG-UI consumer core: what a client does with a stream after the automaton has checked it.

``Consumer`` decodes each event leniently (stripping and reporting what a newer peer added),
expands the chunk shorthands and validates order (``automaton``), then projects the events onto
the conversation (``Projection``): messages assembled from their streams, tool calls on the
assistant message that made them, tool results as tool messages, reasoning and activity messages,
snapshots reconciled by id, state replaced by snapshots and patched by deltas, metadata merged
last-write-wins. ``prepare_input`` is the outgoing side: the RunAgentInput as a peer of a given
protocol version can receive it.

Specified in the AG-UI 1.1 pages basic/processing, basic/versioning, basic/patterns/*,
events/* (public repository ag-ui-protocol/ag-ui, docs/spec/1.1/).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable
from typing import Any

import msgspec
from msgspec import UNSET

from . import codec_json, models
from .automaton import Automaton, Finding
from .errors import DecodeError, Issue
from .jsonpatch import Document, PatchError
from .version import PROTOCOL_VERSION
from .limits import MAX_DEPTH, safe_text, value_depth

__all__ = ["PROTOCOL_VERSION", "Projection", "Consumer", "prepare_input", "version_tuple"]

# the first version whose peers read protocolVersion; older peers are sent none
_DECLARES_VERSION = (1, 0, 0)
# peers at or below these versions need the content and subagent downgrades
_FLAT_CONTENT = (0, 0, 39)
_NO_SUBAGENTS = (0, 0, 57)
_SUBAGENT_EVENTS = frozenset({"SUBAGENT_STARTED", "SUBAGENT_FINISHED", "SUBAGENT_ERROR"})
_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?(?:[-+].*)?$")
_ROLE_CLASSES: dict[str, Any] = {
    "developer": models.DeveloperMessage,
    "system": models.SystemMessage,
    "assistant": models.AssistantMessage,
    "user": models.UserMessage,
}


_TEXT_CLASSES = tuple(_ROLE_CLASSES.values())


def _kind(message: Any) -> str:
    """`a tool message`: what a message is, for a warning."""
    role = getattr(message, "role", None)
    return f"a {role} message" if isinstance(role, str) else f"a {type(message).__name__}"


def version_tuple(text: str) -> tuple[int, int, int] | None:
    """`1.1` -> (1, 1, 0); None when the text is not a version this client can compare."""
    found = _VERSION.match(text.strip()) if isinstance(text, str) else None
    if found is None:
        return None
    return int(found.group(1)), int(found.group(2)), int(found.group(3) or 0)


def _appended(holder: Any, attr: str, delta: str) -> str:
    """``holder.attr + delta``, in place where the interpreter can: the holder lets go of the
    text first, so the text's one reference is the local being extended (CPython then grows it
    where it lies instead of copying it: a message built from n deltas costs its length, not
    n times it)."""
    held = getattr(holder, attr)
    setattr(holder, attr, "")
    text: str = "" if held is UNSET else held
    del held
    text += delta
    return text




_QUOTED = 200


def _quoted(value: Any) -> str:
    """A value an earlier event gave, as a warning quotes it: at most _QUOTED characters (a
    warning per event quoting a long one in full would cost its length per event)."""
    text = repr(value[:_QUOTED] if isinstance(value, str) else value)  # repr of the whole costs its length
    return text if len(text) <= _QUOTED and not (isinstance(value, str) and len(value) > _QUOTED) else text[: _QUOTED - 3] + "..."


def _attribute(message: Any, event: Any) -> None:
    """A message takes the attribution of the event that created it."""
    owner = getattr(event, "subagent_run_id", UNSET)
    if owner is not UNSET:
        message.subagent_run_id = owner


class Projection:
    """Messages and state as a client holds them, updated one delivered event at a time."""

    def __init__(self, messages: list[Any] | None = None, state: Any = None) -> None:
        self.messages: list[Any] = list(messages or [])
        # the state, patched in place by deltas (each costs what it touches, and applies whole
        # or not at all); activity contents likewise, by message id, made on their first delta
        self._state = Document({} if state is None else state)
        self._contents: dict[str, Document] = {}
        self.run_errors: list[str] = []
        self.warnings: list[str] = []
        self._reindex()
        # event type -> handler, looked up once rather than per event
        self._handlers = {
            name[4:].upper(): getattr(self, name) for name in dir(self) if name.startswith("_on_")
        }

    def _reindex(self) -> None:
        self._by_id = {m.id: m for m in self.messages}
        self._at = {m.id: i for i, m in enumerate(self.messages)}  # where each id's message is
        self._contents = {}
        # the call lists and metadata this projection made (so may extend in place): not those
        # that came with a snapshot, which are an event's own values
        self._owned_calls: dict[str, list[Any]] = {}
        self._owned_metadata: dict[int, tuple[Any, dict[str, Any]]] = {}
        # tool call id -> the call, and the id of the assistant message that holds it
        self._calls = {}
        self._parents: dict[str, str] = {}
        for m in self.messages:
            if isinstance(m, models.AssistantMessage) and m.tool_calls is not UNSET:
                for call in m.tool_calls:
                    self._calls[call.id] = call
                    self._parents[call.id] = m.id
        # calls whose reopening disagreed with them: their events are withheld until their end
        self._withheld: set[str] = set()

    def _add(self, message: Any) -> Any:
        at = self._at.get(message.id)
        if at is not None:
            self.messages[at] = message
        else:
            self._at[message.id] = len(self.messages)
            self.messages.append(message)
        self._by_id[message.id] = message
        return message

    @property
    def state(self) -> Any:
        return self._state.value

    @state.setter
    def state(self, value: Any) -> None:
        self._state.reset(value)

    def _merge_metadata(self, target: Any, event: Any) -> None:
        """Metadata merges key by key, last write wins, without recursing; a target's merged
        metadata is this projection's own dict after the first merge, extended in place."""
        incoming = getattr(event, "metadata", UNSET)
        if incoming is UNSET:
            return
        current = getattr(target, "metadata", UNSET)
        owned = self._owned_metadata.get(id(target))
        if owned is not None and owned[0] is target and owned[1] is current:
            current.update(incoming)
            return
        merged = {**({} if current is UNSET else current), **incoming}
        target.metadata = merged
        self._owned_metadata[id(target)] = (target, merged)

    def warn(self, text: str) -> None:
        self.warnings.append(text)

    def apply(self, event: Any) -> None:
        handler = self._handlers.get(event.type)
        if handler is not None:
            handler(event)

    # -- text messages ------------------------------------------------------------------------

    def _on_text_message_start(self, ev: Any) -> None:
        message = self._by_id.get(ev.message_id)
        if message is not None and not isinstance(message, _TEXT_CLASSES):
            # the rules keep text messages apart from tool results, reasoning and activity; the
            # conversation holds one message per id: the latest stream takes it (as a tool
            # result or an activity snapshot does)
            self.warn(f"TEXT_MESSAGE_START for {ev.message_id!r}, which is {_kind(message)}: replaced by a text message")
            message = None
        if message is None:
            role = "assistant" if ev.role is UNSET else str(ev.role)
            message = self._add(_ROLE_CLASSES[role](id=ev.message_id, content=""))
            _attribute(message, ev)
        if ev.name is not UNSET:
            message.name = ev.name
        self._merge_metadata(message, ev)

    def _on_text_message_content(self, ev: Any) -> None:
        message = self._by_id.get(ev.message_id)
        if message is None:
            return
        if isinstance(message.content, list):
            message.content.append(models.TextPart(text=ev.delta))
        elif message.content is UNSET or isinstance(message.content, str):
            message.content = _appended(message, "content", ev.delta)
        else:  # the id now names a message whose content is not text (an activity's)
            self.warn(f"TEXT_MESSAGE_CONTENT for {ev.message_id!r}, which is {_kind(message)}: skipped")
            return
        self._merge_metadata(message, ev)

    def _on_text_message_end(self, ev: Any) -> None:
        message = self._by_id.get(ev.message_id)
        if message is not None:
            self._merge_metadata(message, ev)

    # -- tool calls ---------------------------------------------------------------------------

    def _on_tool_call_start(self, ev: Any) -> None:
        if ev.tool_call_id in self._calls:
            existing = self._calls[ev.tool_call_id]
            parent = self._parents.get(ev.tool_call_id)
            if existing.function.name != ev.tool_call_name or (
                ev.parent_message_id is not UNSET and ev.parent_message_id != parent
            ):
                # tool-calls.mdx § TOOL_CALL_END: a reopening start MUST agree with the call it
                # reopens. Merging would append one tool's arguments to another's call.
                self._withheld.add(ev.tool_call_id)
                self.warn(
                    f"TOOL_CALL_START reopens tool call {ev.tool_call_id!r} as {ev.tool_call_name!r}"
                    f"{'' if ev.parent_message_id is UNSET else f' under {ev.parent_message_id!r}'}, but it is "
                    f"{_quoted(existing.function.name)} under {_quoted(parent)}: its events are withheld (TOOL-REOPEN-AGREE)"
                )
                return
            self._merge_metadata(existing, ev)
            return  # a reopened call: further arguments append
        call = models.ToolCall(
            id=ev.tool_call_id, type="function", function=models.FunctionCall(name=ev.tool_call_name, arguments="")
        )
        self._merge_metadata(call, ev)
        parent_id = ev.parent_message_id
        parent = self._by_id.get(parent_id) if parent_id is not UNSET else None
        if not isinstance(parent, models.AssistantMessage):
            parent = self._add(models.AssistantMessage(id=ev.tool_call_id if parent_id is UNSET else parent_id))
            _attribute(parent, ev)
        calls = parent.tool_calls
        if calls is UNSET or self._owned_calls.get(parent.id) is not calls:
            calls = self._owned_calls[parent.id] = [] if calls is UNSET else list(calls)
        calls.append(call)
        parent.tool_calls = calls
        self._calls[call.id] = call
        self._parents[call.id] = parent.id

    def _on_tool_call_args(self, ev: Any) -> None:
        if ev.tool_call_id in self._withheld:
            return
        call = self._calls.get(ev.tool_call_id)
        if call is not None:
            call.function.arguments = _appended(call.function, "arguments", ev.delta)
            self._merge_metadata(call, ev)

    def _on_tool_call_end(self, ev: Any) -> None:
        if ev.tool_call_id in self._withheld:
            self._withheld.discard(ev.tool_call_id)
            return
        call = self._calls.get(ev.tool_call_id)
        if call is not None:
            self._merge_metadata(call, ev)

    def _on_tool_call_result(self, ev: Any) -> None:
        message = models.ToolMessage(id=ev.message_id, tool_call_id=ev.tool_call_id, content=ev.content)
        self._merge_metadata(message, ev)
        _attribute(message, ev)
        self._add(message)

    # -- reasoning ----------------------------------------------------------------------------

    def _on_reasoning_message_start(self, ev: Any) -> None:
        message = self._by_id.get(ev.message_id)
        if message is not None and not isinstance(message, models.ReasoningMessage):
            self.warn(f"REASONING_MESSAGE_START for {ev.message_id!r}, which is {_kind(message)}: replaced by a reasoning message")
            message = None
        if message is None:
            message = self._add(models.ReasoningMessage(id=ev.message_id, content=""))
            _attribute(message, ev)
        self._merge_metadata(message, ev)

    def _on_reasoning_message_content(self, ev: Any) -> None:
        message = self._by_id.get(ev.message_id)
        if isinstance(message, models.ReasoningMessage):
            message.content = _appended(message, "content", ev.delta)
            self._merge_metadata(message, ev)

    def _on_reasoning_message_end(self, ev: Any) -> None:
        message = self._by_id.get(ev.message_id)
        if message is not None:
            self._merge_metadata(message, ev)

    def _on_reasoning_encrypted_value(self, ev: Any) -> None:
        subtype = str(ev.subtype)
        target = self._calls.get(ev.entity_id) if subtype == "tool-call" else self._by_id.get(ev.entity_id)
        if target is None or isinstance(target, models.ActivityMessage) or not hasattr(target, "encrypted_value"):
            self.warn(f"REASONING_ENCRYPTED_VALUE names no known {subtype} {ev.entity_id!r}: dropped")
            return
        target.encrypted_value = ev.encrypted_value
        if ev.encrypted_value_type is not UNSET:
            target.encrypted_value_type = ev.encrypted_value_type

    # -- activity -----------------------------------------------------------------------------

    def _on_activity_snapshot(self, ev: Any) -> None:
        existing = self._by_id.get(ev.message_id)
        if isinstance(existing, models.ActivityMessage) and ev.replace is False:
            return  # an existing activity stands unless the snapshot replaces it
        message = models.ActivityMessage(id=ev.message_id, activity_type=ev.activity_type, content=ev.content)
        _attribute(message, ev)
        self._add(message)
        self._contents.pop(ev.message_id, None)

    def _on_activity_delta(self, ev: Any) -> None:
        message = self._by_id.get(ev.message_id)
        if not isinstance(message, models.ActivityMessage):
            self.warn(f"ACTIVITY_DELTA names no activity message {ev.message_id!r}: skipped")
            return
        content = self._contents.get(ev.message_id)
        if content is None or content.value is not message.content:
            # the message's own copy: its content may be the value of an event delivered as is
            content = self._contents[ev.message_id] = Document(copy.deepcopy(message.content))
        became: list[str] = []

        def an_object(value: Any) -> str | None:
            if isinstance(value, dict):
                return None
            became.append(type(value).__name__)
            return "content must stay an object"

        try:
            content.apply(ev.patch, an_object)
        except PatchError as exc:
            if became:
                self.warn(f"activity patch would make {ev.message_id!r} content a {became[0]}: skipped")
            else:
                self.warn(f"Failed to apply activity patch to {ev.message_id!r}: {exc}")
            return
        message.content = content.value
        message.activity_type = ev.activity_type

    # -- snapshots and state ------------------------------------------------------------------

    def _on_messages_snapshot(self, ev: Any) -> None:
        self.messages = list(ev.messages)
        self._reindex()

    def _on_state_snapshot(self, ev: Any) -> None:
        self.state = copy.deepcopy(ev.snapshot)

    def _on_state_delta(self, ev: Any) -> None:
        try:
            self._state.apply(ev.delta)
        except PatchError as exc:
            self.warn(f"Failed to apply state patch (state kept): {exc}")

    # -- runs ---------------------------------------------------------------------------------

    def _on_run_started(self, ev: Any) -> None:
        declared = ev.protocol_version
        if declared is UNSET:
            return
        ours = version_tuple(PROTOCOL_VERSION)
        theirs = version_tuple(declared)
        if theirs is None:
            self.warn(f"producer declares protocolVersion {declared!r}, which this {PROTOCOL_VERSION} client cannot interpret")
        elif ours is not None and theirs[:2] > ours[:2]:
            self.warn(
                f"producer declares protocolVersion {declared}, newer than {PROTOCOL_VERSION}: "
                "what this client does not recognise is stripped"
            )

    def _on_run_error(self, ev: Any) -> None:
        self.run_errors.append(ev.message)


def _upgrade_part(part: Any, notes: list[str]) -> Any:
    """A legacy `binary` content part as the modern media part with the same payload."""
    if not (isinstance(part, dict) and part.get("type") == "binary" and isinstance(part.get("mimeType"), str)):
        return part
    mime = part["mimeType"]
    kind = next((k for k in ("image", "audio", "video") if mime.startswith(k + "/")), "document")
    if part.get("data"):
        source = {"type": "data", "value": part["data"], "mimeType": mime}
    elif part.get("url"):
        source = {"type": "url", "value": part["url"], "mimeType": mime}
    else:
        notes.append(f"a legacy binary part with neither data nor url (id {part.get('id')!r}) cannot be upgraded")
        return part
    upgraded: dict[str, Any] = {"type": kind, "source": source}
    if part.get("filename"):
        upgraded["metadata"] = {"filename": part["filename"]}
    return upgraded


def prepare_input(document: dict[str, Any], peer_version: str | None = None) -> tuple[Any, list[str]]:
    """The RunAgentInput to send to a peer that speaks at most `peer_version` (None: this
    version), and what the downgrade had to say. Legacy binary parts are always upgraded;
    activity messages are never sent; a peer at or below 0.0.39 gets text-only content (the rest
    reported, not dropped silently); a peer older than the version field gets no protocolVersion.
    The result is validated: a RunAgentInput the schema refuses raises DecodeError."""
    notes: list[str] = []
    peer = version_tuple(peer_version) if peer_version else version_tuple(PROTOCOL_VERSION)
    if peer is None:
        raise ValueError(f"not a protocol version: {peer_version!r}")
    doc = _json_copy(document)
    raw_messages = doc.get("messages", [])
    if not isinstance(raw_messages, list):
        raise _refused("/messages", "type", f"expected array, got {type(raw_messages).__name__}")
    messages = []
    for message in raw_messages:
        if isinstance(message, dict) and message.get("role") == "activity":
            continue
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            content = [_upgrade_part(p, notes) for p in content]
            # a text part whose text is not a string stays, for validation to refuse
            if peer <= _FLAT_CONTENT and all(
                isinstance(p.get("text"), str) for p in content if isinstance(p, dict) and p.get("type") == "text"
            ):
                texts = [p["text"] for p in content if isinstance(p, dict) and p.get("type") == "text" and p.get("text")]
                dropped = sorted({str(p.get("type")) if isinstance(p, dict) else type(p).__name__ for p in content if not (isinstance(p, dict) and p.get("type") == "text")})
                if dropped:
                    notes.append(
                        f"flattening message {message.get('id')!r} for a {peer_version} peer DROPS non-text parts "
                        f"({', '.join(dropped)}): the peer cannot receive them"
                    )
                content = "\n".join(texts)
            message["content"] = content
        if peer <= _NO_SUBAGENTS and isinstance(message, dict) and "subagentRunId" in message:
            notes.append(f"dropping subagentRunId of message {message.get('id')!r}: a {peer_version} peer predates subagents")
            del message["subagentRunId"]
        messages.append(message)
    doc["messages"] = messages
    if peer >= _DECLARES_VERSION:
        doc.setdefault("protocolVersion", PROTOCOL_VERSION)
    else:
        doc.pop("protocolVersion", None)
    return codec_json.decode(json.dumps(doc), "RunAgentInput"), notes


def _refused(pointer: str, keyword: str, message: str) -> DecodeError:
    return DecodeError("RunAgentInput", [Issue(pointer, "RunAgentInput", keyword, message)])


def _json_copy(document: Any) -> dict[str, Any]:
    """A private copy of a request given as JSON values, or DecodeError: it must be an object,
    nested at most MAX_DEPTH deep (checked before anything recurses into it), and hold only JSON
    values (no NaN, no lone surrogate, no integer beyond the digits limit: codec_json decides)."""
    if not isinstance(document, dict):
        raise _refused("", "type", f"expected object, got {type(document).__name__}")
    if value_depth(document) > MAX_DEPTH:
        raise _refused("", "depth", f"nested deeper than {MAX_DEPTH} arrays and objects")
    try:
        copied: dict[str, Any] = json.loads(json.dumps(document, allow_nan=False))
    except (TypeError, ValueError, RecursionError) as exc:
        raise _refused("", "json", safe_text(f"not a JSON document: {exc}")) from None
    return copied


class Consumer:
    """One stream, consumed as a client would: decode, expand, validate, project.

    `client_version` pins the era of the application the events are delivered to (a 0.0.57
    client gets no subagent lifecycle); `input` is the RunAgentInput the stream answers, as
    JSON (it is prepared for the peer with `prepare_input`); `keep_delivered` False keeps memory
    flat on long streams.

    The constructor refuses a version it cannot read with ValueError and an input the schema
    refuses (not an object, not JSON, invalid) with DecodeError (a ValueError too); after that
    nothing raises: every document fed is decoded, judged and projected, or reported."""

    def __init__(
        self, client_version: str | None = None, input: dict[str, Any] | None = None, keep_delivered: bool = True
    ) -> None:
        self.client = version_tuple(client_version) if client_version else version_tuple(PROTOCOL_VERSION)
        if self.client is None:
            raise ValueError(f"not a protocol version: {client_version!r}")
        self.client_version = client_version or PROTOCOL_VERSION
        self.automaton = Automaton()
        self.delivered: list[Any] = []
        self._keep = keep_delivered
        self.request: Any = None
        seed_messages: list[Any] = []
        seed_state: Any = None
        notes: list[str] = []
        if input is not None:
            if not isinstance(input, dict):
                raise _refused("", "type", f"expected object, got {type(input).__name__}")
            base = {"threadId": "thread", "runId": "run", "messages": [], **input}
            self.request, notes = prepare_input(base, client_version)
            seed_messages = list(self.request.messages)
            seed_state = None if self.request.state is UNSET else copy.deepcopy(self.request.state)
        self.projection = Projection(seed_messages, seed_state)
        for note in notes:
            self.projection.warn(note)
        self._told: set[str] = set()

    def feed_document(self, data: bytes | str) -> tuple[Finding, ...]:
        findings = self.automaton.feed_document(data)
        for event in self.automaton.expanded:
            self._deliver(event)
        return findings

    def feed_documents(self, documents: Iterable[bytes | str]) -> None:
        """Feed many documents, each as ``feed_document`` would, returning nothing: the findings
        are in ``automaton.findings`` (past its ``max_findings`` only counted, and not made)."""
        automaton = self.automaton
        automaton.bulk = True
        try:
            for data in documents:
                automaton.feed_document(data)
                for event in automaton.expanded:
                    self._deliver(event)
        finally:
            automaton.bulk = False

    def feed(self, event: Any) -> tuple[Finding, ...]:
        findings = self.automaton.feed(event)
        for ev in self.automaton.expanded:
            self._deliver(ev)
        return findings

    def finish(self) -> tuple[Finding, ...]:
        return self.automaton.finish()

    def _deliver(self, event: Any) -> None:
        if self.client is not None and self.client <= _NO_SUBAGENTS:
            event = self._downgrade(event)
            if event is None:
                return
        if self._keep:
            self.delivered.append(event)
        self.projection.apply(event)

    def _downgrade(self, event: Any) -> Any:
        """A client at or below 0.0.57 has no subagents: their lifecycle is dropped and
        attribution removed, each said once."""
        type_ = str(event.type)
        if type_ in _SUBAGENT_EVENTS:
            if type_ not in self._told:
                self._told.add(type_)
                self.projection.warn(f"dropping {type_}: a {self.client_version} client predates subagents")
            return None
        if getattr(event, "subagent_run_id", UNSET) is not UNSET:
            if "attribution" not in self._told:
                self._told.add("attribution")
                self.projection.warn(f"dropping subagentRunId attribution: a {self.client_version} client predates subagents")
            event = msgspec.structs.replace(event, subagent_run_id=UNSET)
        return event

    @property
    def warnings(self) -> list[str]:
        findings = [str(f) for f in self.automaton.findings if not f.fatal]
        return findings + self.projection.warnings

    def report(self) -> dict[str, Any]:
        """What `specbind replay --json` adds: the conversation and state the stream leaves,
        the run errors in order, the events as delivered, and the request."""
        out: dict[str, Any] = {
            "messages": codec_json.to_builtins(self.projection.messages),
            "state": self.projection.state,
            "runErrors": list(self.projection.run_errors),
            "delivered": [codec_json.to_builtins(e) for e in self.delivered],
            "consumerWarnings": list(self.projection.warnings),
        }
        if self.request is not None:
            out["request"] = codec_json.to_builtins(self.request)
        return out
