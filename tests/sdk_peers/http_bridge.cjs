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
const children = new Map(); // child transport -> its session's number
const closing = new Map(); // child transport -> the promise of its process's exit
// How long a session's command has to exit after its stdin closes. The SDK's own close() gives
// it 2 s before SIGTERM and 2 more before SIGKILL: on a loaded machine, with every session's
// proxy and server ending at once, that killed proxies before they wrote their summary.
const GRACE_MS = Number(process.env.BRIDGE_GRACE_MS || 60000);
let count = 0;

// Close one session's command: end its stdin, wait for it to exit (GRACE_MS at most: then the
// SDK's close() signals it, and the bridge says so on stderr). The same promise for every caller,
// so that stop() awaits a close a session's end already began.
function finish(child) {
  let done = closing.get(child);
  if (done === undefined) {
    done = (async () => {
      const proc = child._process; // the SDK keeps it private; only its stdin and exit are used
      if (proc !== undefined && proc.exitCode === null && proc.signalCode === null) {
        const exited = new Promise((resolve) => proc.once("close", () => resolve(true)));
        let timer;
        const late = new Promise((resolve) => (timer = setTimeout(() => resolve(false), GRACE_MS)));
        proc.stdin?.end();
        const ok = await Promise.race([exited, late]);
        clearTimeout(timer);
        if (!ok) process.stderr.write(`bridge: session ${children.get(child)} did not exit ${GRACE_MS / 1000} s after its stdin closed: signalled\n`);
      }
      await child.close(); // a no-op once the process is gone
    })();
    closing.set(child, done);
  }
  return done;
}

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
    finish(child).catch(() => undefined);
  };
  child.onclose = () => front.close().catch(() => undefined);
  children.set(child, n);
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
// On SIGTERM every session is closed and every child awaited, those whose session had already
// ended too (each proxy then writes its summary and closes its record), before the bridge exits.
const stop = async () => {
  server.close();
  const started = Date.now();
  await Promise.allSettled([...children.keys()].map(finish));
  process.stderr.write(`bridge: ${children.size} sessions closed, the last ${((Date.now() - started) / 1000).toFixed(1)} s after SIGTERM\n`);
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
