// hnswlib peer (peers.h). hnswlib is header-only and picks its distance
// kernels at compile time (USE_SSE / USE_AVX from __AVX__), so this file
// alone is compiled with -mavx2 -mfma (CMakeLists.txt): hnswlib then runs the
// AVX kernels engram's run-time dispatch also uses on this machine. 0.6.2 has
// no filter functor (it came in 0.7.0), so hnswlib runs unfiltered only.
#include <atomic>
#include <chrono>
#include <thread>

#include <hnswlib/hnswlib.h>

#include "peers.h"

namespace engram::bench {

struct HnswlibPeer::State {
  const Dataset* d = nullptr;
  HnswParams params;
  std::unique_ptr<hnswlib::SpaceInterface<float>> space;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> index;
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
  return {
      "hnswlib", seconds, threads, bytes / static_cast<double>(d.n()),
      "level-0 block (links, vector, label) + upper links + levels; not locks or the label map"};
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
  return {v};
}

}  // namespace engram::bench
