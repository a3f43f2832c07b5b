#include "filters.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <queue>
#include <stdexcept>
#include <thread>

#include <faiss/utils/distances.h>
#include <fmt/core.h>

namespace engram::bench {
namespace {

constexpr char kCacheMagic[8] = {'E', 'G', 'V', 'G', 'T', '0', '0', '2'};

std::uint64_t Fnv(const void* data, std::size_t size, std::uint64_t h = 1469598103934665603ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

// A checksum of the dataset's contents: sizes and every 61st value.
std::uint64_t DatasetChecksum(const Dataset& d) {
  std::uint64_t h = Fnv(d.name.data(), d.name.size());
  std::size_t sizes[3] = {d.n(), d.nq(), d.dim};
  h = Fnv(sizes, sizeof sizes, h);
  for (std::size_t i = 0; i < d.base.size(); i += 61) h = Fnv(&d.base[i], sizeof(float), h);
  for (std::size_t i = 0; i < d.queries.size(); i += 61) h = Fnv(&d.queries[i], sizeof(float), h);
  return h;
}

bool ReadCache(const std::string& path, const std::string& key, std::size_t nq,
               std::vector<std::vector<Hit>>* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  char magic[8];
  std::uint64_t key_size = 0;
  if (!in.read(magic, 8) || std::memcmp(magic, kCacheMagic, 8) != 0) return false;
  if (!in.read(reinterpret_cast<char*>(&key_size), 8) || key_size != key.size()) return false;
  std::string stored(key_size, '\0');
  if (!in.read(stored.data(), static_cast<std::streamsize>(key_size)) || stored != key)
    return false;
  out->assign(nq, {});
  for (auto& hits : *out) {
    std::uint32_t count = 0;
    if (!in.read(reinterpret_cast<char*>(&count), 4) || count > (1u << 20)) return false;
    hits.resize(count);
    if (!in.read(reinterpret_cast<char*>(hits.data()),
                 static_cast<std::streamsize>(count * sizeof(Hit)))) {
      return false;
    }
  }
  return true;
}

void WriteCache(const std::string& path, const std::string& key,
                const std::vector<std::vector<Hit>>& hits) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    std::uint64_t key_size = key.size();
    out.write(kCacheMagic, 8);
    out.write(reinterpret_cast<const char*>(&key_size), 8);
    out.write(key.data(), static_cast<std::streamsize>(key.size()));
    for (const auto& h : hits) {
      auto count = static_cast<std::uint32_t>(h.size());
      out.write(reinterpret_cast<const char*>(&count), 4);
      out.write(reinterpret_cast<const char*>(h.data()),
                static_cast<std::streamsize>(count * sizeof(Hit)));
    }
    if (!out) throw std::runtime_error("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);
}

bool Before(const Hit& a, const Hit& b) {
  return a.distance < b.distance || (a.distance == b.distance && a.id < b.id);
}

// Exact top-k of one query over `allowed` (nullptr: all records).
std::vector<Hit> TopK(const Dataset& d, const float* q, std::size_t k,
                      const roaring::Roaring* allowed) {
  auto worse = [](const Hit& a, const Hit& b) { return Before(a, b); };  // max-heap on order
  std::priority_queue<Hit, std::vector<Hit>, decltype(worse)> heap(worse);
  auto consider = [&](std::uint32_t id) {
    Hit h{id, TrueDistance(d, q, d.row(id))};
    if (heap.size() < k) {
      heap.push(h);
    } else if (Before(h, heap.top())) {
      heap.pop();
      heap.push(h);
    }
  };
  if (allowed == nullptr) {
    for (std::size_t i = 0; i < d.n(); ++i) consider(static_cast<std::uint32_t>(i));
  } else {
    for (std::uint32_t id : *allowed) consider(id);
  }
  std::vector<Hit> out(heap.size());
  for (std::size_t i = out.size(); i-- > 0; heap.pop()) out[i] = heap.top();
  return out;
}

}  // namespace

std::string FilterSpec::SelectivityName() const {
  return fmt::format("{:g}", fraction * 100);
}

std::string FilterSpec::CorrelationName() const {
  switch (correlation) {
    case Correlation::kNone:
      return "none";
    case Correlation::kUncorrelated:
      return "uncorrelated";
    case Correlation::kCorrelated:
      return "correlated";
    case Correlation::kAnti:
      return "anti";
    case Correlation::kMixed:
      return "mixed";
  }
  return "?";
}

std::vector<FilterSpec> MixedFilters() {
  return {{0.5, Correlation::kMixed}, {0.1, Correlation::kMixed}, {0.01, Correlation::kMixed}};
}

std::string FilterSpec::Name() const {
  return SelectivityName() + "%-" + CorrelationName();
}

std::vector<FilterSpec> StandardFilters() {
  std::vector<FilterSpec> out = {{1.0, Correlation::kNone}};
  for (double f : {0.5, 0.1, 0.01, 0.001}) {
    for (Correlation c :
         {Correlation::kUncorrelated, Correlation::kCorrelated, Correlation::kAnti}) {
      out.push_back({f, c});
    }
  }
  return out;
}

float TrueDistance(const Dataset& d, const float* a, const float* b) {
  if (d.cosine) return 1.0f - faiss::fvec_inner_product(a, b, d.dim);
  return faiss::fvec_L2sqr(a, b, d.dim);
}

std::vector<std::vector<Hit>> ExactTopK(const Dataset& d,
                                        const std::vector<const roaring::Roaring*>& allowed,
                                        std::size_t k, std::size_t threads,
                                        const std::string& cache_dir, const std::string& tag) {
  const std::string key =
      fmt::format("{} n={} nq={} dim={} cosine={} sum={:016x} k={} tag={}", d.name, d.n(), d.nq(),
                  d.dim, d.cosine, DatasetChecksum(d), k, tag);
  const std::string path = fmt::format("{}/truth-{}-{}-{:016x}.bin", cache_dir, d.name, tag,
                                       Fnv(key.data(), key.size()));
  std::vector<std::vector<Hit>> out;
  if (ReadCache(path, key, d.nq(), &out)) return out;
  out.assign(d.nq(), {});
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t q; (q = next++) < d.nq();) {
      const roaring::Roaring* a = q < allowed.size() ? allowed[q] : nullptr;
      out[q] = TopK(d, d.query(q), k, a);
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < std::max<std::size_t>(threads, 1); ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  WriteCache(path, key, out);
  return out;
}

LabelIndex BuildLabelIndex(const Dataset& d, std::size_t depth, std::size_t threads,
                           const std::string& cache_dir) {
  LabelIndex li;
  li.records.assign(d.num_labels, {});
  for (std::size_t i = 0; i < d.n(); ++i)
    li.records[d.labels[i]].push_back(static_cast<std::uint32_t>(i));
  li.centroids.assign(d.num_labels * d.dim, 0);
  for (std::size_t l = 0; l < d.num_labels; ++l) {
    std::vector<double> sum(d.dim, 0);
    for (std::uint32_t id : li.records[l]) {
      for (std::size_t j = 0; j < d.dim; ++j) sum[j] += d.row(id)[j];
    }
    const double count = std::max<double>(1, static_cast<double>(li.records[l].size()));
    for (std::size_t j = 0; j < d.dim; ++j)
      li.centroids[l * d.dim + j] = static_cast<float>(sum[j] / count);
  }
  if (d.cosine) NormaliseRows(li.centroids, d.dim);
  li.near = ExactTopK(d, {}, depth, threads, cache_dir, fmt::format("near{}", depth));
  return li;
}

roaring::Roaring MakeAllowed(const Dataset& d, const LabelIndex& labels, const FilterSpec& spec,
                             std::size_t q, std::uint64_t seed) {
  const std::size_t n = d.n();
  const auto target = std::clamp<std::size_t>(
      static_cast<std::size_t>(std::llround(spec.fraction * static_cast<double>(n))), 1, n);
  Rng rng(seed ^ (0x9e3779b97f4a7c15ull * (q + 1)) ^ Fnv(spec.Name().data(), spec.Name().size()));
  std::vector<std::uint32_t> ids;
  ids.reserve(target);
  if (spec.correlation == Correlation::kNone || spec.correlation == Correlation::kUncorrelated) {
    // A uniform random subset of exactly `target` records (or its complement).
    const bool invert = target > n / 2;
    const std::size_t draw = invert ? n - target : target;
    std::vector<char> picked(n, 0);
    for (std::size_t got = 0; got < draw;) {
      std::size_t i = rng.Below(n);
      if (!picked[i]) picked[i] = 1, ++got;
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (static_cast<bool>(picked[i]) != invert) ids.push_back(static_cast<std::uint32_t>(i));
    }
  } else {
    std::vector<std::size_t> count(d.num_labels, 0);
    for (const Hit& h : labels.near[q]) ++count[d.labels[h.id]];
    std::vector<float> dist(d.num_labels);
    for (std::size_t l = 0; l < d.num_labels; ++l) {
      dist[l] = TrueDistance(d, d.query(q), labels.centroids.data() + l * d.dim);
    }
    std::vector<std::size_t> order(d.num_labels);
    std::iota(order.begin(), order.end(), 0);
    const bool near = spec.correlation == Correlation::kCorrelated ||
                      (spec.correlation == Correlation::kMixed && q % 2 == 0);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      if (count[a] != count[b]) return near ? count[a] > count[b] : count[a] < count[b];
      if (dist[a] != dist[b]) return near ? dist[a] < dist[b] : dist[a] > dist[b];
      return a < b;
    });
    for (std::size_t l : order) {
      const auto& recs = labels.records[l];
      const std::size_t need = target - ids.size();
      if (need == 0) break;
      if (recs.size() <= need) {
        ids.insert(ids.end(), recs.begin(), recs.end());
      } else {
        std::vector<std::uint32_t> part = recs;
        for (std::size_t i = 0; i < need; ++i)
          std::swap(part[i], part[i + rng.Below(part.size() - i)]);
        ids.insert(ids.end(), part.begin(), part.begin() + static_cast<std::ptrdiff_t>(need));
      }
    }
    std::sort(ids.begin(), ids.end());
  }
  roaring::Roaring r;
  r.addMany(ids.size(), ids.data());
  r.runOptimize();
  return r;
}

double Recall(const Dataset& d, std::size_t q, const std::vector<std::uint32_t>& result,
              const std::vector<Hit>& truth, std::size_t k, const roaring::Roaring* allowed,
              std::size_t* disallowed) {
  const std::size_t want = std::min(k, truth.size());
  if (want == 0) return 1;
  const float kth = truth[want - 1].distance;
  const float limit = kth + 1e-5f * std::max(1.0f, std::abs(kth));
  std::size_t good = 0;
  std::vector<std::uint32_t> seen;
  for (std::size_t i = 0; i < result.size() && i < k; ++i) {
    const std::uint32_t id = result[i];
    if (id >= d.n() || (allowed != nullptr && !allowed->contains(id))) {
      ++*disallowed;
      continue;
    }
    if (std::find(seen.begin(), seen.end(), id) != seen.end()) continue;
    seen.push_back(id);
    if (TrueDistance(d, d.query(q), d.row(id)) <= limit) ++good;
  }
  return static_cast<double>(std::min(good, want)) / static_cast<double>(want);
}

}  // namespace engram::bench
