/**
 * The interpreter of the validation table (`schema_table.ts`), shared by every definition.
 *
 * Two passes over one table: `accepts` (each node compiled once into a closure that answers
 * yes or no, the path every valid document takes) and `Validation`, which finds every problem
 * in a document with its JSON Pointer, definition, keyword and schema location and, when
 * lenient, strips what a newer peer may have added (unknown properties of closed objects, union
 * members with an unknown discriminator), each stripped member a warning. Both read the table
 * as it is: ECMA-262 patterns compiled with the `u` flag (JSON Schema strings are sequences of
 * code points; lengths are counted in code points too).
 */

import { Issue } from "./errors.js";
import { MAX_ERRORS, PyFloat, codePointOrder, escapeToken, isInt, jsonType, keysOf, numeric, pyDumps, pyRepr, setMember, showNumber } from "./json.js";
import { DEFINITIONS } from "./schema_table.js";

export { plain } from "./json.js";

/* eslint-disable @typescript-eslint/no-explicit-any */
export type Node = { kind: string; loc?: string; [key: string]: any };

/** Returned in place of a value the lenient validator stripped as a whole. */
export const DROP: unique symbol = Symbol("DROP");

const PATTERNS = new Map<string, RegExp>();

/** A schema pattern as a RegExp: ECMA-262 is this language's own dialect, compiled with the `u`
 * flag (code points, as JSON Schema means), or without it for a pattern only the legacy
 * grammar reads. */
export function pattern(source: string): RegExp {
  let rx = PATTERNS.get(source);
  if (rx === undefined) {
    try {
      rx = new RegExp(source, "u");
    } catch {
      rx = new RegExp(source);
    }
    PATTERNS.set(source, rx);
  }
  return rx;
}

const SURROGATES = /[\uD800-\uDFFF]/;

/** The length of a string in code points. */
export function length(s: string): number {
  if (!SURROGATES.test(s)) return s.length;
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** A value as messages show it (Python's json.dumps, cut at 60 characters; integers exact). */
const LISTED = new WeakMap<object, string>();

/** A union's tags, sorted and listed: made once per union, not once per value checked. */
function listed(tags: Record<string, string>): string {
  let found = LISTED.get(tags);
  if (found === undefined) LISTED.set(tags, (found = Object.keys(tags).sort(codePointOrder).join(", ")));
  return found;
}

export function show(value: unknown): string {
  if (isInt(value)) return showNumber(value);
  const text = pyDumps(value);
  const chars = Array.from(text);
  return chars.length <= 60 ? text : chars.slice(0, 57).join("") + "...";
}

function loc(at: string | undefined, keyword: string): string {
  return `#${at ?? ""}/${keyword}`;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof PyFloat);
}

export const has = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** a < b, exactly where a is a bigint; b is a number of the table (a PyFloat where the schema
 * wrote an integral float, a bigint where it wrote an integer a double cannot hold). */
export function lessThan(a: unknown, bound: number | bigint | PyFloat): boolean {
  if (typeof bound === "bigint") return versus(a, bound) < 0;
  const b = numeric(bound);
  if (typeof a === "bigint") return Number.isInteger(b) ? a < BigInt(b) : Number(a) < b;
  return numeric(a) < b;
}

export function greaterThan(a: unknown, bound: number | bigint | PyFloat): boolean {
  if (typeof bound === "bigint") return versus(a, bound) > 0;
  const b = numeric(bound);
  if (typeof a === "bigint") return Number.isInteger(b) ? a > BigInt(b) : Number(a) > b;
  return numeric(a) > b;
}

/** The sign of a - b, exactly, for a bound past a double's integers: a number with a fraction
 * is below 2^53 in size, so the double nearest b orders it. */
function versus(a: unknown, b: bigint): number {
  const x = typeof a === "bigint" ? a : numeric(a);
  if (typeof x === "number" && !Number.isInteger(x)) return x < Number(b) ? -1 : 1;
  const big = BigInt(x);
  return big < b ? -1 : big > b ? 1 : 0;
}

/** Whether `definition` refuses every JSON value that is not an object, before looking at anything
 * else (its check starts with the type: a tagged union, an object, a map). A caller that only
 * counts refusals (a findings cap reached) may then refuse a document that is not one without the
 * walk: the verdict is the walk's, only its words are not made. */
export function objectsOnly(definition: string): boolean {
  let node: Node | undefined = DEFINITIONS[definition];
  const seen = new Set<string>();
  while (node !== undefined && node["kind"] === "ref" && !seen.has(node["name"])) {
    seen.add(node["name"]);
    node = DEFINITIONS[node["name"]];
  }
  return node !== undefined && (node["kind"] === "tagged" || node["kind"] === "object" || node["kind"] === "map");
}

// -- the yes-or-no pass ---------------------------------------------------------------------------

type Check = (v: any) => boolean;
const COMPILED = new Map<string, Check>();

/** Whether a document is a valid instance of a definition (no message, no allocation). */
export function accepts(definition: string, value: unknown): boolean {
  return compiledDefinition(definition)(value);
}

export function compiledDefinition(name: string): Check {
  let found = COMPILED.get(name);
  if (found === undefined) {
    const node = DEFINITIONS[name];
    if (node === undefined) throw new Error(`unknown definition ${JSON.stringify(name)}`);
    let inner: Check | null = null;
    COMPILED.set(name, (v) => (inner ??= compile(node))(v)); // a recursive definition meets itself
    inner = compile(node);
    found = inner;
    COMPILED.set(name, found);
  }
  return found;
}

function bounds(node: Node): ((v: any) => boolean) | null {
  const lo = node["minimum"], hi = node["maximum"], xlo = node["exclusive_minimum"], xhi = node["exclusive_maximum"];
  if (lo == null && hi == null && xlo == null && xhi == null) return null;
  return (v) =>
    !((lo != null && lessThan(v, lo)) || (hi != null && greaterThan(v, hi)) || (xlo != null && !greaterThan(v, xlo)) || (xhi != null && !lessThan(v, xhi)));
}

function compile(node: Node): Check {
  switch (node.kind) {
    case "ref": {
      const name: string = node["name"];
      let target: Check | null = null;
      return (v) => (target ??= compiledDefinition(name))(v);
    }
    case "object": {
      const fields: Record<string, Check> = Object.create(null);
      const required: Record<string, boolean> = Object.create(null);
      let need = 0;
      for (const [wire, spec] of Object.entries(node["fields"] as Record<string, { type: Node; required: string | null }>)) {
        fields[wire] = compile(spec.type);
        if (spec.required !== null) {
          required[wire] = true;
          need++;
        }
      }
      const closed = node["closed"] != null;
      return (v) => {
        if (!isObject(v)) return false;
        let seen = 0;
        for (const k in v) {
          const f = fields[k];
          if (f === undefined) {
            if (closed) return false;
            continue;
          }
          if (!f(v[k])) return false;
          if (required[k] === true) seen++;
        }
        return seen === need;
      };
    }
    case "tagged": {
      const field: string = node["field"];
      const tags: Record<string, Check> = Object.create(null);
      for (const [tag, member] of Object.entries(node["tags"] as Record<string, string>)) {
        let target: Check | null = null;
        tags[tag] = (v) => (target ??= compiledDefinition(member))(v);
      }
      return (v) => {
        if (!isObject(v)) return false;
        const tag = v[field];
        if (typeof tag !== "string") return false;
        const member = tags[tag];
        return member !== undefined && member(v);
      };
    }
    case "union": {
      const members = (node["members"] as [string[], Node][]).map(([kinds, member]) => [new Set(kinds), compile(member)] as const);
      return (v) => {
        const got = jsonType(v);
        for (const [kinds, member] of members) if (kinds.has(got) || (got === "integer" && kinds.has("number"))) return member(v);
        return false;
      };
    }
    case "string": {
      const least: number | null = node["min_length"] ?? null;
      const most: number | null = node["max_length"] ?? null;
      const rx = node["pattern"] != null ? pattern(node["pattern"]) : null;
      if (least === null && most === null && rx === null) return (v) => typeof v === "string";
      return (v) => {
        if (typeof v !== "string") return false;
        if (least !== null || most !== null) {
          const n = length(v);
          if ((least !== null && n < least) || (most !== null && n > most)) return false;
        }
        return rx === null || rx.test(v);
      };
    }
    case "integer": {
      const b = bounds(node);
      return (v) => (typeof v === "number" ? Number.isInteger(v) : typeof v === "bigint") && (b === null || b(v));
    }
    case "number": {
      const b = bounds(node);
      return (v) => (typeof v === "number" || typeof v === "bigint" || v instanceof PyFloat) && (b === null || b(v));
    }
    case "enum": {
      const values = new Set<string>(node["values"]);
      return (v) => typeof v === "string" && values.has(v);
    }
    case "const": {
      const want = node["value"];
      return (v) => v === want;
    }
    case "boolean":
      return (v) => typeof v === "boolean";
    case "null":
      return (v) => v === null;
    case "any":
      return node["nonnull"] ? (v) => v !== null : () => true;
    case "map": {
      const keys = node["keys"] ? compile(node["keys"]) : null;
      const values = node["values"] ? compile(node["values"]) : null;
      return (v) => {
        if (!isObject(v)) return false;
        if (keys !== null || values !== null) {
          for (const k in v) {
            if (keys !== null && !keys(k)) return false;
            if (values !== null && !values(v[k])) return false;
          }
        }
        return true;
      };
    }
    case "array": {
      const items = compile(node["items"]);
      const least: number = node["min_items"] ?? 0;
      return (v) => {
        if (!Array.isArray(v) || v.length < least) return false;
        for (let i = 0; i < v.length; i++) if (!items(v[i])) return false;
        return true;
      };
    }
    default:
      throw new Error(`unknown validation node ${JSON.stringify(node.kind)}`);
  }
}

// -- the pass that explains -----------------------------------------------------------------------

/** One pass over one document: `errors` and (lenient) `warnings` fill as it goes, the first
 * `maxErrors` of each (null: all); `moreErrors` and `moreWarnings` count the others. */
export class Validation {
  readonly errors: Issue[] = [];
  readonly warnings: Issue[] = [];
  moreErrors = 0;
  moreWarnings = 0;
  /** subschemas being evaluated apart (their errors decide, so none is left out) */
  protected trials = 0;

  constructor(public lenient = false, readonly maxErrors: number | null = MAX_ERRORS) {}

  /** How many errors were found in all. */
  get errorCount(): number {
    return this.errors.length + this.moreErrors;
  }

  /** The document, with stripped members removed when lenient (or DROP). */
  run(value: unknown, definition: string): any {
    try {
      return this.check(value, { kind: "ref", name: definition }, "", definition);
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
      this.error("", definition, "depth", "document nested too deeply to validate", "");
      return value;
    }
  }

  /** Whether an error found now is only counted: the errors are at their cap and no subschema is
   * being tried apart (its errors would be looked at). Its message is then not made: a document
   * of half a million wrong items costs their checking, not their explanations. */
  protected unlisted(): boolean {
    return this.trials === 0 && this.maxErrors !== null && this.errors.length >= this.maxErrors;
  }

  error(ptr: string, definition: string, keyword: string, message: string, at: string): void {
    if (this.unlisted()) this.moreErrors++;
    else this.errors.push(new Issue(ptr, definition, keyword, message, at));
  }

  /** Errors found apart (a subschema's), added as if found here. */
  adopt(errors: Issue[]): void {
    for (const issue of errors) {
      if (this.unlisted()) this.moreErrors++;
      else this.errors.push(issue);
    }
  }

  warn(ptr: string, definition: string, keyword: string, message: string, at: string): void {
    if (this.maxErrors !== null && this.warnings.length >= this.maxErrors) {
      this.moreWarnings++;
      return;
    }
    this.warnings.push(new Issue(ptr, definition, keyword, message, at));
  }

  check(value: any, node: Node, ptr: string, definition: string): any {
    if (node.kind === "ref") {
      const name: string = node["name"];
      return this.check(value, DEFINITIONS[name]!, ptr, name);
    }
    switch (node.kind) {
      case "object":
        return this.object(value, node, ptr, definition);
      case "tagged":
        return this.tagged(value, node, ptr, definition);
      case "union":
        return this.union(value, node, ptr, definition);
      case "enum":
        if (typeof value !== "string") this.typeError(value, "string", node, ptr, definition);
        else if (!(node["values"] as string[]).includes(value)) {
          const allowed = (node["values"] as string[]).join(", ");
          if (this.lenient) {
            // a closed set of strings is a union of names: an unknown one is stripped
            this.warn(ptr, definition, "enum", `unknown value ${pyRepr(value)} stripped (known: ${allowed})`, loc(node.loc, "enum"));
            return DROP;
          }
          this.error(ptr, definition, "enum", `${show(value)} is not one of ${allowed}`, loc(node.loc, "enum"));
        }
        return value;
      case "const": {
        const want = node["value"];
        if (typeof value !== typeof want || value !== want) this.error(ptr, definition, "const", `expected ${show(want)}, got ${show(value)}`, loc(node.loc, "const"));
        return value;
      }
      case "string":
        return this.string(value, node, ptr, definition);
      case "integer":
        if (!isInt(value)) {
          this.typeError(value, "integer", node, ptr, definition);
          return value;
        }
        return this.bounds(value, node, ptr, definition);
      case "number":
        if (!(typeof value === "number" || typeof value === "bigint" || value instanceof PyFloat)) {
          this.typeError(value, "number", node, ptr, definition);
          return value;
        }
        return this.bounds(value, node, ptr, definition);
      case "null":
        if (value !== null) this.typeError(value, "null", node, ptr, definition);
        return value;
      case "boolean":
        if (typeof value !== "boolean") this.typeError(value, "boolean", node, ptr, definition);
        return value;
      case "any":
        if (value === null && node["nonnull"]) this.error(ptr, definition, "not", "null is not allowed here", loc(node.loc, "not"));
        return value;
      case "map":
        return this.map(value, node, ptr, definition);
      case "array":
        return this.array(value, node, ptr, definition);
      default:
        throw new Error(`unknown validation node ${JSON.stringify(node.kind)}`);
    }
  }

  protected typeError(value: unknown, expected: string, node: Node, ptr: string, definition: string): void {
    if (this.unlisted()) {
      this.moreErrors++;
      return;
    }
    let got = jsonType(value);
    if (value instanceof PyFloat && expected === "integer") got = "a number with a fraction part (integers are written without one)";
    this.error(ptr, definition, "type", `expected ${expected}, got ${got}`, loc(node.loc, "type"));
  }

  private object(value: any, node: Node, ptr: string, definition: string): any {
    if (!isObject(value)) {
      this.typeError(value, "object", node, ptr, definition);
      return value;
    }
    const fields = node["fields"] as Record<string, { type: Node; required: string | null }>;
    for (const name of Object.keys(fields)) {
      const spec = fields[name]!;
      if (spec.required !== null && !has(value, name)) this.error(ptr, definition, "required", `missing required property ${pyRepr(name)}`, "#" + spec.required);
    }
    let out: Record<string, unknown> = value;
    let dropped = false;
    for (const name of keysOf(value)) {
      const member = value[name];
      const spec = has(fields, name) ? fields[name] : undefined;
      if (spec === undefined && node["closed"] == null) continue; // a member an open object does not declare: valid, nothing to check
      const sub = `${ptr}/${escapeToken(name)}`;
      if (spec === undefined) {
        const closed: string = node["closed"];
        // the keyword that closed the object, as the schema wrote it: the last token of its pointer
        const keyword = closed.slice(closed.lastIndexOf("/") + 1);
        if (this.lenient) {
          this.warn(sub, definition, keyword, `unknown property ${pyRepr(name)} stripped`, "#" + closed);
          if (out === value) out = { ...value };
          delete out[name];
        } else {
          this.error(ptr, definition, keyword, `unknown property ${pyRepr(name)}`, "#" + closed);
        }
        continue;
      }
      const checked = this.check(member, spec.type, sub, definition);
      if (checked === DROP) {
        // a required member stripped: the value holding it goes instead (processing.mdx), its
        // warning says why; the other members are still checked (nothing goes silently)
        dropped ||= spec.required !== null;
        if (out === value) out = { ...value };
        delete out[name];
      } else if (checked !== member) {
        if (out === value) out = { ...value };
        setMember(out, name, checked);
      }
    }
    return dropped ? DROP : out;
  }

  private tagged(value: any, node: Node, ptr: string, definition: string): any {
    const tags = node["tags"] as Record<string, string>;
    const field: string = node["field"];
    const keyword: string = node["keyword"];
    if (!isObject(value) && this.unlisted()) {
      this.moreErrors++;
      return value;
    }
    const choices = listed(tags);
    const where = loc(node.loc, keyword);
    if (!isObject(value)) {
      this.error(ptr, definition, keyword, `expected an object with a ${pyRepr(field)} of ${choices}; got ${jsonType(value)}`, where);
      return value;
    }
    if (!has(value, field)) {
      this.error(ptr, definition, keyword, `missing discriminator ${pyRepr(field)} (one of ${choices})`, where);
      return value;
    }
    const tag = value[field];
    const member = typeof tag === "string" && has(tags, tag) ? tags[tag] : undefined;
    if (member === undefined) {
      if (this.lenient && typeof tag === "string") {
        this.warn(ptr, definition, keyword, `unknown ${field} ${pyRepr(tag)} stripped (known: ${choices})`, where);
        return DROP;
      }
      this.error(ptr, definition, keyword, `${field} ${show(tag)} is not one of ${choices}`, where);
      return value;
    }
    return this.check(value, DEFINITIONS[member]!, ptr, member);
  }

  private union(value: any, node: Node, ptr: string, definition: string): any {
    const got = jsonType(value);
    const members = node["members"] as [string[], Node][];
    for (const [kinds, member] of members) if (kinds.includes(got) || (got === "integer" && kinds.includes("number"))) return this.check(value, member, ptr, definition);
    if (this.unlisted()) {
      this.moreErrors++;
      return value;
    }
    const expected = [...new Set(members.flatMap(([kinds]) => kinds))].sort(codePointOrder).join(" or ");
    const keyword: string = node["keyword"];
    this.error(ptr, definition, keyword, `expected ${expected}, got ${got}`, loc(node.loc, keyword));
    return value;
  }

  private string(value: any, node: Node, ptr: string, definition: string): any {
    if (typeof value !== "string") {
      this.typeError(value, "string", node, ptr, definition);
      return value;
    }
    const least = node["min_length"], most = node["max_length"];
    if (least != null || most != null) {
      const n = length(value);
      if (least != null && n < least) this.error(ptr, definition, "minLength", `is ${n} characters long, shorter than ${least}`, loc(node.loc, "minLength"));
      if (most != null && n > most) this.error(ptr, definition, "maxLength", `is ${n} characters long, longer than ${most}`, loc(node.loc, "maxLength"));
    }
    const source = node["pattern"];
    if (source != null && !pattern(source).test(value)) {
      this.error(ptr, definition, "pattern", `${show(value)} does not match ${node["source"] ?? source}`, loc(node.loc, "pattern"));
    }
    return value;
  }

  protected bounds(value: unknown, node: Node, ptr: string, definition: string): unknown {
    const lo = node["minimum"], hi = node["maximum"], xlo = node["exclusive_minimum"], xhi = node["exclusive_maximum"];
    const shown = showNumber(value);
    if (lo != null && lessThan(value, lo)) this.error(ptr, definition, "minimum", `${shown} is less than the minimum ${showNumber(lo)}`, loc(node.loc, "minimum"));
    if (hi != null && greaterThan(value, hi)) this.error(ptr, definition, "maximum", `${shown} is greater than the maximum ${showNumber(hi)}`, loc(node.loc, "maximum"));
    if (xlo != null && !greaterThan(value, xlo)) this.error(ptr, definition, "exclusiveMinimum", `${shown} is not greater than ${showNumber(xlo)}`, loc(node.loc, "exclusiveMinimum"));
    if (xhi != null && !lessThan(value, xhi)) this.error(ptr, definition, "exclusiveMaximum", `${shown} is not less than ${showNumber(xhi)}`, loc(node.loc, "exclusiveMaximum"));
    return value;
  }

  private map(value: any, node: Node, ptr: string, definition: string): any {
    if (!isObject(value)) {
      this.typeError(value, "object", node, ptr, definition);
      return value;
    }
    const keys = node["keys"] as Node | null | undefined;
    if (keys != null) for (const key of keysOf(value)) this.name(key, keys, ptr, definition);
    const values = node["values"] as Node | null;
    if (values == null) return value;
    let out: Record<string, unknown> = value;
    for (const key of keysOf(value)) {
      const member = value[key];
      const checked = this.check(member, values, `${ptr}/${escapeToken(key)}`, definition);
      if (checked !== member) {
        if (out === value) out = { ...value };
        if (checked === DROP) delete out[key];
        else setMember(out, key, checked);
      }
    }
    return out;
  }

  /** A member name against `propertyNames`, reported at the object under that keyword. */
  private name(key: string, node: Node, ptr: string, definition: string): void {
    const before = this.errors.length;
    this.string(key, node, ptr, definition);
    for (let i = before; i < this.errors.length; i++) {
      const issue = this.errors[i]!;
      this.errors[i] = new Issue(ptr, definition, "propertyNames", `property name ${show(key)}: ${issue.message}`, issue.schemaLocation);
    }
  }

  private array(value: any, node: Node, ptr: string, definition: string): any {
    if (!Array.isArray(value)) {
      this.typeError(value, "array", node, ptr, definition);
      return value;
    }
    // copied from the first item that changes, as objects are (none: the array itself)
    let out: unknown[] | null = null;
    const items: Node = node["items"];
    const at = ptr + "/";
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      const checked = this.check(item, items, at + i, definition);
      if (out === null && checked !== item) out = value.slice(0, i);
      if (out !== null && checked !== DROP) out.push(checked);
    }
    const kept = out === null ? value.length : out.length;
    const least = node["min_items"];
    if (least && kept < least) {
      this.error(ptr, definition, "minItems", `has ${kept} item${kept !== 1 ? "s" : ""}, fewer than the minimum ${least}`, loc(node.loc, "minItems"));
    }
    return out ?? value;
  }
}
