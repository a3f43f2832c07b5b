#include "engine/hit_tally.h"

#include <algorithm>
#include <limits>
#include <variant>

#include "base/status.h"
#include "engine/collection.h"
#include "engine/touch.h"
#include "engram/engine.h"

namespace engram::engine {

bool HitTally::Merge(std::string key, const Entry& entry) {
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    if (entries_.size() >= kMaxPendingHitRecords) return false;
    entries_.emplace(std::move(key), entry);
    return true;
  }
  it->second.count += entry.count;
  it->second.last = std::max(it->second.last, entry.last);
  return true;
}

void HitTally::Add(const std::vector<std::string>& keys, Datetime at) {
  if (keys.empty()) return;
  std::uint64_t dropped = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const std::string& key : keys) dropped += Merge(key, Entry{1, at}) ? 0 : 1;
  }
  tallied_.fetch_add(keys.size() - dropped);
  dropped_.fetch_add(dropped);
}

HitTally::Taken HitTally::Take(std::size_t max) {
  Taken taken;
  std::lock_guard<std::mutex> lock(mutex_);
  taken.reserve(std::min(max, entries_.size()));
  while (taken.size() < max && !entries_.empty()) {
    auto node = entries_.extract(entries_.begin());
    taken.emplace_back(std::move(node.key()), node.mapped());
  }
  return taken;
}

void HitTally::Restore(Taken taken) {
  std::uint64_t dropped = 0;
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [key, entry] : taken) dropped += Merge(std::move(key), entry) ? 0 : entry.count;
  dropped_.fetch_add(dropped);
}

bool HitTally::Due(std::chrono::steady_clock::time_point now, std::chrono::milliseconds interval) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (entries_.empty() || now - written_at_ < interval) return false;
  written_at_ = now;
  return true;
}

std::size_t HitTally::pending() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

StatusOr<std::size_t> WriteHits(storage::Store& store, Collection& c, std::size_t max) {
  if (!c.counts_hits() || c.hits().pending() == 0) return std::size_t{0};
  // The Writer first: a search tallying meanwhile waits for nothing, and a
  // dropped collection's tally is not taken to be lost quietly later.
  ASSIGN_OR_RETURN(Collection::Writer writer, c.Write());
  HitTally::Taken taken = c.hits().Take(max);
  if (taken.empty()) return std::size_t{0};
  std::vector<TouchedRecord> touched;
  touched.reserve(taken.size());
  for (const auto& [key, entry] : taken) {
    // Gone meanwhile: its hits go with it. A record written again under the
    // same key keeps them (the same memory, as its owner sees it).
    const std::optional<std::uint32_t> doc = writer.Find(key);
    if (!doc) continue;
    const std::vector<Value>& row = *writer.metadata().Row(*doc);
    std::vector<FieldChange> changes;
    if (const std::optional<std::uint32_t> slot = c.hit_count_slot()) {
      const Value& v = row[*slot];
      const std::int64_t count =
          std::holds_alternative<std::int64_t>(v) ? std::get<std::int64_t>(v) : std::int64_t{0};
      constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
      const std::uint64_t room =
          kMax - static_cast<std::uint64_t>(std::max<std::int64_t>(count, 0));
      const auto added = static_cast<std::int64_t>(std::min(entry.count, room));
      changes.push_back({*slot, count + added});  // saturates at the int maximum
    }
    if (const std::optional<std::uint32_t> slot = c.last_hit_slot()) {
      const Value& v = row[*slot];
      if (!std::holds_alternative<Datetime>(v) || std::get<Datetime>(v) < entry.last) {
        changes.push_back({*slot, entry.last});
      }
    }
    if (changes.empty()) continue;
    StatusOr<TouchedRecord> t = Restate(c, *doc, writer.body_of(*doc), row, changes);
    if (t.ok()) touched.push_back(std::move(t).value());
  }
  Status written = ApplyTouches(store, writer, std::move(touched));
  if (!written.ok()) {
    c.hits().Restore(std::move(taken));
    return written;
  }
  return taken.size();
}

}  // namespace engram::engine
