// The records of a collection as its store holds them, read back when the
// collection opens (recovery.cc): scanned, checked, taken from the records
// image where it stands for them (record_image.h), else parsed; renumbered
// densely, or written again under their own keys, when the store's numbers
// or keys are not the ones the collection needs. Record numbers read from a
// store are not trusted: the in-memory state is sized by the largest, so a
// store whose numbers are far sparser than its records is renumbered first.
#ifndef ENGRAM_ENGINE_STORED_RECORDS_H_
#define ENGRAM_ENGINE_STORED_RECORDS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "engine/collection.h"
#include "engine/record_image.h"
#include "storage/store.h"

namespace engram::engine {

// Record numbers allowed past twice the records before a store counts as
// sparse (DenseEnough): slack for small stores.
inline constexpr std::uint64_t kDocSlack = 65536;

// A record read back and checked, with its number and sequence as stored.
struct StoredRecord {
  std::uint32_t doc = 0;
  std::uint64_t seq = 0;
  PreparedRecord record;
  std::string stale_key;  // the key it is stored under when that is not record.key
};

// A record as the store gave it, not yet checked.
struct StoredRow {
  std::uint32_t doc = 0;
  std::uint64_t seq = 0;
  std::string id;
  std::string body;
  std::string vector;
};

// The records of a records image (record_image.h) that stand for the stored
// rows no newer than `upto`: the image's sequence, or the text snapshot's
// when that is older (a record taken from the image has no texts).
struct Imaged {
  std::vector<ImagedRecord> records;  // ascending record numbers
  std::uint64_t upto = 0;
};

// Every record of the collection as stored; vectors of those written after
// `vectors_after` only.
Status ScanRows(storage::Store& store, const Collection& c, std::uint64_t vectors_after,
                std::vector<StoredRow>* out);

// Checks the rows and appends them to `out` in order, on up to `threads`
// threads, each taking a run of rows into its place: from `image` (may be
// null) where it stands for the row (Collection::FromImage), else parsed
// (Collection::Reload). Counts the rows taken from the image in `*imaged`.
Status ParseRows(const Collection& c, std::vector<StoredRow> rows, Imaged* image,
                 std::size_t threads, std::vector<StoredRecord>* out, std::size_t* imaged);

// Every record of the collection, checked; vectors of those written after
// `vectors_after` only.
Status ReadRecords(storage::Store& store, const Collection& c, std::uint64_t vectors_after,
                   std::size_t threads, std::vector<StoredRecord>* out);

// Whether the record numbers are dense enough to size the in-memory state
// by the largest: at most twice the records, plus slack for small stores.
// Scans are in record-number order: the last has the largest.
template <typename Stored>
bool DenseEnough(const std::vector<Stored>& records) {
  if (records.empty()) return true;
  const std::uint64_t largest = records.back().doc;
  return largest < 2 * static_cast<std::uint64_t>(records.size()) + kDocSlack;
}

// Gives the records (in record-number order) the numbers 0, 1, 2, ... in
// the store, a durable batch at a time; a crash between batches leaves a
// sound store, renumbered again on the next open.
Status Renumber(storage::Store& store, const std::string& collection,
                const std::vector<StoredRecord>& records);

// Writes the records stored under a key that is not theirs (`stale_key`:
// a store from before collections with an agent_id field were keyed by
// owner, record_key.h) again under their keys, in one batch; they then
// carry its sequence, and their stored vectors (checked). Returns whether
// it wrote.
StatusOr<bool> Rekey(storage::Store& store, const Collection& c,
                     std::vector<StoredRecord>* records);

}  // namespace engram::engine

#endif  // ENGRAM_ENGINE_STORED_RECORDS_H_
