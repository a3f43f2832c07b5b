// Listing, counting and faceting a collection's records (engine.h's List,
// Count and Facets): the requests and responses. Each reads only what the
// caller sees (its scope, unexpired records), under a filter, within the
// request's bounds.
#ifndef ENGRAM_LISTING_H_
#define ENGRAM_LISTING_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engram/diagnostic.h"
#include "engram/filter.h"
#include "engram/request.h"

namespace engram {

// Limits on one request.
inline constexpr std::size_t kMaxPageSize = 1000;
inline constexpr std::size_t kDefaultPageSize = 50;
inline constexpr std::size_t kMaxFacetTop = 1000;
inline constexpr std::size_t kDefaultFacetTop = 10;
inline constexpr std::size_t kMaxFacetRanges = 100;
inline constexpr std::size_t kMaxPageTokenBytes = 4096;

// What List, Count and Facets read: the caller's visible records passing the filter.
struct RecordSelection {
  std::optional<Scope> scope;  // nullopt: unscoped (the store's owner)
  std::optional<FilterDialect> dialect;
  std::string filter;  // in `dialect` (default vector_filter); empty: none
  // The records current at this instant (engine.h, Superseded; RFC 3339 or
  // a date); empty: the current records. A bad one is `rejected` at as_of.
  std::string as_of = {};
};

// One page of records in a total order (Google AIP-158). `order_by` names a
// field of the schema (int, float, string, bool or datetime), optionally
// followed by `:asc` (the default) or `:desc`; empty: the record time (the
// collection's time_field, newest first; by id without one). Records without
// the field come last; ties go by record key (agent and id). The page token
// is opaque, holds the position after the page's last record (keyset
// pagination) and is bound to the query: used with another filter, dialect,
// order, scope, as_of or collection it is refused (`rejected`, path page_token).
// Because the position is a key, not an offset, a listing under concurrent
// writes never shows a record twice nor skips one that existed, unchanged,
// for the whole listing.
struct ListRequest {
  RecordSelection selection;
  std::string order_by;
  std::size_t page_size = kDefaultPageSize;  // in [1, kMaxPageSize]
  std::string page_token;                    // empty: the first page
  RequestBounds bounds;                      // a page ends early (with a token) at the reply budget
};

struct ListedRecord {
  std::string id;
  std::string record;  // the stored record as a JSON object (without its vector)
};

struct ListResponse {
  std::vector<ListedRecord> records;
  std::string next_page_token;  // empty on the last page
  std::optional<Diagnostic> rejected;
};

struct CountResponse {
  std::uint64_t count = 0;
  std::optional<Diagnostic> rejected;
};

// A range of a numeric or datetime field: from <= value < to, either side
// open when absent; bounds are literals of the field's type as text (a
// number, or an RFC 3339 datetime or date).
struct FacetRange {
  std::optional<std::string> from;
  std::optional<std::string> to;
};

// Facets of one field over the selected records: for a string, bool or
// set<string> field the `top` most frequent values (elements of a set) with
// their counts, most frequent first (ties by value); for an int, float or
// datetime field the count in each of `ranges` (required there, refused
// elsewhere).
struct FacetRequest {
  RecordSelection selection;
  std::string field;
  std::size_t top = kDefaultFacetTop;  // in [1, kMaxFacetTop]
  std::vector<FacetRange> ranges;      // at most kMaxFacetRanges
  RequestBounds bounds;
};

struct FacetValue {
  std::string value;  // JSON text: a string or a bool
  std::uint64_t count = 0;
};

struct FacetRangeCount {
  FacetRange range;
  std::uint64_t count = 0;
};

struct FacetResponse {
  std::string field;
  std::vector<FacetValue> values;       // string, bool, set<string> fields
  std::vector<FacetRangeCount> ranges;  // int, float, datetime fields
  std::optional<Diagnostic> rejected;
};

}  // namespace engram

#endif  // ENGRAM_LISTING_H_
