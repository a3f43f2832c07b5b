// A record as the engine carries it between checking and indexing
// (PreparedRecord), a metadata-only update (TouchedRecord), and the limits
// on what a record may carry.
#ifndef ENGRAM_ENGINE_PREPARED_RECORD_H_
#define ENGRAM_ENGINE_PREPARED_RECORD_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "schema/value.h"

namespace engram::engine {

// Limits on what a record may carry.
inline constexpr std::size_t kMaxRecordBytes = std::size_t{1} << 20;
inline constexpr std::size_t kMaxIdBytes = 512;

// A record checked against its collection, ready to store and index.
struct PreparedRecord {
  std::string id;
  std::string key;                 // what the store and Find know it by (record_key.h)
  std::string body;                // the record as stored: a JSON object without `vector`
  std::vector<Value> slots;        // by row_schema slot: the schema's, then the version's
  std::vector<std::string> texts;  // by text field, "" when absent
  std::vector<float> vector;       // dim values, or empty
  // The ids it supersedes (version.h), as written: same owner, resolved
  // by the write.
  std::vector<std::string> supersedes;
  // Exact dedup (dedup.h): the hash of the owner and normalised content.
  std::uint64_t content_hash = 0;
  std::size_t position = 0;  // Upsert: where the record was in the request
  // No vector was given to a collection with an embedder: the engine embeds
  // the texts (embedding.h) before the record is stored.
  bool embed = false;
  // Which indexes Apply feeds (recovery skips those whose snapshot has it).
  bool index_text = true;
  bool index_vector = true;
};

// A stored record's new body and metadata row after a metadata-only update
// (touch.h): its key, text and vector stay.
struct TouchedRecord {
  std::uint32_t doc = 0;
  std::string body;
  std::vector<Value> slots;
};

// A vector as the store keeps it: its floats' bytes in host order.
inline std::string VectorBytes(const std::vector<float>& vector) {
  std::string bytes(vector.size() * sizeof(float), '\0');
  if (!vector.empty()) std::memcpy(bytes.data(), vector.data(), bytes.size());
  return bytes;
}

}  // namespace engram::engine

#endif  // ENGRAM_ENGINE_PREPARED_RECORD_H_
