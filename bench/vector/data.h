// The vector sets of the filtered-search benchmark (bench/vector): real SIFT
// descriptors, fastText document vectors of the Debian packages, and seeded
// synthetic Gaussian mixtures. Every set comes with held-out queries and a
// label per record (k-means cluster, Debian section, mixture component) from
// which the correlated and anti-correlated filters are made (filters.h).
#ifndef ENGRAM_BENCH_VECTOR_DATA_H_
#define ENGRAM_BENCH_VECTOR_DATA_H_

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace engram::bench {

struct Dataset {
  std::string name;         // "sift5k", "fasttext", "synthetic-100k", "synthetic-1m"
  std::string description;  // one sentence for the report: source, sizes, how queries were made
  std::size_t dim = 0;
  // cosine: the vectors are normalised here, and every system ranks by
  // 1 - dot (engram kCosine, FAISS and hnswlib inner product); otherwise l2.
  bool cosine = false;
  std::vector<float> base;            // n x dim, row-major; record number = row
  std::vector<float> queries;         // nq x dim
  std::vector<std::uint32_t> labels;  // per base record, in [0, num_labels)
  std::size_t num_labels = 0;
  std::vector<std::string> label_names;  // may be empty (then "cluster <i>")

  std::size_t n() const { return dim == 0 ? 0 : base.size() / dim; }
  std::size_t nq() const { return dim == 0 ? 0 : queries.size() / dim; }
  const float* row(std::size_t i) const { return base.data() + i * dim; }
  const float* query(std::size_t i) const { return queries.data() + i * dim; }
};

// std::mt19937_64 with the few draws the benchmark needs, computed from raw
// engine outputs only (the standard fixes those, not its distributions), so
// every standard library makes the same sets.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}
  std::uint64_t Next() { return engine_(); }
  double Uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }  // [0, 1)
  double Uniform(double lo, double hi) { return lo + (hi - lo) * Uniform(); }
  double Normal();  // Box-Muller
  std::size_t Below(std::size_t n) { return static_cast<std::size_t>(engine_() % n); }

 private:
  std::mt19937_64 engine_;
  bool has_spare_ = false;
  double spare_ = 0;
};

// sift5k: ../shared/data/sift5k/base.tsv (5,000 SIFT descriptors). The 3
// published queries are too few, so `num_queries` base rows chosen at random
// (seeded) are held out as queries and the other rows indexed, renumbered
// 0.. in file order. Labels: k-means (`clusters` centres, seeded, 10 Lloyd
// iterations) on the indexed rows.
Dataset LoadSift(const std::string& data_dir, std::size_t num_queries, std::size_t clusters,
                 std::uint64_t seed);

// fastText document vectors written by prepare_fasttext.sh: one line per
// Debian package, `section<TAB>v1 v2 ... vd`. `num_queries` random lines
// (seeded) are held out as queries. Lines whose vector is zero or not finite
// are dropped (counted in the description). Vectors are normalised (cosine).
Dataset LoadFastText(const std::string& path, std::size_t num_queries, std::uint64_t seed);

// The synthetic set: a mixture of `components` Gaussians in `dim` dimensions.
// Centre j has coordinates uniform in [-1, 1]; its spread sigma_j is uniform
// in [0.10, 0.30] (the same in every dimension); its weight is proportional to
// w_j uniform in [0.5, 1.5]. A point picks a component by weight and adds
// N(0, sigma_j^2) noise per coordinate. Queries are further draws from the
// same mixture. Label = component. Everything from one Rng(seed).
Dataset MakeSynthetic(std::string name, std::size_t n, std::size_t dim, std::size_t components,
                      std::size_t num_queries, std::uint64_t seed);

// Seeded k-means (init: distinct random rows; `iterations` Lloyd steps);
// returns the cluster of each row.
std::vector<std::uint32_t> KMeans(const std::vector<float>& rows, std::size_t dim, std::size_t k,
                                  std::size_t iterations, std::uint64_t seed);

// Normalises each row of `v` to unit length (rows of zero norm untouched).
void NormaliseRows(std::vector<float>& v, std::size_t dim);

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_VECTOR_DATA_H_
