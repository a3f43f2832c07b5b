// engram's MCP server driven by the official MCP TypeScript SDK client:
// `engram mcp --db DIR` over stdio, and `engram serve`'s /mcp over
// Streamable HTTP. The SDK validates every structuredContent against the
// tool's outputSchema, so a result that breaks its own schema fails here.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { engramBin, removeDir, startServer, tempDir } from "./support.mjs";

// Seed 001's inputSchema, which SearchMemory must keep exactly.
const SEED_INPUT_SCHEMA = {
  type: "object",
  properties: {
    query: { type: "string", description: "Query or a memory UUID.", maxLength: 1000 },
    limit: { type: "integer", description: "Number of memories to show", default: 3, minimum: 1, maximum: 100 },
    search_type: { type: "string", enum: ["basic", "filtered", "by_memory_id"], description: "Recall strategy.", default: "basic" },
    filters: {
      type: "array",
      description: "One or more query filters.",
      items: {
        type: "object",
        properties: {
          field: {
            type: "string",
            enum: ["session_id", "tool", "agent_id", "title", "context", "sequence_order", "memory_id",
              "timestamp", "preceding_memory_id", "archetype_title", "archetype_version", "schema_version"],
            description: "Which field to filter on.",
          },
          operator: {
            type: "string",
            enum: ["is", "is_not", "before", "after", "between", "contains", "any_of"],
            description: "How to match the field: 'is' for exact match, 'is_not' to exclude, 'before/after' for time/order, 'between' for ranges, 'contains' for text search, 'any_of' for multiple options.",
          },
          value: {
            description: "Value to match against. Use array [min,max] for 'between', array [item1,item2] for 'any_of', single value for others.",
            oneOf: [
              { type: "string" },
              { type: "number" },
              { type: "array" },
              { type: "object", properties: { from: {}, to: {} }, required: ["from", "to"], additionalProperties: false },
            ],
          },
        },
        required: ["field", "operator", "value"],
        additionalProperties: false,
      },
    },
    detail: {
      type: "string",
      enum: ["compact", "summary", "graph", "full"],
      description: "How you want to explore your memories: compact (basics only), summary (with context), graph (with relationship meta-data), full (complete detail).",
      default: "summary",
    },
    score_threshold: {
      type: "number",
      description: "Minimum relevance score (0.0-1.0). Higher values return only more relevant results. Use 0.0 for broad exploration, 0.4+ for precise matches.",
      default: 0.4,
      minimum: 0.0,
      maximum: 1.0,
    },
  },
  required: ["query"],
  additionalProperties: false,
};

const MEMORIES = [
  { session_id: "s1", tool: "Bash", title: "Pin cmake", content: "Fixed the flaky build by pinning cmake to 3.27" },
  { session_id: "s1", tool: "Read", title: "Read the logs", content: "Read the compiler logs; the linker ran out of memory" },
  { session_id: "s2", tool: "Edit", title: "Rename module", content: "Renamed the parser module and updated the imports" },
  { session_id: "s1", tool: "Bash", title: "Rebuild", content: "Rebuilt everything with two jobs to save memory" },
  { session_id: "s2", tool: "Bash", title: "Run tests", content: "Ran the parser tests: all green after the rename" },
];

async function call(client, name, args) {
  return client.callTool({ name, arguments: args });
}

async function ok(client, name, args) {
  const result = await call(client, name, args);
  assert.notEqual(result.isError, true, JSON.stringify(result));
  assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  return result.structuredContent;
}

async function search(client, args) {
  return (await ok(client, "SearchMemory", args)).results;
}

function ids(results) {
  return results.map((r) => r.memory_id).sort();
}

// Stores MEMORIES in order; returns their ids and what StoreMemory said.
async function storeAll(client) {
  const stored = [];
  for (const m of MEMORIES) {
    stored.push(await ok(client, "StoreMemory", { ...m, context: "project engram", archetype_title: "Build Setup" }));
  }
  return stored;
}

describe("engram mcp over stdio", () => {
  let db;
  let client;
  let stored;
  let id;

  before(async () => {
    db = tempDir("engram-mcp-");
    client = new Client({ name: "engram-client-test", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command: engramBin, args: ["mcp", "--db", db], stderr: "ignore" }));
  });

  after(async () => {
    await client?.close();
    removeDir(db);
  });

  test("negotiates and lists the tools with SearchMemory's seed schema", async () => {
    assert.equal(client.getServerVersion().name, "engram");
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["SearchMemory", "StoreMemory", "ForgetMemory", "Retrieve", "ListMemories", "MemoryStats", "ReviseMemory", "MemoryHistory"]);
    const searchMemory = tools.find((t) => t.name === "SearchMemory");
    assert.deepEqual(searchMemory.inputSchema, SEED_INPUT_SCHEMA);
    for (const tool of tools) assert.equal(tool.outputSchema.type, "object");
  });

  test("an empty store gives empty results", async () => {
    assert.deepEqual(await search(client, { query: "anything" }), []);
  });

  test("stores memories in two sessions, chained", async () => {
    stored = await storeAll(client);
    id = (i) => stored[i].memory_id;
    assert.deepEqual(stored.map((s) => s.sequence_order), [1, 2, 1, 3, 2]);
    assert.equal(stored[0].preceding_memory_id, null);
    assert.equal(stored[1].preceding_memory_id, id(0));
    assert.equal(stored[3].preceding_memory_id, id(1));
    assert.equal(stored[4].preceding_memory_id, id(2));
    assert.equal(stored[0].agent_id, "local");
  });

  test("search_type basic, filtered and by_memory_id", async () => {
    const basic = await search(client, { query: "cmake build", score_threshold: 0 });
    assert.equal(basic[0].memory_id, id(0));
    for (const r of basic) assert.ok(r.score >= 0 && r.score <= 1);
    assert.equal((await search(client, { query: "memory", limit: 1, score_threshold: 0 })).length, 1);

    const listed = await search(client, { query: "", search_type: "filtered", limit: 100 });
    assert.equal(listed.length, 5);
    assert.equal(listed[0].memory_id, id(4)); // newest first
    const ranked = await search(client, {
      query: "parser", search_type: "filtered", score_threshold: 0,
      filters: [{ field: "session_id", operator: "is", value: "s2" }],
    });
    assert.deepEqual(ids(ranked), [id(2), id(4)].sort());

    const one = await search(client, { query: id(3), search_type: "by_memory_id" });
    assert.equal(one.length, 1);
    assert.equal(one[0].memory_id, id(3));
    assert.equal(one[0].score, 1);
    assert.deepEqual(await search(client, { query: "0b0e0f0a-0000-4000-8000-000000000000", search_type: "by_memory_id" }), []);
    const notUuid = await call(client, "SearchMemory", { query: "nope", search_type: "by_memory_id" });
    assert.equal(notUuid.isError, true);
  });

  test("each detail level", async () => {
    const keys = async (detail) =>
      Object.keys((await search(client, { query: id(1), search_type: "by_memory_id", detail }))[0]).sort();
    const compact = ["context", "memory_id", "score", "session_id", "title", "tool"];
    assert.deepEqual(await keys("compact"), compact);
    const summary = [...compact, "content_preview", "relative_time"].sort();
    assert.deepEqual(await keys("summary"), summary);
    const graph = [...summary, "agent_id", "archetype_title", "preceding_memory_id", "sequence_order", "timestamp"].sort();
    assert.deepEqual(await keys("graph"), graph);
    const full = await keys("full");
    for (const k of [...graph, "content", "archetype_version", "schema_version"]) assert.ok(full.includes(k), k);
    const r = (await search(client, { query: id(1), search_type: "by_memory_id" }))[0];
    assert.equal(r.relative_time, "just now");
    assert.equal(r.content_preview, MEMORIES[1].content);
  });

  test("each filter operator", async () => {
    const filtered = async (filters) =>
      ids(await search(client, { query: "", search_type: "filtered", limit: 100, filters }));
    assert.deepEqual(await filtered([{ field: "tool", operator: "is", value: "Bash" }]), [id(0), id(3), id(4)].sort());
    assert.deepEqual(await filtered([{ field: "tool", operator: "is_not", value: "Bash" }]), [id(1), id(2)].sort());
    assert.deepEqual(await filtered([{ field: "sequence_order", operator: "before", value: 2 }]), [id(0), id(2)].sort());
    assert.deepEqual(await filtered([{ field: "sequence_order", operator: "after", value: 2 }]), [id(3)]);
    assert.deepEqual(await filtered([{ field: "sequence_order", operator: "between", value: [2, 3] }]), [id(1), id(3), id(4)].sort());
    assert.deepEqual(await filtered([{ field: "title", operator: "contains", value: "BUILD" }]), [id(3)]);
    assert.deepEqual(await filtered([{ field: "tool", operator: "any_of", value: ["Read", "Edit"] }]), [id(1), id(2)].sort());
    // Times: everything was written after 2000 and before 3000.
    assert.equal((await filtered([{ field: "timestamp", operator: "after", value: "2000-01-01" }])).length, 5);
    assert.equal((await filtered([{ field: "timestamp", operator: "before", value: "2000-01-01" }])).length, 0);
    assert.equal((await filtered([{ field: "timestamp", operator: "between", value: { from: "2000-01-01", to: "2999-12-31" } }])).length, 5);
    const s1 = stored[1].timestamp;
    assert.deepEqual(await filtered([
      { field: "timestamp", operator: "after", value: s1 },
      { field: "session_id", operator: "is", value: "s1" },
    ]), [id(3)]);
  });

  test("a bad filter is a tool error with its path", async () => {
    const result = await call(client, "SearchMemory", {
      query: "x",
      filters: [
        { field: "tool", operator: "is", value: "Bash" },
        { field: "tool", operator: "is", value: "Read" },
        { field: "sequence_order", operator: "is", value: "three" },
      ],
    });
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /^filters\[2\]\.value: /);
    const bound = await call(client, "SearchMemory", { query: "x", limit: 101 });
    assert.equal(bound.isError, true);
    assert.match(bound.content[0].text, /^limit: /);
  });

  test("ForgetMemory says whether the memory existed", async () => {
    assert.equal((await ok(client, "ForgetMemory", { memory_id: id(2) })).existed, true);
    assert.equal((await ok(client, "ForgetMemory", { memory_id: id(2) })).existed, false);
    assert.deepEqual(await search(client, { query: id(2), search_type: "by_memory_id" }), []);
  });

  test("Retrieve with an unknown configuration is a tool error", async () => {
    const result = await call(client, "Retrieve", { name: "nope", query: "x" });
    assert.equal(result.isError, true);
  });
});

describe("engram serve /mcp over Streamable HTTP", () => {
  let server;
  let client;

  before(async () => {
    server = await startServer({ args: ["--allowed-origins", "http://localhost:3000"] });
    client = new Client({ name: "engram-client-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
  });

  after(async () => {
    await client?.close();
    await server?.stop();
    if (server) removeDir(server.db);
  });

  test("lists the tools and stores and finds a memory", async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.find((t) => t.name === "SearchMemory").inputSchema, SEED_INPUT_SCHEMA);
    const stored = await ok(client, "StoreMemory", { content: "The HTTP transport works", session_id: "web" });
    const found = await search(client, { query: "HTTP transport", score_threshold: 0, detail: "graph" });
    assert.equal(found[0].memory_id, stored.memory_id);
    assert.equal(found[0].session_id, "web");
    const bad = await call(client, "SearchMemory", {
      query: "x", filters: [{ field: "tool", operator: "before", value: "Bash" }],
    });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text, /^filters\[0\]/);
  });

  test("refuses foreign origins, GET streams and unknown protocol versions", async () => {
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    // Only the origins given with --allowed-origins; a local port is no exception.
    for (const origin of ["http://evil.example", "http://localhost:5173"]) {
      const r = await fetch(`${server.url}/mcp`, { method: "POST", headers: { ...headers, origin }, body: ping });
      assert.equal(r.status, 403, origin);
      assert.equal((await r.json()).kind, "request.forbidden_origin");
    }
    let r = await fetch(`${server.url}/mcp`, { method: "POST", headers: { ...headers, origin: "http://localhost:3000" }, body: ping });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("access-control-allow-origin"), "http://localhost:3000");
    r = await fetch(`${server.url}/mcp`, { method: "POST", headers: { ...headers, "content-type": "text/plain" }, body: ping });
    assert.equal(r.status, 415);
    r = await fetch(`${server.url}/mcp`, { method: "GET", headers: { accept: "text/event-stream" } });
    assert.equal(r.status, 405);
    r = await fetch(`${server.url}/mcp`, { method: "POST", headers: { ...headers, "mcp-protocol-version": "2099-01-01" }, body: ping });
    assert.equal(r.status, 400);
  });

  test("serves the stateless 2026-07-28 revision", async () => {
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const body = JSON.stringify({ jsonrpc: "2.0", id: "d", method: "server/discover", params: { _meta: meta } });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const mirrored = { ...headers, "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover" };
    let r = await fetch(`${server.url}/mcp`, { method: "POST", headers: mirrored, body });
    assert.equal(r.status, 200);
    const discover = await r.json();
    assert.equal(discover.result.resultType, "complete");
    assert.ok(discover.result.supportedVersions.includes("2026-07-28"));
    r = await fetch(`${server.url}/mcp`, { method: "POST", headers, body });
    assert.equal(r.status, 400); // the header must mirror _meta
    r = await fetch(`${server.url}/mcp`, { method: "POST", headers: { ...mirrored, "mcp-method": "tools/list" }, body });
    assert.equal(r.status, 400); // and Mcp-Method the method
    assert.equal((await r.json()).error.code, -32020);
  });
});
