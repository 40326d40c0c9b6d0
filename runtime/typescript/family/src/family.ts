/**
 * The revisions of one protocol, judged together: each message of a session is routed, in wire
 * order, to the revision the session speaks, which the messages themselves name. The same router
 * as the Python package's `family.Router`, reading the same table (`FAMILY`, from the `[family]`
 * table of the home spec's binding.toml): the same deliveries, findings and descriptions.
 *
 *     import { Router } from "<home package>";
 *     const router = new Router();
 *     const [deliveries, findings] = router.feed("client", message);   // each message, in order
 *     router.finish();                                                // held messages, if any
 *     router.describe();   // "2026-07-28 (messages 0-1: ...), then 2025-11-25 (from message 2: ...)"
 *
 * A session is undecided until a message names a revision (its marks); what came before is held
 * (at most `hold` messages) and delivered to that revision first. A message naming another
 * revision switches the session: a declared fallback is judged by the evidence the first
 * revision's answers gave, any other switch is a finding of the `switch` rule. An answer follows
 * the exchange its request opened. Nothing here knows any protocol, and nothing throws on input.
 */

import { FAMILY } from "./family_table.js";

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const ABSENT: unique symbol = Symbol("absent");

function tokens(pointer: string): string[] {
  return pointer.split("/").slice(1).map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function at(document: Json, path: string[]): Json | typeof ABSENT {
  let value = document;
  for (const token of path) {
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      if (!Object.prototype.hasOwnProperty.call(value, token)) return ABSENT;
      value = value[token];
    } else if (Array.isArray(value)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= value.length) return ABSENT;
      value = value[Number(token)];
    } else {
      return ABSENT;
    }
  }
  return value;
}

/** JSON equality: true and 1 differ, 1 and 1.0 do not. */
function same(a: Json, b: Json): boolean {
  if (typeof a === "boolean" || typeof b === "boolean") return a === b;
  if (typeof a === "number" && typeof b === "number") return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  }
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object") {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && same(a[k], b[k]));
  }
  return a === b;
}

/** The JSON text Python's json.dumps(value, sort_keys=True) gives a request id (a string or a number). */
function key(value: Json): string {
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return Array.isArray(value) ? `[${value.map(key).join(", ")}]` : `{${keys.map((k) => `${JSON.stringify(k)}: ${key(value[k])}`).join(", ")}}`;
  }
  return JSON.stringify(value);
}

class Condition {
  readonly party: string | null;
  readonly tests: [string, string[], Json][] = [];

  constructor(spec: Json) {
    this.party = spec["from"] ?? null;
    for (const [pointer, value] of Object.entries(spec["match"] ?? {})) this.tests.push(["match", tokens(pointer), value]);
    for (const [pointer, values] of Object.entries(spec["one-of"] ?? {})) this.tests.push(["one-of", tokens(pointer), values]);
    for (const pointer of spec["present"] ?? []) this.tests.push(["present", tokens(pointer), null]);
    for (const pointer of spec["absent"] ?? []) this.tests.push(["absent", tokens(pointer), null]);
  }

  holds(party: string | null, document: Json): boolean {
    if (this.party !== null && party !== this.party) return false;
    for (const [kind, path, expected] of this.tests) {
      const value = at(document, path);
      if (kind === "absent") {
        if (value !== ABSENT) return false;
      } else if (value === ABSENT) {
        return false;
      } else if (kind === "match" && !same(value, expected)) {
        return false;
      } else if (kind === "one-of" && !(expected as Json[]).some((v) => same(value, v))) {
        return false;
      }
    }
    return true;
  }
}

/** A message for a revision's judge: its place in the session, its sender, the parsed document. */
export interface Delivery {
  revision: string;
  index: number;
  party: string | null;
  document: Json;
  payload: Json;
}

export class FamilyFinding {
  constructor(
    readonly rule: string,
    readonly level: string,
    readonly index: number,
    readonly message: string,
    readonly ref: [string, string],
  ) {}

  get fatal(): boolean {
    return this.level === "MUST" || this.level === "MUST NOT";
  }

  toString(): string {
    return `${this.rule} [${this.level}] message ${this.index}: ${this.message}`;
  }
}

/** A stretch of the session judged by one revision: from the message that began it, and why. */
export interface Segment {
  revision: string;
  first: number;
  reason: string;
  messages: number;
}

interface Fallback {
  evidence: Condition[];
  offers: string[][];
  rule: string | null;
}

interface Seen {
  index: number;
  party: string | null;
  offered: Json[];
}

export class Router {
  readonly versions: string[];
  readonly rules: { [id: string]: Json };
  readonly segments: Segment[] = [];
  readonly findings: FamilyFinding[] = [];
  private readonly marks: [string, Condition[]][];
  private readonly switchRule: string | null;
  private readonly fallbacks = new Map<string, Fallback>(); // "from\u0000to"
  private readonly sources: [string, string][] = []; // (from, to), in table order
  private readonly idAt: string[] | null;
  private readonly requestAt: string[] | null;
  private current: string | null;
  private pending: [number, string | null, Json, Json][] = [];
  private open = new Map<string, [string | null, string][]>();
  private seen = new Map<string, Seen[]>();
  private count = 0;

  /** `forced`: judge the whole session with this revision. `hold`: how many messages may wait. */
  constructor(table: Json = FAMILY, readonly forced: string | null = null, readonly hold: number = 64) {
    this.versions = table["revisions"].map((r: Json) => r["version"]);
    if (forced !== null && !this.versions.includes(forced)) {
      throw new RangeError(`no revision ${JSON.stringify(forced)} in this family: ${this.versions.join(", ")}`);
    }
    this.marks = table["revisions"].map((r: Json) => [r["version"], r["marks"].map((c: Json) => new Condition(c))]);
    this.rules = table["rules"];
    this.switchRule = table["switch"] ?? null;
    for (const f of table["fallbacks"]) {
      this.fallbacks.set(`${f["from"]}\u0000${f["to"]}`, {
        evidence: f["evidence"].map((c: Json) => new Condition(c)),
        offers: f["offers"].map(tokens),
        rule: f["rule"] ?? null,
      });
      this.sources.push([f["from"], f["to"]]);
    }
    const exchanges = table["exchanges"];
    this.idAt = exchanges ? tokens(exchanges["id"]) : null;
    this.requestAt = exchanges ? tokens(exchanges["request"]) : null;
    this.current = forced;
    if (forced !== null) this.segments.push({ revision: forced, first: 0, reason: `forced: revision ${forced}`, messages: 0 });
  }

  /** The revision judging the session now (null: not named yet). */
  get revision(): string | null {
    return this.current;
  }

  /** One message in wire order: the deliveries it releases (held ones first) and the family's findings. */
  feed(party: string | null, document: Json, payload: Json = null): [Delivery[], FamilyFinding[]] {
    const index = this.count++;
    if (this.current === null) {
      const named = this.named(party, document);
      if (named.length === 0) {
        this.pending.push([index, party, document, payload]);
        if (this.pending.length <= this.hold) return [[], []];
        return [this.decide(this.versions[0]!, `no message among the first ${this.hold} named a revision: the default`), []];
      }
      const out = this.decide(named[0]!, party !== null ? `message ${index} from ${party} names it` : `message ${index} names it`);
      out.push(this.deliver(index, party, document, payload));
      return [out, []];
    }
    let found: FamilyFinding[] = [];
    if (this.forced === null) {
      const named = this.named(party, document);
      if (named.length > 0 && !named.includes(this.current)) found = this.switchTo(named[0]!, index, party);
    }
    return [[this.deliver(index, party, document, payload)], found];
  }

  /** The end of the session: held messages go to the default revision. */
  finish(): [Delivery[], FamilyFinding[]] {
    if (this.current === null && this.pending.length > 0) return [this.decide(this.versions[0]!, "no message named a revision: the default"), []];
    return [[], []];
  }

  describe(): string {
    if (this.segments.length === 0) return "none (no message)";
    if (this.segments.length === 1) return this.segments[0]!.revision;
    const parts: string[] = [];
    this.segments.forEach((s, i) => {
      const next = this.segments[i + 1];
      const end = next !== undefined ? next.first - 1 : null;
      const span = end !== null && end !== s.first ? `messages ${s.first}-${end}` : end !== null ? `message ${s.first}` : `from message ${s.first}`;
      parts.push(`${s.revision} (${span}: ${s.reason})`);
    });
    return parts.join(", then ");
  }

  private named(party: string | null, document: Json): string[] {
    if (document === null || typeof document !== "object" || Array.isArray(document)) return [];
    return this.marks.filter(([, conditions]) => conditions.some((c) => c.holds(party, document))).map(([version]) => version);
  }

  private decide(version: string, reason: string): Delivery[] {
    this.current = version;
    const first = this.pending.length > 0 ? this.pending[0]![0] : this.count - 1;
    this.segments.push({ revision: version, first, reason, messages: 0 });
    const held = this.pending;
    this.pending = [];
    return held.map(([i, p, d, x]) => this.deliver(i, p, d, x));
  }

  private switchTo(target: string, index: number, party: string | null): FamilyFinding[] {
    const source = this.current!;
    const fallback = this.fallbacks.get(`${source}\u0000${target}`);
    const found: FamilyFinding[] = [];
    let reason: string;
    if (fallback === undefined) {
      if (this.switchRule !== null) {
        const detail = `message ${index} names ${target} after the session spoke ${source} from message ${this.segments[this.segments.length - 1]!.first}`;
        found.push(this.finding(this.switchRule, index, source, target, detail));
      }
      reason = `message ${index} names it`;
    } else {
      const refuting = (this.seen.get(target) ?? []).filter((s) => !s.offered.some((v) => same(v, target)));
      if (refuting.length > 0 && fallback.rule !== null) {
        const s = refuting[0]!;
        const offered = s.offered.length > 0 ? s.offered.map((v) => pyJson(v)).join(", ") : "none";
        const detail = `message ${s.index} from ${s.party} showed a peer speaking ${source} (versions it offers: ${offered})`;
        found.push(this.finding(fallback.rule, index, source, target, detail));
      }
      reason = `fallback from ${source} at message ${index}`;
    }
    this.current = target;
    this.segments.push({ revision: target, first: index, reason, messages: 0 });
    this.seen = new Map();
    this.findings.push(...found);
    return found;
  }

  private finding(rule: string, index: number, source: string, target: string, detail: string): FamilyFinding {
    const spec = this.rules[rule];
    const message = String(spec["message"])
      .split("{from}").join(source)
      .split("{to}").join(target)
      .split("{detail}").join(detail)
      .split("{index}").join(String(index));
    return new FamilyFinding(rule, spec["level"], index, message, [spec["ref"][0], spec["ref"][1]]);
  }

  private deliver(index: number, party: string | null, document: Json, payload: Json): Delivery {
    let revision = this.current!;
    if (this.idAt !== null && this.requestAt !== null && document !== null && typeof document === "object" && !Array.isArray(document)) {
      const ident = at(document, this.idAt);
      if (ident !== ABSENT && ident !== null) {
        const k = key(ident);
        if (at(document, this.requestAt) !== ABSENT) {
          const list = this.open.get(k) ?? [];
          list.push([party, revision]);
          this.open.set(k, list);
        } else {
          const waiting = this.open.get(k) ?? [];
          const n = waiting.findIndex(([requester]) => requester !== party);
          if (n >= 0) {
            revision = waiting[n]![1];
            waiting.splice(n, 1);
            if (waiting.length === 0) this.open.delete(k);
          }
        }
      }
    }
    if (revision === this.current) this.noteEvidence(index, party, document);
    for (let i = this.segments.length - 1; i >= 0; i--) {
      if (this.segments[i]!.revision === revision) {
        this.segments[i]!.messages += 1;
        break;
      }
    }
    return { revision, index, party, document, payload };
  }

  private noteEvidence(index: number, party: string | null, document: Json): void {
    if (document === null || typeof document !== "object" || Array.isArray(document)) return;
    for (const [source, target] of this.sources) {
      if (source !== this.current) continue;
      const fallback = this.fallbacks.get(`${source}\u0000${target}`)!;
      if (!fallback.evidence.some((c) => c.holds(party, document))) continue;
      const offered: Json[] = [];
      for (const path of fallback.offers) {
        const value = at(document, path);
        if (Array.isArray(value)) offered.push(...value);
      }
      const list = this.seen.get(target) ?? [];
      list.push({ index, party, offered });
      this.seen.set(target, list);
    }
  }
}

/** A value as Python's json.dumps writes it (", " and ": " separators), for the same messages. */
function pyJson(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(pyJson).join(", ")}]`;
  if (value !== null && typeof value === "object") return `{${Object.keys(value).map((k) => `${JSON.stringify(k)}: ${pyJson(value[k])}`).join(", ")}}`;
  return JSON.stringify(value);
}
