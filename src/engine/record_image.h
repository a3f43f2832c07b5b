// The records image: what a checkpoint keeps of each live record besides its
// stored body and texts, so that reopening takes the checked form of a
// record as it is instead of parsing its body again (issue 18: reopening a
// store of a million records was mostly parsing their JSON). It holds, per
// record, its number, its id, its metadata row (the values Collection::Reload
// would read from the body, the version slots included) and its content hash
// (exact dedup; 0 otherwise). The store stays the truth: recovery takes a
// record from the image only when the store's copy is not newer than the
// image (recovery.cc), and parses it otherwise. So an image of sequence S
// may hold each record as it was at any moment from S on (a checkpoint
// encodes it in chunks, releasing the lock between them): a record that
// changed after S is newer in the store than the image, and is parsed.
//
// The image, little-endian, varints as LEB128 (base/bytes.h):
//   "ENGRMREC" u32 version
//   varint F, F x u8 field type (the row schema's, in slot order)
//   varint count, count x (varint doc [the first as is, then the gap, >= 1],
//          string id, F x (u8 kind [0 absent, else the Value alternative of
//          the field's type], value), u64 content hash)
//   values: bool u8 0|1; int and datetime zigzag varint (datetime: micros);
//           float f64 (finite); string: string; set<string>: varint n,
//           n x string (strictly ascending)
//   u64 FNV-1a of everything before.
// ReadRecordImage checks the checksum, that the field types are the row
// schema's, and every value's form (valid UTF-8, ids of 1 to kMaxIdBytes
// bytes, numbers below doc_limit), and each count against the bytes left
// before allocating for it; an image that fails is Corruption, and recovery
// then parses every record.
#ifndef ENGRAM_ENGINE_RECORD_IMAGE_H_
#define ENGRAM_ENGINE_RECORD_IMAGE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/bytes.h"
#include "engram/status.h"
#include "schema/schema.h"
#include "schema/value.h"

namespace engram::engine {

// One record as the image keeps it.
struct ImagedRecord {
  std::uint32_t doc = 0;
  std::string id;
  std::vector<Value> slots;  // by row schema slot
  std::uint64_t content_hash = 0;
};

// Writes an image: Add each record in ascending record number, then Finish.
class RecordImageWriter {
 public:
  explicit RecordImageWriter(const Schema& row_schema);
  void Add(std::uint32_t doc, std::string_view id, const std::vector<Value>& slots,
           std::uint64_t content_hash);
  std::string Finish() &&;

 private:
  const Schema* schema_;
  ByteWriter records_;  // the records, after the header Finish writes
  std::size_t count_ = 0;
  std::uint32_t previous_ = 0;
};

// The records of an image written for `row_schema`, in ascending record
// number, each below `doc_limit`; Corruption naming what is wrong otherwise.
StatusOr<std::vector<ImagedRecord>> ReadRecordImage(std::string_view bytes,
                                                    const Schema& row_schema,
                                                    std::uint32_t doc_limit);

}  // namespace engram::engine

#endif  // ENGRAM_ENGINE_RECORD_IMAGE_H_
