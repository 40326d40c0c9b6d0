/**
 * Judge a whole event stream of this package's protocol: the report `specbind replay --json`
 * prints for one file, from this package alone (the same shape as every binding's).
 *
 *     import { replay } from "<package>";
 *     const report = replay(bytes);   // Uint8Array or string
 *     report.outcome;                 // "completed" | "failed" | "empty" | "unrecognized"
 *
 * Formats: `jsonl` (each non-blank line one event), `sse` (a captured `text/event-stream` body),
 * `json` (a JSON array of events, one event, or a test case: an object whose `stream` member is
 * the array), and `auto`, the default, which tells them apart by their first bytes and says what
 * it saw in `notes`. Only `completed` is conformant. The findings listed are the first
 * `maxFindings` (MAX_FINDINGS by default); when more were found, `omitted` counts the rest and a
 * note says so: the outcome counts them all.
 */

import { Automaton, Finding, MAX_FINDINGS, RULES } from "./automaton.js";
import { TABLES } from "./automaton_table.js";
import { acceptsDocument } from "./codec_json.js";
import { SSEDecoder } from "./sse.js";
import { JSONParseError, codePointOrder, scanItems, scanText, utf8, utf8Exact, utf8Text } from "./json.js";
import type { Scanned } from "./json.js";
import type { DefinitionName } from "./types.js";
import { PROTOCOL, PROTOCOL_VERSION } from "./version.js";

export const FORMATS = ["auto", "jsonl", "sse", "json"] as const;
export const OUTCOMES = ["completed", "failed", "empty", "unrecognized"] as const;
export type Format = (typeof FORMATS)[number];

export interface FindingEntry {
  rule: string | null;
  level: string;
  index: number | null;
  type: string | null;
  message: string;
  ids: string[];
  ref?: string;
  line?: number;
}

export interface Report {
  outcome: string;
  violations: FindingEntry[];
  warnings: FindingEntry[];
  events: number;
  types: Record<string, number>;
  runs: Record<string, unknown>[];
  format: string;
  notes: string[];
  omitted?: { violations: number; warnings: number; rules: Record<string, number> };
}

const HEAD = 1 << 16;
const FATAL_LEVELS = new Set<string>(TABLES.fatal_levels);
const NAME = `${PROTOCOL} ${PROTOCOL_VERSION}`;
const ORDINARY = "one JSON document per line";
const FORMAT_NAMES: Record<string, string> = { jsonl: "JSON Lines", sse: "SSE", json: "JSON" };
// bytes.strip()'s whitespace: space, \t, \n, \r, \x0b, \x0c
const isSpace = (c: number): boolean => c === 0x20 || (c >= 0x09 && c <= 0x0d);

function strip(b: Uint8Array): Uint8Array {
  let i = 0;
  let j = b.length;
  while (i < j && isSpace(b[i]!)) i++;
  while (j > i && isSpace(b[j - 1]!)) j--;
  return i === 0 && j === b.length ? b : b.subarray(i, j);
}

function stripText(s: string, i: number, j: number): string | null {
  while (i < j && isSpace(s.charCodeAt(i))) i++;
  while (j > i && isSpace(s.charCodeAt(j - 1))) j--;
  return i === j ? null : s.slice(i, j);
}

function startsWithText(b: Uint8Array, prefix: string): boolean {
  if (b.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (b[i] !== prefix.charCodeAt(i)) return false;
  return true;
}

const hasBom = (b: Uint8Array): boolean => b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf;

/** Whether a document is an event as the codec reads it (its limits included). */
function isEvent(data: Uint8Array): boolean {
  if (TABLES.events_definition === null) return false; // two parties: a transcript line is never a test case
  return acceptsDocument(data, TABLES.events_definition as DefinitionName);
}

/** The items of a top-level object's `stream` member when it is an array (the last member of
 * that name, as parsing keeps), else null. */
function streamOf(shape: Scanned): Scanned | null {
  if (shape.kind !== "object") return null;
  let last: [string, number, number] | undefined;
  for (const m of shape.members) if (m[0] === "stream") last = m;
  if (last === undefined || shape.text[last[1]] !== "[") return null;
  return scanText(shape.text.slice(last[1], last[2]));
}

/** The format of a stream from its first bytes (`whole`: they are all of it), and why. */
export function sniff(head: Uint8Array, whole = false): [Format, string] {
  let text = hasBom(head) ? head.subarray(3) : head;
  let i = 0;
  while (i < text.length && isSpace(text[i]!)) i++;
  text = text.subarray(i);
  if (!text.length) return ["jsonl", "no content"];
  if (text[0] === 0x5b) return ["json", "a JSON array"];
  for (const p of ["data:", "event:", "id:", "retry:", ":"]) if (startsWithText(text, p)) return ["sse", "SSE fields (data:)"];
  if (text[0] !== 0x7b) return ["jsonl", "neither JSON nor SSE at its start; read as JSON Lines"];
  const end = text.indexOf(0x0a);
  if (end < 0 && !whole) return ["jsonl", "JSON on its first line"];
  const line = end < 0 ? text : text.subarray(0, end);
  let first: Scanned;
  try {
    // the grammar alone: bytes that are not UTF-8 are characters of no meaning here
    first = scanText(utf8Text(line));
  } catch (e) {
    if (!(e instanceof JSONParseError)) throw e;
    return ["json", "a JSON document over several lines"];
  }
  if (streamOf(first) !== null && !isEvent(line)) return ["json", "a test case (an object with a stream)"];
  return ["jsonl", ORDINARY];
}

export function conformant(report: Report): boolean {
  return report.outcome === "completed";
}

export interface ReplayOptions {
  format?: Format;
  after?: number | null;
  onFindings?: (found: Finding[]) => void;
  /** how many findings the report lists (null: all of them); default MAX_FINDINGS */
  maxFindings?: number | null | undefined;
}

/** Judge one stream and return its report. */
export function replay(source: Uint8Array | string, options: ReplayOptions = {}): Report {
  const fmt = options.format ?? "auto";
  if (!FORMATS.includes(fmt)) throw new RangeError(`unknown format ${JSON.stringify(fmt)}: expected one of ${FORMATS.join(", ")}`);
  const data = typeof source === "string" ? utf8(source) : source;
  const run = new Run(new Automaton(options.after ?? null, options.maxFindings === undefined ? MAX_FINDINGS : options.maxFindings), options.onFindings ?? null);
  run.read(data, fmt);
  return run.report();
}

/** Judge one stream given in pieces (a file read a chunk at a time: `replay` from the command
 * line): JSON Lines and SSE are judged as they come, in flat memory; a JSON document is
 * gathered whole first, as it must be parsed whole. The report is `replay`'s for the pieces
 * joined. */
export function replayChunks(chunks: Iterable<Uint8Array>, options: ReplayOptions = {}): Report {
  const fmt = options.format ?? "auto";
  if (!FORMATS.includes(fmt)) throw new RangeError(`unknown format ${JSON.stringify(fmt)}: expected one of ${FORMATS.join(", ")}`);
  const run = new Run(new Automaton(options.after ?? null, options.maxFindings === undefined ? MAX_FINDINGS : options.maxFindings), options.onFindings ?? null);
  const iterator = chunks[Symbol.iterator]();
  // the head decides the format: gather HEAD bytes (or all there is) first
  const first: Uint8Array[] = [];
  let size = 0;
  let done = false;
  while (size < HEAD) {
    const next = iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    first.push(next.value);
    size += next.value.length;
  }
  const head = concat(first);
  if (done) {
    run.read(head, fmt);
    return run.report();
  }
  const rest = (function* (): Generator<Uint8Array> {
    yield head;
    for (let next = iterator.next(); !next.done; next = iterator.next()) yield next.value;
  })();
  run.readChunks(head, rest, fmt);
  return run.report();
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  if (!parts.length) return new Uint8Array(0);
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  n = 0;
  for (const p of parts) {
    out.set(p, n);
    n += p.length;
  }
  return out;
}

class Run {
  format = "jsonl";
  readonly notes: string[] = [];
  readonly lines = new Map<number, number>();
  private told = 0;

  constructor(readonly automaton: Automaton, readonly onFindings: ((found: Finding[]) => void) | null) {
    automaton.bulk = true; // the report reads `findings`, never what a feed returns
  }

  private choose(head: Uint8Array, whole: boolean, fmt: Format): string {
    let format: string = fmt;
    if (fmt === "auto") {
      const [found, why] = sniff(head.subarray(0, HEAD), whole);
      format = found;
      if (why !== ORDINARY) this.notes.push(`read as ${FORMAT_NAMES[found]} (auto: ${why})`);
    }
    this.format = format;
    return format;
  }

  read(data: Uint8Array, fmt: Format): void {
    const format = this.choose(data, data.length < HEAD, fmt);
    if (hasBom(data) && format !== "sse") data = data.subarray(3);
    if (format === "jsonl") this.jsonl(data);
    else if (format === "sse") this.sse(data);
    else this.json(data);
    this.finish();
  }

  /** `read` for a stream in pieces (`head`, at least HEAD bytes, is the first of `chunks`). */
  readChunks(head: Uint8Array, chunks: Iterable<Uint8Array>, fmt: Format): void {
    const format = this.choose(head, false, fmt);
    if (format === "json") {
      const parts = [...chunks];
      let data = concat(parts);
      if (hasBom(data)) data = data.subarray(3);
      this.json(data);
    } else if (format === "sse") {
      const decoder = new SSEDecoder();
      for (const chunk of chunks) for (const doc of decoder.feed(chunk)) this.automaton.feedDocument(doc);
      this.sseEnd(decoder);
    } else {
      // a line may span pieces: they wait, uncopied, until the piece that ends it
      let pending: Uint8Array[] = [];
      let first = true;
      for (let chunk of chunks) {
        if (first && hasBom(chunk)) chunk = chunk.subarray(3);
        first = false;
        const cut = chunk.lastIndexOf(0x0a);
        if (cut < 0) {
          pending.push(chunk);
          continue;
        }
        this.jsonl(concat([...pending, chunk.subarray(0, cut + 1)]), true);
        pending = cut + 1 < chunk.length ? [chunk.subarray(cut + 1)] : [];
      }
      if (pending.length) this.jsonl(concat(pending));
    }
    this.finish();
  }

  private finish(): void {
    this.tell();
    const before = this.automaton.findings.length;
    this.automaton.finish();
    const last = this.automaton.index;
    if (this.format === "jsonl" && last >= 0) for (const f of this.automaton.findings.slice(before)) if (f.index === last) this.lines.set(last, this.lastLine);
    this.tell();
  }

  private lastLine = 0;
  private line = 0;

  /** JSON Lines; `more`: a piece ending in a newline, the next piece continuing the count. */
  private jsonl(data: Uint8Array, more = false): void {
    const text = utf8Exact(data);
    if (text !== null) return this.jsonlText(text, more);
    let line = this.line;
    let from = 0;
    const automaton = this.automaton;
    while (from < data.length) {
      let to = data.indexOf(0x0a, from);
      if (to < 0) to = data.length;
      line++;
      const doc = strip(data.subarray(from, to));
      from = to + 1;
      if (!doc.length) continue;
      const before = automaton.findings.length;
      automaton.feedDocument(doc);
      this.lastLine = line;
      for (let i = before; i < automaton.findings.length; i++) this.lines.set(automaton.findings[i]!.index, line);
      this.tell();
    }
    this.line = more ? line : 0;
  }

  /** JSON Lines already decoded (the whole text is UTF-8): the same lines, read as text. */
  private jsonlText(data: string, more: boolean): void {
    let line = this.line;
    let from = 0;
    const automaton = this.automaton;
    while (from < data.length) {
      let to = data.indexOf("\n", from);
      if (to < 0) to = data.length;
      line++;
      const doc = stripText(data, from, to);
      from = to + 1;
      if (doc === null) continue;
      const before = automaton.findings.length;
      automaton.feedText(doc);
      this.lastLine = line;
      for (let i = before; i < automaton.findings.length; i++) this.lines.set(automaton.findings[i]!.index, line);
      this.tell();
    }
    this.line = more ? line : 0;
  }

  private sse(data: Uint8Array): void {
    const decoder = new SSEDecoder();
    for (const doc of decoder.feed(data)) this.automaton.feedDocument(doc);
    this.sseEnd(decoder);
  }

  private sseEnd(decoder: SSEDecoder): void {
    if (decoder.finish()) this.notes.push("the stream ends inside an SSE event (no blank line after it): that event is not read");
  }

  /** A JSON text: its grammar read whole (`scanItems`: no nesting stops it), then each item of
   * an array, or of a test case's stream, decoded on its own as one event. */
  private json(data: Uint8Array): void {
    const text = strip(data);
    let documents: (Uint8Array | string)[] = text.length ? [text] : [];
    let shape: Scanned | null = null;
    try {
      if (text.length) shape = scanItems(text);
    } catch (e) {
      if (!(e instanceof JSONParseError)) throw e;
      this.notes.push(`not one JSON document: ${e.message}`);
    }
    if (shape !== null && shape.kind === "array") {
      const source = shape.text;
      documents = shape.spans.map(([a, b]) => source.slice(a, b));
      this.notes.push(`a JSON array of ${documents.length.toLocaleString("en-US")} events`);
    } else if (shape !== null && shape.kind === "object") {
      const items = streamOf(shape);
      if (items !== null && !isEvent(text)) {
        documents = items.spans.map(([a, b]) => items.text.slice(a, b));
        const rest = [...new Set(shape.members.map((m) => m[0]).filter((k) => k !== "stream"))].sort(codePointOrder).join(", ");
        this.notes.push(`a test case: its stream of ${documents.length.toLocaleString("en-US")} events${rest ? ` (its ${rest} not checked)` : ""}`);
      } else this.notes.push("one JSON object: a stream of one event");
    }
    for (const doc of documents) this.automaton.feedDocument(doc);
  }

  private tell(): void {
    const findings = this.automaton.findings;
    if (this.onFindings !== null && findings.length > this.told) this.onFindings(findings.slice(this.told));
    this.told = findings.length;
  }

  report(): Report {
    const automaton = this.automaton;
    const violations: FindingEntry[] = [];
    const warnings: FindingEntry[] = [];
    for (const f of automaton.findings) {
      const entry: FindingEntry = f.asDict();
      if (this.format === "jsonl") {
        const line = this.lines.get(f.index);
        if (line !== undefined) entry.line = line;
      }
      (f.fatal ? violations : warnings).push(entry);
    }
    const events = automaton.index + 1;
    let decoded = 0;
    for (const n of automaton.counts.values()) decoded += n;
    const notes = [...this.notes];
    let outcome: string;
    if (events === 0) {
      outcome = "empty";
      notes.push("the stream holds no event: an empty stream is not a conformant one");
    } else if (decoded === 0) {
      outcome = "unrecognized";
      notes.push(`not one of its ${events.toLocaleString("en-US")} documents decodes as an event of ${NAME}: is this a stream of another protocol (the right --spec)?`);
    } else outcome = automaton.outcome;
    let omitted: Report["omitted"];
    if (automaton.omitted) {
      let fatal = 0;
      for (const [rule, n] of automaton.omittedRules) if (FATAL_LEVELS.has(RULES[rule]?.level ?? "")) fatal += n;
      const rules = [...automaton.omittedRules].sort((a, b) => codePointOrder(a[0], b[0]));
      omitted = { violations: fatal, warnings: automaton.omitted - fatal, rules: Object.fromEntries(rules) };
      notes.push(`${automaton.omitted} more findings than the ${automaton.findings.length} listed (max_findings): counted in omitted`);
    }
    const types = [...automaton.counts.entries()].sort((a, b) => b[1] - a[1] || codePointOrder(a[0], b[0]));
    const report: Report = { outcome, violations, warnings, events, types: Object.fromEntries(types), runs: automaton.runs, format: this.format, notes };
    if (omitted !== undefined) report.omitted = omitted;
    return report;
  }
}

export { RULES };
