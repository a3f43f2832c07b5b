// The schemas engram ships for the seeds' own products (SEARCH.md §4):
// `memory` (the SearchMemory tool, seed 001) and `notes` (the ELF service's
// notes, seed 004).
#ifndef ENGRAM_SCHEMA_PRESETS_H_
#define ENGRAM_SCHEMA_PRESETS_H_

#include <memory>
#include <string_view>

#include "schema/schema.h"

namespace engram {

// Fields, in the seed's order: session_id, tool, agent_id, title, context,
// sequence_order, memory_id (the record id), timestamp, preceding_memory_id,
// archetype_title, archetype_version, schema_version.
std::shared_ptr<const Schema> MemorySchema();

// Fields, in the expr_v1 allowlist's order: type, key, scope, agent_id,
// importance, confidence, updated_at, expires_at, hit_count, last_hit_at.
std::shared_ptr<const Schema> NotesSchema();

// "memory" or "notes"; nullptr for any other name.
std::shared_ptr<const Schema> FindPreset(std::string_view name);

}  // namespace engram

#endif  // ENGRAM_SCHEMA_PRESETS_H_
