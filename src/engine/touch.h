// Touches: metadata-only updates of stored records. A touch rewrites a
// record's body with some int or datetime fields changed (a refreshed record
// time, hit statistics) and its metadata row with it; its key, text, vector
// and content hash stay, so no other index changes, the store keeps the
// record's vector and sequence (storage::BodyWrite) and an index snapshot
// stays valid for it: a touch costs a body write, never re-tokenising or
// re-embedding.
#ifndef ENGRAM_ENGINE_TOUCH_H_
#define ENGRAM_ENGINE_TOUCH_H_

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "base/time.h"
#include "engine/collection.h"
#include "engram/status.h"
#include "storage/store.h"

namespace engram::engine {

// One field's new value: an int or a Datetime in the slot of a field of
// that type (never a text field, the id or the owner).
struct FieldChange {
  std::uint32_t slot = 0;
  std::variant<std::int64_t, Datetime> value;
};

// The record `doc` with body `body` and metadata row `row`, with `changes`
// made. Corruption when the body is not a JSON object.
StatusOr<TouchedRecord> Restate(const Collection& c, std::uint32_t doc, std::string_view body,
                                std::vector<Value> row, const std::vector<FieldChange>& changes);

// The dedup refresh (engine.h, DedupAction::kRefresh) of a record about to be
// written: its time field becomes `t` when that is later than its own.
void RefreshKept(const Collection& c, Datetime t, PreparedRecord* r);

// The refresh of the stored record `doc`: its time field (the collection's
// time_field) as the later of its value and `t`; nullopt when that changes
// nothing.
StatusOr<std::optional<TouchedRecord>> RefreshStored(const Collection::Writer& writer,
                                                     std::uint32_t doc, Datetime t);

// Writes `touched` (records of the writer's collection) to `store` in one
// durable batch, then into the collection. Nothing changes when the store
// fails.
Status ApplyTouches(storage::Store& store, Collection::Writer& writer,
                    std::vector<TouchedRecord> touched);

}  // namespace engram::engine

#endif  // ENGRAM_ENGINE_TOUCH_H_
