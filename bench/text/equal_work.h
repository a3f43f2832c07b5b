// What makes the full-text comparison equal work (issue 21): every engine is
// given the terms engram's query parser keeps, under one of two semantics,
// and its top-k is compared with engram's under the same semantics.
//   - kEngram: the bare-word semantics of QUERY_DSL.md §3: the AND of the
//     terms; when fewer than k documents match all of them, the places left
//     are filled, best first, by documents matching some (the OR), strict
//     hits ahead of partial ones.
//   - kOr: the plain OR of the terms, ranked by BM25 (engram is asked for it
//     through the DSL's OR operator: `t1 OR t2 OR t3`).
#ifndef ENGRAM_BENCH_TEXT_EQUAL_WORK_H_
#define ENGRAM_BENCH_TEXT_EQUAL_WORK_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "text/index/options.h"
#include "text/query/ast.h"

namespace engram::bench {

enum class Semantics { kEngram, kOr };

// "engram" or "OR", as the tables print it.
std::string_view SemanticsName(Semantics s);

// The terms of a parsed default-profile query as the parser kept them
// (lower-cased, stripped, stopwords removed in bare-word mode), in order,
// less those whose stem under `stemmer` an earlier one has: engram scores
// each distinct stemmed term once (text/rank/plan.h), so a peer given a
// repeated term would weigh it twice. Its root must be one term or an AND or
// OR of terms (a bare-word query, or the OR form below). Throws
// std::runtime_error for anything else (phrases, prefixes, NOT, nesting) and
// for an empty query.
std::vector<std::string> QueryTerms(const text::DefaultQuery& query, text::Stemmer stemmer);

// The DSL text that asks engram for the plain OR of `terms`: `t1 OR t2 ...`
// (a single term alone). `terms` must be words QueryTerms returned.
std::string OrQueryText(const std::vector<std::string>& terms);

// engram's relaxation applied to a peer's results: `strict` (the AND's top-k)
// followed by the documents of `partial` (the OR's top-k) that are not in
// `strict`, in order, until there are k.
std::vector<std::uint32_t> FillFromPartial(std::vector<std::uint32_t> strict,
                                           const std::vector<std::uint32_t>& partial,
                                           std::size_t k);

// How often two engines' top-k lists are the same: as sets of ids, and as
// sequences (same ids in the same order); and how many ids they share.
struct Agreement {
  std::size_t queries = 0;
  std::size_t same_set = 0;
  std::size_t same_order = 0;
  std::size_t shared = 0;  // ids in both lists, summed over the queries
  void Add(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b);
  // "97.3 % / 91.0 %" (set / order), or "—" with no queries.
  std::string Format() const;
  // The mean number of shared ids a query ("9.4"), or "—".
  std::string FormatShared() const;
};

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_TEXT_EQUAL_WORK_H_
