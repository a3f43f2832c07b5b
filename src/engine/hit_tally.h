// Recall statistics (CollectionSpec::hit_count_field, last_hit_field): the
// bounded in-memory tally of the hits a collection's searches return, per
// record, and the write that applies it as touches (touch.h). A search adds
// to the tally in O(hits) under the tally's own mutex, never the
// collection's lock, and writes nothing; the maintenance (or FlushHits, or
// closing) takes at most kMaxHitBatch records' tallies at a time and writes
// them in one durable batch.
#ifndef ENGRAM_ENGINE_HIT_TALLY_H_
#define ENGRAM_ENGINE_HIT_TALLY_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/time.h"
#include "engram/status.h"

namespace engram::storage {
class Store;
}

namespace engram::engine {

class Collection;

class HitTally {
 public:
  struct Entry {
    std::uint64_t count = 0;  // hits since the last write
    Datetime last;            // the latest of their times
  };
  using Taken = std::vector<std::pair<std::string, Entry>>;

  // Counts one hit at `at` for each record key in `keys`. A key new to the
  // tally while it holds kMaxPendingHitRecords records is dropped (counted).
  // Thread-safe.
  void Add(const std::vector<std::string>& keys, Datetime at);
  // Takes out up to `max` records' tallies.
  Taken Take(std::size_t max);
  // Puts back what Take gave when it could not be written (merged with what
  // came meanwhile, within the bound; the rest is dropped).
  void Restore(Taken taken);
  // Whether a write is due: `interval` passed since the last one that found
  // something to write. Marks the time when it says yes.
  bool Due(std::chrono::steady_clock::time_point now, std::chrono::milliseconds interval);

  std::size_t pending() const;
  std::uint64_t tallied() const { return tallied_.load(); }
  std::uint64_t dropped() const { return dropped_.load(); }

 private:
  // Adds `entry` to `key`'s tally (mutex_ held); false when it was dropped.
  bool Merge(std::string key, const Entry& entry);

  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
  std::chrono::steady_clock::time_point written_at_{};
  std::atomic<std::uint64_t> tallied_{0};
  std::atomic<std::uint64_t> dropped_{0};
};

// Writes up to `max` records' tallied hits of `c` (a collection with hit
// fields) in one durable batch as touches: each record's hit count grows by
// its tally, its last hit becomes the later of its value and the tally's.
// Records gone meanwhile are skipped. Returns how many records were taken
// from the tally; on a store failure they go back to it. NotFound when the
// collection was dropped (its tally is discarded).
StatusOr<std::size_t> WriteHits(storage::Store& store, Collection& c, std::size_t max);

}  // namespace engram::engine

#endif  // ENGRAM_ENGINE_HIT_TALLY_H_
