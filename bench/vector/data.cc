#include "data.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

#include <fmt/core.h>

namespace engram::bench {
namespace {

// Parses whitespace-separated floats from `p` until the end of the line.
std::vector<float> ParseFloats(const char* p) {
  std::vector<float> out;
  for (;;) {
    char* end = nullptr;
    float x = std::strtof(p, &end);
    if (end == p) break;
    out.push_back(x);
    p = end;
  }
  return out;
}

// The first `count` entries of a seeded random permutation of [0, n).
std::vector<std::size_t> Sample(std::size_t n, std::size_t count, Rng& rng) {
  std::vector<std::size_t> idx(n);
  for (std::size_t i = 0; i < n; ++i) idx[i] = i;
  for (std::size_t i = 0; i < count && i < n; ++i) std::swap(idx[i], idx[i + rng.Below(n - i)]);
  idx.resize(std::min(count, n));
  return idx;
}

// Moves the rows `held` (in that order) to the queries, keeps the rest as the
// base in their original order.
void HoldOut(const std::vector<float>& rows, std::size_t dim, const std::vector<std::size_t>& held,
             std::vector<char>* is_query, Dataset& d) {
  const std::size_t n = rows.size() / dim;
  is_query->assign(n, 0);
  for (std::size_t h : held) {
    (*is_query)[h] = 1;
    d.queries.insert(d.queries.end(), rows.begin() + h * dim, rows.begin() + (h + 1) * dim);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!(*is_query)[i])
      d.base.insert(d.base.end(), rows.begin() + i * dim, rows.begin() + (i + 1) * dim);
  }
}

float L2(const float* a, const float* b, std::size_t dim) {
  float s = 0;
  for (std::size_t i = 0; i < dim; ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return s;
}

}  // namespace

double Rng::Normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  // Box-Muller (Box and Muller, 1958): two uniforms give two independent normals.
  double u1 = 1.0 - Uniform();  // (0, 1]: log is finite
  double u2 = Uniform();
  double r = std::sqrt(-2.0 * std::log(u1));
  spare_ = r * std::sin(2 * std::numbers::pi * u2);
  has_spare_ = true;
  return r * std::cos(2 * std::numbers::pi * u2);
}

void NormaliseRows(std::vector<float>& v, std::size_t dim) {
  for (std::size_t i = 0; i + dim <= v.size(); i += dim) {
    double s = 0;
    for (std::size_t j = 0; j < dim; ++j) s += double{v[i + j]} * v[i + j];
    if (s <= 0) continue;
    auto inv = static_cast<float>(1.0 / std::sqrt(s));
    for (std::size_t j = 0; j < dim; ++j) v[i + j] *= inv;
  }
}

std::vector<std::uint32_t> KMeans(const std::vector<float>& rows, std::size_t dim, std::size_t k,
                                  std::size_t iterations, std::uint64_t seed) {
  const std::size_t n = rows.size() / dim;
  Rng rng(seed);
  std::vector<float> centres;
  for (std::size_t i : Sample(n, k, rng)) {
    centres.insert(centres.end(), rows.begin() + i * dim, rows.begin() + (i + 1) * dim);
  }
  k = centres.size() / dim;
  std::vector<std::uint32_t> assign(n, 0);
  for (std::size_t it = 0; it <= iterations; ++it) {
    for (std::size_t i = 0; i < n; ++i) {
      float best = std::numeric_limits<float>::infinity();
      for (std::size_t c = 0; c < k; ++c) {
        float d = L2(rows.data() + i * dim, centres.data() + c * dim, dim);
        if (d < best) best = d, assign[i] = static_cast<std::uint32_t>(c);
      }
    }
    if (it == iterations) break;
    std::vector<double> sum(k * dim, 0);
    std::vector<std::size_t> count(k, 0);
    for (std::size_t i = 0; i < n; ++i) {
      ++count[assign[i]];
      for (std::size_t j = 0; j < dim; ++j) sum[assign[i] * dim + j] += rows[i * dim + j];
    }
    for (std::size_t c = 0; c < k; ++c) {
      if (count[c] == 0) continue;  // an empty cluster keeps its centre
      for (std::size_t j = 0; j < dim; ++j) {
        centres[c * dim + j] = static_cast<float>(sum[c * dim + j] / static_cast<double>(count[c]));
      }
    }
  }
  return assign;
}

Dataset LoadSift(const std::string& data_dir, std::size_t num_queries, std::size_t clusters,
                 std::uint64_t seed) {
  const std::string path = data_dir + "/sift5k/base.tsv";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  const std::size_t dim = 128;
  std::vector<float> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<float> v = ParseFloats(line.c_str());
    if (v.size() != dim + 1) throw std::runtime_error(fmt::format("{}: {} fields", path, v.size()));
    rows.insert(rows.end(), v.begin(), v.begin() + dim);  // the last field is the id
  }
  Dataset d;
  d.name = "sift5k";
  d.dim = dim;
  Rng rng(seed);
  std::vector<char> is_query;
  HoldOut(rows, dim, Sample(rows.size() / dim, num_queries, rng), &is_query, d);
  d.labels = KMeans(d.base, dim, clusters, 10, seed + 1);
  d.num_labels = clusters;
  d.description = fmt::format(
      "SIFT descriptors (../shared/data/sift5k, from yahoojapan/NGT, Apache-2.0), l2: {} of the "
      "{} base vectors held out as queries (seeded), the other {} indexed; labels = k-means "
      "({} clusters, seeded) of the indexed vectors",
      d.nq(), rows.size() / dim, d.n(), clusters);
  return d;
}

Dataset LoadFastText(const std::string& path, std::size_t num_queries, std::uint64_t seed) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot read " + path + " (run bench/vector/prepare_fasttext.sh)");
  std::vector<float> rows;
  std::vector<std::string> row_label;
  std::size_t dim = 0, dropped = 0;
  std::string line;
  while (std::getline(in, line)) {
    auto tab = line.find('\t');
    if (tab == std::string::npos) throw std::runtime_error(path + ": a line without a label");
    std::vector<float> v = ParseFloats(line.c_str() + tab + 1);
    if (dim == 0) dim = v.size();
    if (v.size() != dim || dim == 0) throw std::runtime_error(path + ": ragged vectors");
    double norm = 0;
    bool finite = true;
    for (float x : v) norm += double{x} * x, finite = finite && std::isfinite(x);
    if (!finite || norm == 0) {
      ++dropped;
      continue;
    }
    rows.insert(rows.end(), v.begin(), v.end());
    row_label.push_back(line.substr(0, tab));
  }
  Dataset d;
  d.name = "fasttext";
  d.dim = dim;
  d.cosine = true;
  NormaliseRows(rows, dim);
  Rng rng(seed);
  std::vector<char> is_query;
  HoldOut(rows, dim, Sample(rows.size() / dim, num_queries, rng), &is_query, d);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < row_label.size(); ++i) {
    if (is_query[i]) continue;
    std::size_t l = 0;
    while (l < names.size() && names[l] != row_label[i]) ++l;
    if (l == names.size()) names.push_back(row_label[i]);
    d.labels.push_back(static_cast<std::uint32_t>(l));
  }
  d.num_labels = names.size();
  d.label_names = std::move(names);
  d.description = fmt::format(
      "fastText document vectors of the Debian 12 package descriptions (../shared/data/debian; "
      "prepare_fasttext.sh), {} dimensions, cosine: {} held out as queries (seeded), {} indexed{}; "
      "labels = Debian section ({})",
      dim, d.nq(), d.n(), dropped ? fmt::format(", {} zero vectors dropped", dropped) : "",
      d.num_labels);
  return d;
}

Dataset MakeSynthetic(std::string name, std::size_t n, std::size_t dim, std::size_t components,
                      std::size_t num_queries, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<float> centre(components * dim);
  std::vector<double> sigma(components), cumulative(components);
  for (float& x : centre) x = static_cast<float>(rng.Uniform(-1, 1));
  double total = 0;
  for (std::size_t j = 0; j < components; ++j) {
    sigma[j] = rng.Uniform(0.10, 0.30);
    total += rng.Uniform(0.5, 1.5);
    cumulative[j] = total;
  }
  Dataset d;
  d.name = std::move(name);
  d.dim = dim;
  d.num_labels = components;
  auto draw = [&](std::vector<float>& out, std::vector<std::uint32_t>* labels) {
    double u = rng.Uniform() * total;
    std::size_t j = std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin();
    j = std::min(j, components - 1);
    for (std::size_t c = 0; c < dim; ++c) {
      out.push_back(centre[j * dim + c] + static_cast<float>(sigma[j] * rng.Normal()));
    }
    if (labels != nullptr) labels->push_back(static_cast<std::uint32_t>(j));
  };
  d.base.reserve(n * dim);
  for (std::size_t i = 0; i < n; ++i) draw(d.base, &d.labels);
  for (std::size_t i = 0; i < num_queries; ++i) draw(d.queries, nullptr);
  d.description = fmt::format(
      "synthetic Gaussian mixture (seed {}), l2: {} x {}, {} components with centres uniform in "
      "[-1, 1]^{}, spread sigma_j ~ U[0.10, 0.30] per coordinate, weights ~ U[0.5, 1.5]; {} "
      "queries drawn from the same mixture; labels = component",
      seed, n, dim, components, dim, num_queries);
  return d;
}

}  // namespace engram::bench
