// The engine side of the server load test (issue 7), driven by
// bench/server/run.sh:
//
//  prep       builds the Debian store with fastText vectors (the full
//             collection of bench/engine: text title^2 + text, 100-d cosine
//             vectors, metadata) in <work>/store, checkpoints it, and writes
//             <work>/requests.jsonl: one filtered hybrid search per line, as
//             the JSON body of POST /v1/collections/debian/search, the
//             filters cycling through ~50 %, ~5 % and ~0.5 % selectivity;
//  inprocess  opens that store and runs the same bodies through
//             Engine::Search from N threads (one per "connection") for a
//             fixed time, each thread issuing its next search as soon as the
//             last returned (as wrk does per connection); with --json each
//             search also decodes its body and writes the reply with the
//             server's own code, as the server does. Prints one
//             `RESULT key=value ...` line. With --ready FILE it creates FILE
//             when the timed searches start (after the open and the warm-up),
//             so that a script can time an HTTP client over the same window.
//             With --pause-us N each thread sleeps N µs after each search
//             (untimed), as a server's thread sleeps between requests.
//
//   server_bench prep [--data DIR] [--vectors FILE] [--work DIR] [--requests N]
//                     [--seed S] [--threads N] [--k K]
//   server_bench inprocess --db DIR --requests FILE [--connections N]
//                     [--duration S] [--json] [--expect FILE] [--expect-count N]
//                     [--ready FILE] [--pause-us N]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/core.h>
#include <sys/resource.h>

#include "common/cli.h"
#include "common/format.h"
#include "common/must.h"
#include "engine/workload.h"
#include "engram/engine.h"
#include "server/requests.h"

namespace engram::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kCollection = "debian";

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

// ---- prep ----

struct PrepOptions {
  std::string data = ENGRAM_DATA_DIR;
  std::string vectors = std::string(ENGRAM_BENCH_BUILD_DIR) + "/vector-data/fasttext-debian.tsv";
  std::string work = std::string(ENGRAM_BENCH_BUILD_DIR) + "/server-bench";
  std::size_t requests = 2000;
  std::uint64_t seed = 7;
  std::size_t threads = 2;
  std::size_t k = 10;
};

void Prep(const PrepOptions& o) {
  std::cerr << "loading " << o.data << "/debian/packages.jsonl.gz and " << o.vectors << "\n";
  const Workload w = LoadWorkload(o.data + "/debian/packages.jsonl.gz", o.vectors);
  const std::string dir = o.work + "/store";
  fs::create_directories(o.work);
  fs::remove_all(dir);
  Engine::Options eo;
  eo.threads = o.threads;
  const auto t0 = Clock::now();
  {
    std::unique_ptr<Engine> engine = Must(Engine::Open(dir, eo), "open " + dir);
    Checked<SchemaRef> schema = SchemaRef::Parse(kDebianSchema);
    if (!schema.ok()) throw std::runtime_error("schema: " + schema.diagnostic().message);
    CollectionSpec spec{
        kCollection, schema.value(), {{"title", 2.0}, {"text", 1.0}}, w.dim, "cosine", "en", ""};
    Must(engine->CreateCollection(spec), "create collection");
    constexpr std::size_t kBatch = 5000;
    for (std::size_t begin = 0; begin < w.packages.size(); begin += kBatch) {
      const std::size_t end = std::min(w.packages.size(), begin + kBatch);
      std::vector<std::string> records;
      for (std::size_t i = begin; i < end; ++i) records.push_back(RecordJson(w, i, true));
      const std::vector<std::string_view> views(records.begin(), records.end());
      const WriteResult r = Must(engine->Upsert(kCollection, views), "upsert");
      if (r.rejected) throw std::runtime_error("record rejected: " + r.rejected->message);
    }
    Must(engine->Checkpoint(kCollection), "checkpoint");
  }
  const double build_s = Seconds(t0);

  // The filtered cases of bench/engine (not "none"), one after the other.
  std::vector<FilterCase> filters;
  for (FilterCase& f : Filters()) {
    if (!f.filter.empty()) filters.push_back(std::move(f));
  }
  std::vector<std::size_t> allowed(filters.size(), 0);
  for (const Package& p : w.packages) {
    for (std::size_t f = 0; f < filters.size(); ++f) allowed[f] += filters[f].passes(p) ? 1 : 0;
  }
  const std::vector<BenchQuery> queries = MakeQueries(w, o.requests, o.seed);
  const std::string path = o.work + "/requests.jsonl";
  std::ofstream out(path);
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const BenchQuery& q = queries[i];
    const std::string body =
        SearchBody(q.text, w.vector_json[q.package], filters[i % filters.size()].filter, o.k);
    bytes += body.size();
    out << body << "\n";
  }
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path);

  std::cout << fmt::format(
      "store: {} ({} packages, {}-d fastText vectors; built and checkpointed in {:.1f} s)\n"
      "requests: {} ({} bodies, {:.0f} bytes on average; hybrid, k = {}), filters in turn:\n",
      dir, Thousands(static_cast<double>(w.packages.size())), w.dim, build_s, path,
      Thousands(static_cast<double>(queries.size())),
      static_cast<double>(bytes) / static_cast<double>(std::max<std::size_t>(queries.size(), 1)),
      o.k);
  for (std::size_t f = 0; f < filters.size(); ++f) {
    std::cout << fmt::format(
        "  - `{}`: {:.2f} % of the records ({})\n", filters[f].filter,
        100.0 * static_cast<double>(allowed[f]) / static_cast<double>(w.packages.size()),
        Thousands(static_cast<double>(allowed[f])));
  }
}

// ---- inprocess ----

struct LoadOptions {
  std::string db;
  std::string requests;
  std::size_t connections = 16;
  double duration = 10;
  bool json = false;   // parse each body and serialise the hits inside the timing
  std::string expect;  // write the hit ids of the first requests here
  std::size_t expect_count = 20;
  std::string ready;    // created when the timed searches start
  double pause_us = 0;  // sleep between a thread's searches (not timed)
};

std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(std::move(line));
  }
  if (lines.empty()) throw std::runtime_error(path + " holds no requests");
  return lines;
}

void InProcess(const LoadOptions& o) {
  const std::vector<std::string> bodies = ReadLines(o.requests);
  std::vector<SearchRequest> requests;
  requests.reserve(bodies.size());
  for (const std::string& b : bodies) requests.push_back(ParseSearchBody(b));
  std::unique_ptr<Engine> engine = Must(Engine::Open(o.db), "open " + o.db);

  // Warm-up and check: every request once, on one thread; the expected ids
  // of the first ones for run.sh to compare with the server's answers.
  std::size_t short_results = 0;
  std::ofstream expect;
  if (!o.expect.empty()) expect.open(o.expect);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const SearchResponse r = Must(engine->Search(kCollection, requests[i]), "search");
    if (r.rejected) throw std::runtime_error("search rejected: " + r.rejected->message);
    if (r.hits.size() < requests[i].k) ++short_results;
    if (expect.is_open() && i < o.expect_count) {
      for (std::size_t h = 0; h < r.hits.size(); ++h) expect << (h ? " " : "") << r.hits[h].id;
      expect << "\n";
    }
  }
  if (expect.is_open() && !expect.good()) throw std::runtime_error("cannot write " + o.expect);

  if (!o.ready.empty() && !std::ofstream(o.ready))
    throw std::runtime_error("cannot write " + o.ready);
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> errors{0};
  std::atomic<std::size_t> response_bytes{0};
  std::vector<std::vector<double>> per_thread(o.connections);
  const double cpu0 = CpuSeconds();
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(o.duration));
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < o.connections; ++t) {
    threads.emplace_back([&, t] {
      std::vector<double>& us = per_thread[t];
      us.reserve(1 << 16);
      std::size_t bytes = 0;
      while (Clock::now() < deadline) {
        const std::size_t i = next.fetch_add(1, std::memory_order_relaxed) % requests.size();
        const auto t0 = Clock::now();
        bool ok = true;
        if (o.json) {
          try {
            const SearchRequest req = ParseSearchBody(bodies[i]);
            StatusOr<SearchResponse> r = engine->Search(kCollection, req);
            ok = r.ok() && !r.value().rejected;
            if (ok) bytes += HitsJson(r.value()).size();
          } catch (const std::exception&) {
            ok = false;
          }
        } else {
          StatusOr<SearchResponse> r = engine->Search(kCollection, requests[i]);
          ok = r.ok() && !r.value().rejected;
        }
        us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
        if (!ok) errors.fetch_add(1, std::memory_order_relaxed);
        if (o.pause_us > 0) {
          std::this_thread::sleep_for(std::chrono::duration<double, std::micro>(o.pause_us));
        }
      }
      response_bytes.fetch_add(bytes, std::memory_order_relaxed);
    });
  }
  for (std::thread& th : threads) th.join();
  const double seconds = Seconds(start);
  const double cpu = CpuSeconds() - cpu0;
  std::vector<double> all;
  for (const auto& v : per_thread) all.insert(all.end(), v.begin(), v.end());
  // Summarised as wrk summarises its own (WrkCorrected), and raw.
  std::vector<double> corrected = WrkCorrected(all, seconds * 1e6, o.connections);
  const LatencySummary s = Summarise(corrected);
  const LatencySummary raw = Summarise(all);
  std::cout << fmt::format(
      "RESULT side={} connections={} requests={} seconds={:.3f} p50_us={:.1f} p99_us={:.1f} "
      "mean_us={:.1f} max_us={:.1f} raw_p50_us={:.1f} raw_p99_us={:.1f} raw_mean_us={:.1f} "
      "errors={} cpu_s={:.2f} short_results={} response_bytes={}\n",
      o.json ? "inprocess_json" : "inprocess", o.connections, raw.samples, seconds, s.p50, s.p99,
      s.mean, s.max, raw.p50, raw.p99, raw.mean, errors.load(), cpu, short_results,
      response_bytes.load());
}

}  // namespace
}  // namespace engram::bench

int main(int argc, char** argv) {
  using engram::bench::ArgReader;
  return engram::bench::RunGuarded("server_bench", [&] {
    const std::string hint = "see the usage at the top of bench/server/server_bench.cc";
    if (argc < 2) throw std::runtime_error("prep or inprocess? " + hint);
    const std::string command = argv[1];
    if (command == "prep") {
      engram::bench::PrepOptions o;
      for (ArgReader args(argc - 1, argv + 1); args.Next();) {
        if (args.Is("--data"))
          o.data = args.Value();
        else if (args.Is("--vectors"))
          o.vectors = args.Value();
        else if (args.Is("--work"))
          o.work = args.Value();
        else if (args.Is("--requests"))
          o.requests = std::stoul(args.Value());
        else if (args.Is("--seed"))
          o.seed = std::stoull(args.Value());
        else if (args.Is("--threads"))
          o.threads = std::stoul(args.Value());
        else if (args.Is("--k"))
          o.k = std::stoul(args.Value());
        else
          args.Unknown(hint);
      }
      if (o.requests == 0 || o.k == 0) throw std::runtime_error("--requests and --k must be > 0");
      engram::bench::Prep(o);
    } else if (command == "inprocess") {
      engram::bench::LoadOptions o;
      for (ArgReader args(argc - 1, argv + 1); args.Next();) {
        if (args.Is("--db"))
          o.db = args.Value();
        else if (args.Is("--requests"))
          o.requests = args.Value();
        else if (args.Is("--connections"))
          o.connections = std::stoul(args.Value());
        else if (args.Is("--duration"))
          o.duration = std::stod(args.Value());
        else if (args.Is("--json"))
          o.json = true;
        else if (args.Is("--expect"))
          o.expect = args.Value();
        else if (args.Is("--expect-count"))
          o.expect_count = std::stoul(args.Value());
        else if (args.Is("--ready"))
          o.ready = args.Value();
        else if (args.Is("--pause-us"))
          o.pause_us = std::stod(args.Value());
        else
          args.Unknown(hint);
      }
      if (o.db.empty() || o.requests.empty())
        throw std::runtime_error("inprocess needs --db and --requests");
      if (o.connections == 0 || !(o.duration > 0))
        throw std::runtime_error("--connections and --duration must be > 0");
      engram::bench::InProcess(o);
    } else {
      throw std::runtime_error("unknown command '" + command + "'; " + hint);
    }
  });
}
