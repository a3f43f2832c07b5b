// Implements include/engram/engine.h's lifecycle and collections: opening a
// store (with its lock and background maintenance), closing it, creating,
// dropping and listing collections, checkpoints. Writes are in writes.cc,
// reads in reads.cc, loading a collection in recovery.cc.
#include <algorithm>
#include <chrono>
#include <random>
#include <thread>
#include <utility>

#include "engine/embedding.h"
#include "engine/engine_impl.h"
#include "engine/hit_tally.h"
#include "engine/scope.h"
#include "storage/sqlite/sqlite_store.h"

namespace engram {

using engine::Collection;

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

std::string_view DefaultTtlField(std::string_view schema_spec) {
  return schema_spec == "preset:notes" ? "expires_at" : "";
}

std::string_view DefaultHitCountField(std::string_view schema_spec) {
  return schema_spec == "preset:notes" ? "hit_count" : "";
}

std::string_view DefaultLastHitField(std::string_view schema_spec) {
  return schema_spec == "preset:notes" ? "last_hit_at" : "";
}

Datetime Engine::Impl::Now() const {
  const auto now = options.clock ? options.clock() : std::chrono::system_clock::now();
  return Datetime{
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count()};
}

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Engine::~Engine() {
  impl_->maintenance.reset();
  // The hits tallied since the last write (a failure loses them, as a crash would).
  (void)FlushHits();
  // Records are durable already; a checkpoint only makes the next open faster.
  for (const auto& c : impl_->All()) (void)engine::CheckpointCollection(*impl_->store, *c);
}

Status Engine::FlushHits() {
  for (const auto& c : impl_->All()) {
    // What is pending now, a batch at a time; hits tallied meanwhile wait.
    const std::size_t batches = c->hits().pending() / kMaxHitBatch + 1;
    for (std::size_t i = 0; i < batches; ++i) {
      StatusOr<std::size_t> written = engine::WriteHits(*impl_->store, *c, kMaxHitBatch);
      if (!written.ok() && written.status().code() == StatusCode::kNotFound) break;  // dropped
      RETURN_IF_ERROR(written.status());
      if (*written < kMaxHitBatch) break;
    }
  }
  return Status::Ok();
}

std::vector<std::shared_ptr<Collection>> Engine::Impl::All() const {
  std::lock_guard<std::mutex> lock(collections_mutex);
  std::vector<std::shared_ptr<Collection>> all;
  for (const auto& [name, c] : collections) all.push_back(c);
  return all;
}

StatusOr<std::pair<std::shared_ptr<Collection>, Collection::Writer>> Engine::Impl::CurrentWriter(
    std::string_view name) {
  for (int attempt = 0;; ++attempt) {
    ASSIGN_OR_RETURN(std::shared_ptr<Collection> c, Find(name));
    StatusOr<Collection::Writer> writer = c->Write();
    if (writer.ok()) return std::make_pair(std::move(c), std::move(writer).value());
    if (!c->retired() || attempt == 3) return writer.status();
  }
}

void Engine::Impl::ForgetRetrieves(std::string_view collection) {
  std::lock_guard<std::mutex> lock(retrieve_mutex);
  std::erase_if(retrieves, [&](const auto& r) { return r.second->spec.collection == collection; });
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
  const auto start = std::chrono::steady_clock::now();
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  if (impl->options.threads == 0) impl->options.threads = 1;
  if (storage::IsPostgresUrl(dir)) {
    // Shared: other engines may serve the same store (follow.h).
    ASSIGN_OR_RETURN(impl->store, storage::OpenPostgresStore(dir));
  } else {
    ASSIGN_OR_RETURN(impl->store_lock, storage::StoreLock::Acquire(dir, options.holder));
    ASSIGN_OR_RETURN(impl->store, storage::OpenSqliteStoreWithVfs(dir, options.sqlite_vfs));
  }
  // Followed from here: every change after it that the loads below did
  // not see is applied by the follower (and one they saw is skipped).
  ASSIGN_OR_RETURN(const std::uint64_t opened_seq, impl->store->LastSequence());
  ASSIGN_OR_RETURN(std::vector<storage::CollectionRow> rows, impl->store->ListCollections());
  for (const storage::CollectionRow& row : rows) {
    StatusOr<std::shared_ptr<Collection>> loaded = impl->Load(row);
    // Another engine dropped it since the list was read.
    if (impl->store->shared() && loaded.status().code() == StatusCode::kNotFound) continue;
    if (!loaded.ok()) {
      return Status(loaded.status().code(),
                    "collection '" + row.name + "': " + loaded.status().message());
    }
    RETURN_IF_ERROR(impl->LoadRetrieves(*loaded.value()));
    impl->collections.emplace(row.name, std::move(loaded).value());
  }
  impl->recovery.collections = rows.size();
  impl->recovery.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  engine::MaintenanceOptions maintenance;
  maintenance.threads = impl->options.threads;
  maintenance.checkpoint_records = impl->options.checkpoint_records;
  maintenance.checkpoint_interval = std::chrono::milliseconds(impl->options.checkpoint_interval_ms);
  maintenance.hit_flush_interval = std::chrono::milliseconds(impl->options.hit_flush_interval_ms);
  Impl* raw = impl.get();
  maintenance.now = [raw] { return raw->Now(); };
  impl->maintenance = std::make_unique<engine::Maintenance>(
      impl->store.get(), [raw] { return raw->All(); }, maintenance);
  if (impl->store->shared()) {
    engine::FollowOptions follow;
    follow.poll = std::chrono::milliseconds(impl->options.follow_poll_ms);
    impl->follower = std::make_unique<engine::Follower>(
        impl->store.get(), opened_seq,
        [raw](const storage::Change& change) { return raw->ApplyChange(change); },
        [raw] { return raw->ReloadAll(); }, follow);
  }
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

std::string Engine::ShownStore(const std::string& store) {
  const std::size_t scheme = store.find("://");
  if (scheme == std::string::npos) return store;
  std::string shown = store;
  // A password= parameter, up to the next '&'.
  for (std::size_t p = shown.find("password=", scheme); p != std::string::npos;
       p = shown.find("password=", p + 1)) {
    const std::size_t from = p + 9;
    const std::size_t to = std::min(shown.find('&', from), shown.size());
    shown.replace(from, to - from, "****");
  }
  // postgresql://user:password@host: between the first ':' after the scheme
  // and the '@' that ends the authority.
  const std::size_t start = scheme + 3;
  const std::size_t end = std::min(shown.find_first_of("/?", start), shown.size());
  const std::size_t at = shown.rfind('@', end);
  if (at == std::string::npos || at < start) return shown;
  const std::size_t colon = shown.find(':', start);
  if (colon == std::string::npos || colon > at) return shown;
  return shown.substr(0, colon + 1) + "****" + shown.substr(at);
}

const Engine::RecoveryReport& Engine::recovery() const {
  return impl_->recovery;
}

Status Engine::Advertise(std::string_view url) {
  if (impl_->store_lock == nullptr) return Status::Ok();  // a PostgreSQL store has no LOCK file
  return impl_->store_lock->Advertise(url);
}

Status Engine::CreateCollection(const CollectionSpec& given) {
  CollectionSpec spec = given;
  spec.embedder_identity = {};
  std::shared_ptr<const Embedder> embedder;
  if (!spec.embedder.empty()) {
    ASSIGN_OR_RETURN(embedder, engine::OpenForCollection(&spec));
  }
  RETURN_IF_ERROR(engine::ValidateSpec(spec));
  std::lock_guard<std::mutex> lock(impl_->collections_mutex);
  if (impl_->collections.count(spec.name) > 0) {
    return Status::AlreadyExists("a collection named '" + spec.name + "' exists");
  }
  ASSIGN_OR_RETURN(const std::uint64_t seq, impl_->store->CreateCollection(
                                                {spec.name, json::Dump(engine::SpecToJson(spec))}));
  auto c = std::make_shared<Collection>(spec, std::move(embedder));
  c->Begin(seq);
  impl_->collections.emplace(spec.name, std::move(c));
  return Status::Ok();
}

Status Engine::DropCollection(std::string_view name) {
  // The writer lock orders the drop after every write in progress (without
  // holding up the other collections meanwhile); a write waiting for it
  // then finds the collection dropped (NotFound).
  ASSIGN_OR_RETURN(auto current, impl_->CurrentWriter(name));
  auto& [c, writer] = current;
  std::lock_guard<std::mutex> lock(impl_->collections_mutex);
  auto it = impl_->collections.find(name);
  if (it == impl_->collections.end() || it->second != c) {
    return Status::NotFound("no collection named '" + std::string(name) + "'");
  }
  RETURN_IF_ERROR(impl_->store->DropCollection(name));
  writer.Drop();
  impl_->collections.erase(it);
  impl_->ForgetRetrieves(name);
  return Status::Ok();
}

namespace {
// What the caller `scope` (nullopt: unscoped) learns of `c` at `now`: its
// current records it sees. PermissionDenied when `c` is closed to it.
StatusOr<CollectionInfo> Info(const Collection& c, const std::optional<Scope>& scope,
                              Datetime now) {
  const Collection::Reader reader = c.Read();
  ASSIGN_OR_RETURN(std::optional<filter::CompiledFilter> visible,
                   engine::VisibleFilter(c, scope, engine::ReadTime{now}));
  return CollectionInfo{
      c.spec(),
      visible ? reader.metadata().Evaluate(visible->optimized.root).cardinality() : reader.size(),
      c.purged(), c.hits().tallied(), c.hits().dropped()};
}
}  // namespace

std::vector<CollectionInfo> Engine::ListCollections(const std::optional<Scope>& scope) const {
  std::vector<CollectionInfo> out;
  const Datetime now = impl_->Now();
  for (const auto& c : impl_->All()) {
    // A collection closed to the scope is not listed for it.
    StatusOr<CollectionInfo> info = Info(*c, scope, now);
    if (info.ok()) out.push_back(std::move(info).value());
  }
  return out;
}

StatusOr<CollectionInfo> Engine::DescribeCollection(std::string_view name,
                                                    const std::optional<Scope>& scope) const {
  ASSIGN_OR_RETURN(std::shared_ptr<Collection> c, impl_->Find(name));
  return Info(*c, scope, impl_->Now());
}

void Engine::Impl::BackOff(int attempt) {
  thread_local std::minstd_rand random(std::random_device{}());
  const int ceiling_ms = 1 << std::min(attempt, 6);
  std::uniform_int_distribution<int> micros(0, ceiling_ms * 1000);
  std::this_thread::sleep_for(std::chrono::microseconds(micros(random)));
}

Status Engine::AwaitWrite(std::string_view collection, std::uint64_t token,
                          std::chrono::steady_clock::time_point until) const {
  if (token == 0) return Status::Ok();
  std::shared_ptr<Collection> c;
  if (!collection.empty()) {
    StatusOr<std::shared_ptr<Collection>> found = impl_->Find(collection);
    if (found.ok()) c = std::move(found).value();
  }
  // A collection's writes are applied in order, so its own sequence answers
  // for it; the follower's answers for every collection.
  auto applied = [&] {
    return (c != nullptr && c->applied_seq() >= token) ||
           (impl_->follower != nullptr && impl_->follower->followed() >= token);
  };
  if (applied()) return Status::Ok();
  // The store's last sequence only grows: one look tells a token it never
  // handed out.
  ASSIGN_OR_RETURN(const std::uint64_t last, impl_->store->LastSequence());
  if (token > last) {
    return Status::InvalidArgument("token " + std::to_string(token) +
                                   " names no write of this store (its last is " +
                                   std::to_string(last) + ")");
  }
  if (impl_->follower == nullptr) return Status::Ok();  // one engine: it has every write
  constexpr auto kStep = std::chrono::milliseconds(20);
  while (!applied()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= until) {
      return Status::DeadlineExceeded("this node has not yet applied the write of token " +
                                      std::to_string(token) + " (it has applied up to " +
                                      std::to_string(impl_->follower->followed()) + ")");
    }
    impl_->follower->WaitFor(token, std::min(until, now + kStep));
  }
  return Status::Ok();
}

Status Engine::Health() const {
  return impl_->follower == nullptr ? Status::Ok() : impl_->follower->health();
}

StatusOr<std::uint64_t> Engine::LatestToken() const {
  return impl_->store->LastSequence();
}

std::optional<std::uint64_t> Engine::Followed() const {
  if (impl_->follower == nullptr) return std::nullopt;
  return impl_->follower->followed();
}

Status Engine::Checkpoint(std::string_view collection) {
  ASSIGN_OR_RETURN(std::shared_ptr<Collection> c, impl_->Find(collection));
  return engine::LinkAndCheckpoint(*impl_->store, *c, impl_->options.threads);
}

}  // namespace engram
