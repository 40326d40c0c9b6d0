/**
 * What the codecs read and refuse, the same as every binding of this spec (RFC 8259 section 8.1
 * and 9, I-JSON RFC 7493): UTF-8 without a byte order mark, no lone surrogate, at most MAX_DEPTH
 * levels of nesting, numbers within a double's range, integers within 4300 digits.
 *
 * The hot path is `JSON.parse`. A document it refuses, or one whose text holds what
 * `JSON.parse` cannot tell apart (an integer written with a fraction or exponent, `1.0`; an
 * integer past 2^53; a surrogate escape), is read by `exactParse`, which keeps those apart
 * (`PyFloat`, `bigint`) and locates every problem as the reference binding does, with the same
 * messages. Zero dependencies.
 */

export const MAX_DEPTH = 128;
/** How many errors (and lenient warnings) a decode lists by default: the first ones, in the order
 * found; the others are counted (`maxErrors` per call; null: every one). */
export const MAX_ERRORS = 100;
/** The most digits an integer may have (CPython's default `sys.get_int_max_str_digits`). */
export const INT_DIGITS_LIMIT = 4300;

/** Where an object read from a document keeps its members' order when JavaScript would not: an
 * object lists the names that are array indices (`"0"`, `"12"`) first, whatever their place,
 * and every binding of this spec keeps the document's order (in errors, warnings, messages and
 * the sequence stage's "the same event"). Set by the exact reader on such objects only (the text
 * of any document with such a name takes it: `survey`); copied by object spread; read by
 * `keysOf`. */
export const ORDER: unique symbol = Symbol("document order");

// a member name JavaScript may put first (an array index, and a little more: never missed)
const INDEX_RX = /^(?:0|[1-9][0-9]{0,9})$/;

/** The member names of a JSON object in document order. */
export function keysOf(obj: object): string[] {
  const order = (obj as { [ORDER]?: string[] })[ORDER];
  if (order === undefined) return Object.keys(obj);
  return order.filter((k) => Object.prototype.hasOwnProperty.call(obj, k));
}

/** A number written with a fraction part or an exponent whose value is an integer (`1.0`,
 * `1e3`): a JSON number, but not a JSON Schema integer for this codec. */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** A number the document may not hold, kept in place so that it is reported at its pointer. */
export class Refused {
  /** A number of `text[start, end)` this package cannot hold: beyond a double's range (`digits`
   * -1) or an integer of `digits` digits past the limit. The message is made when asked for: a
   * document may hold hundreds of thousands of them, and only the first few are ever shown. */
  constructor(
    private readonly text: string,
    private readonly start: number,
    private readonly end: number,
    private readonly digits = -1,
  ) {}

  get message(): string {
    if (this.digits >= 0) return `integer of ${this.digits} digits: beyond the limit of ${INT_DIGITS_LIMIT} digits an integer may have`;
    const long = this.end - this.start > 40;
    return `number ${ownSlice(this.text, this.start, long ? this.start + 40 : this.end)}${long ? "..." : ""} is out of the range of a double`;
  }
}

export type Issue3 = [pointer: string, keyword: string, message: string];

export class JSONParseError extends Error {
  readonly issues: Issue3[];
  /** how many issues there were: `issues` lists the first `maxErrors` */
  readonly count: number;
  constructor(message: string, issues?: Issue3[], count?: number) {
    super(message);
    this.issues = issues ?? [["", "json", message]];
    this.count = count ?? this.issues.length;
  }
}

// TextDecoder and TextEncoder are everywhere (browsers, Node, Deno, Bun) but in no ES library
// typing: reached through globalThis, so that this package needs no ambient declarations.
interface Utf8Decoder {
  decode(bytes: Uint8Array): string;
}
interface Utf8Encoder {
  encode(text: string): Uint8Array;
}
const G = globalThis as unknown as { TextDecoder: new (label: string, options?: object) => Utf8Decoder; TextEncoder: new () => Utf8Encoder };
const DECODER = new G.TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const LOOSE = new G.TextDecoder("utf-8", { ignoreBOM: true });
const ENCODER = new G.TextEncoder();

/** UTF-8 bytes as text, or null when they are not UTF-8. */
export function utf8Exact(bytes: Uint8Array): string | null {
  try {
    return DECODER.decode(bytes);
  } catch {
    return null;
  }
}

/** UTF-8 bytes as text (invalid sequences replaced: for messages and sniffing only). */
export function utf8Text(bytes: Uint8Array): string {
  return LOOSE.decode(bytes);
}

/** The first UTF-8 error of some bytes, as CPython's decoder names it: [start, reason]. */
export function utf8Error(b: Uint8Array): [number, string] | null {
  const n = b.length;
  let i = 0;
  while (i < n) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c === 0xe0) lo = 0xa0;
      else if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c === 0xf0) lo = 0x90;
      else if (c === 0xf4) hi = 0x8f;
    } else return [i, "invalid start byte"];
    for (let k = 1; k <= need; k++) {
      if (i + k >= n) return [i, "unexpected end of data"];
      const d = b[i + k]!;
      if (d < (k === 1 ? lo : 0x80) || d > (k === 1 ? hi : 0xbf)) return [i, "invalid continuation byte"];
    }
    i += need + 1;
  }
  return null;
}

const STRING_RX = /"[^"\\]*(?:\\.[^"\\]*)*"/gs;
// run on "" after a regular expression ran on a document: V8 keeps the last text one ran on
// (RegExp.input), which would hold the document past the call
const FORGET_RX = /(?:)/;

export function utf8Length(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) n += c >= 0x800 && (c < 0xd800 || c > 0xdfff) ? 2 : 1;
  }
  return n;
}

/** Whether a JSON text nests deeper than MAX_DEPTH (the reference binding's test, step for
 * step, so that both refuse the same texts). `size`: its length in UTF-8 bytes. */
export function tooDeep(text: string, size: number): boolean {
  return size > 2 * MAX_DEPTH && deeper(text, opens(text));
}

/** tooDeep past its first two tests (the text's size and its count of `[` and `{`): whether,
 * strings set aside, the `[` and `{` open at some point outnumber MAX_DEPTH (a `]` or `}` closes
 * the innermost one open; with none open it closes nothing). One pass. */
function deeper(text: string, open: number): boolean {
  if (open <= MAX_DEPTH) return false;
  const brackets = text.replace(STRING_RX, "");
  FORGET_RX.test(""); // V8 keeps the last text a regular expression ran on (RegExp.input)
  let depth = 0;
  for (let i = 0, n = brackets.length; i < n; i++) {
    const c = brackets.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_DEPTH) return true;
    } else if ((c === 0x5d || c === 0x7d) && depth) depth--;
  }
  return false;
}

const SURROGATE_RX = /[\uD800-\uDFFF]/;
const LONE_RX = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_RX_G = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Strings compared by code point, as the reference binding (and Unicode) orders them: `<`
 * compares UTF-16 code units, which puts U+10000 and above before U+E000-U+FFFF. */
export function codePointOrder(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a.charCodeAt(i) !== b.charCodeAt(i)) {
      // in the second half of a pair the code point began one unit before
      const prev = i > 0 ? a.charCodeAt(i - 1) : 0;
      const at = prev >= 0xd800 && prev <= 0xdbff ? i - 1 : i;
      return a.codePointAt(at)! - b.codePointAt(at)!;
    }
  }
  return a.length - b.length;
}

/** The code point index of a UTF-16 index. */
export function codePoints(text: string, end: number = text.length): number {
  let n = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

// String.prototype.isWellFormed (ES2024: Node 20, every current browser) says in native code
// whether a string holds a lone surrogate; where it is missing, the regular expressions say it
const WELL_FORMED = (String.prototype as { isWellFormed?: () => boolean }).isWellFormed;

/** The code point index of the first lone surrogate of a string, or -1. */
export function loneSurrogate(text: string): number {
  if (WELL_FORMED !== undefined ? WELL_FORMED.call(text) : !SURROGATE_RX.test(text)) return -1;
  const m = LONE_RX.exec(text);
  FORGET_RX.test(""); // V8 keeps the last text a regular expression ran on (RegExp.input)
  return m === null ? -1 : codePoints(text, m.index);
}

/** Text that can be printed: each lone surrogate as its escape. */
export function safeText(text: string): string {
  if (!SURROGATE_RX.test(text)) return text;
  return text.replace(LONE_RX_G, (s) => "\\u" + s.charCodeAt(0).toString(16).padStart(4, "0"));
}

export function escapeToken(token: string): string {
  return token.indexOf("~") < 0 && token.indexOf("/") < 0 ? token : token.replace(/~/g, "~0").replace(/\//g, "~1");
}


// what `survey` finds in a text
const EXACT = 1; // JSON.parse would not give it as exactParse reads it: exactParse reads it
const DEEP = 2; // it may nest deeper than MAX_DEPTH, or a string in it does not end: tooDeep's
// own test decides, then exactParse reads it (such a text is not JSON unless it is too deep)

/** One pass over a text: whether JSON.parse would give a value other than exactParse's (EXACT),
 * and whether its arrays and objects may nest deeper than MAX_DEPTH (DEEP). JSON.parse differs
 * on a number with a fraction or an exponent whose value is an integer (`1.0`, `1e3`: a PyFloat)
 * or beyond a double's range, an integer past 2^53 - 1 (a bigint), `-0`, a surrogate escape, an
 * object member named by an array index (ORDER); any other number it reads as exactParse does
 * (`0.5`, `3.141592653589793`, a 16-digit integer up to 2^53 - 1: the same double). Strings are
 * skipped with a native search for their closing quote (digits in them are no number, and most
 * of a document's text is in them); the `[` and `{` outside them are counted as `deeper` counts
 * them, so that a text nesting no deeper than MAX_DEPTH here is one tooDeep passes. */
function survey(s: string): number {
  let depth = 0;
  let exact = false;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) {
      let j = s.indexOf('"', i + 1);
      for (;;) {
        if (j < 0) return DEEP;
        let k = j - 1;
        while (s.charCodeAt(k) === 0x5c) k--;
        if ((j - k) % 2 === 1) break; // an even number of backslashes before it: it closes
        j = s.indexOf('"', j + 1);
      }
      // a member name of digits alone: JavaScript would move it first (ORDER)
      if (!exact && j - i <= 11 && isDigit(s.charCodeAt(i + 1)) && indexName(s, i + 1, j)) exact = true;
      i = j;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_DEPTH) return DEEP;
    } else if (c === 0x5d || c === 0x7d) {
      if (depth) depth--;
    } else if (c <= 0x39 && (c >= 0x30 || c === 0x2d)) {
      // a number (in a JSON text, digits and `-` outside strings are numbers alone; in another
      // text what is decided here does not matter: JSON.parse refuses it, exactParse reads it)
      let j = c === 0x2d ? i + 1 : i;
      const from = j;
      let d = s.charCodeAt(j);
      while (d >= 0x30 && d <= 0x39) d = s.charCodeAt(++j);
      const whole = j - from;
      let fraction = -1;
      let nonzero = false;
      let exponent = false;
      if (d === 0x2e) {
        const f = ++j;
        d = s.charCodeAt(j);
        while (d >= 0x30 && d <= 0x39) {
          if (d !== 0x30) nonzero = true;
          d = s.charCodeAt(++j);
        }
        fraction = j - f;
      }
      if (d === 0x65 || d === 0x45) {
        exponent = true;
        d = s.charCodeAt(++j);
        if (d === 0x2b || d === 0x2d) d = s.charCodeAt(++j);
        while (d >= 0x30 && d <= 0x39) d = s.charCodeAt(++j);
      }
      if (!exact) {
        if (fraction < 0 && !exponent) {
          // an integer: exact as a double up to 2^53 - 1 (16 digits, 9007199254740991); `-0` is
          // the integer 0 (JSON.parse gives the double -0)
          if (whole >= 16 ? whole > 16 || !Number.isSafeInteger(Number(s.slice(from, j))) : whole === 1 && c === 0x2d && s.charCodeAt(from) === 0x30) exact = true;
        } else if (exponent || !nonzero || whole + fraction > 15) {
          // 15 significant digits or fewer with a digit other than 0 in the fraction cannot
          // round to an integer; any other float is asked its value
          const v = Number(s.slice(i, j));
          if (!Number.isFinite(v) || Number.isInteger(v)) exact = true;
        }
      }
      i = j - 1;
    }
  }
  if (!exact) for (let k = s.indexOf("\\u"); k >= 0; k = s.indexOf("\\u", k + 2)) if (surrogateEscape(s, k + 2)) return EXACT;
  return exact ? EXACT : 0;
}

/** Whether the four hex digits at `i` may name a surrogate (`\uD800`-`\uDFFF`: a loop, not a
 * regular expression, which would keep the text). */
function surrogateEscape(s: string, i: number): boolean {
  const d = s.charCodeAt(i);
  const x = s.charCodeAt(i + 1);
  return (d === 0x64 || d === 0x44) && ((x >= 0x38 && x <= 0x39) || (x >= 0x61 && x <= 0x66) || (x >= 0x41 && x <= 0x46));
}

/** Whether the string s[from, to) is digits alone followed (after blanks) by a colon. */
function indexName(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isDigit(s.charCodeAt(i))) return false;
  let i = to + 1;
  while (i < s.length && (s.charCodeAt(i) === 0x20 || s.charCodeAt(i) === 0x09 || s.charCodeAt(i) === 0x0a || s.charCodeAt(i) === 0x0d)) i++;
  return s.charCodeAt(i) === 0x3a;
}

/** How many `[` and `{` a text holds, strings included (what tooDeep counts first). */
function opens(s: string): number {
  let open = 0;
  for (let i = 0, n = s.length; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) open++;
  }
  return open;
}

// V8 makes a substring of 13 characters or more (SlicedString::kMinLength) a view into the text it
// was cut from, which keeps that whole text alive for as long as the substring lives: one value
// of 46 characters kept from an 18 MB document read exactly kept all 18 MB. JSON.parse copies its
// strings; the exact reader's strings are copies too (`ownSlice`), member names apart (`str`).
const VIEW = 13;

/** s.slice(from, to) as a string of its own (see VIEW): two pieces joined (a rope) and
 * flattened. What a caller keeps of a string that may be long (a value cut for a message) is cut
 * by it too. */
export function ownSlice(s: string, from: number, to: number): string {
  return to - from < VIEW ? s.slice(from, to) : flat(s[from]! + s.slice(from + 1, to));
}

/** A string of its own with the characters of a string that may be a view. */
function cutAll(s: string): string {
  return ownSlice(s, 0, s.length);
}

/** A rope (strings joined, of VIEW characters or more) flattened: reading a character of it
 * copies its pieces into one new string, so that it holds nothing else. A rope shorter than VIEW
 * is a new string already. (Optimized code keeps the read: a runtime call that flattens.) */
function flat(rope: string): string {
  if (rope.length >= VIEW && rope.charCodeAt(0) < 0) throw new RangeError("unreachable");
  return rope;
}

let lastExact = false;
// the last document parseText read exactly when asked to keep it, and where the PyFloats in it
// are (holder, key, flat)
let lastRead: unknown = undefined;
let lastFloats: unknown[] | null = null;

/** A document `parseJson` just returned, read exactly (`wasExact`), with each integer-valued
 * float in it a plain number again: changed in place, where the reader put them (the caller has
 * the document alone); any other value is copied where it changes (`plain`). */
export function plainDocument(value: unknown): unknown {
  if (value instanceof PyFloat) return value.value;
  if (value !== lastRead) return plain(value);
  const floats = lastFloats;
  lastRead = lastFloats = null;
  if (floats !== null) {
    for (let k = 0; k < floats.length; k += 2) {
      const holder = floats[k] as Record<string | number, unknown>;
      const key = floats[k + 1] as string | number;
      const v = holder[key];
      // a member given twice keeps its last value: the one recorded first may be gone
      if (v instanceof PyFloat) holder[key] = v.value;
    }
  }
  return value;
}

/** Lets go of the last document read exactly (`plainDocument` not asked for it: a decode that
 * refused it, or copied it): the module holds no document past the call that read it. */
export function releaseDocument(): void {
  lastRead = lastFloats = null;
}

/** Whether the last document `parseJson` returned was read by `exactParse` (so may hold
 * `PyFloat` and `bigint` values). */
export function wasExact(): boolean {
  return lastExact;
}

/** The document, or JSONParseError saying where and why (see the module comment), listing the
 * first `maxErrors` lone surrogates and refused numbers. `keep`: a document read exactly is kept
 * until `plainDocument` or `releaseDocument` is asked for it (a strict decode's), else nothing is
 * kept past the call. */
export function parseJson(data: Uint8Array | string, maxErrors: number | null = MAX_ERRORS, keep = false): unknown {
  let text: string;
  let size: number;
  if (typeof data === "string") {
    const at = loneSurrogate(data);
    if (at >= 0) throw new JSONParseError(`character ${at} is a lone surrogate, which is not Unicode text`);
    if (data.charCodeAt(0) === 0xfeff) throw bomError();
    text = data;
    size = -1;
  } else {
    if (data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) throw bomError();
    try {
      text = DECODER.decode(data);
    } catch {
      const [start, reason] = utf8Error(data) ?? [0, "invalid data"];
      throw new JSONParseError(`not UTF-8 at byte ${start}: ${reason} (JSON text is UTF-8, RFC 8259 section 8.1)`);
    }
    size = data.length;
  }
  return parseText(text, size, maxErrors, keep);
}

/** A text known to be Unicode (decoded from UTF-8: no lone surrogate, no byte order mark
 * checked here) of `size` UTF-8 bytes (-1: not known yet; counted only when it matters). */
export function parseText(text: string, size = -1, maxErrors: number | null = MAX_ERRORS, keep = false): unknown {
  lastRead = lastFloats = null;
  const found = survey(text);
  if (found === DEEP) {
    // a text of MAX_DEPTH characters or fewer cannot open more; the size decides only where the
    // text opens more arrays and objects than the limit
    const open = text.length > MAX_DEPTH ? opens(text) : 0;
    if (open > MAX_DEPTH && (size < 0 ? utf8Length(text) : size) > 2 * MAX_DEPTH && deeper(text, open)) {
      const message = `nested deeper than ${MAX_DEPTH} arrays and objects`;
      throw new JSONParseError(message, [["", "depth", message]]);
    }
  } else if (found === 0) {
    try {
      lastExact = false;
      return JSON.parse(text);
    } catch {
      // the exact reader says where and why
    }
  }
  // JSON's whitespace (RFC 8259 section 2) and nothing else: no value, said as such
  // (a loop, not a regular expression: V8 keeps the last text a regular expression was run on)
  if (onlyWhitespace(text)) throw new JSONParseError(text ? "a document of whitespace only: no JSON value" : "an empty document: no JSON value");
  lastExact = true;
  let doc: ReturnType<typeof exactParse>;
  try {
    doc = exactParse(text);
  } finally {
    // V8 keeps the last text a regular expression matched (RegExp.input): the reader asks
    // INDEX_RX of member names of digits, views into this text, which would stay held
    FORGET_RX.test("");
  }
  if (keep) {
    lastRead = doc.value;
    lastFloats = doc.floats;
  }
  if (doc.unreadable) {
    const [issues, count] = firstUnreadable(doc.value, maxErrors);
    if (count) {
      lastRead = lastFloats = null;
      throw new JSONParseError(issues.length ? issues[0]![2] : "numbers or strings this package cannot hold", issues, count);
    }
  }
  return doc.value;
}


function onlyWhitespace(text: string): boolean {
  for (let i = 0, n = text.length; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
  }
  return true;
}

function bomError(): JSONParseError {
  return new JSONParseError("a byte order mark opens the document: JSON text is UTF-8 without one (RFC 8259 section 8.1)");
}

/** (pointer, keyword, message) of every lone surrogate and refused number, in pointer order. */
export function unreadable(document: unknown): Issue3[] {
  return firstUnreadable(document, null)[0];
}

/** The first `most` (null: all) of `unreadable`'s issues, and how many there are, in memory
 * bounded by `most`: the items are sorted and cut each time twice `most` have gathered. */
export function firstUnreadable(document: unknown, most: number | null): [Issue3[], number] {
  let kept: [Issue3, number][] = [];
  let count = 0;
  const order = (a: [Issue3, number], b: [Issue3, number]): number => codePointOrder(a[0][0], b[0][0]) || a[1] - b[1];
  const found = {
    push(issue: Issue3): void {
      kept.push([issue, count++]);
      if (most !== null && kept.length >= 2 * most + 64) kept = kept.sort(order).slice(0, most);
    },
  };
  // an array is one entry whose items are taken one at a time, last first (the order popping
  // them all would give), not every item and its pointer at once
  const stack: ([unknown, string] | [unknown[], string, number])[] = [[document, ""]];
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    if (top.length === 3) {
      const at = top[2];
      if (at === 0) stack.pop();
      else top[2] = at - 1;
      stack.push([top[0][at], `${top[1]}/${at}`]);
      continue;
    }
    stack.pop();
    const [node, ptr] = top;
    if (typeof node === "string") {
      const at = loneSurrogate(node);
      if (at >= 0) found.push([ptr, "json", `a lone surrogate \\u${surrogateAt(node, at)} at character ${at}: not Unicode text (RFC 7493)`]);
    } else if (node instanceof Refused) {
      found.push([ptr, "json", node.message]);
    } else if (Array.isArray(node)) {
      if (node.length) stack.push([node, ptr, node.length - 1]);
    } else if (node !== null && typeof node === "object" && !(node instanceof PyFloat)) {
      for (const key of keysOf(node)) {
        const sub = `${ptr}/${escapeToken(safeText(key))}`;
        const at = loneSurrogate(key);
        if (at >= 0) found.push([sub, "json", `a lone surrogate \\u${surrogateAt(key, at)} in a member name: not Unicode text (RFC 7493)`]);
        stack.push([(node as Record<string, unknown>)[key], sub]);
      }
    }
  }
  kept.sort(order);
  if (most !== null) kept = kept.slice(0, most);
  return [kept.map((p) => p[0]), count];
}

function surrogateAt(text: string, cp: number): string {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (n === cp) return c.toString(16).padStart(4, "0");
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return "????";
}

class ScanError {
  constructor(readonly message: string, readonly pos: number, readonly plain = false) {}
}

/** A JSON text read the way CPython's `json` module reads it: the same values (integers apart
 * from integer-valued floats, exact big integers) and, for a text that is not JSON, the same
 * error at the same place. */
export function exactParse(text: string): { value: unknown; unreadable: boolean; floats: unknown[] | null } {
  const reader = new ExactReader(text);
  try {
    const value = reader.document();
    return { value, unreadable: reader.flagged, floats: reader.floats };
  } catch (e) {
    throw scanFailure(e, text);
  }
}

/** exactParse's reader: one position (`at`) moved along the text, each value returned as it is
 * read (no pair of value and position made per value: most documents it reads are small). */
class ExactReader {
  at = 0;
  /** whether a lone surrogate escape or a number this package cannot hold was read */
  flagged = false;
  /** where a PyFloat was put: holder and key (an index or a member name), flat */
  floats: unknown[] | null = null;
  private readonly n: number;

  constructor(private readonly s: string) {
    this.n = s.length;
  }

  document(): unknown {
    this.ws();
    const v = this.value(1);
    this.ws();
    if (this.at !== this.n) throw new ScanError("Extra data", this.at);
    return v;
  }

  private ws(): void {
    const s = this.s;
    let i = this.at;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
    this.at = i;
  }

  /** The string whose opening quote is just before `at`, a string of its own (`ownSlice`). */
  private str(): string {
    const begin = this.at;
    const j = plainEnd(this.s, begin, this.n);
    if (j < 0) return this.escaped(begin, true);
    this.at = j + 1;
    return ownSlice(this.s, begin, j);
  }

  /** The member name whose opening quote is just before `at`: a view into the text, which the
   * object does not keep (it holds V8's own copy of each member name). */
  private name(): string {
    const begin = this.at;
    const j = plainEnd(this.s, begin, this.n);
    if (j < 0) return this.escaped(begin, false);
    this.at = j + 1;
    return this.s.slice(begin, j);
  }

  /** An escape, a control character or no closing quote: the scanner's own reading. */
  private escaped(begin: number, own: boolean): string {
    const [out, end, lone] = readString(this.s, begin, own);
    if (lone) this.flagged = true;
    this.at = end;
    return out;
  }

  private value(depth: number): unknown {
    const s = this.s;
    const n = this.n;
    const i = this.at;
    if (i >= n) throw new ScanError("Expecting value", i);
    const c = s.charCodeAt(i);
    if (c === 0x22) {
      this.at = i + 1;
      return this.str();
    }
    if (c === 0x7b) {
      if (depth > 4 * MAX_DEPTH) throw new ScanError("JSON nested too deeply", i, true);
      const obj: Record<string, unknown> = {};
      this.at = i + 1;
      this.ws();
      if (s.charCodeAt(this.at) === 0x7d) {
        this.at++;
        return obj;
      }
      let order: string[] | null = null; // the names in document order, once one is an index
      for (;;) {
        if (s.charCodeAt(this.at) !== 0x22) throw new ScanError("Expecting property name enclosed in double quotes", this.at);
        this.at++;
        const key = this.name();
        this.ws();
        if (s.charCodeAt(this.at) !== 0x3a) throw new ScanError("Expecting ':' delimiter", this.at);
        this.at++;
        this.ws();
        const v = this.value(depth + 1);
        if (v instanceof PyFloat) (this.floats ??= []).push(obj, key);
        if (order === null && isDigit(key.charCodeAt(0)) && INDEX_RX.test(key)) order = Object.keys(obj);
        if (order !== null && !Object.prototype.hasOwnProperty.call(obj, key)) order.push(cutAll(key));
        if (key === "__proto__") setMember(obj, key, v);
        else obj[key] = v;
        this.ws();
        const d = s.charCodeAt(this.at);
        if (d === 0x7d) {
          this.at++;
          if (order !== null) (obj as { [ORDER]?: string[] })[ORDER] = order;
          return obj;
        }
        if (d !== 0x2c) throw new ScanError("Expecting ',' delimiter", this.at);
        this.at++;
        this.ws();
      }
    }
    if (c === 0x5b) {
      if (depth > 4 * MAX_DEPTH) throw new ScanError("JSON nested too deeply", i, true);
      const arr: unknown[] = [];
      this.at = i + 1;
      this.ws();
      if (s.charCodeAt(this.at) === 0x5d) {
        this.at++;
        return arr;
      }
      for (;;) {
        const v = this.value(depth + 1);
        if (v instanceof PyFloat) (this.floats ??= []).push(arr, arr.length);
        arr.push(v);
        this.ws();
        const d = s.charCodeAt(this.at);
        if (d === 0x5d) {
          this.at++;
          return arr;
        }
        if (d !== 0x2c) throw new ScanError("Expecting ',' delimiter", this.at);
        this.at++;
        this.ws();
      }
    }
    if (c === 0x6e && s.startsWith("null", i)) {
      this.at = i + 4;
      return null;
    }
    if (c === 0x74 && s.startsWith("true", i)) {
      this.at = i + 4;
      return true;
    }
    if (c === 0x66 && s.startsWith("false", i)) {
      this.at = i + 5;
      return false;
    }
    if (c === 0x4e && s.startsWith("NaN", i)) throw new ScanError("NaN is not JSON", i, true);
    if (c === 0x49 && s.startsWith("Infinity", i)) throw new ScanError("Infinity is not JSON", i, true);
    if (c === 0x2d && s.startsWith("-Infinity", i)) throw new ScanError("-Infinity is not JSON", i, true);
    return this.num(i);
  }

  /** The number at `start`: an integer of fewer than 16 digits is summed as it is read; any
   * other is made from its text. */
  private num(start: number): unknown {
    const s = this.s;
    const n = this.n;
    let i = start;
    const negative = s.charCodeAt(i) === 0x2d;
    if (negative) i++;
    let c = s.charCodeAt(i);
    let whole = 0;
    if (c >= 0x31 && c <= 0x39) {
      whole = c - 0x30;
      c = s.charCodeAt(++i);
      while (c >= 0x30 && c <= 0x39) {
        whole = whole * 10 + (c - 0x30);
        c = s.charCodeAt(++i);
      }
    } else if (c === 0x30) c = s.charCodeAt(++i);
    else throw new ScanError("Expecting value", start);
    const digitsEnd = i;
    let isFloat = false;
    // a fraction needs a digit after its point, an exponent a digit after its sign
    if (c === 0x2e && isDigit(s.charCodeAt(i + 1))) {
      isFloat = true;
      i += 2;
      while (isDigit(s.charCodeAt(i))) i++;
      c = s.charCodeAt(i);
    }
    if ((c === 0x65 || c === 0x45) && i + 1 < n) {
      let j = i + 1;
      const sign = s.charCodeAt(j);
      if ((sign === 0x2d || sign === 0x2b) && j + 1 < n) j++;
      const from = j;
      while (isDigit(s.charCodeAt(j))) j++;
      if (j > from) {
        isFloat = true;
        i = j;
      }
    }
    this.at = i;
    if (isFloat) {
      const v = Number(s.slice(start, i));
      if (!Number.isFinite(v)) {
        this.flagged = true;
        return new Refused(s, start, i);
      }
      return Number.isInteger(v) ? new PyFloat(v) : v;
    }
    const digits = digitsEnd - start - (negative ? 1 : 0);
    if (digits < 16) return negative && whole !== 0 ? -whole : whole;
    if (digits > INT_DIGITS_LIMIT) {
      this.flagged = true;
      return new Refused(s, start, i, digits);
    }
    const big = BigInt(s.slice(start, i));
    return big >= -9007199254740991n && big <= 9007199254740991n ? Number(big) : big;
  }
}

/** Where the string whose opening quote is just before `begin` closes when it holds no escape
 * and no control character, else -1. */
function plainEnd(s: string, begin: number, n: number): number {
  for (let j = begin; j < n; j++) {
    const c = s.charCodeAt(j);
    if (c === 0x22) return j;
    if (c === 0x5c || c <= 0x1f) return -1;
  }
  return -1;
}

/** The string whose opening quote is just before `begin`, read as CPython's scanner reads it:
 * [its value, the index after its closing quote, whether it holds a lone surrogate escape]. The
 * value is a string of its own (`ownSlice`) unless `own` is false (a value only looked at). */
function readString(s: string, begin: number, own = true): [string, number, boolean] {
  const n = s.length;
  let out = "";
  let end = begin;
  let lone = false;
  let escaped = false;
  for (;;) {
    let next = end;
    let c = 0;
    for (; next < n; next++) {
      c = s.charCodeAt(next);
      if (c === 0x22 || c === 0x5c) break;
      if (c <= 0x1f) throw new ScanError("Invalid control character at", next);
    }
    if (next >= n) throw new ScanError("Unterminated string starting at", begin - 1);
    if (next !== end) out += s.slice(end, next);
    next++;
    // pieces joined are a rope of views into the text: copied into one string of its own
    if (c === 0x22) return [!own ? out : escaped ? flat(out) : ownSlice(s, begin, next - 1), next, lone];
    if (next === n) throw new ScanError("Unterminated string starting at", begin - 1);
    escaped = true;
    const e = s.charCodeAt(next);
    if (e !== 0x75) {
      end = next + 1;
      const m = ESCAPES[e];
      if (m === undefined) throw new ScanError("Invalid \\escape", end - 2);
      out += m;
      continue;
    }
    next++;
    end = next + 4;
    if (end >= n) throw new ScanError("Invalid \\uXXXX escape", next - 1);
    const u = hex4(s, next);
    if (u < 0) throw new ScanError("Invalid \\uXXXX escape", end - 5);
    if (u >= 0xd800 && u <= 0xdbff && end + 6 < n && s.charCodeAt(end) === 0x5c && s.charCodeAt(end + 1) === 0x75) {
      const u2 = hex4(s, end + 2);
      if (u2 < 0) throw new ScanError("Invalid \\uXXXX escape", end + 1);
      if (u2 >= 0xdc00 && u2 <= 0xdfff) {
        out += String.fromCharCode(u, u2);
        end += 6;
        continue;
      }
    }
    if (u >= 0xd800 && u <= 0xdfff) lone = true;
    out += String.fromCharCode(u);
  }
}

/** A JSON text's top level (the Python binding's `jsonscan`, step for step): `kind` is
 * "array", "object" or "value"; `spans` the [start, end) of each item of an array, `members`
 * the [name, start, end) of each member of an object, in document order. No recursion, so no
 * nesting stops it; it refuses what CPython's `json` refuses, with the same message, line and
 * column. */
export interface Scanned {
  text: string;
  kind: "array" | "object" | "value";
  spans: [number, number][];
  members: [string, number, number][];
}

/** `scanText` of bytes: not UTF-8, or a byte order mark, refused as the codec refuses them. */
export function scanItems(data: Uint8Array): Scanned {
  if (data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) throw bomError();
  const text = utf8Exact(data);
  if (text === null) {
    const [start, reason] = utf8Error(data) ?? [0, "invalid data"];
    throw new JSONParseError(`not UTF-8 at byte ${start}: ${reason} (JSON text is UTF-8, RFC 8259 section 8.1)`);
  }
  return scanText(text);
}

/** Where the number at `i` ends (the longest text that reads as one, RFC 8259 section 6), or
 * ScanError. A loop, not a regular expression: V8 keeps the last text one ran on. */
function numberEnd(s: string, at: number): number {
  let i = s.charCodeAt(at) === 0x2d ? at + 1 : at;
  const c = s.charCodeAt(i);
  if (c === 0x30) i++;
  else if (c >= 0x31 && c <= 0x39) i = digitsEnd(s, i + 1);
  else throw new ScanError("Expecting value", at);
  if (s.charCodeAt(i) === 0x2e && isDigit(s.charCodeAt(i + 1))) i = digitsEnd(s, i + 2);
  const e = s.charCodeAt(i);
  if (e === 0x65 || e === 0x45) {
    const sign = s.charCodeAt(i + 1);
    const from = sign === 0x2b || sign === 0x2d ? i + 2 : i + 1;
    if (isDigit(s.charCodeAt(from))) i = digitsEnd(s, from + 1);
  }
  return i;
}

function digitsEnd(s: string, i: number): number {
  while (isDigit(s.charCodeAt(i))) i++;
  return i;
}

export function scanText(s: string): Scanned {
  const n = s.length;
  const ws = (i: number): number => {
    while (i < n) {
      const c = s.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
    return i;
  };
  const memberName = (i: number): [string, number] => {
    if (i >= n || s.charCodeAt(i) !== 0x22) throw new ScanError("Expecting property name enclosed in double quotes", i);
    const [name, after] = readString(s, i + 1, false);
    i = ws(after);
    if (i >= n || s.charCodeAt(i) !== 0x3a) throw new ScanError("Expecting ':' delimiter", i);
    return [name, ws(i + 1)];
  };
  let pos = ws(0);
  const first = pos < n ? s[pos] : "";
  const kind = first === "[" ? "array" : first === "{" ? "object" : "value";
  const spans: [number, number][] = [];
  const members: [string, number, number][] = [];
  const open: boolean[] = []; // the containers open around pos: true an object, false an array
  let key = "";
  let start = pos;
  try {
    for (;;) {
      // a value begins at pos
      if (open.length === 1) start = pos;
      if (pos >= n) throw new ScanError("Expecting value", pos);
      const c = s[pos]!;
      if (c === '"') pos = readString(s, pos + 1, false)[1];
      else if (c === "{" || c === "[") {
        pos = ws(pos + 1);
        if (pos < n && s[pos] === (c === "{" ? "}" : "]")) pos++;
        else {
          open.push(c === "{");
          if (c === "[") continue;
          const [name, at] = memberName(pos);
          pos = at;
          if (open.length === 1) key = name;
          continue;
        }
      } else if (c === "n" && s.startsWith("null", pos)) pos += 4;
      else if (c === "t" && s.startsWith("true", pos)) pos += 4;
      else if (c === "f" && s.startsWith("false", pos)) pos += 5;
      else {
        for (const constant of ["NaN", "Infinity", "-Infinity"]) if (s.startsWith(constant, pos)) throw new ScanError(`${constant} is not JSON`, pos, true);
        pos = numberEnd(s, pos);
      }
      // a value ended at pos: close what it closes, then a delimiter and the next value
      for (;;) {
        if (open.length === 1) {
          if (open[0]) members.push([key, start, pos]);
          else spans.push([start, pos]);
        }
        if (!open.length) {
          const end = ws(pos);
          if (end !== n) throw new ScanError("Extra data", end);
          return { text: s, kind, spans, members };
        }
        pos = ws(pos);
        const isObject = open[open.length - 1]!;
        if (pos < n && s[pos] === (isObject ? "}" : "]")) {
          pos++;
          open.pop();
          continue;
        }
        if (pos >= n || s.charCodeAt(pos) !== 0x2c) throw new ScanError("Expecting ',' delimiter", pos);
        pos = ws(pos + 1);
        if (isObject) {
          const [name, at] = memberName(pos);
          pos = at;
          if (open.length === 1) key = name;
        }
        break;
      }
    }
  } catch (e) {
    throw scanFailure(e, s);
  }
}

/** Whether a text is a JSON integer and nothing else. */
function integerText(t: string): boolean {
  const at = t.charCodeAt(0) === 0x2d ? 1 : 0;
  return t.charCodeAt(at) === 0x30 ? t.length === at + 1 : t.charCodeAt(at) >= 0x31 && t.charCodeAt(at) <= 0x39 && digitsEnd(t, at + 1) === t.length;
}

/** The string or integer at a dotted path of members (`a.b`: member b of member a) of a JSON
 * text, read by the grammar alone, or undefined (not UTF-8, not JSON, no such member, another
 * kind of value; an integer of more than INT_DIGITS_LIMIT digits). Of a name given twice, the
 * last, as parsing keeps. The reference binding's `jsonscan.member_scalar`: what an event that
 * does not decode still says about itself. An integer is a number when it is safe, else a
 * bigint. */
export function memberScalar(data: Uint8Array | string, dotted: string): string | number | bigint | undefined {
  let text: string;
  try {
    let shape = typeof data === "string" ? scanText(data) : scanItems(data);
    const path = dotted.split(".");
    const last = path.pop()!;
    for (const part of path) {
      const found = memberText(shape, part);
      if (found === undefined) return undefined;
      shape = scanText(found);
    }
    const found = memberText(shape, last);
    if (found === undefined) return undefined;
    text = found;
  } catch (e) {
    if (e instanceof JSONParseError) return undefined;
    throw e;
  }
  if (text[0] === '"') return readString(text, 1)[0];
  if (!integerText(text) || text.length - (text[0] === "-" ? 1 : 0) > INT_DIGITS_LIMIT) return undefined;
  const big = BigInt(text);
  return big >= -9007199254740991n && big <= 9007199254740991n ? Number(big) : big;
}

function memberText(shape: Scanned, name: string): string | undefined {
  if (shape.kind !== "object") return undefined;
  let found: [string, number, number] | undefined;
  for (const m of shape.members) if (m[0] === name) found = m;
  return found === undefined ? undefined : shape.text.slice(found[1], found[2]);
}

/** A ScanError as the JSONParseError CPython's message makes of it (line and column in code
 * points); anything else as it is. */
function scanFailure(e: unknown, s: string): unknown {
  if (!(e instanceof ScanError)) return e;
  if (e.plain) return new JSONParseError(e.message, e.message.includes("deeply") ? [["", "depth", e.message]] : undefined);
  const line = countLines(s, e.pos);
  const col = codePoints(s, e.pos) - (line.lastNewline < 0 ? 0 : codePoints(s, line.lastNewline + 1)) + 1;
  return new JSONParseError(`invalid JSON at line ${line.count} column ${col}: ${e.message}`);
}

/** Set a member of an object built from a document: `__proto__` defined as an own member, not
 * assigned (which would set the prototype), as JSON.parse does. */
export function setMember(obj: Record<string, unknown>, key: string, v: unknown): void {
  if (key === "__proto__") Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
  else obj[key] = v;
}

function countLines(s: string, pos: number): { count: number; lastNewline: number } {
  let count = 1;
  let last = -1;
  for (let i = 0; i < pos && i < s.length; i++) {
    if (s.charCodeAt(i) === 0x0a) {
      count++;
      last = i;
    }
  }
  return { count, lastNewline: last };
}

const ESCAPES: Record<number, string> = { 0x22: '"', 0x5c: "\\", 0x2f: "/", 0x62: "\b", 0x66: "\f", 0x6e: "\n", 0x72: "\r", 0x74: "\t" };

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function hex4(s: string, at: number): number {
  let v = 0;
  for (let k = 0; k < 4; k++) {
    const c = s.charCodeAt(at + k);
    let d: number;
    if (c >= 0x30 && c <= 0x39) d = c - 0x30;
    else if (c >= 0x61 && c <= 0x66) d = c - 0x57;
    else if (c >= 0x41 && c <= 0x46) d = c - 0x37;
    else return -1;
    v = v * 16 + d;
  }
  return v;
}

/** The JSON type of a value as JSON Schema names it (a float whose value is an integer is
 * "integer", as the reference binding says in its messages). */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return "boolean";
    case "number":
      return Number.isInteger(value) ? "integer" : "number";
    case "bigint":
      return "integer";
    case "string":
      return "string";
    case "object":
      if (value instanceof PyFloat) return "integer";
      return Array.isArray(value) ? "array" : "object";
    default:
      return typeof value;
  }
}

/** Whether a value is an integer as this codec counts them (not `1.0`). */
export function isInt(value: unknown): boolean {
  return (typeof value === "number" && Number.isInteger(value)) || typeof value === "bigint";
}

export function isNumber(value: unknown): boolean {
  return typeof value === "number" || typeof value === "bigint" || value instanceof PyFloat;
}

export function numeric(value: unknown): number {
  return value instanceof PyFloat ? value.value : Number(value as number);
}

/** JSON equality: numbers by value (a boolean is never a number), objects by members. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (isNumber(a) && isNumber(b)) {
    if (typeof a === "bigint" || typeof b === "bigint") {
      // exact, as Python compares an int with a float; a fraction equals no integer
      const x = typeof a === "bigint" ? a : numeric(a);
      const y = typeof b === "bigint" ? b : numeric(b);
      if ((typeof x === "number" && !Number.isInteger(x)) || (typeof y === "number" && !Number.isInteger(y))) return false;
      return BigInt(x) === BigInt(y);
    }
    return numeric(a) === numeric(b);
  }
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object" && !Array.isArray(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    const rb = b as Record<string, unknown>;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(rb, k) && jsonEqual((a as Record<string, unknown>)[k], rb[k]));
  }
  return a === b;
}

/** A float as Python's repr writes it (`1e+16`, `1e-05`, `1.0`). */
export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mant, expText] = x.toExponential().split("e") as [string, string];
  const exp = Number(expText);
  const neg = mant.startsWith("-");
  const digits = mant.replace("-", "").replace(".", "");
  let out: string;
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    out = `${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  } else if (exp < 0) {
    out = `0.${"0".repeat(-exp - 1)}${digits}`;
  } else if (digits.length <= exp + 1) {
    out = `${digits}${"0".repeat(exp + 1 - digits.length)}.0`;
  } else {
    out = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  }
  return neg ? "-" + out : out;
}

/** A number as the reference binding shows it in messages. */
export function showNumber(value: unknown): string {
  if (typeof value === "bigint") {
    const text = value.toString();
    const digits = text.length - (value < 0n ? 1 : 0);
    return digits > DIGITS_SHOWN ? `an integer of ${digits} digits` : text;
  }
  if (value instanceof PyFloat) return floatRepr(value.value);
  if (typeof value === "number") return Number.isInteger(value) && Math.abs(value) < 1e16 ? String(value) : Number.isInteger(value) ? BigInt(value).toString() : floatRepr(value);
  return String(value);
}

const DUMP_ESCAPES: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };

function dumpString(s: string): string {
  // eslint-disable-next-line no-control-regex
  return '"' + s.replace(/["\\\u0000-\u001f]/g, (c) => DUMP_ESCAPES[c] ?? "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0")) + '"';
}

/** A value as Python's `json.dumps(value, ensure_ascii=False)` writes it (", " and ": "). */
export function pyDumps(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "string") return dumpString(value);
  if (typeof value === "number") return Number.isInteger(value) ? showNumber(value) : floatRepr(value);
  if (typeof value === "bigint") return value.toString();
  if (value instanceof PyFloat) return floatRepr(value.value);
  if (value instanceof Refused) return "null";
  if (Array.isArray(value)) return "[" + value.map(pyDumps).join(", ") + "]";
  const obj = value as Record<string, unknown>;
  return "{" + keysOf(obj).map((k) => `${dumpString(k)}: ${pyDumps(obj[k])}`).join(", ") + "}";
}

/** A value as Python's `str()` shows it (None, True, 1.0, ['a'], {'a': 1}). */
export function pyStr(value: unknown): string {
  if (typeof value === "string") return value;
  return pyRepr(value);
}

/** The code points written as escapes in messages, as inclusive ranges: the reference binding's
 * `shown.ESCAPED`, the same table (a rule of its own, not the Unicode tables of the runtime, which
 * differ between versions): controls, separators but the space, the format characters of Unicode
 * 14, surrogates, private use, noncharacters. */
export const ESCAPED: readonly (readonly [number, number])[] = [
  [0x0000, 0x001f], [0x007f, 0x00a0], [0x00ad, 0x00ad],
  [0x0600, 0x0605], [0x061c, 0x061c], [0x06dd, 0x06dd], [0x070f, 0x070f],
  [0x0890, 0x0891], [0x08e2, 0x08e2], [0x1680, 0x1680], [0x180e, 0x180e],
  [0x2000, 0x200f], [0x2028, 0x202f], [0x205f, 0x2064], [0x2066, 0x206f], [0x3000, 0x3000],
  [0xd800, 0xdfff], [0xe000, 0xf8ff], [0xfdd0, 0xfdef], [0xfeff, 0xfeff], [0xfff9, 0xfffb],
  [0xfffe, 0xffff], [0x110bd, 0x110bd], [0x110cd, 0x110cd], [0x13430, 0x13438],
  [0x1bca0, 0x1bca3], [0x1d173, 0x1d17a], [0xe0001, 0xe0001], [0xe0020, 0xe007f],
  [0xf0000, 0x10ffff],
  ...Array.from({ length: 14 }, (_, i) => [(i + 1) * 0x10000 + 0xfffe, (i + 1) * 0x10000 + 0xffff] as const),
];

/** The most digits an integer is written with in a message (beyond: `an integer of N digits`). */
export const DIGITS_SHOWN = 900;

function escaped(c: number): boolean {
  for (const [a, b] of ESCAPED) if (c >= a && c <= b) return true;
  return false;
}

export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "string") {
    const q = value.includes("'") && !value.includes('"') ? '"' : "'";
    let out = q;
    for (const ch of value) {
      const c = ch.codePointAt(0)!;
      if (ch === q || ch === "\\") out += "\\" + ch;
      else if (ch === "\n") out += "\\n";
      else if (ch === "\r") out += "\\r";
      else if (ch === "\t") out += "\\t";
      else if (c >= 0x7f ? escaped(c) : c < 0x20) {
        out += c < 0x100 ? "\\x" + c.toString(16).padStart(2, "0") : c < 0x10000 ? "\\u" + c.toString(16).padStart(4, "0") : "\\U" + c.toString(16).padStart(8, "0");
      } else out += ch;
    }
    return out + q;
  }
  if (typeof value === "number" || typeof value === "bigint" || value instanceof PyFloat) return showNumber(value);
  if (Array.isArray(value)) return "[" + value.map(pyRepr).join(", ") + "]";
  const obj = value as Record<string, unknown>;
  return "{" + keysOf(obj).map((k) => `${pyRepr(k)}: ${pyRepr(obj[k])}`).join(", ") + "}";
}

/** Compact JSON of a decoded value (PyFloat written with its fraction, big integers exact). */
export function dumps(value: unknown): string {
  try {
    return JSON.stringify(value, plainNumbers);
  } catch {
    return exactDumps(value);
  }
}

function plainNumbers(_key: string, v: unknown): unknown {
  if (typeof v === "bigint") throw new TypeError("bigint");
  if (v instanceof PyFloat) throw new TypeError("float");
  if (v !== null && typeof v === "object" && ORDER in v) throw new TypeError("order");
  return v;
}

function exactDumps(value: unknown): string {
  if (typeof value === "bigint") return value.toString();
  if (value instanceof PyFloat) return floatRepr(value.value);
  if (Array.isArray(value)) return "[" + value.map((v) => (v === undefined ? "null" : exactDumps(v))).join(",") + "]";
  if (value !== null && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    const parts: string[] = [];
    for (const k of keysOf(obj)) if (obj[k] !== undefined) parts.push(JSON.stringify(k) + ":" + exactDumps(obj[k]));
    return "{" + parts.join(",") + "}";
  }
  return JSON.stringify(value);
}

export function utf8(text: string): Uint8Array {
  return ENCODER.encode(text);
}

/** A value with every integer-valued float made a plain number again (what callers get). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function plain(value: any): any {
  if (value instanceof PyFloat) return value.value;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v = plain(value[i]);
      if (v !== value[i]) (out ??= value.slice())[i] = v;
    }
    return out ?? value;
  }
  if (value !== null && typeof value === "object") {
    let out: Record<string, unknown> | null = null;
    for (const k of Object.keys(value)) {
      const v = plain(value[k]);
      if (v !== value[k]) setMember((out ??= { ...value }), k, v);
    }
    return out ?? value;
  }
  return value;
}
