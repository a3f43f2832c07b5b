// Software prefetches that the compiler cannot delete.
//
// GCC (12, -O2) takes a function whose only effect is __builtin_prefetch for
// a const function and deletes every call to it whose result is unused: a
// prefetching helper that is not inlined early prefetches nothing. Found on
// 2026-11-29: the graph walk's prefetch of each next neighbour's row
// (Hnsw::Search), the exact scan's (ExactSearch) and the key maps' probes
// (FlatHash::Prefetch in Collection::Load) had all compiled to nothing. On
// x86-64 these are volatile asm, which no pass removes or treats as const;
// elsewhere they fall back to __builtin_prefetch. Every prefetch in src/
// goes through here (the `prefetch` lint test holds to it).
#ifndef ENGRAM_BASE_PREFETCH_H_
#define ENGRAM_BASE_PREFETCH_H_

#include <cstddef>
#include <cstdint>

namespace engram {

inline constexpr std::size_t kCacheLine = 64;

// Starts bringing the cache line holding `p` into every cache level; `p` need
// not be valid (a prefetch never faults).
inline void PrefetchRead(const void* p) {
#if defined(__x86_64__)
  asm volatile("prefetcht0 (%0)" : : "r"(p));
#else
  __builtin_prefetch(p, 0, 3);
#endif
}

// The same for a line about to be written (prefetchw where the target has it).
inline void PrefetchWrite(const void* p) {
#if defined(__x86_64__) && defined(__PRFCHW__)
  asm volatile("prefetchw (%0)" : : "r"(p));
#elif defined(__x86_64__)
  asm volatile("prefetcht0 (%0)" : : "r"(p));
#else
  __builtin_prefetch(p, 1, 3);
#endif
}

// Every cache line of [p, p + bytes).
inline void PrefetchBytes(const void* p, std::size_t bytes) {
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  for (std::uintptr_t line = begin & ~std::uintptr_t{kCacheLine - 1}; line < begin + bytes;
       line += kCacheLine) {
    PrefetchRead(reinterpret_cast<const void*>(line));
  }
}

}  // namespace engram

#endif  // ENGRAM_BASE_PREFETCH_H_
