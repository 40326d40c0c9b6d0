/**
 * Server-Sent Events framing for an event-stream binding: each SSE event's data is exactly one
 * document, every other field is ignored. The decoder accepts the whole event-stream grammar of
 * the HTML standard (CR, LF and CRLF line ends, a CRLF split between chunks, a leading byte order
 * mark, several `data:` lines joined with LF, comments, other fields ignored) on bytes split
 * anywhere; an event the stream ends inside is discarded, and `finish` says whether that
 * happened. The encoder writes LF line ends and one `data:` line per line of the document.
 */

export const MEDIA_TYPE = "text/event-stream";

const CR = 0x0d;
const LF = 0x0a;

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function startsWith(line: Uint8Array, prefix: readonly number[]): boolean {
  if (line.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (line[i] !== prefix[i]) return false;
  return true;
}

const DATA_SPACE = [0x64, 0x61, 0x74, 0x61, 0x3a, 0x20];
const DATA_COLON = [0x64, 0x61, 0x74, 0x61, 0x3a];
const BOM = [0xef, 0xbb, 0xbf];

/** Incremental decoder: `feed` bytes as they arrive, get each completed event's data. The data
 * lines of the event being received are copied into one growing buffer as they come (a view
 * per line would cost far more than its bytes on an event of many short lines). */
export class SSEDecoder {
  private tail: Uint8Array[] = [];
  private data = new Uint8Array(256);
  private size = 0; // bytes of `data` in use
  private lines = 0; // data lines of the event being received
  private skipLf = false;
  private start: Uint8Array | null = new Uint8Array(0);

  private append(line: Uint8Array, from: number): void {
    const n = line.length - from + (this.lines ? 1 : 0);
    if (this.size + n > this.data.length) {
      const grown = new Uint8Array(Math.max(2 * this.data.length, this.size + n));
      grown.set(this.data.subarray(0, this.size));
      this.data = grown;
    }
    if (this.lines) this.data[this.size++] = LF;
    this.data.set(line.subarray(from), this.size);
    this.size += line.length - from;
    this.lines++;
  }

  private line(line: Uint8Array, out: Uint8Array[]): void {
    if (!line.length) {
      if (this.lines) {
        out.push(this.data.slice(0, this.size));
        this.size = 0;
        this.lines = 0;
        if (this.data.length > 1 << 16) this.data = new Uint8Array(256);
      }
    } else if (startsWith(line, DATA_SPACE)) this.append(line, 6);
    else if (startsWith(line, DATA_COLON)) this.append(line, 5);
    else if (line.length === 4 && startsWith(line, DATA_COLON.slice(0, 4))) this.append(line, 4);
  }

  feed(chunk: Uint8Array): Uint8Array[] {
    if (!chunk.length) return [];
    if (this.start !== null) {
      chunk = concat([this.start, chunk]);
      if (chunk.length < 3 && BOM.slice(0, chunk.length).every((b, i) => chunk[i] === b)) {
        this.start = chunk;
        return [];
      }
      this.start = null;
      if (startsWith(chunk, BOM)) chunk = chunk.subarray(3);
    }
    if (this.skipLf) {
      this.skipLf = false;
      if (chunk[0] === LF) chunk = chunk.subarray(1);
    }
    const out: Uint8Array[] = [];
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      if (c === LF || c === CR) {
        let line = chunk.subarray(from, i);
        if (this.tail.length) {
          this.tail.push(line);
          line = concat(this.tail);
          this.tail = [];
        }
        this.line(line, out);
        if (c === CR) {
          if (i + 1 < chunk.length) {
            if (chunk[i + 1] === LF) i++;
          } else this.skipLf = true;
        }
        from = i + 1;
      }
    }
    if (from < chunk.length) this.tail.push(chunk.subarray(from));
    return out;
  }

  /** End of stream: true when it ended inside an event, whose data is then discarded. */
  finish(): boolean {
    let tail = concat(this.tail.length ? this.tail : [new Uint8Array(0)]);
    if (this.start !== null && this.start.length) tail = this.start;
    const cut = this.lines > 0 || (tail.length > 0 && tail[0] !== 0x3a);
    this.tail = [];
    this.size = 0;
    this.lines = 0;
    this.skipLf = false;
    this.start = new Uint8Array(0);
    return cut;
  }
}

/** One SSE event carrying a document: `data:` lines and a blank line, LF line ends only. */
export function encode(data: string): string {
  if (data.includes("\n") || data.includes("\r")) {
    return data.replace(/\r\n/g, "\n").replace(/\r/g, "\n").split("\n").map((line) => `data: ${line}\n`).join("") + "\n";
  }
  return `data: ${data}\n\n`;
}
