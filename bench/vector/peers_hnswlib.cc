// hnswlib peer (peers.h). hnswlib is header-only and picks its distance
// kernels at compile time (USE_SSE / USE_AVX from __AVX__), so this file
// alone is compiled with -mavx2 -mfma (CMakeLists.txt): hnswlib then runs the
// AVX kernels engram's run-time dispatch also uses on this machine. 0.6.2 has
// no filter functor (it came in 0.7.0), so its graph runs unfiltered only;
// under a filter, hnswlib's user scans the allowed ids with hnswlib's own
// (AVX) distance function and keeps the k best: the exact peer with the SIMD
// level engram's kernels have (FAISS's Debian build has SSE only).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <utility>

#include <hnswlib/hnswlib.h>

#include "peers.h"

namespace engram::bench {

struct HnswlibPeer::State {
  const Dataset* d = nullptr;
  HnswParams params;
  std::unique_ptr<hnswlib::SpaceInterface<float>> space;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> index;
  std::vector<std::vector<std::uint32_t>> ids;  // per query of the case: its allowed ids
  std::vector<std::pair<float, std::uint32_t>> heap;
};

HnswlibPeer::HnswlibPeer(const Dataset& d, const HnswParams& params)
    : s_(std::make_unique<State>()) {
  s_->d = &d;
  s_->params = params;
}

HnswlibPeer::~HnswlibPeer() = default;

BuildInfo HnswlibPeer::Build(std::size_t threads) {
  const Dataset& d = *s_->d;
  auto t0 = std::chrono::steady_clock::now();
  if (d.cosine) {
    s_->space = std::make_unique<hnswlib::InnerProductSpace>(d.dim);
  } else {
    s_->space = std::make_unique<hnswlib::L2Space>(d.dim);
  }
  s_->index = std::make_unique<hnswlib::HierarchicalNSW<float>>(
      s_->space.get(), d.n(), s_->params.m, s_->params.ef_construction, 100);
  // hnswlib's own multi-threaded build: addPoint is safe for distinct labels.
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next++) < d.n();) s_->index->addPoint(d.row(i), i);
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto& h = *s_->index;
  double bytes = static_cast<double>(h.size_data_per_element_ * h.cur_element_count);
  for (std::size_t i = 0; i < h.cur_element_count; ++i) {
    bytes += static_cast<double>(h.size_links_per_element_ *
                                 static_cast<std::size_t>(h.element_levels_[i]));
    bytes += sizeof(int);  // the level
  }
  return {"hnswlib",
          seconds,
          threads,
          bytes / static_cast<double>(d.n()),
          "level-0 block (links, vector, label) + upper links + levels; not locks or the label map",
          "Debian libhnswlib-dev 0.6.2 (headers) compiled here with the benchmark, -mavx2 -mfma: "
          "AVX kernels"};
}

std::vector<Variant> HnswlibPeer::Variants() {
  State* s = s_.get();
  Variant v;
  v.system = "hnswlib";
  v.mode = "(unfiltered)";
  v.sweep = s->params.efs;
  v.filtered = false;
  v.set_ef = [s](std::size_t ef) { s->index->setEf(ef); };
  v.search = [s](std::size_t q, std::vector<std::uint32_t>* out, bool) -> std::string_view {
    auto heap = s->index->searchKnn(s->d->query(q), s->params.k);
    out->resize(heap.size());
    for (std::size_t i = heap.size(); i-- > 0; heap.pop()) {
      (*out)[i] = static_cast<std::uint32_t>(heap.top().second);
    }
    return {};
  };
  Variant scan;
  scan.system = "hnswlib";
  scan.mode = "scan of the allowed ids";
  scan.filters_only = true;
  scan.prepare = [s](const CaseView& view) {
    s->ids.clear();
    for (std::size_t q = 0; q < s->d->nq(); ++q) {
      const roaring::Roaring* allowed = view.Allowed(q);
      std::vector<std::uint32_t>& list = s->ids.emplace_back();
      list.reserve(allowed->cardinality());
      for (std::uint32_t id : *allowed) list.push_back(id);
    }
  };
  scan.search = [s](std::size_t q, std::vector<std::uint32_t>* out, bool) -> std::string_view {
    const hnswlib::DISTFUNC<float> dist = s->space->get_dist_func();
    void* param = s->space->get_dist_func_param();
    const float* query = s->d->query(q);
    const std::size_t k = s->params.k;
    auto& heap = s->heap;  // a max-heap of the k nearest so far
    heap.clear();
    for (const std::uint32_t id : s->ids[q]) {
      const float dd = dist(query, s->d->row(id), param);
      if (heap.size() < k) {
        heap.emplace_back(dd, id);
        std::push_heap(heap.begin(), heap.end());
      } else if (dd < heap.front().first) {
        std::pop_heap(heap.begin(), heap.end());
        heap.back() = {dd, id};
        std::push_heap(heap.begin(), heap.end());
      }
    }
    std::sort_heap(heap.begin(), heap.end());
    out->clear();
    for (const auto& [dd, id] : heap) out->push_back(id);
    return {};
  };
  return {v, scan};
}

}  // namespace engram::bench
