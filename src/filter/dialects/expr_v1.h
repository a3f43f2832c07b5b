// `expr_v1`: the `search_filter_expr/v1` envelope of seed 004 (FILTERS.md
// §2.2). Ops and/or (args), not (expr), leaves eq neq in contains gt gte lt
// lte with field and value. Errors are `<JSONPath>: <message>` with the
// reference service's wording (FILTERS.md Appendix A), code 400.
#ifndef ENGRAM_FILTER_DIALECTS_EXPR_V1_H_
#define ENGRAM_FILTER_DIALECTS_EXPR_V1_H_

#include "filter/dialects/dialect.h"

namespace engram::filter {

inline constexpr std::string_view kExprV1Schema = "search_filter_expr/v1";
inline constexpr std::size_t kExprV1MaxInList = 128;
inline constexpr std::size_t kExprV1MaxStringBytes = 512;

class ExprV1Dialect final : public DialectSpec {
 public:
  Dialect id() const override { return Dialect::kExprV1; }
  int code() const override { return 400; }
  const Policy& policy() const override;
  ast::Tree Parse(const json::Value& doc) const override;
  Diagnostic Render(const Fault& fault) const override;
};

}  // namespace engram::filter

#endif  // ENGRAM_FILTER_DIALECTS_EXPR_V1_H_
