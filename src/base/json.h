// Strict JSON reading for everything users send engram: filters, schemas,
// records, requests.
//
// Values are nlohmann::ordered_json (members keep their order, and the
// int/float class of every number is kept: an integer lexeme that fits int64
// is number_integer, anything with a fraction or exponent is number_float).
// The reader is stricter than JSON's RFC and than nlohmann's default: it
// rejects duplicate keys, integers outside int64, numbers too large for a
// double, nesting beyond a limit and oversized input, and reports each with
// the path where it happened. Invalid UTF-8, lone surrogates, NaN and Infinity
// are syntax errors, reported with line and column.
#ifndef ENGRAM_BASE_JSON_H_
#define ENGRAM_BASE_JSON_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/path.h"

namespace engram::json {

using Value = nlohmann::ordered_json;

struct ReadOptions {
  std::size_t max_bytes = std::size_t{64} * 1024;  // 0: unlimited
  std::size_t max_depth = 64;                      // containers nested deeper are rejected
  // Duplicate keys and out-of-range numbers do not stop reading: they are
  // listed in ReadResult::deferred (document order), the first value of a
  // duplicated key is kept and an out-of-range number reads as null. For
  // callers that must report the first error of a larger check in document
  // order (FILTERS.md §1.4).
  bool defer_value_faults = false;
};

enum class ReadFault {
  kSyntax,            // not JSON: syntax, invalid UTF-8, lone surrogate, NaN...
  kTooDeep,           // nesting beyond ReadOptions::max_depth
  kTooLarge,          // input longer than ReadOptions::max_bytes
  kDuplicateKey,      // an object names the same member twice
  kNumberOutOfRange,  // an integer outside int64, or beyond a double's range
};

struct ReadError {
  ReadFault fault;
  Path path;           // the offending member or value (root for kSyntax/kTooLarge)
  std::string detail;  // e.g. "invalid literal; last read: 'NaN' at line 1, column 9"
  std::string token;   // the duplicate key, or the out-of-range number's lexeme
};

struct ReadResult {
  Value value;
  std::optional<ReadError> error;
  std::vector<ReadError> deferred;  // with defer_value_faults, in document order
  bool ok() const { return !error.has_value(); }
};

// Parses `text` as one JSON document under `options`.
ReadResult Read(std::string_view text, const ReadOptions& options = {});

// Whether the value at path `a` comes before the one at `b` in a pre-order,
// left-to-right walk of `doc` (members in document order; an ancestor before
// its descendants; a path that does not exist in `doc` after its siblings
// that do). Equal paths do not precede each other.
bool PrecedesInDocument(const Value& doc, const Path& a, const Path& b);

// The JSON type name of `v` as users see it: null, bool, int, float, string,
// array, object.
std::string_view TypeName(const Value& v);

// Compact serialisation, UTF-8 kept as is.
std::string Dump(const Value& v);

// The non-negative integer `v` holds (a count or size), or nullopt for
// anything else: get<std::size_t>() of a float or a negative number would
// convert it out of range (undefined behaviour), so counts read from files
// and clients go through here.
std::optional<std::uint64_t> CountOf(const Value& v);
// CountOf for what engram stored itself: anything else throws
// Value::type_error, as get<>() does for a wrong type.
std::uint64_t GetCount(const Value& v);

}  // namespace engram::json

#endif  // ENGRAM_BASE_JSON_H_
