// `vector_filter`: AgentsKit's VectorFilter v1 (seed 003, FILTERS.md §2.3), a
// Mongo-style document: {field: primitive | {$op: value, ...}}, $and / $or,
// several keys at one level ANDed. Errors are `<JSON Pointer>: <message>`,
// code 400.
#ifndef ENGRAM_FILTER_DIALECTS_VECTOR_FILTER_H_
#define ENGRAM_FILTER_DIALECTS_VECTOR_FILTER_H_

#include "filter/dialects/dialect.h"

namespace engram::filter {

class VectorFilterDialect final : public DialectSpec {
 public:
  Dialect id() const override { return Dialect::kVectorFilter; }
  int code() const override { return 400; }
  const Policy& policy() const override;
  ast::Tree Parse(const json::Value& doc) const override;
  Diagnostic Render(const Fault& fault) const override;
};

}  // namespace engram::filter

#endif  // ENGRAM_FILTER_DIALECTS_VECTOR_FILTER_H_
