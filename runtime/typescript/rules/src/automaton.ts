/**
 * The lifecycle automaton: a small generic interpreter of the rule tables (`automaton_table.ts`,
 * documented in docs/rules-tables.md), the same tables every binding of this spec runs, so the
 * verdicts (rule IDs, levels, messages, event indices) are the same in every language.
 *
 * Feed events one at a time (`feedDocument` for raw documents: decoded leniently, an undecodable
 * one is a finding and the stream goes on); each call returns the findings for that event, and
 * `finish` reports what the end of the stream leaves open. It never throws on bad input: it
 * reports. Memory is bounded by what the current run holds open.
 *
 *     const automaton = new Automaton();
 *     for (const line of lines) for (const f of automaton.feedDocument(line)) console.log(String(f));
 *     automaton.finish();
 *     automaton.outcome; // "completed", or "failed" once a MUST-level rule was violated
 */

import { check, checkLenient } from "./codec_json.js";
import { accepts, objectsOnly } from "./validation.js";
import { DecodeError, Issue } from "./errors.js";
import { JSONParseError, MAX_ERRORS, ORDER, PyFloat, codePointOrder, dumps, jsonEqual, keysOf, memberScalar, ownSlice, parseJson, parseText, pyRepr, pyStr, setMember, wasExact } from "./json.js";
import { TABLES } from "./automaton_table.js";
import { DEFINITIONS } from "./schema_table.js";
import type { Node } from "./validation.js";
import { Dialogue, MISSING } from "./dialogue.js";

/* eslint-disable @typescript-eslint/no-explicit-any */
type Obj = Record<string, any>;
type Expr = { op: string; [key: string]: any };

export const RULES: { readonly [rule: string]: { level: string; page: string; section: string; message: string } } = TABLES.rules;

/** The most ids a finding lists: a finding about a set that may grow with the stream lists the
 * first MAX_IDS and says how many more there are. */
export const MAX_IDS = 20;
/** The most characters (code points) of one id or value a finding quotes; a longer one is cut to
 * MAX_SHOWN - 3 and `...`. */
export const MAX_SHOWN = 200;
/** How many findings `Automaton.findings` keeps by default; the others are counted in `omitted`. */
export const MAX_FINDINGS = 10_000;
const FATAL = new Set<string>(TABLES.fatal_levels);
const DISC: string = TABLES.discriminator;
const MACHINE: Obj = TABLES.machine;
const STEPS: Record<string, Obj[]> = TABLES.entity_steps;
const CHECKS: Record<string, Obj[]> = TABLES.checks;
const CHUNKS: Obj | null = TABLES.chunks;
const RETIRED: Record<string, Obj> = TABLES.retired;
const SEQUENCE: Obj | null = TABLES.sequence;
const EVENTS: string = TABLES.events_definition;
const CHUNK_KINDS = new Set<string>(CHUNKS ? Object.keys(CHUNKS["kinds"]) : []);
const UNKNOWN = Symbol("unknown");
/** The first characters (as code units) of a JSON text that is not an object (a number, a string,
 * an array, a literal) or not JSON at all: never an event where the events definition takes
 * objects only. */
const NOT_AN_OBJECT = new Set<number>([..."-0123456789\"[tfn"].map((c) => c.charCodeAt(0)));
let eventsObjectsOnly: boolean | null = null; // objectsOnly(EVENTS), read when findings are first only counted
/** two parties: messages are typed by the exchange stage (dialogue.ts), not by one events union */
const PARTIES: string[] | null = TABLES.parties ?? null;
const UNIT = PARTIES ? "message" : "event"; // what a finding's index counts

/** What reads scoped paths (a fact, the request a message answers): the automaton's dialogue. */
interface Scopes {
  scoped(node: Expr): unknown;
}

const own = (o: unknown, k: string): boolean => o !== null && typeof o === "object" && !Array.isArray(o) && Object.prototype.hasOwnProperty.call(o, k);

/** A member of an event (undefined: absent). */
function attr(obj: unknown, name: string): any {
  return own(obj, name) ? (obj as Obj)[name] : undefined;
}

function getPath(obj: unknown, path: readonly string[]): any {
  let v: any = obj;
  for (const p of path) {
    v = attr(v, p);
    if (v === undefined) return undefined;
  }
  return v;
}

function collect(obj: unknown, path: readonly string[]): any[] {
  let items: any[] = [obj];
  for (const p of path) {
    const next: any[] = [];
    for (const item of items) {
      const v = attr(item, p);
      if (v === undefined) continue;
      if (Array.isArray(v)) next.push(...v);
      else next.push(v);
    }
    items = next;
  }
  return items;
}

/** A number written with a fraction part or an exponent (`2000.0`) as the number it is: Python
 * reads it as a float and compares and adds it by its value. */
function num(v: any): any {
  return v instanceof PyFloat ? v.value : v;
}

/** Python's `==` on JSON values (a boolean equals 1 or 0, as there; 1.0 equals 1). */
function eq(a: any, b: any): boolean {
  a = num(a);
  b = num(b);
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  const na = typeof a === "boolean" ? Number(a) : a;
  const nb = typeof b === "boolean" ? Number(b) : b;
  if ((typeof na === "number" || typeof na === "bigint") && (typeof nb === "number" || typeof nb === "bigint")) return na == nb;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => eq(x, b[i]));
  if (typeof a === "object" && typeof b === "object" && !Array.isArray(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => own(b, k) && eq(a[k], b[k]));
  }
  return false;
}

function truthy(v: any): boolean {
  v = num(v);
  if (Array.isArray(v)) return v.length > 0;
  if (v !== null && typeof v === "object") return Object.keys(v).length > 0;
  return Boolean(v);
}

function len(v: any): number {
  if (typeof v === "string") {
    let n = 0;
    for (const _ of v) n++;
    return n;
  }
  if (Array.isArray(v)) return v.length;
  if (v !== null && typeof v === "object") return Object.keys(v).length;
  return NaN;
}

function compare(a: any, op: string, b: any): boolean {
  a = num(a);
  b = num(b);
  switch (op) {
    case "==":
      return eq(a, b);
    case "!=":
      return !eq(a, b);
    case "<":
      return a < b;
    case "<=":
      return a <= b;
    case ">":
      return a > b;
    case ">=":
      return a >= b;
    case "in": // the value equals one of an array's items; nothing is among what is no array
      return Array.isArray(b) && b.some((item) => eq(a, item));
    default:
      throw new Error(`unknown comparison ${op}`);
  }
}

/** A scoped path's value: UNKNOWN when there is nothing to read, undefined when absent. */
function scoped(e: Expr, ctx: Scopes | null): any {
  const v = ctx === null ? MISSING : ctx.scoped(e);
  return v === MISSING ? UNKNOWN : v;
}

/** Three-valued: a comparison or sum naming an absent field is unknown, not false. `ctx` reads
 * scoped paths (two parties: a fact, the request a message answers). */
export function evaluate(e: Expr, obj: unknown, ctx: Scopes | null = null): any {
  if (e["scope"] !== undefined && e.op !== "lit") {
    const v = scoped(e, ctx);
    switch (e.op) {
      case "field":
        return v === undefined ? UNKNOWN : v;
      case "present":
        return v === UNKNOWN ? UNKNOWN : v !== undefined;
      case "absent":
        return v === UNKNOWN ? UNKNOWN : v === undefined;
      case "length":
        return v === UNKNOWN || v === undefined ? UNKNOWN : len(v);
    }
  }
  switch (e.op) {
    case "lit":
      return e["value"];
    case "field": {
      const v = getPath(obj, e["path"]);
      return v === undefined ? UNKNOWN : v;
    }
    case "present":
      return getPath(obj, e["path"]) !== undefined;
    case "absent":
      return getPath(obj, e["path"]) === undefined;
    case "length": {
      const v = getPath(obj, e["path"]);
      return v === undefined ? UNKNOWN : len(v);
    }
    case "unique": {
      const values = collect(obj, e["path"]);
      return new Set(values.map(key)).size === values.length;
    }
    case "not": {
      const v = evaluate(e["args"][0], obj, ctx);
      return v === UNKNOWN ? UNKNOWN : !truthy(v);
    }
  }
  const a = evaluate(e["args"][0], obj, ctx);
  const b = evaluate(e["args"][1], obj, ctx);
  switch (e.op) {
    case "and":
      return a === false || b === false ? false : a === UNKNOWN || b === UNKNOWN ? UNKNOWN : true;
    case "or":
      return a === true || b === true ? true : a === UNKNOWN || b === UNKNOWN ? UNKNOWN : false;
    case "add":
      return a === UNKNOWN || b === UNKNOWN ? UNKNOWN : num(a) + num(b);
    case "sub":
      return a === UNKNOWN || b === UNKNOWN ? UNKNOWN : num(a) - num(b);
    case "cmp":
      return a === UNKNOWN || b === UNKNOWN ? UNKNOWN : compare(a, e["cmp"], b);
    default:
      throw new Error(`unknown expression ${JSON.stringify(e.op)}`);
  }
}

/** A value as a Map key: strings as themselves, anything else tagged by its JSON. */
function key(v: any): any {
  v = num(v);
  if (typeof v === "string" || v === null || v === undefined) return v;
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
  if (typeof v === "boolean") return Number(v);
  return "\u0000" + dumps(v);
}

/** One rule a stream broke: MUST-level findings fail the stream, others are warnings. */
export class Finding {
  constructor(
    readonly rule: string,
    readonly level: string,
    readonly index: number,
    readonly type: string,
    readonly message: string,
    readonly ids: readonly string[] = [],
  ) {}

  get fatal(): boolean {
    return FATAL.has(this.level);
  }

  asDict(): { rule: string; level: string; index: number; type: string; message: string; ids: string[]; ref: string } {
    const ref = RULES[this.rule];
    return {
      rule: this.rule,
      level: this.level,
      index: this.index,
      type: this.type,
      message: this.message,
      ids: [...this.ids],
      ref: `${ref?.page ?? ""} § ${ref?.section ?? ""}`,
    };
  }

  toString(): string {
    return `${this.rule} [${this.level}] ${UNIT} ${this.index} (${this.type}): ${this.message}`;
  }
}

/** A failed comparison, as a check's message shows it: `{actual}` its left side's value,
 * `{expected}` its right side's, `{field}` the left side's path (when it is one), `{detail}` the
 * three in words. Lint refuses these placeholders where a check compares nothing. */
function sides(expect: Expr, target: unknown, ctx: Scopes | null): Obj {
  const [left, right] = expect["args"] as Expr[];
  const actual = show(evaluate(left!, target, ctx));
  const expected = show(evaluate(right!, target, ctx));
  const shown: Obj = { actual, expected };
  let name = "the left side";
  if (left!.op === "field") name = shown["field"] = "scope" in left! ? `${left!["scope"]} ${left!["wire"]}` : left!["wire"];
  const op: string = expect["cmp"];
  shown["detail"] =
    op === "!=" ? `${name} is ${actual}`
    : op === "==" ? `${name} is ${actual}, not ${expected}`
    : op === "in" ? `${name} is ${actual}, which is not in ${expected}`
    : `${name} is ${actual}, not ${op} ${expected}`;
  return shown;
}

function show(v: any): string {
  return v === undefined || v === null ? "absent" : cut(pyStr(v));
}

/** `text` cut to MAX_SHOWN code points (as the reference binding counts them). */
function cut(text: string): string {
  if (text.length <= MAX_SHOWN) return text;
  let i = 0;
  let n = 0;
  let keep = 0;
  while (i < text.length && n <= MAX_SHOWN) {
    if (n === MAX_SHOWN - 3) keep = i;
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
    n++;
  }
  // a copy: a slice of a long value would keep all of it alive in the finding (V8's views)
  return n <= MAX_SHOWN ? text : ownSlice(text, 0, keep) + "...";
}

function format(template: string, values: Obj): string {
  return template.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (m, name: string | undefined) => {
    if (m === "{{") return "{";
    if (m === "}}") return "}";
    const v = values[name!];
    return v === undefined ? "?" : pyStr(v);
  });
}

/** A finding of `rule` at event `index`. `ids`: what it is about, at most MAX_IDS of them;
 * `total`: how many there are in all, when `ids` is a sample of them. */
export function finding(rule: string, index: number, type: string, values: Obj, ids: readonly string[] = [], total = 0): Finding {
  const spec = RULES[rule]!;
  const shown = ids.map(cut);
  let listed = shown.join(", ");
  if (total > shown.length) listed += ` and ${total - shown.length} more`;
  const text = format(spec.message, { type, index, ids: listed, ...values });
  return new Finding(rule, spec.level, index, type, text, shown);
}

/** The first MAX_IDS of some ids, sorted. */
function sample(items: Iterable<string>): string[] {
  const out: string[] = [];
  for (const item of items) {
    if (out.length === MAX_IDS) break;
    out.push(item);
  }
  return out.sort(codePointOrder);
}

function keyText(parts: any): string {
  if (Array.isArray(parts)) return parts.filter((k) => k !== null).map(pyStr).join("/");
  return pyStr(parts);
}

/** The canonical text of an event, for the sequence stage's "the same event again": the same
 * JSON value, whatever the order of an object's members (RFC 8259 section 4) or the spelling of
 * a number (1, 1.0, 1e0), so a redelivery
 * re-serialised by another encoder or store is no conflict. Fields of the schema's objects in
 * the schema's order (undeclared members left out), any other object's members in code point
 * order. */
function canonical(value: any, node: Node | null): string {
  if (node === null) return sortedDumps(value);
  switch (node.kind) {
    case "ref":
      return canonical(value, DEFINITIONS[node["name"]] ?? null);
    case "tagged": {
      const member = own(value, node["field"]) ? node["tags"][value[node["field"]]] : undefined;
      return canonical(value, member === undefined ? null : DEFINITIONS[member] ?? null);
    }
    case "object": {
      if (value === null || typeof value !== "object" || Array.isArray(value)) return sortedDumps(value);
      const parts: string[] = [];
      for (const [wire, spec] of Object.entries(node["fields"] as Record<string, { type: Node }>)) {
        if (own(value, wire)) parts.push(JSON.stringify(wire) + ":" + canonical(value[wire], spec.type));
      }
      return "{" + parts.join(",") + "}";
    }
    case "array":
      return Array.isArray(value) ? "[" + value.map((v) => canonical(v, node["items"])).join(",") + "]" : sortedDumps(value);
    case "map":
      if (node["values"] == null || value === null || typeof value !== "object" || Array.isArray(value)) return sortedDumps(value);
      return "{" + keysOf(value).sort(codePointOrder).map((k) => JSON.stringify(k) + ":" + canonical(value[k], node["values"])).join(",") + "}";
    default:
      return sortedDumps(value);
  }
}

/** A JSON value's text with every object's members in code point order and every number by
 * its value (1, 1.0 and 1e0 alike; -0 as 0). */
function sortedDumps(value: any): string {
  if (Array.isArray(value)) return "[" + value.map((v) => (v === undefined ? "null" : sortedDumps(v))).join(",") + "]";
  if (value instanceof PyFloat) value = value.value;
  // an integer-valued double past 2^53 written as the integer it is (1e21, not 1e+21), as a bigint is
  if (typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value)) return BigInt(value).toString();
  if (value === null || typeof value !== "object") return dumps(value);
  const parts: string[] = [];
  for (const k of keysOf(value).sort(codePointOrder)) if (value[k] !== undefined) parts.push(JSON.stringify(k) + ":" + sortedDumps(value[k]));
  return "{" + parts.join(",") + "}";
}

type EntityRecord = [state: string, remembered: Obj, text: string];
type Lane = [type: string, id: any, agreed: Obj, opener: Obj];

/** Validates one event stream. One instance per stream. */
export class Automaton {
  state: string;
  index = -1;
  readonly findings: Finding[] = [];
  /** findings made but not kept in `findings` (beyond `maxFindings`), in all and by rule */
  omitted = 0;
  readonly omittedRules = new Map<string, number>();
  failed = false;
  readonly runs: Obj[] = [];
  /** the events decoded from documents, counted by type */
  readonly counts = new Map<string, number>();
  readonly partial: boolean;
  private expandedEvents: Obj[] | null = [];
  private last: Obj | null = null;
  private opener: Obj | null = null;
  private readonly first: number | null;
  private readonly seen = new Map<any, Map<any, string>>();
  private readonly latest = new Map<any, number | bigint>();
  private readonly entities = new Map<string, Map<any, EntityRecord>>();
  private readonly past = new Map<string, Map<any, Obj>>();
  private readonly held = new Map<string, string>();
  private readonly lanes = new Map<any, Lane>();
  /** chunk type -> its open lanes, in the order they opened (the ambiguity check's) */
  private readonly kinds = new Map<string, Set<any>>();
  /** entity -> its items in state "open" (key -> text), in the order they opened */
  private readonly open = new Map<string, Map<any, string>>();
  private out: Finding[] = [];
  /** True while the caller reads no finding the feed methods return, only `findings` (as replay
   * does): past `maxFindings` a finding is then counted in `omitted` and never made, nor the
   * explanation it would quote. */
  bulk = false;
  /** documents that did not decode while findings were only counted: the same again are counted
   * again without being decoded again (garbage repeats); bounded */
  private readonly refused = new Set<string>();
  /** two parties: the exchanges, facts and references of the session */
  private readonly dialogue: Dialogue | null = PARTIES ? new Dialogue(this) : null;

  /** `after`: the stream is a replay that starts after this cursor (see the rules DSL).
   * `maxFindings`: how many findings `findings` keeps (null: all); the others are counted in
   * `omitted` and `omittedRules`. */
  constructor(after: number | null = null, public maxFindings: number | null = MAX_FINDINGS) {
    this.partial = Boolean(after);
    if (this.partial && !MACHINE["after_cursor"]) throw new RangeError("these rules have no after-cursor state: a stream cannot start mid-way");
    this.state = this.partial ? MACHINE["after_cursor"] : MACHINE["initial"];
    this.first = SEQUENCE === null ? null : after === null ? SEQUENCE["start"] : after + 1;
    for (const [name, spec] of Object.entries(TABLES.entities as Record<string, Obj>)) {
      this.entities.set(name, new Map());
      this.open.set(name, new Map());
      if (spec["outlives_run"]) this.past.set(name, new Map());
    }
  }

  get outcome(): "completed" | "failed" {
    return this.failed ? "failed" : "completed";
  }

  /** The state of one tracked item in the current run ("absent" when untracked). */
  entityState(entity: string, itemKey: any): string {
    const record = this.entities.get(entity)?.get(Array.isArray(itemKey) ? JSON.stringify(itemKey.map(key)) : key(itemKey));
    return record === undefined ? "absent" : record[0];
  }

  /** The events the last `feed` delivered, after chunk expansion. */
  get expanded(): Obj[] {
    return this.expandedEvents === null ? (this.last === null ? [] : [this.last]) : this.expandedEvents;
  }

  // -- reporting ----------------------------------------------------------------------------------

  /** @internal (the exchange stage reports through it) */
  report(rule: string, type: string, values: Obj = {}, ids: readonly string[] = [], total = 0): void {
    if (this.full()) return this.counted(rule);
    const f = finding(rule, this.index, type, values, ids, total);
    this.out.push(f);
    this.keep(f);
  }

  private keep(f: Finding): void {
    if (this.maxFindings === null || this.findings.length < this.maxFindings) this.findings.push(f);
    else {
      this.omitted++;
      this.omittedRules.set(f.rule, (this.omittedRules.get(f.rule) ?? 0) + 1);
    }
    if (f.fatal) this.failed = true;
  }

  /** Whether the findings being made now would only be counted (see `bulk`). */
  private full(): boolean {
    return this.bulk && this.maxFindings !== null && this.findings.length >= this.maxFindings;
  }

  private counted(rule: string, n = 1): void {
    this.omitted += n;
    this.omittedRules.set(rule, (this.omittedRules.get(rule) ?? 0) + n);
    if (FATAL.has(RULES[rule]!.level)) this.failed = true;
  }

  /** Whether a document is refused whatever follows its first character (not an object, where the
   * events definition takes objects only), when only counted (a text that is not an object has no
   * members: no sequence to salvage). */
  private refusedUnread(data: Uint8Array | string): boolean {
    if (!this.full() || !data.length) return false;
    if (!NOT_AN_OBJECT.has(typeof data === "string" ? data.charCodeAt(0) : data[0]!)) return false;
    return (eventsObjectsOnly ??= EVENTS ? objectsOnly(EVENTS) : false);
  }

  /** The key a refused document is remembered by while counting (null: it is not): a string of
   * its own (a line replay cut from the text it read is a view V8 keeps that text behind: 20
   * keys held 5.3 MB of it, tests/held_probe.mjs refusal_keys). */
  private refusal(data: Uint8Array | string): string | null {
    if (!this.full() || data.length > 256) return null;
    return typeof data === "string" ? "t" + ownSlice(data, 0, data.length) : "b" + String.fromCharCode(...data);
  }

  private remember(key: string | null): void {
    if (key === null) return;
    if (this.refused.size >= 4096) this.refused.clear();
    this.refused.add(key);
  }

  /** @internal */
  take(): Finding[] {
    const out = this.out;
    this.out = [];
    return out;
  }

  private noteDecodeError(detail: string, rule: string | null = TABLES.decode_error_rule): Finding[] {
    this.index++;
    this.expandedEvents = [];
    if (rule) this.report(rule, "?", { detail });
    return this.take();
  }

  private noteStripped(detail: string, type = "?"): Finding[] {
    const rule: string | null = TABLES.stripped_rule;
    if (!rule) return [];
    if (this.full()) {
      this.counted(rule);
      return [];
    }
    const f = finding(rule, this.index + 1, type, { detail });
    this.keep(f);
    return [f];
  }

  private skip(): void {
    this.index++;
    this.expandedEvents = [];
  }

  /** Decode one event leniently and feed it: a document that does not decode is a finding, what
   * lenient decoding strips is reported, an unknown event is dropped and reported. */
  feedDocument(data: Uint8Array | string): Finding[] {
    if (this.dialogue !== null) {
      this.dialogue.feedEntry(data);
      return this.take();
    }
    const key = this.refusal(data);
    if ((key !== null && this.refused.has(key)) || this.refusedUnread(data)) return this.noteDecodeError("");
    let raw: unknown;
    try {
      raw = parseJson(data, key === null ? MAX_ERRORS : 0);
    } catch (e) {
      if (!(e instanceof JSONParseError)) throw e;
      this.remember(key);
      return this.undecodable(data, e.issues.map(([ptr, keyword, message]) => new Issue(ptr, EVENTS, keyword, message)), TABLES.decode_error_rule, e.count);
    }
    if (!wasExact() && accepts(EVENTS, raw)) {
      this.count(raw as Obj);
      return this.feed(raw as Obj);
    }
    return this.feedValue(raw, data, key);
  }

  /** Like feedDocument, for a line of a text already decoded from UTF-8 (a JSON Lines file read
   * whole): no byte order mark or lone surrogate can be in it. */
  feedText(text: string): Finding[] {
    if (text.charCodeAt(0) === 0xfeff || this.dialogue !== null) return this.feedDocument(text);
    const key = this.refusal(text);
    if ((key !== null && this.refused.has(key)) || this.refusedUnread(text)) return this.noteDecodeError("");
    let raw: unknown;
    try {
      raw = parseText(text, -1, key === null ? MAX_ERRORS : 0);
    } catch (e) {
      if (!(e instanceof JSONParseError)) throw e;
      this.remember(key);
      return this.undecodable(text, e.issues.map(([ptr, keyword, message]) => new Issue(ptr, EVENTS, keyword, message)), TABLES.decode_error_rule, e.count);
    }
    if (!wasExact() && accepts(EVENTS, raw)) {
      this.count(raw as Obj);
      return this.feed(raw as Obj);
    }
    return this.feedValue(raw, text, key);
  }

  /** Two parties: one message as sent (its bytes or text) and the party that sent it; the
   * findings for it. What a live relay calls for each message it forwards, in wire order. */
  feedMessage(data: Uint8Array | string, sender: string): Finding[] {
    if (this.dialogue === null) throw new TypeError("feedMessage belongs to protocols of two parties: these rules have one stream");
    this.dialogue.feedMessage(data, sender);
    return this.take();
  }

  /** @internal (the exchange stage hands each message that passes on through it) */
  applyMessage(value: Obj, type: string, shallow = false): void {
    this.expandedEvents = null;
    this.last = value;
    this.apply(value, type, shallow);
  }

  /** @internal */
  evaluateWith(e: Expr, obj: unknown): unknown {
    return evaluate(e, obj, this.dialogue);
  }

  private feedValue(raw: unknown, data: Uint8Array | string, key: string | null = null): Finding[] {
    const counting = this.full();
    let result;
    try {
      result = checkLenient(raw, EVENTS as any, counting ? { maxErrors: 0 } : {});
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      this.remember(key);
      return this.undecodable(data, [...e.errors], TABLES.decode_error_rule, e.count);
    }
    if (result.dropped && Object.keys(RETIRED).length) {
      const translated = this.translate(raw, data);
      if (translated !== null) return translated;
    }
    if (result.dropped && TABLES.unknown_event_rule) return this.unknown(raw, data);
    let noted: Finding[] = [];
    const value = result.value as Obj | null;
    const type = value === null ? "?" : pyStr(value[DISC]);
    noted = noted.concat(this.stripped(result, type, counting));
    if (result.dropped) {
      this.salvage(data);
      this.skip();
      return noted;
    }
    this.count(value!);
    return noted.concat(this.feed(value!));
  }

  /** A finding per warning of a lenient decode, and one for those it did not list; when
   * `counting` (the decode listed none), as many counted. */
  private stripped(result: { warnings: readonly Issue[]; omitted: number }, type: string, counting: boolean): Finding[] {
    const rule: string | null = TABLES.stripped_rule;
    if (counting) {
      if (rule && result.omitted) this.counted(rule, Math.min(result.omitted, MAX_ERRORS) + (result.omitted > MAX_ERRORS ? 1 : 0));
      return [];
    }
    let noted: Finding[] = [];
    for (const issue of result.warnings) noted = noted.concat(this.noteStripped(String(issue), type));
    if (result.omitted) noted = noted.concat(this.noteStripped(`and ${result.omitted} more stripped`, type));
    return noted;
  }

  private undecodable(data: Uint8Array | string, errors: Issue[], rule: string | null = TABLES.decode_error_rule, count = errors.length): Finding[] {
    this.salvage(data);
    if (this.full()) return this.noteDecodeError("", rule);
    const detail = errors.slice(0, 3).map(String).join("; ");
    const more = count - 3;
    return this.noteDecodeError(detail + (more > 0 ? `; and ${more} more` : ""), rule);
  }

  /** An event lenient decoding would drop whole (of a type the schema does not name, or whose
   * required member is unrecognised), where the rules make that a finding (`on-unknown-event`):
   * the strict decoder says why. */
  private unknown(raw: unknown, data: Uint8Array | string): Finding[] {
    try {
      check(raw, EVENTS as any, this.full() ? { maxErrors: 0 } : {});
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      return this.undecodable(data, [...e.errors], TABLES.unknown_event_rule, e.count);
    }
    throw new Error("a document lenient decoding drops decodes strictly");
  }

  /** An event that does not decode, or that lenient decoding dropped, still arrived: when its
   * sequence value and key can be read (`memberScalar`: the grammar alone, whatever else is wrong
   * with it), they count as seen, so its one finding is its own, not also a gap. */
  private salvage(data: Uint8Array | string): void {
    if (SEQUENCE === null) return;
    const value = memberScalar(data, SEQUENCE["field_wire"]);
    const k = memberScalar(data, SEQUENCE["key_wire"]);
    if ((typeof value !== "number" && typeof value !== "bigint") || k === undefined) return;
    const seen = this.seenFor(k);
    if (!seen.has(value)) {
      seen.set(value, "");
      const last = this.latest.get(key(k));
      if (last === undefined || value > last) this.latest.set(key(k), value);
    }
  }

  private seenFor(k: any): Map<any, string> {
    let seen = this.seen.get(key(k));
    if (seen === undefined) this.seen.set(key(k), (seen = new Map()));
    return seen;
  }

  /** A retired shape as its replacement, with a finding that names it (null: not one). */
  private translate(raw: unknown, data: Uint8Array | string): Finding[] | null {
    const discWire: string = TABLES.discriminator_wire;
    const old = attr(raw, discWire);
    const how = typeof old === "string" && Object.prototype.hasOwnProperty.call(RETIRED, old) ? RETIRED[old] : undefined;
    if (how === undefined) return null;
    const source = raw as Obj;
    const event: Obj = {};
    const order: string[] = []; // the document's order, kept where JavaScript's would differ (ORDER)
    const put = (name: string, value: unknown): void => {
      if (!own(event, name)) order.push(name);
      setMember(event, name, value);
    };
    for (const k of keysOf(source)) if (!how["drop"].includes(k)) put(k, source[k]);
    put(discWire, how["as"]);
    const notes = [`${old} is retired: translated to ${how["as"]}`];
    const lost = (how["drop"] as string[]).filter((k) => own(source, k));
    if (lost.length) notes.push(`its ${lost.join(", ")} dropped (${how["as"]} has no place for it)`);
    for (const spec of how["set"] as Obj[]) {
      const name: string = spec["wire"];
      const kind: string = spec["how"];
      const arg = spec["value"];
      if (kind === "value") {
        put(name, arg);
        continue;
      }
      let held = this.held.get(arg);
      if (kind === "new" || held === undefined) {
        held = `${arg}-${this.index + 1}`;
        this.held.set(arg, held);
        if (kind !== "new") notes.push(`${name} ${pyRepr(held)} minted: no opener preceded it`);
      }
      put(name, held);
      if (kind === "close") this.held.delete(arg);
    }
    if (ORDER in source) (event as { [ORDER]?: string[] })[ORDER] = order;
    const rule: string | null = TABLES.retired_rule;
    let noted: Finding[] = [];
    if (rule && this.full()) this.counted(rule);
    else if (rule) {
      const f = finding(rule, this.index + 1, old, { detail: notes.join("; ") });
      this.keep(f);
      noted = [f];
    }
    let result;
    try {
      result = checkLenient(event, EVENTS as any);
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      return noted.concat(this.undecodable(data, [...e.errors], TABLES.decode_error_rule, e.count));
    }
    noted = noted.concat(this.stripped(result, how["as"], false));
    if (result.dropped) {
      this.skip();
      return noted;
    }
    this.count(result.value as Obj);
    return noted.concat(this.feed(result.value as Obj));
  }

  private count(value: Obj): void {
    const type = String(value[DISC]);
    this.counts.set(type, (this.counts.get(type) ?? 0) + 1);
  }

  // -- the stream ---------------------------------------------------------------------------------

  /** The findings for one more (decoded) event. */
  feed(event: Obj): Finding[] {
    this.index++;
    const type: string = event[DISC];
    if (SEQUENCE !== null && !this.inSequence(event, type)) {
      this.expandedEvents = [];
      return this.take();
    }
    if (this.lanes.size || CHUNK_KINDS.has(type)) {
      this.expandedEvents = this.expand(event, type);
      for (const ev of this.expandedEvents) this.apply(ev, ev[DISC]);
    } else {
      this.expandedEvents = null;
      this.last = event;
      this.apply(event, type);
    }
    return this.take();
  }

  /** End of stream: a run still active is truncated (two parties: and requests still
   * unanswered are reported). */
  finish(): Finding[] {
    if (this.dialogue !== null) this.dialogue.finish();
    if (CHUNKS !== null) for (const lane of [...this.lanes.keys()]) this.closeLane(lane);
    const rule: string | undefined = MACHINE["at_end"][this.state];
    if (rule) {
      this.report(rule, "end of stream", this.runValues());
      const last = this.runs[this.runs.length - 1];
      if (last !== undefined && last["state"] === "active") last["state"] = "truncated";
    }
    return this.take();
  }

  private runValues(): Obj {
    const identity = MACHINE["identity"];
    const run = this.opener !== null && identity ? show(getPath(this.opener, identity)) : "?";
    return { run, state: this.state };
  }

  /** The machine's row for the event, its requirements, entity steps and checks, its actions.
   * `shallow`: the row alone (two parties: a result not of its request's type, already
   * reported, still answers its request and so moves the phases). */
  private apply(ev: Obj, type: string, shallow = false): void {
    const rows: Obj = MACHINE["table"][this.state];
    let row: Obj | undefined = rows[type];
    if (row === undefined) return;
    if (row["cases"]) {
      for (const c of row["cases"] as Obj[]) {
        if (evaluate(c["when"], ev, this.dialogue) === true) {
          row = c;
          break;
        }
      }
    }
    if (row["fail"]) {
      this.report(row["fail"], type, this.runValues());
      return;
    }
    if (!shallow) {
      for (const req of row["requires"] as Obj[]) this.require(req, ev, type, null);
      for (const step of STEPS[type] ?? []) this.step(step, ev, type);
      for (const check of CHECKS[type] ?? []) this.check(check, ev, type);
    }
    for (const action of row["actions"] as string[]) {
      if (action === "begin-run") {
        this.opener = ev;
        this.clear();
        this.runs.push({ start: this.index, end: null, state: "active" });
      } else if (action === "end-run") {
        this.clear();
        this.endRun(row["target"]);
      }
    }
    this.state = row["target"];
  }

  private endRun(target: string): void {
    const last = this.runs[this.runs.length - 1];
    if (last !== undefined && last["state"] === "active") {
      last["end"] = this.index;
      last["state"] = target;
    } else if (last !== undefined && this.state !== MACHINE["initial"]) {
      last["state"] = target;
      last["late"] = this.index;
    } else {
      this.runs.push({ start: this.index, end: this.index, state: target });
    }
  }

  private inSequence(event: Obj, type: string): boolean {
    const spec = SEQUENCE!;
    const value = getPath(event, spec["field"]);
    const k = getPath(event, spec["key"]);
    const seen = this.seenFor(k);
    const digest = canonical(event, { kind: "ref", name: EVENTS });
    if (seen.has(value)) {
      if (seen.get(value) !== digest) this.report(spec["conflict"], type, { actual: value }, [`${show(k)}#${pyStr(value)}`]);
      return false;
    }
    const last = this.latest.get(key(k));
    const expected = last === undefined ? this.first : typeof last === "bigint" ? last + 1n : last + 1;
    if (value !== expected) this.report(spec["gap"], type, { actual: value, expected }, [`${show(k)}#${pyStr(value)}`]);
    seen.set(value, digest);
    if (last === undefined || value > last) this.latest.set(key(k), value);
    return true;
  }

  private clear(): void {
    for (const [name, store] of this.entities) {
      const past = this.past.get(name);
      if (past !== undefined) for (const [k, record] of store) past.set(k, record[1]);
      store.clear();
    }
    for (const opened of this.open.values()) opened.clear();
    this.lanes.clear();
    this.kinds.clear();
    this.held.clear();
  }

  // -- entities -----------------------------------------------------------------------------------

  private step(step: Obj, ev: Obj, type: string): void {
    const paths = step["key"] as string[][];
    let itemKey: any;
    let text: string;
    if (paths.length === 1) {
      const v = getPath(ev, paths[0]!);
      if (v === undefined) return;
      itemKey = key(v);
      text = keyText(v);
    } else {
      const optional: string[] = (step["optional"] as string[][]).map((p) => p.join("."));
      const parts: any[] = [];
      for (const path of paths) {
        let v = getPath(ev, path);
        if (v === undefined) {
          if (!optional.includes(path.join("."))) return;
          v = null;
        }
        parts.push(v);
      }
      itemKey = JSON.stringify(parts.map(key));
      text = keyText(parts);
    }
    const entity: string = step["entity"];
    const store = this.entities.get(entity)!;
    let record = store.get(itemKey);
    const past = this.past.get(entity);
    if (record === undefined && past !== undefined) {
      const established = past.get(itemKey);
      if (established !== undefined) {
        record = [TABLES.entities[entity]["outlives_run"], established, text];
        store.set(itemKey, record);
        if (record[0] === "open") this.open.get(entity)!.set(itemKey, text);
      }
    }
    const row: Obj | undefined = step["transitions"][record === undefined ? "absent" : record[0]];
    if (row === undefined) return;
    if (row["fail"]) {
      if (record === undefined && this.partial) return;
      this.report(row["fail"], type, { kind: entity }, [text]);
      return;
    }
    for (const req of row["requires"] as Obj[]) this.require(req, ev, type, record ?? null, entity, text);
    let target: string | null = row["target"];
    if (row["target_field"]) {
      // the state the event's field names (staying when it names none)
      const named = getPath(ev, row["target_field"]);
      target = typeof named === "string" && (TABLES.entities[entity]["states"] as string[]).includes(named) ? named : null;
    }
    if (target !== null) {
      if (record === undefined) {
        const remembered: Obj = {};
        for (const f of step["remember"] as Obj[]) {
          const v = attr(ev, f["field"]);
          remembered[f["field"]] = v === undefined ? f["default"] : v;
        }
        store.set(itemKey, [target, remembered, text]);
        if (target === "open") this.open.get(entity)!.set(itemKey, text);
      } else if (record[0] !== target) {
        if (record[0] === "open") this.open.get(entity)!.delete(itemKey);
        else if (target === "open") this.open.get(entity)!.set(itemKey, record[2]);
        record[0] = target;
      }
    }
  }

  private require(req: Obj, ev: Obj, type: string, record: EntityRecord | null, kind = "", text = ""): void {
    const what: string = req["kind"];
    if (what === "closed") {
      for (const name of req["entities"] as string[]) {
        const still = this.open.get(name)!;
        if (!still.size) continue;
        const shown: string[] = [];
        for (const text of still.values()) {
          if (shown.length === MAX_IDS) break;
          shown.push(text);
        }
        this.report(req["rule"], type, { kind: name, ...this.runValues() }, shown, still.size);
      }
    } else if (what === "same") {
      const value = attr(ev, req["field"]);
      const expected = attr(this.opener, req["field"]);
      if (!(value === undefined ? expected === undefined : eq(value, expected))) {
        this.report(req["rule"], type, { field: req["wire"], actual: show(value), expected: show(expected) });
      }
    } else if (what === "agree" || what === "agree-if-present") {
      if (record === null) return;
      for (const f of req["fields"] as Obj[]) {
        let value = attr(ev, f["field"]);
        if (value === undefined) {
          if (what === "agree-if-present") continue;
          value = f["default"];
        }
        const expected = own(record[1], f["field"]) ? record[1][f["field"]] : null;
        if (!eq(value, expected)) {
          this.report(req["rule"], type, { field: f["wire"], actual: show(value), expected: show(expected), kind }, [text]);
        }
      }
    } else if (what === "in-state") {
      if (record === null) return;
      const value = getPath(ev, req["field"]);
      if (value !== undefined && !eq(value, record[0])) {
        this.report(req["rule"], type, { field: req["wire"], actual: show(value), expected: record[0], kind }, [text]);
      }
    } else {
      const v = attr(ev, req["field"]);
      if (v === undefined) return;
      const present = this.entities.get(req["entity"])!.has(key(v));
      if (!present && this.partial) return;
      if (present !== (what === "exists")) this.report(req["rule"], type, { actual: show(v) }, [keyText(v)]);
    }
  }

  // -- checks on one event ------------------------------------------------------------------------

  private check(check: Obj, ev: Obj, type: string): void {
    const each: string | null = check["each"];
    let targets: any[];
    let names: string[] | null = null;
    if (each === null) targets = [ev];
    else {
      const items = attr(ev, each);
      if (items === undefined) return;
      if (Array.isArray(items)) targets = items;
      else {
        // a map: its values in the order of their names (the names, which {index} shows)
        names = Object.keys(items).sort(codePointOrder);
        targets = names.map((n) => items[n]);
      }
    }
    const expect: Expr = check["expect"];
    targets.forEach((target, i) => {
      if (evaluate(expect, target, this.dialogue) === false) {
        let ids: string[] = [];
        let total = 0;
        if (expect.op === "unique") {
          const counted = new Map<string, number>();
          for (const v of collect(target, expect["path"]).map(pyStr)) counted.set(v, (counted.get(v) ?? 0) + 1);
          const repeated = [...counted].filter(([, n]) => n > 1).map(([v]) => v).sort(codePointOrder);
          ids = repeated.slice(0, MAX_IDS);
          total = repeated.length;
        } else if (this.dialogue !== null && this.dialogue.about !== null) ids = [this.dialogue.about]; // the request the message answers or names
        const shown: Obj = { index: names === null ? i : names[i] };
        if (expect.op === "cmp") Object.assign(shown, sides(expect, target, this.dialogue));
        if (check["facts"] && this.dialogue !== null) shown["declared"] = this.dialogue.declared(check["facts"]);
        this.report(check["rule"], type, shown, ids, total);
      }
    });
  }

  // -- chunk expansion ----------------------------------------------------------------------------

  private make(part: Obj, source: Obj, lane: any, extra: Obj | null = null): Obj {
    const ev: Obj = { [DISC]: part["type"] };
    for (const a of part["copy"] as string[]) {
      const v = attr(source, a);
      if (v !== undefined) ev[a] = v;
    }
    Object.assign(ev, part["fixed"]);
    if (extra !== null) Object.assign(ev, extra);
    if (lane !== null) ev[CHUNKS!["lane"]] = lane;
    return ev;
  }

  private closeLane(lane: any): Obj[] {
    const item = this.lanes.get(lane);
    if (item === undefined) return [];
    this.lanes.delete(lane);
    this.kinds.get(item[0])?.delete(lane);
    const kind = CHUNKS!["kinds"][item[0]];
    return [this.make(kind["end"], item[3], lane)];
  }

  private expand(event: Obj, type: string): Obj[] {
    const chunks = CHUNKS!;
    const kind: Obj | undefined = chunks["kinds"][type];
    const owner = attr(event, chunks["lane"]);
    let lane: any = owner === undefined ? null : owner;
    if (kind === undefined) {
      let out: Obj[] = [];
      if (chunks["close_all"].includes(type)) for (const open of [...this.lanes.keys()]) out.push(...this.closeLane(open));
      else if (chunks["close_owner"].includes(type) || chunks["close_lane"].includes(type)) out = out.concat(this.closeLane(lane));
      out.push(event);
      return out;
    }
    const itemId = attr(event, kind["id"]);
    let item = this.lanes.get(lane);
    if (itemId === undefined) {
      if (owner === undefined) {
        const open = this.kinds.get(type);
        if (open !== undefined && (open.has(null) || open.size === 1)) lane = open.has(null) ? null : open.values().next().value;
        else if (open !== undefined && open.size > 1) {
          const lanes = this.lanes;
          const shown = sample((function* () {
            for (const k of open) yield pyStr(lanes.get(k)![1]);
          })());
          this.report(chunks["ambiguous"], type, {}, shown, open.size);
          return [];
        }
        item = this.lanes.get(lane);
      }
      if (item === undefined || item[0] !== type) {
        this.report(kind["first_rule"], type);
        return [];
      }
      return this.continueChunk(kind, item, event, type, lane);
    }
    if (item !== undefined && item[0] === type && eq(item[1], itemId)) return this.continueChunk(kind, item, event, type, lane);
    const out = this.closeLane(lane);
    if ((kind["first"] as string[]).some((a) => attr(event, a) === undefined)) {
      this.report(kind["first_rule"], type);
      return out;
    }
    const agreed: Obj = {};
    for (const f of kind["agree"] as Obj[]) {
      const v = attr(event, f["field"]);
      agreed[f["field"]] = v === undefined ? f["default"] : v;
    }
    const opener = this.make(kind["start"], event, lane);
    this.lanes.set(lane, [type, itemId, agreed, opener]);
    let open = this.kinds.get(type);
    if (open === undefined) this.kinds.set(type, (open = new Set()));
    open.add(lane);
    out.push(opener);
    return out.concat(this.content(kind, event, lane));
  }

  private continueChunk(kind: Obj, item: Lane, event: Obj, type: string, lane: any): Obj[] {
    for (const f of kind["agree"] as Obj[]) {
      const v = attr(event, f["field"]);
      const established = item[2][f["field"]];
      if (v !== undefined && established !== null && established !== undefined && !eq(v, established)) {
        this.report(kind["agree_rule"], type, { field: f["wire"], actual: show(v), expected: show(established) }, [pyStr(item[1])]);
        return [];
      }
    }
    return this.content(kind, item[3], lane, event);
  }

  private content(kind: Obj, source: Obj, lane: any, event: Obj | null = null): Obj[] {
    const ev = event ?? source;
    const part = kind["content"];
    const carried = (part["copy"] as string[]).filter((a) => a !== kind["id"]);
    if (!carried.length || carried.every((a) => attr(ev, a) === undefined)) return [];
    return [this.make(part, ev, lane, { [kind["id"]]: attr(source, kind["id"]) })];
  }
}


const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d{1,6}))?)?)?)?\s*(Z|[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?)?$/;

/** An ISO 8601 instant in milliseconds (no offset: UTC), or null. */
export function instant(text: unknown): number | null {
  if (typeof text !== "string") return null;
  const m = ISO.exec(text);
  if (m === null) return null;
  const [, y, mo, d, h = "0", mi = "0", s = "0", frac = "0", zone = "Z"] = m;
  let ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Number(frac.padEnd(3, "0").slice(0, 3)));
  if (Number.isNaN(ms)) return null;
  if (zone !== "Z") {
    const sign = zone[0] === "-" ? -1 : 1;
    const digits = zone.slice(1).replace(/:/g, "");
    ms -= sign * (Number(digits.slice(0, 2)) * 3600000 + Number(digits.slice(2, 4) || "0") * 60000 + Number(digits.slice(4, 6) || "0") * 1000);
  }
  return ms;
}

/** Check that `answer` (an input) answers every question `question` (the event that asked, or
 * null when there is none) left open, per the rules file's `answers` block `name`. `now`: the
 * instant expiry is judged at (milliseconds; default now). */
export function checkAnswers(name: string, question: Obj | null, answer: Obj, now: number = Date.now()): Finding[] {
  const spec = TABLES.answers[name];
  const rules: Obj = spec["rules"];
  const out: Finding[] = [];
  const entries: Obj[] = getPath(answer, spec["input"]["list"]) ?? [];
  const answered = new Map<any, [any, Obj]>();
  for (const e of entries) {
    const id = attr(e, spec["input"]["id"]);
    const prior = answered.get(key(id));
    answered.set(key(id), [prior ? prior[0] : id, e]);
  }
  const asking = question !== null && evaluate(spec["open_when"], question) === true;
  const kind: string = spec["input"]["definition"];
  if (!asking) {
    if (answered.size && rules["nothing-to-continue"]) {
      const named = [...answered.values()].map(([id]) => pyStr(id)).sort(codePointOrder);
      out.push(finding(rules["nothing-to-continue"], 0, kind, {}, named.slice(0, MAX_IDS), named.length));
    }
    return out;
  }
  const asked: Obj[] = getPath(question, spec["questions"]["list"]) ?? [];
  const askedIds = new Map<any, [any, Obj]>();
  for (const q of asked) {
    const id = attr(q, spec["questions"]["id"]);
    const prior = askedIds.get(key(id));
    askedIds.set(key(id), [prior ? prior[0] : id, q]);
  }
  for (const [k, [id]] of askedIds) if (!answered.has(k)) out.push(finding(rules["uncovered"], 0, kind, {}, [pyStr(id)]));
  for (const [k, [id]] of answered) if (!askedIds.has(k)) out.push(finding(rules["unknown"], 0, kind, {}, [pyStr(id)]));
  if (spec["expires"] && rules["expired"]) {
    for (const [k, [id, q]] of askedIds) {
      const raw = attr(q, spec["expires"]);
      const when = instant(raw);
      const entry = answered.get(k);
      if (when === null || entry === undefined || when > now) continue;
      if (evaluate(spec["expires_unless"], entry[1]) !== true) out.push(finding(rules["expired"], 0, kind, { actual: raw }, [pyStr(id)]));
    }
  }
  return out;
}

/** Check a document listing items against the events that created them, per the rules file's
 * `listing` block `name`. */
export function checkListing(name: string, events: Obj[], document: Obj): Finding[] {
  const spec = TABLES.listings[name];
  const rules: Obj = spec["rules"];
  const kind: string = spec["definition"];
  const created = new Map<any, [number, any]>();
  const order: any[] = [];
  for (const ev of events) {
    if (attr(ev, DISC) !== spec["event"]) continue;
    const item = getPath(ev, spec["item"]);
    if (item === undefined) continue;
    const k = getPath(item, spec["id"]);
    if (!created.has(key(k))) {
      created.set(key(k), [order.length, item]);
      order.push(k);
    }
  }
  const listed: Obj[] = getPath(document, spec["list"]) ?? [];
  const out: Finding[] = [];
  const seen = new Set<any>();
  const positions: number[] = [];
  listed.forEach((item, i) => {
    const k = getPath(item, spec["id"]);
    if (seen.has(key(k)) || !created.has(key(k))) {
      out.push(finding(rules["unmatched"], i, kind, { index: i }, [show(k)]));
      seen.add(key(k));
      return;
    }
    seen.add(key(k));
    const [position, original] = created.get(key(k))!;
    positions.push(position);
    if (rules["differs"] && !jsonEqual(item, original)) out.push(finding(rules["differs"], i, kind, { index: i }, [show(k)]));
  });
  if (rules["missing"]) for (const k of order) if (!seen.has(key(k))) out.push(finding(rules["missing"], listed.length, kind, {}, [show(k)]));
  if (rules["order"] && positions.some((p, i) => i > 0 && p < positions[i - 1]!)) {
    const listedOrder = order.filter((k) => seen.has(key(k))).map(show);
    out.push(finding(rules["order"], 0, kind, {}, listedOrder.slice(0, MAX_IDS), listedOrder.length));
  }
  return out;
}
