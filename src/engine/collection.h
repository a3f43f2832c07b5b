// Collection: one collection's configuration and in-memory state inside the
// engine: the metadata index, the optional text and vector indexes, the map
// between record ids and the record numbers the indexes use, and each
// record's stored body. engine.cc keeps it in step with the store; this file
// knows nothing of storage.
#ifndef ENGRAM_ENGINE_COLLECTION_H_
#define ENGRAM_ENGINE_COLLECTION_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/json.h"
#include "engram/diagnostic.h"
#include "engram/engine.h"
#include "engram/status.h"
#include "filter/compiler.h"
#include "index/metadata_index.h"
#include "schema/schema.h"
#include "search/search.h"
#include "text/index/text_index.h"
#include "vector/vector_index.h"

namespace engram::engine {

// Limits on what a record may carry.
inline constexpr std::size_t kMaxRecordBytes = std::size_t{1} << 20;
inline constexpr std::size_t kMaxIdBytes = 512;

// A record checked against its collection, ready to store and index.
struct PreparedRecord {
  std::string id;
  std::string key;                 // what the store and Find know it by (record_key.h)
  std::string body;                // the record as stored: a JSON object without `vector`
  std::vector<Value> slots;        // by schema slot
  std::vector<std::string> texts;  // by text field, "" when absent
  std::vector<float> vector;       // dim values, or empty
  // Which indexes Put feeds (recovery skips those whose snapshot has it).
  bool index_text = true;
  bool index_vector = true;
};

// The configuration document stored with a collection, and back.
json::Value SpecToJson(const CollectionSpec& spec);
StatusOr<CollectionSpec> SpecFromJson(std::string_view config);
// InvalidArgument naming the bad part of `spec`.
Status ValidateSpec(const CollectionSpec& spec);

class Collection {
 public:
  explicit Collection(CollectionSpec spec);

  const CollectionSpec& spec() const { return spec_; }
  const Schema& schema() const { return *spec_.schema.get(); }
  bool has_text() const { return text_.has_value(); }
  bool has_vectors() const { return vectors_.has_value(); }

  // Compiles a filter against this collection's schema.
  Checked<filter::CompiledFilter> CompileFilter(FilterDialect dialect, std::string_view text) const;

  // Checks one record's JSON text; the Diagnostic names the field.
  Checked<PreparedRecord> Prepare(std::string_view json_text) const;
  // The same for a body read back from the store (vector given apart).
  StatusOr<PreparedRecord> Reload(std::string_view body, std::string_view vector_bytes) const;

  // Whether records are keyed by owner and id (a string agent_id field;
  // record_key.h) rather than by id alone.
  bool keyed_by_owner() const { return owner_slot_.has_value(); }
  std::optional<std::uint32_t> owner_slot() const { return owner_slot_; }
  // The key of record `id` with metadata `slots`, and of record `id` owned
  // by `agent` (keyed collections; the id itself otherwise).
  std::string KeyOf(std::string_view id, const std::vector<Value>& slots) const;
  std::string OwnedKeyOf(std::optional<std::string_view> agent, std::string_view id) const;
  // The record number of the record keyed `key`, or nullopt.
  std::optional<std::uint32_t> Find(std::string_view key) const;
  // Every record whose id is `id`, whoever owns it (at most one unless
  // keyed by owner); ascending.
  std::vector<std::uint32_t> FindId(std::string_view id) const;
  // The record number to give a new id. Numbers are not reused, so that a
  // snapshot never holds a different record under a live number unless the
  // record was written after it (and is then put again on load).
  std::uint32_t NextDoc() { return next_doc_++; }

  // In-memory application of durable writes (exclusive lock held). Vectors
  // are linked on `threads` threads, or with `stage` only stored and left
  // for LinkPending (searched exactly until then); `progress` gets the
  // records done.
  Status Put(const std::vector<std::uint32_t>& docs, std::vector<PreparedRecord> records,
             std::size_t threads, bool stage = false,
             const std::function<void(std::size_t)>& progress = {});
  void Remove(std::uint32_t doc);

  std::size_t size() const { return metadata_.size(); }
  const std::string& id_of(std::uint32_t doc) const { return ids_[doc]; }
  const std::string& key_of(std::uint32_t doc) const {
    return owner_slot_ ? keys_[doc] : ids_[doc];
  }
  const std::string& body_of(std::uint32_t doc) const { return bodies_[doc]; }
  search::CollectionView View() const;
  const index::MetadataIndex& metadata() const { return metadata_; }
  // The slot of the datetime field temporal hints and listings use.
  std::optional<std::uint32_t> time_slot() const { return time_slot_; }

  // Index snapshots ("text", "vector") and their loading.
  std::optional<text::TextIndex>& text_index() { return text_; }
  std::optional<vector::VectorIndex>& vector_index() { return vectors_; }
  // Whether a loaded index matches this collection's configuration.
  bool Matches(const text::TextIndex& index) const;
  bool Matches(const vector::VectorIndex& index) const;

  // Readers (searches) share it; writers hold it exclusively.
  std::shared_mutex& mutex() const { return mutex_; }
  std::mutex& write_mutex() const { return write_mutex_; }  // one writer at a time
  std::uint64_t dirty = 0;  // records changed since the last snapshot
  // Writers waiting for the exclusive lock, and when the last write ended
  // (steady clock, ns): the background linker gives way to writers and waits
  // for a pause in the writes, so that linking never holds up an
  // acknowledged write and a bulk load is linked in one go at its end.
  std::atomic<int> writers_waiting{0};
  std::atomic<std::int64_t> last_write_ns{0};

 private:
  text::TextIndexOptions TextOptions() const;
  vector::VectorIndexOptions VectorOptions() const;
  void ForgetId(const std::string& id, std::uint32_t doc);  // by_id_ loses (id, doc)

  CollectionSpec spec_;
  index::MetadataIndex metadata_;
  std::optional<text::TextIndex> text_;
  std::optional<vector::VectorIndex> vectors_;
  std::optional<std::uint32_t> time_slot_;
  std::optional<std::uint32_t> owner_slot_;                    // keyed by owner: agent_id's slot
  std::unordered_map<std::string, std::uint32_t> docs_;        // key -> record number
  std::vector<std::string> ids_;                               // record number -> id
  std::vector<std::string> keys_;                              // record number -> key (keyed only)
  std::unordered_multimap<std::string, std::uint32_t> by_id_;  // id -> record (keyed only)
  std::vector<std::string> bodies_;                            // record number -> body
  std::uint32_t next_doc_ = 0;
  mutable std::shared_mutex mutex_;
  mutable std::mutex write_mutex_;
};

}  // namespace engram::engine

#endif  // ENGRAM_ENGINE_COLLECTION_H_
