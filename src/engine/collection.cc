#include "engine/collection.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <future>
#include <utility>

#include "base/status.h"
#include "engine/dedup.h"
#include "engine/embedding.h"
#include "engine/internal.h"
#include "engine/record_key.h"
#include "engine/version.h"
#include "schema/record.h"
#include "search/thresholds.h"
#include "vector/metric.h"

namespace engram::engine {
namespace {

Diagnostic RecordDiagnostic(std::string path, std::string message) {
  return Diagnostic{400, "record.invalid", path, std::move(message)};
}

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
  if (spec_.vector_dim > 0) vectors_.emplace(VectorOptions());
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

Checked<PreparedRecord> Collection::Prepare(std::string_view json_text) const {
  if (json_text.size() > kMaxRecordBytes) {
    return RecordDiagnostic("",
                            "record is larger than " + std::to_string(kMaxRecordBytes) + " bytes");
  }
  json::ReadOptions options;
  options.max_bytes = kMaxRecordBytes;
  json::ReadResult read = json::Read(json_text, options);
  if (!read.ok()) {
    return RecordDiagnostic(read.error->path.Dotted(""), "not valid JSON: " + read.error->detail);
  }
  if (!read.value.is_object()) {
    return RecordDiagnostic(
        "", "a record must be a JSON object, got " + std::string(json::TypeName(read.value)));
  }
  json::Value& object = read.value;
  PreparedRecord out;
  // The vector is stored apart from the body, as float32.
  auto vec = object.find("vector");
  if (embedder_ && (vec == object.end() || vec->is_null())) {
    out.embed = true;  // the engine embeds the text fields
    if (vec != object.end()) object.erase(vec);
  } else if (spec_.vector_dim > 0) {
    if (vec == object.end() || vec->is_null()) {
      return RecordDiagnostic("vector", "field 'vector': required, the collection has " +
                                            std::to_string(spec_.vector_dim) +
                                            "-dimensional vectors");
    }
    if (!vec->is_array() || vec->size() != spec_.vector_dim) {
      return RecordDiagnostic("vector", "field 'vector': expected an array of " +
                                            std::to_string(spec_.vector_dim) + " numbers");
    }
    out.vector.reserve(spec_.vector_dim);
    for (std::size_t i = 0; i < vec->size(); ++i) {
      const json::Value& x = (*vec)[i];
      if (!x.is_number()) {
        return RecordDiagnostic("vector[" + std::to_string(i) + "]",
                                "vector[" + std::to_string(i) + "]: expected a number, got " +
                                    std::string(json::TypeName(x)));
      }
      out.vector.push_back(x.get<float>());
    }
    if (Status s = vectors_->store().Validate(out.vector); !s.ok()) {
      return RecordDiagnostic("vector", s.message());
    }
    object.erase(vec);
  } else if (vec != object.end()) {
    return RecordDiagnostic("vector", "field 'vector': the collection has no vectors");
  }
  if (object.contains(std::string(kVersionMember))) {
    const std::string name(kVersionMember);
    return RecordDiagnostic(name, "field '" + name +
                                      "' is reserved (the engine keeps the "
                                      "record's version there)");
  }
  // Text fields: strings (or absent/null).
  out.texts.resize(spec_.text.size());
  for (std::size_t i = 0; i < spec_.text.size(); ++i) {
    auto it = object.find(spec_.text[i].name);
    if (it == object.end() || it->is_null()) continue;
    if (!it->is_string()) {
      return RecordDiagnostic(spec_.text[i].name, "field '" + spec_.text[i].name +
                                                      "': expected string, got " +
                                                      std::string(json::TypeName(*it)));
    }
    out.texts[i] = it->get<std::string>();
  }
  Checked<Record> record = ParseRecord(object, schema());
  if (!record.ok()) return record.diagnostic();
  if (record.value().id.size() > kMaxIdBytes) {
    return RecordDiagnostic("id", "id is longer than " + std::to_string(kMaxIdBytes) + " bytes");
  }
  Checked<std::vector<std::string>> supersedes =
      ParseSupersedes(object, record.value().id, kMaxIdBytes);
  if (!supersedes.ok()) return supersedes.diagnostic();
  out.supersedes = std::move(supersedes).value();
  out.id = std::move(record.value().id);
  out.slots = std::move(record.value().slots);
  out.slots.resize(row_schema_->fields().size());  // the write sets the version
  out.key = KeyOf(out.id, out.slots);
  out.body = json::Dump(object);
  SetContentHash(&out);
  return out;
}

StatusOr<std::vector<float>> Collection::StoredVector(std::string_view bytes) const {
  std::vector<float> vector;
  if (bytes.empty()) return vector;
  if (bytes.size() != spec_.vector_dim * sizeof(float)) {
    return Status::Corruption("stored vector has " + std::to_string(bytes.size()) +
                              " bytes, expected " +
                              std::to_string(spec_.vector_dim * sizeof(float)));
  }
  vector.resize(spec_.vector_dim);
  std::memcpy(vector.data(), bytes.data(), bytes.size());
  return vector;
}

Version Collection::VersionOf(const std::vector<Value>& slots) const {
  Version version;
  if (const Datetime* t = std::get_if<Datetime>(&slots[written_slot()])) version.written_at = *t;
  if (const Datetime* t = std::get_if<Datetime>(&slots[superseded_slot()])) {
    version.superseded_at = *t;
  }
  return version;
}

StatusOr<PreparedRecord> Collection::Reload(std::string text, std::string_view vector_bytes) const {
  ASSIGN_OR_RETURN(std::vector<float> vector, StoredVector(vector_bytes));
  // The body was checked by Prepare when it was written; it is checked
  // against the schema again (a store is not trusted blindly), the vector
  // only for its size: Validate ran on it before it was stored.
  json::ReadOptions options;
  options.max_bytes = kMaxRecordBytes;
  json::ReadResult read = json::Read(text, options);
  if (!read.ok() || !read.value.is_object()) {
    return Status::Corruption("stored record is not a JSON object");
  }
  Version version;
  const bool versioned = read.value.contains(std::string(kVersionMember));
  if (std::optional<std::string> bad = TakeVersion(&read.value, &version)) {
    return Status::Corruption(*bad);
  }
  Checked<Record> record = ParseRecord(read.value, schema());
  if (!record.ok()) {
    return Status::Corruption("stored record fails the schema: " + record.diagnostic().message);
  }
  PreparedRecord out;
  out.id = std::move(record.value().id);
  out.slots = std::move(record.value().slots);
  out.slots.resize(row_schema_->fields().size());
  if (version.written_at) out.slots[written_slot()] = *version.written_at;
  if (version.superseded_at) out.slots[superseded_slot()] = *version.superseded_at;
  out.key = KeyOf(out.id, out.slots);
  out.texts.resize(spec_.text.size());
  for (std::size_t i = 0; i < spec_.text.size(); ++i) {
    auto it = read.value.find(spec_.text[i].name);
    if (it != read.value.end() && it->is_string()) out.texts[i] = it->get<std::string>();
  }
  out.vector = std::move(vector);
  // The body without the version member, as Prepare wrote it: cut from the
  // stored text when StoredBody wrote it (reopening does not serialise every
  // record again), else serialised.
  if (!versioned || CutVersion(&text, version)) {
    out.body = std::move(text);
  } else {
    out.body = json::Dump(read.value);
  }
  SetContentHash(&out);
  return out;
}

std::string Collection::StoredBodyOf(const PreparedRecord& r) const {
  const Version version = VersionOf(r.slots);
  if (!version.written_at && !version.superseded_at) return r.body;
  return StoredBody(r.body, version);
}

void Collection::SetContentHash(PreparedRecord* r) const {
  if (spec_.dedup.mode != DedupMode::kExact) return;
  const std::optional<std::string_view> owner =
      owner_slot_ ? OwnerOf(r->slots, *owner_slot_) : std::nullopt;
  r->content_hash = ContentHash(owner, NormalizeContent(r->texts));
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
  for (TouchedRecord& r : records) {
    bodies_[r.doc] = std::move(r.body);
    metadata_.Put(r.doc, std::move(r.slots));
  }
}

Status Collection::Load(std::uint64_t seq, const std::vector<std::uint32_t>& docs,
                        std::vector<PreparedRecord> records, std::size_t threads) {
  applied_seq_ = std::max(applied_seq_.load(), seq);
  for (const PreparedRecord& r : records) {
    dirty_.fetch_add((r.index_text && text_) || (r.index_vector && vectors_) ? 1 : 0);
  }
  // Vectors are staged: opening costs reading, and the background links them.
  return Put(docs, std::move(records), threads, /*stage=*/true, {});
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

void Collection::PutRows(const std::vector<std::uint32_t>& docs,
                         std::vector<PreparedRecord>& records) {
  for (std::size_t i = 0; i < records.size(); ++i) {
    std::vector<Value>& slots = records[i].slots;
    if (!std::holds_alternative<std::monostate>(slots[superseded_slot()])) {
      has_superseded_.store(true, std::memory_order_relaxed);
    }
    metadata_.Put(docs[i], std::move(slots));
  }
}

Status Collection::Put(const std::vector<std::uint32_t>& docs, std::vector<PreparedRecord> records,
                       std::size_t threads, bool stage,
                       const std::function<void(std::size_t)>& progress) {
  // The metadata rows go in beside the rest when the batch is large enough
  // to pay for a thread: PutRows takes only the records' slots, the loop
  // below never reads them.
  constexpr std::size_t kRowsApart = 1024;
  std::future<void> rows;
  if (threads > 1 && records.size() >= kRowsApart) {
    rows = std::async(std::launch::async, [&] { PutRows(docs, records); });
  } else {
    PutRows(docs, records);
  }
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
  if (rows.valid()) rows.get();
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
  return v;
}

}  // namespace engram::engine
