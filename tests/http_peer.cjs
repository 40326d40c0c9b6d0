#!/usr/bin/env node
// The official AG-UI Node client (@ag-ui/client HttpAgent) as a peer for tests/test_http_peers.py.
// Packages resolve from tests/node (installed by `make` setup).
//
//   node tests/http_peer.cjs URL < request.json
//
// request.json: {"threadId", "runId", "messages", "state"?, "resume"?, "headers"?, "proto"?}; with
// "proto" the agent's fetch adds the protobuf media type to Accept (HttpAgent alone never asks
// for it, but reads a protobuf response by its Content-Type). Prints one
// JSON object: {"events": [...every event the agent's subscribers saw...], "messages", "state",
// "result", "newMessages", "error": null | {"message", "status", "payload"}, "warnings": [...],
// "unhandled": [...rejections nobody handled, collected for a moment after runAgent settled...]}.
"use strict";
const path = require("path");

const NODE_DIR = process.env.SPECBIND_NODE_DIR || path.join(__dirname, "node");
const load = (name) => require(require.resolve(name, { paths: [NODE_DIR] }));
const { HttpAgent } = load("@ag-ui/client");

const unhandled = [];
process.on("unhandledRejection", (reason) => {
  unhandled.push(String(reason && reason.stack ? reason.stack.split("\n")[0] : reason));
});

async function main() {
  const url = process.argv[2];
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const request = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
  const warnings = [];
  const originalWarn = console.warn;
  const originalError = console.error;
  console.warn = (...args) => warnings.push(args.map(String).join(" "));
  console.error = (...args) => warnings.push(args.map(String).join(" "));
  const accepts = [];
  const protoFetch = (input, init) => {
    const headers = { ...(init.headers || {}), Accept: "application/vnd.ag-ui.event+proto, text/event-stream" };
    accepts.push(headers.Accept);
    return fetch(input, { ...init, headers });
  };
  const agent = new HttpAgent({
    url,
    headers: request.headers || {},
    ...(request.proto ? { fetch: protoFetch } : {}),
    threadId: request.threadId,
    initialMessages: request.messages || [],
    initialState: request.state,
  });
  const events = [];
  let error = null;
  let outcome = null;
  try {
    outcome = await agent.runAgent(
      { runId: request.runId, ...(request.resume ? { resume: request.resume } : {}) },
      { onEvent: ({ event }) => { events.push(event); } },
    );
  } catch (e) {
    error = { message: String(e && e.message), status: e && e.status, payload: e && e.payload };
  } finally {
    console.warn = originalWarn;
    console.error = originalError;
  }
  await new Promise((resolve) => setTimeout(resolve, 200)); // let late rejections surface
  process.stdout.write(
    JSON.stringify({
      events,
      messages: agent.messages,
      state: agent.state,
      result: outcome ? outcome.result : null,
      newMessages: outcome ? outcome.newMessages : null,
      error,
      warnings,
      unhandled,
      accepts,
    }) + "\n",
  );
}

main().catch((e) => {
  process.stdout.write(JSON.stringify({ fatal: String(e && e.stack) }) + "\n");
  process.exit(1);
});
