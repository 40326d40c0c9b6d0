// The reverse of http_bridge.cjs: a stdio server whose every message goes, unchanged, to a
// Streamable HTTP endpoint (argv[2]) and back (the official TypeScript SDK's transports at both
// ends). It lets a stdio client reach the conformance suite's HTTP test servers through
// `specbind proxy` (tests/test_mcp_conformance.py, the client scenarios).
"use strict";
const path = require("path");
const NODE_DIR = path.resolve(__dirname, "..", "node");
const load = (name) => require(require.resolve(name, { paths: [NODE_DIR] }));
const { StdioServerTransport } = load("@modelcontextprotocol/sdk/server/stdio.js");
const { StreamableHTTPClientTransport } = load("@modelcontextprotocol/sdk/client/streamableHttp.js");

async function main(url) {
  const back = new StreamableHTTPClientTransport(new URL(url));
  const front = new StdioServerTransport();
  // Messages go out one after the other. After `notifications/initialized` the SDK's transport
  // opens its standalone GET stream, on which the server sends the requests that answer no
  // request of ours (an elicitation during a tool call): the next message waits until that
  // stream had time to open, or the server would send into no stream and drop its request.
  let queue = Promise.resolve();
  front.onmessage = (message) => {
    queue = queue
      .then(() => back.send(message))
      .then(() => (message.method === "notifications/initialized" ? new Promise((resolve) => setTimeout(resolve, 300)) : undefined))
      .catch((error) => process.stderr.write(`stdio bridge: ${error}\n`));
  };
  back.onmessage = (message) => front.send(message).catch((error) => process.stderr.write(`stdio bridge: ${error}\n`));
  front.onclose = () => back.close().then(() => process.exit(0));
  back.onerror = (error) => process.stderr.write(`stdio bridge: ${error}\n`);
  process.stdin.on("end", () => back.close().then(() => process.exit(0)));
  await back.start();
  await front.start();
}
main(process.argv[2]).catch((error) => {
  process.stderr.write(`${error}\n`);
  process.exit(1);
});
