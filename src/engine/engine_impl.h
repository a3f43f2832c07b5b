// Engine::Impl: the store with its lock, the open collections, their
// background maintenance and the named retrieve configurations, shared by
// engine.cc (open, collections), writes.cc, reads.cc, recovery.cc (loading
// a collection) and retrieve.cc (retrieve configurations).
#ifndef ENGRAM_ENGINE_ENGINE_IMPL_H_
#define ENGRAM_ENGINE_ENGINE_IMPL_H_

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "base/status.h"
#include "engine/collection.h"
#include "engine/follow.h"
#include "engine/maintenance.h"
#include "engine/scope.h"
#include "engram/engine.h"
#include "filter/compiler.h"
#include "search/search.h"
#include "storage/store.h"
#include "storage/store_lock.h"

namespace engram {

// A retrieve configuration with its compiled filter, published whole.
struct RetrieveState {
  RetrieveSpec spec;
  std::shared_ptr<const filter::CompiledFilter> filter;  // null: none
};

struct Engine::Impl {
  // Declared before the store: the lock is released after the store closes.
  std::unique_ptr<storage::StoreLock> store_lock;
  std::unique_ptr<storage::Store> store;
  Options options;

  mutable std::mutex collections_mutex;  // guards the map, not the collections
  std::map<std::string, std::shared_ptr<engine::Collection>, std::less<>> collections;

  // Linking and checkpoints in the background (maintenance.h); declared
  // after the collections it reads, so that it stops before they go.
  std::unique_ptr<engine::Maintenance> maintenance;

  // On a shared store, the changes other engines commit (follow.h,
  // followed.cc); null otherwise. Declared last: it stops first.
  Status ApplyChange(const storage::Change& change);
  // Loads the collection `row` names as the store has it now in place of
  // the incarnation open (whose writer `old` is then retired); nothing when
  // it was dropped meanwhile (its drop follows).
  Status Reload(const storage::CollectionRow& row, engine::Collection::Writer* old);
  // The store's row of collection `name`, or nullopt when it has none.
  StatusOr<std::optional<storage::CollectionRow>> CollectionRowOf(std::string_view name);
  // Every collection as the store has it now (those it no longer has
  // dropped); the sequence it reflects.
  StatusOr<std::uint64_t> ReloadAll();
  // Removes the incarnation `c` of `name` and its retrieve configurations.
  void Forget(const std::string& name, const std::shared_ptr<engine::Collection>& c);

  mutable std::mutex retrieve_mutex;
  std::map<std::string, std::shared_ptr<const RetrieveState>, std::less<>> retrieves;
  static constexpr std::string_view kRetrieveSnapshot = "retrieves";
  // Stores the collection's configurations with `state` in place, then
  // publishes it (retrieve.cc). Nothing changes when the store fails.
  Status PublishRetrieve(std::shared_ptr<const RetrieveState> state);
  // Loads a collection's stored configurations (on open).
  Status LoadRetrieves(const engine::Collection& collection);

  // Every open collection, as of now.
  std::vector<std::shared_ptr<engine::Collection>> All() const;
  // The open collection `name`, or NotFound.
  StatusOr<std::shared_ptr<engine::Collection>> Find(std::string_view name) const;
  // The incarnation `name` has now with its Writer; one a switch of
  // embedder retired meanwhile hands over to its successor (a few times at
  // most). NotFound when there is none (or it was dropped).
  StatusOr<std::pair<std::shared_ptr<engine::Collection>, engine::Collection::Writer>>
  CurrentWriter(std::string_view name);
  // Removes the retrieve configurations of `collection`.
  void ForgetRetrieves(std::string_view collection);

  // Now, from options.clock: expiry and ranking's decay.
  Datetime Now() const;

  RecoveryReport recovery;
  // Loads one collection from the store (recovery.cc), adding to `recovery`.
  StatusOr<std::shared_ptr<engine::Collection>> Load(const storage::CollectionRow& row);

  // Runs `request` (its query and filter already parsed) on `collection`
  // under its shared lock, within what `scope` sees at `at` (scope.h
  // VisibleFilter, set as request->scope), mapping hits to ids and records
  // within `max_reply_bytes` (RequestBounds). PermissionDenied as
  // VisibleFilter. The hits are tallied for the recall statistics
  // (hit_tally.h): a scoped caller's on its own records only, so that no
  // agent's searches (which its private records shape) change what
  // another's records say.
  StatusOr<SearchResponse> Run(const engine::Collection& collection, search::Request* request,
                               const std::optional<Scope>& scope, const engine::ReadTime& at,
                               std::size_t max_reply_bytes = 0) const;

  // The listing of SearchRequest (no query, no vector): the first k records
  // passing `filter` (null: all) that `scope` (nullopt: unscoped) sees at
  // `at`, newest time field first, then by id. DeadlineExceeded when
  // `deadline` passes first.
  StatusOr<SearchResponse> List(const engine::Collection& collection,
                                const filter::CompiledFilter* filter,
                                const std::optional<Scope>& scope, const engine::ReadTime& at,
                                std::size_t k, const Deadline& deadline,
                                std::size_t max_reply_bytes) const;

  // Runs the write `fn` on the collection `name` has now; when a switch of
  // embedder (Reembed) retired that incarnation before `fn` took its
  // writer, runs it again on the new one (a few times at most).
  // On a shared store, a write that another engine's commit made stale
  // (Aborted) is decided again once this engine has caught up.
  template <typename Fn>
  StatusOr<WriteResult> OnCurrent(std::string_view name, const Fn& fn) {
    for (int attempt = 0;; ++attempt) {
      ASSIGN_OR_RETURN(std::shared_ptr<engine::Collection> c, Find(name));
      StatusOr<WriteResult> written = fn(*c);
      if (written.ok() || attempt == kWriteAttempts) return written;
      if (written.status().code() == StatusCode::kAborted && follower != nullptr) {
        RETURN_IF_ERROR(follower->CatchUp());
        BackOff(attempt);
      } else if (!c->retired()) {
        return written;
      }
    }
  }
  static constexpr int kWriteAttempts = 12;
  // Waits a random time below min(2^attempt, 64) ms: writers that lost to
  // each other on several nodes do not meet again in lockstep.
  static void BackOff(int attempt);
  // Engine::Upsert and Delete on one incarnation of the collection.
  StatusOr<WriteResult> Upsert(engine::Collection& collection,
                               std::span<const std::string_view> records,
                               const std::function<void(std::size_t)>& progress,
                               const std::optional<Scope>& scope);
  StatusOr<WriteResult> DeleteIds(engine::Collection& collection, std::span<const std::string> ids,
                                  const std::optional<Scope>& scope,
                                  const std::optional<std::string>& agent);

  // Removes the records `docs` durably, then from memory (the caller holds
  // `writer`).
  StatusOr<WriteResult> RemoveDocs(engine::Collection::Writer& writer,
                                   const std::vector<std::uint32_t>& docs);

  std::unique_ptr<engine::Follower> follower;  // last: stops before the rest goes
};

}  // namespace engram

#endif  // ENGRAM_ENGINE_ENGINE_IMPL_H_
