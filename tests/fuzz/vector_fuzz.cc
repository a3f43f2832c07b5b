// libFuzzer target for the vector images: VectorStore::Load
// (src/vector/vector_store.cc) and, on the loaded store, Hnsw::Load
// (src/vector/hnsw/hnsw_serialize.cc). The input is a store image followed by
// an optional graph image, split where the graph's magic "ENGRMHNS" first
// appears after the store's header. Each part's trailing FNV-1a checksum is
// recomputed first, so that mutations reach the structural checks instead of
// stopping at the checksum. Invariants: never crashes, hangs or leaks; a
// loaded store serialises back to the same bytes, a loaded graph to an image
// that loads to itself, and searches on them (exact and, for graphs, both
// filter modes) return live, allowed records in order.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "base/roaring.h"
#include "vector/exact/exact_search.h"
#include "vector/hnsw/hnsw.h"
#include "vector/vector_store.h"

namespace {

using engram::vector::ExactSearch;
using engram::vector::Neighbor;
using engram::vector::VectorStore;

std::uint64_t Fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

void FixChecksum(std::string& bytes) {
  if (bytes.size() < 16) return;
  const std::uint64_t h = Fnv1a(std::string_view(bytes).substr(0, bytes.size() - 8));
  for (int i = 0; i < 8; ++i) bytes[bytes.size() - 8 + i] = static_cast<char>(h >> (8 * i));
}

// Results of size min(k, eligible), strictly ascending in Neighbor order,
// every one live and allowed.
void CheckResults(const VectorStore& store, const std::vector<Neighbor>& got, std::size_t k,
                  const roaring::Roaring* allowed) {
  if (got.size() > k) std::abort();
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!store.Contains(got[i].id)) std::abort();
    if (allowed != nullptr && !allowed->contains(got[i].id)) std::abort();
    if (i > 0 && !(got[i - 1] < got[i])) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::size_t split = input.find("ENGRMHNS", 8);
  if (split == std::string_view::npos) split = input.size();
  std::string store_bytes(input.substr(0, split));
  std::string graph_bytes(input.substr(split));
  FixChecksum(store_bytes);
  FixChecksum(graph_bytes);

  engram::StatusOr<VectorStore> loaded = VectorStore::Load(store_bytes);
  if (!loaded.ok()) {
    if (loaded.status().message().empty()) std::abort();
    return 0;
  }
  VectorStore& store = *loaded;
  if (store.Serialize() != store_bytes) std::abort();
  if (store.size() > store.limit()) std::abort();

  std::vector<float> raw(store.dim());
  for (std::size_t i = 0; i < raw.size(); ++i) raw[i] = 1.0f + static_cast<float>(i % 3);
  engram::StatusOr<std::vector<float>> query = store.PrepareQuery(raw);
  if (!query.ok()) std::abort();
  roaring::Roaring even;
  for (std::uint32_t id = 0; id < store.limit(); id += 2) even.add(id);
  for (std::size_t k : {std::size_t{1}, std::size_t{5}}) {
    std::vector<Neighbor> all = ExactSearch(store, query->data(), k);
    CheckResults(store, all, k, nullptr);
    if (all.size() != std::min<std::size_t>(k, store.size())) std::abort();
    CheckResults(store, ExactSearch(store, query->data(), k, &even), k, &even);
  }

  using engram::vector::Hnsw;
  using engram::vector::HnswFilter;
  using engram::vector::HnswSearchParams;
  if (graph_bytes.empty()) return 0;
  engram::StatusOr<Hnsw> graph = Hnsw::Load(graph_bytes, &store);
  if (!graph.ok()) {
    if (graph.status().message().empty()) std::abort();
    return 0;
  }
  // The graph image need not be canonical (Hnsw::Load may accept redundant
  // varint bytes), but what it writes must load back to the same image.
  const std::string image = graph->Serialize();
  engram::StatusOr<Hnsw> again = Hnsw::Load(image, &store);
  if (!again.ok() || again->Serialize() != image) std::abort();
  for (HnswFilter filter : {HnswFilter::kWalkAll, HnswFilter::kTwoHop}) {
    HnswSearchParams params;
    params.ef = 16;
    params.filter = filter;
    CheckResults(store, graph->Search(query->data(), 5, params), 5, nullptr);
    CheckResults(store, graph->Search(query->data(), 5, params, &even), 5, &even);
  }
  // The loaded graph stays usable for writes: add a record, drop another.
  if (store.limit() < UINT32_MAX - 1 && store.Put(store.limit(), raw).ok()) {
    graph->Insert(store.limit() - 1);
    if (store.Contains(0)) {
      graph->Remove(0);
      store.Remove(0);
    }
    CheckResults(store, graph->Search(query->data(), 3, HnswSearchParams{}), 3, nullptr);
  }
  return 0;
}
