// The server the official conformance suite's server scenarios expect (npm
// @modelcontextprotocol/conformance 0.1.13: each scenario's description names the tools,
// resources and prompts it calls), written here on the official TypeScript SDK's low-level
// Server, over stdio. The suite speaks Streamable HTTP; tests/sdk_peers/http_bridge.cjs serves it
// and relays every message to this server through `specbind proxy` (tests/test_mcp_conformance.py).
"use strict";
const path = require("path");
const NODE_DIR = path.resolve(__dirname, "..", "node");
const load = (name) => require(require.resolve(name, { paths: [NODE_DIR] }));
const { Server } = load("@modelcontextprotocol/sdk/server/index.js");
const { StdioServerTransport } = load("@modelcontextprotocol/sdk/server/stdio.js");
const t = load("@modelcontextprotocol/sdk/types.js");

// 1x1 PNG and a minimal (44-byte header, no samples) WAV, base64
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAcCBlCwAAAABJRU5ErkJggg==";
const WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";
const text = (s) => ({ type: "text", text: s });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const server = new Server(
  { name: "specbind-conformance-server", version: "1.0.0" },
  { capabilities: { tools: {}, resources: { subscribe: true }, prompts: {}, logging: {}, completions: {} } },
);
const object = (properties, required = []) => ({ type: "object", properties, required });
const TOOLS = [
  ["test_simple_text", "Returns simple text", object({})],
  ["test_image_content", "Returns an image", object({})],
  ["test_audio_content", "Returns audio", object({})],
  ["test_embedded_resource", "Returns an embedded resource", object({})],
  ["test_multiple_content_types", "Returns text, an image and a resource", object({})],
  ["test_tool_with_logging", "Logs three messages", object({})],
  ["test_error_handling", "Always fails", object({})],
  ["test_tool_with_progress", "Reports progress", object({})],
  ["test_sampling", "Asks the client's model", object({ prompt: { type: "string" } }, ["prompt"])],
  ["test_elicitation", "Asks the user", object({ message: { type: "string" } }, ["message"])],
  ["test_elicitation_sep1034_defaults", "Elicitation with defaults", object({})],
  ["test_elicitation_sep1330_enums", "Elicitation with enums", object({})],
];
const SCHEMA_2020 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: { address: { type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
  properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
  additionalProperties: false,
};

server.setRequestHandler(t.ListToolsRequestSchema, async () => ({
  tools: [
    ...TOOLS.map(([name, description, inputSchema]) => ({ name, description, inputSchema })),
    { name: "json_schema_2020_12_tool", description: "Tool with JSON Schema 2020-12 features", inputSchema: SCHEMA_2020 },
  ],
}));

const resource = { type: "resource", resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." } };

server.setRequestHandler(t.CallToolRequestSchema, async (request, extra) => {
  const { name, arguments: args = {} } = request.params;
  switch (name) {
    case "test_simple_text":
      return { content: [text("This is a simple text response for testing.")] };
    case "test_image_content":
      return { content: [{ type: "image", data: PNG, mimeType: "image/png" }] };
    case "test_audio_content":
      return { content: [{ type: "audio", data: WAV, mimeType: "audio/wav" }] };
    case "test_embedded_resource":
      return { content: [resource] };
    case "test_multiple_content_types":
      return { content: [text("Multiple content types test:"), { type: "image", data: PNG, mimeType: "image/png" }, resource] };
    case "test_tool_with_logging":
      for (const data of ["Tool execution started", "Tool processing data", "Tool execution completed"]) {
        await server.sendLoggingMessage({ level: "info", data });
        await sleep(20);
      }
      return { content: [text("Tool with logging executed successfully")] };
    case "test_error_handling":
      return { isError: true, content: [text("This tool intentionally returns an error for testing")] };
    case "test_tool_with_progress": {
      const token = request.params._meta && request.params._meta.progressToken;
      for (const progress of [0, 50, 100]) {
        if (token !== undefined) await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress, total: 100 } });
        await sleep(50);
      }
      return { content: [text("Tool with progress executed successfully")] };
    }
    case "test_sampling": {
      const result = await server.createMessage({ messages: [{ role: "user", content: text(args.prompt) }], maxTokens: 100 });
      return { content: [text(`LLM response: ${result.content.text}`)] };
    }
    case "test_elicitation": {
      const result = await server.elicitInput({
        message: args.message,
        requestedSchema: object({ username: { type: "string", description: "User's response" }, email: { type: "string", description: "User's email address" } }, ["username", "email"]),
      });
      return { content: [text(`User response: action=${result.action}, content=${JSON.stringify(result.content)}`)] };
    }
    case "test_elicitation_sep1034_defaults": {
      const result = await server.elicitInput({
        message: "Please review and update the form fields with defaults",
        requestedSchema: object({
          name: { type: "string", description: "User name", default: "John Doe" },
          age: { type: "integer", description: "User age", default: 30 },
          score: { type: "number", description: "User score", default: 95.5 },
          status: { type: "string", description: "User status", enum: ["active", "inactive", "pending"], default: "active" },
          verified: { type: "boolean", description: "Verification status", default: true },
        }),
      });
      return { content: [text(`Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content)}`)] };
    }
    case "test_elicitation_sep1330_enums": {
      const result = await server.elicitInput({
        message: "Please select options",
        requestedSchema: object({
          untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
          titledSingle: { type: "string", oneOf: [{ const: "value1", title: "First Option" }, { const: "value2", title: "Second Option" }, { const: "value3", title: "Third Option" }] },
          legacyEnum: { type: "string", enum: ["opt1", "opt2", "opt3"], enumNames: ["Option One", "Option Two", "Option Three"] },
          untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2", "option3"] } },
          titledMulti: { type: "array", items: { anyOf: [{ const: "value1", title: "First Choice" }, { const: "value2", title: "Second Choice" }, { const: "value3", title: "Third Choice" }] } },
        }),
      });
      return { content: [text(`Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content)}`)] };
    }
    case "json_schema_2020_12_tool":
      return { content: [text(`Received: ${JSON.stringify(args)}`)] };
    default:
      throw new t.McpError(t.ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  }
});

server.setRequestHandler(t.ListResourcesRequestSchema, async () => ({
  resources: [
    { uri: "test://static-text", name: "static-text", description: "A text resource", mimeType: "text/plain" },
    { uri: "test://static-binary", name: "static-binary", description: "A binary resource", mimeType: "image/png" },
    { uri: "test://watched-resource", name: "watched-resource", description: "A resource to subscribe to", mimeType: "text/plain" },
  ],
}));
server.setRequestHandler(t.ListResourceTemplatesRequestSchema, async () => ({
  resourceTemplates: [{ uriTemplate: "test://template/{id}/data", name: "template", description: "A template", mimeType: "application/json" }],
}));
server.setRequestHandler(t.ReadResourceRequestSchema, async (request) => {
  const uri = request.params.uri;
  if (uri === "test://static-text" || uri === "test://watched-resource") return { contents: [{ uri, mimeType: "text/plain", text: "This is the content of the static text resource." }] };
  if (uri === "test://static-binary") return { contents: [{ uri, mimeType: "image/png", blob: PNG }] };
  const match = /^test:\/\/template\/([^/]+)\/data$/.exec(uri);
  if (match) return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify({ id: match[1], templateTest: true, data: `Data for ID: ${match[1]}` }) }] };
  throw new t.McpError(-32002, `Resource not found: ${uri}`);
});
const subscribed = new Set();
server.setRequestHandler(t.SubscribeRequestSchema, async (request) => (subscribed.add(request.params.uri), {}));
server.setRequestHandler(t.UnsubscribeRequestSchema, async (request) => (subscribed.delete(request.params.uri), {}));
server.setRequestHandler(t.SetLevelRequestSchema, async () => ({}));

const PROMPTS = [
  { name: "test_simple_prompt", description: "A simple prompt" },
  { name: "test_prompt_with_arguments", description: "A prompt with arguments", arguments: [{ name: "arg1", description: "First", required: true }, { name: "arg2", description: "Second", required: true }] },
  { name: "test_prompt_with_embedded_resource", description: "A prompt with a resource", arguments: [{ name: "resourceUri", description: "The resource", required: true }] },
  { name: "test_prompt_with_image", description: "A prompt with an image" },
];
server.setRequestHandler(t.ListPromptsRequestSchema, async () => ({ prompts: PROMPTS }));
server.setRequestHandler(t.GetPromptRequestSchema, async (request) => {
  const { name, arguments: args = {} } = request.params;
  const user = (content) => ({ role: "user", content });
  switch (name) {
    case "test_simple_prompt":
      return { messages: [user(text("This is a simple prompt for testing."))] };
    case "test_prompt_with_arguments":
      return { messages: [user(text(`Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`))] };
    case "test_prompt_with_embedded_resource":
      return { messages: [user({ type: "resource", resource: { uri: args.resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." } }), user(text("Please process the embedded resource above."))] };
    case "test_prompt_with_image":
      return { messages: [user({ type: "image", data: PNG, mimeType: "image/png" }), user(text("Please analyze the image above."))] };
    default:
      throw new t.McpError(t.ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
  }
});
server.setRequestHandler(t.CompleteRequestSchema, async (request) => {
  const value = request.params.argument.value || "";
  const values = ["test1", "test2", "test3"].filter((v) => v.startsWith(value));
  return { completion: { values, total: values.length, hasMore: false } };
});

server.connect(new StdioServerTransport()).catch((error) => {
  process.stderr.write(`${error}\n`);
  process.exit(1);
});
