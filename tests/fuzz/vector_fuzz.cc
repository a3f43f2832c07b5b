// libFuzzer target for the vector images: VectorStore::Load
// (src/vector/vector_store.cc) and, on the loaded store, Hnsw::Load
// (src/vector/hnsw/hnsw_serialize.cc). The input is a store image followed by
// an optional graph image, split where the graph's magic "ENGRMHNS" first
// appears after the store's header. Each part's trailing FNV-1a checksum is
// recomputed first, so that mutations reach the structural checks instead of
// stopping at the checksum. Invariants: never crashes, hangs or leaks; the
// loaders allocate at most kPerByte bytes per input byte plus their
// documented bytes per record number below kIdLimit (alloc_budget.h); a
// loaded store serialises back to the same bytes, a loaded graph to an image
// that loads to itself, searches on them (exact and, for graphs, both filter
// modes) return live, allowed records in order, and a graph takes a number
// dropped and reused.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "alloc_budget.h"
#include "base/bytes.h"
#include "base/roaring.h"
#include "vector/exact/exact_search.h"
#include "vector/hnsw/hnsw.h"
#include "vector/vector_store.h"

namespace {

using engram::vector::ExactSearch;
using engram::vector::Neighbor;
using engram::vector::VectorStore;

constexpr std::uint32_t kIdLimit = 64;
constexpr std::size_t kPerByte = 64;
// Per record number: dim x 4 bytes of vector (dim <= 4096), and the graph's
// (2M + 1) x 4 link bytes, 2M stamps and a few flags (M <= 256).
constexpr std::size_t kPerId = 4096 * 4 + 513 * 4 + 512 + 16;
constexpr std::size_t kSlack = 256 * 1024;

void FixChecksum(std::string& bytes) {
  if (bytes.size() < 16) return;
  const std::uint64_t h = engram::Fnv1a64(std::string_view(bytes).substr(0, bytes.size() - 8));
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

  const std::size_t budget = kPerByte * size + kPerId * kIdLimit + kSlack;
  engram::StatusOr<VectorStore> loaded = engram::fuzz::LoadWithin(
      budget, "VectorStore::Load", [&] { return VectorStore::Load(store_bytes, kIdLimit); });
  if (!loaded.ok()) return 0;
  VectorStore& store = *loaded;
  if (store.Serialize(store.retained()) != store_bytes) std::abort();
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
  engram::StatusOr<Hnsw> graph = engram::fuzz::LoadWithin(
      budget, "Hnsw::Load", [&] { return Hnsw::Load(graph_bytes, &store); });
  if (!graph.ok()) return 0;
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
  // The loaded graph stays usable for writes: add a record, remove one, and
  // give the number of another to a new vector (dropped first).
  if (store.limit() < UINT32_MAX - 1 && store.Put(store.limit(), raw).ok()) {
    graph->Insert(store.limit() - 1);
    if (store.Contains(0)) {
      graph->Remove(0);
      store.Remove(0);
    }
    for (std::uint32_t id : store.live()) {
      if (!graph->Contains(id)) continue;
      graph->Drop(id);
      std::vector<float> moved(raw);
      moved[0] += 1;
      if (!store.Put(id, moved).ok()) std::abort();
      graph->Insert(id);
      break;
    }
    CheckResults(store, graph->Search(query->data(), 3, HnswSearchParams{}), 3, nullptr);
    const std::string after = graph->Serialize();
    engram::StatusOr<Hnsw> reloaded = Hnsw::Load(after, &store);
    if (!reloaded.ok() || reloaded->Serialize() != after) std::abort();
  }
  return 0;
}
