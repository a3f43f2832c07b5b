// Supersession on write and the history of a record (engine.h,
// "Supersession"): an upsert's records name, in `supersedes`, records of
// their own owner that stop being current when the batch is applied; a
// record's predecessors are walked back through those names.
#ifndef ENGRAM_ENGINE_SUPERSEDE_H_
#define ENGRAM_ENGINE_SUPERSEDE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "base/time.h"
#include "engine/collection.h"
#include "engine/scope.h"
#include "engram/engine.h"
#include "storage/store.h"

namespace engram::engine {

// What a batch's supersession adds to it: the stored records that stop being
// current (their numbers and records with the new version, to put again:
// metadata and body only, index_text and index_vector false) and the report.
struct Supersession {
  std::vector<std::uint32_t> docs;
  std::vector<PreparedRecord> records;
  std::vector<storage::RecordWrite> puts;
  std::vector<Superseded> report;  // in batch order
  // A name that resolves to nothing, with the naming record's position.
  std::optional<Diagnostic> rejected;
  std::size_t rejected_index = 0;
};

// Stamps every record of `batch` (one per key, under `writer`) written at
// `now` and current, then resolves each record's `supersedes` within its
// owner: a record of the batch is marked superseded at `now`, a stored one
// readable at `now` (unexpired) is read from `store` and marked too; one
// already superseded keeps its time. A name that resolves to nothing (absent,
// expired, or another owner's: the same answer) rejects the batch: the
// Diagnostic (record.supersedes_unknown, path supersedes[i]) is `rejected`,
// with the record's position, and nothing is to be written.
StatusOr<Supersession> Supersede(const Collection& c, const Collection::Writer& writer,
                                 storage::Store& store, Datetime now,
                                 std::vector<PreparedRecord>* batch);

// The predecessors of record `doc` under `reader`: the records it
// supersedes, theirs, and so on, each at most once, that `tests` (a caller's
// ScopeTests over every version; nullopt: all) lets it read and, with
// `as_of`, written by then; newest written first (then by id), at most
// kMaxHistory (`*truncated` says more were left).
std::vector<std::uint32_t> History(const Collection::Reader& reader, const Collection& c,
                                   std::uint32_t doc, const std::optional<ScopeTests>& tests,
                                   std::optional<Datetime> as_of, bool* truncated);

}  // namespace engram::engine

#endif  // ENGRAM_ENGINE_SUPERSEDE_H_
