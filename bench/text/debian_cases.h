// The Debian benchmark's fixed inputs (bench/text/text_benchmark.cc): the
// seeded query set drawn from package descriptions, and the filter cases of
// the filtered top-10 table in engram's vector_filter dialect and Xapian's
// form, with the schema they are compiled against.
#ifndef ENGRAM_BENCH_TEXT_DEBIAN_CASES_H_
#define ENGRAM_BENCH_TEXT_DEBIAN_CASES_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data.h"
#include "schema/schema.h"

namespace engram::bench {

// The fixed query set: with a 64-bit Mersenne Twister seeded with `seed`,
// draw a package uniformly; take the words of its description (`text`) that
// are runs of 3 or more ASCII letters, lower-cased, not English stopwords,
// distinct; if there are fewer than 3, draw again; pick 1, 2 or 3 of them
// (uniformly) in random order, joined by spaces. Only raw engine outputs
// (`% n`) are used, so the set is the same with any standard library.
std::vector<std::string> MakeDebianQueries(const std::vector<Package>& pkgs, std::size_t n,
                                           std::uint64_t seed);

struct FilterCase {
  std::string field;
  std::string target;                     // the aimed-at selectivity
  std::string filter;                     // vector_filter text, compiled by engram
  std::vector<std::string> xapian_terms;  // OR of boolean terms, or
  std::int64_t xapian_min_size = -1;      // installed_size_kib >= this (value slot 0)
};

// Filters on section, tags and installed_size_kib at about 50 %, 5 % and
// 0.5 % of the packages.
std::vector<FilterCase> DebianFilters();

// section, priority (string), installed_size_kib (int), tags (set<string>),
// all optional.
std::shared_ptr<const Schema> DebianSchema();

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_TEXT_DEBIAN_CASES_H_
