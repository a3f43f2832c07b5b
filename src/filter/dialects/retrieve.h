// `retrieve`: the Retrieve node's filter grammar (seed 000, FILTERS.md §2.1).
// Ops and/or (args), not (arg), eq ne lt le gt ge (lhs, rhs), in (needle,
// haystack); operands {"knowledge": field} or {"value": literal}. Errors read
// `filter.<kind>: at <path>: <detail>` with code 3007 (InvalidParamValue).
#ifndef ENGRAM_FILTER_DIALECTS_RETRIEVE_H_
#define ENGRAM_FILTER_DIALECTS_RETRIEVE_H_

#include "filter/dialects/dialect.h"

namespace engram::filter {

class RetrieveDialect final : public DialectSpec {
 public:
  Dialect id() const override { return Dialect::kRetrieve; }
  int code() const override { return 3007; }
  const Policy& policy() const override;
  ast::Tree Parse(const json::Value& doc) const override;
  Diagnostic Render(const Fault& fault) const override;
  Path LocateReadFault(const Path& p) const override;
};

}  // namespace engram::filter

#endif  // ENGRAM_FILTER_DIALECTS_RETRIEVE_H_
