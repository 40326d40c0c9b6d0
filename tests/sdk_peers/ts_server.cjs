// An MCP server on the official TypeScript SDK (npm @modelcontextprotocol/sdk, v1.x: it speaks
// 2025-11-25), over stdio: the peer the scenario clients talk to through `specbind proxy`
// (tests/test_mcp_sdk.py). The same tools as py_server.py: each makes the SDK send one kind of
// message (progress, logging, sampling, elicitation and roots requests, list_changed and
// resources/updated notifications, a tool error). Installed in tests/node by `make test`'s setup.
"use strict";
const path = require("path");
const NODE_DIR = path.resolve(__dirname, "..", "node");
const load = (name) => require(require.resolve(name, { paths: [NODE_DIR] }));
const { McpServer, ResourceTemplate } = load("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = load("@modelcontextprotocol/sdk/server/stdio.js");
const { completable } = load("@modelcontextprotocol/sdk/server/completable.js");
const { SubscribeRequestSchema, UnsubscribeRequestSchema } = load("@modelcontextprotocol/sdk/types.js");
const { z } = load("zod");

const server = new McpServer(
  { name: "specbind-scenario-server-ts", version: "1.0.0" },
  {
    capabilities: { logging: {}, resources: { subscribe: true, listChanged: true }, tools: { listChanged: true }, prompts: { listChanged: true } },
    instructions: "A server for specbind's SDK scenarios.",
  },
);
const subscribed = new Set();
const text = (t) => ({ content: [{ type: "text", text: t }] });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

server.registerTool("echo", { description: "Echo the text back.", inputSchema: { text: z.string() } }, async ({ text: t }) => text(t));

server.registerTool(
  "count",
  { description: "Count to steps, reporting progress.", inputSchema: { steps: z.number().int(), delay: z.number().optional() } },
  async ({ steps, delay }, extra) => {
    const token = extra._meta && extra._meta.progressToken;
    for (let step = 1; step <= steps; step++) {
      if (extra.signal.aborted) throw new Error("cancelled");
      if (token !== undefined) {
        await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: step, total: steps, message: `step ${step}` } });
      }
      if (delay) await sleep(delay * 1000);
    }
    return text(`counted to ${steps}`);
  },
);

server.registerTool("chatter", { description: "Log at three levels." }, async (extra) => {
  for (const [level, data] of [["debug", "a debug line"], ["info", "an info line"], ["warning", "a warning line"]]) {
    await server.sendLoggingMessage({ level, data }, extra.sessionId);
  }
  return text("logged");
});

server.registerTool("ask_model", { description: "Ask the client's model.", inputSchema: { question: z.string() } }, async ({ question }) => {
  const result = await server.server.createMessage({ messages: [{ role: "user", content: { type: "text", text: question } }], maxTokens: 50 });
  return text(result.content.type === "text" ? result.content.text : JSON.stringify(result.content));
});

server.registerTool("ask_user", { description: "Ask the user." }, async () => {
  const answer = await server.server.elicitInput({
    message: "Who are you?",
    requestedSchema: { type: "object", properties: { name: { type: "string" }, verbose: { type: "boolean", default: false } }, required: ["name"] },
  });
  return text(`${answer.action}: ${JSON.stringify(answer.content)}`);
});

server.registerTool("list_roots", { description: "Ask the client for its roots." }, async () => {
  const roots = await server.server.listRoots();
  return text(roots.roots.map((r) => r.uri).join(", "));
});

server.registerTool("fail", { description: "A tool that fails." }, async () => {
  throw new Error("this tool always fails");
});

server.registerTool("touch", { description: "Change what the client sees." }, async () => {
  if (subscribed.has("specbind://readme")) await server.server.sendResourceUpdated({ uri: "specbind://readme" });
  server.sendResourceListChanged();
  server.sendToolListChanged();
  server.sendPromptListChanged();
  return text("touched");
});

server.registerResource("readme", "specbind://readme", { description: "What this server is.", mimeType: "text/plain" }, async (uri) => ({
  contents: [{ uri: uri.href, mimeType: "text/plain", text: "A server for specbind's SDK scenarios." }],
}));
server.registerResource(
  "item",
  new ResourceTemplate("specbind://items/{name}", { list: undefined }),
  { description: "One item, by name.", mimeType: "application/json" },
  async (uri, { name }) => ({ contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify({ name }) }] }),
);

server.registerPrompt(
  "review",
  {
    description: "Review some code.",
    argsSchema: {
      code: z.string(),
      language: completable(z.string(), (value) => ["python", "typescript", "rust"].filter((v) => v.startsWith(value || ""))).optional(),
    },
  },
  ({ code, language }) => ({ messages: [{ role: "user", content: { type: "text", text: `Please review this ${language || "python"} code:\n${code}` } }] }),
);

server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
  subscribed.add(request.params.uri);
  return {};
});
server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
  subscribed.delete(request.params.uri);
  return {};
});

process.stderr.write("specbind-scenario-server-ts: starting (a log line on stderr)\n");
server.connect(new StdioServerTransport()).catch((error) => {
  process.stderr.write(`${error}\n`);
  process.exit(1);
});
