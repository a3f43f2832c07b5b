#include "filter/translate/targets.h"

namespace engram::filter::detail {
namespace {
TranslateResult Nothing(const Node& root, const Schema&) { return Unsupported{&root, "anything yet"}; }
}  // namespace

const TargetSpec& LancedbTarget() {
  static const TargetSpec spec{Target::kLancedb, "lancedb", "", ConstructSet(), Nothing};
  return spec;
}

}  // namespace engram::filter::detail
