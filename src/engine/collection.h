// Collection: one collection's configuration and in-memory state inside the
// engine: the metadata index, the optional text and vector indexes, the map
// between a record's `key` (its `id`, the user's, or in a collection keyed
// by owner its agent_id and id: record_key.h) and its `doc` (the record
// number the indexes use), and each record's stored body. This file knows nothing of
// storage: the engine writes the store first and then applies the batch here.
//
// Locking rules, enforced by the types below:
// - Readers take a Reader, which holds the shared lock while it lives:
//   searches, gets and listings see the collection between two batches.
// - One writer at a time: a Writer holds the write mutex from choosing a
//   batch's record numbers until the batch is applied. The store is written
//   while only the write mutex is held (readers go on); the indexes change
//   under the exclusive lock, taken inside Writer::Apply and Writer::Remove.
// - Background work goes through LinkPending (exclusive lock, in chunks,
//   giving way to writers) and Capture (shared lock while it copies the text
//   index: readers go on; the image is encoded from the copy without it).
// - A dropped collection refuses new Writers (NotFound), so a write that
//   resolved the name before the drop never lands in a later collection of
//   the same name (a Collection object is one incarnation of its name).
#ifndef ENGRAM_ENGINE_COLLECTION_H_
#define ENGRAM_ENGINE_COLLECTION_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/flat_hash.h"
#include "base/json.h"
#include "base/roaring.h"
#include "engine/hit_tally.h"
#include "engine/prepared_record.h"
#include "engine/record_image.h"
#include "engine/version.h"
#include "engram/diagnostic.h"
#include "engram/embedder.h"
#include "engram/engine.h"
#include "engram/status.h"
#include "filter/compiler.h"
#include "index/metadata_index.h"
#include "schema/schema.h"
#include "search/search.h"
#include "text/index/text_index.h"
#include "vector/vector_index.h"

namespace engram::engine {

class CollectionEmbedder;

// The configuration document stored with a collection, and back.
json::Value SpecToJson(const CollectionSpec& spec);
StatusOr<CollectionSpec> SpecFromJson(std::string_view config);
// InvalidArgument naming the bad part of `spec`.
Status ValidateSpec(const CollectionSpec& spec);

// The index images of a checkpoint, with the sequence they reflect.
struct Capture {
  std::uint64_t seq = 0;  // every batch of the collection up to it is in the images
  std::optional<std::string> text;
  std::optional<std::string> vectors;
  std::string records;        // the records image (record_image.h)
  std::uint64_t changes = 0;  // records changed since the previous stored capture
};

class Collection {
 public:
  // `opened`: the spec's embedder when the caller has it open already.
  explicit Collection(CollectionSpec spec, std::shared_ptr<const Embedder> opened = nullptr);
  ~Collection();

  // The configuration never changes: no lock needed.
  const CollectionSpec& spec() const { return spec_; }
  const Schema& schema() const { return *spec_.schema.get(); }
  // The schema of the metadata index's rows: the schema's fields, then the
  // two hidden version fields (version.h) at written_slot() and
  // superseded_slot(). Filters naming them are built by the engine only.
  const std::shared_ptr<const Schema>& row_schema() const { return row_schema_; }
  std::uint32_t written_slot() const {
    return static_cast<std::uint32_t>(schema().fields().size());
  }
  std::uint32_t superseded_slot() const { return written_slot() + 1; }
  // Whether a record of this incarnation was ever superseded (set under the
  // exclusive lock: a Reader sees it agree with the records).
  bool has_superseded() const { return has_superseded_.load(std::memory_order_relaxed); }
  bool has_text() const { return text_.has_value(); }
  bool has_vectors() const { return vectors_.has_value(); }
  // The slot of the datetime field temporal hints and listings use.
  std::optional<std::uint32_t> time_slot() const { return time_slot_; }
  // The slot of the TTL field (CollectionSpec::ttl_field), if any.
  std::optional<std::uint32_t> ttl_slot() const { return ttl_slot_; }
  // Expired records purged since the collection was opened.
  std::uint64_t purged() const { return purged_.load(); }
  void CountPurged(std::uint64_t n) { purged_.fetch_add(n); }
  // Recall statistics: the hit fields' slots (CollectionSpec), and the
  // tally of hits not yet written (thread-safe on its own).
  std::optional<std::uint32_t> hit_count_slot() const { return hit_count_slot_; }
  std::optional<std::uint32_t> last_hit_slot() const { return last_hit_slot_; }
  bool counts_hits() const { return hit_count_slot_ || last_hit_slot_; }
  HitTally& hits() const { return hits_; }
  // Whether a loaded index matches this collection's configuration.
  bool Matches(const text::TextIndex& index) const;
  bool Matches(const vector::VectorIndex& index) const;

  // The embedder of a collection created with one (embedding.h), or null.
  const CollectionEmbedder* embedder() const { return embedder_.get(); }

  // Compiles a filter against this collection's schema.
  Checked<filter::CompiledFilter> CompileFilter(FilterDialect dialect, std::string_view text) const;
  // Checks one record's JSON text; the Diagnostic names the field. With an
  // embedder a record may come without `vector` (PreparedRecord::embed). Its
  // version slots are absent (the write sets them).
  Checked<PreparedRecord> Prepare(std::string_view json_text) const;
  // The vector store's checks of a vector of this collection (dimension,
  // finite values, non-zero for cosine), as Prepare applies them.
  Status CheckVector(const std::vector<float>& vector) const;
  // The same for a body read back from the store (vector given apart), its
  // version member taken into the version slots.
  StatusOr<PreparedRecord> Reload(std::string body, std::string_view vector_bytes) const;
  // The floats of a vector as the store keeps it (none when `bytes` is
  // empty); Corruption when it is not of the collection's dimension.
  StatusOr<std::vector<float>> StoredVector(std::string_view bytes) const;
  // The same from a records image's record (record_image.h) and the body
  // and vector stored with it under `stored_key`, without parsing the body:
  // texts empty (a text snapshot has them), the rest as Reload reads it.
  // nullopt when the body is not in the form the image implies (another
  // key, or a version member that cannot be cut): the caller Reloads it.
  // `body` and `stored_key` are moved from only when a record is returned.
  StatusOr<std::optional<PreparedRecord>> FromImage(ImagedRecord r, std::string& body,
                                                    std::string_view vector_bytes,
                                                    std::string& stored_key) const;
  // The body the store keeps for `r`: its body with its version (version.h).
  std::string StoredBodyOf(const PreparedRecord& r) const;

  // Whether records are keyed by owner and id (a string agent_id field;
  // record_key.h) rather than by id alone.
  bool keyed_by_owner() const { return owner_slot_.has_value(); }
  std::optional<std::uint32_t> owner_slot() const { return owner_slot_; }
  // The key of record `id` with metadata `slots`, and of record `id` owned
  // by `agent` (keyed collections; the id itself otherwise).
  std::string KeyOf(std::string_view id, const std::vector<Value>& slots) const;
  std::string OwnedKeyOf(std::optional<std::string_view> agent, std::string_view id) const;

  // A consistent view for reading; holds the shared lock while it lives.
  class Reader {
   public:
    explicit Reader(const Collection& c) : c_(&c), lock_(c.mutex_) {}
    // The record keyed `key`; every record whose id is `id` (whoever owns it).
    std::optional<std::uint32_t> Find(std::string_view key) const { return c_->Find(key); }
    std::vector<std::uint32_t> FindId(std::string_view id) const { return c_->FindId(id); }
    const std::string& id_of(std::uint32_t doc) const { return c_->ids_[doc]; }
    const std::string& key_of(std::uint32_t doc) const { return c_->key_of(doc); }
    const std::string& body_of(std::uint32_t doc) const { return c_->bodies_[doc]; }
    std::size_t size() const { return c_->metadata_.size(); }
    const index::MetadataIndex& metadata() const { return c_->metadata_; }
    search::CollectionView View() const { return c_->View(); }

   private:
    const Collection* c_;
    std::shared_lock<std::shared_mutex> lock_;
  };
  Reader Read() const { return Reader(*this); }

  // The one writer. Reads through a Writer see the collection as no other
  // writer can change it.
  class Writer {
   public:
    Writer(Writer&&) = default;
    ~Writer();  // record numbers assigned but not applied go back to the free list

    std::optional<std::uint32_t> Find(std::string_view key) const { return c_->Find(key); }
    std::vector<std::uint32_t> FindId(std::string_view id) const { return c_->FindId(id); }
    const std::string& key_of(std::uint32_t doc) const { return c_->key_of(doc); }
    const index::MetadataIndex& metadata() const { return c_->metadata_; }
    const Collection& collection() const { return *c_; }
    const std::string& id_of(std::uint32_t doc) const { return c_->ids_[doc]; }
    const std::string& body_of(std::uint32_t doc) const { return c_->bodies_[doc]; }
    // Exact dedup: the records whose content hash is `hash`.
    std::vector<std::uint32_t> FindContent(std::uint64_t hash) const;
    // Near dedup: the nearest record to `vector` among `allowed` with its
    // similarity (search/thresholds.h VectorSimilarity), under the shared
    // lock (the background links vectors meanwhile); nullopt when none.
    StatusOr<std::optional<std::pair<std::uint32_t, double>>> Nearest(
        const std::vector<float>& vector, const roaring::Roaring& allowed) const;

    // The record number for `key`: its record's, or for a new key the lowest
    // free one (removed records' numbers are reused, so the indexes stay as
    // small as the live set), else the next unused one. Two new keys of one
    // Writer never get the same number.
    std::uint32_t Assign(std::string_view key);
    // After the store applied a batch at `seq`: indexes `records` under the
    // exclusive lock (vectors staged for LinkPending: searched exactly until
    // linked), with the batch's `touched` records (as Touch) under the same
    // hold. `progress` gets the records done.
    Status Apply(std::uint64_t seq, const std::vector<std::uint32_t>& docs,
                 std::vector<PreparedRecord> records, std::size_t threads,
                 const std::function<void(std::size_t)>& progress = {},
                 std::vector<TouchedRecord> touched = {});
    // After the store removed them at `seq`: drops the records `docs` from
    // every index and frees their numbers.
    void Remove(std::uint64_t seq, const std::vector<std::uint32_t>& docs);
    // After the store touched them at `seq` (touch.h): replaces the records'
    // bodies and metadata rows under the exclusive lock; nothing else changes.
    void Touch(std::uint64_t seq, std::vector<TouchedRecord> records);
    // The sequence of the last batch applied: the writer has decided its
    // batch knowing the collection up to it (storage::WriteBatch::after).
    std::uint64_t applied_seq() const { return c_->applied_seq_.load(); }
    // A batch another engine committed at `seq` (storage::Change), its
    // records checked: under one hold of the exclusive lock, removes the
    // records `removed`, indexes `records` at the numbers the store gave
    // them (`docs`; a record holding one of them, or holding the key at
    // another number, is removed first: the store is the truth) and applies
    // `touched`.
    Status Follow(std::uint64_t seq, const std::vector<std::uint32_t>& removed,
                  const std::vector<std::uint32_t>& docs, std::vector<PreparedRecord> records,
                  std::vector<TouchedRecord> touched, std::size_t threads);
    // Marks the collection dropped: later Writers are refused.
    void Drop() { c_->dropped_ = true; }
    // Marks this incarnation replaced by another of the same name (a switch
    // of embedder): later Writers are refused and retired() tells their
    // callers to write to the collection the name now has.
    void Retire() { c_->dropped_ = c_->retired_ = true; }

   private:
    friend class Collection;
    explicit Writer(Collection& c) : c_(&c), lock_(c.write_mutex_) {}
    Collection* c_;
    std::unique_lock<std::mutex> lock_;
    std::vector<std::uint32_t> assigned_;  // new numbers, until Apply takes them
  };
  // NotFound once the collection was dropped or retired.
  StatusOr<Writer> Write();
  bool retired() const { return retired_.load(); }
  // The sequence of the last batch applied (what a read waiting for a write
  // compares with its token).
  std::uint64_t applied_seq() const { return applied_seq_.load(); }
  // The sequence at which this incarnation began: its creation, or the
  // store's sequence when it was loaded. Set once, before others see it.
  std::uint64_t created_seq() const { return created_seq_; }
  void Begin(std::uint64_t seq) {
    WaitRows();
    created_seq_ = seq;
    applied_seq_ = std::max(applied_seq_.load(), seq);
  }

  // Loading, before the collection is visible to any other thread (no locks):
  // installs snapshot indexes, indexes stored records as of the store's
  // sequence `seq` (`docs` as stored, checked by the caller; vectors staged),
  // removes records a snapshot has that the store does not.
  std::optional<text::TextIndex>& text_index_for_load() { return text_; }
  std::optional<vector::VectorIndex>& vector_index_for_load() { return vectors_; }
  Status Load(std::uint64_t seq, const std::vector<std::uint32_t>& docs,
              std::vector<PreparedRecord> records, std::size_t threads);
  // Loading in two steps, so that the records go in while a text snapshot
  // still decodes: Load with index_text and index_vector off, then this for
  // the records whose text (`texts`: by text field) or vector (non-empty)
  // the snapshots in use do not have. Vectors staged.
  Status LoadIndexes(const std::vector<std::uint32_t>& docs,
                     std::vector<std::vector<std::string>> texts,
                     std::vector<std::vector<float>> vectors, std::size_t threads);
  // Makes room for `records` records numbered below `doc_limit`, so that
  // loading them does not grow the maps step by step.
  void Reserve(std::size_t records, std::uint32_t doc_limit);
  const roaring::Roaring& live_for_load() {
    WaitRows();
    return metadata_.live();
  }
  // Counts `n` loaded records that the records image did not hold as
  // changed, so that the next checkpoint writes an image that does.
  void CountChanged(std::uint64_t n) { dirty_.fetch_add(n); }

  // Background work. LinkPending links up to `max` staged vectors under the
  // exclusive lock; returns how many. Capture returns the indexes' images at
  // one sequence, or nullopt when nothing changed since the last capture
  // marked stored (MarkStored): under the shared lock (searches go on; a
  // writer waits) it copies the text index (TextIndex::Freeze) and
  // serialises the vector index, then encodes the text image from the copy
  // with no lock held; the records image is encoded in chunks, each under
  // the shared lock (ImageRecords).
  std::size_t LinkPending(std::size_t max, std::size_t threads);
  std::size_t pending() const;
  std::optional<engine::Capture> Capture() const;
  void MarkStored(const engine::Capture& capture) { dirty_.fetch_sub(capture.changes); }
  // Records changed (or linked: the graph changed) since the last stored
  // capture, and whether a writer is
  // waiting or wrote within `pause_ns` (background work then waits).
  std::uint64_t dirty() const { return dirty_.load(); }
  std::size_t size() const { return Read().size(); }
  bool WriterActive(std::int64_t now_ns, std::int64_t pause_ns) const;

 private:
  text::TextIndexOptions TextOptions() const;
  void SetContentHash(PreparedRecord* r) const;              // exact dedup: r->content_hash
  Version VersionOf(const std::vector<Value>& slots) const;  // from the version slots
  vector::VectorIndexOptions VectorOptions() const;
  std::optional<std::uint32_t> Find(std::string_view key) const;
  std::vector<std::uint32_t> FindId(std::string_view id) const;  // ascending
  const std::string& key_of(std::uint32_t doc) const {
    return owner_slot_ ? keys_[doc] : ids_[doc];
  }
  void ForgetContent(std::uint32_t doc);  // by_content_ loses doc
  search::CollectionView View() const;
  std::string ImageRecords() const;  // the records image, in chunks under the shared lock
  // Puts the metadata rows of `records` (their slots, moved) at `docs`: on
  // a thread of its own when `threads` > 1 and the batch pays for one (the
  // future returned owns what that thread reads), else here (no future).
  std::future<void> PutRows(const std::vector<std::uint32_t>& docs,
                            std::vector<PreparedRecord>& records, std::size_t threads);
  // Waits for the rows a Load still puts (rows_loading_).
  void WaitRows();
  // Indexes `records` at `docs` (the exclusive lock held or not needed). A
  // record at a number held by another key replaces that record in the key
  // maps; no record at another number may hold a record's key (Assign and
  // Follow see to it, and the store's keys are unique). The metadata rows
  // are in when it returns, unless `rows_left` takes the future of those
  // still being put.
  Status Put(const std::vector<std::uint32_t>& docs, std::vector<PreparedRecord> records,
             std::size_t threads, bool stage, const std::function<void(std::size_t)>& progress,
             std::future<void>* rows_left = nullptr);
  void RemoveOne(std::uint32_t doc);
  void ForgetKeys(std::uint32_t doc);  // by_key_ and by_id_ lose doc (still in ids_ and keys_)
  void TouchAll(std::vector<TouchedRecord> records);  // the exclusive lock held
  std::uint32_t TakeFree();

  CollectionSpec spec_;
  std::shared_ptr<const Schema> row_schema_;  // before metadata_, built on it
  index::MetadataIndex metadata_;
  // Loading only: the rows of the last Load's batch, still going into
  // metadata_ while the next batch's records go in (destroyed, so waited
  // for, before metadata_).
  std::future<void> rows_loading_;
  std::optional<text::TextIndex> text_;
  std::optional<vector::VectorIndex> vectors_;
  std::optional<std::uint32_t> time_slot_;
  // The slots of CollectionSpec::graph_fields (empty without vectors).
  std::vector<std::uint32_t> graph_slots_;
  // Gives record `doc` the value keys of its row (search/value_cover.h);
  // its row is checked by Prepare, so this cannot fail.
  void SetGraphKeys(std::uint32_t doc, const std::vector<Value>& slots);
  // A located problem when a row's graph field values exceed what a record
  // may carry (vector::kMaxKeysPerRecord keys of vector::kMaxKeyBytes).
  Checked<bool> CheckGraphKeys(const std::vector<Value>& slots) const;
  std::optional<std::uint32_t> ttl_slot_;
  std::optional<std::uint32_t> hit_count_slot_, last_hit_slot_;
  mutable HitTally hits_;
  std::optional<std::uint32_t> owner_slot_;  // keyed by owner: agent_id's slot
  std::vector<std::string> ids_;             // doc -> id ("" when free)
  std::vector<std::string> keys_;            // doc -> key (keyed by owner only)
  FlatHash by_key_;                          // key -> doc (key_of), one per key
  FlatHash by_id_;                           // id -> docs (ids_; keyed by owner only)
  // Exact dedup only: content hash -> doc, and doc -> its hash (0: none).
  std::unordered_multimap<std::uint64_t, std::uint32_t> by_content_;
  std::vector<std::uint64_t> content_hashes_;
  std::vector<std::string> bodies_;                     // doc -> body
  roaring::Roaring free_;                               // numbers below next_doc_ not in use
  std::uint32_t next_doc_ = 0;                          // no number at or above it is in use
  std::atomic<std::uint64_t> applied_seq_{0};           // the sequence of the last batch applied
  std::uint64_t created_seq_ = 0;                       // see created_seq()
  bool dropped_ = false;                                // under write_mutex_
  std::atomic<bool> retired_{false};                    // set under write_mutex_
  std::atomic<bool> has_superseded_{false};             // set under the exclusive lock
  std::shared_ptr<const CollectionEmbedder> embedder_;  // null without an embedder

  mutable std::shared_mutex mutex_;  // readers share it; index changes hold it exclusively
  mutable std::mutex write_mutex_;   // one writer at a time
  std::atomic<std::uint64_t> dirty_{0};
  std::atomic<std::uint64_t> purged_{0};
  std::atomic<int> writers_waiting_{0};
  std::atomic<std::int64_t> last_write_ns_{0};
};

}  // namespace engram::engine

#endif  // ENGRAM_ENGINE_COLLECTION_H_
