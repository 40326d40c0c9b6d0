// The TypeScript binding against the official Node packages, in one process on one corpus
// (bench/bench_typescript.py runs it): rounds interleaved, the median reported.
//
//   decode      ours: codec decode(line) (JSON.parse + the strict validator: every constraint)
//               zod:  EventSchemas.parse(JSON.parse(line))        (@ag-ui/core/schemas)
//   validate    the same from pre-parsed events: check(ev) vs EventSchemas.parse(ev)
//   automaton   ours: new Automaton(); feed(ev) for every pre-parsed event; finish()  (every rule)
//               verifyEvents: from(events).pipe(verifyEvents()) subscribed (@ag-ui/client)
//
// usage: node bench_typescript.mjs BUILT_PACKAGE_DIR NODE_MODULES_DIR CORPUS.jsonl ROUNDS
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [built, nodeModules, corpusPath, roundsArg] = process.argv.slice(2);
const rounds = Number(roundsArg || 5);
const req = createRequire(join(nodeModules, "x.js"));
const ours = await import(pathToFileURL(join(built, "dist/src/index.js")).href);
const { Automaton } = await import(pathToFileURL(join(built, "dist/src/automaton.js")).href);
const { TABLES } = await import(pathToFileURL(join(built, "dist/src/automaton_table.js")).href);
const { EventSchemas } = req("@ag-ui/core/schemas");
const { verifyEvents } = req("@ag-ui/client");
const { from } = req("rxjs");

const lines = readFileSync(corpusPath, "utf8").split("\n").filter((l) => l);
const events = lines.map((l) => JSON.parse(l));
const n = lines.length;
const now = () => Number(process.hrtime.bigint()) / 1e9;

const rows = {
  "decode: ours (strict)": () => { let bad = 0; for (let i = 0; i < n; i++) { try { ours.decode(lines[i]); } catch { bad++; } } return bad; },
  "decode: zod (JSON.parse + EventSchemas.parse)": () => { let bad = 0; for (let i = 0; i < n; i++) { try { EventSchemas.parse(JSON.parse(lines[i])); } catch { bad++; } } return bad; },
  "validate: ours (check, pre-parsed)": () => { let bad = 0; for (let i = 0; i < n; i++) { try { ours.check(events[i]); } catch { bad++; } } return bad; },
  "validate: zod (EventSchemas.parse, pre-parsed)": () => { let bad = 0; for (let i = 0; i < n; i++) { try { EventSchemas.parse(events[i]); } catch { bad++; } } return bad; },
  "automaton: ours (every rule)": () => { const a = new Automaton(); for (let i = 0; i < n; i++) a.feed(events[i]); a.finish(); return a.findings.length; },
  "automaton: verifyEvents": () => { let seen = 0, err = 0; from(events).pipe(verifyEvents()).subscribe({ next: () => { seen++; }, error: () => { err++; } }); return err + (n - seen); },
};

const times = Object.fromEntries(Object.keys(rows).map((k) => [k, []]));
const answers = {};
for (const fn of Object.values(rows)) fn(); // warm up
for (let r = 0; r < rounds; r++) {
  for (const [name, fn] of Object.entries(rows)) {
    const t0 = now();
    answers[name] = fn();
    times[name].push(now() - t0);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const result = { node: process.version, events: n, rounds, rules_checked: { ours: Object.keys(TABLES.rules).length }, rows: {} };
for (const name of Object.keys(rows)) {
  const s = median(times[name]);
  result.rows[name] = { seconds: +s.toFixed(4), events_per_s: Math.round(n / s), refused_or_findings: answers[name], all: times[name].map((t) => +t.toFixed(4)) };
}
const ratio = (a, b) => +(result.rows[b].seconds / result.rows[a].seconds).toFixed(2);
result.ratios = {
  "decode: ours vs zod": ratio("decode: ours (strict)", "decode: zod (JSON.parse + EventSchemas.parse)"),
  "validate: ours vs zod": ratio("validate: ours (check, pre-parsed)", "validate: zod (EventSchemas.parse, pre-parsed)"),
  "automaton: ours vs verifyEvents": ratio("automaton: ours (every rule)", "automaton: verifyEvents"),
};
console.log(JSON.stringify(result, null, 1));
