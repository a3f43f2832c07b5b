// Maintenance: the background work that keeps an open store healthy and
// quick to reopen, on one thread of its own:
// - linking staged vectors into each collection's graph, in chunks under the
//   collection's exclusive lock, after the writes pause (a write is
//   acknowledged once durable and searchable; staged vectors are scanned
//   exactly until linked);
// - checkpoints: a collection's index images are written to the store when
//   enough records changed (checkpoint_records, or a tenth of the collection
//   if more) or enough time passed since the first change after the last
//   checkpoint, also while writes go on: copied under the shared lock
//   (searches go on, a writer waits for the copy: Collection::Capture),
//   serialised from the copy and stored with no collection lock held, so
//   that after a crash recovery replays only what was written since;
// - purging expired records (CollectionSpec::ttl_field): deleted durably, in
//   chunks under the collection's writer, counted per collection. Reads
//   never see them meanwhile (scope.h's VisibleFilter hides them at once);
// - writing the hits searches tallied (hit_tally.h): at most one batch of
//   at most kMaxHitBatch records per collection per hit_flush_interval.
#ifndef ENGRAM_ENGINE_MAINTENANCE_H_
#define ENGRAM_ENGINE_MAINTENANCE_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "base/time.h"
#include "engine/collection.h"
#include "engram/status.h"
#include "storage/store.h"

namespace engram::engine {

struct MaintenanceOptions {
  std::size_t threads = 2;  // vector linking
  // A checkpoint is due once this many records changed, or this long after
  // the first change since the last one (0 disables that trigger).
  std::uint64_t checkpoint_records = 50000;
  std::chrono::milliseconds checkpoint_interval{30000};
  // Now, for expiry.
  std::function<Datetime()> now;
  // Tallied hits are written at most this often per collection (0: never here).
  std::chrono::milliseconds hit_flush_interval{1000};
};

// Writes `c`'s index images to `store` if anything changed since the last
// checkpoint. Durable on return. Checkpoints run one at a time (callers wait).
Status CheckpointCollection(storage::Store& store, Collection& c);

// Links the vectors staged in `c` when called (on `threads` threads, a chunk
// per hold of the exclusive lock, so that searches and writes go on between
// chunks), then CheckpointCollection: the images then hold the whole graph,
// and the background linker leaves nothing for the next checkpoint (or the
// close's) to store again.
Status LinkAndCheckpoint(storage::Store& store, Collection& c, std::size_t threads);

// Deletes the records `docs` from `store`, then from the collection's
// indexes (the caller holds `writer`); returns the batch's sequence (0 for
// no records). Nothing changes when the store fails (or another engine
// wrote to the collection since the writer's view: Aborted).
StatusOr<std::uint64_t> RemoveStored(storage::Store& store, Collection::Writer& writer,
                                     const std::vector<std::uint32_t>& docs);

// Deletes up to `max` records of `c` expired at `now` (none without a TTL
// field), durably; returns how many.
StatusOr<std::size_t> PurgeExpired(storage::Store& store, Collection& c, Datetime now,
                                   std::size_t max);

class Maintenance {
 public:
  using Collections = std::function<std::vector<std::shared_ptr<Collection>>()>;
  // Starts the thread. `store` and what `collections` returns must outlive it.
  Maintenance(storage::Store* store, Collections collections, MaintenanceOptions options);
  ~Maintenance();  // stops the thread (work in progress finishes first)
  Maintenance(const Maintenance&) = delete;
  Maintenance& operator=(const Maintenance&) = delete;

  // Something was written: look again soon.
  void Wake();
  // Checkpoints run and failed since the start (for tests and metrics).
  std::uint64_t checkpoints() const;
  std::uint64_t checkpoint_failures() const;
  std::uint64_t purge_failures() const;
  std::uint64_t hit_failures() const;

 private:
  void Run();
  // One pass over the collections; true when it linked or purged a full
  // chunk (more work may wait).
  bool Pass();
  bool CheckpointDue(const Collection& c, std::chrono::steady_clock::time_point now);

  storage::Store* store_;
  Collections collections_;
  MaintenanceOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::uint64_t checkpoints_ = 0, failures_ = 0, purge_failures_ = 0, hit_failures_ = 0;
  // When each collection (by address) first had unstored changes; the entry
  // goes once a checkpoint stored them (dirty back to 0).
  std::vector<std::pair<const Collection*, std::chrono::steady_clock::time_point>> since_;
  std::chrono::steady_clock::time_point failed_at_{};  // the last failed checkpoint or purge
  std::thread thread_;
};

}  // namespace engram::engine

#endif  // ENGRAM_ENGINE_MAINTENANCE_H_
