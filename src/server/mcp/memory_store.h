// The `memories` collection the MCP tools work on (SEARCH.md §5): created
// with the `memory` preset on first use, and the per-session locks that keep
// StoreMemory's chains (sequence_order, preceding_memory_id) from forking.
#ifndef ENGRAM_SERVER_MCP_MEMORY_STORE_H_
#define ENGRAM_SERVER_MCP_MEMORY_STORE_H_

#include <array>
#include <mutex>
#include <string>
#include <string_view>

#include "engram/engine.h"

namespace engram::server::mcp {

// For a server started with an embedder: FailedPrecondition when the
// collection exists without one or with another model (its identity
// differs), naming the way to switch it; OK when it does not exist yet (it
// is created with the embedder) or matches. The embedder's own failures
// (a missing model) as OpenEmbedder's.
Status CheckMemoryEmbedder(Engine& engine, const std::string& collection,
                           const std::string& embedder);

class MemoryStore {
 public:
  // `engine` must outlive the store.
  MemoryStore(Engine* engine, std::string collection, std::string embedder = "")
      : engine_(engine), collection_(std::move(collection)), embedder_(std::move(embedder)) {}

  // Makes sure the collection exists: the `memory` preset schema, full text
  // over content, title and context, time field `timestamp`, and the
  // embedder when one was given. Another writer
  // creating it first counts as success. Thread-safe; checked on every call
  // so that a dropped collection comes back.
  Status Ensure();

  // The lock StoreMemory holds while it reads a session's newest memory and
  // appends the next one. Sessions share a fixed set of stripes, so memory
  // stays bounded; two sessions may wait on each other, never fork.
  std::mutex& SessionMutex(std::string_view agent, std::string_view session);

  Engine* engine() const { return engine_; }
  const std::string& collection() const { return collection_; }

 private:
  Engine* engine_;
  std::string collection_;
  std::string embedder_;
  std::mutex create_mutex_;
  std::array<std::mutex, 64> session_mutexes_;
};

}  // namespace engram::server::mcp

#endif  // ENGRAM_SERVER_MCP_MEMORY_STORE_H_
