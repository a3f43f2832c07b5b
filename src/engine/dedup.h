// Deduplication on write (engine.h, DedupSpec): the normalised content and
// its hash that exact dedup indexes, and the check of an upsert's records
// against the owner's stored records and the records before them in the batch.
#ifndef ENGRAM_ENGINE_DEDUP_H_
#define ENGRAM_ENGINE_DEDUP_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/time.h"
#include "engine/collection.h"
#include "engram/engine.h"

namespace engram::engine {

// A near-dedup record is compared with at most this many records before it
// in its batch of the same owner (and with every stored record of the owner
// through the vector index), so that a batch's check is O(batch x 256 x dim)
// at worst.
inline constexpr std::size_t kMaxNearBatchPeers = 256;

// The content exact dedup compares: each text field in NFC, full case
// folding (ICU, U_FOLD_CASE_DEFAULT), runs of Unicode White_Space made one
// space and trimmed; the fields joined by U+001F. `texts` must be UTF-8.
std::string NormalizeContent(const std::vector<std::string>& texts);

// A 64-bit FNV-1a hash of the owner (absent: none) and the normalised
// content; a hash match is confirmed on the content itself.
std::uint64_t ContentHash(std::optional<std::string_view> owner, std::string_view normalized);

// Removes from `records` (one batch, one record per key, each with its
// `position` in the request) the duplicates under `c`'s DedupSpec and
// returns what was removed, in batch order. A record is compared with the
// owner's stored records other than those the batch replaces (its own key
// included), then with the kept records before it in the batch. Records
// expired at `now` (the engine's clock) take no part on either side: an
// expired record is invisible, so a fresh copy of it is no duplicate.
// With the refresh action (DedupSpec), a duplicate of a kept record makes
// that record's time the later of the two (touch.h), and a duplicate of a
// stored record puts its time into `refresh` (by record number, the latest
// of the batch's duplicates of it) for the caller to write with the batch.
// `writer` keeps other writers out; the vector index is read under the
// shared lock.
std::vector<Deduplicated> Deduplicate(const Collection& c, const Collection::Writer& writer,
                                      Datetime now, std::vector<PreparedRecord>* records,
                                      std::map<std::uint32_t, Datetime>* refresh);

}  // namespace engram::engine

#endif  // ENGRAM_ENGINE_DEDUP_H_
