#include "engine/collection.h"

#include <algorithm>
#include <cassert>
#include <future>
#include <utility>

#include "base/status.h"
#include "engine/dedup.h"
#include "engine/embedding.h"
#include "engine/internal.h"
#include "engine/record_key.h"
#include "schema/record.h"
#include "search/value_cover.h"
#include "vector/metric.h"

namespace engram::engine {
namespace {

text::Stemmer StemmerOf(const std::string& language) {
  if (language == "en") return text::Stemmer::kEnglish;
  if (language == "nl") return text::Stemmer::kDutch;
  return text::Stemmer::kNone;
}

}  // namespace

Collection::Collection(CollectionSpec spec, std::shared_ptr<const Embedder> opened)
    : spec_(std::move(spec)),
      row_schema_(RowSchema(schema())),
      metadata_(row_schema_),
      owner_slot_(OwnerSlot(schema())) {
  if (!spec_.text.empty()) text_.emplace(TextOptions());
  if (spec_.vector_dim > 0) {
    vectors_.emplace(VectorOptions());
    for (const std::string& name : spec_.graph_fields) {
      if (const Field* f = schema().Find(name)) graph_slots_.push_back(f->slot);
    }
  }
  if (!spec_.time_field.empty()) {
    if (const Field* f = schema().Find(spec_.time_field)) time_slot_ = f->slot;
  }
  if (!spec_.ttl_field.empty()) {
    if (const Field* f = schema().Find(spec_.ttl_field)) ttl_slot_ = f->slot;
  }
  if (!spec_.hit_count_field.empty()) {
    if (const Field* f = schema().Find(spec_.hit_count_field)) hit_count_slot_ = f->slot;
  }
  if (!spec_.last_hit_field.empty()) {
    if (const Field* f = schema().Find(spec_.last_hit_field)) last_hit_slot_ = f->slot;
  }
  if (!spec_.embedder.empty()) {
    embedder_ = std::make_shared<const CollectionEmbedder>(
        spec_.name, spec_.embedder, spec_.embedder_identity, std::move(opened));
  }
}

Collection::~Collection() = default;

Status Collection::CheckVector(const std::vector<float>& vector) const {
  if (!vectors_) return Status::InvalidArgument("the collection has no vectors");
  return vectors_->store().Validate(vector);
}

text::TextIndexOptions Collection::TextOptions() const {
  text::TextIndexOptions o;
  for (const TextFieldSpec& f : spec_.text) o.fields.push_back(text::TextField{f.name, f.weight});
  o.stemmer = StemmerOf(spec_.language);
  return o;
}

vector::VectorIndexOptions Collection::VectorOptions() const {
  vector::VectorIndexOptions o;
  o.dim = spec_.vector_dim;
  o.metric = *vector::TryParseMetric(spec_.metric);
  o.value_graph_min = spec_.graph_min_records;
  o.quantize = spec_.quantization == "int8";
  return o;
}

bool Collection::Matches(const text::TextIndex& index) const {
  const text::TextIndexOptions want = TextOptions();
  const text::TextIndexOptions& have = index.options();
  if (have.stemmer != want.stemmer || have.fields.size() != want.fields.size()) return false;
  for (std::size_t i = 0; i < want.fields.size(); ++i) {
    if (have.fields[i].name != want.fields[i].name ||
        have.fields[i].weight != want.fields[i].weight) {
      return false;
    }
  }
  return have.k1 == want.k1 && have.b == want.b;
}

bool Collection::Matches(const vector::VectorIndex& index) const {
  return index.store().dim() == spec_.vector_dim &&
         vector::MetricName(index.store().metric()) == spec_.metric;
}

Checked<filter::CompiledFilter> Collection::CompileFilter(FilterDialect dialect,
                                                          std::string_view text) const {
  return filter::Compile(ToInternal(dialect), text, spec_.schema.get());
}

std::string Collection::KeyOf(std::string_view id, const std::vector<Value>& slots) const {
  if (!owner_slot_) return std::string(id);
  return OwnedKey(OwnerOf(slots, *owner_slot_), id);
}

std::string Collection::OwnedKeyOf(std::optional<std::string_view> agent,
                                   std::string_view id) const {
  return owner_slot_ ? OwnedKey(agent, id) : std::string(id);
}

std::optional<std::uint32_t> Collection::Find(std::string_view key) const {
  const std::uint32_t doc =
      by_key_.Find(key, [this](std::uint32_t d) -> const std::string& { return key_of(d); });
  if (doc == FlatHash::kNone) return std::nullopt;
  return doc;
}

std::vector<std::uint32_t> Collection::FindId(std::string_view id) const {
  std::vector<std::uint32_t> out;
  if (!owner_slot_) {
    if (std::optional<std::uint32_t> doc = Find(id)) out.push_back(*doc);
    return out;
  }
  by_id_.ForEach(
      id, [this](std::uint32_t d) -> const std::string& { return ids_[d]; },
      [&out](std::uint32_t d) {
        out.push_back(d);
        return true;
      });
  std::sort(out.begin(), out.end());
  return out;
}

void Collection::ForgetContent(std::uint32_t doc) {
  if (doc >= content_hashes_.size() || content_hashes_[doc] == 0) return;
  auto [first, last] = by_content_.equal_range(content_hashes_[doc]);
  for (auto it = first; it != last; ++it) {
    if (it->second == doc) {
      by_content_.erase(it);
      break;
    }
  }
  content_hashes_[doc] = 0;
}

Status Collection::Load(std::uint64_t seq, const std::vector<std::uint32_t>& docs,
                        std::vector<PreparedRecord> records, std::size_t threads) {
  applied_seq_ = std::max(applied_seq_.load(), seq);
  for (const PreparedRecord& r : records) {
    dirty_.fetch_add((r.index_text && text_) || (r.index_vector && vectors_) ? 1 : 0);
  }
  // Vectors are staged: opening costs reading, and the background links
  // them. One batch's rows go into the metadata index while the next
  // batch's records go into the rest (one at a time: the index is not
  // shared).
  WaitRows();
  return Put(docs, std::move(records), threads, /*stage=*/true, {}, &rows_loading_);
}

void Collection::WaitRows() {
  if (rows_loading_.valid()) rows_loading_.get();
}

Status Collection::LoadIndexes(const std::vector<std::uint32_t>& docs,
                               std::vector<std::vector<std::string>> texts,
                               std::vector<std::vector<float>> vectors, std::size_t threads) {
  constexpr std::size_t kStageChunk = 4096;  // vectors staged per step
  std::vector<std::uint32_t> vector_docs;
  std::vector<float> vector_rows;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    const bool text = text_ && !texts[i].empty();
    const bool vector = vectors_ && !vectors[i].empty();
    dirty_.fetch_add(text || vector ? 1 : 0);
    if (text) {
      std::vector<std::string_view> views(texts[i].begin(), texts[i].end());
      text_->Put(docs[i], views);
      std::vector<std::string>().swap(texts[i]);
    }
    if (vector) {
      vector_docs.push_back(docs[i]);
      vector_rows.insert(vector_rows.end(), vectors[i].begin(), vectors[i].end());
      std::vector<float>().swap(vectors[i]);
    }
    if (vector_docs.size() == kStageChunk || (i + 1 == docs.size() && !vector_docs.empty())) {
      RETURN_IF_ERROR(vectors_->Stage(vector_docs, vector_rows, threads));
      vector_docs.clear();
      vector_rows.clear();
    }
  }
  return Status::Ok();
}

void Collection::Reserve(std::size_t records, std::uint32_t doc_limit) {
  by_key_.Reserve(records);
  ids_.reserve(doc_limit);
  bodies_.reserve(doc_limit);
  if (owner_slot_) {
    keys_.reserve(doc_limit);
    by_id_.Reserve(records);
  }
  if (spec_.dedup.mode == DedupMode::kExact) {
    content_hashes_.reserve(doc_limit);
    by_content_.reserve(records);
  }
}

void Collection::SetGraphKeys(std::uint32_t doc, const std::vector<Value>& slots) {
  if (graph_slots_.empty()) return;
  const std::vector<std::string> keys = search::RecordKeys(graph_slots_, slots);
  [[maybe_unused]] const Status set = vectors_->SetKeys(doc, keys);
  assert(set.ok());
}

std::future<void> Collection::PutRows(const std::vector<std::uint32_t>& docs,
                                      std::vector<PreparedRecord>& records, std::size_t threads) {
  constexpr std::size_t kRowsApart = 1024;  // the batch that pays for a thread
  std::vector<std::vector<Value>> rows(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    std::vector<Value>& slots = records[i].slots;
    if (!std::holds_alternative<std::monostate>(slots[superseded_slot()])) {
      has_superseded_.store(true, std::memory_order_relaxed);
    }
    rows[i] = std::move(slots);
  }
  if (threads < 2 || records.size() < kRowsApart) {
    metadata_.PutMany(docs, std::move(rows));
    return {};
  }
  return std::async(std::launch::async, [this, docs, rows = std::move(rows)]() mutable {
    metadata_.PutMany(docs, std::move(rows));
  });
}

Status Collection::Put(const std::vector<std::uint32_t>& docs, std::vector<PreparedRecord> records,
                       std::size_t threads, bool stage,
                       const std::function<void(std::size_t)>& progress,
                       std::future<void>* rows_left) {
  // The metadata rows go in beside the rest when the batch is large enough
  // to pay for a thread: PutRows takes the records' slots, the loop below
  // never reads them.
  for (std::size_t i = 0; i < records.size(); ++i) SetGraphKeys(docs[i], records[i].slots);
  std::future<void> rows = PutRows(docs, records, threads);
  // The key maps' slots are fetched kAhead records ahead: a large batch
  // (opening a store) would otherwise wait on a cache miss per record and map.
  constexpr std::size_t kAhead = 8;
  std::vector<std::uint64_t> key_hash(records.size()), id_hash(owner_slot_ ? records.size() : 0);
  for (std::size_t i = 0; i < records.size(); ++i) {
    key_hash[i] = FlatHash::Hash(records[i].key);
    if (owner_slot_) id_hash[i] = FlatHash::Hash(records[i].id);
  }
  std::vector<std::uint32_t> vector_docs;
  std::vector<float> vector_rows;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (i + kAhead < records.size()) {
      by_key_.Prefetch(key_hash[i + kAhead]);
      if (owner_slot_) by_id_.Prefetch(id_hash[i + kAhead]);
    }
    PreparedRecord& r = records[i];
    const std::uint32_t doc = docs[i];
    if (doc >= ids_.size()) {
      ids_.resize(doc + 1);
      bodies_.resize(doc + 1);
      if (owner_slot_) keys_.resize(doc + 1);
    }
    if (doc >= next_doc_) {
      free_.addRange(next_doc_, doc);  // the numbers skipped are free
      next_doc_ = doc + 1;
    }
    free_.remove(doc);
    if (ids_[doc].empty() || key_of(doc) != r.key) {
      if (!ids_[doc].empty()) ForgetKeys(doc);
      by_key_.InsertHashed(key_hash[i], doc);
      if (owner_slot_) by_id_.InsertHashed(id_hash[i], doc);
    }
    if (owner_slot_) keys_[doc] = std::move(r.key);
    ids_[doc] = std::move(r.id);
    bodies_[doc] = std::move(r.body);
    if (spec_.dedup.mode == DedupMode::kExact) {
      ForgetContent(doc);
      if (doc >= content_hashes_.size()) content_hashes_.resize(doc + 1, 0);
      content_hashes_[doc] = r.content_hash;
      by_content_.emplace(r.content_hash, doc);
    }
    if (text_ && r.index_text) {
      std::vector<std::string_view> texts(r.texts.begin(), r.texts.end());
      text_->Put(doc, texts);
    }
    if (vectors_ && r.index_vector) {
      vector_docs.push_back(doc);
      vector_rows.insert(vector_rows.end(), r.vector.begin(), r.vector.end());
    }
    if (progress && (i + 1) % 1024 == 0) progress(i + 1);
  }
  if (rows_left != nullptr) {
    *rows_left = std::move(rows);
  } else if (rows.valid()) {
    rows.get();
  }
  if (!vector_docs.empty()) {
    RETURN_IF_ERROR(stage ? vectors_->Stage(vector_docs, vector_rows, threads)
                          : vectors_->PutBatch(vector_docs, vector_rows, threads));
  }
  if (progress) progress(records.size());
  return Status::Ok();
}

void Collection::ForgetKeys(std::uint32_t doc) {
  by_key_.Erase(key_of(doc), doc);
  if (owner_slot_) by_id_.Erase(ids_[doc], doc);
}

void Collection::RemoveOne(std::uint32_t doc) {
  if (doc >= ids_.size() || ids_[doc].empty()) return;
  ForgetKeys(doc);
  if (owner_slot_) {
    keys_[doc].clear();
    keys_[doc].shrink_to_fit();
  }
  ForgetContent(doc);
  ids_[doc].clear();
  ids_[doc].shrink_to_fit();
  bodies_[doc].clear();
  bodies_[doc].shrink_to_fit();
  metadata_.Remove(doc);
  if (text_) text_->Remove(doc);
  if (vectors_) vectors_->Remove(doc);
  free_.add(doc);
}

std::size_t Collection::LinkPending(std::size_t max, std::size_t threads) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  if (!vectors_ || vectors_->pending() == 0) return 0;
  const std::size_t linked = vectors_->LinkPending(max, threads);
  // The graph differs from the stored image: the next checkpoint stores it,
  // or every open would stage and link these records again.
  dirty_.fetch_add(linked);
  return linked;
}

std::size_t Collection::pending() const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  return vectors_ ? vectors_->pending() : 0;
}

bool Collection::WriterActive(std::int64_t now_ns, std::int64_t pause_ns) const {
  return writers_waiting_.load() > 0 || now_ns - last_write_ns_.load() < pause_ns;
}

search::CollectionView Collection::View() const {
  search::CollectionView v;
  v.metadata = &metadata_;
  v.text = text_ ? &*text_ : nullptr;
  v.vectors = vectors_ ? &*vectors_ : nullptr;
  if (vectors_) v.metric = vectors_->store().metric();
  v.time_slot = time_slot_;
  v.graph_slots = graph_slots_;
  return v;
}

}  // namespace engram::engine
