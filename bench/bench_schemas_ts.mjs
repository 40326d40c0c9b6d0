// The TypeScript half of bench_schemas_ts.py: one schema's generated package (built) against ajv
// on the same documents, in one Node process. Reads a job (JSON) from argv[2], prints JSON.
//
// job: {package, draft, schema, pointers, ajv_from, rounds, round_ms, documents: [[definition, text, valid]]}
// - agreement: each tool's verdict on every document against jsonschema's label (`valid`);
// - speed: the valid documents both tools accept, from the text: ours `decode(text, definition)`
//   (text to typed value, every constraint, strict), ajv `validate(JSON.parse(text))`; CPU time of
//   this process (process.cpuUsage), rounds interleaved, the best reported and the median kept.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const job = JSON.parse(readFileSync(process.argv[2], "utf8"));
const ours = await import(pathToFileURL(job.package).href);
const require = createRequire(job.ajv_from);
const Ajv = job.draft === "2020-12" ? require("ajv/dist/2020").default : require("ajv").default;
const ajvVersion = require("ajv/package.json").version;

// formats are annotations (as for jsonschema, the reference); unknown keywords are not errors
const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: false });
const sid = typeof job.schema.$id === "string" ? job.schema.$id : "urn:specbind:schema";
ajv.addSchema({ ...job.schema, $id: sid });
const validators = new Map();
const refused = [];
function ajvFor(definition) {
  if (!validators.has(definition)) {
    const pointer = job.pointers[definition] ?? `#/$defs/${definition}`;
    try {
      validators.set(definition, ajv.compile({ $ref: sid + pointer }));
    } catch (e) {
      refused.push(`${definition}: ${String(e.message ?? e).slice(0, 160)}`);
      validators.set(definition, null);
    }
  }
  return validators.get(definition);
}

const tools = {
  specbind: (d) => (text) => { ours.decode(text, d); return true; },
  ajv: (d) => { const v = ajvFor(d); return v === null ? null : (text) => v(JSON.parse(text)) === true; },
};
function verdict(fn, text) {
  try { return fn(text) !== false; } catch { return false; }
}
const agreement = {};
const accepted = { specbind: new Set(), ajv: new Set() };
for (const [name, make] of Object.entries(tools)) {
  let judged = 0, agree = 0, fa = 0, fr = 0;
  job.documents.forEach(([d, text, truth], i) => {
    const fn = make(d);
    if (fn === null) return;
    const got = verdict(fn, text);
    judged++; agree += got === truth; fa += got && !truth; fr += truth && !got;
    if (got) accepted[name].add(i);
  });
  agreement[name] = { judged, agree, false_accepts: fa, false_rejects: fr };
}
const common = job.documents.map((doc, i) => [doc, i]).filter(([[, , truth], i]) => truth && accepted.specbind.has(i) && accepted.ajv.has(i)).map(([doc]) => doc);
const timed = {};
for (const [name, make] of Object.entries(tools)) timed[name] = common.map(([d, text]) => [make(d), text]);
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e3; };  // ms
const reps = {};
for (const [name, pairs] of Object.entries(timed)) {
  for (const [fn, text] of pairs) fn(text);  // warm up
  const start = cpu();
  for (const [fn, text] of pairs) fn(text);
  reps[name] = Math.max(1, Math.round(job.round_ms / Math.max(cpu() - start, 0.01)));
}
const samples = { specbind: [], ajv: [] };
for (let r = 0; r < job.rounds && common.length; r++) {
  for (const [name, pairs] of Object.entries(timed)) {
    const start = cpu();
    for (let k = 0; k < reps[name]; k++) for (const [fn, text] of pairs) fn(text);
    samples[name].push((reps[name] * pairs.length) / ((cpu() - start) / 1e3));
  }
}
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : 0; };
const speed = {}, med = {};
for (const [name, xs] of Object.entries(samples)) { speed[name] = xs.length ? Math.max(...xs) : 0; med[name] = median(xs); }
console.log(JSON.stringify({ node: process.version, ajv: ajvVersion, common: common.length, agreement, speed, median: med, rounds: samples, ajv_refused: refused }));
