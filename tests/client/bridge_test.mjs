// One store, one owner (issue 16): MCP clients that start a command reach a
// running server's store through `engram mcp --connect URL`. The official
// MCP TypeScript SDK drives the bridge over stdio; what it stores the REST
// API finds, what REST stores it finds, and two bridge clients and one HTTP
// client writing one session concurrently keep its chain linear.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { engramBin, removeDir, startServer, tempDir } from "./support.mjs";

async function store(client, args) {
  const result = await client.callTool({ name: "StoreMemory", arguments: args });
  assert.notEqual(result.isError, true, JSON.stringify(result));
  return result.structuredContent;
}

async function rest(server, path, body) {
  const response = await fetch(server.url + path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  assert.equal(response.status, 200, JSON.stringify(json));
  return json;
}

function bridgeClient(server, name) {
  const client = new Client({ name, version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: engramBin, args: ["mcp", "--connect", server.url], stderr: "ignore",
  });
  return client.connect(transport).then(() => client);
}

describe("engram mcp --connect, the stdio bridge to a running server", () => {
  let db;
  let server;
  let clients = [];

  before(async () => {
    db = tempDir("engram-bridge-");
    server = await startServer({ db });
  });

  after(async () => {
    for (const c of clients) await c.close();
    await server?.stop();
    removeDir(db);
  });

  test("negotiates through the bridge and lists the server's tools", async () => {
    const client = await bridgeClient(server, "bridge-a");
    clients.push(client);
    assert.equal(client.getServerVersion().name, "engram");
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["SearchMemory", "StoreMemory", "ForgetMemory", "Retrieve", "ListMemories", "MemoryStats", "ReviseMemory", "MemoryHistory"]);
  });

  test("what the bridge stores, the REST API finds; what REST stores, the bridge finds", async () => {
    const client = clients[0];
    const stored = await store(client, {
      content: "The user's dog is called Brindle and hates thunder",
      session_id: "pets", tool: "Chat", title: "dog",
    });
    const found = await rest(server, "/v1/collections/memories/search", { query: "Brindle thunder", k: 5 });
    assert.deepEqual(found.hits.map((h) => h.id), [stored.memory_id]);

    const memoryId = "3f0c1d2e-4b5a-4c6d-8e7f-9a0b1c2d3e4f";
    await rest(server, "/v1/collections/memories/records", {
      records: [{
        memory_id: memoryId, content: "Deploys go out on Thursdays after the standup",
        title: "deploy day", session_id: "ops", tool: "Bash", agent_id: "local", sequence_order: 1,
        timestamp: "2026-11-01T10:00:00Z", archetype_title: "assistant", schema_version: "1",
      }],
    });
    const result = await client.callTool({
      name: "SearchMemory", arguments: { query: "when do deploys go out", score_threshold: 0 },
    });
    assert.notEqual(result.isError, true, JSON.stringify(result));
    assert.ok(result.structuredContent.results.some((r) => r.memory_id === memoryId),
      JSON.stringify(result.structuredContent));
  });

  test("two bridge clients and one HTTP client writing one session keep its chain linear", async () => {
    clients.push(await bridgeClient(server, "bridge-b"));
    const http = new Client({ name: "http-c", version: "1.0.0" });
    await http.connect(new StreamableHTTPClientTransport(new URL(server.url + "/mcp")));
    clients.push(http);
    const writers = [clients[0], clients[1], http];
    const perWriter = 12;
    await Promise.all(writers.map(async (client, w) => {
      for (let i = 0; i < perWriter; i++) {
        await store(client, { content: `step ${w}-${i} of the shared session`, session_id: "shared", tool: "Edit" });
      }
    }));
    const listed = await rest(server, "/v1/collections/memories/search", {
      k: 1000, dialect: "vector_filter", filter: { session_id: "shared" },
    });
    const memories = listed.hits.map((h) => JSON.parse(JSON.stringify(h.record)));
    assert.equal(memories.length, writers.length * perWriter);
    memories.sort((a, b) => a.sequence_order - b.sequence_order);
    memories.forEach((m, i) => {
      assert.equal(m.sequence_order, i + 1, "sequence orders are 1..n without gaps or forks");
      assert.equal(m.preceding_memory_id ?? null, i === 0 ? null : memories[i - 1].memory_id);
    });
  });
});
