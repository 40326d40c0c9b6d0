#!/usr/bin/env node
// The official AG-UI Node client (@ag-ui/client HttpAgent) run many times in one process, as a
// peer for the generated-stream tests (tests/test_generated_streams.py): one node start for a
// whole batch. Packages resolve from tests/node (installed by `make` setup).
//
//   node tests/http_peer_many.cjs URL < requests.jsonl
//
// Each input line is a request ({"threadId", "runId", "messages", ...}); for each, in order, a
// fresh HttpAgent runs it against URL and one output line reports {"types": [event types its
// subscribers saw], "error": null | message, "warnings": [...], "unhandled": [...]}.
"use strict";
const path = require("path");

const NODE_DIR = process.env.SPECBIND_NODE_DIR || path.join(__dirname, "node");
const load = (name) => require(require.resolve(name, { paths: [NODE_DIR] }));
const { HttpAgent } = load("@ag-ui/client");

let unhandled = [];
process.on("unhandledRejection", (reason) => {
  unhandled.push(String(reason && reason.stack ? reason.stack.split("\n")[0] : reason));
});

async function one(url, request) {
  const warnings = [];
  const originalWarn = console.warn;
  const originalError = console.error;
  console.warn = (...args) => warnings.push(args.map(String).join(" ").slice(0, 300));
  console.error = (...args) => warnings.push(args.map(String).join(" ").slice(0, 300));
  const agent = new HttpAgent({ url, threadId: request.threadId, initialMessages: request.messages || [] });
  const types = [];
  let error = null;
  try {
    await agent.runAgent({ runId: request.runId }, { onEvent: ({ event }) => { types.push(event.type); } });
  } catch (e) {
    error = String(e && e.message);
  } finally {
    console.warn = originalWarn;
    console.error = originalError;
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
  const report = { types, error, warnings, unhandled };
  unhandled = [];
  return report;
}

async function main() {
  const url = process.argv[2];
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const lines = Buffer.concat(chunks).toString("utf8").split("\n").filter((l) => l.trim());
  for (const line of lines) {
    process.stdout.write(JSON.stringify(await one(url, JSON.parse(line))) + "\n");
  }
}

main().catch((e) => {
  process.stdout.write(JSON.stringify({ fatal: String(e && e.stack) }) + "\n");
  process.exit(1);
});
