// VectorStore: validation and normalisation on Put, geometric growth of the
// float array, and the byte image. The image (version 2), little-endian,
// varints as LEB128:
//   "ENGRMVEC" u32 version
//   varint dim, u8 metric
//   varint live count, count x varint id (the first as is, then the gap to
//          the previous id, at least 1)
//   varint retained count, count x varint id (the same; removed records
//          whose vectors a graph still walks, none of them live)
//   dim float32 for each id of both sets, in ascending id order
//   u64 FNV-1a of everything before.
// Version 1 wrote every slot below the largest record number, live or not;
// it is refused (the caller rebuilds from its records).
// Load checks the checksum and every invariant the searches rely on (ids
// below the caller's limit, finite and bounded components, unit-length
// cosine vectors), accepts only the encoding Serialize writes, and checks
// the counts against the bytes left before allocating.
#include "vector/vector_store.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstring>
#include <string>

#include "base/bytes.h"
#include "base/prefetch.h"

namespace engram::vector {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the image stores floats in host order, which must be little-endian");

constexpr char kStoreMagic[8] = {'E', 'N', 'G', 'R', 'M', 'V', 'E', 'C'};
constexpr std::uint32_t kStoreVersion = 2;
// How far a stored cosine vector's squared norm may be from 1: normalising in
// double and rounding each component to float moves it by about dim * 2^-24
// relative at worst, far below this.
constexpr double kUnitTolerance = 1e-4;

// Bytes the LEB128 encoding of v takes.
std::size_t VarLength(std::uint64_t v) {
  std::size_t n = 1;
  for (; v >= 0x80; v >>= 7) ++n;
  return n;
}

// Checks `v` as a vector of the collection (`what` names it in messages) and
// returns the factor its components are multiplied by when stored: 1 / norm
// for cosine, 1 otherwise.
StatusOr<double> Check(std::span<const float> v, std::size_t dim, Metric metric,
                       std::string_view what) {
  if (v.size() != dim) {
    return Status::InvalidArgument(std::string(what) + " has " + std::to_string(v.size()) +
                                   " components, the collection's dimension is " +
                                   std::to_string(dim));
  }
  // Every query passes here: one pass without branches (NaN compares false),
  // and the component is located only when one is bad.
  bool ok = true;
  for (std::size_t i = 0; i < dim; ++i) ok &= std::fabs(v[i]) <= VectorStore::kMaxComponent;
  if (!ok) {
    std::size_t i = 0;
    while (std::fabs(v[i]) <= VectorStore::kMaxComponent) ++i;
    return Status::InvalidArgument(
        std::string(what) + "[" + std::to_string(i) + "] " +
        (std::isfinite(v[i]) ? "is larger in magnitude than 1e15" : "is not a finite number"));
  }
  if (metric != Metric::kCosine) return 1.0;
  double squares = 0;
  for (std::size_t i = 0; i < dim; ++i) squares += double{v[i]} * double{v[i]};
  if (squares == 0) {
    return Status::InvalidArgument(std::string(what) +
                                   " is all zeros; the cosine metric needs a non-zero vector");
  }
  return 1.0 / std::sqrt(squares);
}

void Scale(std::span<const float> v, double factor, float* out) {
  if (factor == 1.0) {
    std::memcpy(out, v.data(), v.size() * sizeof(float));
    return;
  }
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<float>(double{v[i]} * factor);
}

}  // namespace

VectorStore::VectorStore(std::size_t dim, Metric metric)
    : dim_(dim), metric_(metric), distance_(DistanceFor(metric)) {
  assert(dim >= 1 && dim <= kMaxDim + 1);
}

Status VectorStore::Put(std::uint32_t id, std::span<const float> vector) {
  if (id == UINT32_MAX) return Status::InvalidArgument("record number 4294967295 is out of range");
  StatusOr<double> factor = Check(vector, dim_, metric_, "vector");
  if (!factor.ok()) return factor.status();
  if (id >= limit_) {
    const std::size_t needed = (std::size_t{id} + 1) * dim_;
    // Doubling keeps appends in record order amortised O(dim) each.
    if (needed > data_.capacity()) data_.reserve(std::max(needed, 2 * data_.capacity()));
    data_.resize(needed, 0.0f);
    limit_ = id + 1;
  }
  Scale(vector, *factor, data_.data() + std::size_t{id} * dim_);
  if (codes_) {
    codes_->Resize(limit_);
    codes_->Encode(id, Get(id));
  }
  live_.add(id);
  retained_.remove(id);
  return Status::Ok();
}

void VectorStore::EnableCodes() {
  if (codes_) return;
  codes_.emplace(dim_, metric_);
  codes_->Resize(limit_);
  // Every slot, live or not: a graph may still walk through a removed one.
  for (std::uint32_t id = 0; id < limit_; ++id) codes_->Encode(id, Get(id));
}

void VectorStore::Remove(std::uint32_t id) {
  live_.remove(id);
}

Status VectorStore::Validate(std::span<const float> vector) const {
  return Check(vector, dim_, metric_, "vector").status();
}

StatusOr<std::vector<float>> VectorStore::PrepareQuery(std::span<const float> query) const {
  StatusOr<double> factor = Check(query, dim_, metric_, "query");
  if (!factor.ok()) return factor.status();
  std::vector<float> prepared(dim_);
  Scale(query, *factor, prepared.data());
  return prepared;
}

void VectorStore::Rerank(const float* prepared_query, std::size_t k,
                         std::vector<Neighbor>* best) const {
  // The first lines of each vector; the hardware follows the rest.
  const std::size_t bytes = std::min<std::size_t>(dim_ * sizeof(float), 8 * kCacheLine);
  for (const Neighbor& n : *best) PrefetchBytes(Get(n.id), bytes);
  for (Neighbor& n : *best) n.distance = Distance(prepared_query, n.id);
  std::sort(best->begin(), best->end());
  if (best->size() > k) best->resize(k);
}

std::size_t VectorStore::MemoryBytes() const {
  return data_.capacity() * sizeof(float) + live_.getSizeInBytes(false) +
         (codes_ ? codes_->MemoryBytes() : 0);
}

std::string VectorStore::Serialize(const roaring::Roaring& retained) const {
  roaring::Roaring kept;
  for (std::uint32_t id : retained) {
    if (id >= limit_) break;
    if (!live_.contains(id)) kept.add(id);
  }
  const roaring::Roaring both = live_ | kept;
  ByteWriter w;
  w.out.reserve(64 + 5 * static_cast<std::size_t>(both.cardinality()) +
                static_cast<std::size_t>(both.cardinality()) * dim_ * sizeof(float));
  w.Raw(kStoreMagic, 8);
  w.Fixed(kStoreVersion, 4);
  w.Var(dim_);
  w.U8(static_cast<std::uint8_t>(metric_));
  for (const roaring::Roaring* set : {&live_, static_cast<const roaring::Roaring*>(&kept)}) {
    w.Var(set->cardinality());
    std::uint32_t prev = 0;
    bool first = true;
    for (std::uint32_t id : *set) {
      w.Var(first ? id : id - prev);
      prev = id;
      first = false;
    }
  }
  for (std::uint32_t id : both) w.Raw(Get(id), dim_ * sizeof(float));
  w.Fixed(Fnv1a64(w.out), 8);
  return std::move(w.out);
}

StatusOr<VectorStore> VectorStore::Load(std::string_view bytes, std::uint32_t id_limit) {
  auto fail = [](const char* why) -> StatusOr<VectorStore> {
    return Status::Corruption(std::string("vector store image: ") + why);
  };
  ByteReader r({});
  if (std::optional<std::string> why =
          OpenImage(bytes, kStoreMagic, kStoreVersion, "vector store", &r)) {
    return fail(why->c_str());
  }
  // The length Serialize would have written so far, to refuse redundant
  // varint bytes (one store, one image).
  std::size_t canonical = 8 + 4 + 1 + 8;

  const std::uint64_t dim = r.Var(kMaxDim);
  const std::uint64_t metric = r.Fixed(1);
  if (!r.ok() || dim == 0) return fail("bad dimension");
  if (metric > static_cast<std::uint64_t>(Metric::kL2)) return fail("bad metric");
  canonical += VarLength(dim);

  VectorStore store(static_cast<std::size_t>(dim), static_cast<Metric>(metric));
  // Each id takes at least a byte, and its vector dim x 4 more.
  const std::size_t item = 1 + static_cast<std::size_t>(dim) * sizeof(float);
  roaring::Roaring* sets[2] = {&store.live_, &store.retained_};
  std::uint64_t total = 0;
  for (roaring::Roaring* set : sets) {
    const std::size_t count = r.Count(item);
    if (!r.ok()) return fail("bad record count");
    canonical += VarLength(count);
    std::uint64_t id = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint64_t step = r.Var();
      id = i == 0 ? step : id + step;
      if (!r.ok() || (i > 0 && step == 0) || id >= id_limit) return fail("bad record number");
      canonical += VarLength(step);
      set->add(static_cast<std::uint32_t>(id));
    }
    total += count;
  }
  if (store.live_.and_cardinality(store.retained_) != 0) {
    return fail("a retained record is live");
  }
  // The vectors are the rest of the image, exactly; checked before the
  // allocation, which is dim floats per number below the largest id (the
  // caller's limit bounds it).
  const std::uint64_t floats = total * dim;
  if (floats > r.left() / sizeof(float) || floats * sizeof(float) != r.left()) {
    return fail("vector data does not match the record count x dimension");
  }
  canonical += floats * sizeof(float);
  if (canonical != bytes.size()) return fail("non-canonical encoding");
  const roaring::Roaring both = store.live_ | store.retained_;
  if (!both.isEmpty()) {
    store.limit_ = both.maximum() + 1;
    store.data_.assign(std::size_t{store.limit_} * store.dim_, 0.0f);
  }
  std::vector<float> v(store.dim_);
  for (std::uint32_t id : both) {
    r.Raw(v.data(), store.dim_ * sizeof(float));
    for (float x : v) {
      if (!(std::fabs(x) <= kMaxComponent)) return fail("vector component not finite or too large");
    }
    if (store.metric_ == Metric::kCosine) {
      double squares = 0;
      for (float x : v) squares += double{x} * double{x};
      if (!(std::fabs(squares - 1.0) <= kUnitTolerance)) {
        return fail("cosine vector is not unit length");
      }
    }
    std::memcpy(store.data_.data() + std::size_t{id} * store.dim_, v.data(),
                store.dim_ * sizeof(float));
  }
  if (!r.ok()) return fail("truncated vector data");
  return store;
}

}  // namespace engram::vector
