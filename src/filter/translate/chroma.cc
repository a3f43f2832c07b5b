#include "filter/translate/targets.h"

namespace engram::filter::detail {
namespace {
TranslateResult Nothing(const Node& root, const Schema&) { return Unsupported{&root, "anything yet"}; }
}  // namespace

const TargetSpec& ChromaTarget() {
  static const TargetSpec spec{Target::kChroma, "chroma", "", ConstructSet(), Nothing};
  return spec;
}

}  // namespace engram::filter::detail
