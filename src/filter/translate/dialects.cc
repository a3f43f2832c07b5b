#include "filter/translate/targets.h"

namespace engram::filter::detail {
namespace {
TranslateResult Nothing(const Node& root, const Schema&) { return Unsupported{&root, "anything yet"}; }
}  // namespace

const TargetSpec& RetrieveTarget() {
  static const TargetSpec spec{Target::kRetrieve, "retrieve", "", ConstructSet(), Nothing};
  return spec;
}

const TargetSpec& ExprV1Target() {
  static const TargetSpec spec{Target::kExprV1, "expr_v1", "", ConstructSet(), Nothing};
  return spec;
}

const TargetSpec& VectorFilterTarget() {
  static const TargetSpec spec{Target::kVectorFilter, "vector_filter", "", ConstructSet(), Nothing};
  return spec;
}

}  // namespace engram::filter::detail
