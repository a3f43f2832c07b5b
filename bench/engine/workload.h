// The Debian workload of the end-to-end engine benchmark: the packages of
// ../shared/data/debian with their fastText document vectors
// (bench/vector/prepare_fasttext.sh), the records as the JSON texts a user
// hands to Engine::Upsert, the seeded queries, and the filters at ~50 %, ~5 %
// and ~0.5 % selectivity with a predicate that checks every hit on our side.
#ifndef ENGRAM_BENCH_ENGINE_WORKLOAD_H_
#define ENGRAM_BENCH_ENGINE_WORKLOAD_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "text/data.h"

namespace engram::bench {

struct Workload {
  std::vector<Package> packages;            // file order
  std::vector<std::vector<float>> vectors;  // per package, `dim` values (not normalised)
  std::vector<std::string> vector_json;     // per package, the vector as a JSON array text
  std::size_t dim = 0;
  // Packages whose vector was zero or not finite: given the mean of the others.
  std::size_t replaced_vectors = 0;
};

// Reads packages.jsonl.gz and the `section<TAB>v1 ... vd` file made by
// prepare_fasttext.sh (one line per package, same order). Throws
// std::runtime_error when they cannot be read or disagree in count.
Workload LoadWorkload(const std::string& packages_path, const std::string& vectors_path);

// The record of package `i`: {"id", "title", "text", "section", "tags",
// "installed_size_kib"} plus "vector" when `with_vector`.
std::string RecordJson(const Workload& w, std::size_t i, bool with_vector);

// The collection the benchmarks write the packages to, and its schema (the
// metadata fields above).
inline constexpr const char* kDebianCollection = "debian";
constexpr const char* kDebianSchema = R"({"fields":[
  {"name":"section","type":"string","optional":true},
  {"name":"tags","type":"set<string>","optional":true},
  {"name":"installed_size_kib","type":"int","optional":true}]})";

struct BenchQuery {
  std::size_t package = 0;    // the package it was made from
  std::string text;           // 3-5 consecutive content words of its description
  std::vector<float> vector;  // its fastText vector
};

// `n` distinct packages drawn with std::mt19937_64(seed); the words are
// lower-cased runs of a-z of at least 3 letters, minus a few stop words,
// starting at a seeded position. Packages with fewer than 3 such words are
// skipped (another is drawn).
std::vector<BenchQuery> MakeQueries(const Workload& w, std::size_t n, std::uint64_t seed);

struct FilterCase {
  std::string name;    // "none", "~50 %", ...
  std::string filter;  // vector_filter JSON; empty for none
  std::function<bool(const Package&)> passes;
};

// none; installed_size_kib < 230 (~50 %); section "devel" (~5 %); tags
// contains "use::configuring" (~0.5 %). One field type each: int range,
// string equality, set<string> membership.
std::vector<FilterCase> Filters();

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_ENGINE_WORKLOAD_H_
