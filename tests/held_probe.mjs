// What a TypeScript package holds after a decode (run with --expose-gc): each probe decodes a
// large document in a function, keeps at most one small thing from it, and prints how far the
// heap grew once collected (bytes), by probe name:
//
//   node --expose-gc held_probe.mjs <dist/src/index.js> <items> [probe,...]
//
// The decode runs in a function of its own, never in this module's top-level code: a value the
// top level computed stays in its frame until overwritten, which the heap would count (2.4 MB
// after a lenient decode of 200,000 floats, none of it the package's).
import { pathToFileURL } from "node:url";

const index = process.argv[2];
const C = await import(pathToFileURL(index).href);
const J = await import(pathToFileURL(index.replace(/index\.js$/, "json.js")).href);
const ITEMS = Number(process.argv[3]);
const heap = () => {
  for (let i = 0; i < 4; i++) globalThis.gc();
  return process.memoryUsage().heapUsed;
};

const LONG = "a source name long enough to be a view";
const padding = () => Array.from({ length: ITEMS }, (_, i) => `"padding text number ${i} of the document"`).join(",");
// a RAW event read exactly (a `1.0` in it), its padding ~40 bytes an item, `source` given last
const raw = (number, tail) => `{"type":"RAW","event":{"n":${number},"items":[${padding()}]${tail}},"source":"${LONG}"}`;
const floats = (extra) => `{"type":"RAW","event":[${Array(ITEMS).fill("1.0").join(",")}]${extra}}`;

// each probe: the one thing kept (null: nothing), from a document made inside it
const PROBES = {
  // a decode that refuses a document read exactly, and a lenient one that copies it
  refused_document: () => {
    try {
      C.decode(floats(',"bogus":1'));
    } catch (e) {
      if (e instanceof C.DecodeError) return null;
      throw e;
    }
    throw new Error("decoded a document with an unknown member");
  },
  lenient_document: () => (C.decodeLenient(floats("")).value.event.length === ITEMS ? null : "lost items"),
  // one string kept from a document read exactly: a value, a value with an escape (the scanner's
  // own reading), the same through a lenient decode, a member name, the names of an object in
  // document order (an index-named member first), the message of a refused number, and the
  // string the grammar alone reads from an event (`memberScalar`)
  value: () => C.decode(raw("1.0", "")).source,
  escaped: () => C.decode(raw("1.0", "").replace(`"${LONG}"`, `"${LONG}\\n${LONG}"`)).source,
  lenient_value: () => C.decodeLenient(raw("1.0", "")).value.source,
  member_name: () => Object.keys(C.decode(raw("1.0", `,"${LONG}":1`)).event)[2],
  ordered_names: () => J.keysOf(C.decode(raw("1.0", `,"0":1,"${LONG}":1`)).event),
  refused_message: () => {
    try {
      C.decode(raw("1234567890.123e999", ""));
    } catch (e) {
      if (e instanceof C.DecodeError) return e.errors[0].message;
      throw e;
    }
    throw new Error("decoded a number past a double");
  },
  member_scalar: () => J.memberScalar(raw("1.0", ""), "source"),
  // an automaton's last event read exactly (the reader kept it until its next exact read)
  automaton_document: () => {
    const automaton = new C.Automaton();
    automaton.feedText(floats(""));
    automaton.feedDocument(new TextEncoder().encode(floats("")));
    return automaton.findings.length ? "findings" : null;
  },
  // the ids of a finding about a long id (the automaton quotes MAX_SHOWN characters of it)
  finding_ids: () => {
    const automaton = new C.Automaton();
    automaton.feed({ type: "RUN_STARTED", threadId: "t", runId: "r" });
    automaton.feed({ type: "TEXT_MESSAGE_CONTENT", messageId: `m${padding()}`, delta: "hi" });
    return automaton.findings.flatMap((f) => f.ids);
  },
  // the keys an automaton past its findings cap remembers refused lines by (as replay feeds it:
  // each line a slice of the text it read, a view V8 keeps the whole text behind)
  refusal_keys: () => {
    const automaton = new C.Automaton(null, 0);
    automaton.bulk = true;
    const text = Array.from({ length: ITEMS }, (_, i) => `{"k":"${LONG} ${i}"}`).join("\n");
    for (let from = 0, i = 0; i < 20; i++) {
      const to = text.indexOf("\n", from);
      automaton.feedText(text.slice(from, to));
      from = to + 1;
    }
    return automaton.omitted === 20 ? [automaton] : null;
  },
};

// every path warmed first: optimized code is what a long run's strings come from
for (let i = 0; i < 3000; i++) {
  C.decode(`{"type":"RAW","event":{"n":1.0,"k${i % 7}":"${LONG} ${i}","0":[1.0]},"source":"${LONG}\\n${i}"}`);
  C.decodeLenient(`{"type":"RAW","event":{"n":1.0},"source":"${LONG} ${i}"}`);
  J.memberScalar(`{"type":"RAW","source":"${LONG} ${i}","n":[1.5,2]}`, "source");
}

function held(name) {
  const before = heap();
  const kept = PROBES[name]();
  const grown = heap() - before;
  if (kept !== null && !kept.length) throw new Error(`${name}: nothing kept`);
  if (typeof kept === "string" && kept.length >= ITEMS) throw new Error(`${name}: kept the document`);
  return grown;
}

const names = process.argv[4] ? process.argv[4].split(",") : Object.keys(PROBES);
const out = { text: raw("1.0", "").length };
for (const name of names) out[name] = held(name);
console.log(JSON.stringify(out));
