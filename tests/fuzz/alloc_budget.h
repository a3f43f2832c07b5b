// The most bytes a stretch of code held at once, counted through the
// sanitizer allocator's malloc/free hooks, for the loader fuzz targets to
// check that no input makes a loader allocate more than a budget (issue 18:
// the HNSW loader allocated ~1000x its input, the text index loader ~3 KB per
// input byte). Without AddressSanitizer nothing is counted and every budget
// holds. -malloc_limit_mb / -rss_limit_mb stay the backstop for huge ones.
// LoadWithin wraps a loader call with the count and the loaders' error contract.
#ifndef ENGRAM_TESTS_FUZZ_ALLOC_BUDGET_H_
#define ENGRAM_TESTS_FUZZ_ALLOC_BUDGET_H_

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#include "engram/status.h"

#if defined(__SANITIZE_ADDRESS__)
#define ENGRAM_ALLOC_HOOKS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ENGRAM_ALLOC_HOOKS 1
#endif
#endif

#ifdef ENGRAM_ALLOC_HOOKS
extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*,
                                                                             std::size_t),
                                                         void (*free_hook)(const volatile void*));
extern "C" std::size_t __sanitizer_get_allocated_size(const volatile void* p);
#endif

namespace engram::fuzz {

// Counts while alive (one at a time). Blocks allocated before and freed
// during the count are subtracted too, so the peak may be a little low; the
// loaders under test free little they did not allocate.
class AllocCount {
 public:
  AllocCount() {
#ifdef ENGRAM_ALLOC_HOOKS
    static const bool installed = __sanitizer_install_malloc_and_free_hooks(OnMalloc, OnFree);
    (void)installed;
#endif
    live_ = 0;
    peak_ = 0;
    on_ = true;
  }
  ~AllocCount() {
    on_ = false;
  }
  AllocCount(const AllocCount&) = delete;
  AllocCount& operator=(const AllocCount&) = delete;

  // The most bytes held at once since construction.
  std::size_t peak() const {
    return static_cast<std::size_t>(peak_.load());
  }

  // Aborts, naming `what`, when the peak passed `budget` bytes.
  void Check(std::size_t budget, const char* what) const {
    if (peak() > budget) {
      std::fprintf(stderr, "%s allocated %zu bytes at its peak, over its budget of %zu\n", what,
                   peak(), budget);
      std::abort();
    }
  }

 private:
#ifdef ENGRAM_ALLOC_HOOKS
  static void OnMalloc(const volatile void*, std::size_t n) {
    if (!on_) return;
    const long long now = live_ += static_cast<long long>(n);
    long long seen = peak_.load();
    while (now > seen && !peak_.compare_exchange_weak(seen, now)) {
    }
  }
  static void OnFree(const volatile void* p) {
    if (on_) live_ -= static_cast<long long>(__sanitizer_get_allocated_size(p));
  }
#endif
  static inline std::atomic<bool> on_{false};
  static inline std::atomic<long long> live_{0};
  static inline std::atomic<long long> peak_{0};
};

// Runs `load` (returning a StatusOr), aborting, naming `what`, when it
// allocated more than `budget` bytes at once, or when it failed with anything
// but a Corruption that says why.
template <typename Load>
auto LoadWithin(std::size_t budget, const char* what, const Load& load) {
  AllocCount count;
  auto out = load();
  count.Check(budget, what);
  if (!out.ok() &&
      (out.status().code() != StatusCode::kCorruption || out.status().message().empty())) {
    std::fprintf(stderr, "%s failed without a Corruption: %s\n", what,
                 out.status().ToString().c_str());
    std::abort();
  }
  return out;
}

}  // namespace engram::fuzz

#endif  // ENGRAM_TESTS_FUZZ_ALLOC_BUDGET_H_
