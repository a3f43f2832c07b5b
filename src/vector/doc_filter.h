// DocFilter: the allowed records, seen from a store or graph whose numbers
// stand for other ones (a value graph's node i is record docs[i],
// value_graphs.h; without `docs`, i itself): number i passes when bit
// docs[i] of `bits`, a dense bitset of `words` 64-bit words (DenseBits,
// hnsw.h), is set. Both the graph walk (HnswSearchParams::by_doc) and the
// exact scans (exact_search.h) test it.
#ifndef ENGRAM_VECTOR_DOC_FILTER_H_
#define ENGRAM_VECTOR_DOC_FILTER_H_

#include <cstddef>
#include <cstdint>

namespace engram::vector {

struct DocFilter {
  const std::uint32_t* docs = nullptr;  // one per number below the store's limit, or none
  const std::uint64_t* bits = nullptr;
  std::size_t words = 0;

  bool Passes(std::uint32_t i) const {
    const std::uint32_t doc = docs != nullptr ? docs[i] : i;
    return doc < words * 64 && ((bits[doc >> 6] >> (doc & 63)) & 1) != 0;
  }
};

}  // namespace engram::vector

#endif  // ENGRAM_VECTOR_DOC_FILTER_H_
