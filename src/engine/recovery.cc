// Opening a collection: the records are the truth; index snapshots are a
// shortcut that is checked, never trusted blindly. A snapshot is used only if
// its image loads (checksums and invariants hold), it matches the
// collection's configuration, and its sequence is not past the store's.
// Then every record written after the snapshot is put again, records the
// snapshot has but the store does not are removed, and the index's record
// set must equal the store's or the index is rebuilt from the records.
// Vectors put again are staged (searched exactly until the background links
// them), so that reopening after a crash costs reading, not graph building.
//
// Record numbers read from the store are not trusted either: the in-memory
// state is sized by the largest one, so a store whose numbers are far
// sparser than its records (damaged, crafted, or left so by mass deletes) is
// renumbered densely first, in the store, before anything is allocated.
#include <algorithm>
#include <future>
#include <limits>
#include <utility>

#include "engine/engine_impl.h"

namespace engram {

using engine::Collection;
using engine::PreparedRecord;

namespace {

constexpr std::size_t kChunk = 4096;        // records indexed (or renumbered) per step
constexpr std::uint64_t kDocSlack = 65536;  // record numbers allowed past 2x the records

struct SnapshotUse {
  bool loaded = false;
  std::uint64_t seq = 0;
};

// The snapshot `name` when the collection has that index and the snapshot is
// not newer than the store; nullopt otherwise.
StatusOr<std::optional<storage::Snapshot>> ReadSnapshot(storage::Store& store, const Collection& c,
                                                        std::string_view name, bool has_index,
                                                        std::uint64_t last_seq) {
  std::optional<storage::Snapshot> none;
  if (!has_index) return none;
  StatusOr<std::optional<storage::Snapshot>> read = store.GetSnapshot(c.spec().name, name);
  if (!read.ok()) return read.status();
  if (!read->has_value() || (*read)->seq > last_seq) return none;
  return std::move(read).value();
}

// Installs a decoded snapshot index in `slot` when it matches the collection.
template <typename Index>
SnapshotUse Install(const Collection& c, const std::optional<storage::Snapshot>& snapshot,
                    std::optional<Index> index, std::optional<Index>& slot) {
  if (!snapshot || !index || !c.Matches(*index)) return {};
  slot.emplace(std::move(*index));
  return {true, snapshot->seq};
}

struct StoredRecord {
  std::uint32_t doc;
  std::uint64_t seq;
  PreparedRecord record;
};

// Every record of the collection, checked; vectors of those written after
// `vectors_after` only.
Status ReadRecords(storage::Store& store, const Collection& c, std::uint64_t vectors_after,
                   std::vector<StoredRecord>* out) {
  return store.ScanRecords(c.spec().name, vectors_after,
                           [&](const storage::RecordRow& r) -> Status {
                             ASSIGN_OR_RETURN(PreparedRecord p, c.Reload(r.body, r.vector));
                             out->push_back({r.doc, r.seq, std::move(p)});
                             return Status::Ok();
                           });
}

// Indexes `records`, all of the collection's records as of the store's
// sequence `store_seq`: text and vectors only where the snapshot in use (seq
// given, or nullopt for none) predates the record.
// Counts the records indexed again in `*replayed`.
Status Replay(Collection& c, std::uint64_t store_seq, std::vector<StoredRecord> records,
              std::optional<std::uint64_t> text_seq, std::optional<std::uint64_t> vector_seq,
              std::size_t threads, std::size_t* replayed) {
  std::vector<std::uint32_t> docs;
  std::vector<PreparedRecord> chunk;
  for (std::size_t i = 0; i < records.size(); ++i) {
    StoredRecord& r = records[i];
    PreparedRecord& p = r.record;
    p.index_text = !text_seq || r.seq > *text_seq;
    p.index_vector = !vector_seq || r.seq > *vector_seq;
    if (p.index_vector && c.has_vectors() && p.vector.empty()) {
      return Status::Corruption("record '" + p.id + "' has no stored vector");
    }
    *replayed += (p.index_text && c.has_text()) || (p.index_vector && c.has_vectors()) ? 1 : 0;
    docs.push_back(r.doc);
    chunk.push_back(std::move(p));
    if (chunk.size() == kChunk || i + 1 == records.size()) {
      RETURN_IF_ERROR(c.Load(store_seq, docs, std::move(chunk), threads));
      docs.clear();
      chunk.clear();
    }
  }
  return Status::Ok();
}

// Whether the record numbers are dense enough to size the in-memory state
// by the largest: at most twice the records, plus slack for small stores.
bool DenseEnough(const std::vector<StoredRecord>& records) {
  if (records.empty()) return true;
  const std::uint64_t largest = records.back().doc;  // scans are in record-number order
  return largest < 2 * static_cast<std::uint64_t>(records.size()) + kDocSlack;
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
    const std::string& id = records[i].record.id;
    ASSIGN_OR_RETURN(std::optional<storage::Store::Found> found, store.GetRecord(collection, id));
    if (!found) return Status::Corruption("record '" + id + "' vanished while renumbering");
    batch.removes.push_back(id);
    batch.puts.push_back({id, doc, std::move(found->body), std::move(found->vector)});
    if (batch.puts.size() == kChunk) RETURN_IF_ERROR(flush());
  }
  return flush();
}

}  // namespace

StatusOr<std::shared_ptr<Collection>> Engine::Impl::Load(const storage::CollectionRow& row) {
  ASSIGN_OR_RETURN(CollectionSpec spec, engine::SpecFromJson(row.config));
  if (spec.name != row.name) return Status::Corruption("configuration names another collection");
  auto c = std::make_shared<Collection>(std::move(spec));
  ASSIGN_OR_RETURN(std::uint64_t last_seq, store->LastSequence());
  // Only this thread writes the store while it opens: every record is as of last_seq.

  // The text snapshot is decoded on a second thread while the vector
  // snapshot and the records are read: the two take about as long.
  ASSIGN_OR_RETURN(std::optional<storage::Snapshot> text_snapshot,
                   ReadSnapshot(*store, *c, "text", c->has_text(), last_seq));
  std::future<std::optional<text::TextIndex>> text_index =
      std::async(std::launch::async, [&text_snapshot]() -> std::optional<text::TextIndex> {
        if (!text_snapshot) return std::nullopt;
        return text::TextIndex::Load(text_snapshot->bytes, nullptr);
      });
  StatusOr<std::optional<storage::Snapshot>> vector_snapshot =
      ReadSnapshot(*store, *c, "vector", c->has_vectors(), last_seq);
  if (!vector_snapshot.ok()) {
    text_index.wait();
    return vector_snapshot.status();
  }
  std::optional<vector::VectorIndex> vector_index;
  if (*vector_snapshot) {
    StatusOr<vector::VectorIndex> v = vector::VectorIndex::Load((*vector_snapshot)->bytes);
    if (v.ok()) vector_index.emplace(std::move(v).value());
  }
  SnapshotUse vector_use =
      Install(*c, *vector_snapshot, std::move(vector_index), c->vector_index_for_load());
  std::vector<StoredRecord> records;
  Status read = ReadRecords(*store, *c, vector_use.loaded ? vector_use.seq : 0, &records);
  SnapshotUse text_use = Install(*c, text_snapshot, text_index.get(), c->text_index_for_load());
  RETURN_IF_ERROR(read);
  recovery.records += records.size();
  if (!DenseEnough(records)) {
    ++recovery.renumbered;
    // Nothing sized by the numbers exists yet. Renumber, then rebuild the
    // indexes from the records: the snapshots name the old numbers.
    RETURN_IF_ERROR(Renumber(*store, row.name, records));
    ASSIGN_OR_RETURN(last_seq, store->LastSequence());
    c = std::make_shared<Collection>(c->spec());
    text_use = vector_use = SnapshotUse{};
    records.clear();
    RETURN_IF_ERROR(ReadRecords(*store, *c, 0, &records));
    if (!DenseEnough(records)) {
      return Status::Corruption("record numbers are still sparse after renumbering");
    }
  }
  auto seq_of = [](const SnapshotUse& use) {
    return use.loaded ? std::optional<std::uint64_t>(use.seq) : std::nullopt;
  };
  recovery.rebuilt +=
      (c->has_text() && !text_use.loaded) + (c->has_vectors() && !vector_use.loaded);
  RETURN_IF_ERROR(Replay(*c, last_seq, std::move(records), seq_of(text_use), seq_of(vector_use),
                         options.threads, &recovery.replayed));

  // Records the snapshots hold that the store no longer has; then the sets
  // must agree, or the index is rebuilt from the records.
  const roaring::Roaring& live = c->live_for_load();
  bool rebuild_text = false, rebuild_vector = false;
  if (text_use.loaded) {
    text::TextIndex& index = *c->text_index_for_load();
    roaring::Roaring stale = index.data().live - live;
    for (const std::uint32_t doc : stale) index.Remove(doc);
    rebuild_text = !(index.data().live == live);
  }
  if (vector_use.loaded) {
    vector::VectorIndex& index = *c->vector_index_for_load();
    roaring::Roaring stale = index.store().live() - live;
    for (const std::uint32_t doc : stale) index.Remove(doc);
    rebuild_vector = !(index.store().live() == live);
  }
  if (rebuild_text || rebuild_vector) {
    auto fresh = std::make_shared<Collection>(c->spec());
    if (!rebuild_text) fresh->text_index_for_load() = std::move(c->text_index_for_load());
    if (!rebuild_vector) fresh->vector_index_for_load() = std::move(c->vector_index_for_load());
    c = fresh;
    const bool keep_vectors = vector_use.loaded && !rebuild_vector;
    records.clear();
    RETURN_IF_ERROR(ReadRecords(*store, *c, keep_vectors ? vector_use.seq : 0, &records));
    recovery.rebuilt += rebuild_text + rebuild_vector;
    RETURN_IF_ERROR(Replay(*c, last_seq, std::move(records),
                           text_use.loaded && !rebuild_text ? seq_of(text_use) : std::nullopt,
                           keep_vectors ? seq_of(vector_use) : std::nullopt, options.threads,
                           &recovery.replayed));
  }
  return c;
}

}  // namespace engram
