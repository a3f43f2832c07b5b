// `search_memory`: the SearchMemory tool's `filters` array (seed 001,
// FILTERS.md §2.4): entries {field, operator, value}, ANDed, at most 32.
// Errors are `filters[<i>].<key>: <message>`, code 400.
#ifndef ENGRAM_FILTER_DIALECTS_SEARCH_MEMORY_H_
#define ENGRAM_FILTER_DIALECTS_SEARCH_MEMORY_H_

#include "filter/dialects/dialect.h"

namespace engram::filter {

inline constexpr std::size_t kSearchMemoryMaxFilters = 32;
inline constexpr std::size_t kSearchMemoryMaxAnyOf = 100;

class SearchMemoryDialect final : public DialectSpec {
 public:
  Dialect id() const override { return Dialect::kSearchMemory; }
  int code() const override { return 400; }
  const Policy& policy() const override;
  ast::Tree Parse(const json::Value& doc) const override;
  Diagnostic Render(const Fault& fault) const override;
};

}  // namespace engram::filter

#endif  // ENGRAM_FILTER_DIALECTS_SEARCH_MEMORY_H_
