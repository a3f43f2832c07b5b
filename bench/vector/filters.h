// Filters of the vector benchmark and their exact answers. A filter keeps a
// fraction of the records (100, 50, 10, 1, 0.1 %) and is uncorrelated,
// correlated or anti-correlated with the query, so it is an allowed-set per
// query (a roaring bitmap of record numbers, as engram's retrievers take
// them). The exact filtered top-k of every (query, filter) is the ground
// truth recall is measured against; it is cached under the build directory.
#ifndef ENGRAM_BENCH_VECTOR_FILTERS_H_
#define ENGRAM_BENCH_VECTOR_FILTERS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/roaring.h"
#include "data.h"

namespace engram::bench {

enum class Correlation {
  kNone,          // 100 %: no filter at all (allowed = nullptr)
  kUncorrelated,  // a seeded random subset of the records
  kCorrelated,    // the labels most common near the query, then the nearest labels
  kAnti,          // the labels least common near the query, then the farthest labels
  kMixed,         // correlated for even query numbers, anti for odd (one workload of both)
};

struct FilterSpec {
  double fraction = 1;  // of the indexed records kept
  Correlation correlation = Correlation::kNone;

  std::string SelectivityName() const;  // "100", "50", "10", "1", "0.1" (per cent)
  std::string CorrelationName() const;  // "none", "uncorrelated", "correlated", "anti", "mixed"
  std::string Name() const;             // e.g. "10%-anti"
};

// 100 %, then 50, 10, 1 and 0.1 % each uncorrelated, correlated and anti.
std::vector<FilterSpec> StandardFilters();
// 50, 10 and 1 % mixed: run only when named (--filters), for a planner that
// learns from the searches it runs (vector/plan_costs.h) met by correlated
// and anti-correlated filters in turn rather than by one kind at a time.
std::vector<FilterSpec> MixedFilters();

struct Hit {
  std::uint32_t id = 0;
  float distance = 0;  // l2: squared; cosine: 1 - dot
};

// The ranking distance of the dataset's metric (FAISS's SIMD kernels; the
// oracle is independent of engram's code).
float TrueDistance(const Dataset& d, const float* a, const float* b);

// The exact top-k (ties by record number) of every query among its allowed
// records (allowed[q] == nullptr or an empty vector: all records), on
// `threads` threads. Cached in `cache_dir` under a key naming the dataset,
// its contents (a checksum), `tag` and k; `tag` must name the allowed-sets.
std::vector<std::vector<Hit>> ExactTopK(const Dataset& d,
                                        const std::vector<const roaring::Roaring*>& allowed,
                                        std::size_t k, std::size_t threads,
                                        const std::string& cache_dir, const std::string& tag);

// What a label-driven filter needs per dataset, computed once.
struct LabelIndex {
  std::vector<std::vector<std::uint32_t>> records;  // per label, ascending
  std::vector<float> centroids;                     // per label (normalised for cosine)
  std::vector<std::vector<Hit>> near;               // per query: unfiltered exact top `depth`
};
LabelIndex BuildLabelIndex(const Dataset& d, std::size_t depth, std::size_t threads,
                           const std::string& cache_dir);

// The allowed-set of query `q` for `spec` (unused for kNone). Deterministic in
// (seed, spec, q). Keeps max(1, round(fraction * n)) records. Correlated:
// labels ordered by how many of the query's `depth` exact neighbours carry
// them (most first), ties by distance from the query to the label's centroid
// (nearest first); whole labels are taken in that order and the last one
// partially (a seeded random subset of it). Anti: the reverse order (fewest
// neighbours first, farthest centroid first).
roaring::Roaring MakeAllowed(const Dataset& d, const LabelIndex& labels, const FilterSpec& spec,
                             std::size_t q, std::uint64_t seed);

// recall@k of `result` for query q against the exact answer `truth` (the
// best min(k, allowed) records): a returned record counts when it is allowed,
// not repeated, and no farther than the last true neighbour (with a 1e-5
// relative tolerance, so ties at that distance count, as ann-benchmarks
// does). 1 when nothing is allowed. `disallowed` is increased by the number of
// returned records outside the allowed-set.
double Recall(const Dataset& d, std::size_t q, const std::vector<std::uint32_t>& result,
              const std::vector<Hit>& truth, std::size_t k, const roaring::Roaring* allowed,
              std::size_t* disallowed);

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_VECTOR_FILTERS_H_
