// Implements include/engram/engine.h: collections, durable writes (the store
// first, then the in-memory indexes), deletes, checkpoints and search.
#include <chrono>
#include <cstring>
#include <unordered_map>
#include <utility>

#include "engine/engine_impl.h"
#include "engine/internal.h"
#include "engine/scope.h"
#include "text/query/query.h"

namespace engram {

using engine::Collection;
using engine::PreparedRecord;

std::optional<SearchMode> SearchModeFromName(std::string_view name) {
  if (name == "text") return SearchMode::kText;
  if (name == "vector") return SearchMode::kVector;
  if (name == "hybrid") return SearchMode::kHybrid;
  return std::nullopt;
}

std::optional<ReadProfile> ReadProfileFromName(std::string_view name) {
  if (name == "private_only") return ReadProfile::kPrivateOnly;
  if (name == "private_plus_project") return ReadProfile::kPrivatePlusProject;
  if (name == "all_scopes") return ReadProfile::kAllScopes;
  return std::nullopt;
}

std::string_view ReadProfileName(ReadProfile profile) {
  switch (profile) {
    case ReadProfile::kPrivateOnly:
      return "private_only";
    case ReadProfile::kPrivatePlusProject:
      return "private_plus_project";
    case ReadProfile::kAllScopes:
      return "all_scopes";
  }
  return "private_only";
}

std::optional<FilterMode> FilterModeFromName(std::string_view name) {
  if (name == "auto") return FilterMode::kAuto;
  if (name == "pre") return FilterMode::kPre;
  if (name == "post") return FilterMode::kPost;
  return std::nullopt;
}

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Engine::~Engine() {
  impl_->StopLinker();
  // Records are durable already; a snapshot only makes the next open faster.
  for (const auto& c : impl_->All()) (void)Checkpoint(c->spec().name);
}

namespace {
Diagnostic ForbiddenWrite(std::string path, std::string message) {
  return Diagnostic{403, "scope.forbidden", std::move(path), std::move(message)};
}

constexpr std::size_t kLinkChunk = 256;             // records linked per hold of the exclusive lock
constexpr std::int64_t kWritePauseNs = 50'000'000;  // 50 ms without a write: link
}  // namespace

void Engine::Impl::RunLinker() {
  std::unique_lock<std::mutex> wake(linker_mutex);
  while (!linker_stop) {
    wake.unlock();
    bool linked = false, writer_waiting = false;
    const std::int64_t now = std::chrono::steady_clock::now().time_since_epoch().count();
    for (const auto& c : All()) {
      if (c->writers_waiting.load() > 0 || now - c->last_write_ns.load() < kWritePauseNs) {
        writer_waiting = true;  // a write goes first; link in the pause after
        continue;
      }
      std::unique_lock<std::shared_mutex> lock(c->mutex());
      if (c->vector_index() && c->vector_index()->pending() > 0) {
        linked |= c->vector_index()->LinkPending(kLinkChunk, options.threads) > 0;
      }
    }
    wake.lock();
    if (!linked) linker_wake.wait_for(wake, std::chrono::milliseconds(writer_waiting ? 5 : 200));
  }
}

void Engine::Impl::StopLinker() {
  {
    std::lock_guard<std::mutex> lock(linker_mutex);
    linker_stop = true;
  }
  linker_wake.notify_all();
  if (linker.joinable()) linker.join();
}

std::vector<std::shared_ptr<Collection>> Engine::Impl::All() const {
  std::lock_guard<std::mutex> lock(collections_mutex);
  std::vector<std::shared_ptr<Collection>> all;
  for (const auto& [name, c] : collections) all.push_back(c);
  return all;
}

StatusOr<std::shared_ptr<Collection>> Engine::Impl::Find(std::string_view name) const {
  std::lock_guard<std::mutex> lock(collections_mutex);
  auto it = collections.find(name);
  if (it == collections.end()) {
    return Status::NotFound("no collection named '" + std::string(name) + "'");
  }
  return it->second;
}

StatusOr<std::unique_ptr<Engine>> Engine::Open(const std::string& dir, const Options& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  if (impl->options.threads == 0) impl->options.threads = 1;
  ASSIGN_OR_RETURN(impl->store, storage::OpenSqliteStore(dir));
  ASSIGN_OR_RETURN(std::vector<storage::CollectionRow> rows, impl->store->ListCollections());
  for (const storage::CollectionRow& row : rows) {
    StatusOr<std::shared_ptr<Collection>> loaded = impl->Load(row);
    if (!loaded.ok()) {
      return Status(loaded.status().code(),
                    "collection '" + row.name + "': " + loaded.status().message());
    }
    RETURN_IF_ERROR(impl->LoadRetrieves(*loaded.value()));
    impl->collections.emplace(row.name, std::move(loaded).value());
  }
  Impl* raw = impl.get();
  impl->linker = std::thread([raw] { raw->RunLinker(); });
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

Status Engine::CreateCollection(const CollectionSpec& spec) {
  RETURN_IF_ERROR(engine::ValidateSpec(spec));
  std::lock_guard<std::mutex> lock(impl_->collections_mutex);
  if (impl_->collections.count(spec.name) > 0) {
    return Status::AlreadyExists("a collection named '" + spec.name + "' exists");
  }
  RETURN_IF_ERROR(
      impl_->store->CreateCollection({spec.name, json::Dump(engine::SpecToJson(spec))}));
  impl_->collections.emplace(spec.name, std::make_shared<Collection>(spec));
  return Status::Ok();
}

Status Engine::DropCollection(std::string_view name) {
  std::lock_guard<std::mutex> lock(impl_->collections_mutex);
  auto it = impl_->collections.find(name);
  if (it == impl_->collections.end()) {
    return Status::NotFound("no collection named '" + std::string(name) + "'");
  }
  std::lock_guard<std::mutex> writer(it->second->write_mutex());
  RETURN_IF_ERROR(impl_->store->DropCollection(name));
  impl_->collections.erase(it);
  std::lock_guard<std::mutex> retrieve_lock(impl_->retrieve_mutex);
  std::erase_if(impl_->retrieves, [&](const auto& r) { return r.second->spec.collection == name; });
  return Status::Ok();
}

std::vector<CollectionInfo> Engine::ListCollections() const {
  std::vector<CollectionInfo> out;
  for (const auto& c : impl_->All()) {
    std::shared_lock<std::shared_mutex> lock(c->mutex());
    out.push_back(CollectionInfo{c->spec(), c->size()});
  }
  return out;
}

StatusOr<CollectionInfo> Engine::DescribeCollection(std::string_view name) const {
  ASSIGN_OR_RETURN(std::shared_ptr<Collection> c, impl_->Find(name));
  std::shared_lock<std::shared_mutex> lock(c->mutex());
  return CollectionInfo{c->spec(), c->size()};
}

StatusOr<WriteResult> Engine::Upsert(std::string_view collection,
                                     std::span<const std::string_view> records,
                                     const std::function<void(std::size_t)>& progress,
                                     const std::optional<Scope>& scope) {
  ASSIGN_OR_RETURN(std::shared_ptr<Collection> c, impl_->Find(collection));
  ASSIGN_OR_RETURN(std::optional<engine::ScopeTests> tests,
                   engine::MakeScopeTests(c->schema(), scope, collection));
  // Check every record before anything is written: a rejected batch writes nothing.
  std::vector<PreparedRecord> prepared;
  prepared.reserve(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    Checked<PreparedRecord> r = c->Prepare(records[i]);
    if (!r.ok()) {
      WriteResult rejected;
      rejected.rejected = r.diagnostic();
      rejected.rejected_index = i;
      return rejected;
    }
    if (tests && !tests->owns.Matches(r.value().slots)) {
      WriteResult rejected;
      rejected.rejected = ForbiddenWrite(
          "agent_id", "a record's agent_id must be '" + scope->agent + "', the caller's agent");
      rejected.rejected_index = i;
      return rejected;
    }
    prepared.push_back(std::move(r).value());
  }
  // The same id twice in a batch: the later record wins, as it would in two batches.
  std::unordered_map<std::string_view, std::size_t> last;
  for (std::size_t i = 0; i < prepared.size(); ++i) last[prepared[i].id] = i;
  std::vector<PreparedRecord> unique;
  std::vector<std::size_t> positions;  // of `unique` in the batch
  unique.reserve(last.size());
  for (std::size_t i = 0; i < prepared.size(); ++i) {
    if (last[prepared[i].id] != i) continue;
    unique.push_back(std::move(prepared[i]));
    positions.push_back(i);
  }

  std::lock_guard<std::mutex> writer(c->write_mutex());
  if (tests) {
    // Replacing a record is writing over its owner's: only the owner may.
    std::shared_lock<std::shared_mutex> lock(c->mutex());
    for (std::size_t i = 0; i < unique.size(); ++i) {
      const std::optional<std::uint32_t> existing = c->Find(unique[i].id);
      if (existing && !tests->owns.Matches(*c->metadata().Row(*existing))) {
        WriteResult rejected;
        rejected.rejected = ForbiddenWrite(
            "id", "record '" + unique[i].id + "' belongs to another agent and cannot be replaced");
        rejected.rejected_index = positions[i];
        return rejected;
      }
    }
  }
  storage::WriteBatch batch;
  std::vector<std::uint32_t> docs;
  batch.puts.reserve(unique.size());
  docs.reserve(unique.size());
  for (const PreparedRecord& r : unique) {
    const std::optional<std::uint32_t> existing = c->Find(r.id);
    const std::uint32_t doc = existing ? *existing : c->NextDoc();
    docs.push_back(doc);
    std::string vector_bytes(r.vector.size() * sizeof(float), '\0');
    if (!r.vector.empty()) std::memcpy(vector_bytes.data(), r.vector.data(), vector_bytes.size());
    batch.puts.push_back({r.id, doc, r.body, std::move(vector_bytes)});
  }
  c->writers_waiting.fetch_add(1);
  const Status applied = impl_->store->Apply(collection, batch).status();
  if (!applied.ok()) {
    c->writers_waiting.fetch_sub(1);
    return applied;
  }
  std::unique_lock<std::shared_mutex> lock(c->mutex());
  c->writers_waiting.fetch_sub(1);
  Status indexed =
      c->Put(docs, std::move(unique), impl_->options.threads, /*stage=*/true, progress);
  impl_->linker_wake.notify_one();
  if (!indexed.ok()) {
    return Status::Internal("records are stored but indexing failed: " + indexed.message());
  }
  c->dirty += docs.size();
  c->last_write_ns.store(std::chrono::steady_clock::now().time_since_epoch().count());
  WriteResult result;
  result.written = docs.size();
  return result;
}

StatusOr<WriteResult> Engine::Impl::RemoveDocs(Collection& c,
                                               const std::vector<std::uint32_t>& docs) {
  storage::WriteBatch batch;
  for (const std::uint32_t doc : docs) batch.removes.push_back(c.id_of(doc));
  if (!batch.removes.empty()) RETURN_IF_ERROR(store->Apply(c.spec().name, batch).status());
  std::unique_lock<std::shared_mutex> lock(c.mutex());
  for (const std::uint32_t doc : docs) c.Remove(doc);
  c.dirty += docs.size();
  WriteResult result;
  result.written = docs.size();
  return result;
}

StatusOr<WriteResult> Engine::Delete(std::string_view collection, std::span<const std::string> ids,
                                     const std::optional<Scope>& scope) {
  ASSIGN_OR_RETURN(std::shared_ptr<Collection> c, impl_->Find(collection));
  ASSIGN_OR_RETURN(std::optional<engine::ScopeTests> tests,
                   engine::MakeScopeTests(c->schema(), scope, collection));
  std::lock_guard<std::mutex> writer(c->write_mutex());
  std::vector<std::uint32_t> docs;
  for (const std::string& id : ids) {
    std::optional<std::uint32_t> doc = c->Find(id);
    if (!doc) continue;
    if (tests) {
      const std::vector<Value>& row = *c->metadata().Row(*doc);
      if (!tests->reads.Matches(row)) continue;  // invisible to the caller: as if absent
      if (!tests->owns.Matches(row)) {
        return Status::PermissionDenied("record '" + id + "' belongs to another agent");
      }
    }
    docs.push_back(*doc);
  }
  std::sort(docs.begin(), docs.end());
  docs.erase(std::unique(docs.begin(), docs.end()), docs.end());
  return impl_->RemoveDocs(*c, docs);
}

StatusOr<WriteResult> Engine::DeleteWhere(std::string_view collection, FilterDialect dialect,
                                          std::string_view filter_text,
                                          const std::optional<Scope>& scope) {
  ASSIGN_OR_RETURN(std::shared_ptr<Collection> c, impl_->Find(collection));
  Checked<filter::CompiledFilter> compiled = c->CompileFilter(dialect, filter_text);
  if (!compiled.ok()) {
    WriteResult rejected;
    rejected.rejected = compiled.diagnostic();
    return rejected;
  }
  if (scope) {
    ASSIGN_OR_RETURN(filter::Node own, engine::ScopeOwnNode(c->schema(), *scope, collection));
    compiled = engine::Restrict(&compiled.value(), std::move(own), c->spec().schema.get());
  }
  std::lock_guard<std::mutex> writer(c->write_mutex());
  std::vector<std::uint32_t> docs;
  {
    std::shared_lock<std::shared_mutex> lock(c->mutex());
    const roaring::Roaring matched = c->metadata().Evaluate(compiled.value().optimized.root);
    for (const std::uint32_t doc : matched) docs.push_back(doc);
  }
  return impl_->RemoveDocs(*c, docs);
}

StatusOr<std::optional<std::string>> Engine::Get(std::string_view collection, std::string_view id,
                                                 const std::optional<Scope>& scope) const {
  ASSIGN_OR_RETURN(std::shared_ptr<Collection> c, impl_->Find(collection));
  ASSIGN_OR_RETURN(std::optional<engine::ScopeTests> tests,
                   engine::MakeScopeTests(c->schema(), scope, collection));
  std::shared_lock<std::shared_mutex> lock(c->mutex());
  std::optional<std::uint32_t> doc = c->Find(id);
  if (!doc) return std::optional<std::string>();
  if (tests && !tests->reads.Matches(*c->metadata().Row(*doc))) {
    return std::optional<std::string>();
  }
  return std::optional<std::string>(c->body_of(*doc));
}

Status Engine::Checkpoint(std::string_view collection) {
  ASSIGN_OR_RETURN(std::shared_ptr<Collection> c, impl_->Find(collection));
  std::lock_guard<std::mutex> writer(c->write_mutex());
  if (c->dirty == 0) return Status::Ok();
  // Every record of this collection with a sequence up to `seq` is in the
  // indexes: its writer finished before we took the writer mutex.
  ASSIGN_OR_RETURN(std::uint64_t seq, impl_->store->LastSequence());
  std::unique_lock<std::shared_mutex> lock(c->mutex());
  if (c->vector_index()) {
    c->vector_index()->LinkPending(c->vector_index()->pending(), impl_->options.threads);
  }
  if (c->text_index()) {
    RETURN_IF_ERROR(
        impl_->store->PutSnapshot(collection, "text", {seq, c->text_index()->Serialize()}));
  }
  if (c->vector_index()) {
    RETURN_IF_ERROR(
        impl_->store->PutSnapshot(collection, "vector", {seq, c->vector_index()->Serialize()}));
  }
  c->dirty = 0;
  return Status::Ok();
}

StatusOr<SearchResponse> Engine::Impl::Run(const Collection& c,
                                           const search::Request& request) const {
  std::shared_lock<std::shared_mutex> lock(c.mutex());
  StatusOr<search::Result> result = search::Search(c.View(), request);
  SearchResponse response;
  if (!result.ok()) {
    if (result.status().code() != StatusCode::kInvalidArgument) return result.status();
    response.rejected = Diagnostic{400, "request.invalid", "", result.status().message()};
    return response;
  }
  for (const search::Hit& h : result.value().hits) {
    SearchHit hit;
    hit.id = c.id_of(h.doc);
    hit.score = h.score;
    hit.relevance = h.relevance;
    hit.bm25 = h.bm25;
    hit.distance = h.distance;
    hit.record = c.body_of(h.doc);
    response.hits.push_back(std::move(hit));
  }
  if (!result.value().filter_impact.is_null()) {
    response.filter_impact = json::Dump(result.value().filter_impact);
  }
  json::Value& explain = result.value().explain;
  if (!explain.is_null()) {
    if (explain["fusion"].is_object()) {  // name each fused hit by its id
      for (json::Value& e : explain["fusion"]["hits"])
        e["id"] = c.id_of(e["doc"].get<std::uint32_t>());
    }
    response.explain = json::Dump(explain);
  }
  return response;
}

SearchResponse Engine::Impl::List(const Collection& c, const filter::CompiledFilter* filter,
                                  std::size_t k) const {
  std::shared_lock<std::shared_mutex> lock(c.mutex());
  const roaring::Roaring allowed =
      filter != nullptr ? c.metadata().Evaluate(filter->optimized.root) : c.metadata().live();
  const std::optional<std::uint32_t> time_slot = c.time_slot();
  // Newest first (absent times last), then by id: a total order, so pages are stable.
  auto time_of = [&](std::uint32_t doc) -> const Value* {
    if (!time_slot) return nullptr;
    const Value& v = (*c.metadata().Row(doc))[*time_slot];
    return std::holds_alternative<std::monostate>(v) ? nullptr : &v;
  };
  auto before = [&](std::uint32_t a, std::uint32_t b) {
    const Value* ta = time_of(a);
    const Value* tb = time_of(b);
    if ((ta != nullptr) != (tb != nullptr)) return ta != nullptr;
    if (ta != nullptr) {
      const std::optional<int> order = CompareValues(*ta, *tb);
      if (order && *order != 0) return *order > 0;
    }
    return c.id_of(a) < c.id_of(b);
  };
  std::vector<std::uint32_t> docs(allowed.begin(), allowed.end());
  const std::size_t n = std::min(k, docs.size());
  std::partial_sort(docs.begin(), docs.begin() + static_cast<std::ptrdiff_t>(n), docs.end(),
                    before);
  SearchResponse response;
  for (std::size_t i = 0; i < n; ++i) {
    SearchHit hit;
    hit.id = c.id_of(docs[i]);
    hit.score = 1;
    hit.relevance = 1;
    hit.record = c.body_of(docs[i]);
    response.hits.push_back(std::move(hit));
  }
  return response;
}

StatusOr<SearchResponse> Engine::Search(std::string_view collection,
                                        const SearchRequest& request) const {
  ASSIGN_OR_RETURN(std::shared_ptr<Collection> c, impl_->Find(collection));
  SearchResponse rejected;
  search::Request r;
  std::optional<Checked<filter::CompiledFilter>> compiled;
  if (!request.filter.empty()) {
    const FilterDialect dialect = request.dialect.value_or(FilterDialect::kVectorFilter);
    compiled.emplace(c->CompileFilter(dialect, request.filter));
    if (!compiled->ok()) {
      rejected.rejected = compiled->diagnostic();
      return rejected;
    }
    r.filter = &compiled->value();
    r.dialect = ToInternal(dialect);
  }
  std::optional<filter::CompiledFilter> scoped;
  ASSIGN_OR_RETURN(r.filter, engine::ReadableFilter(c->spec().schema.get(), request.scope,
                                                    collection, r.filter, &scoped));
  if (!request.query && !request.vector) {
    if (request.k == 0 || request.k > search::kMaxK) {
      rejected.rejected = Diagnostic{400, "request.invalid", "k",
                                     "k must be in [1, " + std::to_string(search::kMaxK) + "]"};
      return rejected;
    }
    return impl_->List(*c, r.filter, request.k);
  }
  if (request.query) {
    text::QueryOptions options;
    if ((rejected.rejected = SetQueryAnchor(request.anchor, "anchor", &options))) return rejected;
    Checked<text::Query> q = text::ParseQuery(*request.query, options);
    if (!q.ok()) {
      rejected.rejected = q.diagnostic();
      return rejected;
    }
    r.query = std::move(q.value().def);
  }
  if (request.vector) r.vector = *request.vector;
  if (request.mode) {
    r.mode = *request.mode == SearchMode::kText     ? search::Mode::kText
             : *request.mode == SearchMode::kVector ? search::Mode::kVector
                                                    : search::Mode::kHybrid;
  } else if (request.query && request.vector) {
    r.mode = search::Mode::kHybrid;
  } else if (request.vector) {
    r.mode = search::Mode::kVector;
  } else {
    r.mode = search::Mode::kText;
  }
  r.k = request.k;
  r.candidate_k = request.candidate_k;
  r.filter_mode = request.filter_mode == FilterMode::kPre    ? search::FilterMode::kPre
                  : request.filter_mode == FilterMode::kPost ? search::FilterMode::kPost
                                                             : search::FilterMode::kAuto;
  r.threshold = request.threshold;
  r.score_threshold = request.score_threshold;
  if (request.fusion) {
    StatusOr<search::Fusion> fusion = ToInternal(*request.fusion);
    if (!fusion.ok()) {
      rejected.rejected = Diagnostic{400, "request.invalid", "fusion", fusion.status().message()};
      return rejected;
    }
    r.fusion = *fusion;
  }
  r.explain = request.explain;
  r.impact = request.impact;
  return impl_->Run(*c, r);
}

}  // namespace engram
