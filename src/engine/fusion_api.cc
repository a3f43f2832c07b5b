// FusionSpec's text form and its mapping to search::Fusion
// (include/engram/engine.h).
#include <charconv>
#include <cstdlib>
#include <set>
#include <string>

#include "base/status.h"
#include "engine/internal.h"
#include "search/fusion.h"

namespace engram {
namespace {

Status Bad(std::string_view what) {
  return Status::InvalidArgument("fusion: " + std::string(what));
}

StatusOr<double> Real(std::string_view name, std::string_view value) {
  const std::string v(value);
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size()) {
    return Bad(std::string(name) + ": expected a number, got '" + v + "'");
  }
  return x;
}

}  // namespace

StatusOr<FusionSpec> ParseFusion(std::string_view text) {
  const std::size_t colon = text.find(':');
  FusionSpec spec;
  spec.method = text.substr(0, colon);
  const std::optional<search::FusionMethod> method = search::FusionMethodFromName(spec.method);
  if (!method) {
    return Bad("unknown method '" + spec.method + "' (known: rrf, weighted_rrf, convex)");
  }
  std::string_view params = colon == std::string_view::npos ? "" : text.substr(colon + 1);
  std::set<std::string, std::less<>> seen;
  while (!params.empty()) {
    const std::size_t comma = params.find(',');
    const std::string_view param = params.substr(0, comma);
    params = comma == std::string_view::npos ? "" : params.substr(comma + 1);
    const std::size_t eq = param.find('=');
    if (eq == std::string_view::npos) {
      return Bad("expected NAME=VALUE, got '" + std::string(param) + "'");
    }
    const std::string name(param.substr(0, eq));
    const std::string_view value = param.substr(eq + 1);
    if (!seen.insert(name).second) return Bad(name + ": given twice");
    const bool rrf = *method != search::FusionMethod::kConvex;
    if (name == "k" && rrf) {
      std::size_t k = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), k);
      if (ec != std::errc() || end != value.data() + value.size()) {
        return Bad("k: expected an integer, got '" + std::string(value) + "'");
      }
      spec.rrf_k = k;
    } else if ((name == "text" || name == "vector") &&
               *method == search::FusionMethod::kWeightedRrf) {
      ASSIGN_OR_RETURN((name == "text" ? spec.text_weight : spec.vector_weight), Real(name, value));
    } else if (name == "alpha" && !rrf) {
      ASSIGN_OR_RETURN(spec.alpha, Real(name, value));
    } else if (name == "normalization" && !rrf) {
      spec.normalization = value;
    } else {
      return Bad(name + ": not a parameter of " + spec.method + " (" +
                 (*method == search::FusionMethod::kRrf           ? "k"
                  : *method == search::FusionMethod::kWeightedRrf ? "text, vector, k"
                                                                  : "alpha, normalization") +
                 ")");
    }
  }
  RETURN_IF_ERROR(ToInternal(spec).status());
  return spec;
}

std::string FusionText(const FusionSpec& spec) {
  if (spec.method == "weighted_rrf") {
    return "weighted_rrf:text=" + json::Dump(spec.text_weight) +
           ",vector=" + json::Dump(spec.vector_weight) + ",k=" + std::to_string(spec.rrf_k);
  }
  if (spec.method == "convex") {
    return "convex:alpha=" + json::Dump(spec.alpha) + ",normalization=" + spec.normalization;
  }
  return spec.method + ":k=" + std::to_string(spec.rrf_k);
}

// Chosen on BEIR SciFact (bench/RESULTS.md "Fusion"): tuned on 100 claims,
// the only fusion at least as good as the better of BM25 and dense retrieval
// on the other 200; equal-weight RRF lost 0.16 nDCG@10 to BM25 alone there.
FusionSpec DefaultEmbedderFusion() {
  FusionSpec f;
  f.method = "convex";
  f.alpha = 0.35;
  f.normalization = "z_score";
  return f;
}

search::Fusion DefaultFusion(const CollectionSpec& spec) {
  if (spec.fusion) {
    StatusOr<search::Fusion> f = ToInternal(*spec.fusion);  // checked when stored
    if (f.ok()) return *f;
  }
  if (!spec.embedder.empty()) return ToInternal(DefaultEmbedderFusion()).value();
  return search::Fusion{};
}

StatusOr<search::Fusion> ToInternal(const FusionSpec& spec) {
  search::Fusion f;
  const std::optional<search::FusionMethod> method = search::FusionMethodFromName(spec.method);
  if (!method) {
    return Bad("unknown method '" + spec.method + "' (known: rrf, weighted_rrf, convex)");
  }
  const std::optional<search::Normalization> n = search::NormalizationFromName(spec.normalization);
  if (!n) {
    return Bad("normalization: unknown '" + spec.normalization + "' (known: min_max, z_score)");
  }
  f.method = *method;
  f.rrf_k = spec.rrf_k;
  f.text_weight = spec.text_weight;
  f.vector_weight = spec.vector_weight;
  f.alpha = spec.alpha;
  f.normalization = *n;
  const Status checked = search::CheckFusion(f);
  if (!checked.ok()) {
    // "fusion.alpha: ..." -> "fusion: alpha: ..."
    std::string m = checked.message();
    if (m.rfind("fusion.", 0) == 0) m = m.substr(7);
    return Bad(m);
  }
  return f;
}

}  // namespace engram
