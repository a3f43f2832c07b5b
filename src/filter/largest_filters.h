// The largest filters each dialect's limits allow (FILTERS.md §1.5), over
// the `memory` preset's fields, built to be the worst cases for the
// optimiser and the metadata index: the widest junctions of membership tests
// on one field (what fold_contradictions once checked pairwise, cubic in the
// filter's size), the most `contains` leaves (each once a scan and fold of
// every distinct value), the longest literal lists and the deepest nesting.
// For tests (compiler_test.cc: each compiles and keeps its meaning) and the
// bounds benchmark (bench/bounds: each over 1M records). Session ids are
// "s<n>", titles words of kLargestFilterWords, as the benchmark's records.
#ifndef ENGRAM_FILTER_LARGEST_FILTERS_H_
#define ENGRAM_FILTER_LARGEST_FILTERS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "filter/dialects/dialect.h"

namespace engram::filter {

inline const std::vector<std::string> kLargestFilterWords = {
    "alpha", "bravo",  "cache",  "delta",  "error",  "fetch",  "graph", "heap",
    "index", "json",   "kernel", "lambda", "merge",  "node",   "order", "parse",
    "query", "render", "schema", "token",  "update", "vector", "write", "yield"};

struct LargestFilter {
  std::string name;
  Dialect dialect;
  std::string text;
};

namespace largest_filters_detail {

inline std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

inline std::string Quoted(const std::string& s) {
  return "\"" + s + "\"";
}

// `n` session ids, all holding "s0" so that the lists intersect, the rest
// spread over s1..s999 by a fixed stride from `start`.
inline std::vector<std::string> Sessions(std::size_t n, std::size_t start) {
  std::vector<std::string> out{Quoted("s0")};
  for (std::size_t i = 1; i < n; ++i)
    out.push_back(Quoted("s" + std::to_string(1 + (start + i * 37) % 999)));
  return out;
}

// A needle of `bytes` bytes cut from the words (wrapping across them).
inline std::string Needle(std::size_t i, std::size_t bytes) {
  const std::string& w = kLargestFilterWords[i % kLargestFilterWords.size()];
  const std::string& v = kLargestFilterWords[(i * 7 + 3) % kLargestFilterWords.size()];
  const std::string text = w + " " + v;
  return text.substr(i % 3, bytes);
}

// `innermost` wrapped in `depth` levels: level(d, inner) builds level d.
template <typename Level>
std::string Nest(std::size_t depth, const std::string& innermost, Level level) {
  std::string s = innermost;
  for (std::size_t d = 0; d < depth; ++d) s = level(d, s);
  return s;
}

}  // namespace largest_filters_detail

inline std::vector<LargestFilter> LargestFilters() {
  using namespace largest_filters_detail;  // NOLINT(google-build-using-namespace)
  std::vector<LargestFilter> out;
  // vector_filter: depth 16, 256 nodes, arrays of 1024, 64 KiB of text.
  {
    std::vector<std::string> leaves;
    for (std::size_t i = 0; i < 255; ++i) {
      leaves.push_back(R"({"session_id":{"$in":[)" + Join(Sessions(30, i)) + "]}}");
    }
    out.push_back({"vector_filter: $and of 255 $in of 30 on one field", Dialect::kVectorFilter,
                   R"({"$and":[)" + Join(leaves) + "]}"});
    std::vector<std::string> mixed;
    for (std::size_t i = 0; i < 255; ++i) {
      mixed.push_back(i % 3 == 0   ? R"({"session_id":{"$nin":[)" + Join(Sessions(20, i)) + "]}}"
                      : i % 3 == 1 ? R"({"sequence_order":{"$gte":)" + std::to_string(i) + "}}"
                                   : R"({"session_id":{"$ne":"s)" + std::to_string(i) + "\"}}");
    }
    out.push_back({"vector_filter: $and of 255 $nin/$gte/$ne on two fields", Dialect::kVectorFilter,
                   R"({"$and":[)" + Join(mixed) + "]}"});
    out.push_back({"vector_filter: one $in of 1024", Dialect::kVectorFilter,
                   R"({"session_id":{"$in":[)" + Join(Sessions(1024, 0)) + "]}}"});
    // Depth 16: 15 junctions, each with a nested one and 16 leaves (255 nodes).
    out.push_back({"vector_filter: depth 16, 256 nodes", Dialect::kVectorFilter,
                   Nest(15, R"({"tool":"t0"})", [](std::size_t d, const std::string& inner) {
                     std::vector<std::string> kids{inner};
                     for (std::size_t i = 0; i < 16; ++i) {
                       kids.push_back(R"({"sequence_order":{"$lt":)" + std::to_string(d * 16 + i) +
                                      "}}");
                     }
                     return std::string(d % 2 ? R"({"$and":[)" : R"({"$or":[)") + Join(kids) + "]}";
                   })});
  }
  // retrieve: depth 16, 256 nodes.
  {
    std::vector<std::string> leaves;
    for (std::size_t i = 0; i < 255; ++i) {
      leaves.push_back(R"({"op":"in","needle":{"knowledge":"session_id"},"haystack":{"value":[)" +
                       Join(Sessions(20, i)) + "]}}");
    }
    out.push_back({"retrieve: and of 255 in of 20 on one field", Dialect::kRetrieve,
                   R"({"op":"and","args":[)" + Join(leaves) + "]}"});
    out.push_back(
        {"retrieve: depth 16, 256 nodes", Dialect::kRetrieve,
         Nest(15, R"({"op":"eq","lhs":{"knowledge":"tool"},"rhs":{"value":"t0"}})",
              [](std::size_t d, const std::string& inner) {
                std::vector<std::string> kids{inner};
                for (std::size_t i = 0; i < 16; ++i) {
                  kids.push_back(
                      R"({"op":"ge","lhs":{"knowledge":"sequence_order"},"rhs":{"value":)" +
                      std::to_string(d * 16 + i) + "}}");
                }
                return std::string(R"({"op":")") + (d % 2 ? "and" : "or") + R"(","args":[)" +
                       Join(kids) + "]}";
              })});
  }
  // expr_v1: depth 8, 128 nodes, in lists of 128, strings of 512 bytes.
  for (std::size_t bytes : {2, 5}) {
    std::vector<std::string> leaves;
    for (std::size_t i = 0; i < 127; ++i) {
      leaves.push_back(R"({"op":"contains","field":"title","value":)" + Quoted(Needle(i, bytes)) +
                       "}");
    }
    out.push_back(
        {"expr_v1: or of 127 contains of " + std::to_string(bytes) + " bytes", Dialect::kExprV1,
         R"({"schema":"search_filter_expr/v1","expr":{"op":"or","args":[)" + Join(leaves) + "]}}"});
  }
  {
    std::vector<std::string> leaves;
    for (std::size_t i = 0; i < 127; ++i) {
      leaves.push_back(R"({"op":"in","field":"session_id","value":[)" + Join(Sessions(64, i)) +
                       "]}");
    }
    out.push_back({"expr_v1: and of 127 in of 64 on one field", Dialect::kExprV1,
                   R"({"schema":"search_filter_expr/v1","expr":{"op":"and","args":[)" +
                       Join(leaves) + "]}}"});
    // Depth 8: 7 junctions, each with a nested one and 17 leaves (127 nodes).
    out.push_back({"expr_v1: depth 8, 127 nodes", Dialect::kExprV1,
                   R"({"schema":"search_filter_expr/v1","expr":)" +
                       Nest(7, R"({"op":"eq","field":"tool","value":"t0"})",
                            [](std::size_t d, const std::string& inner) {
                              std::vector<std::string> kids{inner};
                              for (std::size_t i = 0; i < 17; ++i) {
                                kids.push_back(R"({"op":"contains","field":"title","value":)" +
                                               Quoted(Needle(d * 17 + i, 3 + i % 3)) + "}");
                              }
                              return std::string(R"({"op":")") + (d % 2 ? "and" : "or") +
                                     R"(","args":[)" + Join(kids) + "]}";
                            }) +
                       "}"});
  }
  // search_memory: 32 entries (ANDed), any_of of 1..100 values.
  {
    std::vector<std::string> contains, any_of;
    for (std::size_t i = 0; i < 32; ++i) {
      contains.push_back(R"({"field":")" + std::string(i % 2 ? "title" : "context") +
                         R"(","operator":"contains","value":)" + Quoted(Needle(i, 1 + i % 4)) +
                         "}");
      any_of.push_back(R"({"field":"session_id","operator":"any_of","value":[)" +
                       Join(Sessions(100, i)) + "]}");
    }
    out.push_back(
        {"search_memory: 32 contains", Dialect::kSearchMemory, "[" + Join(contains) + "]"});
    out.push_back({"search_memory: 32 any_of of 100 on one field", Dialect::kSearchMemory,
                   "[" + Join(any_of) + "]"});
  }
  return out;
}

}  // namespace engram::filter

#endif  // ENGRAM_FILTER_LARGEST_FILTERS_H_
