// Value covers: how a filter on graph fields (CollectionSpec::graph_fields)
// reaches the vector index's value graphs (vector/value_graphs.h). A record
// carries one key per value of each graph field (RecordKeys); a filter
// implies a cover, keys whose records hold every record it allows (Cover),
// which VectorIndex::Search may answer from the keys' graphs.
#ifndef ENGRAM_SEARCH_VALUE_COVER_H_
#define ENGRAM_SEARCH_VALUE_COVER_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "filter/ir/ir.h"
#include "schema/value.h"
#include "vector/value_graphs.h"

namespace engram::search {

// A cover of more keys than this is not worth walking graph by graph.
inline constexpr std::size_t kMaxCoverKeys = 1024;

// The key of value `v` (a string or bool; one element of a set<string>) of
// the field at `slot`.
std::string ValueKey(std::uint32_t slot, const Value& v);

// The keys of a record whose metadata row is `row`, for the graph fields at
// `graph_slots` (string, bool or set<string> fields): one per value present.
std::vector<std::string> RecordKeys(std::span<const std::uint32_t> graph_slots,
                                    const std::vector<Value>& row);

// The records of `keys` in `values`, summed (a record in two keys counts
// twice): how large a cover is.
std::size_t CoverRecords(const std::vector<std::string>& keys, const vector::ValueGraphs& values);

// Keys whose records (in `values`) together hold every record `node`
// allows, or nullopt when the filter implies none: equality and membership
// on graph fields, `and` (the child with the fewest records), `or` (every
// child's keys), false (no key). At most kMaxCoverKeys keys.
std::optional<std::vector<std::string>> Cover(const filter::Node& node,
                                              std::span<const std::uint32_t> graph_slots,
                                              const vector::ValueGraphs& values);

}  // namespace engram::search

#endif  // ENGRAM_SEARCH_VALUE_COVER_H_
