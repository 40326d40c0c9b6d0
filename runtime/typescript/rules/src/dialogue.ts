/**
 * The exchange stage of a protocol of two parties, run before the machine: every message has a
 * sender, a request opens an exchange keyed by (sender, id), the other party's result or error
 * with that id closes it, and a result is checked as the result type of the method its request
 * named. The twin of the Python package's `dialogue.py`: the same tables, the same findings, the
 * same messages (docs/rules-tables.md, "Two parties").
 *
 * Each message that passes goes on to the machine, entities and checks as the event type
 * `SENDER METHOD`, `SENDER METHOD:NAME` (a result) or `SENDER METHOD:error`.
 */

import { check, checkLenient } from "./codec_json.js";
import { DecodeError, Issue } from "./errors.js";
import { JSONParseError, PyFloat, parseJson, pyStr } from "./json.js";
import { TABLES } from "./automaton_table.js";

/* eslint-disable @typescript-eslint/no-explicit-any */
type Obj = Record<string, any>;

/** What the exchange stage needs of the automaton that owns it. */
export interface Host {
  index: number;
  readonly counts: Map<string, number>;
  report(rule: string, type: string, values?: Obj, ids?: readonly string[]): void;
  take(): unknown;
  applyMessage(value: Obj, type: string, shallow?: boolean): void;
  evaluateWith(e: Obj, obj: unknown): unknown;
}

const PARTIES: string[] = TABLES.parties ?? [];
const ENVELOPE: Obj[] = TABLES.envelope ?? [];
const MESSAGES: Record<string, Record<string, { kind: string; definition: string }>> = TABLES.messages ?? {};
const RESULTS: Record<string, Obj[]> = TABLES.results ?? {};
const FACTS: Record<string, Obj[]> = TABLES.facts ?? {};
const EXCHANGES: Obj = TABLES.exchanges ?? { rules: {}, references: {}, remember: [] };
const RULES: Record<string, string> = EXCHANGES["rules"];
const REFERENCES: Record<string, Obj> = EXCHANGES["references"];
const REMEMBER: string[][] = EXCHANGES["remember"];
const OTHER: Record<string, string> = PARTIES.length === 2 ? { [PARTIES[0]!]: PARTIES[1]!, [PARTIES[1]!]: PARTIES[0]! } : {};
const ID: string = ENVELOPE.find((k) => k["id"])?.["id"] ?? "";
const METHOD: string = ENVELOPE.find((k) => k["method"])?.["method"] ?? "";
const has = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
/** method -> the kinds of result the answer itself chooses (`when answer`), tried in order first. */
const BY_ANSWER: Record<string, Obj[]> = Object.fromEntries(Object.entries(RESULTS).map(([m, alts]) => [m, alts.filter((a) => a["by"] === "answer")]));
const BLANK = new Map<string, boolean>(); // envelope kind -> whether `{}` stands in for its payload

/** Whether a value is a document of the definition, strictly (the codec's own validator: the
 * general vocabulary where the package has one). */
function accepts(definition: string, value: unknown): boolean {
  try {
    check(value, definition as any);
    return true;
  } catch (e) {
    if (e instanceof DecodeError) return false;
    throw e;
  }
}

/** (kind, the fields that make a message of that kind, the envelope entry), in order: the
 * fields each kind requires beyond those every kind requires. */
const KINDS: [string, string[], Obj][] = (() => {
  const common = ENVELOPE.length ? (ENVELOPE[0]!["required"] as string[]).filter((f) => ENVELOPE.every((k) => (k["required"] as string[]).includes(f))) : [];
  return ENVELOPE.map((k) => [k["kind"], (k["required"] as string[]).filter((f) => !common.includes(f)), k] as [string, string[], Obj]);
})();

/** What a scoped path reads when there is nothing to read (the automaton makes it unknown). */
export const MISSING = Symbol("missing");

const isObject = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof PyFloat);

function walk(value: any, path: readonly string[]): any {
  for (const name of path) {
    if (!isObject(value) || !has(value, name)) return undefined;
    value = value[name];
  }
  return value;
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A request id as a key (an integer written `1.0` is the integer), or undefined: not an id.
 * Exact: an integer within 2^53 is a number, beyond it a bigint, however it was written. */
function asId(v: unknown): string | number | bigint | undefined {
  if (typeof v === "string") return v;
  const n = v instanceof PyFloat ? v.value : v;
  if (typeof n === "number") return !Number.isInteger(n) ? undefined : Number.isSafeInteger(n) ? n + 0 : BigInt(n);
  if (typeof n === "bigint") return n >= -SAFE && n <= SAFE ? Number(n) : n;
  return undefined;
}

/** A number's value, exactly (a bigint past 2^53), or null: not a number. */
function numberOf(v: unknown): number | bigint | null {
  if (typeof v === "number" || typeof v === "bigint") return v;
  if (v instanceof PyFloat) return v.value;
  return null;
}

/** a > b, exactly, for numbers and bigints alike. */
function exceeds(a: number | bigint, b: number | bigint): boolean {
  if (typeof a === "number" && typeof b === "number") return a > b;
  if (typeof a === "bigint" && typeof b === "bigint") return a > b;
  // a bigint against a double: against the integers either side of it
  return typeof a === "bigint" ? a > BigInt(Math.floor(b as number)) : BigInt(Math.ceil(a)) > (b as bigint);
}

function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (typeof v === "boolean") return "a boolean";
  if (typeof v === "number" || typeof v === "bigint" || v instanceof PyFloat) return "a number";
  if (typeof v === "string") return "a string";
  return Array.isArray(v) ? "an array" : "an object";
}

function issues(errors: readonly Issue[]): string {
  const detail = errors.slice(0, 3).map(String).join("; ");
  return detail + (errors.length > 3 ? `; and ${errors.length - 3} more` : "");
}

const text = (v: unknown): string => pyStr(v);

/** [state, method, index, remembered, alt, last values, id, cancelled at]; state: "open",
 * "cancelled" (open, but its requester cancelled it), "answered". */
type Exchange = [state: string, method: string, index: number, remembered: Map<string, any>, alt: string | null, last: Map<string, any>, id: any, cancelledAt: number | null, requester: string];

/** The exchanges, facts and references of one session (one transcript). */
export class Dialogue {
  /** (requester, id) -> its exchange, in the order requests were made */
  private readonly exchanges = new Map<string, Exchange>();
  private readonly tracked = new Map<string, Exchange>();
  readonly facts = new Map<string, [any, number]>();
  private request: Map<string, any> | null = null;
  /** the id of that request, as a check's finding names it in {ids}: a notification that names a
   * request (a cancellation) carries no id of its own */
  about: string | null = null;

  constructor(private readonly host: Host) {}

  // -- what rules read ----------------------------------------------------------------------------

  scoped(node: Obj): any {
    if (node["scope"] === "fact") {
      const fact = this.facts.get(node["fact"]);
      return fact === undefined ? MISSING : walk(fact[0], node["path"]);
    }
    if (this.request === null) return MISSING;
    const key = (node["path"] as string[]).join("\u0000");
    return this.request.has(key) ? this.request.get(key) : undefined;
  }

  declared(names: readonly string[]): string {
    return names
      .map((name) => {
        const fact = this.facts.get(name);
        return fact === undefined ? `${name} never declared` : `${name} declared at message ${fact[1]}`;
      })
      .join("; ");
  }

  // -- taking messages in -------------------------------------------------------------------------

  /** One transcript line: `{"from": PARTY, "message": MESSAGE}`, or `{"from": PARTY, "raw":
   * TEXT}` for a line that was no JSON on the wire (as `specbind proxy` records it). */
  feedEntry(data: Uint8Array | string): void {
    let value: unknown;
    try {
      value = parseJson(data);
    } catch (e) {
      if (!(e instanceof JSONParseError)) throw e;
      this.bad("not a transcript entry: " + issues(e.issues.map(([p, k, m]) => new Issue(p, "transcript", k, m))));
      return;
    }
    if (!isObject(value)) {
      this.bad(`not a transcript entry: ${jsonType(value)}, where an object with "from" and "message" is expected`);
      return;
    }
    if (!has(value, "message") && has(value, "raw") && typeof value["raw"] === "string" && typeof value["from"] === "string") {
      // a line that was no JSON on the wire, kept as its text: judged as that text
      this.feedMessage(value["raw"], value["from"]);
      return;
    }
    if (!has(value, "from") || !has(value, "message")) {
      const missing = ["from", "message"].filter((k) => !has(value as Obj, k)).map((k) => `"${k}"`).join(" and ");
      this.bad(`not a transcript entry: it has no ${missing} (an entry is an object with "from" and "message")`);
      return;
    }
    const sender = value["from"];
    if (typeof sender !== "string") {
      this.bad(`not a transcript entry: its "from" is ${jsonType(sender)}, not the name of a party`);
      return;
    }
    this.feedValue(value["message"], sender);
  }

  /** One message of the protocol, as its bytes or text, and who sent it. */
  feedMessage(data: Uint8Array | string, sender: string): void {
    if (!has(OTHER, sender)) {
      this.bad(`the message is from ${sender}, who is neither ${PARTIES[0]} nor ${PARTIES[1]}`);
      return;
    }
    let value: unknown;
    try {
      value = parseJson(data);
    } catch (e) {
      if (!(e instanceof JSONParseError)) throw e;
      this.bad(issues(e.issues.map(([p, k, m]) => new Issue(p, ENVELOPE[0]!["definition"], k, m))));
      return;
    }
    this.feedValue(value, sender);
  }

  private bad(detail: string, type = "?"): void {
    this.host.index++;
    const rule: string | null = TABLES.decode_error_rule;
    if (rule) this.host.report(rule, type, { detail });
  }

  private feedValue(message: unknown, sender: string): void {
    if (!has(OTHER, sender)) {
      this.bad(`the message is from ${sender}, who is neither ${PARTIES[0]} nor ${PARTIES[1]}`);
      return;
    }
    if (!isObject(message)) {
      this.bad(`the message is ${jsonType(message)}, not an object`);
      return;
    }
    const found = KINDS.find(([, marks]) => marks.every((m) => has(message, m)));
    if (found === undefined) {
      const shown = KINDS.map(([k, m]) => `${k} (${[...m].sort().join(", ")})`).join(", ");
      this.bad(`the message is none of the kinds the protocol has, each told by its fields: ${shown}`);
      return;
    }
    const [kind, , spec] = found;
    if (kind === "request" || kind === "notification") this.call(kind, spec, message, sender);
    else this.answer(kind, spec, message, sender);
  }

  // -- requests and notifications -----------------------------------------------------------------

  private call(kind: string, spec: Obj, message: Obj, sender: string): void {
    const host = this.host;
    const method = message[METHOD];
    const ident = kind === "request" && has(message, ID) ? message[ID] : undefined;
    const known = typeof method === "string" && has(MESSAGES[sender]!, method) ? MESSAGES[sender]![method]! : undefined;
    const definition = known !== undefined && known.kind === kind ? known.definition : spec["definition"];
    host.index++;
    const type = typeof method === "string" ? `${sender} ${method}` : "?";
    let record: Exchange | null = null;
    const id = asId(ident);
    if (kind === "request" && id !== undefined) record = this.open(sender, id, typeof method === "string" ? method : "?", message, type);
    let decoded;
    try {
      decoded = checkLenient(message, definition as any);
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      this.reportTable("decode_error_rule", type, issues(e.errors));
      return;
    }
    for (const issue of decoded.warnings) this.reportTable("stripped_rule", type, String(issue));
    if (known === undefined) {
      const owner = has(MESSAGES[OTHER[sender]!]!, method) ? OTHER[sender]! : null;
      if (owner !== null) this.reportSlot("wrong-sender", type, `${sender} sends ${method}, which only ${owner} sends`, [], [kind, sender]);
      else this.reportSlot("unknown-method", type, `${method} is no method of the protocol`, [], [kind, sender]);
      return;
    }
    if (known.kind !== kind) {
      const how = kind === "notification" ? "without an id" : `with an id (${text(id)})`;
      this.reportSlot("wrong-kind", type, `${method} is a ${known.kind}, sent as a ${kind} (${how})`, [], [kind, sender]);
      return;
    }
    if (record !== null) this.choose(record, message, sender);
    this.request = null;
    this.about = null;
    const reference = REFERENCES[type];
    if (reference !== undefined && !this.refer(reference, message, sender, type)) return;
    this.take(type, message);
  }

  private open(sender: string, id: string | number | bigint, method: string, message: Obj, type: string): Exchange | null {
    const known = this.exchanges.get(exchangeKey(sender, id));
    if (known !== undefined) {
      if (known[0] !== "answered") {
        this.reportSlot("reused", type, `${sender} reuses id ${text(id)} while its ${known[1]} request (message ${known[2]}) is outstanding`, [text(id)], ["request", sender]);
        return null;
      }
      this.reportSlot("reused-answered", type, `${sender} reuses id ${text(id)} of its ${known[1]} request (message ${known[2]})`, [text(id)], ["request", sender]);
    }
    const remembered = new Map<string, any>();
    for (const path of REMEMBER) {
      const v = walk(message, path);
      if (v !== undefined) remembered.set(path.join("\u0000"), v);
    }
    const record: Exchange = ["open", method, this.host.index, remembered, null, new Map(), id, null, sender];
    this.exchanges.set(exchangeKey(sender, id), record);
    return record;
  }

  private choose(record: Exchange, message: Obj, sender: string): void {
    for (const alt of RESULTS[record[1]] ?? []) {
      if (alt["by"] === "answer") continue; // chosen when the answer comes (`chosen`)
      if (alt["when"] === null || this.host.evaluateWith(alt["when"], message) === true) {
        record[4] = alt["name"];
        break;
      }
    }
    const done = new Set<string>();
    for (const reference of Object.values(REFERENCES)) {
      const path: string[] | null = reference["request_field"];
      if (path === null) continue;
      const id = asId(walk(message, path));
      if (id === undefined) continue;
      const key = trackKey(sender, path, id);
      const held = this.tracked.get(key);
      // a cancelled request's value is taken no more (its receiver may still be finishing)
      if (held !== undefined && reference["unique"] && held !== record && held[0] !== "cancelled" && !done.has(key)) {
        const detail = `${sender}'s ${record[1]} request ${text(record[6])} carries ${text(id)}, as its ${held[1]} request ${text(held[6])} (message ${held[2]}) still does`;
        this.reportRule(reference["unique"], `${sender} ${record[1]}`, detail, [text(id)]);
      }
      done.add(key);
      this.tracked.set(key, record);
    }
  }

  private refer(reference: Obj, message: Obj, sender: string, type: string): boolean {
    const value = walk(message, reference["field"]);
    if (value === undefined) return true;
    const id = asId(value);
    let record: Exchange | undefined;
    if (reference["how"] === "cancel") {
      record = id === undefined ? undefined : this.exchanges.get(exchangeKey(sender, id));
      if (record === undefined) {
        this.reportRule(reference["rule"], type, `${sender} never sent a request with that id`, [text(value)]);
        return false;
      }
      if (record[0] === "open") {
        record[0] = "cancelled";
        record[7] = this.host.index;
      }
    } else {
      const requester = OTHER[sender]!;
      record = id === undefined ? undefined : this.tracked.get(trackKey(requester, reference["request_field"], id));
      if (record === undefined) {
        this.reportRule(reference["rule"], type, `no outstanding request of ${requester} carries it`, [text(value)]);
        return false;
      }
      const rising: Obj | null = reference["rising"];
      if (rising !== null) {
        const raw = walk(message, rising["field"]);
        const now = typeof raw === "boolean" ? null : numberOf(raw);
        const last = record[5].get(rising["wire"]);
        if (now !== null) {
          if (last !== undefined && !exceeds(now, last)) {
            const detail = `${rising["wire"]} ${text(raw)} does not exceed ${text(record[5].get(rising["wire"] + "\u0000shown"))}, the last for ${requester}'s ${record[1]} request ${text(record[6])}`;
            this.reportRule(rising["rule"], type, detail, [text(value)]);
          }
          record[5].set(rising["wire"], now);
          record[5].set(rising["wire"] + "\u0000shown", raw);
        }
      }
    }
    this.request = record[3];
    this.about = text(record[6]);
    return true;
  }

  // -- results and errors -------------------------------------------------------------------------

  private answer(kind: string, spec: Obj, message: Obj, sender: string): void {
    const host = this.host;
    host.index++;
    const ident = has(message, ID) ? message[ID] : undefined;
    const requester = OTHER[sender]!;
    const id = asId(ident);
    const record = id === undefined ? undefined : this.exchanges.get(exchangeKey(requester, id));
    const generic = `${sender} ${kind}`;
    const payloadName: string = spec["payload"];
    // the envelope alone: a result's payload is checked below, as its request's result
    const envelope = kind === "result" && isObject(message[payloadName]) && blank(kind, spec) ? { ...message, [payloadName]: {} } : message;
    let decoded;
    try {
      decoded = checkLenient(envelope, spec["definition"] as any);
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      if (record !== undefined && record[0] !== "answered") {
        record[0] = "answered";
        this.untrack(record);
      }
      this.reportTable("decode_error_rule", generic, issues(e.errors));
      return;
    }
    if (ident === undefined || ident === null) {
      this.count(generic);
      return;
    }
    if (record === undefined || record[0] === "answered") {
      this.count(generic);
      if (record === undefined) this.reportSlot("unknown", generic, `a ${kind} from ${sender} with id ${text(id)}, which names no request ${requester} sent`, [text(id)], [kind, sender]);
      else this.reportSlot("again", generic, `a second response from ${sender} to ${requester}'s ${record[1]} request ${text(id)} (message ${record[2]})`, [text(id)], [kind, sender]);
      return;
    }
    const method = record[1];
    if (record[4] === null) {
      record[0] = "answered";
      this.untrack(record);
      this.count(generic);
      return;
    }
    const alt = kind === "error" ? "error" : this.chosen(record, message[payloadName]);
    const type = `${sender} ${method}:${alt}`;
    if (record[0] === "cancelled") {
      this.reportSlot("answered-after-cancel", type, `${sender} answers ${requester}'s ${method} request ${text(id)} after it was cancelled (message ${record[7]})`, [text(id)], [kind, sender]);
    }
    record[0] = "answered";
    if (!KEPT.has(alt)) this.untrack(record);
    const payload = message[payloadName];
    const definition: string | null = kind === "error" ? null : RESULTS[method]!.find((a) => a["name"] === alt)!["definition"];
    for (const issue of decoded.warnings) this.reportTable("stripped_rule", type, String(issue));
    if (definition !== null) {
      let typed;
      try {
        typed = checkLenient(payload, definition as any);
      } catch (e) {
        if (!(e instanceof DecodeError)) throw e;
        this.reportSlot("mistyped", type, this.mistyped(method, record, definition, payload, e), [], [kind, sender]);
        this.count(type);
        this.host.applyMessage(payload, type, true); // it answered
        return;
      }
      for (const issue of typed.warnings) this.reportTable("stripped_rule", type, String(issue));
    }
    this.request = record[3];
    this.about = text(record[6]);
    this.take(type, payload);
  }

  /** The kind of result an answer is: the first the answer itself chooses (`when answer`, read
   * from the result, `request PATH` from its request), else the request's choice. */
  private chosen(record: Exchange, payload: unknown): string {
    const alts = BY_ANSWER[record[1]];
    if (alts !== undefined && alts.length > 0 && isObject(payload)) {
      this.request = record[3];
      try {
        for (const alt of alts) if (this.host.evaluateWith(alt["when"], payload) === true) return alt["name"];
      } finally {
        this.request = null;
      }
    }
    return record[4]!;
  }

  private mistyped(method: string, record: Exchange, definition: string, payload: unknown, e: DecodeError): string {
    const detail = `the result of ${method} (request ${text(record[6])}, message ${record[2]}) is not ${"AEIOU".includes(definition.charAt(0)) && definition !== "" ? "an" : "a"} ${definition}: ${issues(e.errors)}`;
    for (const [otherMethod, alts] of Object.entries(RESULTS)) {
      for (const alt of alts) {
        const other: string = alt["definition"];
        // a kind the answer chooses would have been chosen had the answer been of it
        if (other === definition || alt["by"] === "answer" || !requiresMembers(other)) continue;
        if (accepts(other, payload)) return `${detail}; it is a ${other} (the result of ${otherMethod})`;
      }
    }
    return detail;
  }

  private untrack(record: Exchange): void {
    for (const [k, r] of [...this.tracked]) if (r === record) this.tracked.delete(k);
  }

  // -- handing on ---------------------------------------------------------------------------------

  private take(type: string, value: Obj): void {
    this.count(type);
    for (const fact of FACTS[type] ?? []) {
      const found = walk(value, fact["path"]);
      if (found !== undefined) this.facts.set(fact["name"], [found, this.host.index]);
    }
    this.host.applyMessage(value, type);
    this.request = null;
    this.about = null;
  }

  private count(type: string): void {
    this.host.counts.set(type, (this.host.counts.get(type) ?? 0) + 1);
  }

  private reportTable(slot: string, type: string, detail: string): void {
    const rule: string | null = TABLES[slot];
    if (rule) this.reportRule(rule, type, detail);
  }

  private reportSlot(slot: string, type: string, detail: string, ids: readonly string[] = [], of: readonly [string, string] | null = null): void {
    const rule = ruleFor(slot, of);
    if (rule) this.reportRule(rule, type, detail, ids);
  }

  private reportRule(rule: string, type: string, detail: string, ids: readonly string[] = []): void {
    this.host.report(rule, type, { detail }, ids);
  }

  /** Requests still unanswered at the end (a cancelled one is not). */
  finish(): void {
    for (const record of this.exchanges.values()) {
      const rule = ruleFor("open-at-end", ["request", record[8]]);
      if (rule && record[0] === "open" && record[4] !== null) {
        this.reportRule(rule, "end of stream", `${record[8]}'s ${record[1]} request ${text(record[6])} (message ${record[2]}) is never answered`, [text(record[6])]);
      }
    }
  }
}

const NARROWED = Object.keys(RULES).some((slot) => slot.includes(" ")); // a rule given for a kind or sender

/** The rule an exchanges slip draws: the one declared for its kind of message and sender, else
 * for its kind, else for its sender, else for every message (`unknown-method request from server
 * R1` beside `unknown-method R2`). */
function ruleFor(slot: string, of: readonly [string, string] | null): string | undefined {
  if (of !== null && NARROWED) {
    const [kind, sender] = of;
    for (const key of [`${slot} ${kind} ${sender}`, `${slot} ${kind}`, `${slot} ${sender}`]) if (RULES[key]) return RULES[key];
  }
  return RULES[slot];
}

const KEPT = new Set<string>(Object.values(REFERENCES).flatMap((r) => r["keep"] as string[]));

function exchangeKey(party: string, id: string | number | bigint): string {
  return `${party}\u0000${typeof id}:${id}`;
}

function trackKey(party: string, path: readonly string[], id: string | number | bigint): string {
  return `${party}\u0000${path.join("\u0001")}\u0000${typeof id}:${id}`;
}

const MEMBERS = new Map<string, boolean>();

/** Whether a definition's documents must carry some member (an open one accepts anything). */
/** Whether the envelope of `kind` accepts a payload of `{}` (its payload's own definition does):
 * then a result's envelope is checked with `{}` in place of the payload, which its request's
 * result type checks; otherwise the envelope is checked whole. */
function blank(kind: string, spec: Obj): boolean {
  let known = BLANK.get(kind);
  if (known === undefined) {
    const generic: string | null = spec["payload_definition"] ?? null;
    known = generic !== null && !requiresMembers(generic);
    BLANK.set(kind, known);
  }
  return known;
}

function requiresMembers(definition: string): boolean {
  let found = MEMBERS.get(definition);
  if (found === undefined) MEMBERS.set(definition, (found = !accepts(definition, {})));
  return found;
}
