/**
 * The general validator: every keyword of JSON Schema's validation vocabulary (draft 2020-12 and
 * draft-07, compiled to one form by the generator), for the parts of a schema the typed kinds do
 * not capture exactly. It extends `validation.ts`'s `Validation` with the `schema` node kind, a
 * line-by-line port of the Python binding's `vocabulary.py` (the same keywords, pointers, schema
 * locations and messages):
 *
 * - assertions: `type`, `const` and `enum` of any JSON value, `multipleOf` (exact, on the
 *   numbers' decimal values), the four bounds, string lengths in code points, `pattern`,
 *   `minItems`/`maxItems`, `uniqueItems`, `contains` with `minContains`/`maxContains`,
 *   `required`, `minProperties`/`maxProperties`, `dependentRequired` (and draft-07's
 *   `dependencies`), `format` where the binding asserts it;
 * - applicators: `properties`, `patternProperties`, `additionalProperties`, `propertyNames`,
 *   `dependentSchemas`, `prefixItems` and `items` (draft-07's tuple `items` and
 *   `additionalItems`), `allOf`, `anyOf` (at least one), `oneOf` (exactly one), `not`,
 *   `if`/`then`/`else`, `$ref`, boolean schemas, and `unevaluatedProperties` and
 *   `unevaluatedItems`, which see what every successful subschema evaluated.
 *
 * `INTEGERS` (from the schema table) is the binding's integer rule: `"json-schema"` counts `1.0`
 * as an integer (and equal to `1`), as JSON Schema does; `"exact"` tells them apart. A definition
 * from which a `schema` node is reachable is checked by this validator alone (`accepts`); every
 * other definition keeps the compiled yes-or-no pass.
 */

import { Issue } from "./errors.js";
import { PyFloat, escapeToken, jsonEqual, jsonType, keysOf, pyRepr, showNumber } from "./json.js";
import { DEFINITIONS, FORMATS, INTEGERS } from "./schema_table.js";
import { DROP, Validation as Base, accepts as acceptsTyped, greaterThan, has, isObject, length, lessThan, pattern, plain, show } from "./validation.js";
import type { Node } from "./validation.js";

export { DROP, plain };
export type { Node };

/** Every item of an array evaluated (the annotation of `items`). */
const ALL: unique symbol = Symbol("ALL");
type Items = Set<number> | typeof ALL;
/** What a subschema evaluated: property names, item indices (or ALL). */
type Ann = [props: Set<string>, items: Items];

/* eslint-disable @typescript-eslint/no-explicit-any */

/** The JSON type of a value under the binding's integer rule. */
function kindOf(value: unknown): string {
  if (value instanceof PyFloat) return INTEGERS === "json-schema" && Number.isInteger(value.value) ? "integer" : "number";
  return jsonType(value);
}

/** The Python type the reference binding holds a JSON value as (int and float kept apart). */
function pyType(value: unknown): string {
  if (value instanceof PyFloat) return "float";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (typeof value === "bigint") return "int";
  return jsonType(value);
}

/** JSON equality under the integer rule: by value (1 == 1.0) for json-schema, else 1 and 1.0
 * differ; a boolean is never a number. */
export function same(a: unknown, b: unknown): boolean {
  if (INTEGERS === "json-schema") return jsonEqual(a, b);
  const t = pyType(a);
  if (t !== pyType(b)) return false;
  if (t === "object") {
    const x = a as Record<string, unknown>, y = b as Record<string, unknown>;
    const kx = Object.keys(x);
    return kx.length === Object.keys(y).length && kx.every((k) => has(y, k) && same(x[k], y[k]));
  }
  if (t === "array") {
    const x = a as unknown[], y = b as unknown[];
    return x.length === y.length && x.every((v, i) => same(v, y[i]));
  }
  return jsonEqual(a, b);
}

/** The first pair of equal items (under the integer rule), for uniqueItems. */
export function firstDuplicate(items: readonly unknown[]): [number, number] | null {
  for (let i = 0; i < items.length; i++) for (let j = i + 1; j < items.length; j++) if (same(items[i], items[j])) return [i, j];
  return null;
}

/** Whether no two items are equal (uniqueItems): by a Set when every item is a string, else
 * pair by pair. */
export function distinct(items: readonly unknown[]): boolean {
  if (items.every((x) => typeof x === "string")) return new Set(items).size === items.length;
  return firstDuplicate(items) === null;
}

function isNumeric(value: unknown): boolean {
  return typeof value === "number" || typeof value === "bigint" || value instanceof PyFloat;
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** A number's decimal value, as it was written (the shortest text that reads back as it):
 * mantissa and power of ten. */
function decimal(value: unknown): [bigint, number] {
  const text = value instanceof PyFloat ? String(value.value) : String(value);
  const m = DECIMAL.exec(text);
  if (m === null) throw new RangeError(`not a finite number: ${text}`);
  const fraction = m[3] ?? "";
  return [BigInt(m[1]! + m[2]! + fraction), Number(m[4] ?? "0") - fraction.length];
}

/** Whether value is an integer multiple of divisor, exactly, on the decimal values the document
 * and the schema wrote (0.3 is a multiple of 0.1). */
export function multiple(value: unknown, divisor: number | bigint): boolean {
  const [am, ae] = decimal(value);
  const [bm, be] = decimal(divisor);
  const d = ae - be;
  return d >= 0 ? (am * 10n ** BigInt(d)) % bm === 0n : am % (bm * 10n ** BigInt(-d)) === 0n;
}

// -- formats (asserted only where the binding says so) ------------------------------------------
// Each as jsonschema's FormatChecker reads it (the reference; vocabulary.py says which checkers),
// Python's `re` included: its `$` also matches before a final newline (`\n?$` here), and it
// counts code points.

const DATE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;
const RFC3339 = /^([0-9]{4})-(0[1-9]|1[0-2])-([0-9]{2})T(?:[01][0-9]|2[0123]):(?:[0-5][0-9]):(?:[0-5][0-9])(?:\.[0-9]+)?(?:Z|[+-](?:[01][0-9]|2[0123]):[0-5][0-9])\n?$/;
const HEX = "[0-9A-Fa-f]";
const OCTET = "(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)";
const V4 = `(?:${OCTET}\\.){3}${OCTET}`;
const H16 = `${HEX}{1,4}`;
const LS32 = `(?:${H16}:${H16}|${V4})`;
const V6 =
  "(?:" +
  [
    `(?:${H16}:){6}${LS32}`,
    `::(?:${H16}:){5}${LS32}`,
    `(?:${H16})?::(?:${H16}:){4}${LS32}`,
    `(?:(?:${H16}:)?${H16})?::(?:${H16}:){3}${LS32}`,
    `(?:(?:${H16}:){0,2}${H16})?::(?:${H16}:){2}${LS32}`,
    `(?:(?:${H16}:){0,3}${H16})?::(?:${H16}:)${LS32}`,
    `(?:(?:${H16}:){0,4}${H16})?::${LS32}`,
    `(?:(?:${H16}:){0,5}${H16})?::${H16}`,
    `(?:(?:${H16}:){0,6}${H16})?::`,
  ].join("|") +
  ")";
const SUB = "a-zA-Z0-9_.~\\-!$&'()*+,;=";
const PCHAR = `(?:[${SUB}:@]|%${HEX}{2})`;
const QUERY = `(?:[${SUB}:@/?]|%${HEX}{2})*`;
const AUTHORITY = `(?:(?:[${SUB}:]|%${HEX}{2})*@)?(?:\\[(?:${V6}|v${HEX}+\\.[${SUB}:]+)\\]|${V4}|(?:[${SUB}]|%${HEX}{2})*)(?::[0-9]*)?`;
const URI = new RegExp(
  `^[a-zA-Z][a-zA-Z0-9+.-]*:(?://${AUTHORITY}(?:/${PCHAR}*)*|/(?:${PCHAR}+(?:/${PCHAR}*)*)?|${PCHAR}+(?:/${PCHAR}*)*|)(?:\\?${QUERY})?(?:#${QUERY})?\n?$`,
);
// fqdn's preferred name syntax on the lowered name: Python's `\d` is Unicode's decimal digits,
// and its [A-Z] ignoring case also takes the dotless i and the long s
const HOST = /^((?![-])[-a-z\p{Nd}\u0131\u017f]{1,63}(?<!-)[.])*(?!-)[-a-z\p{Nd}\u0131\u017f]{1,63}(?<!-)[.]?\n?$/u;
// what Python's str.isspace() holds (int() skips it around the digits)
const PY_SPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u;
const DIGIT = /\p{Nd}/u;
const PY_HEX_INT = /^ *[+-]?(?:0[xX](?:_?[0-9a-fA-F])+|[0-9a-fA-F](?:_?[0-9a-fA-F])*) *$/;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function monthDays(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS[month - 1]!;
}

function isDate(text: string): boolean {
  if (!DATE.test(text)) return false;
  const year = Number(text.slice(0, 4)), month = Number(text.slice(5, 7)), day = Number(text.slice(8, 10));
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= monthDays(year, month);
}

function isDateTime(text: string): boolean {
  const m = RFC3339.exec(text.toUpperCase());
  if (m === null) return false;
  const year = Number(m[1]), month = Number(m[2]), day = Number(m[3]);
  return year !== 0 && day >= 1 && day <= monthDays(year, month);
}

function isHostname(text: string): boolean {
  const name = text.toLowerCase();
  const length = Array.from(name).length;
  return length > 0 && length - (name.endsWith(".") ? 1 : 0) <= 253 && HOST.test(name);
}

/** Python's `uuid.UUID(text)` (its hex digits read by `int(..., 16)`), then a hyphen at each of
 * the four places jsonschema asks. */
function isUUID(text: string): boolean {
  let hex = text.split("urn:").join("").split("uuid:").join("");
  hex = hex.replace(/^[{}]+|[{}]+$/g, "").split("-").join("");
  const chars = Array.from(hex);
  if (chars.length !== 32) return false;
  const ascii = chars.map((c) => (PY_SPACE.test(c) ? " " : DIGIT.test(c) ? "0" : c)).join("");
  if (!PY_HEX_INT.test(ascii)) return false;
  const points = Array.from(text);
  return [8, 13, 18, 23].every((at) => points[at] === "-");
}

function isIPv4(text: string): boolean {
  const octets = text.split(".");
  return octets.length === 4 && octets.every((o) => /^[0-9]{1,3}$/.test(o) && Number(o) <= 255 && (o.length === 1 || o[0] !== "0"));
}

function isIPv6(text: string): boolean {
  if (text.includes("%")) return false;
  let groups = text.split(":");
  if (groups.length < 3) return false;
  let count = 0;
  const last = groups[groups.length - 1]!;
  if (last.includes(".")) {
    if (!isIPv4(last)) return false;
    groups = groups.slice(0, -1);
    groups.push("0", "0");
  }
  const gap = text.indexOf("::");
  if (gap !== text.lastIndexOf("::")) return false;
  if (gap >= 0) {
    if (groups[0] === "" && text.startsWith("::")) groups = groups.slice(1);
    if (groups[groups.length - 1] === "" && text.endsWith("::")) groups = groups.slice(0, -1);
  }
  for (const g of groups) {
    if (g === "") {
      if (gap < 0) return false;
      continue;
    }
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return false;
    count++;
  }
  const empties = groups.filter((g) => g === "").length;
  if (gap >= 0) return empties === 1 && count <= 7;
  return count === 8;
}

function compiles(text: string): boolean {
  try {
    new RegExp(text, "u");
    return true;
  } catch {
    return false;
  }
}

export const FORMAT_CHECKS: { readonly [format: string]: (text: string) => boolean } = {
  date: isDate,
  time: (t) => isDateTime("1970-01-01T" + t),
  "date-time": isDateTime,
  uuid: isUUID,
  email: (t) => t.includes("@"),
  uri: (t) => URI.test(t),
  hostname: isHostname,
  ipv4: isIPv4,
  ipv6: isIPv6,
  regex: compiles,
};

function why(failures: Issue[]): string {
  const first = failures[0];
  return first === undefined ? "" : ` (the first: ${first.pointer || "/"}: ${first.message})`;
}

function isFalse(node: Node): boolean {
  return node["bool"] === false;
}

// -- which definitions take the general validator ------------------------------------------------

let GENERAL: Set<string> | null = null;

/** The definitions from which a `schema` node is reachable: checked by this validator alone. */
function general(): Set<string> {
  if (GENERAL !== null) return GENERAL;
  const refs = new Map<string, Set<string>>();
  const found = new Set<string>();
  const walk = (node: unknown, name: string): void => {
    if (Array.isArray(node)) for (const v of node) walk(v, name);
    else if (node !== null && typeof node === "object") {
      const n = node as Node;
      if (n.kind === "schema") found.add(name);
      if (n.kind === "ref") refs.get(name)!.add(n["name"]);
      if (n.kind === "tagged") for (const member of Object.values(n["tags"] as Record<string, string>)) refs.get(name)!.add(member);
      for (const v of Object.values(n)) walk(v, name);
    }
  };
  for (const [name, node] of Object.entries(DEFINITIONS)) {
    refs.set(name, new Set());
    walk(node, name);
  }
  for (let changed = true; changed; ) {
    changed = false;
    for (const [name, targets] of refs) {
      if (found.has(name)) continue;
      for (const t of targets) {
        if (found.has(t)) {
          found.add(name);
          changed = true;
          break;
        }
      }
    }
  }
  GENERAL = found;
  return found;
}

/** Whether a document is a valid instance of a definition. */
export function accepts(definition: string, value: unknown): boolean {
  if (!general().has(definition)) return acceptsTyped(definition, value);
  const pass = new Validation(false);
  pass.run(value, definition);
  return pass.errorCount === 0;
}

/** The table interpreter with the `schema` kind, and the binding's integer rule. */
export class Validation extends Base {
  override check(value: any, node: Node, ptr: string, definition: string): any {
    switch (node.kind) {
      case "schema":
        return this.schema(value, node, ptr, definition);
      case "integer":
        if (value instanceof PyFloat && INTEGERS === "json-schema" && Number.isInteger(value.value)) return this.bounds(value, node, ptr, definition);
        break;
      case "const":
        // by value under json-schema; else as the reference compares (1 and 1.0 differ)
        if (!(INTEGERS === "json-schema" ? jsonEqual(value, node["value"]) : same(value, node["value"]))) {
          this.error(ptr, definition, "const", `expected ${show(node["value"])}, got ${show(value)}`, `#${node.loc}/const`);
        }
        return value;
    }
    return super.check(value, node, ptr, definition);
  }

  private schema(value: any, node: Node, ptr: string, definition: string): any {
    const lenient = this.lenient;
    this.lenient = false; // stripping is for the typed kinds only
    try {
      this.evaluate(value, node, ptr, definition);
    } finally {
      this.lenient = lenient;
    }
    return value;
  }

  /** Evaluate a subschema apart: whether it holds, its annotations, its errors. */
  trial(value: any, node: Node, ptr: string, definition: string): [boolean, Ann, Issue[]] {
    const before = this.errors.length;
    let ann: Ann;
    this.trials++;
    try {
      ann = this.evaluate(value, node, ptr, definition);
    } catch (e) {
      this.errors.splice(before);
      throw e;
    } finally {
      this.trials--;
    }
    const errors = this.errors.splice(before);
    return [errors.length === 0, ann, errors];
  }

  /** Check value against a node, appending errors; return what it evaluated (property names,
   * item indices), for unevaluatedProperties/unevaluatedItems above it. */
  evaluate(value: any, node: Node, ptr: string, definition: string): Ann {
    if (node.kind === "ref") {
      const name: string = node["name"];
      return this.evaluate(value, DEFINITIONS[name]!, ptr, name);
    }
    if (node.kind !== "schema") return this.typed(value, node, ptr, definition);
    const at = node.loc ?? "";
    const props = new Set<string>();
    let items: Items = new Set<number>();
    if (isFalse(node)) {
      this.error(ptr, definition, "false", "no value is valid here (the schema is false)", `#${at}`);
      return [props, items];
    }
    const merge = (ann: Ann): void => {
      for (const p of ann[0]) props.add(p);
      if (ann[1] === ALL || items === ALL) items = ALL;
      else for (const i of ann[1]) items.add(i);
    };
    if (has(node, "ref")) {
      const name: string = node["ref"];
      merge(this.evaluate(value, DEFINITIONS[name]!, ptr, name));
    }
    const kind = kindOf(value);
    const types = node["types"] as string[] | undefined;
    if (types != null && !types.includes(kind) && !(kind === "integer" && types.includes("number"))) {
      let got = kind;
      if (value instanceof PyFloat && types.includes("integer")) got = "a number with a fraction part (integers are written without one)";
      this.error(ptr, definition, "type", `expected ${types.join(" or ")}, got ${got}`, `#${at}/type`);
    }
    if (has(node, "const") && !same(value, node["const"][0])) {
      this.error(ptr, definition, "const", `expected ${show(node["const"][0])}, got ${show(value)}`, `#${at}/const`);
    }
    if (has(node, "enum")) {
      const values = node["enum"] as unknown[];
      if (!values.some((v) => same(value, v))) {
        const shown = values.slice(0, 10).map(show).join(", ") + (values.length > 10 ? ", ..." : "");
        this.error(ptr, definition, "enum", `${show(value)} is not one of ${shown}`, `#${at}/enum`);
      }
    }
    if (isNumeric(value)) this.numeric(value, node, ptr, definition);
    else if (typeof value === "string") this.textual(value, node, ptr, definition);
    else if (Array.isArray(value)) merge(this.elements(value, node, ptr, definition));
    else if (isObject(value)) merge(this.members(value, node, ptr, definition));
    for (const sub of (node["all_of"] as Node[] | undefined) ?? []) merge(this.evaluate(value, sub, ptr, definition));
    if (has(node, "any_of")) {
      let passed = false;
      const failures: Issue[] = [];
      for (const sub of node["any_of"] as Node[]) {
        const [ok, ann, errs] = this.trial(value, sub, ptr, definition);
        if (ok) {
          passed = true;
          merge(ann);
        } else failures.push(...errs.slice(0, 1));
      }
      if (!passed) this.error(ptr, definition, "anyOf", "matches none of the anyOf members" + why(failures), `#${at}/anyOf`);
    }
    if (has(node, "one_of")) {
      const matched: number[] = [];
      const failures: Issue[] = [];
      let kept: Ann | null = null;
      const members = node["one_of"] as Node[];
      for (let i = 0; i < members.length; i++) {
        const [ok, ann, errs] = this.trial(value, members[i]!, ptr, definition);
        if (ok) {
          matched.push(i);
          kept = ann;
        } else failures.push(...errs.slice(0, 1));
      }
      if (matched.length === 1 && kept !== null) merge(kept);
      else if (matched.length === 0) this.error(ptr, definition, "oneOf", "matches none of the oneOf members" + why(failures), `#${at}/oneOf`);
      else this.error(ptr, definition, "oneOf", `matches oneOf members [${matched.join(", ")}], where exactly one must match`, `#${at}/oneOf`);
    }
    if (has(node, "not") && this.trial(value, node["not"], ptr, definition)[0]) {
      this.error(ptr, definition, "not", "matches the schema under not", `#${at}/not`);
    }
    if (has(node, "if")) {
      const [ok, ann] = this.trial(value, node["if"], ptr, definition);
      if (ok) {
        merge(ann);
        if (has(node, "then")) merge(this.evaluate(value, node["then"], ptr, definition));
      } else if (has(node, "else")) merge(this.evaluate(value, node["else"], ptr, definition));
    }
    if (isObject(value)) {
      const deps = node["dependent_schemas"] as Record<string, Node> | undefined;
      if (deps != null) for (const prop of keysOf(deps)) if (has(value, prop)) merge(this.evaluate(value, deps[prop]!, ptr, definition));
      if (has(node, "unevaluated_properties")) {
        const sub = node["unevaluated_properties"] as Node;
        for (const key of keysOf(value)) {
          if (props.has(key)) continue;
          const [ok, , errs] = this.trial(value[key], sub, `${ptr}/${escapeToken(key)}`, definition);
          if (ok) continue;
          if (isFalse(sub)) this.error(ptr, definition, "unevaluatedProperties", `unknown property ${pyRepr(key)}`, `#${at}/unevaluatedProperties`);
          else this.adopt(errs);
        }
        for (const key of keysOf(value)) props.add(key);
      }
    }
    if (Array.isArray(value) && has(node, "unevaluated_items")) {
      const sub = node["unevaluated_items"] as Node;
      value.forEach((member, i) => {
        if (items === ALL || items.has(i)) return;
        const [ok, , errs] = this.trial(member, sub, `${ptr}/${i}`, definition);
        if (ok) return;
        if (isFalse(sub)) this.error(ptr, definition, "unevaluatedItems", `item ${i} is not allowed here`, `#${at}/unevaluatedItems`);
        else this.adopt(errs);
      });
      items = ALL;
    }
    return [props, items];
  }

  /** A typed node inside a general one: checked by its own kind; what it evaluated. */
  private typed(value: any, node: Node, ptr: string, definition: string): Ann {
    this.check(value, node, ptr, definition);
    return this.annotate(value, node, ptr, definition);
  }

  /** What a node evaluated of a value, without reporting anything. */
  annotate(value: any, node: Node, ptr: string, definition: string): Ann {
    switch (node.kind) {
      case "ref": {
        const name: string = node["name"];
        return this.annotate(value, DEFINITIONS[name]!, ptr, name);
      }
      case "schema":
        return this.trial(value, node, ptr, definition)[1];
      case "object":
        if (isObject(value)) {
          if (node["closed"] != null) return [new Set(keysOf(value)), new Set()];
          return [new Set(keysOf(value).filter((k) => has(node["fields"], k))), new Set()];
        }
        break;
      case "map":
        if (isObject(value)) return [node["values"] != null ? new Set(keysOf(value)) : new Set(), new Set()];
        break;
      case "tagged":
        if (isObject(value)) {
          const tag = value[node["field"]];
          const tags = node["tags"] as Record<string, string>;
          const member = typeof tag === "string" && has(tags, tag) ? tags[tag] : undefined;
          if (member !== undefined) return this.annotate(value, DEFINITIONS[member]!, ptr, member);
        }
        break;
      case "union": {
        const got = jsonType(value);
        for (const [kinds, member] of node["members"] as [string[], Node][]) {
          if (kinds.includes(got) || (got === "integer" && kinds.includes("number"))) return this.annotate(value, member, ptr, definition);
        }
        break;
      }
      case "array":
        if (Array.isArray(value)) return [new Set(), ALL];
        break;
    }
    return [new Set(), new Set()];
  }

  private numeric(value: unknown, node: Node, ptr: string, definition: string): void {
    const at = node.loc ?? "";
    const shown = showNumber(value);
    const lo = node["minimum"], hi = node["maximum"], xlo = node["exclusive_minimum"], xhi = node["exclusive_maximum"];
    if (lo != null && lessThan(value, lo)) this.error(ptr, definition, "minimum", `${shown} is less than the minimum ${showNumber(lo)}`, `#${at}/minimum`);
    if (hi != null && greaterThan(value, hi)) this.error(ptr, definition, "maximum", `${shown} is greater than the maximum ${showNumber(hi)}`, `#${at}/maximum`);
    if (xlo != null && !greaterThan(value, xlo)) this.error(ptr, definition, "exclusiveMinimum", `${shown} is not greater than ${showNumber(xlo)}`, `#${at}/exclusiveMinimum`);
    if (xhi != null && !lessThan(value, xhi)) this.error(ptr, definition, "exclusiveMaximum", `${shown} is not less than ${showNumber(xhi)}`, `#${at}/exclusiveMaximum`);
    const step = node["multiple_of"];
    if (step != null && !multiple(value, step)) this.error(ptr, definition, "multipleOf", `${shown} is not a multiple of ${showNumber(step)}`, `#${at}/multipleOf`);
  }

  private textual(value: string, node: Node, ptr: string, definition: string): void {
    const at = node.loc ?? "";
    const least = node["min_length"], most = node["max_length"];
    if (least != null || most != null) {
      const n = length(value);
      if (least != null && n < least) this.error(ptr, definition, "minLength", `is ${n} characters long, shorter than ${least}`, `#${at}/minLength`);
      if (most != null && n > most) this.error(ptr, definition, "maxLength", `is ${n} characters long, longer than ${most}`, `#${at}/maxLength`);
    }
    const source = node["pattern"];
    if (source != null && !pattern(source).test(value)) this.error(ptr, definition, "pattern", `${show(value)} does not match ${node["source"] ?? source}`, `#${at}/pattern`);
    const format = node["format"];
    if (format != null && FORMATS) {
      const check = has(FORMAT_CHECKS, format) ? FORMAT_CHECKS[format] : undefined;
      if (check !== undefined && !check(value)) this.error(ptr, definition, "format", `${show(value)} is not a valid ${format}`, `#${at}/format`);
    }
  }

  private elements(value: unknown[], node: Node, ptr: string, definition: string): Ann {
    const at = node.loc ?? "";
    let items: Items = new Set<number>();
    const prefix = node["prefix_items"] as Node[] | undefined;
    if (prefix != null) {
      const n = Math.min(prefix.length, value.length);
      for (let i = 0; i < n; i++) this.evaluate(value[i], prefix[i]!, `${ptr}/${i}`, definition);
      items = new Set(Array.from({ length: n }, (_, i) => i));
    }
    const rest = node["items"] as Node | undefined;
    if (rest != null) {
      const start = prefix != null ? prefix.length : 0;
      if (isFalse(rest) && value.length > start) {
        const keyword: string = node["items_keyword"] ?? "items";
        this.error(ptr, definition, keyword, `has ${value.length} items, where at most ${start} are allowed`, `#${at}/${keyword}`);
      } else {
        for (let i = start; i < value.length; i++) this.evaluate(value[i], rest, `${ptr}/${i}`, definition);
      }
      items = ALL;
    }
    const contains = node["contains"] as Node | undefined;
    if (contains != null) {
      const found = new Set<number>();
      value.forEach((member, i) => {
        if (this.trial(member, contains, `${ptr}/${i}`, definition)[0]) found.add(i);
      });
      const least: number = node["min_contains"] ?? 1;
      const most = node["max_contains"];
      if (found.size < least) {
        const keyword = has(node, "min_contains") ? "minContains" : "contains";
        this.error(ptr, definition, keyword, `holds ${found.size} matching item(s), fewer than ${least}`, `#${at}/${keyword}`);
      }
      if (most != null && found.size > most) this.error(ptr, definition, "maxContains", `holds ${found.size} matching items, more than ${most}`, `#${at}/maxContains`);
      if (items !== ALL) for (const i of found) items.add(i);
    }
    const least = node["min_items"], most = node["max_items"];
    if (least != null && value.length < least) this.error(ptr, definition, "minItems", `has ${value.length} items, fewer than the minimum ${least}`, `#${at}/minItems`);
    if (most != null && value.length > most) this.error(ptr, definition, "maxItems", `has ${value.length} items, more than the maximum ${most}`, `#${at}/maxItems`);
    if (node["unique_items"]) {
      const pair = firstDuplicate(value);
      if (pair !== null) this.error(ptr, definition, "uniqueItems", `items ${pair[0]} and ${pair[1]} are equal`, `#${at}/uniqueItems`);
    }
    return [new Set(), items];
  }

  private members(value: Record<string, unknown>, node: Node, ptr: string, definition: string): Ann {
    const at = node.loc ?? "";
    const props = new Set<string>();
    for (const name of (node["required"] as string[] | undefined) ?? []) {
      if (!has(value, name)) this.error(ptr, definition, "required", `missing required property ${pyRepr(name)}`, `#${at}/required`);
    }
    const deps = node["dependent_required"] as Record<string, string[]> | undefined;
    if (deps != null) {
      const keyword: string = node["dependencies_keyword"] ?? "dependentRequired";
      for (const prop of keysOf(deps)) {
        if (!has(value, prop)) continue;
        for (const name of deps[prop]!) {
          if (!has(value, name)) this.error(ptr, definition, keyword, `${pyRepr(prop)} is present, so ${pyRepr(name)} is required`, `#${at}/${keyword}`);
        }
      }
    }
    const count = keysOf(value).length;
    const least = node["min_properties"], most = node["max_properties"];
    if (least != null && count < least) this.error(ptr, definition, "minProperties", `has ${count} properties, fewer than ${least}`, `#${at}/minProperties`);
    if (most != null && count > most) this.error(ptr, definition, "maxProperties", `has ${count} properties, more than ${most}`, `#${at}/maxProperties`);
    const names = node["property_names"] as Node | undefined;
    if (names != null) {
      for (const key of keysOf(value)) {
        const [ok, , errs] = this.trial(key, names, ptr, definition);
        if (ok) continue;
        const first = errs[0];
        this.error(ptr, definition, "propertyNames", `property name ${show(key)}: ${first?.message ?? "refused"}`, first?.schemaLocation ?? `#${at}/propertyNames`);
      }
    }
    const properties = node["properties"] as Record<string, Node> | undefined;
    const patterns = node["pattern_properties"] as { pattern: string; schema: Node }[] | undefined;
    const extra = node["additional_properties"] as Node | undefined;
    if (properties == null && patterns == null && extra == null) return [props, new Set()];
    for (const key of keysOf(value)) {
      const member = value[key];
      const sub = `${ptr}/${escapeToken(key)}`;
      let known = false;
      if (properties != null && has(properties, key)) {
        known = true;
        this.evaluate(member, properties[key]!, sub, definition);
      }
      if (patterns != null) {
        for (const entry of patterns) {
          if (pattern(entry.pattern).test(key)) {
            known = true;
            this.evaluate(member, entry.schema, sub, definition);
          }
        }
      }
      if (known) props.add(key);
      else if (extra != null) {
        if (isFalse(extra)) this.error(ptr, definition, "additionalProperties", `unknown property ${pyRepr(key)}`, `#${at}/additionalProperties`);
        else this.evaluate(member, extra, sub, definition);
        props.add(key);
      }
    }
    return [props, new Set()];
  }
}
