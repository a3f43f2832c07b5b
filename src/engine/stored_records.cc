// Reading a collection's records back from its store (stored_records.h).
#include "engine/stored_records.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <optional>
#include <utility>

namespace engram::engine {
namespace {

constexpr std::size_t kRenumberBatch = 4096;  // records renumbered per durable batch
constexpr std::size_t kParsePart = 512;       // the fewest records a parsing thread takes

// For each row, the index of its record in `image` when the row may be taken
// from it, else -1. Both are in record-number order.
std::vector<std::int64_t> MatchImage(const std::vector<StoredRow>& rows, const Imaged* image) {
  std::vector<std::int64_t> at(rows.size(), -1);
  if (image == nullptr) return at;
  std::size_t j = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    while (j < image->records.size() && image->records[j].doc < rows[i].doc) ++j;
    if (j == image->records.size()) break;
    if (image->records[j].doc == rows[i].doc && rows[i].seq <= image->upto) {
      at[i] = static_cast<std::int64_t>(j);
    }
  }
  return at;
}

}  // namespace

Status ScanRows(storage::Store& store, const Collection& c, std::uint64_t vectors_after,
                std::vector<StoredRow>* out) {
  return store.ScanRecords(
      c.spec().name, vectors_after, [&](const storage::RecordRow& r) -> Status {
        out->push_back(
            {r.doc, r.seq, std::string(r.id), std::string(r.body), std::string(r.vector)});
        return Status::Ok();
      });
}

Status ParseRows(const Collection& c, std::vector<StoredRow> rows, Imaged* image,
                 std::size_t threads, std::vector<StoredRecord>* out, std::size_t* imaged) {
  const std::size_t n = rows.size();
  const std::size_t base = out->size();
  out->resize(base + n);
  const std::vector<std::int64_t> at = MatchImage(rows, image);
  std::atomic<std::size_t> taken{0};
  auto parse = [&](std::size_t first, std::size_t last) -> Status {
    std::size_t from_image = 0;
    for (std::size_t i = first; i < last; ++i) {
      StoredRow& r = rows[i];
      std::optional<PreparedRecord> p;
      if (at[i] >= 0) {
        ASSIGN_OR_RETURN(p, c.FromImage(std::move(image->records[at[i]]), r.body, r.vector, r.id));
        from_image += p.has_value();
      }
      std::string stale;  // stored under a key that is not its own (Rekey)
      if (!p) {
        ASSIGN_OR_RETURN(p, c.Reload(std::move(r.body), r.vector));
        if (r.id != p->key) stale = std::move(r.id);
      }
      (*out)[base + i] = StoredRecord{r.doc, r.seq, std::move(*p), std::move(stale)};
      r = StoredRow{};  // its bytes are in the record now, or not needed
    }
    taken += from_image;
    return Status::Ok();
  };
  const std::size_t parts =
      std::clamp<std::size_t>(n / kParsePart, 1, std::max<std::size_t>(threads, 1));
  std::vector<std::future<Status>> others;
  for (std::size_t t = 1; t < parts; ++t) {
    others.push_back(std::async(std::launch::async, parse, n * t / parts, n * (t + 1) / parts));
  }
  Status status = parse(0, n / parts);
  for (std::future<Status>& other : others) {
    Status s = other.get();
    if (status.ok()) status = std::move(s);
  }
  *imaged = taken;
  return status;
}

Status ReadRecords(storage::Store& store, const Collection& c, std::uint64_t vectors_after,
                   std::size_t threads, std::vector<StoredRecord>* out) {
  std::vector<StoredRow> rows;
  RETURN_IF_ERROR(ScanRows(store, c, vectors_after, &rows));
  std::size_t imaged = 0;
  return ParseRows(c, std::move(rows), nullptr, threads, out, &imaged);
}

// Gives the records (in record-number order) the numbers 0, 1, 2, ... in
// the store, a chunk per durable batch. Record i's number is never below i
// and those before it already moved, so its new number is free: a crash
// between batches leaves a sound store, renumbered again on the next open.
Status Renumber(storage::Store& store, const std::string& collection,
                const std::vector<StoredRecord>& records) {
  storage::WriteBatch batch;
  auto flush = [&]() -> Status {
    if (batch.puts.empty()) return Status::Ok();
    RETURN_IF_ERROR(store.Apply(collection, batch).status());
    batch = storage::WriteBatch();
    return Status::Ok();
  };
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto doc = static_cast<std::uint32_t>(i);
    if (records[i].doc == doc) continue;
    const std::string& key = records[i].record.key;
    ASSIGN_OR_RETURN(std::optional<storage::Store::Found> found, store.GetRecord(collection, key));
    if (!found) return Status::Corruption("record '" + key + "' vanished while renumbering");
    batch.removes.push_back(key);
    batch.puts.push_back({key, doc, std::move(found->body), std::move(found->vector)});
    if (batch.puts.size() == kRenumberBatch) RETURN_IF_ERROR(flush());
  }
  return flush();
}

// Records stored under a key that is not theirs: a store written before
// collections with an agent_id field were keyed by owner (record_key.h) has
// them under their bare ids. They are written again under their keys, with
// their record numbers, in one batch, so that a crash leaves either form
// whole; they then carry the batch's sequence, so they are indexed again
// and the next checkpoint covers them. Returns whether it wrote.
StatusOr<bool> Rekey(storage::Store& store, const Collection& c,
                     std::vector<StoredRecord>* records) {
  const std::string& collection = c.spec().name;
  storage::WriteBatch batch;
  std::vector<StoredRecord*> moved;
  for (StoredRecord& r : *records) {
    if (r.stale_key.empty()) continue;
    ASSIGN_OR_RETURN(std::optional<storage::Store::Found> found,
                     store.GetRecord(collection, r.stale_key));
    if (!found) return Status::Corruption("record '" + r.stale_key + "' vanished while opening");
    // It is indexed again: its vector too, which the scan may have left out.
    ASSIGN_OR_RETURN(r.record.vector, c.StoredVector(found->vector));
    batch.removes.push_back(std::move(r.stale_key));
    batch.puts.push_back({r.record.key, r.doc, std::move(found->body), std::move(found->vector)});
    r.stale_key.clear();
    moved.push_back(&r);
  }
  if (batch.puts.empty()) return false;
  ASSIGN_OR_RETURN(const std::uint64_t seq, store.Apply(collection, batch));
  for (StoredRecord* r : moved) r->seq = seq;
  return true;
}

}  // namespace engram::engine
