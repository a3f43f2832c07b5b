#include "engine/maintenance.h"

#include <algorithm>
#include <mutex>
#include <utility>

#include "base/status.h"

namespace engram::engine {
namespace {

constexpr std::size_t kLinkChunk = 256;             // records linked per hold of the exclusive lock
constexpr std::int64_t kWritePauseNs = 50'000'000;  // 50 ms without a write: link

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
  c.MarkStored(*capture);
  return Status::Ok();
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
    // Writes go first: link and checkpoint in the pause after them.
    const bool writing = c->WriterActive(NowNs(), kWritePauseNs);
    const bool staged = c->pending() > 0;
    auto link = [&] { linked |= c->LinkPending(kLinkChunk, options_.threads) > 0; };
    const std::uint64_t dirty = c->dirty();
    auto since = std::find_if(since_.begin(), since_.end(),
                              [&](const auto& entry) { return entry.first == c.get(); });
    if (dirty == 0) {
      if (since != since_.end()) since_.erase(since);
      if (!writing && staged) link();
      continue;
    }
    if (since == since_.end()) since = since_.insert(since_.end(), {c.get(), now});
    const auto waited = now - since->second;
    const auto interval = options_.checkpoint_interval;
    const bool due =
        dirty >= options_.checkpoint_records || (interval.count() > 0 && waited >= interval);
    // A due checkpoint waits for a pause in the writes and for the graph to
    // catch up, but not for ever: under writes that never pause, recovery
    // would replay all of them. Once twice its trigger is reached it runs,
    // staged vectors going into the image as staged; writers wait while the
    // capture serialises.
    const bool overdue = dirty / 2 >= options_.checkpoint_records ||
                         (interval.count() > 0 && waited >= 2 * interval);
    if (!due || (!overdue && (writing || staged))) {
      if (!writing && staged) link();
      continue;
    }
    const Status stored = CheckpointCollection(*store_, *c);
    std::lock_guard<std::mutex> lock(mutex_);
    if (stored.ok()) {
      ++checkpoints_;
      since_.erase(since);
    } else {
      ++failures_;  // tried again on the next trigger
      since->second = now;
    }
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
