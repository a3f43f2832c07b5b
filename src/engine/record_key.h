// Record keys (engine.h, "Record keys"): in a collection with a string
// `agent_id` field a record is stored and found under its owner and its id,
// so that ids are unique per agent (as Pinecone's namespaces) and one agent
// can neither probe nor take another's id; elsewhere under its id alone.
// The key is what the store keys records by; users only ever see ids.
#ifndef ENGRAM_ENGINE_RECORD_KEY_H_
#define ENGRAM_ENGINE_RECORD_KEY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "schema/schema.h"
#include "schema/value.h"

namespace engram::engine {

// The field that names a record's owner (SEARCH.md §6).
inline constexpr std::string_view kAgentField = "agent_id";

// The slot of `schema`'s string `agent_id` field, or nullopt: the
// collection's records are then keyed by id alone.
std::optional<std::uint32_t> OwnerSlot(const Schema& schema);

// The key of record `id` owned by `agent` in a collection keyed by owner:
// "<bytes of agent>:<agent>:<id>", or "-:<id>" for a record without an
// agent_id. The length prefix makes it injective whatever the two contain,
// and the two forms never meet (a digit or '-' comes first).
std::string OwnedKey(std::optional<std::string_view> agent, std::string_view id);
// Whether `key` is OwnedKey(agent, id), without building it.
bool IsOwnedKey(std::string_view key, std::optional<std::string_view> agent, std::string_view id);

// The owner `slots` name through `owner_slot` (nullopt when the field is absent).
std::optional<std::string_view> OwnerOf(const std::vector<Value>& slots, std::uint32_t owner_slot);

}  // namespace engram::engine

#endif  // ENGRAM_ENGINE_RECORD_KEY_H_
