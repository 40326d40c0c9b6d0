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

/** A document that is not what the schema says; `errors` holds every problem found. */
export class ValidationError extends Error {
  readonly errors: readonly Issue[];
  constructor(readonly definition: string, errors: Issue[]) {
    const head = `not a valid ${definition}: ${errors.length} error${errors.length !== 1 ? "s" : ""}`;
    super([head, ...errors.map(String)].join("\n  "));
    this.errors = errors;
  }
}

/** Bytes or text that do not decode as the requested definition. */
export class DecodeError extends ValidationError {}

/** A value that would not encode to a document the schema accepts. */
export class EncodeError extends ValidationError {}
