// Ingest into the PostgreSQL store against the SQLite store (issue 22):
// synthetic agent memories (common/memories.h, text and metadata, no
// vectors) written in durable batches of --batches sizes, each
// configuration into a fresh store for --seconds or --max-records, whichever
// comes first. Two levels:
//   store:  Store::Apply of one WriteBatch per batch (the record's JSON text
//           as the body), what the storage layer costs alone;
//   engine: Engine::Open(dir or postgresql:// URL) and Engine::Upsert of one
//           batch, what a user sees (validation, indexing, the store write;
//           the engine's default background checkpoints).
// SQLite runs as the store opens it (WAL, synchronous=FULL); PostgreSQL is
// a private server (tests/support/postgres_server.h) started durable
// (fsync=on, full_page_writes=on, synchronous_commit=on), whose settings
// are read back and printed.
//
// Markdown table on stdout, progress on stderr.
//   ingest_benchmark [--work DIR] [--seconds S] [--max-records N]
//       [--batches 1,100,1000] [--stores sqlite,postgres]
//       [--levels store,engine] [--seed S]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "common/cli.h"
#include "common/format.h"
#include "common/measure.h"
#include "common/memories.h"
#include "engram/engine.h"
#include "storage/store.h"
#include "tests/support/postgres_server.h"

namespace engram::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kCollection = "memories";

struct Options {
  std::string work = std::string(ENGRAM_BENCH_BUILD_DIR) + "/ingest-bench";
  double seconds = 10;
  std::uint64_t max_records = 200000;
  std::vector<std::size_t> batches = {1, 100, 1000};
  std::vector<std::string> stores = {"sqlite", "postgres"};
  std::vector<std::string> levels = {"store", "engine"};
  std::uint64_t seed = 42;
};

Options Parse(int argc, char** argv) {
  Options o;
  for (ArgReader args(argc, argv); args.Next();) {
    if (args.Is("--work"))
      o.work = args.Value();
    else if (args.Is("--seconds"))
      o.seconds = std::stod(args.Value());
    else if (args.Is("--max-records"))
      o.max_records = std::stoull(args.Value());
    else if (args.Is("--batches")) {
      o.batches.clear();
      for (const std::string& b : args.List()) o.batches.push_back(std::stoul(b));
    } else if (args.Is("--stores"))
      o.stores = args.List();
    else if (args.Is("--levels"))
      o.levels = args.List();
    else if (args.Is("--seed"))
      o.seed = std::stoull(args.Value());
    else
      args.Unknown("see the usage in bench/storage/ingest_benchmark.cc");
  }
  for (std::size_t b : o.batches) {
    if (b == 0) throw std::runtime_error("--batches: a batch holds at least one record");
  }
  for (const std::string& s : o.stores) {
    if (s != "sqlite" && s != "postgres") throw std::runtime_error("--stores: sqlite|postgres");
  }
  for (const std::string& l : o.levels) {
    if (l != "store" && l != "engine") throw std::runtime_error("--levels: store|engine");
  }
  return o;
}

void Check(const Status& s, const std::string& what) {
  if (!s.ok()) throw std::runtime_error(what + ": " + s.ToString());
}

template <typename T>
T Check(StatusOr<T> s, const std::string& what) {
  Check(s.status(), what);
  return std::move(s).value();
}

// A fresh, empty store: a directory under --work, or a database on the
// durable server. Removed when it goes.
class Place {
 public:
  Place(const Options& o, const std::string& store, const testing::PostgresServer* server,
        int number)
      : server_(server) {
    if (store == "sqlite") {
      location_ = fmt::format("{}/sqlite-{}", o.work, number);
      fs::remove_all(location_);
      return;
    }
    database_ = fmt::format("ingest_{}", number);
    // One statement a call: neither runs inside the implicit transaction
    // of a multi-statement string.
    testing::ExecuteSql(server_->conninfo(), "DROP DATABASE IF EXISTS " + database_);
    const std::string error =
        testing::ExecuteSql(server_->conninfo(), "CREATE DATABASE " + database_);
    if (!error.empty()) throw std::runtime_error("CREATE DATABASE: " + error);
    location_ = server_->Url(database_);
  }
  ~Place() {
    if (database_.empty()) {
      std::error_code ignored;
      fs::remove_all(location_, ignored);
    } else {
      testing::ExecuteSql(server_->conninfo(),
                          "DROP DATABASE IF EXISTS " + database_ + " WITH (FORCE)");
    }
  }
  Place(const Place&) = delete;
  Place& operator=(const Place&) = delete;

  // A directory or a postgresql:// URL (Engine::Open's `dir`).
  const std::string& location() const { return location_; }
  StatusOr<std::unique_ptr<storage::Store>> OpenStore() const {
    return database_.empty() ? storage::OpenSqliteStore(location_)
                             : storage::OpenPostgresStore(server_->Conninfo(database_));
  }

 private:
  const testing::PostgresServer* server_;
  std::string location_, database_;
};

// One configuration's outcome.
struct Run {
  std::uint64_t records = 0;
  std::vector<double> latencies;  // seconds per batch
  double seconds = 0;             // the sum of the latencies
  double cpu = 0;                 // this process's CPU seconds over the batches
};

// Writes batches of `batch` records with `write` (records i..i+n-1) until
// the time or record budget is spent; times each write alone (the records
// are made before the clock starts).
template <typename Write>
Run Drive(const Options& o, const Memories& m, std::size_t batch, Write write) {
  Run run;
  while (run.seconds < o.seconds && run.records < o.max_records) {
    std::vector<std::string> records;
    for (std::size_t j = 0; j < batch; ++j) records.push_back(m.Record(run.records + j, 0));
    const double cpu = CpuSeconds();
    const auto start = Clock::now();
    write(run.records, records);
    const double took = std::chrono::duration<double>(Clock::now() - start).count();
    run.cpu += CpuSeconds() - cpu;
    run.latencies.push_back(took);
    run.seconds += took;
    run.records += batch;
  }
  return run;
}

Run StoreLevel(const Options& o, const Memories& m, const Place& place, std::size_t batch) {
  std::unique_ptr<storage::Store> store = Check(place.OpenStore(), "open " + place.location());
  Check(store->CreateCollection({kCollection, "{}"}), "create");
  return Drive(o, m, batch, [&](std::uint64_t first, const std::vector<std::string>& records) {
    storage::WriteBatch b;
    for (std::size_t j = 0; j < records.size(); ++j) {
      b.puts.push_back(
          {Memories::Id(first + j), static_cast<std::uint32_t>(first + j), records[j], ""});
    }
    Check(store->Apply(kCollection, b), "apply");
  });
}

Run EngineLevel(const Options& o, const Memories& m, const Place& place, std::size_t batch) {
  std::unique_ptr<Engine> engine = Check(Engine::Open(place.location()), "open");
  Checked<SchemaRef> schema = SchemaRef::Parse(kMemorySchema);
  if (!schema.ok()) throw std::runtime_error("schema: " + schema.diagnostic().message);
  CollectionSpec spec{kCollection, schema.value(), {{"text", 1.0}}, 0, "cosine", "en", ""};
  Check(engine->CreateCollection(spec), "create");
  return Drive(o, m, batch, [&](std::uint64_t, const std::vector<std::string>& records) {
    std::vector<std::string_view> views(records.begin(), records.end());
    WriteResult r = Check(engine->Upsert(kCollection, views), "upsert");
    if (r.rejected) throw std::runtime_error("rejected: " + r.rejected->message);
  });
}

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const std::size_t i = std::min(v.size() - 1, static_cast<std::size_t>(p * v.size()));
  return v[i];
}

// The server's settings that decide durability, as it reports them.
std::string ServerSettings(const testing::PostgresServer& server) {
  std::string out, version;
  testing::ExecuteSql(server.conninfo(), "SHOW server_version", &version);
  out = "PostgreSQL " + version;
  for (const char* name : {"fsync", "synchronous_commit", "full_page_writes", "wal_sync_method",
                           "shared_buffers", "wal_level"}) {
    std::string value;
    const std::string error =
        testing::ExecuteSql(server.conninfo(), fmt::format("SHOW {}", name), &value);
    if (!error.empty()) throw std::runtime_error(fmt::format("SHOW {}: {}", name, error));
    out += fmt::format(", {}={}", name, value);
  }
  return out;
}

void Main(const Options& o) {
  fs::create_directories(o.work);
  const Memories memories(o.seed, 0);
  std::unique_ptr<testing::PostgresServer> server;
  if (std::find(o.stores.begin(), o.stores.end(), "postgres") != o.stores.end()) {
    std::string error;
    server = testing::PostgresServer::Start(&error, /*durable=*/true);
    if (!server) throw std::runtime_error("PostgreSQL: " + error);
    std::cout << "server: " << ServerSettings(*server) << " (a private server on a Unix socket)\n";
  }
  std::cout << "sqlite: the store's own settings: journal_mode=WAL, synchronous=FULL\n";
  std::cout << fmt::format("load before: {}\n\n", LoadAvg());
  std::cout << "| level | store | batch | batches | records | records/s | batch p50 ms "
               "| batch p99 ms | client CPU µs/record |\n"
               "|---|---|---:|---:|---:|---:|---:|---:|---:|\n";
  int number = 0;
  for (const std::string& level : o.levels) {
    for (const std::string& store : o.stores) {
      for (std::size_t batch : o.batches) {
        std::cerr << level << " " << store << " batch " << batch << "\n";
        const Place place(o, store, server.get(), number++);
        const Run run = level == "store" ? StoreLevel(o, memories, place, batch)
                                         : EngineLevel(o, memories, place, batch);
        std::cout << fmt::format(
            "| {} | {} | {} | {} | {} | {} | {:.2f} | {:.2f} | {:.1f} |\n", level, store, batch,
            Thousands(static_cast<double>(run.latencies.size())),
            Thousands(static_cast<double>(run.records)),
            Thousands(static_cast<double>(run.records) / run.seconds),
            1e3 * Percentile(run.latencies, 0.50), 1e3 * Percentile(run.latencies, 0.99),
            1e6 * run.cpu / static_cast<double>(run.records));
        std::cout.flush();
      }
    }
  }
  std::cout << fmt::format("\nload after: {}\n", LoadAvg());
}

}  // namespace
}  // namespace engram::bench

int main(int argc, char** argv) {
  return engram::bench::RunGuarded("ingest_benchmark",
                                   [&] { engram::bench::Main(engram::bench::Parse(argc, argv)); });
}
