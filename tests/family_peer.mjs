// The TypeScript binding's family router as a peer of the Python one (tests/test_families.py):
// each stdin line a session {"messages": [[party, document], ...], "table"?, "forced"?, "hold"?},
// each stdout line what the router did with it: the deliveries (index, revision), the family's
// findings, the description and the segments. argv[2]: the built package's dist/src/index.js.
import { createInterface } from "node:readline";

const { Router } = await import(process.argv[2]);
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const job = JSON.parse(line);
  let router;
  try {
    router = new Router(job.table ?? undefined, job.forced ?? null, job.hold ?? 64);
  } catch (e) {
    console.log(JSON.stringify({ error: String(e.message) }));
    continue;
  }
  const routed = [];
  const findings = [];
  const take = ([deliveries, found]) => {
    for (const d of deliveries) routed.push([d.index, d.revision]);
    for (const f of found) findings.push([f.rule, f.level, f.index, f.message, f.ref]);
  };
  for (const [party, document] of job.messages) take(router.feed(party, document));
  take(router.finish());
  console.log(JSON.stringify({ routed, findings, describe: router.describe(), segments: router.segments }));
}
