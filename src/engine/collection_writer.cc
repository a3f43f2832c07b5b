// Collection::Writer: the one writer of a collection at a time, and what it
// changes under the exclusive lock (records put, removed, followed from
// another node, touched). Record numbers it assigns go back to the free list
// unless the store took the batch.
#include <chrono>
#include <mutex>
#include <shared_mutex>
#include <utility>

#include "base/status.h"
#include "engine/collection.h"
#include "search/thresholds.h"
#include "vector/metric.h"

namespace engram::engine {

std::vector<std::uint32_t> Collection::Writer::FindContent(std::uint64_t hash) const {
  std::vector<std::uint32_t> out;
  auto [first, last] = c_->by_content_.equal_range(hash);
  for (auto it = first; it != last; ++it) out.push_back(it->second);
  return out;
}

StatusOr<std::optional<std::pair<std::uint32_t, double>>> Collection::Writer::Nearest(
    const std::vector<float>& vector, const roaring::Roaring& allowed) const {
  using Found = std::optional<std::pair<std::uint32_t, double>>;
  if (!c_->vectors_ || vector.empty() || allowed.isEmpty()) return Found();
  std::shared_lock<std::shared_mutex> lock(c_->mutex_);
  vector::VectorSearchOptions options;
  options.k = 1;
  ASSIGN_OR_RETURN(std::vector<vector::Neighbor> found,
                   c_->vectors_->Search(vector, options, &allowed));
  if (found.empty()) return Found();
  const vector::Metric metric = c_->vectors_->store().metric();
  const double distance = vector::ReportedDistance(metric, found[0].distance);
  return Found(std::make_pair(found[0].id, search::VectorSimilarity(metric, distance)));
}

StatusOr<Collection::Writer> Collection::Write() {
  writers_waiting_.fetch_add(1);
  Writer writer(*this);
  if (dropped_) {
    return Status::NotFound("collection '" + spec_.name + "' was " +
                            (retired_ ? "replaced" : "dropped"));
  }
  return writer;
}

Collection::Writer::~Writer() {
  if (!lock_.owns_lock()) return;  // moved from
  for (const std::uint32_t doc : assigned_) c_->free_.add(doc);
  c_->last_write_ns_.store(std::chrono::steady_clock::now().time_since_epoch().count());
  c_->writers_waiting_.fetch_sub(1);
}

std::uint32_t Collection::TakeFree() {
  if (!free_.isEmpty()) {
    const std::uint32_t doc = free_.minimum();
    free_.remove(doc);
    return doc;
  }
  return next_doc_++;
}

std::uint32_t Collection::Writer::Assign(std::string_view key) {
  if (const std::optional<std::uint32_t> doc = c_->Find(key)) return *doc;
  const std::uint32_t doc = c_->TakeFree();
  assigned_.push_back(doc);
  return doc;
}

Status Collection::Writer::Apply(std::uint64_t seq, const std::vector<std::uint32_t>& docs,
                                 std::vector<PreparedRecord> records, std::size_t threads,
                                 const std::function<void(std::size_t)>& progress,
                                 std::vector<TouchedRecord> touched) {
  std::unique_lock<std::shared_mutex> lock(c_->mutex_);
  assigned_.clear();  // the store has them now: they are in use
  c_->applied_seq_ = seq;
  c_->TouchAll(std::move(touched));
  c_->dirty_.fetch_add(docs.size());
  return c_->Put(docs, std::move(records), threads, /*stage=*/true, progress);
}

void Collection::Writer::Remove(std::uint64_t seq, const std::vector<std::uint32_t>& docs) {
  std::unique_lock<std::shared_mutex> lock(c_->mutex_);
  for (const std::uint32_t doc : docs) c_->RemoveOne(doc);
  c_->applied_seq_ = seq;
  c_->dirty_.fetch_add(docs.size());
}

Status Collection::Writer::Follow(std::uint64_t seq, const std::vector<std::uint32_t>& removed,
                                  const std::vector<std::uint32_t>& docs,
                                  std::vector<PreparedRecord> records,
                                  std::vector<TouchedRecord> touched, std::size_t threads) {
  std::unique_lock<std::shared_mutex> lock(c_->mutex_);
  for (const std::uint32_t doc : removed) c_->RemoveOne(doc);
  for (std::size_t i = 0; i < records.size(); ++i) {
    const std::uint32_t doc = docs[i];
    const std::optional<std::uint32_t> held = c_->Find(records[i].key);
    if (held && *held != doc) c_->RemoveOne(*held);
    if (doc < c_->ids_.size() && !c_->ids_[doc].empty() && c_->key_of(doc) != records[i].key) {
      c_->RemoveOne(doc);
    }
  }
  c_->applied_seq_ = seq;
  c_->TouchAll(std::move(touched));
  c_->dirty_.fetch_add(removed.size() + docs.size());
  return c_->Put(docs, std::move(records), threads, /*stage=*/true, {});
}

void Collection::Writer::Touch(std::uint64_t seq, std::vector<TouchedRecord> records) {
  std::unique_lock<std::shared_mutex> lock(c_->mutex_);
  c_->TouchAll(std::move(records));
  c_->applied_seq_ = seq;
}

void Collection::TouchAll(std::vector<TouchedRecord> records) {
  // The text and vector images do not change: no checkpoint is due for it.
  std::vector<std::uint32_t> docs;
  std::vector<std::vector<Value>> rows;
  for (TouchedRecord& r : records) {
    bodies_[r.doc] = std::move(r.body);
    docs.push_back(r.doc);
    rows.push_back(std::move(r.slots));
  }
  metadata_.PutMany(docs, std::move(rows));
}

}  // namespace engram::engine
