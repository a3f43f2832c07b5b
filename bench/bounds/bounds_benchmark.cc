// The bounds benchmark (issue 18): the worst-case requests at every limit
// (workload.h) over a generated `memory` collection of 1M records, through
// engram::Engine with the server's default bounds (a 5 s deadline, 1024
// prefix expansions, a 16 MiB reply budget), each answered or refused in
// bounded time; k = 1000 over 1 MB records for the reply budget; and one
// agent's worst cases running beside another agent's plain searches, whose
// latency and failures are counted.
//
//   bounds_benchmark [--records N] [--vocabulary N] [--seed S] [--work DIR]
//                    [--timeout SECONDS] [--passes N] [--big N] [--contend SECONDS]
//                    [--keep]
//
// --keep reuses the store in --work when it holds the records already.
// Prints Markdown tables on stdout, progress on stderr.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/core.h>

#include "bounds/workload.h"
#include "common/cli.h"
#include "common/format.h"
#include "engram/engine.h"

namespace engram::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Options {
  std::size_t records = 1000000;
  std::size_t vocabulary = 60000;
  std::uint64_t seed = 18;
  std::string work = "bounds-bench";
  double timeout = 5;
  std::size_t passes = 3;
  std::size_t big = 1000;
  double contend = 20;
  bool keep = false;
};

// The process's resident set, in MiB (/proc/self/status VmRSS).
double RssMib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024;
  }
  return 0;
}

double Millis(Clock::time_point since) {
  return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

RequestBounds Bounds(const Options& o) {
  RequestBounds b;
  b.deadline = Clock::now() + std::chrono::milliseconds(static_cast<long>(o.timeout * 1000));
  b.max_reply_bytes = 16 << 20;
  return b;
}

// What a search came to, in the words of the HTTP reply.
std::string Outcome(const StatusOr<SearchResponse>& r) {
  if (!r.ok()) {
    return r.status().code() == StatusCode::kDeadlineExceeded
               ? "503 deadline_exceeded"
               : std::string(StatusCodeName(r.status().code()));
  }
  if (r->rejected) return "422 " + r->rejected->kind;
  std::string out = Thousands(static_cast<double>(r->hits.size())) + " hits";
  if (r->truncated) out += fmt::format(", truncated ({} omitted)", r->omitted);
  return out;
}

void Ingest(Engine& engine, const std::string& collection, std::size_t n,
            const std::function<std::string(std::size_t)>& record) {
  const auto start = Clock::now();
  constexpr std::size_t kBatch = 5000;
  for (std::size_t from = 0; from < n; from += kBatch) {
    std::vector<std::string> texts;
    for (std::size_t i = from; i < std::min(n, from + kBatch); ++i) texts.push_back(record(i));
    std::vector<std::string_view> views(texts.begin(), texts.end());
    StatusOr<WriteResult> w = engine.Upsert(collection, views);
    if (!w.ok()) throw std::runtime_error("upsert: " + w.status().ToString());
    if (w->rejected) throw std::runtime_error("upsert: " + w->rejected->message);
    if ((from / kBatch) % 20 == 0) {
      std::cerr << collection << ": " << from + texts.size() << " records, " << Millis(start) / 1000
                << " s\n";
    }
  }
  if (Status s = engine.Checkpoint(collection); !s.ok()) {
    throw std::runtime_error("checkpoint: " + s.ToString());
  }
  std::cout << fmt::format(
      "- `{}`: {} records ingested and checkpointed in {:.1f} s; RSS then {:.0f} MiB\n", collection,
      Thousands(static_cast<double>(n)), Millis(start) / 1000, RssMib());
}

void WorstCaseTable(const Engine& engine, const Options& o, const std::vector<Case>& cases) {
  std::cout << "\n| request | at the limit | outcome | median ms | max ms |\n"
               "|---|---|---|---:|---:|\n";
  for (const Case& c : cases) {
    std::vector<double> ms;
    std::string outcome;
    for (std::size_t p = 0; p < o.passes; ++p) {
      SearchRequest r = c.request;
      r.bounds = Bounds(o);
      const auto start = Clock::now();
      const StatusOr<SearchResponse> got = engine.Search("memories", r);
      ms.push_back(Millis(start));
      outcome = Outcome(got);
    }
    std::sort(ms.begin(), ms.end());
    std::cout << fmt::format("| {} | {} | {} | {:.1f} | {:.1f} |\n", c.name, c.limit, outcome,
                             ms[ms.size() / 2], ms.back());
    std::cout.flush();
  }
}

void ReplyBudget(Engine& engine, const Options& o) {
  Checked<SchemaRef> schema =
      SchemaRef::Parse(R"({"fields":[{"name":"n","type":"int","required":true}]})");
  if (Status s = engine.CreateCollection(
          {"big", schema.value(), {{"text", 1.0}}, 0, "cosine", "none", ""});
      !s.ok() && s.code() != StatusCode::kAlreadyExists) {
    throw std::runtime_error(s.ToString());
  }
  const std::string pad(1000000, 'x');
  Ingest(engine, "big", o.big, [&](std::size_t i) {
    return fmt::format(R"({{"id":"b{}","n":{},"text":"blob","pad":"{}"}})", i, i, pad);
  });
  SearchRequest r;
  r.query = "blob";
  r.k = 1000;
  r.bounds = Bounds(o);
  const auto start = Clock::now();
  const StatusOr<SearchResponse> got = engine.Search("big", r);
  const double ms = Millis(start);
  std::size_t bytes = 0;
  if (got.ok()) {
    for (const SearchHit& h : got->hits) bytes += h.id.size() + h.record.size();
  }
  std::cout << fmt::format(
      "\n| request | outcome | hit bytes built | without the budget | ms |\n"
      "|---|---|---:|---:|---:|\n| k = 1000 over {} records of 1 MB | {} | {} | {} | {:.1f} |\n",
      Thousands(static_cast<double>(o.big)), Outcome(got), Thousands(static_cast<double>(bytes)),
      Thousands(static_cast<double>(o.big) * 1000000.0), ms);
}

// Agent A runs the worst cases on two threads; agent B runs plain scoped
// searches on one: B's latencies and failures.
void Contention(const Engine& engine, const Options& o, const std::vector<Case>& cases,
                const std::string& word) {
  std::atomic<bool> stop{false};
  std::atomic<std::size_t> a_done{0}, a_stopped{0};
  auto attacker = [&](std::size_t offset) {
    for (std::size_t i = offset; !stop.load(); ++i) {
      SearchRequest r = cases[i % cases.size()].request;
      r.scope = Scope{"agent1", ReadProfile::kPrivateOnly};
      r.bounds = Bounds(o);
      const StatusOr<SearchResponse> got = engine.Search("memories", r);
      ++a_done;
      if (!got.ok() && got.status().code() == StatusCode::kDeadlineExceeded) ++a_stopped;
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < 2; ++t) threads.emplace_back(attacker, t * 5);
  std::vector<double> ms;
  std::size_t failed = 0;
  const auto start = Clock::now();
  while (Millis(start) < o.contend * 1000) {
    SearchRequest r;
    r.query = word;
    r.k = 10;
    r.dialect = FilterDialect::kSearchMemory;
    r.filter = R"([{"field":"tool","operator":"is","value":"t3"}])";
    r.scope = Scope{"agent2", ReadProfile::kPrivateOnly};
    r.bounds = Bounds(o);
    const auto one = Clock::now();
    const StatusOr<SearchResponse> got = engine.Search("memories", r);
    ms.push_back(Millis(one));
    if (!got.ok() || got->rejected) ++failed;
  }
  stop = true;
  for (std::thread& t : threads) t.join();
  std::sort(ms.begin(), ms.end());
  auto pct = [&](double p) {
    return ms[std::min(ms.size() - 1, static_cast<std::size_t>(p * ms.size()))];
  };
  std::cout << fmt::format(
      "\n| agent | searches | failed or past the deadline | p50 ms | p99 ms | max ms |\n"
      "|---|---:|---:|---:|---:|---:|\n"
      "| B: `{}`, a search_memory filter, k 10, scoped | {} | {} | {:.1f} | {:.1f} | {:.1f} |\n"
      "| A: the worst cases above in a loop on 2 threads, scoped | {} | {} stopped at the "
      "deadline | | | |\n",
      word, ms.size(), failed, pct(0.5), pct(0.99), ms.back(), a_done.load(), a_stopped.load());
}

void Run(const Options& o) {
  const fs::path store = fs::path(o.work) / "store";
  if (!o.keep) fs::remove_all(store);
  StatusOr<std::unique_ptr<Engine>> opened = Engine::Open(store.string());
  if (!opened.ok()) throw std::runtime_error(opened.status().ToString());
  Engine& engine = **opened;
  Workload workload(o.seed, o.vocabulary);
  StatusOr<CollectionInfo> info = engine.DescribeCollection("memories");
  std::cout << "## Worst cases over " << Thousands(static_cast<double>(o.records))
            << " memory records\n\n";
  if (!info.ok() || info->records != o.records) {
    if (info.ok()) {
      if (Status s = engine.DropCollection("memories"); !s.ok())
        throw std::runtime_error(s.ToString());
    }
    const CollectionSpec spec{"memories",
                              SchemaRef::Load("preset:memory").value(),
                              {{"content", 1.0}, {"title", 1.0}, {"context", 1.0}},
                              0,
                              "cosine",
                              "en",
                              "timestamp"};
    if (Status s = engine.CreateCollection(spec); !s.ok()) throw std::runtime_error(s.ToString());
    Ingest(engine, "memories", o.records, [&](std::size_t i) { return workload.Record(i); });
  } else {
    std::cout << "- `memories`: " << Thousands(static_cast<double>(o.records))
              << " records reused from " << store << "\n";
  }
  const std::vector<Case> cases = WorstCases(workload);
  WorstCaseTable(engine, o, cases);
  if (o.contend > 0) Contention(engine, o, cases, workload.TopWords(30).back());
  if (o.big > 0) ReplyBudget(engine, o);
}

}  // namespace
}  // namespace engram::bench

int main(int argc, char** argv) {
  using engram::bench::ArgReader;
  return engram::bench::RunGuarded("bounds_benchmark", [&] {
    engram::bench::Options o;
    for (ArgReader args(argc, argv); args.Next();) {
      if (args.Is("--records"))
        o.records = std::stoul(args.Value());
      else if (args.Is("--vocabulary"))
        o.vocabulary = std::stoul(args.Value());
      else if (args.Is("--seed"))
        o.seed = std::stoull(args.Value());
      else if (args.Is("--work"))
        o.work = args.Value();
      else if (args.Is("--timeout"))
        o.timeout = std::stod(args.Value());
      else if (args.Is("--passes"))
        o.passes = std::stoul(args.Value());
      else if (args.Is("--big"))
        o.big = std::stoul(args.Value());
      else if (args.Is("--contend"))
        o.contend = std::stod(args.Value());
      else if (args.Is("--keep"))
        o.keep = true;
      else
        args.Unknown("see the usage in bench/bounds/bounds_benchmark.cc");
    }
    engram::bench::Run(o);
  });
}
