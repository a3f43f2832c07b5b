// The served OpenAPI document is the truth about the HTTP API: this test
// starts `engram serve --keys`, compiles the document's component schemas
// with ajv (JSON Schema 2020-12, as OpenAPI 3.1 uses), calls every endpoint
// in success and error cases, and validates each real response against the
// schema documented for its path, method, status and content type. An
// undocumented status or content type fails the test.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { startServer, tempDir, removeDir } from "./support.mjs";

const ADMIN = "admin-key-0123456789";
const ALICE = "alice-key-0123456789";
const BOB = "bob-key-0123456789ab";

let server;
let dir;
let doc;
let ajv;
const DOC_ID = "openapi.json";

before(async () => {
  dir = tempDir("engram-openapi-");
  const keys = path.join(dir, "keys.json");
  writeFileSync(keys, JSON.stringify({
    keys: [
      { key: ADMIN, admin: true },
      { key: ALICE, agent: "alice", profile: "private_only" },
      { key: BOB, agent: "bob", profile: "all_scopes" },
    ],
  }));
  server = await startServer({ db: path.join(dir, "db"), args: ["--keys", keys, "--max-batch", "5"] });
  const res = await fetch(server.url + "/openapi.json");
  assert.equal(res.status, 200);
  doc = await res.json();
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, DOC_ID);
  for (const name of Object.keys(doc.components.schemas)) {
    assert.ok(ajv.getSchema(`${DOC_ID}#/components/schemas/${name}`), `schema ${name} compiles`);
  }
});

after(async () => {
  if (server) {
    const { code } = await server.stop();
    assert.equal(code, 0, "engram serve exits cleanly on SIGTERM:\n" + server.log());
    assert.match(server.log(), /closed/);
  }
  if (dir) removeDir(dir);
});

const pointer = (...parts) =>
  "#" + parts.map((p) => "/" + encodeURIComponent(String(p).replace(/~/g, "~0").replace(/\//g, "~1"))).join("");

// Sends only the head of a request whose Content-Length is `length`, and
// reads the answer, as fetch's Response gives it. A server that refuses a
// body by its length answers before reading it and drains only a bounded
// part of it before closing: a client still uploading a large body may be
// reset before it reads the answer, so the body is never sent.
function sendHead(method, url, headers, length) {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(server.url);
    const socket = net.connect(Number(port), hostname);
    const lines = [`${method} ${url} HTTP/1.1`, `host: ${hostname}:${port}`, `content-length: ${length}`];
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
    let received = Buffer.alloc(0);
    const answer = () => {
      const end = received.indexOf("\r\n\r\n");
      if (end < 0) return null;
      const [statusLine, ...fields] = received.subarray(0, end).toString("latin1").split("\r\n");
      const replyHeaders = new Headers(fields.map((f) => [f.slice(0, f.indexOf(":")), f.slice(f.indexOf(":") + 1).trim()]));
      const body = received.subarray(end + 4);
      const declared = replyHeaders.get("content-length");
      if (declared === null || body.length < Number(declared)) return null;
      const text = body.subarray(0, Number(declared)).toString("utf8");
      return { status: Number(statusLine.split(" ")[1]), headers: replyHeaders, text: async () => text };
    };
    socket.setTimeout(10000, () => socket.destroy(new Error(`no answer to ${method} ${url}`)));
    socket.on("error", reject);
    socket.on("data", (chunk) => {
      received = Buffer.concat([received, chunk]);
      const res = answer();
      if (res) {
        socket.destroy();
        resolve(res);
      }
    });
    socket.on("end", () => reject(new Error(`closed before a whole answer: ${received.toString("latin1").slice(0, 200)}`)));
    socket.write(lines.join("\r\n") + "\r\n\r\n");
  });
}

// Calls the API and validates the reply against the document. `template` is
// the documented path ("/v1/collections/{name}"); null for paths that are not
// operations (unknown routes, wrong methods), whose errors must still be
// Problems. `declaredLength`: only the head is sent, announcing a JSON body of
// that many bytes (sendHead).
async function call(method, url, { template = url, body, raw, key = ADMIN, status, extra = {}, declaredLength } = {}) {
  const headers = {};
  if (key) headers.authorization = `Bearer ${key}`;
  let payload;
  if (raw !== undefined) payload = raw;
  else if (body !== undefined) payload = JSON.stringify(body);
  if (payload !== undefined || declaredLength !== undefined) headers["content-type"] = "application/json";
  Object.assign(headers, extra);
  const res = declaredLength !== undefined
    ? await sendHead(method, url, headers, declaredLength)
    : await fetch(server.url + url, { method, headers, body: payload });
  const text = await res.text();
  const ctype = (res.headers.get("content-type") ?? "").split(";")[0].trim();
  const where = `${method} ${url} -> ${res.status}: ${text.slice(0, 400)}`;
  if (status !== undefined) assert.equal(res.status, status, where);
  let schemaRef;
  if (template === null) {
    assert.equal(ctype, "application/problem+json", where);
    schemaRef = `${DOC_ID}#/components/schemas/Problem`;
  } else {
    const op = doc.paths[template]?.[method.toLowerCase()];
    assert.ok(op, `undocumented operation ${method} ${template}`);
    let response = op.responses[String(res.status)] ?? op.responses.default;
    assert.ok(response, `undocumented status for ${where}`);
    let base = pointer("paths", template, method.toLowerCase(), "responses",
      op.responses[String(res.status)] ? String(res.status) : "default");
    if (response.$ref) {
      base = response.$ref.split("/").map((p, i) => (i === 0 ? p : encodeURIComponent(p))).join("/");
      response = response.$ref.slice(2).split("/").reduce((o, k) => o[k], doc);
    }
    const media = response.content?.[ctype];
    assert.ok(media, `undocumented content type '${ctype}' for ${where}`);
    schemaRef = `${DOC_ID}${base}/content/${encodeURIComponent(ctype.replace(/\//g, "~1"))}/schema`;
  }
  const value = ctype.endsWith("json") ? JSON.parse(text) : text;
  const validate = ajv.getSchema(schemaRef) ?? ajv.compile({ $ref: schemaRef });
  assert.ok(validate(value), `${where}\n${JSON.stringify(validate.errors, null, 2)}`);
  return { status: res.status, body: value, headers: res.headers };
}

const note = (id, agent, scope, content) => ({
  id, content, type: "fact", scope, agent_id: agent, importance: 0.5, confidence: 0.9,
  updated_at: "2024-05-01T10:00:00Z",
});
const EXPR = { schema: "search_filter_expr/v1", expr: { op: "eq", field: "scope", value: "org_shared" } };
const RETRIEVE_FILTER = { op: "eq", lhs: { knowledge: "scope" }, rhs: { value: "org_shared" } };

test("probes, metrics and the document itself", async () => {
  await call("GET", "/livez", { key: null, status: 200 });
  await call("GET", "/readyz", { key: null, status: 200 });
  await call("GET", "/metrics", { key: null, status: 401 });
  await call("GET", "/metrics", { key: ALICE, status: 403 });
  const m = await call("GET", "/metrics", { status: 200 });
  assert.match(m.body, /engram_http_in_flight/);
  await call("GET", "/openapi.json", { key: null, status: 200 });
  assert.equal(doc.openapi, "3.1.0");
});

test("browsers: foreign origins, forms and compressed bodies", async () => {
  const c = "/v1/collections";
  const body = { name: "web", schema: "preset:notes", text: ["content"] };
  const origin = { origin: "http://evil.example" };
  let r = await call("POST", c, { body, extra: origin, status: 403 });
  assert.equal(r.body.kind, "request.forbidden_origin");
  r = await call("GET", "/livez", { key: null, extra: origin, status: 403 });
  r = await call("POST", c, { body, extra: { "content-type": "text/plain" }, status: 415 });
  assert.equal(r.body.kind, "request.unsupported_media_type");
  r = await call("POST", c, { body, extra: { "content-encoding": "gzip" }, status: 415 });
  assert.equal(r.body.kind, "request.unsupported_encoding");
  await call("GET", `${c}/web`, { template: `${c}/{name}`, status: 404 }); // nothing was created
});

test("collections", async () => {
  const c = "/v1/collections";
  const notes = { name: "notes", schema: "preset:notes", text: [{ name: "content" }], time_field: "updated_at" };
  const ranked = await call("POST", c, { body: { name: "ranked", schema: "preset:notes", text: ["content"],
    decay: "updated_at:gauss:7d", boost: "importance" }, status: 201 });
  assert.equal(ranked.body.decay, "updated_at:gauss:604800.0s:0.0s:0.0");
  await call("DELETE", `${c}/ranked`, { template: `${c}/{name}`, status: 200 });
  await call("POST", c, { body: notes, key: null, status: 401 });
  await call("POST", c, { body: notes, key: "nope-nope-nope-nope", status: 401 });
  await call("POST", c, { body: notes, key: ALICE, status: 403 });
  await call("POST", c, { body: notes, status: 201 });
  await call("POST", c, { body: notes, status: 409 });
  await call("POST", c, { raw: "{\"name\":", status: 400 });
  await call("POST", c, { body: { name: "x", schema: { fields: [{ name: "a", type: "bogus" }] } }, status: 422 });
  await call("POST", c, { body: { name: "x", schema: "preset:nope" }, status: 400 });
  const lore = { name: "lore", schema: { fields: [{ name: "level", type: "int", optional: true }] },
    text: ["text"], vector: { dim: 2, metric: "cosine" }, language: "none" };
  await call("POST", c, { body: lore, status: 201 });
  const list = await call("GET", c, { status: 200 });
  assert.equal(list.body.collections.length, 2);
  await call("GET", `${c}/notes`, { template: `${c}/{name}`, status: 200 });
  await call("GET", `${c}/nope`, { template: `${c}/{name}`, status: 404 });
  await call("DELETE", `${c}/lore`, { template: `${c}/{name}`, key: BOB, status: 403 });
  await call("DELETE", `${c}/lore`, { template: `${c}/{name}`, status: 200 });
  await call("DELETE", `${c}/lore`, { template: `${c}/{name}`, status: 404 });
});

test("records", async () => {
  const r = "/v1/collections/notes/records";
  const t = "/v1/collections/{name}/records";
  await call("POST", r, { template: t, key: ALICE, status: 200,
    body: { records: [note("a1", "alice", "agent_private", "alice dragon")] } });
  await call("POST", r, { template: t, key: BOB, status: 200,
    body: { records: [note("b1", "bob", "org_shared", "bob dragon"), note("b2", "bob", "agent_private", "bob river")] } });
  await call("POST", r, { template: t, key: ALICE, status: 403,
    body: { records: [note("x", "bob", "agent_private", "forged")] } });
  const bad = note("a2", "alice", "agent_private", "x");
  delete bad.importance;
  const rejected = await call("POST", r, { template: t, status: 422, body: { records: [note("a3", "alice", "s", "y"), bad] } });
  assert.match(rejected.body.path, /^\$\.records\[1\]/);
  const six = Array.from({ length: 6 }, (_, i) => note(`n${i}`, "alice", "s", "z"));
  await call("POST", r, { template: t, status: 400, body: { records: six } });
  await call("POST", r, { template: t, status: 413, declaredLength: 9 << 20 });
  await call("POST", "/v1/collections/nope/records", { template: t, status: 404, body: { records: [note("q", "a", "s", "q")] } });
  await call("GET", `${r}/a1`, { template: `${t}/{id}`, key: ALICE, status: 200 });
  await call("GET", `${r}/b2`, { template: `${t}/{id}`, key: ALICE, status: 404 });
  await call("DELETE", `${r}/b1`, { template: `${t}/{id}`, key: BOB, status: 200 });
  await call("POST", `${r}:delete`, { template: `${t}:delete`, status: 200, body: { ids: ["zz"] } });
  await call("POST", `${r}/delete`, { template: `${t}/delete`, status: 200,
    body: { filter: { scope: "nothing" }, dialect: "vector_filter" } });
  await call("POST", `${r}:delete`, { template: `${t}:delete`, status: 422,
    body: { filter: { colour: "red" }, dialect: "vector_filter" } });
  await call("POST", `${r}:delete`, { template: `${t}:delete`, status: 400, body: {} });
});

test("quantized vectors", async () => {
  const c = "/v1/collections";
  const created = await call("POST", c, { status: 201, body: { name: "qv", schema: "preset:notes",
    vector: { dim: 4, metric: "l2", quantization: "int8" } } });
  assert.equal(created.body.vector.quantization, "int8");
  await call("POST", c, { status: 400, body: { name: "qv2", schema: "preset:notes",
    vector: { dim: 4, quantization: "int4" } } });
  await call("DELETE", `${c}/qv`, { template: `${c}/{name}`, status: 200 });
});

test("graph fields", async () => {
  const c = "/v1/collections";
  const created = await call("POST", c, { status: 201, body: { name: "gf", schema: "preset:notes",
    vector: { dim: 4 }, graph_fields: ["agent_id"], graph_min_records: 16 } });
  assert.deepEqual(created.body.graph_fields, ["agent_id"]);
  assert.equal(created.body.graph_min_records, 16);
  const unknown = await call("POST", c, { status: 400, body: { name: "gf2", schema: "preset:notes",
    vector: { dim: 4 }, graph_fields: ["nope"] } });
  assert.match(JSON.stringify(unknown.body), /graph_fields\[0\]: 'nope' is not a field of the schema/);
  await call("POST", c, { status: 400, body: { name: "gf2", schema: "preset:notes",
    vector: { dim: 4 }, graph_fields: ["agent_id"], graph_min_records: 2 } });
  await call("DELETE", `${c}/gf`, { template: `${c}/{name}`, status: 200 });
});

test("dedup on write", async () => {
  const c = "/v1/collections";
  const created = await call("POST", c, { body: { name: "dd", schema: "preset:notes", text: ["content"], dedup: "exact" }, status: 201 });
  assert.equal(created.body.dedup, "exact");
  await call("POST", c, { body: { name: "dd2", schema: "preset:notes", text: ["content"], dedup: "near:x" }, status: 400 });
  await call("POST", c, { body: { name: "dd2", schema: "preset:notes", text: ["content"], dedup: "near:0.9" }, status: 400 });
  const r = "/v1/collections/dd/records";
  const t = "/v1/collections/{name}/records";
  const first = await call("POST", r, { template: t, status: 200,
    body: { records: [note("d1", "alice", "s", "Same  Words"), note("d2", "bob", "s", "same words")] } });
  assert.deepEqual(first.body.deduplicated, []);
  const again = await call("POST", r, { template: t, status: 200,
    body: { records: [note("d3", "alice", "s", "other words"), note("d4", "alice", "s", "same words")] } });
  assert.equal(again.body.written, 1);
  assert.deepEqual(again.body.deduplicated, [{ index: 1, id: "d4", duplicate_of: "d1", action: "skipped" }]);
  await call("DELETE", `${c}/dd`, { template: `${c}/{name}`, status: 200 });
  // The refresh action moves the original's record time; it needs a time_field.
  await call("POST", c, { body: { name: "dr", schema: "preset:notes", text: ["content"], dedup: "exact:refresh" }, status: 400 });
  const refreshing = await call("POST", c, { body: { name: "dr", schema: "preset:notes", text: ["content"],
    time_field: "updated_at", dedup: "exact:refresh" }, status: 201 });
  assert.equal(refreshing.body.dedup, "exact:refresh");
  assert.equal(refreshing.body.hit_count_field, "hit_count");
  assert.equal(refreshing.body.last_hit_field, "last_hit_at");
  const dr = "/v1/collections/dr/records";
  await call("POST", dr, { template: t, status: 200, body: { records: [note("r1", "alice", "s", "salt")] } });
  const later = { ...note("r2", "alice", "s", "SALT"), updated_at: "2025-01-01T00:00:00Z" };
  const refreshed = await call("POST", dr, { template: t, status: 200, body: { records: [later] } });
  assert.deepEqual(refreshed.body.deduplicated, [{ index: 0, id: "r2", duplicate_of: "r1", action: "refreshed" }]);
  const got = await call("GET", `${dr}/r1`, { template: `${t}/{id}`, status: 200 });
  assert.equal(got.body.updated_at, "2025-01-01T00:00:00Z");
  await call("DELETE", `${c}/dr`, { template: `${c}/{name}`, status: 200 });
});

test("supersession, as-of and history", async () => {
  const c = "/v1/collections";
  await call("POST", c, { body: { name: "hist", schema: "preset:notes", text: ["content"] }, status: 201 });
  const r = "/v1/collections/hist/records";
  const t = "/v1/collections/{name}/records";
  await call("POST", r, { template: t, key: ALICE, status: 200,
    body: { records: [note("h1", "alice", "agent_private", "the ferry at six")] } });
  await new Promise((resolve) => setTimeout(resolve, 5));
  const between = new Date().toISOString();
  await new Promise((resolve) => setTimeout(resolve, 5));
  const revised = await call("POST", r, { template: t, key: ALICE, status: 200,
    body: { records: [{ ...note("h2", "alice", "agent_private", "the ferry at seven"), supersedes: ["h1"] }] } });
  assert.deepEqual(revised.body.superseded, [{ index: 0, id: "h2", superseded: "h1" }]);
  const theirs = await call("POST", r, { template: t, key: BOB, status: 422,
    body: { records: [{ ...note("b9", "bob", "agent_private", "x"), supersedes: ["h2"] }] } });
  assert.equal(theirs.body.kind, "record.supersedes_unknown");
  assert.equal(theirs.body.path, "$.records[0].supersedes[0]");
  await call("POST", r, { template: t, key: ALICE, status: 422,
    body: { records: [{ ...note("h3", "alice", "agent_private", "x"), supersedes: "h2" }] } });
  const g = `${t}:get`;
  const got = await call("POST", `${r}:get`, { template: g, key: ALICE, status: 200, body: { id: "h2", include_history: true } });
  assert.deepEqual(got.body.history.map((v) => v.id), ["h1"]);
  assert.equal(got.body.history[0].superseded_at, got.body.written_at);
  const then = await call("POST", `${r}:get`, { template: g, key: ALICE, status: 200, body: { id: "h1", as_of: between } });
  assert.equal(then.body.id, "h1");
  await call("POST", `${r}:get`, { template: g, key: ALICE, status: 404, body: { id: "h1" } });
  await call("POST", `${r}:get`, { template: g, status: 400, body: { id: "h1", as_of: "soon" } });
  await call("POST", `${r}:get`, { template: g, status: 400, body: {} });
  await call("POST", "/v1/collections/nope/records:get", { template: g, status: 404, body: { id: "x" } });
  const s = await call("POST", "/v1/collections/hist/search", { template: "/v1/collections/{name}/search", status: 200,
    body: { query: "ferry", as_of: between } });
  assert.deepEqual(s.body.hits.map((h) => h.id), ["h1"]);
  const l = await call("POST", `${r}:list`, { template: `${t}:list`, status: 200, body: { as_of: between } });
  assert.deepEqual(l.body.records.map((x) => x.id), ["h1"]);
  const n = await call("POST", `${r}:count`, { template: `${t}:count`, status: 200, body: { as_of: "2000-01-01" } });
  assert.equal(n.body.count, 0);
  await call("POST", `${r}:facets`, { template: `${t}:facets`, status: 200, body: { field: "agent_id", as_of: between } });
  await call("POST", `${r}:count`, { template: `${t}:count`, status: 400, body: { as_of: "soon" } });
  await call("DELETE", `${c}/hist`, { template: `${c}/{name}`, status: 200 });
});

test("search and filters", async () => {
  const base = "/v1/collections/notes";
  await call("POST", `${base}/records`, { template: "/v1/collections/{name}/records", status: 200,
    body: { records: [note("s1", "carol", "org_shared", "dragon hoard"), note("s2", "carol", "agent_private", "dragon egg")] } });
  const s = "/v1/collections/{name}/search";
  const hits = await call("POST", `${base}/search`, { template: s, status: 200,
    body: { query: "dragon", filter: EXPR, dialect: "expr_v1", impact: true, explain: true, k: 5 } });
  assert.ok(hits.body.hits.length >= 1);
  assert.equal(hits.body.filter_impact.schema, "search_filter_impact/v1");
  const widened = await call("POST", `${base}/search`, { template: s, key: ALICE, status: 200,
    body: { query: "dragon", filter: { $or: [{ agent_id: "carol" }] }, dialect: "vector_filter" } });
  assert.deepEqual(widened.body.hits.map((h) => h.id), []);
  await call("POST", `${base}/search`, { template: s, status: 200, body: {} });
  const ranked = await call("POST", `${base}/search`, { template: s, status: 200,
    body: { query: "dragon", decay: "updated_at:exp:30d:1d:0.1", boost: "importance:2", explain: true } });
  assert.ok(ranked.body.hits.length >= 1);
  for (const h of ranked.body.hits) assert.ok(Math.abs(h.final_score - h.relevance * h.decay * h.boost) < 1e-9);
  assert.equal(ranked.body.explain.ranking.hits.length, ranked.body.hits.length);
  const badDecay = await call("POST", `${base}/search`, { template: s, status: 400, body: { query: "x", decay: "updated_at:exp:soon" } });
  assert.equal(badDecay.body.path, "$.decay");
  const notTime = await call("POST", `${base}/search`, { template: s, status: 422, body: { query: "x", decay: "scope:exp:1d" } });
  assert.equal(notTime.body.path, "$.decay");
  const bad = await call("POST", `${base}/search`, { template: s, status: 422,
    body: { query: "dragon", dialect: "expr_v1", filter: { schema: "search_filter_expr/v1", expr: { op: "eq", field: "colour", value: 1 } } } });
  assert.equal(bad.body.error_code, "INVALID_REQUEST");
  await call("POST", `${base}/search`, { template: s, status: 400, body: { k: 100000 } });
  await call("POST", `${base}/search`, { template: s, status: 400, body: { query: "x", extra: 1 } });
  await call("POST", "/v1/collections/nope/search", { template: s, status: 404, body: { query: "x" } });
  await call("POST", `${base}/search`, { template: s, key: null, status: 401, body: {} });
  const f = "/v1/collections/{name}/filters";
  await call("POST", `${base}/filters/check`, { template: `${f}/check`, status: 200, body: { filter: EXPR, dialect: "expr_v1" } });
  await call("POST", `${base}/filters/check`, { template: `${f}/check`, status: 422,
    body: { filter: { op: "eq" }, dialect: "retrieve" } });
  await call("POST", `${base}/filters/check`, { template: `${f}/check`, status: 400, body: { filter: EXPR } });
  await call("POST", `${base}/filters/translate`, { template: `${f}/translate`, status: 200,
    body: { filter: EXPR, dialect: "expr_v1", target: "sqlite" } });
  await call("POST", `${base}/filters/translate`, { template: `${f}/translate`, status: 422,
    body: { filter: EXPR, dialect: "expr_v1", target: "nosuch" } });
});

test("list, count and facets", async () => {
  const base = "/v1/collections/notes/records";
  const t = "/v1/collections/{name}/records";
  await call("POST", base, { template: t, status: 200, body: { records: [
    { ...note("x1", "carol", "org_shared", "soon gone"), expires_at: "2000-01-01T00:00:00Z" },
    { ...note("x2", "carol", "org_shared", "kept"), expires_at: "2999-01-01T00:00:00Z" }] } });
  const l = `${t}:list`;
  const first = await call("POST", `${base}:list`, { template: l, status: 200, body: { page_size: 1, order_by: "updated_at:desc" } });
  assert.equal(first.body.records.length, 1);
  assert.ok(first.body.next_page_token);
  const ids = first.body.records.map((r) => r.id);
  let token = first.body.next_page_token;
  while (token) {
    const page = await call("POST", `${base}:list`, { template: l, status: 200,
      body: { page_size: 2, order_by: "updated_at:desc", page_token: token } });
    ids.push(...page.body.records.map((r) => r.id));
    token = page.body.next_page_token;
  }
  assert.ok(!ids.includes("x1"), "an expired record is never listed");
  assert.ok(ids.includes("x2"));
  const other = await call("POST", `${base}:list`, { template: l, status: 400,
    body: { page_token: first.body.next_page_token, order_by: "importance" } });
  assert.equal(other.body.path, "$.page_token");
  await call("POST", `${base}:list`, { template: l, status: 400, body: { order_by: "nope" } });
  await call("POST", `${base}:list`, { template: l, status: 400, body: { page_size: 0 } });
  await call("POST", `${base}:list`, { template: l, status: 422, body: { filter: { colour: "red" }, dialect: "vector_filter" } });
  await call("POST", "/v1/collections/nope/records:list", { template: l, status: 404, body: {} });
  await call("POST", `${base}:list`, { template: l, key: null, status: 401, body: {} });
  const c = `${t}:count`;
  const all = await call("POST", `${base}:count`, { template: c, status: 200, body: {} });
  assert.equal(all.body.count, ids.length);
  const mine = await call("POST", `${base}:count`, { template: c, key: ALICE, status: 200,
    body: { filter: { type: "fact" }, dialect: "vector_filter" } });
  assert.ok(mine.body.count < all.body.count);
  await call("POST", `${base}:count`, { template: c, status: 422, body: { filter: { colour: "red" }, dialect: "vector_filter" } });
  await call("POST", `${base}:count`, { template: c, status: 400, body: { extra: 1 } });
  const f = `${t}:facets`;
  const agents = await call("POST", `${base}:facets`, { template: f, status: 200, body: { field: "agent_id", top: 2 } });
  assert.equal(agents.body.values.length, 2);
  const days = await call("POST", `${base}:facets`, { template: f, status: 200,
    body: { field: "updated_at", ranges: [{ to: "2024-05-01" }, { from: "2024-05-01", to: "2024-06-01T00:00:00Z" }] } });
  assert.equal(days.body.ranges[1].count, all.body.count);
  await call("POST", `${base}:facets`, { template: f, status: 200, body: { field: "importance", ranges: [{ from: 0, to: 0.6 }] } });
  const bad = await call("POST", `${base}:facets`, { template: f, status: 400, body: { field: "importance", ranges: [{ from: "x" }] } });
  assert.equal(bad.body.path, "$.ranges[0].from");
  await call("POST", `${base}:facets`, { template: f, status: 400, body: { field: "nope" } });
  await call("POST", `${base}:facets`, { template: f, status: 400, body: {} });
  const m = await call("GET", "/metrics", { status: 200 });
  assert.match(m.body, /engram_expired_records_purged_total\{collection="notes"\} \d+/);
  const coll = await call("GET", "/v1/collections/notes", { template: "/v1/collections/{name}", status: 200 });
  assert.equal(coll.body.ttl_field, "expires_at");
});

test("retrieve configurations", async () => {
  const t = "/v1/retrieves/{name}";
  const spec = { collection: "notes", filter: RETRIEVE_FILTER, top_k: 5, threshold: 0, mode: "text" };
  await call("PUT", "/v1/retrieves/lore", { template: t, key: ALICE, status: 403, body: spec });
  await call("PUT", "/v1/retrieves/lore", { template: t, status: 201, body: spec });
  await call("PUT", "/v1/retrieves/lore", { template: t, status: 200, body: spec });
  await call("PUT", "/v1/retrieves/bad", { template: t, status: 422, body: { ...spec, filter: { op: "eq" } } });
  await call("PUT", "/v1/retrieves/bad", { template: t, status: 404, body: { collection: "nope" } });
  await call("GET", "/v1/retrieves", { status: 200 });
  await call("GET", "/v1/retrieves/lore", { template: t, status: 200 });
  await call("GET", "/v1/retrieves/nope", { template: t, status: 404 });
  const patched = await call("PATCH", "/v1/retrieves/lore/filter", { template: `${t}/filter`, status: 422,
    body: { filter: { op: "eq", lhs: { knowledge: "scope" }, rhs: { value: 3 } } } });
  assert.equal(patched.body.code, 3007);
  await call("PATCH", "/v1/retrieves/nope/filter", { template: `${t}/filter`, status: 404, body: { filter: "" } });
  await call("POST", "/v1/retrieves/lore:run", { template: `${t}:run`, status: 200, body: { query: "dragon" } });
  await call("POST", "/v1/retrieves/lore/run", { template: `${t}/run`, key: ALICE, status: 200, body: { query: "dragon" } });
  await call("POST", "/v1/retrieves/nope:run", { template: `${t}:run`, status: 404, body: { query: "dragon" } });
  await call("PATCH", "/v1/retrieves/lore/filter", { template: `${t}/filter`, status: 200, body: { filter: "" } });
});

test("unknown routes and wrong methods are problems too", async () => {
  await call("GET", "/v2/nothing", { template: null, status: 404 });
  const wrong = await call("PUT", "/v1/collections", { template: null, status: 405, body: {} });
  assert.ok(wrong.headers.get("allow"));
  await call("POST", "/mcp", { key: null, status: 401, body: {} });
});
