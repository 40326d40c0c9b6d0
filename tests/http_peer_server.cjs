#!/usr/bin/env node
// An agent endpoint on the official Node encoder (@ag-ui/encoder EventEncoder: SSE, or
// length-prefixed @ag-ui/proto frames when the Accept header admits the protobuf media type), as a
// peer for tests/test_http_peers.py. Packages resolve from tests/node (installed by `make` setup).
//
//   node tests/http_peer_server.cjs        prints "listening PORT", serves until stdin closes
//
// POST /conversation   a run with text, a tool call, state; its ids from the request
// POST /error          RUN_STARTED, RUN_ERROR
// POST /cut            RUN_STARTED, TEXT_MESSAGE_START, half an event's frame, then a reset
// Every response also reports the request it got, on GET /last.
"use strict";
const http = require("http");
const path = require("path");

const NODE_DIR = process.env.SPECBIND_NODE_DIR || path.join(__dirname, "node");
const load = (name) => require(require.resolve(name, { paths: [NODE_DIR] }));
const { EventEncoder } = load("@ag-ui/encoder");

let last = null;

function conversation(input) {
  const t = input.threadId;
  const r = input.runId;
  return [
    { type: "RUN_STARTED", threadId: t, runId: r },
    { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "Hello " },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "w\u00f6rld \ud83d\ude00" },
    { type: "TEXT_MESSAGE_END", messageId: "m1" },
    { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "lookup", parentMessageId: "m1" },
    { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: '{"q":1}' },
    { type: "TOOL_CALL_END", toolCallId: "c1" },
    { type: "STATE_SNAPSHOT", snapshot: { count: 1, tags: ["a", "b"] } },
    { type: "STATE_DELTA", delta: [{ op: "add", path: "/done", value: true }] },
    { type: "RUN_FINISHED", threadId: t, runId: r },
  ];
}

const server = http.createServer((req, res) => {
  if (req.method === "GET" && req.url === "/last") {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify(last));
    return;
  }
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", async () => {
    const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    last = { headers: req.headers, input };
    const encoder = new EventEncoder({ accept: req.headers.accept });
    res.writeHead(200, { "Content-Type": encoder.getContentType() });
    if (req.url === "/error") {
      res.write(encoder.encodeBinary({ type: "RUN_STARTED", threadId: input.threadId, runId: input.runId }));
      res.end(encoder.encodeBinary({ type: "RUN_ERROR", message: "boom", code: "E1" }));
      return;
    }
    if (req.url === "/cut") {
      res.write(encoder.encodeBinary({ type: "RUN_STARTED", threadId: input.threadId, runId: input.runId }));
      res.write(encoder.encodeBinary({ type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" }));
      const frame = encoder.encodeBinary({ type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "half of it" });
      res.write(frame.slice(0, Math.floor(frame.length / 2)));
      setTimeout(() => req.socket.destroy(), 50);
      return;
    }
    for (const event of conversation(input)) {
      res.write(encoder.encodeBinary(event));
      await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  });
});

server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
process.stdin.on("end", () => server.close(() => process.exit(0)));
process.stdin.resume();
