#include "engine/maintenance.h"

#include <algorithm>
#include <mutex>
#include <utility>

#include "base/status.h"
#include "engine/hit_tally.h"
#include "engine/scope.h"

namespace engram::engine {
namespace {

constexpr std::size_t kLinkChunk = 256;             // records linked per hold of the exclusive lock
constexpr std::size_t kBacklog = 20000;             // staged records linked even while writes go on
constexpr std::int64_t kWritePauseNs = 50'000'000;  // 50 ms without a write: link
constexpr std::chrono::seconds kRetryAfterFailure{5};
constexpr std::size_t kPurgeChunk = 1000;  // expired records deleted per hold of the writer

std::int64_t NowNs() {
  return std::chrono::steady_clock::now().time_since_epoch().count();
}

}  // namespace

Status CheckpointCollection(storage::Store& store, Collection& c) {
  // One checkpoint at a time (the API's, the background's, the close's):
  // two captures stored out of order would put an older image over a newer
  // one, and both would be subtracted from the changes since the first.
  static std::mutex one_at_a_time;
  std::lock_guard<std::mutex> lock(one_at_a_time);
  // A retired incarnation's images are older than its successor's.
  if (c.retired()) return Status::Ok();
  std::optional<Capture> capture = c.Capture();
  if (!capture) return Status::Ok();
  const std::string& name = c.spec().name;
  if (capture->text) {
    RETURN_IF_ERROR(store.PutSnapshot(name, "text", {capture->seq, std::move(*capture->text)}));
  }
  if (capture->vectors) {
    RETURN_IF_ERROR(
        store.PutSnapshot(name, "vector", {capture->seq, std::move(*capture->vectors)}));
  }
  RETURN_IF_ERROR(store.PutSnapshot(name, "records", {capture->seq, std::move(capture->records)}));
  c.MarkStored(*capture);
  return Status::Ok();
}

Status LinkAndCheckpoint(storage::Store& store, Collection& c, std::size_t threads) {
  // What is staged now: vectors staged meanwhile by writers wait for the
  // background linker, as they would without this call.
  for (std::size_t left = c.pending(); left > 0;) {
    const std::size_t linked = c.LinkPending(std::min(left, kLinkChunk), threads);
    if (linked == 0) break;
    left -= std::min(left, linked);
  }
  return CheckpointCollection(store, c);
}

StatusOr<std::uint64_t> RemoveStored(storage::Store& store, Collection::Writer& writer,
                                     const std::vector<std::uint32_t>& docs) {
  if (docs.empty()) return std::uint64_t{0};
  storage::WriteBatch batch;
  for (const std::uint32_t doc : docs) batch.removes.push_back(writer.key_of(doc));
  batch.after = writer.applied_seq();
  ASSIGN_OR_RETURN(const std::uint64_t seq, store.Apply(writer.collection().spec().name, batch));
  writer.Remove(seq, docs);
  return seq;
}

StatusOr<std::size_t> PurgeExpired(storage::Store& store, Collection& c, Datetime now,
                                   std::size_t max) {
  const std::optional<filter::Node> expired = ExpiredNode(c, now);
  if (!expired) return std::size_t{0};
  // A look under the shared lock first: most passes find nothing and leave
  // the writer alone.
  if (c.Read().metadata().Evaluate(*expired).isEmpty()) return std::size_t{0};
  ASSIGN_OR_RETURN(Collection::Writer writer, c.Write());
  const roaring::Roaring docs = writer.metadata().Evaluate(*expired);
  std::vector<std::uint32_t> chunk;
  for (auto it = docs.begin(); it != docs.end() && chunk.size() < max; ++it) chunk.push_back(*it);
  RETURN_IF_ERROR(RemoveStored(store, writer, chunk).status());
  c.CountPurged(chunk.size());
  return chunk.size();
}

Maintenance::Maintenance(storage::Store* store, Collections collections, MaintenanceOptions options)
    : store_(store), collections_(std::move(collections)), options_(options) {
  if (options_.threads == 0) options_.threads = 1;
  thread_ = std::thread([this] { Run(); });
}

Maintenance::~Maintenance() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Maintenance::Wake() {
  wake_.notify_one();
}

std::uint64_t Maintenance::checkpoints() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return checkpoints_;
}

std::uint64_t Maintenance::checkpoint_failures() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failures_;
}

std::uint64_t Maintenance::purge_failures() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return purge_failures_;
}

std::uint64_t Maintenance::hit_failures() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return hit_failures_;
}

// A checkpoint is due by records changed (at least a tenth of the
// collection, so that a bulk load does not serialise the whole index every
// few seconds) or by time since the first change after the last one. It is
// due even while writes go on: else a steady write load would leave
// recovery unbounded.
bool Maintenance::CheckpointDue(const Collection& c, std::chrono::steady_clock::time_point now) {
  auto since = std::find_if(since_.begin(), since_.end(),
                            [&](const auto& entry) { return entry.first == &c; });
  const std::uint64_t dirty = c.dirty();
  if (dirty == 0) {
    if (since != since_.end()) since_.erase(since);
    return false;
  }
  if (since == since_.end()) since = since_.insert(since_.end(), {&c, now});
  const std::uint64_t threshold =
      std::max<std::uint64_t>(options_.checkpoint_records, c.size() / 10);
  if (dirty >= threshold) return true;
  return options_.checkpoint_interval.count() > 0 &&
         now - since->second >= options_.checkpoint_interval;
}

bool Maintenance::Pass() {
  bool linked = false;
  const auto now = std::chrono::steady_clock::now();
  const std::vector<std::shared_ptr<Collection>> all = collections_();
  // Forget collections that are gone (dropped): their addresses may come back.
  std::erase_if(since_, [&](const auto& entry) {
    return std::none_of(all.begin(), all.end(),
                        [&](const auto& c) { return c.get() == entry.first; });
  });
  for (const std::shared_ptr<Collection>& c : all) {
    if (c->ttl_slot() && options_.now && now - failed_at_ >= kRetryAfterFailure) {
      const StatusOr<std::size_t> purged = PurgeExpired(*store_, *c, options_.now(), kPurgeChunk);
      // NotFound: dropped meanwhile.
      if (!purged.ok() && purged.status().code() != StatusCode::kNotFound) {
        failed_at_ = now;
        std::lock_guard<std::mutex> lock(mutex_);
        ++purge_failures_;
      }
      // Another chunk at once when this one was full.
      linked |= purged.ok() && *purged == kPurgeChunk;
    }
    if (c->counts_hits() && options_.hit_flush_interval.count() > 0 &&
        now - failed_at_ >= kRetryAfterFailure && c->hits().Due(now, options_.hit_flush_interval)) {
      const StatusOr<std::size_t> written = WriteHits(*store_, *c, kMaxHitBatch);
      if (!written.ok() && written.status().code() != StatusCode::kNotFound) {
        failed_at_ = now;
        std::lock_guard<std::mutex> lock(mutex_);
        ++hit_failures_;
      }
    }
    // After a failure (a full disk, say) checkpoints wait a while.
    if (now - failed_at_ >= kRetryAfterFailure && CheckpointDue(*c, now)) {
      const Status stored = CheckpointCollection(*store_, *c);
      // The clock restarts at the next change.
      std::erase_if(since_, [&](const auto& entry) { return entry.first == c.get(); });
      if (!stored.ok()) failed_at_ = now;
      std::lock_guard<std::mutex> lock(mutex_);
      ++(stored.ok() ? checkpoints_ : failures_);
      continue;
    }
    // Linking gives way to writes: it runs in the pause after them, so a
    // bulk load is linked in one go at its end. Under a write load without
    // pauses it links a chunk whenever a backlog has built up: writers then
    // wait for one chunk, and the exactly-scanned backlog stays bounded.
    const std::size_t pending = c->pending();
    if (pending == 0) continue;
    if (c->WriterActive(NowNs(), kWritePauseNs) && pending < kBacklog) continue;
    linked |= c->LinkPending(kLinkChunk, options_.threads) > 0;
  }
  return linked;
}

void Maintenance::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    lock.unlock();
    const bool linked = Pass();
    lock.lock();
    if (!linked && !stop_) wake_.wait_for(lock, std::chrono::milliseconds(50));
  }
}

}  // namespace engram::engine
