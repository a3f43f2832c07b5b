// The generated workload of the bounds benchmark (issue 18): `memory` preset
// records (seeded) whose text draws from a Zipf-distributed vocabulary of
// pseudo-words, and the worst-case requests at every limit: the longest
// queries, the most prefixes the expansion cap allows (and one past it), the
// largest filters of each dialect (filter/largest_filters.h), and k = 1000
// over 1 MB records for the reply budget.
#ifndef ENGRAM_BENCH_BOUNDS_WORKLOAD_H_
#define ENGRAM_BENCH_BOUNDS_WORKLOAD_H_

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engram/engine.h"

namespace engram::bench {

class Workload {
 public:
  // `vocabulary` distinct pseudo-words (2-4 syllables of lower-case ASCII),
  // ranked; word r is drawn with probability proportional to 1 / (r + 1).
  Workload(std::uint64_t seed, std::size_t vocabulary);

  // The JSON text of memory record `i` (the `memory` preset; no vector):
  // memory_id a seeded UUID, session_id "s<n>" (n < 1000), tool "t<n>" (n <
  // 8), agent_id "agent<n>" (n < 100), title two words of
  // kLargestFilterWords and one of the vocabulary, context three, content
  // 20-60 vocabulary words, sequence_order, timestamp 30 s apart from
  // 2025-01-01. Records of one i are the same for one seed.
  std::string Record(std::size_t i);

  // `n` vocabulary words, most frequent first.
  std::vector<std::string> TopWords(std::size_t n) const;
  // The three-letter prefixes of the vocabulary, by how many draws their
  // words take (most first), with how many words each matches, taken while
  // the words stay within `cap`: the heaviest prefix query the cap allows.
  // *next is the next prefix (the one that would pass the cap).
  std::vector<std::string> HeaviestPrefixes(std::size_t cap, std::string* next) const;

 private:
  const std::string& Draw(std::mt19937_64& rng) const;

  std::uint64_t seed_;
  std::vector<std::string> words_;  // by rank
  std::vector<double> cdf_;         // Zipf, by rank
};

// A request of the benchmark: a search on one collection.
struct Case {
  std::string name;
  std::string limit;  // which limit it stands at ("query 1000 chars", ...)
  SearchRequest request;
};

// The worst cases at every limit over the memory collection.
std::vector<Case> WorstCases(const Workload& workload);

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_BOUNDS_WORKLOAD_H_
