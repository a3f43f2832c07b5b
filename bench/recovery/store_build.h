// The store recovery_benchmark measures (recovery_benchmark.cc): its
// options, the store of --records synthetic memories it builds once and
// reuses, an engine opened on it, and the write load its phases run.
#ifndef ENGRAM_BENCH_RECOVERY_STORE_BUILD_H_
#define ENGRAM_BENCH_RECOVERY_STORE_BUILD_H_

#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/memories.h"
#include "engram/engine.h"

#ifndef ENGRAM_BENCH_BUILD_DIR
#define ENGRAM_BENCH_BUILD_DIR "build"
#endif

namespace engram::bench {

constexpr const char* kCollection = "memories";
constexpr std::size_t kIngestBatch = 5000;

struct Options {
  std::string work = std::string(ENGRAM_BENCH_BUILD_DIR) + "/recovery-bench";
  std::uint64_t records = 1000000;
  std::size_t dim = 0;
  std::uint64_t seed = 42;
  std::size_t batch = 1000;
  double new_share = 1.0;
  int checkpoints = 5;
  int kills = 10;
  double kill_min = 5, kill_max = 60;
  std::uint64_t checkpoint_records = Engine::Options{}.checkpoint_records;
  std::uint64_t checkpoint_interval_ms = Engine::Options{}.checkpoint_interval_ms;
  std::size_t threads = 2;
  bool keep_killed = false;  // copy each killed store to WORK/killed-K (for profiling)
  std::string reopen;        // non-empty: only time Engine::Open of this store
};

// An engine on the store; background checkpoints only when `background`.
std::unique_ptr<Engine> OpenStore(const std::string& dir, const Options& o, bool background);

// Upserts `records` into the collection; a rejected record is an error.
Status Upsert(Engine& e, const std::vector<std::string>& records);

// Builds the store of `o.records` memories in `dir` (ingested in batches,
// vectors linked, checkpointed and closed) unless a finished one is there
// (the file `built`); prints its table.
void Build(const Options& o, const Memories& m, const std::string& dir);

// The write load: batches of `o.batch` records, a share new (ids from
// `next_new` up), the rest replacing random existing ones. The next batch is
// made on another thread while the caller writes this one, so a writer
// taking batches back to back never pauses (the worst case for checkpoints,
// which wait for a pause until they are overdue).
class Load {
 public:
  Load(const Options& o, const Memories& m, std::uint64_t next_new, std::uint64_t seed)
      : o_(o), m_(m), next_new_(next_new), rng_(seed), version_(seed % 1000000 + 1) {}
  ~Load() {
    if (next_.valid()) next_.wait();
  }
  std::vector<std::string> Next() {
    if (!next_.valid()) next_ = std::async(std::launch::async, [this] { return Make(); });
    std::vector<std::string> batch = next_.get();
    next_ = std::async(std::launch::async, [this] { return Make(); });
    return batch;
  }

 private:
  std::vector<std::string> Make() {
    std::vector<std::string> batch;
    std::bernoulli_distribution fresh(o_.new_share);
    for (std::size_t k = 0; k < o_.batch; ++k) {
      const std::uint64_t i = fresh(rng_) ? next_new_++ : rng_() % next_new_;
      batch.push_back(m_.Record(i, version_));
    }
    ++version_;
    return batch;
  }

  const Options& o_;
  const Memories& m_;
  std::uint64_t next_new_;
  std::mt19937_64 rng_;
  std::uint64_t version_;
  std::future<std::vector<std::string>> next_;
};

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_RECOVERY_STORE_BUILD_H_
