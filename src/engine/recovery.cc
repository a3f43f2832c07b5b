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
// renumbered densely first, in the store, before anything is allocated
// (stored_records.h reads, checks, renumbers and rekeys the records).
#include <algorithm>
#include <future>
#include <utility>

#include "engine/engine_impl.h"
#include "engine/stored_records.h"

namespace engram {

using engine::Collection;
using engine::DenseEnough;
using engine::Imaged;
using engine::ImagedRecord;
using engine::kDocSlack;
using engine::ParseRows;
using engine::PreparedRecord;
using engine::ReadRecordImage;
using engine::ReadRecords;
using engine::Rekey;
using engine::Renumber;
using engine::ScanRows;
using engine::StoredRecord;
using engine::StoredRow;

namespace {

constexpr std::size_t kChunk = 4096;  // records indexed per step

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

// What the first step of a replay leaves for the second: every record's
// number, sequence and texts, and the vectors the vector snapshot in use
// does not have (empty otherwise).
struct Deferred {
  std::vector<std::uint32_t> docs;
  std::vector<std::uint64_t> seqs;
  std::vector<std::vector<std::string>> texts;
  std::vector<std::vector<float>> vectors;
};

// Replay, step 1: puts `records`, all of the collection's records as of the
// store's sequence `store_seq`, into the collection without text or vectors
// (the keys, bodies and metadata: most of the work, done while a text
// snapshot still decodes); their vectors only where the vector snapshot in
// use (seq given, or nullopt for none) predates the record, kept aside.
StatusOr<Deferred> ReplayRecords(Collection& c, std::uint64_t store_seq,
                                 std::vector<StoredRecord> records,
                                 std::optional<std::uint64_t> vector_seq, std::size_t threads) {
  c.Reserve(records.size(), records.empty() ? 0 : records.back().doc + 1);
  Deferred deferred;
  deferred.docs.reserve(records.size());
  deferred.seqs.reserve(records.size());
  deferred.texts.reserve(records.size());
  deferred.vectors.reserve(records.size());
  std::vector<std::uint32_t> docs;
  std::vector<PreparedRecord> chunk;
  for (std::size_t i = 0; i < records.size(); ++i) {
    StoredRecord& r = records[i];
    PreparedRecord& p = r.record;
    const bool index_vector = c.has_vectors() && (!vector_seq || r.seq > *vector_seq);
    if (index_vector && p.vector.empty()) {
      return Status::Corruption("record '" + p.id + "' has no stored vector");
    }
    deferred.docs.push_back(r.doc);
    deferred.seqs.push_back(r.seq);
    deferred.texts.push_back(std::move(p.texts));
    deferred.vectors.push_back(index_vector ? std::move(p.vector) : std::vector<float>());
    p.index_text = p.index_vector = false;
    docs.push_back(r.doc);
    chunk.push_back(std::move(p));
    if (chunk.size() == kChunk || i + 1 == records.size()) {
      RETURN_IF_ERROR(c.Load(store_seq, docs, std::move(chunk), threads));
      docs.clear();
      chunk.clear();
    }
  }
  return deferred;
}

// Replay, step 2: the texts the text snapshot in use (seq given, or nullopt
// for none) does not have, unless `texts_put` (PutTexts put them already),
// and the vectors step 1 kept. Counts the records indexed again in
// `*replayed`.
Status ReplayIndexes(Collection& c, Deferred deferred, std::optional<std::uint64_t> text_seq,
                     bool texts_put, std::size_t threads, std::size_t* replayed) {
  std::vector<std::uint32_t> docs;
  std::vector<std::vector<std::string>> texts;
  std::vector<std::vector<float>> vectors;
  for (std::size_t i = 0; i < deferred.docs.size(); ++i) {
    const bool text = c.has_text() && (!text_seq || deferred.seqs[i] > *text_seq);
    if (!text && deferred.vectors[i].empty()) continue;
    ++*replayed;
    if (texts_put && deferred.vectors[i].empty()) continue;
    docs.push_back(deferred.docs[i]);
    texts.push_back(text && !texts_put ? std::move(deferred.texts[i]) : std::vector<std::string>());
    vectors.push_back(std::move(deferred.vectors[i]));
  }
  return c.LoadIndexes(docs, std::move(texts), std::move(vectors), threads);
}

// Both steps, one after the other.
Status Replay(Collection& c, std::uint64_t store_seq, std::vector<StoredRecord> records,
              std::optional<std::uint64_t> text_seq, std::optional<std::uint64_t> vector_seq,
              std::size_t threads, std::size_t* replayed) {
  ASSIGN_OR_RETURN(Deferred deferred,
                   ReplayRecords(c, store_seq, std::move(records), vector_seq, threads));
  return ReplayIndexes(c, std::move(deferred), text_seq, false, threads, replayed);
}

// The texts of the records written after the text snapshot (its sequence
// `text_seq`), copied: Replay keeps its own for when the snapshot is not
// used after all.
struct NewerTexts {
  std::vector<std::uint32_t> docs;
  std::vector<std::vector<std::string>> texts;
};

NewerTexts TextsAfter(const std::vector<StoredRecord>& records, std::uint64_t text_seq) {
  NewerTexts out;
  for (const StoredRecord& r : records) {
    if (r.seq <= text_seq) continue;
    out.docs.push_back(r.doc);
    out.texts.push_back(r.record.texts);
  }
  return out;
}

// The decoded text snapshot `index` (nullopt: none) with `newer` put into it,
// on the text snapshot's thread, while the records go into the collection.
std::optional<text::TextIndex> PutTexts(std::future<std::optional<text::TextIndex>> index,
                                        NewerTexts newer) {
  std::optional<text::TextIndex> loaded = index.get();
  if (!loaded) return loaded;
  for (std::size_t i = 0; i < newer.docs.size(); ++i) {
    const std::vector<std::string_view> views(newer.texts[i].begin(), newer.texts[i].end());
    loaded->Put(newer.docs[i], views);
    std::vector<std::string>().swap(newer.texts[i]);
  }
  return loaded;
}

// The text index in `snapshot` for records numbered below `doc_limit`, or
// nullopt when it does not load.
std::optional<text::TextIndex> LoadText(const std::optional<storage::Snapshot>& snapshot,
                                        std::uint32_t doc_limit) {
  if (!snapshot) return std::nullopt;
  StatusOr<text::TextIndex> loaded = text::TextIndex::Load(snapshot->bytes, doc_limit);
  if (!loaded.ok()) return std::nullopt;
  return std::move(loaded).value();
}

}  // namespace

StatusOr<std::shared_ptr<Collection>> Engine::Impl::Load(const storage::CollectionRow& row) {
  ASSIGN_OR_RETURN(CollectionSpec spec, engine::SpecFromJson(row.config));
  if (spec.name != row.name) return Status::Corruption("configuration names another collection");
  auto c = std::make_shared<Collection>(std::move(spec));
  ASSIGN_OR_RETURN(std::uint64_t last_seq, store->LastSequence());
  // Only this thread writes the store while it opens: every record is as of last_seq.

  // The records first: their largest record number bounds the numbers a
  // snapshot may name, so that a damaged or crafted image cannot make the
  // loaders allocate beyond what the records need. Vectors are read for the
  // records newer than the vector snapshot (all of them again below should
  // it not be used).
  ASSIGN_OR_RETURN(std::optional<storage::Snapshot> text_snapshot,
                   ReadSnapshot(*store, *c, "text", c->has_text(), last_seq));
  // The text snapshot is decoded on a second thread while the records are
  // read, checked and put into the collection (only their texts wait for the
  // text index). It is sized by the store's record numbers: from here when
  // they are few enough for the image to describe them (a dense store's
  // are), else once the scan shows them dense (see DenseEnough; sparse ones
  // are renumbered below and the snapshots not used).
  std::future<std::optional<text::TextIndex>> text_index;
  if (text_snapshot) {
    ASSIGN_OR_RETURN(const std::uint64_t limit, store->RecordLimit(row.name));
    if (limit <= UINT32_MAX &&
        limit <= 2 * static_cast<std::uint64_t>(text_snapshot->bytes.size()) + kDocSlack) {
      text_index = std::async(std::launch::async, LoadText, std::cref(text_snapshot),
                              static_cast<std::uint32_t>(limit));
    }
  }
  ASSIGN_OR_RETURN(std::optional<storage::Snapshot> vector_snapshot,
                   ReadSnapshot(*store, *c, "vector", c->has_vectors(), last_seq));
  ASSIGN_OR_RETURN(std::optional<storage::Snapshot> records_snapshot,
                   ReadSnapshot(*store, *c, "records", true, last_seq));
  std::vector<StoredRow> rows;
  RETURN_IF_ERROR(ScanRows(*store, *c, vector_snapshot ? vector_snapshot->seq : 0, &rows));
  recovery.records += rows.size();
  const std::size_t stored = rows.size();
  const bool dense = DenseEnough(rows);
  if (dense && text_snapshot && !text_index.valid()) {
    const std::uint32_t limit = rows.empty() ? 0 : rows.back().doc + 1;
    text_index = std::async(std::launch::async, LoadText, std::cref(text_snapshot), limit);
  }
  // The records the records image stands for are taken from it, not parsed:
  // those no newer than it and, as they come without texts, than the text
  // snapshot (none without one).
  std::optional<Imaged> image;
  if (dense && records_snapshot && (!c->has_text() || text_snapshot)) {
    const std::uint32_t limit = rows.empty() ? 0 : rows.back().doc + 1;
    StatusOr<std::vector<ImagedRecord>> read =
        ReadRecordImage(records_snapshot->bytes, *c->row_schema(), limit);
    if (read.ok()) {
      image.emplace();
      image->records = std::move(read).value();
      image->upto = records_snapshot->seq;
      if (text_snapshot) image->upto = std::min(image->upto, text_snapshot->seq);
    }
  }
  records_snapshot.reset();
  std::vector<StoredRecord> records;
  std::size_t imaged = 0;
  RETURN_IF_ERROR(ParseRows(*c, std::move(rows), image ? &*image : nullptr, options.threads,
                            &records, &imaged));
  image.reset();
  ASSIGN_OR_RETURN(const bool rekeyed, Rekey(*store, *c, &records));
  if (rekeyed) {
    ASSIGN_OR_RETURN(last_seq, store->LastSequence());
  }
  if (!dense) {
    ++recovery.renumbered;
    // Nothing sized by the numbers exists yet. Renumber, then rebuild the
    // indexes from the records: the snapshots name the old numbers.
    RETURN_IF_ERROR(Renumber(*store, row.name, records));
    ASSIGN_OR_RETURN(last_seq, store->LastSequence());
    if (text_index.valid()) text_index.wait();  // it reads text_snapshot
    text_index = {};
    text_snapshot.reset();
    vector_snapshot.reset();
    records.clear();
    imaged = 0;
    RETURN_IF_ERROR(ReadRecords(*store, *c, 0, options.threads, &records));
    if (!DenseEnough(records)) {
      return Status::Corruption("record numbers are still sparse after renumbering");
    }
  }
  // DenseEnough keeps the last far from 2^32.
  const std::uint32_t doc_limit = records.empty() ? 0 : records.back().doc + 1;

  std::optional<vector::VectorIndex> vector_index;
  if (vector_snapshot) {
    StatusOr<vector::VectorIndex> v = vector::VectorIndex::Load(vector_snapshot->bytes, doc_limit);
    if (v.ok()) vector_index.emplace(std::move(v).value());
  }
  const SnapshotUse vector_use =
      Install(*c, vector_snapshot, std::move(vector_index), c->vector_index_for_load());
  // The 8-bit copy is not in the image: built from the loaded floats.
  if (vector_use.loaded && c->spec().quantization == "int8") c->vector_index_for_load()->Quantize();
  if (vector_snapshot && !vector_use.loaded) {
    records.clear();  // the vector snapshot is not used: every record's vector is needed
    imaged = 0;
    RETURN_IF_ERROR(ReadRecords(*store, *c, 0, options.threads, &records));
  }
  auto seq_of = [](const SnapshotUse& use) {
    return use.loaded ? std::optional<std::uint64_t>(use.seq) : std::nullopt;
  };
  // The records go in while the text snapshot may still be decoding; the
  // texts of those written after it are put into it on its thread, after
  // the decoding. (Should it not be used after all, Replay puts every text.)
  const bool texts_put = text_index.valid() && c->has_text();
  if (texts_put) {
    text_index = std::async(std::launch::async, PutTexts, std::move(text_index),
                            TextsAfter(records, text_snapshot->seq));
  }
  ASSIGN_OR_RETURN(Deferred deferred, ReplayRecords(*c, last_seq, std::move(records),
                                                    seq_of(vector_use), options.threads));
  const SnapshotUse text_use =
      Install(*c, text_snapshot, text_index.valid() ? text_index.get() : std::nullopt,
              c->text_index_for_load());
  recovery.rebuilt +=
      (c->has_text() && !text_use.loaded) + (c->has_vectors() && !vector_use.loaded);
  // Records taken from the records image came without texts: should the
  // text snapshot not load after all, no text is indexed here and every
  // record is read again below.
  const bool texts_missing = imaged > 0 && c->has_text() && !text_use.loaded;
  const std::optional<std::uint64_t> text_seq =
      texts_missing ? std::optional<std::uint64_t>(UINT64_MAX) : seq_of(text_use);
  RETURN_IF_ERROR(ReplayIndexes(*c, std::move(deferred), text_seq, texts_put && text_use.loaded,
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
  if (rebuild_text || rebuild_vector || texts_missing) {
    auto fresh = std::make_shared<Collection>(c->spec());
    if (!rebuild_text) fresh->text_index_for_load() = std::move(c->text_index_for_load());
    if (!rebuild_vector) fresh->vector_index_for_load() = std::move(c->vector_index_for_load());
    c = fresh;
    const bool keep_vectors = vector_use.loaded && !rebuild_vector;
    records.clear();
    imaged = 0;
    RETURN_IF_ERROR(
        ReadRecords(*store, *c, keep_vectors ? vector_use.seq : 0, options.threads, &records));
    recovery.rebuilt += rebuild_text + rebuild_vector;
    RETURN_IF_ERROR(Replay(*c, last_seq, std::move(records),
                           text_use.loaded && !rebuild_text ? seq_of(text_use) : std::nullopt,
                           keep_vectors ? seq_of(vector_use) : std::nullopt, options.threads,
                           &recovery.replayed));
  }
  recovery.imaged += imaged;
  c->CountChanged(stored - imaged);
  c->Begin(last_seq);
  return c;
}

}  // namespace engram
