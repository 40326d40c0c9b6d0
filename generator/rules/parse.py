"""Statements -> RulesFile. Every error names file:line:column and what was expected there."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..errors import SpecError
from . import model as R
from .syntax import Statement, Token, statements

BLOCKS = ("machine", "entity", "chunks", "chunk", "answers", "sequence", "listing", "retired", "envelope", "results", "exchanges")
CMP = ("==", "!=", "<=", ">=", "<", ">")


class Cursor:
    def __init__(self, stmt: Statement, file: str) -> None:
        self.tokens = stmt.tokens
        self.i = 0
        self.file = file

    def fail(self, token: Token | None, message: str) -> SpecError:
        t = token or self.tokens[-1]
        col = t.col if token else t.col + len(t.text)
        return SpecError(self.file, f"line {t.line} column {col}", message)

    @property
    def done(self) -> bool:
        return self.i >= len(self.tokens)

    def peek(self, ahead: int = 0) -> Token | None:
        at = self.i + ahead
        return self.tokens[at] if at < len(self.tokens) else None

    def peek_is(self, *texts: str) -> bool:
        t = self.peek()
        return t is not None and t.kind in ("word", "op") and t.text in texts

    def next(self, what: str) -> Token:
        if self.done:
            raise self.fail(None, f"expected {what} at the end of the statement")
        t = self.tokens[self.i]
        self.i += 1
        return t

    def word(self, what: str = "a name") -> Token:
        t = self.next(what)
        if t.kind != "word":
            raise self.fail(t, f"expected {what}, got {t.text!r}")
        return t

    def keyword(self, text: str) -> Token:
        t = self.next(repr(text))
        if t.text != text:
            raise self.fail(t, f"expected {text!r}, got {t.text!r}")
        return t

    def string(self, what: str) -> str:
        t = self.next(what)
        if t.kind != "string":
            raise self.fail(t, f"expected {what} as a quoted string, got {t.text!r}")
        return str(t.value)

    def words_until(self, *stops: str) -> list[Token]:
        out = []
        while not self.done and not self.peek_is(*stops):
            out.append(self.word())
        return out

    def end(self) -> None:
        if not self.done:
            t = self.peek()
            raise self.fail(t, f"unexpected {t.text!r}" if t else "unexpected token")

    def value(self) -> Any:
        t = self.next("a value")
        if t.kind in ("string", "number"):
            return t.value
        if t.kind == "word":
            return {"true": True, "false": False}.get(t.text, t.text)
        raise self.fail(t, f"expected a value, got {t.text!r}")

    def fields_with_defaults(self, *stops: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        while not self.done and not self.peek_is(*stops):
            name = self.word("a field name").text
            out[name] = None
            if self.peek_is("="):
                self.next("=")
                out[name] = self.value()
        return out


def parse_rules(path: Path, display: str) -> R.RulesFile:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError(display, "", f"cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise SpecError(display, "", "not valid UTF-8") from None
    return Parser(display).parse(statements(text, display, BLOCKS))


class Parser:
    def __init__(self, file: str) -> None:
        self.file = file
        self.out = R.RulesFile(file=file)

    def parse(self, stmts: list[Statement]) -> R.RulesFile:
        i = 0
        while i < len(stmts):
            stmt = stmts[i]
            head = stmt.head.text
            if head in BLOCKS:
                j = i + 1
                while j < len(stmts) and not (len(stmts[j].tokens) == 1 and stmts[j].head.text == "end"):
                    if stmts[j].head.text in BLOCKS and stmts[j].indent <= stmt.indent:
                        break
                    j += 1
                if j >= len(stmts) or stmts[j].head.text != "end":
                    raise Cursor(stmt, self.file).fail(stmt.head, f"{head} block has no matching 'end'")
                getattr(self, "block_" + head.replace("-", "_"))(stmt, stmts[i + 1 : j])
                i = j + 1
                continue
            handler = getattr(self, "stmt_" + head.replace("-", "_"), None)
            if handler is None or head == "end":
                raise Cursor(stmt, self.file).fail(stmt.head, f"unknown statement {head!r}")
            handler(Cursor(stmt, self.file))
            i += 1
        if self.out.parties:
            if self.out.events_union:
                raise Cursor(stmts[0], self.file).fail(self.out.header, "a file of two parties (`parties`) has no `events` statement: its messages are typed by `envelope`, `sends` and `results`")
            for need, what in ((self.out.envelope, "an `envelope` block"), (self.out.sends, "`sends PARTY DEFINITION...`")):
                if not need:
                    raise SpecError(self.file, "line 1 column 1", f"a file of two parties needs {what}")
        elif not self.out.events_union:
            raise SpecError(self.file, "line 1 column 1", "missing `events <Union> by <field>` statement (or `parties A B` for a protocol of two parties)")
        return self.out

    # -- top-level statements -------------------------------------------------------------------

    def stmt_events(self, c: Cursor) -> None:
        self.out.header = c.keyword("events")
        self.out.events_union = c.word("the event union's definition").text
        c.keyword("by")
        self.out.discriminator = c.word("the discriminator field").text
        c.end()

    def stmt_owner(self, c: Cursor) -> None:
        c.keyword("owner")
        self.out.owner = c.word("the attribution field").text
        c.end()

    def stmt_rule(self, c: Cursor) -> None:
        c.keyword("rule")
        rid = c.word("a rule ID")
        if rid.text in self.out.rules:
            raise c.fail(rid, f"duplicate rule ID {rid.text} (first declared on line {self.out.rules[rid.text].at.line})")
        level_tok = c.word("a level (MUST, MUST NOT, SHOULD, SHOULD NOT, MAY)")
        level = level_tok.text
        if level in ("MUST", "SHOULD") and c.peek_is("NOT"):
            c.next("NOT")
            level += " NOT"
        if level not in R.LEVELS:
            raise c.fail(level_tok, f"unknown level {level!r}: one of {', '.join(R.LEVELS)}")
        c.keyword("ref")
        page = c.string("the spec page")
        section = c.string("the section")
        c.keyword("message")
        message_tok = c.peek()
        message = c.string("the message template")
        c.end()
        self.check_template(c, message_tok, rid.text, message)
        self.out.rules[rid.text] = R.Rule(rid.text, level, page, section, message, rid)

    def check_template(self, c: Cursor, at: Token | None, rule: str, message: str) -> None:
        for m in re.finditer(r"\{\{|\}\}|\{([^{}]*)\}|[{}]", message):
            name = m.group(1)
            if m.group() in ("{{", "}}") or name in R.PLACEHOLDERS:
                continue
            what = f"unknown placeholder {m.group()!r}" if name is not None else f"a lone {m.group()!r} (write {m.group() * 2} for the brace itself)"
            raise c.fail(at, f"rule {rule}: {what} in its message; a placeholder is one of {', '.join('{' + p + '}' for p in R.PLACEHOLDERS)}")

    def stmt_pass(self, c: Cursor) -> None:
        c.keyword("pass")
        for t in c.words_until():
            self.out.passes.append((t.text, t))

    def stmt_on_decode_error(self, c: Cursor) -> None:
        c.next("on-decode-error")
        t = c.word("a rule ID")
        self.out.decode_error_rule = (t.text, t)
        c.end()

    def stmt_on_stripped(self, c: Cursor) -> None:
        c.next("on-stripped")
        t = c.word("a rule ID")
        self.out.stripped_rule = (t.text, t)
        c.end()

    def stmt_on_unknown_event(self, c: Cursor) -> None:
        c.next("on-unknown-event")
        t = c.word("a rule ID")
        self.out.unknown_event_rule = (t.text, t)
        c.end()

    def stmt_on_retired(self, c: Cursor) -> None:
        c.next("on-retired")
        t = c.word("a rule ID")
        self.out.retired_rule = (t.text, t)
        c.end()

    def sender(self, c: Cursor) -> str | None:
        """`from PARTY` after a list of event types (a file of two parties only)."""
        if not c.peek_is("from"):
            return None
        at = c.next("from")
        if not self.out.parties:
            raise c.fail(at, "`from PARTY` names a sender: declare the parties first (`parties A B`)")
        party = c.word("a party")
        if party.text not in self.out.parties:
            raise c.fail(party, f"unknown party {party.text!r}: {', '.join(self.out.parties)}")
        return party.text

    def stmt_parties(self, c: Cursor) -> None:
        at = c.keyword("parties")
        names = c.words_until()
        if self.out.parties:
            raise c.fail(at, "the parties are already declared")
        if len(names) != 2 or names[0].text == names[1].text:
            raise c.fail(at, "`parties` names the two parties of the protocol (who sends a message), e.g. `parties client server`")
        for t in names:
            if t.text in ("from", "in", "except") or t.text.startswith("*") or not t.text.replace("-", "").replace("_", "").isalnum():
                raise c.fail(t, f"{t.text!r} cannot name a party: letters, digits, '-' and '_'")
        self.out.parties = [t.text for t in names]
        self.out.header = at

    def stmt_sends(self, c: Cursor) -> None:
        at = c.keyword("sends")
        if not self.out.parties:
            raise c.fail(at, "declare the parties first (`parties A B`)")
        party = c.word("a party")
        if party.text not in self.out.parties:
            raise c.fail(party, f"unknown party {party.text!r}: {', '.join(self.out.parties)}")
        defs = c.words_until()
        if not defs:
            raise c.fail(None, "`sends PARTY` names the definitions (unions of requests and notifications) the party sends")
        self.out.sends.setdefault(party.text, []).extend((t.text, t) for t in defs)

    def stmt_fact(self, c: Cursor) -> None:
        at = c.keyword("fact")
        name = c.word("the fact's name")
        if any(f.name == name.text for f in self.out.facts):
            raise c.fail(name, f"duplicate fact {name.text!r}")
        c.keyword("on")
        events = [t.text for t in c.words_until("from", "at")]
        if not events:
            raise c.fail(c.peek(), "expected the messages that declare the fact after 'on'")
        sender = self.sender(c)
        c.keyword("at")
        path = c.word("the field holding the fact").text
        c.end()
        self.out.facts.append(R.Fact(name.text, events, sender, path, at))

    def stmt_check(self, c: Cursor) -> None:
        at = c.keyword("check")
        rule = c.word("a rule ID").text
        c.keyword("on")
        events = [t.text for t in c.words_until("each", "expect", "from")]
        if not events:
            raise c.fail(c.peek(), "expected the event types the check applies to")
        sender = self.sender(c)
        each = None
        if c.peek_is("each"):
            c.next("each")
            each = c.word("an array field").text
        c.keyword("expect")
        expr = Expr(c).parse()
        c.end()
        self.out.checks.append(R.Check(rule, events, each, expr, at, sender))

    # -- blocks -----------------------------------------------------------------------------------

    def block_machine(self, head: Statement, body: list[Statement]) -> None:
        c = Cursor(head, self.file)
        at = c.keyword("machine")
        name = c.word("the machine's name").text
        c.end()
        if self.out.machine is not None:
            raise c.fail(at, "only one machine per rules file")
        states: list[str] = []
        initial = None
        after_cursor = None
        identity = None
        transitions: list[R.Transition] = []
        at_end: list[R.Transition] = []
        given: dict[str, int] = {}  # a statement said once per machine: the line that said it
        for stmt in body:
            m = Cursor(stmt, self.file)
            kw = stmt.head.text
            if kw in ("states", "initial", "after-cursor", "identity"):
                if kw in given:
                    raise m.fail(stmt.head, f"`{kw}` given twice in machine {name} (first on line {given[kw]})")
                given[kw] = stmt.head.line
            if kw == "states":
                m.next("states")
                states = [t.text for t in m.words_until()]
            elif kw == "initial":
                m.next("initial")
                initial = m.word("the initial state").text
                m.end()
            elif kw == "after-cursor":
                m.next("after-cursor")
                after_cursor = m.word("the state a replay after a cursor starts in").text
                m.end()
            elif kw == "identity":
                m.next("identity")
                identity = m.word("the opener's field that names a run").text
                m.end()
            elif kw == "on":
                transitions.append(self.transition(m))
            elif kw == "at-end":
                m.next("at-end")
                m.keyword("in")
                sources = [t.text for t in m.words_until("fail")]
                m.keyword("fail")
                rule = m.word("a rule ID").text
                m.end()
                at_end.append(R.Transition([], sources, None, rule, [], [], stmt.head))
            else:
                raise m.fail(stmt.head, f"unknown machine statement {kw!r}: states, initial, after-cursor, identity, on, at-end")
        if not states or initial is None:
            raise c.fail(at, "a machine needs `states ...` and `initial ...`")
        self.out.machine = R.Machine(name, states, initial, transitions, at_end, at, after_cursor, identity)

    def transition(self, c: Cursor) -> R.Transition:
        at = c.keyword("on")
        events = [t.text for t in c.words_until("in", "except", "from")]
        if not events:
            raise c.fail(c.peek(), "expected event types after 'on'")
        exclude = []
        if c.peek_is("except"):
            c.next("except")
            exclude = [t.text for t in c.words_until("in", "from")]
        sender = self.sender(c)
        c.keyword("in")
        sources = [t.text for t in c.words_until("->", "fail", "when")]
        if not sources:
            raise c.fail(c.peek(), "expected source states after 'in'")
        when = None
        if c.peek_is("when"):
            c.next("when")
            when = Expr(c).parse()
        target = fail = target_field = None
        if c.peek_is("fail"):
            c.next("fail")
            fail = c.word("a rule ID").text
        else:
            c.keyword("->")
            if c.peek_is("from"):  # the state the event's field names
                c.next("from")
                target_field = c.word("the field that names the target state").text
            else:
                target = c.word("the target state").text
        requires: list[R.Require] = []
        actions: list[str] = []
        key = None
        while not c.done:
            kw = c.word("'require', 'do' or 'key'")
            if kw.text == "do":
                actions += [t.text for t in c.words_until("require", "do", "key")]
            elif kw.text == "require":
                requires.append(self.require(c, kw))
            elif kw.text == "key":
                key = [t.text for t in c.words_until("require", "do")]
                if not key:
                    raise c.fail(kw, "`key` needs at least one field")
            else:
                raise c.fail(kw, f"expected 'require', 'do' or 'key', got {kw.text!r}")
        if fail and (requires or actions):
            raise c.fail(at, "a forbidden transition (fail) takes no require or do clauses")
        return R.Transition(events, sources, target, fail, requires, actions, at, exclude, when, key, sender, target_field)

    def require(self, c: Cursor, at: Token) -> R.Require:
        kind = c.word("closed, same, agree, agree-if-present, exists, missing or in-state")
        if kind.text == "closed":
            args = [t.text for t in c.words_until("else")]
            req = R.Require("closed", args, "", at)
        elif kind.text == "same":
            field = c.word("a field").text
            c.keyword("as")
            c.keyword("opener")
            req = R.Require("same", [field], "", at)
        elif kind.text in ("agree", "agree-if-present"):
            defaults = c.fields_with_defaults("else")
            req = R.Require(kind.text, list(defaults), "", at, defaults={k: v for k, v in defaults.items() if v is not None})
        elif kind.text in ("exists", "missing"):
            target = c.word("an entity kind").text
            field = c.word("a field").text
            req = R.Require(kind.text, [field], "", at, target=target)
        elif kind.text == "in-state":
            req = R.Require("in-state", [c.word("the field that names the item's state").text], "", at)
        else:
            raise c.fail(kind, f"unknown requirement {kind.text!r}: closed, same, agree, agree-if-present, exists, missing, in-state")
        if not req.args:
            raise c.fail(kind, f"`require {kind.text}` needs at least one name")
        c.keyword("else")
        req.rule = c.word("a rule ID").text
        return req

    def block_entity(self, head: Statement, body: list[Statement]) -> None:
        c = Cursor(head, self.file)
        c.keyword("entity")
        name = c.word("the entity's name")
        if any(e.name == name.text for e in self.out.entities):
            raise c.fail(name, f"duplicate entity {name.text!r}")
        c.keyword("key")
        key = [t.text for t in c.words_until()]
        if not key:
            raise c.fail(None, "an entity needs a key field")
        remember: dict[str, Any] = {}
        transitions = []
        outlives = None
        for stmt in body:
            m = Cursor(stmt, self.file)
            if stmt.head.text == "remember":
                m.next("remember")
                remember.update(m.fields_with_defaults())
            elif stmt.head.text == "on":
                transitions.append(self.transition(m))
            elif stmt.head.text == "outlives-run":
                m.next("outlives-run")
                outlives = m.word("the state an item continues in after its run").text
                m.end()
            else:
                raise m.fail(stmt.head, f"unknown entity statement {stmt.head.text!r}: remember, on, outlives-run")
        self.out.entities.append(R.Entity(name.text, key, remember, transitions, name, outlives))

    def block_chunks(self, head: Statement, body: list[Statement]) -> None:
        c = Cursor(head, self.file)
        at = c.keyword("chunks")
        c.keyword("lane")
        lane = c.word("the lane field").text
        c.end()
        lists: dict[str, list[str]] = {"close-all": [], "close-owner": [], "close-lane": []}
        ambiguous = None
        for stmt in body:
            m = Cursor(stmt, self.file)
            kw = m.next("a statement").text
            if kw in lists:
                lists[kw] += [t.text for t in m.words_until()]
            elif kw == "ambiguous":
                ambiguous = m.word("a rule ID").text
                m.end()
            else:
                raise m.fail(stmt.head, f"unknown chunks statement {kw!r}: close-all, close-owner, close-lane, ambiguous")
        if ambiguous is None:
            raise c.fail(at, "chunks needs `ambiguous RULE`")
        self.out.chunks = R.Chunks(lane, lists["close-all"], lists["close-owner"], lists["close-lane"], ambiguous, at)

    def block_chunk(self, head: Statement, body: list[Statement]) -> None:
        c = Cursor(head, self.file)
        c.keyword("chunk")
        event = c.word("the chunk event type")
        c.keyword("id")
        id_field = c.word("the id field").text
        c.end()
        parts: dict[str, tuple[str, list[str], dict[str, Any]]] = {}
        first: tuple[list[str], str] | None = None
        agree: dict[str, Any] = {}
        agree_rule = None
        for stmt in body:
            m = Cursor(stmt, self.file)
            kw = m.next("a statement").text
            if kw in ("start", "content", "end"):
                ev = m.word("an event type").text
                fields = m.fields_with_defaults()
                parts[kw] = (ev, [f for f, v in fields.items() if v is None], {f: v for f, v in fields.items() if v is not None})
            elif kw == "first":
                m.keyword("requires")
                names = [t.text for t in m.words_until("else")]
                m.keyword("else")
                first = (names, m.word("a rule ID").text)
                m.end()
            elif kw == "agree":
                agree = m.fields_with_defaults("else")
                m.keyword("else")
                agree_rule = m.word("a rule ID").text
                m.end()
            else:
                raise m.fail(stmt.head, f"unknown chunk statement {kw!r}: start, content, end, first, agree")
        missing = [p for p in ("start", "content", "end") if p not in parts]
        if missing or first is None:
            raise c.fail(event, f"chunk {event.text} needs start, content, end and first ({', '.join(missing) or 'first'} missing)")
        self.out.chunk_kinds.append(
            R.Chunk(event.text, id_field, parts["start"], parts["content"], parts["end"], first[0], first[1], agree, agree_rule, event)
        )

    def block_sequence(self, head: Statement, body: list[Statement]) -> None:
        c = Cursor(head, self.file)
        at = c.keyword("sequence")
        field = c.word("the sequence field").text
        c.keyword("per")
        key = c.word("the field the sequence is counted per").text
        c.keyword("from")
        start = c.next("the first value")
        if start.kind != "number" or not isinstance(start.value, int):
            raise c.fail(start, "the first value is an integer")
        c.end()
        rules: dict[str, str] = {}
        for stmt in body:
            m = Cursor(stmt, self.file)
            kw = m.next("gap or conflict").text
            if kw not in ("gap", "conflict"):
                raise m.fail(stmt.head, f"unknown sequence statement {kw!r}: gap, conflict")
            rules[kw] = m.word("a rule ID").text
            m.end()
        if set(rules) != {"gap", "conflict"}:
            raise c.fail(at, "a sequence needs `gap RULE` and `conflict RULE`")
        if self.out.sequence is not None:
            raise c.fail(at, "only one sequence per rules file")
        self.out.sequence = R.Sequence(field, key, int(start.value), rules["gap"], rules["conflict"], at)

    def block_answers(self, head: Statement, body: list[Statement]) -> None:
        c = Cursor(head, self.file)
        at = c.keyword("answers")
        name = c.word("a name").text
        c.end()
        got: dict[str, Any] = {}
        rules: dict[str, str] = {}
        for stmt in body:
            m = Cursor(stmt, self.file)
            kw = m.next("a statement").text
            if kw == "questions":
                got["questions"] = (m.word("an event type").text, m.word("the list field").text, m.word("the id field").text)
            elif kw == "input":
                got["input"] = (m.word("a definition").text, m.word("the list field").text, m.word("the id field").text)
            elif kw == "open-when":
                got["open_when"] = Expr(m).parse()
            elif kw == "expires":
                got["expires"] = m.word("the expiry field").text
                m.keyword("unless")
                got["unless"] = Expr(m).parse()
            elif kw in ("uncovered", "unknown", "expired", "nothing-to-continue"):
                rules[kw] = m.word("a rule ID").text
            else:
                raise m.fail(stmt.head, f"unknown answers statement {kw!r}")
            m.end()
        for need in ("questions", "input", "open_when"):
            if need not in got:
                raise c.fail(at, f"answers {name} needs `{need.replace('_', '-')}`")
        for need in ("uncovered", "unknown"):
            if need not in rules:
                raise c.fail(at, f"answers {name} needs `{need} RULE`")
        q, i = got["questions"], got["input"]
        self.out.answers.append(
            R.Answers(name, q[0], q[1], q[2], got["open_when"], i[0], i[1], i[2], got.get("expires"), got.get("unless"), rules, at)
        )


    def block_listing(self, head: Statement, body: list[Statement]) -> None:
        c = Cursor(head, self.file)
        at = c.keyword("listing")
        name = c.word("a name").text
        c.end()
        if any(x.name == name for x in self.out.listings):
            raise c.fail(at, f"duplicate listing {name!r}")
        got: dict[str, tuple[str, str, str]] = {}
        rules: dict[str, str] = {}
        for stmt in body:
            m = Cursor(stmt, self.file)
            kw = m.next("a statement").text
            if kw == "document":
                got[kw] = (m.word("a definition").text, m.word("the list field").text, m.word("the item's id field").text)
            elif kw == "created-by":
                got[kw] = (m.word("an event type").text, m.word("the item's path in it").text, "")
            elif kw in ("unmatched", "missing", "differs", "order"):
                rules[kw] = m.word("a rule ID").text
            else:
                raise m.fail(stmt.head, f"unknown listing statement {kw!r}: document, created-by, unmatched, missing, differs, order")
            m.end()
        for need in ("document", "created-by"):
            if need not in got:
                raise c.fail(at, f"listing {name} needs `{need}`")
        if "unmatched" not in rules:
            raise c.fail(at, f"listing {name} needs `unmatched RULE`")
        (definition, list_field, item_id), (event, path, _) = got["document"], got["created-by"]
        self.out.listings.append(R.Listing(name, definition, list_field, item_id, event, path, rules, at))

    def block_retired(self, head: Statement, body: list[Statement]) -> None:
        c = Cursor(head, self.file)
        at = c.keyword("retired")
        event = c.word("the retired event type").text
        c.keyword("as")
        replacement = c.word("the event type that replaces it").text
        c.end()
        if any(r.event == event for r in self.out.retired):
            raise c.fail(at, f"{event} is already translated")
        sets: list[tuple[str, str, Any, Token]] = []
        drops: list[str] = []
        for stmt in body:
            m = Cursor(stmt, self.file)
            kw = m.next("set or drop")
            if kw.text == "set":
                name = m.word("a field of the replacement").text
                if m.peek_is("new", "current", "close"):
                    how = m.next("new, current or close").text
                    sets.append((name, how, m.word("the slot that holds the id").text, kw))
                else:
                    sets.append((name, "value", m.value(), kw))
            elif kw.text == "drop":
                drops += [t.text for t in m.words_until()]
            else:
                raise m.fail(kw, f"unknown retired statement {kw.text!r}: set, drop")
            m.end()
        self.out.retired.append(R.Retired(event, replacement, sets, drops, at))

    def block_envelope(self, head: Statement, body: list[Statement]) -> None:
        c = Cursor(head, self.file)
        at = c.keyword("envelope")
        c.end()
        if self.out.envelope:
            raise c.fail(at, "only one envelope per rules file")
        for stmt in body:
            m = Cursor(stmt, self.file)
            kind = m.word("request, notification, result or error")
            if kind.text not in R.ENVELOPE_KINDS:
                raise m.fail(kind, f"unknown kind of message {kind.text!r}: {', '.join(R.ENVELOPE_KINDS)}")
            if any(k.kind == kind.text for k in self.out.envelope):
                raise m.fail(kind, f"{kind.text} is already declared")
            definition = m.word("the definition such a message is").text
            named: dict[str, str] = {}
            while not m.done:
                slot = m.word("id, method or payload")
                if slot.text not in ("id", "method", "payload"):
                    raise m.fail(slot, f"expected id, method or payload, got {slot.text!r}")
                named[slot.text] = m.word(f"the {slot.text} field").text
            need = {"request": ("id", "method"), "notification": ("method",), "result": ("id", "payload"), "error": ("payload",)}[kind.text]
            missing = [n for n in need if n not in named]
            if missing:
                raise m.fail(kind, f"a {kind.text} names its {' and '.join(missing)} field: `{kind.text} DEFINITION {' '.join(f'{n} FIELD' for n in need)}`")
            self.out.envelope.append(R.EnvelopeKind(kind.text, definition, named.get("id"), named.get("method"), named.get("payload"), kind))
        kinds = [k.kind for k in self.out.envelope]
        for wanted in ("request", "result"):
            if wanted not in kinds:
                raise c.fail(at, f"an envelope declares at least a request and a result ({wanted} missing)")


    def block_results(self, head: Statement, body: list[Statement]) -> None:
        c = Cursor(head, self.file)
        c.keyword("results")
        c.end()
        for stmt in body:
            m = Cursor(stmt, self.file)
            method = m.next("a request method")
            if method.kind not in ("word", "string") and method.text != "*":
                raise m.fail(method, f"expected a request method or *, got {method.text!r}")
            definition = m.word("the definition a result of it is").text
            name = "result"
            when = None
            if m.peek_is("as"):
                m.next("as")
                alias = m.word("the name of this kind of result")
                if alias.text in ("error",) or not alias.text.replace("-", "").replace("_", "").isalnum():
                    raise m.fail(alias, f"{alias.text!r} cannot name a kind of result")
                name = alias.text
            by = "request"
            if m.peek_is("when"):
                m.next("when")
                after = m.peek(1)
                # `when answer EXPR`: chosen by the result (`answer` is a field otherwise)
                if m.peek_is("answer") and after is not None and after.kind == "word" and after.text not in ("and", "or"):
                    m.next("answer")
                    by = "answer"
                when = Expr(m).parse()
            if method.text == "*" and by != "answer":
                raise m.fail(method, "`*` answers every request: its kind of result is chosen by the answer (`when answer EXPR`)")
            m.end()
            self.out.results.append(R.ResultAlt(str(method.value) if method.text != "*" else "*", definition, name, when, method, by))


    def block_exchanges(self, head: Statement, body: list[Statement]) -> None:
        c = Cursor(head, self.file)
        at = c.keyword("exchanges")
        c.end()
        if self.out.exchanges is not None:
            raise c.fail(at, "only one exchanges block per rules file")
        out = R.Exchanges({}, [], [], at)
        for stmt in body:
            m = Cursor(stmt, self.file)
            kw = m.word("a statement")
            if kw.text in R.EXCHANGE_RULES:
                named = m.word("a rule ID")
                out.rules[kw.text] = (named.text, named)
            elif kw.text in ("cancel", "track"):
                events = [t.text for t in m.words_until("from", "by")]
                if not events:
                    raise m.fail(m.peek(), f"expected the messages that {kw.text} a request")
                sender = self.sender(m)
                m.keyword("by")
                field = m.word("the field naming the request").text
                request_field = None
                keep: list[str] = []
                if kw.text == "track":
                    m.keyword("to")
                    request_field = m.word("the request's field that carries the same value").text
                    if m.peek_is("keep"):
                        m.next("keep")
                        keep = [t.text for t in m.words_until("else")]
                m.keyword("else")
                rule = m.word("a rule ID").text
                unique = None
                if kw.text == "track" and m.peek_is("unique"):
                    m.next("unique")
                    unique = m.word("a rule ID").text
                out.references.append(R.Reference(kw.text, events, sender, field, request_field, keep, rule, kw, unique))
            elif kw.text == "rising":
                events = [t.text for t in m.words_until("field")]
                m.keyword("field")
                field = m.word("the field that must grow").text
                m.keyword("else")
                out.rising.append(R.Rising(events, field, m.word("a rule ID").text, kw))
            else:
                raise m.fail(kw, f"unknown exchanges statement {kw.text!r}: {', '.join(R.EXCHANGE_RULES)}, cancel, track, rising")
            m.end()
        for need in ("unknown", "again", "reused", "open-at-end", "mistyped"):
            if need not in out.rules:
                raise c.fail(at, f"exchanges needs `{need} RULE`")
        self.out.exchanges = out


class Expr:
    """or > and > not > comparison > sum > atom. Atoms: a field path, a string or number,
    `present PATH`, `absent PATH`, `unique PATH`, `length PATH`, or a parenthesised expression.
    A path is the message's, or (two parties) `request PATH`, `fact NAME[.PATH]`."""

    def __init__(self, c: Cursor) -> None:
        self.c = c

    def parse(self) -> Any:
        if self.c.done:
            raise self.c.fail(None, "expected an expression")
        return self.or_()

    def or_(self) -> Any:
        left = self.and_()
        while self.c.peek_is("or"):
            self.c.next("or")
            left = ("or", left, self.and_())
        return left

    def and_(self) -> Any:
        left = self.not_()
        while self.c.peek_is("and"):
            self.c.next("and")
            left = ("and", left, self.not_())
        return left

    def not_(self) -> Any:
        if self.c.peek_is("not"):
            self.c.next("not")
            return ("not", self.not_())
        return self.cmp()

    def cmp(self) -> Any:
        left = self.sum()
        if self.c.peek_is(*CMP):
            op = self.c.next("an operator").text
            return ("cmp", op, left, self.sum())
        return left

    def sum(self) -> Any:
        left = self.atom()
        while self.c.peek_is("+", "-"):
            op = self.c.next("+ or -").text
            left = ("add" if op == "+" else "sub", left, self.atom())
        return left

    def atom(self) -> Any:
        t = self.c.next("a value, a field or '('")
        if t.text == "(" and t.kind == "op":
            inner = self.or_()
            self.c.keyword(")")
            return inner
        if t.kind in ("string", "number"):
            return ("lit", t.value)
        if t.kind == "word" and t.text in ("true", "false"):
            return ("lit", t.text == "true")
        if t.kind == "word" and t.text in ("present", "absent", "unique", "length"):
            return (t.text, self.operand(self.c.word("a field path")))
        if t.kind == "word":
            return self.operand(t)
        raise self.c.fail(t, f"unexpected {t.text!r} in an expression")

    def operand(self, t: Token) -> Any:
        """A field path: of the message (`params.name`), of the request a message answers or
        refers to (`request params.name`), or of a fact (`fact NAME.path`). The words become
        scopes only when a path follows them."""
        nxt = self.c.peek()
        if t.text in ("request", "fact") and nxt is not None and nxt.kind == "word" and nxt.text not in ("and", "or", "not"):
            path = self.c.word("a field path")
            return ("field", path.text, path, t.text)
        return ("field", t.text, t, None)
