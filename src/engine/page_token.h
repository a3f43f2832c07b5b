// The page token of List (listing.h, Google AIP-158): the position after a
// page's last record (its order value and record key: keyset pagination)
// and a fingerprint of the query it belongs to, as opaque text (hex of a
// small JSON document). A token is not a capability: positioning a listing
// anywhere reveals nothing the caller could not list, so it is not signed.
#ifndef ENGRAM_ENGINE_PAGE_TOKEN_H_
#define ENGRAM_ENGINE_PAGE_TOKEN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "schema/value.h"

namespace engram::engine {

struct PageToken {
  std::uint64_t query = 0;  // QueryFingerprint of the listing
  Value value;              // the last record's order value (monostate: absent, or no field)
  std::string key;          // the last record's key
};

// A 64-bit FNV-1a hash of `parts`, each delimited (so ("ab","c") != ("a","bc")).
std::uint64_t QueryFingerprint(std::initializer_list<std::string_view> parts);

std::string EncodePageToken(const PageToken& token);
// nullopt when `text` is not a token of a field of `type` (nullopt: ordered
// by key alone, the value then absent).
std::optional<PageToken> DecodePageToken(std::string_view text, std::optional<FieldType> type);

}  // namespace engram::engine

#endif  // ENGRAM_ENGINE_PAGE_TOKEN_H_
