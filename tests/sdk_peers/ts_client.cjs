// An MCP client on the official TypeScript SDK (npm @modelcontextprotocol/sdk, v1.x: it speaks
// 2025-11-25): it launches its server over stdio (the command after `--`, in practice
// `specbind proxy ... -- server`), runs the scenarios py_client.py runs and prints one JSON
// object on stdout with what each returned (tests/test_mcp_sdk.py).
"use strict";
const path = require("path");
const NODE_DIR = path.resolve(__dirname, "..", "node");
const load = (name) => require(require.resolve(name, { paths: [NODE_DIR] }));
const { Client } = load("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = load("@modelcontextprotocol/sdk/client/stdio.js");
const types = load("@modelcontextprotocol/sdk/types.js");

async function main(command) {
  const out = {};
  const logs = [];
  const client = new Client({ name: "specbind-scenario-client-ts", version: "1.0.0" }, { capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } } });
  client.setRequestHandler(types.CreateMessageRequestSchema, async (request) => ({
    role: "assistant",
    content: { type: "text", text: `the model says: ${request.params.messages[0].content.text}` },
    model: "scenario-model",
    stopReason: "endTurn",
  }));
  client.setRequestHandler(types.ElicitRequestSchema, async () => ({ action: "accept", content: { name: "scenario user", verbose: true } }));
  client.setRequestHandler(types.ListRootsRequestSchema, async () => ({ roots: [{ uri: "file:///tmp/specbind-scenario", name: "scenario" }] }));
  client.setNotificationHandler(types.LoggingMessageNotificationSchema, async (n) => logs.push(`${n.params.level}: ${n.params.data}`));
  const transport = new StdioClientTransport({ command: command[0], args: command.slice(1), stderr: "inherit" });
  await client.connect(transport);
  const texts = (result) => result.content.filter((c) => c.type === "text").map((c) => c.text);
  out.server = client.getServerVersion().name;
  out.ping = Object.keys(await client.ping()).length === 0 ? "EmptyResult" : "other";
  out.tools = (await client.listTools()).tools.map((t) => t.name).sort();
  out.echo = texts(await client.callTool({ name: "echo", arguments: { text: "hello" } }));
  out.count = texts(await client.callTool({ name: "count", arguments: { steps: 3 } }, undefined, { onprogress: () => undefined }));
  try {
    await client.callTool({ name: "count", arguments: { steps: 50, delay: 0.1 } }, undefined, { timeout: 300 });
    out.cancelled = false;
  } catch (error) {
    out.cancelled = error.constructor.name;
  }
  out.fail = (await client.callTool({ name: "fail", arguments: {} })).isError === true;
  await client.setLoggingLevel("info");
  out.chatter = texts(await client.callTool({ name: "chatter", arguments: {} }));
  out.sampling = texts(await client.callTool({ name: "ask_model", arguments: { question: "why?" } }));
  out.elicitation = texts(await client.callTool({ name: "ask_user", arguments: {} }));
  out.roots = texts(await client.callTool({ name: "list_roots", arguments: {} }));
  await client.sendRootsListChanged();
  out.resources = (await client.listResources()).resources.map((r) => r.uri).sort();
  out.templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate).sort();
  out.read = (await client.readResource({ uri: "specbind://readme" })).contents.map((c) => c.text);
  out.read_template = (await client.readResource({ uri: "specbind://items/a" })).contents.map((c) => c.text);
  try {
    await client.readResource({ uri: "specbind://missing" });
    out.missing = null;
  } catch (error) {
    out.missing = error.constructor.name;
  }
  await client.subscribeResource({ uri: "specbind://readme" });
  out.touch = texts(await client.callTool({ name: "touch", arguments: {} }));
  await client.unsubscribeResource({ uri: "specbind://readme" });
  out.prompts = (await client.listPrompts()).prompts.map((p) => p.name).sort();
  out.prompt = (await client.getPrompt({ name: "review", arguments: { code: "x = 1", language: "python" } })).messages.map((m) => m.content.text);
  out.completion = (await client.complete({ ref: { type: "ref/prompt", name: "review" }, argument: { name: "language", value: "py" } })).completion.values;
  out.ping_again = Object.keys(await client.ping()).length === 0 ? "EmptyResult" : "other";
  await client.close();
  out.logs = logs;
  return out;
}

const args = process.argv.slice(2);
const cut = args.indexOf("--");
if (cut < 0 || cut === args.length - 1) {
  process.stderr.write("usage: ts_client.cjs -- SERVER_COMMAND...\n");
  process.exit(2);
}
main(args.slice(cut + 1)).then(
  (out) => process.stdout.write(JSON.stringify(out) + "\n"),
  (error) => {
    process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
    process.exit(1);
  },
);
