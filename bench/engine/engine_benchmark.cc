// End-to-end benchmark of engram's engine (issue 6) on the Debian packages
// with fastText document vectors, through the public API only (plus the
// store interface for the store-only baseline and to spoil snapshots):
//
//  1. durable ingest through Engine::Upsert in batches (default 5,000), into
//     a fresh store on disk, of the full collection (text title^2 + text,
//     100-d cosine vectors, metadata section / tags / installed_size_kib);
//     for the split, the same records into a text-only and a vector-only
//     collection, and their bodies and vectors straight into the SQLite
//     store (what durability alone costs);
//  2. Checkpoint (timed), closing the engine, Engine::Open again (timed; the
//     snapshots are loaded);
//  3. hybrid search, k = 10, of seeded queries (workload.h) unfiltered and
//     with filters at ~50 %, ~5 %, ~0.5 %: a warm-up pass that also checks
//     every hit against the filter on our side, then timed passes; explain
//     on a sample for the plan and the per-stage timings;
//  4. Engine::Open with both snapshots spoilt: the rebuild from the records.
//
// Prints Markdown tables on stdout, progress on stderr.
//
//   engine_benchmark [--data DIR] [--vectors FILE] [--work DIR] [--batch N]
//                    [--queries N] [--passes N] [--explain N] [--seed S]
//                    [--threads N] [--limit N] [--no-split] [--no-rebuild]
//                    [--settle SECONDS]
//   --settle: wait this long after the reopen before searching, so that
//   work an engine does in the background after opening (a build whose
//   Checkpoint left vectors staged links them then) is not measured as
//   search latency; 0 (the default) searches at once.
//   engine_benchmark --reopen STORE_DIR   (times Engine::Open alone, for profiling)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/core.h>

#include "common/cli.h"
#include "common/format.h"
#include "common/measure.h"
#include "common/must.h"
#include "engram/engine.h"
#include "searches.h"
#include "storage/store.h"
#include "workload.h"

namespace engram::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string data = ENGRAM_DATA_DIR;
  std::string vectors = std::string(ENGRAM_BENCH_BUILD_DIR) + "/vector-data/fasttext-debian.tsv";
  std::string work = std::string(ENGRAM_BENCH_BUILD_DIR) + "/engine-bench";
  std::size_t batch = 5000;
  std::size_t queries = 300;
  std::size_t passes = 3;
  std::size_t explain = 30;
  std::uint64_t seed = 42;
  std::size_t threads = 2;
  bool split = true;
  bool rebuild = true;
  double settle = 0;      // seconds between the reopen and the searches
  std::size_t limit = 0;  // 0: every package; else the first `limit` (smoke runs)
  std::string reopen;     // non-empty: only time Engine::Open of this store (profiling)
};

struct IngestRun {
  std::string name, indexes;
  std::size_t records = 0;
  double seconds = 0;  // the Upsert (or Apply) calls only
  double cpu = 0;      // CPU seconds over the same calls
  double first_batch_rps = 0, last_batch_rps = 0;
  std::uint64_t bytes = 0;  // the store directory after the ingest
  std::string load;
};

CollectionSpec Spec(bool text, bool vectors, std::size_t dim) {
  Checked<SchemaRef> schema = SchemaRef::Parse(kDebianSchema);
  if (!schema.ok()) throw std::runtime_error("schema: " + schema.diagnostic().message);
  CollectionSpec spec{kDebianCollection, schema.value(), {}, 0, "cosine", "en", ""};
  if (text) spec.text = {{"title", 2.0}, {"text", 1.0}};
  spec.vector_dim = vectors ? dim : 0;
  return spec;
}

// Ingests `records` into a fresh store in `dir`; leaves the engine in `*out`.
IngestRun IngestEngine(const Options& o, const std::string& name, const std::string& dir,
                       const CollectionSpec& spec, const std::vector<std::string>& records,
                       std::unique_ptr<Engine>* out) {
  fs::remove_all(dir);
  Engine::Options eo;
  eo.threads = o.threads;
  std::unique_ptr<Engine> engine = Must(Engine::Open(dir, eo), "open " + dir);
  Must(engine->CreateCollection(spec), "create collection");
  IngestRun run;
  run.name = name;
  run.indexes = fmt::format("metadata{}{}", spec.text.empty() ? "" : " + text",
                            spec.vector_dim ? " + vectors" : "");
  for (std::size_t begin = 0; begin < records.size(); begin += o.batch) {
    const std::size_t end = std::min(records.size(), begin + o.batch);
    std::vector<std::string_view> views(records.begin() + static_cast<std::ptrdiff_t>(begin),
                                        records.begin() + static_cast<std::ptrdiff_t>(end));
    const auto t0 = Clock::now();
    const double c0 = CpuSeconds();
    WriteResult r = Must(engine->Upsert(kDebianCollection, views), "upsert");
    const double s = SecondsSince(t0);
    run.cpu += CpuSeconds() - c0;
    if (r.rejected) {
      throw std::runtime_error(
          fmt::format("record {} rejected: {}", begin + r.rejected_index, r.rejected->message));
    }
    run.seconds += s;
    run.records += r.written;
    const double rps = static_cast<double>(views.size()) / s;
    if (begin == 0) run.first_batch_rps = rps;
    run.last_batch_rps = rps;
    std::cerr << fmt::format("  {}: {} records, batch {:.2f} s\n", name, end, s);
  }
  run.bytes = DirBytes(dir);
  run.load = LoadAvg();
  if (out) *out = std::move(engine);
  return run;
}

// The same bodies and vectors straight into the SQLite store: durability alone.
IngestRun IngestStore(const Options& o, const std::string& dir, const Workload& w) {
  fs::remove_all(dir);
  std::unique_ptr<storage::Store> store = Must(storage::OpenSqliteStore(dir), "open store");
  Must(store->CreateCollection({kDebianCollection, "{}"}), "create");
  IngestRun run;
  run.name = "store only";
  run.indexes = "none (SQLite WAL, synchronous=FULL)";
  for (std::size_t begin = 0; begin < w.packages.size(); begin += o.batch) {
    const std::size_t end = std::min(w.packages.size(), begin + o.batch);
    storage::WriteBatch batch;  // built untimed: this row is the store alone
    for (std::size_t i = begin; i < end; ++i) {
      std::string vec(w.dim * sizeof(float), '\0');
      std::memcpy(vec.data(), w.vectors[i].data(), vec.size());
      batch.puts.push_back({w.packages[i].id, static_cast<std::uint32_t>(i),
                            RecordJson(w, i, false), std::move(vec)});
    }
    const auto t0 = Clock::now();
    const double c0 = CpuSeconds();
    Must(store->Apply(kDebianCollection, batch), "apply");
    const double s = SecondsSince(t0);
    run.cpu += CpuSeconds() - c0;
    run.seconds += s;
    run.records += end - begin;
    const double rps = static_cast<double>(end - begin) / s;
    if (begin == 0) run.first_batch_rps = rps;
    run.last_batch_rps = rps;
  }
  store.reset();
  run.bytes = DirBytes(dir);
  run.load = LoadAvg();
  return run;
}

void PrintIngest(const std::vector<IngestRun>& runs) {
  std::cout << "\n## Durable ingest (Upsert batches, fsync per batch)\n\n"
            << "| run | indexes | records | seconds | records/s | CPU s | records per CPU s | "
               "first batch rec/s | last batch rec/s | store MiB | load avg after |\n"
            << "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const IngestRun& r : runs) {
    std::cout << fmt::format(
        "| {} | {} | {} | {:.2f} | {} | {:.2f} | {} | {} | {} | {:.0f} | {} |\n", r.name, r.indexes,
        Thousands(static_cast<double>(r.records)), r.seconds,
        Thousands(static_cast<double>(r.records) / r.seconds), r.cpu,
        Thousands(static_cast<double>(r.records) / r.cpu), Thousands(r.first_batch_rps),
        Thousands(r.last_batch_rps), static_cast<double>(r.bytes) / (1 << 20), r.load);
  }
}

void Reopen(const Options& o) {
  Engine::Options eo;
  eo.threads = o.threads;
  const auto t0 = Clock::now();
  const double c0 = CpuSeconds();
  std::unique_ptr<Engine> engine = Must(Engine::Open(o.reopen, eo), "open " + o.reopen);
  std::cout << fmt::format("Engine::Open {}: {:.2f} s, {:.2f} CPU s\n", o.reopen, SecondsSince(t0),
                           CpuSeconds() - c0);
}

void Run(const Options& o) {
  if (!o.reopen.empty()) return Reopen(o);
  std::cout << "# engram engine benchmark\n\nload average at start: " << LoadAvg() << "\n";
  std::cerr << "loading " << o.data << "/debian/packages.jsonl.gz and " << o.vectors << "\n";
  Workload w = LoadWorkload(o.data + "/debian/packages.jsonl.gz", o.vectors);
  if (o.limit > 0 && o.limit < w.packages.size()) {
    w.packages.resize(o.limit);
    w.vectors.resize(o.limit);
    w.vector_json.resize(o.limit);
  }
  std::cout << fmt::format(
      "\ndata: {} packages, {}-d fastText vectors ({} zero or non-finite, given the mean); "
      "batch {} records; {} index threads\n",
      Thousands(static_cast<double>(w.packages.size())), w.dim, w.replaced_vectors, o.batch,
      o.threads);
  std::vector<std::string> full, no_vec;
  full.reserve(w.packages.size());
  for (std::size_t i = 0; i < w.packages.size(); ++i) full.push_back(RecordJson(w, i, true));
  std::size_t bytes = 0;
  for (const std::string& s : full) bytes += s.size();
  std::cout << fmt::format("record JSON: {:.1f} MiB in all, {:.0f} bytes on average\n",
                           static_cast<double>(bytes) / (1 << 20),
                           static_cast<double>(bytes) / static_cast<double>(full.size()));

  fs::create_directories(o.work);
  std::vector<IngestRun> runs;
  if (o.split) {
    runs.push_back(IngestStore(o, o.work + "/store-only", w));
    for (std::size_t i = 0; i < w.packages.size(); ++i) no_vec.push_back(RecordJson(w, i, false));
    runs.push_back(IngestEngine(o, "text only", o.work + "/text-only", Spec(true, false, w.dim),
                                no_vec, nullptr));
    no_vec.clear();
    no_vec.shrink_to_fit();
    runs.push_back(IngestEngine(o, "vectors only", o.work + "/vectors-only",
                                Spec(false, true, w.dim), full, nullptr));
  }
  const std::string dir = o.work + "/full";
  std::unique_ptr<Engine> engine;
  runs.push_back(IngestEngine(o, "full", dir, Spec(true, true, w.dim), full, &engine));
  PrintIngest(runs);

  auto t0 = Clock::now();
  double c0 = CpuSeconds();
  Must(engine->Checkpoint(kDebianCollection), "checkpoint");
  const double checkpoint_s = SecondsSince(t0), checkpoint_cpu = CpuSeconds() - c0;
  t0 = Clock::now();
  c0 = CpuSeconds();
  engine.reset();
  const double close_s = SecondsSince(t0), close_cpu = CpuSeconds() - c0;
  Engine::Options eo;
  eo.threads = o.threads;
  t0 = Clock::now();
  c0 = CpuSeconds();
  engine = Must(Engine::Open(dir, eo), "reopen");
  const double reopen_s = SecondsSince(t0), reopen_cpu = CpuSeconds() - c0;
  const CollectionInfo info = Must(engine->DescribeCollection(kDebianCollection), "describe");
  std::cout
      << "\n## Checkpoint and reopen\n\n| step | seconds | CPU s | note |\n"
      << "|---|---:|---:|---|\n"
      << fmt::format("| Checkpoint | {:.2f} | {:.2f} | text + vector snapshots into the store |\n",
                     checkpoint_s, checkpoint_cpu)
      << fmt::format("| close (~Engine) | {:.2f} | {:.2f} | nothing dirty |\n", close_s, close_cpu)
      << fmt::format(
             "| Engine::Open (snapshots) | {:.2f} | {:.2f} | {} records; store {:.0f} MiB |\n",
             reopen_s, reopen_cpu, Thousands(static_cast<double>(info.records)),
             static_cast<double>(DirBytes(dir)) / (1 << 20));
  if (info.records != w.packages.size()) throw std::runtime_error("records lost on reopen");

  if (o.settle > 0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(o.settle));
    std::cout << fmt::format("\nwaited {:.1f} s after the reopen before searching\n", o.settle);
  }
  const std::vector<BenchQuery> queries = MakeQueries(w, o.queries, o.seed);
  std::cout << fmt::format("\nqueries: {}, e.g. \"{}\", \"{}\"; load average before search: {}\n",
                           queries.size(), queries[0].text, queries[1].text, LoadAvg());
  std::vector<SearchRow> rows;
  for (const FilterCase& f : Filters()) {
    std::cerr << "  searching, filter " << f.name << "\n";
    rows.push_back(RunSearches(*engine, w, queries, f, o.passes, o.explain));
  }
  PrintSearch(rows, queries.size());
  std::cout << "\nload average after search: " << LoadAvg() << "\n";

  if (o.rebuild) {
    engine.reset();
    {
      std::unique_ptr<storage::Store> store = Must(storage::OpenSqliteStore(dir), "open store");
      const std::uint64_t seq = Must(store->LastSequence(), "sequence");
      Must(store->PutSnapshot(kDebianCollection, "text", {seq, "spoilt"}), "spoil");
      Must(store->PutSnapshot(kDebianCollection, "vector", {seq, "spoilt"}), "spoil");
    }
    t0 = Clock::now();
    c0 = CpuSeconds();
    engine = Must(Engine::Open(dir, eo), "reopen (rebuild)");
    const double rebuild_s = SecondsSince(t0), rebuild_cpu = CpuSeconds() - c0;
    std::cout << fmt::format(
        "\nEngine::Open with both snapshots spoilt (rebuild from the records): {:.2f} s "
        "({:.2f} CPU s); load average {}\n\n",
        rebuild_s, rebuild_cpu, LoadAvg());
  }
  engine.reset();
}

}  // namespace
}  // namespace engram::bench

int main(int argc, char** argv) {
  using engram::bench::ArgReader;
  return engram::bench::RunGuarded("engine_benchmark", [&] {
    engram::bench::Options o;
    for (ArgReader args(argc, argv); args.Next();) {
      if (args.Is("--data"))
        o.data = args.Value();
      else if (args.Is("--vectors"))
        o.vectors = args.Value();
      else if (args.Is("--work"))
        o.work = args.Value();
      else if (args.Is("--batch"))
        o.batch = std::stoul(args.Value());
      else if (args.Is("--queries"))
        o.queries = std::stoul(args.Value());
      else if (args.Is("--passes"))
        o.passes = std::stoul(args.Value());
      else if (args.Is("--explain"))
        o.explain = std::stoul(args.Value());
      else if (args.Is("--seed"))
        o.seed = std::stoull(args.Value());
      else if (args.Is("--threads"))
        o.threads = std::stoul(args.Value());
      else if (args.Is("--limit"))
        o.limit = std::stoul(args.Value());
      else if (args.Is("--reopen"))
        o.reopen = args.Value();
      else if (args.Is("--no-split"))
        o.split = false;
      else if (args.Is("--no-rebuild"))
        o.rebuild = false;
      else if (args.Is("--settle"))
        o.settle = std::stod(args.Value());
      else
        args.Unknown("see the usage at the top of bench/engine/engine_benchmark.cc");
    }
    if (o.batch == 0 || o.queries == 0)
      throw std::runtime_error("--batch and --queries must be > 0");
    engram::bench::Run(o);
  });
}
