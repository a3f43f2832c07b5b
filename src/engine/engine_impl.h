// Engine::Impl: the store, the open collections and the named retrieve
// configurations, shared by engine.cc (collections, writes), recovery.cc
// (open) and retrieve.cc (retrieve configurations).
#ifndef ENGRAM_ENGINE_ENGINE_IMPL_H_
#define ENGRAM_ENGINE_ENGINE_IMPL_H_

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "base/status.h"
#include "engine/collection.h"
#include "engram/engine.h"
#include "filter/compiler.h"
#include "search/search.h"
#include "storage/store.h"

namespace engram {

// A retrieve configuration with its compiled filter, published whole.
struct RetrieveState {
  RetrieveSpec spec;
  std::shared_ptr<const filter::CompiledFilter> filter;  // null: none
};

struct Engine::Impl {
  std::unique_ptr<storage::Store> store;
  Options options;

  mutable std::mutex collections_mutex;  // guards the map, not the collections
  std::map<std::string, std::shared_ptr<engine::Collection>, std::less<>> collections;

  // The background linker: links staged vectors into each collection's
  // graph in small chunks under the collection's exclusive lock (giving way
  // to waiting writers), so that a
  // write is acknowledged once durable and searchable (staged vectors are
  // scanned exactly) without waiting for the graph work.
  std::thread linker;
  std::mutex linker_mutex;
  std::condition_variable linker_wake;
  bool linker_stop = false;
  void RunLinker();
  void StopLinker();

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

  // Loads one collection from the store (recovery.cc).
  StatusOr<std::shared_ptr<engine::Collection>> Load(const storage::CollectionRow& row) const;

  // Runs `request` (its query and filter already parsed) on `collection`
  // under its shared lock, mapping hits to ids and records within
  // `max_reply_bytes` (RequestBounds).
  StatusOr<SearchResponse> Run(const engine::Collection& collection, const search::Request& request,
                               std::size_t max_reply_bytes = 0) const;

  // The listing of SearchRequest (no query, no vector): the first k records
  // passing `filter` (null: all), newest time field first, then by id.
  // DeadlineExceeded when `deadline` passes first.
  StatusOr<SearchResponse> List(const engine::Collection& collection,
                                const filter::CompiledFilter* filter, std::size_t k,
                                const Deadline& deadline, std::size_t max_reply_bytes) const;

  // Removes the records numbered `docs` durably, then from memory (writer
  // mutex held by the caller).
  StatusOr<WriteResult> RemoveDocs(engine::Collection& collection,
                                   const std::vector<std::uint32_t>& docs);
};

}  // namespace engram

#endif  // ENGRAM_ENGINE_ENGINE_IMPL_H_
