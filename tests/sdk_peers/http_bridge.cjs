// A Streamable HTTP endpoint that relays each session, message for message, to a stdio server:
// for every session the HTTP client opens, it launches the command after `--` (in practice
// `specbind proxy --spec spec/mcp --record DIR/session-N.jsonl -- SERVER`) and passes every
// JSON-RPC message both ways unchanged (the official TypeScript SDK's transports at both ends).
// It is what lets the official conformance suite, which speaks HTTP, reach a stdio server
// through `specbind proxy` (tests/test_mcp_conformance.py). Prints its URL on stdout, listens
// on 127.0.0.1 only; `{n}` in the command is replaced by the session's number.
"use strict";
const http = require("http");
const path = require("path");
const { randomUUID } = require("crypto");
const NODE_DIR = path.resolve(__dirname, "..", "node");
const load = (name) => require(require.resolve(name, { paths: [NODE_DIR] }));
const { StreamableHTTPServerTransport } = load("@modelcontextprotocol/sdk/server/streamableHttp.js");
const { StdioClientTransport } = load("@modelcontextprotocol/sdk/client/stdio.js");

const args = process.argv.slice(2);
const cut = args.indexOf("--");
if (cut < 0 || cut === args.length - 1) {
  process.stderr.write("usage: http_bridge.cjs -- COMMAND...\n");
  process.exit(2);
}
const command = args.slice(cut + 1);
const sessions = new Map();
const children = new Set();
let count = 0;

async function open() {
  const n = ++count;
  const child = new StdioClientTransport({ command: command[0], args: command.slice(1).map((a) => a.replace("{n}", String(n))), stderr: "inherit" });
  const front = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => sessions.set(id, front),
  });
  front.onmessage = (message) => child.send(message).catch((error) => process.stderr.write(`bridge: ${error}\n`));
  child.onmessage = (message) => front.send(message).catch((error) => process.stderr.write(`bridge: ${error}\n`));
  front.onclose = () => {
    if (front.sessionId) sessions.delete(front.sessionId);
    child.close().catch(() => undefined);
  };
  child.onclose = () => front.close().catch(() => undefined);
  children.add(child);
  await child.start();
  await front.start();
  return front;
}

const server = http.createServer(async (req, res) => {
  try {
    let body;
    if (req.method === "POST") {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    }
    const id = req.headers["mcp-session-id"];
    let front = id ? sessions.get(id) : undefined;
    if (!front) {
      if (id || req.method !== "POST") {
        res.writeHead(404).end();
        return;
      }
      front = await open();
    }
    await front.handleRequest(req, res, body);
  } catch (error) {
    process.stderr.write(`bridge: ${error && error.stack ? error.stack : error}\n`);
    if (!res.headersSent) res.writeHead(500).end();
  }
});

server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}/mcp\n`);
});
// On SIGTERM every session is closed and every child awaited (each proxy then writes its summary
// and closes its record) before the bridge exits.
const stop = async () => {
  server.close();
  await Promise.allSettled([...children].map((child) => child.close()));
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
