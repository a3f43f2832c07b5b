// Micro-benchmarks of the filter core (results in bench/RESULTS.md):
//   - compile: text of a 10-node filter in each dialect -> optimised IR;
//   - evaluate: a 5-leaf filter over records, per record, next to two peers
//     on the same records and filter: a per-record interpreter over JSON
//     metadata (how Mongo-style filter libraries such as AgentsKit's
//     matchesFilter evaluate), and SQLite evaluating the equivalent WHERE
//     clause over a typed in-memory table;
//   - translate: the optimised IR of the 10-node vector_filter filter for
//     every target (SQL with its params, other stores' JSON or query text).
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <sqlite3.h>

#include "filter/check/checker.h"
#include "filter/compiler.h"
#include "filter/eval/evaluator.h"
#include "filter/optimize/optimize.h"
#include "filter/translate/translate.h"
#include "schema/presets.h"
#include "schema/record.h"

namespace engram::filter {
namespace {

std::shared_ptr<const Schema> DocsSchema() {
  static const auto schema = Schema::Parse(R"({"fields":[
    {"name":"min_level","type":"int","default":0},
    {"name":"character_class","type":"string","optional":true},
    {"name":"character_classes","type":"set<string>","optional":true},
    {"name":"region","type":"string","default":"anywhere"},
    {"name":"quest_reached","type":"string","optional":true},
    {"name":"tags","type":"set<string>","optional":true},
    {"name":"version","type":"int","default":1},
    {"name":"archived","type":"bool","optional":true},
    {"name":"section","type":"string","optional":true},
    {"name":"score","type":"float","optional":true}]})")
                                 .value();
  return schema;
}

// 10 filter nodes in each dialect (as FILTERS.md §1.5 counts them).
const char* TenNodeFilter(Dialect d) {
  switch (d) {
    case Dialect::kRetrieve:
      return R"({"op":"and","args":[
        {"op":"ge","lhs":{"value":12},"rhs":{"knowledge":"min_level"}},
        {"op":"in","needle":{"value":"mage"},"haystack":{"knowledge":"character_classes"}},
        {"op":"or","args":[
          {"op":"eq","lhs":{"knowledge":"region"},"rhs":{"value":"valley"}},
          {"op":"eq","lhs":{"knowledge":"region"},"rhs":{"value":"keep"}},
          {"op":"not","arg":{"op":"eq","lhs":{"knowledge":"quest_reached"},"rhs":{"value":"intro"}}}]},
        {"op":"lt","lhs":{"knowledge":"min_level"},"rhs":{"value":40}},
        {"op":"ne","lhs":{"knowledge":"character_class"},"rhs":{"value":"bard"}}]})";
    case Dialect::kExprV1:
      return R"({"schema":"search_filter_expr/v1","expr":{"op":"and","args":[
        {"op":"in","field":"scope","value":["project_shared","org_shared"]},
        {"op":"gte","field":"confidence","value":0.7},
        {"op":"or","args":[
          {"op":"eq","field":"type","value":"fact"},
          {"op":"eq","field":"type","value":"decision"},
          {"op":"not","expr":{"op":"eq","field":"key","value":"oncall"}}]},
        {"op":"lt","field":"updated_at","value":"2026-01-01T00:00:00Z"},
        {"op":"neq","field":"agent_id","value":"a9"}]}})";
    case Dialect::kVectorFilter:
      return R"({"tags":{"$in":["docs","rag"]},"version":{"$gte":2,"$lt":9},
        "archived":{"$ne":true},"$or":[{"section":"libs"},{"section":"devel"}],
        "score":{"$lt":0.8}})";
    case Dialect::kSearchMemory:
      return R"([{"field":"agent_id","operator":"is","value":"assistant-1"},
        {"field":"tool","operator":"any_of","value":["chat","code"]},
        {"field":"timestamp","operator":"between","value":["2025-07-01","2025-07-31"]},
        {"field":"sequence_order","operator":"after","value":1},
        {"field":"preceding_memory_id","operator":"is_not","value":"x"},
        {"field":"title","operator":"contains","value":"units"},
        {"field":"session_id","operator":"is_not","value":"s-0"},
        {"field":"archetype_version","operator":"is","value":1},
        {"field":"schema_version","operator":"is","value":"1"}])";
  }
  return "";
}

std::shared_ptr<const Schema> SchemaFor(Dialect d) {
  if (d == Dialect::kExprV1) return NotesSchema();
  if (d == Dialect::kSearchMemory) return MemorySchema();
  return DocsSchema();
}

void BM_Compile10Nodes(benchmark::State& state) {
  Dialect d = kAllDialects[state.range(0)];
  std::string text = TenNodeFilter(d);
  std::shared_ptr<const Schema> schema = SchemaFor(d);
  if (!Compile(d, text, schema).ok()) state.SkipWithError("filter does not compile");
  for (auto _ : state) benchmark::DoNotOptimize(Compile(d, text, schema));
  state.SetLabel(std::string(DialectName(d)));
}
BENCHMARK(BM_Compile10Nodes)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);

void BM_Translate10Nodes(benchmark::State& state) {
  const Target target = kAllTargets[state.range(0)];
  auto compiled =
      Compile(Dialect::kVectorFilter, TenNodeFilter(Dialect::kVectorFilter), DocsSchema());
  const Filter& ir = compiled.value().optimized;
  if (!std::holds_alternative<Translation>(Translate(ir, target))) {
    state.SkipWithError("the target cannot express the filter");
  }
  for (auto _ : state) benchmark::DoNotOptimize(Translate(ir, target));
  state.SetLabel(std::string(TargetName(target)));
}
BENCHMARK(BM_Translate10Nodes)
    ->DenseRange(0, std::size(kAllTargets) - 1)
    ->Unit(benchmark::kMicrosecond);

// The stages of Compile, to see where its time goes.
void BM_Stage1ReadJson(benchmark::State& state) {
  Dialect d = kAllDialects[state.range(0)];
  std::string text = TenNodeFilter(d);
  for (auto _ : state) benchmark::DoNotOptimize(json::Read(text));
  state.SetLabel(std::string(DialectName(d)));
}
BENCHMARK(BM_Stage1ReadJson)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);

void BM_Stage2ParseAndCheck(benchmark::State& state) {
  Dialect d = kAllDialects[state.range(0)];
  json::Value doc = json::Read(TenNodeFilter(d)).value;
  std::shared_ptr<const Schema> schema = SchemaFor(d);
  const DialectSpec& spec = GetDialect(d);
  for (auto _ : state) benchmark::DoNotOptimize(Check(spec.parse(doc), *schema, spec.policy));
  state.SetLabel(std::string(DialectName(d)));
}
BENCHMARK(BM_Stage2ParseAndCheck)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);

void BM_Stage3Optimize(benchmark::State& state) {
  Dialect d = kAllDialects[state.range(0)];
  std::shared_ptr<const Schema> schema = SchemaFor(d);
  Node checked = Compile(d, TenNodeFilter(d), schema).value().checked.root;
  for (auto _ : state) benchmark::DoNotOptimize(Optimize(checked, *schema));
  state.SetLabel(std::string(DialectName(d)));
}
BENCHMARK(BM_Stage3Optimize)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);

// ---- evaluation: one 5-leaf filter, three evaluators, the same records.

constexpr const char* kFiveLeaf =
    R"({"tags":{"$in":["docs","rag"]},"version":{"$gte":2},"archived":{"$ne":true},)"
    R"("section":"libs","score":{"$lt":0.8}})";
constexpr const char* kFiveLeafSql =
    "SELECT count(*) FROM docs WHERE "
    "EXISTS (SELECT 1 FROM json_each(docs.tags) WHERE value IN ('docs','rag')) "
    "AND version >= 2 AND NOT (archived IS NOT NULL AND archived = 1) "
    "AND section = 'libs' AND score < 0.8";
// The same filter with tags as a bitmask column (how a tuned SQL schema
// would store a small closed set).
constexpr const char* kFiveLeafSqlMask =
    "SELECT count(*) FROM docs WHERE (tag_mask & 3) != 0 AND version >= 2 "
    "AND NOT (archived IS NOT NULL AND archived = 1) AND section = 'libs' AND score < 0.8";

const std::vector<json::Value>& RecordJson() {
  static const std::vector<json::Value> records = [] {
    std::mt19937_64 rng(42);
    const std::vector<std::string> tags = {"docs", "rag", "code", "news", "chat"};
    const std::vector<std::string> sections = {"libs", "devel", "net", "games"};
    std::vector<json::Value> out;
    for (int i = 0; i < 4096; ++i) {
      json::Value r = json::Value::object();
      r["id"] = "r" + std::to_string(i);
      json::Value t = json::Value::array();
      for (const auto& tag : tags) {
        if (rng() % 3 == 0) t.push_back(tag);
      }
      r["tags"] = t;
      r["version"] = static_cast<std::int64_t>(rng() % 5);
      if (rng() % 4 != 0) r["archived"] = rng() % 2 == 0;
      r["section"] = sections[rng() % sections.size()];
      r["score"] = static_cast<double>(rng() % 1000) / 1000.0;
      out.push_back(std::move(r));
    }
    return out;
  }();
  return records;
}

// How many records engram keeps: the count every peer must reproduce.
std::size_t EngramMatches() {
  std::shared_ptr<const Schema> schema = DocsSchema();
  Checked<CompiledFilter> f = Compile(Dialect::kVectorFilter, kFiveLeaf, schema);
  std::size_t n = 0;
  for (const json::Value& j : RecordJson()) {
    n += Evaluate(f.value().optimized.root, ParseRecord(j, *schema).value().slots);
  }
  return n;
}

// Arg 0: the evaluation Program (what engram runs); 1: the reference
// evaluator that defines the semantics.
void BM_EvaluateFiveLeaves(benchmark::State& state) {
  std::shared_ptr<const Schema> schema = DocsSchema();
  Checked<CompiledFilter> f = Compile(Dialect::kVectorFilter, kFiveLeaf, schema);
  std::vector<Record> records;
  for (const json::Value& j : RecordJson()) records.push_back(ParseRecord(j, *schema).value());
  const CompiledFilter& c = f.value();
  std::size_t matched = 0;
  if (state.range(0) == 0) {
    for (auto _ : state) {
      for (const Record& r : records) matched += c.program.Matches(r.slots);
    }
  } else {
    for (auto _ : state) {
      for (const Record& r : records) matched += Evaluate(c.optimized.root, r.slots);
    }
  }
  benchmark::DoNotOptimize(matched);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * records.size()));
  state.SetLabel(state.range(0) == 0 ? "engram Program" : "engram reference evaluator");
}
BENCHMARK(BM_EvaluateFiveLeaves)->Arg(0)->Arg(1);

// Peer: interpret the filter JSON against each record's JSON metadata, with
// a name lookup per field and per record (AgentsKit's matchesFilter shape).
bool MatchesJson(const json::Value& filter, const json::Value& record) {
  for (const auto& item : filter.items()) {
    auto it = record.find(item.key());
    const json::Value& cond = item.value();
    if (!cond.is_object()) {
      if (it == record.end() || *it != cond) return false;
      continue;
    }
    for (const auto& op : cond.items()) {
      const std::string& name = op.key();
      const json::Value& arg = op.value();
      if (name == "$ne") {
        if (it != record.end() && *it == arg) return false;
      } else if (it == record.end()) {
        return false;
      } else if (name == "$in") {
        bool any = false;
        if (it->is_array()) {
          for (const auto& v : *it) {
            for (const auto& a : arg) any = any || v == a;
          }
        } else {
          for (const auto& a : arg) any = any || *it == a;
        }
        if (!any) return false;
      } else if (name == "$gte") {
        if (!(*it >= arg)) return false;
      } else if (name == "$lt") {
        if (!(*it < arg)) return false;
      }
    }
  }
  return true;
}

void BM_EvaluateFiveLeavesJsonPeer(benchmark::State& state) {
  json::Value filter = json::Read(kFiveLeaf).value;
  const std::vector<json::Value>& records = RecordJson();
  std::size_t matched = 0;
  for (auto _ : state) {
    for (const json::Value& r : records) matched += MatchesJson(filter, r);
  }
  benchmark::DoNotOptimize(matched);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * records.size()));
  state.SetLabel("peer: JSON interpreter");
}
BENCHMARK(BM_EvaluateFiveLeavesJsonPeer);

void BM_EvaluateFiveLeavesSqlitePeer(benchmark::State& state) {
  sqlite3* db = nullptr;
  sqlite3_open(":memory:", &db);
  sqlite3_exec(db,
               "CREATE TABLE docs(id TEXT, tags TEXT, tag_mask INT, version INT, archived INT, "
               "section TEXT, score REAL)",
               nullptr, nullptr, nullptr);
  sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
  sqlite3_stmt* insert = nullptr;
  sqlite3_prepare_v2(db, "INSERT INTO docs VALUES(?,?,?,?,?,?,?)", -1, &insert, nullptr);
  for (const json::Value& r : RecordJson()) {
    std::string id = r["id"].get<std::string>(), tags = json::Dump(r["tags"]);
    std::int64_t mask = 0;
    for (const auto& t : r["tags"]) mask |= t == "docs" ? 1 : (t == "rag" ? 2 : 4);
    sqlite3_bind_text(insert, 1, id.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 2, tags.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(insert, 3, mask);
    sqlite3_bind_int64(insert, 4, r["version"].get<std::int64_t>());
    if (r.contains("archived")) {
      sqlite3_bind_int64(insert, 5, r["archived"].get<bool>() ? 1 : 0);
    } else {
      sqlite3_bind_null(insert, 5);
    }
    sqlite3_bind_text(insert, 6, r["section"].get<std::string>().c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(insert, 7, r["score"].get<double>());
    sqlite3_step(insert);
    sqlite3_reset(insert);
  }
  sqlite3_finalize(insert);
  sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
  sqlite3_stmt* query = nullptr;
  sqlite3_prepare_v2(db, state.range(0) == 0 ? kFiveLeafSql : kFiveLeafSqlMask, -1, &query,
                     nullptr);
  std::int64_t matched = 0;
  sqlite3_step(query);
  if (static_cast<std::size_t>(sqlite3_column_int64(query, 0)) != EngramMatches()) {
    state.SkipWithError("engram and SQLite disagree");
  }
  sqlite3_reset(query);
  for (auto _ : state) {
    sqlite3_step(query);
    matched += sqlite3_column_int64(query, 0);
    sqlite3_reset(query);
  }
  benchmark::DoNotOptimize(matched);
  sqlite3_finalize(query);
  sqlite3_close(db);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * RecordJson().size()));
  state.SetLabel(state.range(0) == 0 ? "peer: SQLite, tags as JSON array"
                                     : "peer: SQLite, tags as bitmask column");
}
BENCHMARK(BM_EvaluateFiveLeavesSqlitePeer)->Arg(0)->Arg(1);

// The agreement the comparison rests on: all three count the same records.
void BM_CheckPeersAgree(benchmark::State& state) {
  json::Value filter = json::Read(kFiveLeaf).value;
  std::size_t engram = EngramMatches(), peer = 0;
  for (const json::Value& j : RecordJson()) peer += MatchesJson(filter, j);
  if (engram != peer) state.SkipWithError("engram and the JSON peer disagree");
  for (auto _ : state) benchmark::DoNotOptimize(engram);
  state.counters["matches"] = static_cast<double>(engram);
}
BENCHMARK(BM_CheckPeersAgree)->Iterations(1);

}  // namespace
}  // namespace engram::filter

BENCHMARK_MAIN();
