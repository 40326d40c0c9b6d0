/**
 * The typed read: a document read from its text straight into its value while the validation
 * table's checks are made on each part as it is read (issue 23, item 2), in place of
 * `JSON.parse`, the exactness pass (`survey` in json.ts) and the compiled check's walk of the whole
 * value. Each definition's reader is compiled once from the table into closures, as `accepts` is:
 * an object's members are read by their field's reader (closed objects refuse an undeclared
 * member, required fields are counted as they come), a tagged union by its member's reader (the
 * tag looked up first), a union told apart by JSON type by the reader of the member the next
 * character names, strings, numbers, enums, consts, bounds, lengths and patterns checked on the
 * value just read. What the table leaves to the general validator (a `schema` node: the residue)
 * is read as plain JSON and checked by its compiled function (`RESIDUE` of accept.ts, by the
 * node's schema location); a definition meeting one without such a function has no typed read.
 *
 * The read is sound, never complete: it gives up (`FAIL`) on anything the table refuses and on
 * everything the exact reader keeps apart from `JSON.parse` (a number whose value is an integer
 * written with a fraction or an exponent, an integer past 2^53 - 1, `-0`, a number beyond a
 * double, a surrogate escape, a member named by an array index or `__proto__`), on a control
 * character, on nesting near MAX_DEPTH and on anything that is not JSON. The codec then reads the
 * document as before (`parseJson`, the whole compiled check, the explaining pass): verdicts,
 * values, pointers and messages are that path's. A value it gives is the one `JSON.parse` gives
 * (members in document order; a member given twice holds its last value), and holds nothing of
 * the text (strings of 13 characters or more are copies: `ownSlice`).
 */

import { MAX_DEPTH, ORDER, PyFloat, ownSlice } from "./json.js";
import { DEFINITIONS, INTEGERS, TYPED_OBJECTS, TYPED_SCHEMAS } from "./schema_table.js";
import { greaterThan, length, lessThan, pattern } from "./validation.js";

/* eslint-disable @typescript-eslint/no-explicit-any */
type Node = { kind: string; loc?: string; [key: string]: any };

/** What a reader returns where it gives up: the codec's other path decides. */
export const FAIL: unique symbol = Symbol("FAIL");

/** A reader of one value at the cursor (`depth`: how many arrays and objects hold it). */
type Reader = (depth: number) => unknown;
/** A compiled check of a value already read (the residue's functions). */
export type Residue = (v: any) => boolean;

// the text being read and the cursor; `slash`: the next backslash at or after the cursor's
// string (-1: not looked for yet), so that a string is known to hold no escape by one native
// search for the whole text; `controls`: whether the text holds a character below U+0020
// anywhere (then each string is looked through for one)
let s = "";
let at = 0;
let slash = -1;
let controls = false;
// in plain JSON (an open object's undeclared member, a residue's value...) a number written with
// a fraction or an exponent whose value is an integer is kept apart as the exact reader keeps it
// (a PyFloat, which the compiled check judges as it judges the exact reader's), where it was put
// recorded (holder, key), and made the number it is once the document is read (as
// `plainDocument` makes the exact reader's)
let floats: unknown[] = [];

// the deepest an array or object is read at: deeper ones take the other path, which refuses
// them past MAX_DEPTH with the reference's test and message
const DEEPEST = MAX_DEPTH - 2;
const CONTROL_RX = /[\u0000-\u001f]/;
const FORGET_RX = /(?:)/;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;
// 10^0 .. 10^22, each a double exactly (a product of exact doubles that is one is exact)
const POW10: readonly number[] = [1];
for (let k = 1; k <= 22; k++) (POW10 as number[]).push(POW10[k - 1]! * 10);
const ESCAPES: Record<number, string> = { 0x22: '"', 0x5c: "\\", 0x2f: "/", 0x62: "\b", 0x66: "\f", 0x6e: "\n", 0x72: "\r", 0x74: "\t" };

// String.prototype.isWellFormed (Node 20): a text given as a string may hold a lone surrogate
const WELL_FORMED = (String.prototype as { isWellFormed?: () => boolean }).isWellFormed;
const SURROGATE_RX = /[\uD800-\uDFFF]/;

/** A document's text read as `definition` by `reader`, or FAIL. */
export function readText(text: string, reader: Reader): unknown {
  if (WELL_FORMED !== undefined ? !WELL_FORMED.call(text) : SURROGATE_RX.test(text)) return FAIL;
  controls = CONTROL_RX.test(text);
  if (controls) FORGET_RX.test(""); // V8 keeps the last text a regular expression matched (RegExp.input)
  s = text;
  at = 0;
  slash = -1;
  try {
    ws();
    const v = reader(1);
    if (v === FAIL) return FAIL;
    ws();
    if (at !== s.length) return FAIL;
    for (let k = 0; k < floats.length; k += 2) {
      const holder = floats[k] as Record<string | number, unknown>;
      const key = floats[k + 1] as string | number;
      const x = holder[key];
      if (x instanceof PyFloat) holder[key] = x.value; // a member given twice: its last value
    }
    return v instanceof PyFloat ? v.value : v;
  } catch (e) {
    if (e instanceof RangeError) return FAIL; // a recursion deeper than the stack
    throw e;
  } finally {
    s = ""; // the module holds no document past the call
    if (floats.length !== 0) floats.length = 0;
  }
}

function ws(): void {
  let c = s.charCodeAt(at);
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = s.charCodeAt(++at);
}

/** The string whose opening quote is at the cursor, or FAIL. `name`: a member name, which an
 * object keeps its own copy of (a view is enough). */
function str(name: boolean): string | typeof FAIL {
  const from = at + 1;
  const j = s.indexOf('"', from);
  if (j < 0) return FAIL;
  if (slash < from) {
    slash = s.indexOf("\\", from);
    if (slash < 0) slash = s.length;
  }
  if (slash < j) return escaped(from);
  if (controls) for (let k = from; k < j; k++) if (s.charCodeAt(k) < 0x20) return FAIL;
  at = j + 1;
  return name ? s.slice(from, j) : ownSlice(s, from, j);
}

/** A string holding an escape, from `from` (just after its opening quote), a string of its own. */
function escaped(from: number): string | typeof FAIL {
  let out = "";
  let run = from;
  for (let k = from; ; ) {
    const c = s.charCodeAt(k);
    if (c === 0x22) {
      at = k + 1;
      slash = -1;
      out += s.slice(run, k);
      return out.length > 0 && out.charCodeAt(0) < 0 ? FAIL : out; // read once: flat, its own
    }
    if (c < 0x20 || k >= s.length) return FAIL;
    if (c === 0x5c) {
      out += s.slice(run, k);
      const e = s.charCodeAt(k + 1);
      if (e === 0x75) {
        let u = 0;
        for (let h = k + 2; h < k + 6; h++) {
          const d = s.charCodeAt(h);
          const x = d >= 0x30 && d <= 0x39 ? d - 0x30 : d >= 0x61 && d <= 0x66 ? d - 0x57 : d >= 0x41 && d <= 0x46 ? d - 0x37 : -1;
          if (x < 0) return FAIL;
          u = u * 16 + x;
        }
        if (u >= 0xd800 && u <= 0xdfff) return FAIL; // a surrogate escape: the exact reader's
        out += String.fromCharCode(u);
        k += 6;
      } else {
        const m = ESCAPES[e];
        if (m === undefined) return FAIL;
        out += m;
        k += 2;
      }
      run = k;
      continue;
    }
    k++;
  }
}

/** The number at the cursor where JSON.parse and the exact reader read it alike, else FAIL.
 * `integral`: a float whose value is an integer (`1.0`, `1e3`) is taken too, as the number it
 * is (a `number` node: the exact reader's PyFloat there is made that number again). */
function num(integral = false): number | typeof FAIL {
  const from = at;
  let c = s.charCodeAt(at);
  const negative = c === 0x2d;
  if (negative) c = s.charCodeAt(++at);
  const first = at;
  let whole = 0;
  if (c === 0x30) c = s.charCodeAt(++at);
  else {
    while (c >= 0x30 && c <= 0x39) {
      whole = whole * 10 + (c - 0x30);
      c = s.charCodeAt(++at);
    }
    if (at === first) return FAIL;
  }
  if (c === 0x2e || c === 0x65 || c === 0x45) {
    let digits = whole;
    let places = 0;
    if (c === 0x2e) {
      c = s.charCodeAt(++at);
      const f = at;
      while (c >= 0x30 && c <= 0x39) {
        digits = digits * 10 + (c - 0x30);
        c = s.charCodeAt(++at);
      }
      places = at - f;
      if (places === 0) return FAIL;
    }
    let v: number;
    if (c === 0x65 || c === 0x45) {
      c = s.charCodeAt(++at);
      if (c === 0x2b || c === 0x2d) c = s.charCodeAt(++at);
      const e = at;
      while (c >= 0x30 && c <= 0x39) c = s.charCodeAt(++at);
      if (at === e) return FAIL;
      v = Number(s.slice(from, at));
    } else if (digits <= MAX_SAFE && places <= 22) {
      // the digits and the power of ten are doubles exactly (the digits counted in a double stay
      // exact while below 2^53), and a division of doubles is correctly rounded: the double
      // nearest the decimal, which is Number's (Clinger's fast path), with no string cut for it
      v = digits / POW10[places]!;
      if (negative) v = -v;
    } else v = Number(s.slice(from, at));
    // an integral value (`1.0`, `1e3`) is the exact reader's PyFloat; beyond a double, refused
    if (!Number.isFinite(v)) return FAIL;
    return integral || !Number.isInteger(v) ? v : FAIL;
  }
  if (at - first > 15) {
    // up to 2^53 - 1 JSON.parse reads an integer exactly; past it the exact reader's bigint
    if (at - first > 16) return FAIL;
    const v = Number(s.slice(from, at));
    return Number.isSafeInteger(v) ? v : FAIL;
  }
  if (negative) return whole === 0 ? FAIL : -whole; // -0: the integer 0 for the exact reader
  return whole;
}

/** Any JSON value at the cursor, as JSON.parse makes it, or FAIL. */
function value(depth: number): unknown {
  const c = s.charCodeAt(at);
  if (c === 0x22) return str(false);
  if (c === 0x7b) {
    if (depth > DEEPEST) return FAIL;
    at++;
    ws();
    const o: Record<string, unknown> = {};
    if (s.charCodeAt(at) === 0x7d) {
      at++;
      return o;
    }
    let order: string[] | null = null; // the names in document order, once one is an index
    for (;;) {
      const k = key();
      if (k === FAIL) return FAIL;
      const v = value(depth + 1);
      if (v === FAIL) return FAIL;
      order = put(o, k, v, order);
      const d = next(0x7d);
      if (d <= 0) return d < 0 ? FAIL : ordered(o, order);
    }
  }
  if (c === 0x5b) {
    if (depth > DEEPEST) return FAIL;
    at++;
    ws();
    const a: unknown[] = [];
    if (s.charCodeAt(at) === 0x5d) {
      at++;
      return a;
    }
    for (;;) {
      const v = value(depth + 1);
      if (v === FAIL) return FAIL;
      if (v instanceof PyFloat) floats.push(a, a.length);
      a.push(v);
      const d = next(0x5d);
      if (d <= 0) return d < 0 ? FAIL : a;
    }
  }
  if (c === 0x74) return s.startsWith("true", at) ? ((at += 4), true) : FAIL;
  if (c === 0x66) return s.startsWith("false", at) ? ((at += 5), false) : FAIL;
  if (c === 0x6e) return s.startsWith("null", at) ? ((at += 4), null) : FAIL;
  const v = num(true);
  return v !== FAIL && Number.isInteger(v) && !isIntegerText() ? new PyFloat(v) : v;
}

/** Whether the number just read (ending at the cursor) was written as an integer: digits alone. */
function isIntegerText(): boolean {
  for (let i = at - 1; i >= 0; i--) {
    const c = s.charCodeAt(i);
    if (c === 0x2e || c === 0x65 || c === 0x45) return false;
    if (!(c >= 0x30 && c <= 0x39) && c !== 0x2b) return true;
  }
  return true;
}

/** A member name at the cursor and the `:` after it (the cursor then at the value), or FAIL
 * for a name JavaScript would not keep in document order (an array index) or would not set as a
 * member (`__proto__`): the exact reader's. */
function key(): string | typeof FAIL {
  if (s.charCodeAt(at) !== 0x22) return FAIL;
  const k = str(true);
  if (k === FAIL) return FAIL;
  if (k === "__proto__") return FAIL;
  ws();
  if (s.charCodeAt(at) !== 0x3a) return FAIL;
  at++;
  ws();
  return k;
}

/** Whether JavaScript lists a member name first, whatever its place (an array index, and a
 * little more: `INDEX_RX` of json.ts, never missed): its object then keeps the document's order
 * (`ORDER`), as the exact reader makes it. */
function isIndex(k: string): boolean {
  const n = k.length;
  const c = k.charCodeAt(0);
  if (!(c >= 0x30 && c <= 0x39) || n > 10 || (c === 0x30 && n > 1)) return false;
  for (let i = 1; i < n; i++) {
    const d = k.charCodeAt(i);
    if (d < 0x30 || d > 0x39) return false;
  }
  return true;
}

/** A member set as the exact reader sets it: a PyFloat recorded, the names kept in document order
 * once one is an index (the order returned; `ordered` puts it on the object at its end). */
function put(o: Record<string, unknown>, k: string, v: unknown, order: string[] | null): string[] | null {
  if (typeof v === "object" && v !== null && v instanceof PyFloat) floats.push(o, k);
  const c = k.charCodeAt(0);
  if (order === null && (c > 0x39 || c < 0x30 || !isIndex(k))) {
    o[k] = v; // most names: no order to keep
    return null;
  }
  if (order === null) order = Object.keys(o);
  if (order !== null && !Object.prototype.hasOwnProperty.call(o, k)) order.push(ownSlice(k, 0, k.length));
  o[k] = v;
  return order;
}

/** An object with its document order where a name of it is an index (`ORDER`). */
function ordered(o: Record<string, unknown>, order: string[] | null): Record<string, unknown> {
  if (order !== null) (o as { [ORDER]?: string[] })[ORDER] = order;
  return o;
}

/** After a member or an item: 1 at a `,` (the cursor then at the next one), 0 at `close` (past
 * it), -1 at anything else. */
function next(close: number): number {
  ws();
  const c = s.charCodeAt(at);
  if (c === 0x2c) {
    at++;
    ws();
    return 1;
  }
  if (c === close) {
    at++;
    return 0;
  }
  return -1;
}

/** Past the value at the cursor without making it (a tagged union's look for its tag), or
 * false where it is not one. The value is read again by its reader, which decides: a string is
 * passed by its closing quote, a scalar by the characters one is written with, unchecked. */
function skip(depth: number): boolean {
  const c = s.charCodeAt(at);
  if (c === 0x22) return pass();
  if (c === 0x7b || c === 0x5b) {
    if (depth > DEEPEST) return false;
    const close = c === 0x7b ? 0x7d : 0x5d;
    at++;
    ws();
    if (s.charCodeAt(at) === close) {
      at++;
      return true;
    }
    for (;;) {
      if (close === 0x7d) {
        if (s.charCodeAt(at) !== 0x22 || !pass()) return false;
        ws();
        if (s.charCodeAt(at) !== 0x3a) return false;
        at++;
        ws();
      }
      if (!skip(depth + 1)) return false;
      const d = next(close);
      if (d <= 0) return d === 0;
    }
  }
  const from = at;
  for (let d = c; (d >= 0x30 && d <= 0x39) || (d >= 0x61 && d <= 0x7a) || d === 0x2d || d === 0x2b || d === 0x2e || d === 0x45; d = s.charCodeAt(++at));
  return at > from;
}

/** Past the string whose opening quote is at the cursor (a quote after an odd number of
 * backslashes is in it), or false where it does not end. */
function pass(): boolean {
  let j = s.indexOf('"', at + 1);
  for (;;) {
    if (j < 0) return false;
    let k = j - 1;
    while (s.charCodeAt(k) === 0x5c) k--;
    if ((j - k) % 2 === 1) break;
    j = s.indexOf('"', j + 1);
  }
  at = j + 1;
  return true;
}

/** The value of a string member `field` of the object at the cursor (the cursor is left where
 * it was), or FAIL. A name written without an escape is compared where it is. */
function tagOf(field: string, depth: number): string | typeof FAIL {
  const start = at;
  try {
    if (s.charCodeAt(at) !== 0x7b || depth > DEEPEST) return FAIL;
    at++;
    ws();
    if (s.charCodeAt(at) === 0x7d) return FAIL;
    for (;;) {
      const from = at + 1;
      if (s.charCodeAt(at) !== 0x22 || !pass()) return FAIL;
      const end = at - 1;
      if (slash < from) {
        slash = s.indexOf("\\", from);
        if (slash < 0) slash = s.length;
      }
      let named: boolean;
      if (slash < end) {
        at = from - 1;
        const k = key();
        if (k === FAIL) return FAIL;
        named = k === field;
      } else {
        named = end - from === field.length && s.startsWith(field, from);
        ws();
        if (s.charCodeAt(at) !== 0x3a) return FAIL;
        at++;
        ws();
      }
      if (named) return s.charCodeAt(at) === 0x22 ? str(true) : FAIL;
      if (!skip(depth + 1)) return FAIL;
      if (next(0x7d) <= 0) return FAIL;
    }
  } finally {
    at = start;
    slash = -1; // it was looked for past where the cursor is now
  }
}

// -- readers compiled from the table -------------------------------------------------------------

const READERS = new Map<string, Reader | null>();
let residues: { readonly [loc: string]: Residue } = {};

/** Thrown while compiling where a definition cannot be read typed (a `schema` node without its
 * compiled residue, more than 30 required fields). */
class Untyped extends Error {}

/** The typed reader of a definition, or null where it has none. `residue`: the compiled checks
 * of the table's `schema` nodes by schema location (accept.ts's `RESIDUE`). */
export function typedReader(definition: string, residue?: { readonly [loc: string]: Residue }): Reader | null {
  let found = READERS.get(definition);
  if (found === undefined) {
    if (residue !== undefined) residues = residue;
    if (whole(definition)) {
      // its residue would be its whole check: the typed read would be a plain read in
      // JavaScript, no faster than JSON.parse and the exactness pass, so it keeps that path
      READERS.set(definition, null);
      return null;
    }
    try {
      // every definition it reaches compiled now: one that cannot be read typed says so here,
      // not on a document
      for (const name of reached(definition)) definitionReader(name);
      found = definitionReader(definition);
    } catch (e) {
      if (!(e instanceof Untyped)) throw e;
      found = null;
    }
    READERS.set(definition, found);
  }
  return found;
}

/** The node a definition is read by: the table's, or for an object whose table node is its
 * whole schema, its fields and the rest (`TYPED_OBJECTS`). */
function nodeOf(name: string): Node | undefined {
  // an own member only: TYPED_OBJECTS lists some definitions, and one named `constructor`
  // would otherwise find Object's
  return (Object.prototype.hasOwnProperty.call(TYPED_OBJECTS, name) ? TYPED_OBJECTS[name] : DEFINITIONS[name]) as Node | undefined;
}

/** Whether a definition's node (through references) is a `schema` node as a whole. */
function whole(definition: string): boolean {
  let node = nodeOf(definition);
  for (let hops = 0; node !== undefined && node.kind === "ref" && hops < 16; hops++) node = nodeOf(node["name"]);
  if (node !== undefined && node.kind === "schema") node = TYPED_SCHEMAS[node.loc ?? ""] ?? node;
  return node === undefined || node.kind === "schema" || node.kind === "any";
}

const COMPILED = new Map<string, Reader>();
const UNTYPED = new Set<string>();

function definitionReader(name: string): Reader {
  let found = COMPILED.get(name);
  if (found === undefined) {
    if (UNTYPED.has(name)) throw new Untyped();
    const node = nodeOf(name);
    if (node === undefined) throw new Error(`unknown definition ${JSON.stringify(name)}`);
    let inner: Reader | null = null;
    COMPILED.set(name, (depth) => inner!(depth)); // a recursive definition meets itself
    try {
      inner = compile(node);
    } catch (e) {
      COMPILED.delete(name);
      if (e instanceof Untyped) UNTYPED.add(name);
      throw e;
    }
    found = inner;
    COMPILED.set(name, found);
  }
  return found;
}

/** Every definition a definition's node reaches, itself included. */
function reached(name: string): Set<string> {
  const seen = new Set<string>();
  const stack = [name];
  while (stack.length) {
    const n = stack.pop()!;
    if (seen.has(n)) continue;
    seen.add(n);
    const walk = (node: any): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node !== null && typeof node === "object") {
        if (node.kind === "ref" && typeof node.name === "string") stack.push(node.name);
        if (node.kind === "tagged") for (const m of Object.values(node.tags as Record<string, string>)) stack.push(m);
        if (node.kind !== "schema") for (const v of Object.values(node)) walk(v);
        else if (typeof node.loc === "string" && TYPED_SCHEMAS[node.loc] !== undefined) walk(TYPED_SCHEMAS[node.loc]);
      }
    };
    walk(nodeOf(n));
  }
  return seen;
}

function bounded(node: Node): ((v: number) => boolean) | null {
  const lo = node["minimum"], hi = node["maximum"], xlo = node["exclusive_minimum"], xhi = node["exclusive_maximum"];
  if (lo == null && hi == null && xlo == null && xhi == null) return null;
  return (v) => !((lo != null && lessThan(v, lo)) || (hi != null && greaterThan(v, hi)) || (xlo != null && !greaterThan(v, xlo)) || (xhi != null && !lessThan(v, xhi)));
}

/** The string node's checks of a string already read (validation.ts's, in its order). */
function stringCheck(node: Node): ((v: string) => boolean) | null {
  const least: number | null = node["min_length"] ?? null;
  const most: number | null = node["max_length"] ?? null;
  const rx = node["pattern"] != null ? pattern(node["pattern"]) : null;
  if (least === null && most === null && rx === null) return null;
  return (v) => {
    if (least !== null || most !== null) {
      const n = length(v);
      if ((least !== null && n < least) || (most !== null && n > most)) return false;
    }
    return rx === null || rx.test(v);
  };
}

function compile(node: Node): Reader {
  switch (node.kind) {
    case "ref": {
      const name: string = node["name"];
      let target: Reader | null = null;
      return (depth) => (target ??= definitionReader(name))(depth);
    }
    case "object":
      return objectReader(node);
    case "tagged": {
      const field: string = node["field"];
      const tags = new Map<string, Reader>();
      for (const [tag, member] of Object.entries(node["tags"] as Record<string, string>)) {
        let target: Reader | null = null;
        tags.set(tag, (depth) => (target ??= definitionReader(member))(depth));
      }
      return (depth) => {
        const tag = tagOf(field, depth);
        if (tag === FAIL) return FAIL;
        const member = tags.get(tag);
        return member === undefined ? FAIL : member(depth);
      };
    }
    case "union":
      return unionReader(node);
    case "string": {
      const check = stringCheck(node);
      return () => {
        if (s.charCodeAt(at) !== 0x22) return FAIL;
        const v = str(false);
        return v === FAIL || check === null || check(v) ? v : FAIL;
      };
    }
    case "integer":
    case "number": {
      const b = bounded(node);
      const integer = node.kind === "integer";
      // under JSON Schema's integer rule `1.0` is the integer 1 wherever it stands (a check of
      // the object around it sees no difference); under the exact rule it is the exact reader's
      const integral = INTEGERS === "json-schema";
      return () => {
        const c = s.charCodeAt(at);
        if (c !== 0x2d && (c < 0x30 || c > 0x39)) return FAIL;
        const v = num(integral);
        return v === FAIL || (integer && !Number.isInteger(v)) || (b !== null && !b(v)) ? FAIL : v;
      };
    }
    case "enum": {
      // the value given is the table's own string: the one read is looked up as a view of the
      // text and never copied
      const values = new Map<string, string>((node["values"] as string[]).map((v) => [v, v]));
      return () => {
        if (s.charCodeAt(at) !== 0x22) return FAIL;
        const v = str(true);
        return v === FAIL ? FAIL : (values.get(v) ?? FAIL);
      };
    }
    case "const": {
      const want = node["value"];
      // under JSON Schema's integer rule `1.0` equals 1 (the PyFloat read is made 1 at the end)
      const integral = INTEGERS === "json-schema" && typeof want === "number";
      return (depth) => {
        const v = value(depth);
        return v === want || (integral && v instanceof PyFloat && v.value === want) ? v : FAIL;
      };
    }
    case "boolean":
      return (depth) => {
        const v = value(depth);
        return typeof v === "boolean" ? v : FAIL;
      };
    case "null":
      return (depth) => (s.startsWith("null", at) ? value(depth) : FAIL);
    case "any":
      return node["nonnull"] ? (depth) => (s.startsWith("null", at) ? FAIL : value(depth)) : value;
    case "map": {
      const keys = node["keys"] ? keyCheck(node["keys"] as Node) : null;
      const values = node["values"] ? compile(node["values"] as Node) : value;
      return (depth) => {
        if (s.charCodeAt(at) !== 0x7b || depth > DEEPEST) return FAIL;
        at++;
        ws();
        const o: Record<string, unknown> = {};
        if (s.charCodeAt(at) === 0x7d) {
          at++;
          return o;
        }
        let order: string[] | null = null;
        for (;;) {
          const k = key();
          if (k === FAIL || (keys !== null && !keys(k))) return FAIL;
          const v = values(depth + 1);
          if (v === FAIL) return FAIL;
          order = put(o, k, v, order);
          const d = next(0x7d);
          if (d <= 0) return d < 0 ? FAIL : ordered(o, order);
        }
      };
    }
    case "array": {
      const items = compile(node["items"] as Node);
      const least: number = node["min_items"] ?? 0;
      const most: number = node["max_items"] ?? Infinity;
      // uniqueItems of strings (the table gives it no other): a Set tells them apart as the rule does
      const unique = node["unique_strings"] === true;
      return (depth) => {
        if (s.charCodeAt(at) !== 0x5b || depth > DEEPEST) return FAIL;
        at++;
        ws();
        const a: unknown[] = [];
        if (s.charCodeAt(at) === 0x5d) {
          at++;
          return least > 0 ? FAIL : a; // max_items is never below 0 (the IR's count refuses it)
        }
        for (;;) {
          const v = items(depth + 1);
          if (v === FAIL) return FAIL;
          if (v instanceof PyFloat) floats.push(a, a.length);
          a.push(v);
          const d = next(0x5d);
          if (d < 0) return FAIL;
          if (d === 0) return a.length < least || a.length > most || (unique && new Set(a).size !== a.length) ? FAIL : a;
        }
      };
    }
    case "schema": {
      // a general node the typed nodes state exactly (TYPED_SCHEMAS), read as that node
      const typed = node.loc !== undefined ? TYPED_SCHEMAS[node.loc] : undefined;
      if (typed !== undefined) return compile(typed as Node);
      // the residue: plain JSON, checked by the node's compiled function
      const check = node.loc !== undefined ? residues[node.loc] : undefined;
      if (check === undefined) throw new Untyped();
      return (depth) => {
        const v = value(depth);
        return v !== FAIL && check(v) ? v : FAIL;
      };
    }
    default:
      throw new Untyped();
  }
}

/** A map's `keys` (propertyNames: a string node, or a reference to one) as a check of a name. */
function keyCheck(node: Node): (k: string) => boolean {
  let n: Node | undefined = node;
  for (let hops = 0; n !== undefined && (n.kind === "ref" || n.kind === "schema") && hops < 16; hops++) {
    n = (n.kind === "ref" ? DEFINITIONS[n["name"]] : TYPED_SCHEMAS[n.loc ?? ""]) as Node | undefined;
    if (n !== undefined && n.kind === "schema" && TYPED_SCHEMAS[n.loc ?? ""] === undefined) n = undefined;
  }
  if (n === undefined) throw new Untyped();
  if (n.kind === "string") return stringCheck(n) ?? (() => true);
  if (n.kind === "enum") {
    const values = new Set<string>(n["values"]);
    return (k) => values.has(k);
  }
  throw new Untyped();
}

/** A declared member of an object: its name (the table's own string, so that the object is
 * given the same name every time), its reader, its bit among the required ones (0: optional). */
type Field = { readonly name: string; readonly read: Reader; readonly bit: number; readonly index: boolean };

function objectReader(node: Node): Reader {
  // the declared names by length: a name in the text is compared where it is, not cut out
  const byLength: Field[][] = [];
  const byName = new Map<string, Field>();
  let need = 0;
  let count = 0;
  for (const [wire, spec] of Object.entries(node["fields"] as Record<string, { type: Node; required: string | null }>)) {
    // `o[k] = v` would set the prototype, not the member: the exact reader defines it
    if (wire === "__proto__") throw new Untyped();
    let bit = 0;
    if (spec.required !== null) {
      if (count === 30) throw new Untyped(); // one bit each, at most 30
      bit = 1 << count++;
      need |= bit;
    }
    const field = { name: wire, read: compile(spec.type), bit, index: isIndex(wire) };
    (byLength[wire.length] ??= []).push(field);
    byName.set(wire, field);
  }
  const closed = node["closed"] != null;
  // an undeclared member's reader (additionalProperties as a schema), else any JSON
  const extra = node["extra"] !== undefined ? compile(node["extra"] as Node) : value;
  // the rest of an object's schema (TYPED_OBJECTS), checked on the object read
  let rest: Residue | null = null;
  if (node["rest"] !== undefined) {
    rest = residues[node["rest"] as string] ?? null;
    if (rest === null) throw new Untyped();
  }
  return (depth) => {
    if (s.charCodeAt(at) !== 0x7b || depth > DEEPEST) return FAIL;
    at++;
    ws();
    const o: Record<string, unknown> = {};
    let seen = 0;
    let order: string[] | null = null;
    if (s.charCodeAt(at) !== 0x7d) {
      for (;;) {
        let f = declared(byLength);
        let k = "";
        if (f === null) {
          // an undeclared name, or a declared one written with an escape or in a text with
          // controls, read as a name
          const name = key();
          if (name === FAIL) return FAIL;
          f = byName.get(name) ?? null;
          k = name;
        }
        let v: unknown;
        if (f === null) {
          if (closed) return FAIL;
          v = extra(depth + 1);
        } else {
          k = f.name;
          v = f.read(depth + 1);
          seen |= f.bit;
        }
        if (v === FAIL) return FAIL;
        // a declared name is no index: set as it is, unless the value is a PyFloat or the
        // object keeps its order already
        if (f !== null && !f.index && order === null && !(v instanceof PyFloat)) o[k] = v;
        else order = put(o, k, v, order);
        const d = next(0x7d);
        if (d < 0) return FAIL;
        if (d === 0) break;
      }
    } else at++;
    ordered(o, order);
    return seen === need && (rest === null || rest(o)) ? o : FAIL;
  };
}

/** The declared member whose name is at the cursor, the cursor then at its value; else null,
 * the cursor left at the name (an undeclared one, or one written with an escape). */
function declared(byLength: Field[][]): Field | null {
  if (s.charCodeAt(at) !== 0x22 || controls) return null; // a text with controls: key() looks
  const from = at + 1;
  const j = s.indexOf('"', from);
  const fields = j < 0 ? undefined : byLength[j - from];
  if (fields === undefined) return null;
  if (slash < from) {
    slash = s.indexOf("\\", from);
    if (slash < 0) slash = s.length;
  }
  if (slash < j) return null;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (s.startsWith(f.name, from)) {
      at = j + 1;
      ws();
      if (s.charCodeAt(at) !== 0x3a) {
        at = from - 1; // not JSON: key() says so
        return null;
      }
      at++;
      ws();
      return f;
    }
  }
  return null;
}

function unionReader(node: Node): Reader {
  const members = (node["members"] as [string[], Node][]).map(([kinds, member]) => [new Set(kinds), compile(member)] as const);
  const pick = (got: string): Reader | null => {
    for (const [kinds, member] of members) if (kinds.has(got) || (got === "integer" && kinds.has("number"))) return member;
    return null;
  };
  const byType: Record<string, Reader | null> = {};
  for (const t of ["string", "object", "array", "boolean", "null", "integer", "number"]) byType[t] = pick(t);
  return (depth) => {
    const c = s.charCodeAt(at);
    let t: string;
    if (c === 0x22) t = "string";
    else if (c === 0x7b) t = "object";
    else if (c === 0x5b) t = "array";
    else if (c === 0x74 || c === 0x66) t = "boolean";
    else if (c === 0x6e) t = "null";
    else {
      const got = numberType();
      if (got === FAIL) return FAIL;
      t = got;
    }
    const member = byType[t];
    return member === null || member === undefined ? FAIL : member(depth);
  };
}

/** The JSON type of the number at the cursor (left where it is), or FAIL: under JSON Schema's
 * integer rule `1.0` is an integer, as the general validator counts it; under the exact rule a
 * number, whose reader then gives up (the exact reader's PyFloat). */
function numberType(): "integer" | "number" | typeof FAIL {
  const start = at;
  const integral = INTEGERS === "json-schema";
  const v = num(true);
  if (v === FAIL) return FAIL;
  const t = Number.isInteger(v) && (integral || isIntegerText()) ? "integer" : "number";
  at = start;
  return t;
}
