// The client the official conformance suite's client scenarios run (`conformance client
// --command "node ts_conformance_client.cjs" --scenario NAME`: it appends the test server's URL
// and sets MCP_CONFORMANCE_SCENARIO), on the official TypeScript SDK. It reaches that HTTP
// server over stdio through `specbind proxy` and stdio_bridge.cjs, recording the session into
// $SPECBIND_RECORD_DIR (tests/test_mcp_conformance.py).
"use strict";
const path = require("path");
const NODE_DIR = path.resolve(__dirname, "..", "node");
const load = (name) => require(require.resolve(name, { paths: [NODE_DIR] }));
const { Client } = load("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = load("@modelcontextprotocol/sdk/client/stdio.js");
const types = load("@modelcontextprotocol/sdk/types.js");

const defaults = (schema) => {
  const out = {};
  for (const [name, property] of Object.entries((schema && schema.properties) || {})) {
    if (property.default !== undefined) out[name] = property.default;
  }
  return out;
};

async function main(url) {
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO || "initialize";
  const [specbind, spec, out, recordDir] = [process.env.SPECBIND, process.env.SPECBIND_SPEC, process.env.SPECBIND_OUT, process.env.SPECBIND_RECORD_DIR];
  const record = path.join(recordDir, `${scenario.replace(/\//g, "_")}.jsonl`);
  const transport = new StdioClientTransport({
    command: specbind,
    args: ["proxy", "--spec", spec, "--out", out, "--record", record, "--", "node", path.join(__dirname, "stdio_bridge.cjs"), url],
    stderr: "inherit",
  });
  const client = new Client({ name: "specbind-conformance-client", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(types.ElicitRequestSchema, async (request) => ({ action: "accept", content: defaults(request.params.requestedSchema) }));
  await client.connect(transport);
  // only what the server declared (the suite's `initialize` server declares no capability)
  const tools = client.getServerCapabilities().tools ? (await client.listTools()).tools : [];
  for (const tool of tools) {
    if (scenario === "tools_call" && tool.name === "add_numbers") await client.callTool({ name: tool.name, arguments: { a: 2, b: 3 } });
    if (scenario.startsWith("elicitation") && tool.name.includes("elicitation")) await client.callTool({ name: tool.name, arguments: {} });
  }
  await client.close();
}
main(process.argv[process.argv.length - 1]).then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
    process.exit(1);
  },
);
