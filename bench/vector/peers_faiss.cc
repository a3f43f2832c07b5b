// FAISS peers (peers.h). Debian builds FAISS generically: its distance
// kernels (distances_simd.cpp.o in libfaiss.a) hold SSE code only, no AVX2
// (`objdump -d` finds 310 xmm and 0 ymm instructions), so both FAISS rows
// run SSE kernels; kBuild says so in every table. FAISS 1.7.3 reads ef from index.hnsw.efSearch in
// IndexHNSW::search, whatever SearchParametersHNSW says, so both are set to
// the sweep's ef. The IDSelectorBitmap of every query, and the list of its
// allowed ids, are built from its allowed-set before a case is measured
// (outside the timed region), as a caller would keep its filter's bitmap or
// ids (engram is given its allowed-set the same way). Searches run one query
// per call (each query has its own selector) on one OpenMP thread.
//
// The exact peer scans the allowed ids only, with FAISS's own k-NN over a
// subset (knn_L2sqr_by_idx / knn_inner_products_by_idx over the flat
// index's vectors): what a user who holds the allowed ids would write. (A
// flat index searched with an IDSelector tests the selector on every one of
// the N rows, work no caller needs: it was the peer until issue 21.)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <stdexcept>

#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/impl/IDSelector.h>
#include <faiss/utils/distances.h>
#include <fmt/core.h>
#include <omp.h>

#include "peers.h"

namespace engram::bench {

using Idx = faiss::Index::idx_t;

constexpr const char* kBuild =
    "Debian libfaiss-dev 1.7.3 (libfaiss.a, generic build): SSE kernels, no AVX2";

struct FaissPeers::State {
  const Dataset* d = nullptr;
  HnswParams params;
  std::unique_ptr<faiss::IndexHNSWFlat> hnsw;
  std::unique_ptr<faiss::IndexFlat> flat;
  // Per query of the current case: its bitmap and selector (empty: no filter).
  std::vector<std::vector<std::uint8_t>> bitmaps;
  std::vector<std::unique_ptr<faiss::IDSelectorBitmap>> selectors;
  std::vector<std::vector<Idx>> ids;  // per query: its allowed ids, ascending
  std::size_t ef = 16;
  std::vector<float> distances;
  std::vector<Idx> labels;

  faiss::MetricType metric() const {
    return d->cosine ? faiss::METRIC_INNER_PRODUCT : faiss::METRIC_L2;
  }
  void Prepare(const CaseView& view) {
    bitmaps.clear();
    selectors.clear();
    ids.clear();
    if (view.spec.correlation == Correlation::kNone) return;
    const std::size_t bytes = (d->n() + 7) / 8;
    for (std::size_t q = 0; q < d->nq(); ++q) {
      std::vector<std::uint8_t> bits(bytes, 0);
      std::vector<Idx>& list = ids.emplace_back();
      list.reserve(view.Allowed(q)->cardinality());
      for (std::uint32_t id : *view.Allowed(q)) {
        bits[id >> 3] |= static_cast<std::uint8_t>(1u << (id & 7));
        list.push_back(id);
      }
      bitmaps.push_back(std::move(bits));
      selectors.push_back(std::make_unique<faiss::IDSelectorBitmap>(bytes, bitmaps.back().data()));
    }
  }
  faiss::IDSelector* Selector(std::size_t q) const {
    return selectors.empty() ? nullptr : selectors[q].get();
  }
  void Collect(std::vector<std::uint32_t>* out) const {
    for (Idx l : labels) {
      if (l >= 0) out->push_back(static_cast<std::uint32_t>(l));
    }
  }
};

FaissPeers::FaissPeers(const Dataset& d, const HnswParams& params) : s_(std::make_unique<State>()) {
  s_->d = &d;
  s_->params = params;
  s_->distances.resize(params.k);
  s_->labels.resize(params.k);
}

FaissPeers::~FaissPeers() = default;

BuildInfo FaissPeers::BuildHnsw(std::size_t threads) {
  const Dataset& d = *s_->d;
  omp_set_num_threads(static_cast<int>(threads));
  auto t0 = std::chrono::steady_clock::now();
  s_->hnsw = std::make_unique<faiss::IndexHNSWFlat>(static_cast<int>(d.dim),
                                                    static_cast<int>(s_->params.m), s_->metric());
  s_->hnsw->hnsw.efConstruction = static_cast<int>(s_->params.ef_construction);
  s_->hnsw->add(static_cast<Idx>(d.n()), d.base.data());
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  omp_set_num_threads(1);  // queries are measured on one thread
  const faiss::HNSW& g = s_->hnsw->hnsw;
  const double bytes = static_cast<double>(
      d.n() * d.dim * sizeof(float) + g.neighbors.size() * sizeof(g.neighbors[0]) +
      g.offsets.size() * sizeof(g.offsets[0]) + g.levels.size() * sizeof(g.levels[0]));
  return {"FAISS IndexHNSWFlat",
          seconds,
          threads,
          bytes / static_cast<double>(d.n()),
          "vectors + neighbour lists + offsets + levels",
          kBuild};
}

BuildInfo FaissPeers::BuildFlat() {
  const Dataset& d = *s_->d;
  auto t0 = std::chrono::steady_clock::now();
  s_->flat = std::make_unique<faiss::IndexFlat>(static_cast<Idx>(d.dim), s_->metric());
  s_->flat->add(static_cast<Idx>(d.n()), d.base.data());
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {"FAISS IndexFlat", seconds, 1, static_cast<double>(d.dim * sizeof(float)),
          "vectors",         kBuild};
}

std::vector<Variant> FaissPeers::Variants() {
  State* s = s_.get();
  std::vector<Variant> out;
  if (s->hnsw) {
    Variant v;
    v.system = "FAISS HNSW";
    v.mode = "+ IDSelector";
    v.sweep = s->params.efs;
    v.prepare = [s](const CaseView& view) { s->Prepare(view); };
    v.set_ef = [s](std::size_t ef) {
      s->ef = ef;
      s->hnsw->hnsw.efSearch = static_cast<int>(ef);
    };
    v.search = [s](std::size_t q, std::vector<std::uint32_t>* res, bool) -> std::string_view {
      faiss::SearchParametersHNSW p;
      p.efSearch = static_cast<int>(s->ef);
      p.sel = s->Selector(q);
      s->hnsw->search(1, s->d->query(q), static_cast<Idx>(s->params.k), s->distances.data(),
                      s->labels.data(), &p);
      s->Collect(res);
      return {};
    };
    out.push_back(std::move(v));
  }
  if (s->flat) {
    Variant v;
    v.system = "FAISS scan";
    v.mode = "of the allowed ids";
    v.prepare = [s](const CaseView& view) {
      if (!s->hnsw) s->Prepare(view);  // otherwise the HNSW variant prepared them
    };
    v.search = [s](std::size_t q, std::vector<std::uint32_t>* res, bool) -> std::string_view {
      const float* query = s->d->query(q);
      const auto k = static_cast<Idx>(s->params.k);
      if (s->ids.empty()) {  // unfiltered: the flat index's own scan
        s->flat->search(1, query, k, s->distances.data(), s->labels.data());
      } else {
        const std::vector<Idx>& allowed = s->ids[q];
        const float* base = s->flat->get_xb();
        const std::size_t dim = s->d->dim;
        if (s->d->cosine) {
          faiss::knn_inner_products_by_idx(query, base, allowed.data(), dim, 1, allowed.size(),
                                           s->params.k, s->distances.data(), s->labels.data());
        } else {
          faiss::knn_L2sqr_by_idx(query, base, allowed.data(), dim, 1, allowed.size(), s->params.k,
                                  s->distances.data(), s->labels.data());
        }
      }
      s->Collect(res);
      return {};
    };
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace engram::bench
