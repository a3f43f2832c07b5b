// The store recovery_benchmark measures (store_build.h).
#include "store_build.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <thread>

#include <fmt/core.h>

#include "common/format.h"
#include "common/measure.h"
#include "common/must.h"

namespace engram::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// With vectors: waits until the background has linked the staged vectors
// into the graph, so that the checkpoint stores a graph. Staged vectors are
// scanned exactly beside the graph, so a vector search's distance count
// (explain) falls to a graph walk's once they are linked. Returns seconds.
double WaitForGraph(Engine& e, std::size_t dim) {
  const auto start = Clock::now();
  SearchRequest q;
  q.vector = std::vector<float>(dim, 0.1f);
  q.mode = SearchMode::kVector;
  q.explain = true;
  for (;;) {
    const SearchResponse r = Must(e.Search(kCollection, q), "search");
    const std::size_t at = r.explain.find("\"distances\":");
    const std::uint64_t distances =
        at == std::string::npos ? 0 : std::strtoull(r.explain.c_str() + at + 12, nullptr, 10);
    std::cerr << "linking: a search computes " << distances << " distances\n";
    if (distances < 50000) return SecondsSince(start);
    std::this_thread::sleep_for(std::chrono::seconds(10));
  }
}

}  // namespace

std::unique_ptr<Engine> OpenStore(const std::string& dir, const Options& o, bool background) {
  Engine::Options e;
  e.threads = o.threads;
  e.checkpoint_records = background ? o.checkpoint_records : std::numeric_limits<uint64_t>::max();
  e.checkpoint_interval_ms = background ? o.checkpoint_interval_ms : 0;
  return Must(Engine::Open(dir, e), "open " + dir);
}

Status Upsert(Engine& e, const std::vector<std::string>& records) {
  std::vector<std::string_view> views(records.begin(), records.end());
  StatusOr<WriteResult> r = e.Upsert(kCollection, views);
  if (!r.ok()) return r.status();
  if (r->rejected) return Status::InvalidArgument("rejected: " + r->rejected->message);
  return Status::Ok();
}

void Build(const Options& o, const Memories& m, const std::string& dir) {
  if (fs::exists(dir + "/built")) {
    std::cerr << "reusing the store in " << dir << "\n";
    return;
  }
  fs::remove_all(dir);
  auto e = OpenStore(dir, o, false);
  Checked<SchemaRef> schema = SchemaRef::Parse(kMemorySchema);
  if (!schema.ok()) throw std::runtime_error("schema: " + schema.diagnostic().message);
  CollectionSpec spec{kCollection, schema.value(), {{"text", 1.0}}, o.dim, "cosine", "en", ""};
  Must(e->CreateCollection(spec), "create");
  const auto start = Clock::now();
  const double cpu = CpuSeconds();
  for (std::uint64_t i = 0; i < o.records; i += kIngestBatch) {
    std::vector<std::string> batch;
    for (std::uint64_t j = i; j < std::min(o.records, i + kIngestBatch); ++j) {
      batch.push_back(m.Record(j, 0));
    }
    Must(Upsert(*e, batch), "ingest");
    if ((i / kIngestBatch) % 20 == 0) std::cerr << "ingested " << i << "\n";
  }
  const double ingest = SecondsSince(start);
  const double link = o.dim > 0 ? WaitForGraph(*e, o.dim) : 0;
  const auto checkpoint_start = Clock::now();
  Must(e->Checkpoint(kCollection), "checkpoint");
  const double checkpoint = SecondsSince(checkpoint_start);
  e.reset();
  std::cout << fmt::format(
      "## Build\n\n{} records (dim {}) ingested in {:.1f} s ({} records/s), vectors linked "
      "{:.1f} s later, checkpoint {:.1f} s ({:.1f} CPU s in all); store {:.0f} MiB; load {}\n\n",
      Thousands(static_cast<double>(o.records)), o.dim, ingest,
      Thousands(static_cast<double>(o.records) / ingest), link, checkpoint, CpuSeconds() - cpu,
      static_cast<double>(DirBytes(dir)) / (1 << 20), LoadAvg());
  std::ofstream(dir + "/built") << o.records << "\n";
}

}  // namespace engram::bench
