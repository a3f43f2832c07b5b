// One search result of the vector indexes: a record number and its internal
// distance (metric.h), ordered nearest first with ties broken by record number
// so that every index and the exact oracle agree on one order.
#ifndef ENGRAM_VECTOR_NEIGHBOR_H_
#define ENGRAM_VECTOR_NEIGHBOR_H_

#include <cstdint>

namespace engram::vector {

struct Neighbor {
  std::uint32_t id = 0;
  float distance = 0;

  friend bool operator<(const Neighbor& a, const Neighbor& b) {
    return a.distance < b.distance || (a.distance == b.distance && a.id < b.id);
  }
  friend bool operator==(const Neighbor& a, const Neighbor& b) = default;
};

}  // namespace engram::vector

#endif  // ENGRAM_VECTOR_NEIGHBOR_H_
