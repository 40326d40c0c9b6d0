/** What the codecs report: every problem in a document, each located exactly. */

/** One problem (or, from lenient decoding, one stripped member) in a document. `pointer` is the
 * JSON Pointer of the instance the failing keyword applies to (for a warning: of the member that
 * was stripped); `definition` the schema definition being checked there; `keyword` the JSON
 * Schema keyword that failed (`json` for bytes that are not JSON); `schemaLocation` where that
 * keyword sits in the schema. */
export class Issue {
  constructor(
    readonly pointer: string,
    readonly definition: string,
    readonly keyword: string,
    readonly message: string,
    readonly schemaLocation: string = "",
  ) {}

  asDict(): { pointer: string; definition: string; keyword: string; message: string; schemaLocation: string } {
    return { pointer: this.pointer, definition: this.definition, keyword: this.keyword, message: this.message, schemaLocation: this.schemaLocation };
  }

  toString(): string {
    return `${this.pointer || "/"}: ${this.message} [${this.keyword}, ${this.definition}]`;
  }
}

/** A document that is not what the schema says. `errors` holds the problems found, the first
 * MAX_ERRORS of them (or as many as the call asked for); `count` how many there were in all. */
export class ValidationError extends Error {
  readonly errors: readonly Issue[];
  readonly count: number;
  constructor(readonly definition: string, errors: Issue[], count: number = errors.length) {
    const head = `not a valid ${definition}: ${count} error${count !== 1 ? "s" : ""}`;
    const lines = [head, ...errors.map(String)];
    if (count > errors.length) lines.push(`... and ${count - errors.length} more`);
    super(lines.join("\n  "));
    this.errors = errors;
    this.count = count;
  }
}

/** Bytes or text that do not decode as the requested definition. A lenient decode that fails
 * still says what it stripped before it did: `warnings` (the first maxErrors, as
 * `Decoded.warnings`) and `warningsOmitted` (how many more there were). */
export class DecodeError extends ValidationError {
  constructor(
    definition: string,
    errors: Issue[],
    count: number = errors.length,
    readonly warnings: readonly Issue[] = [],
    readonly warningsOmitted: number = 0,
  ) {
    super(definition, errors, count);
  }
}

/** A value that would not encode to a document the schema accepts. */
export class EncodeError extends ValidationError {}
