#include "search/ranking.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <variant>

#include "search/search.h"

namespace engram::search {
namespace {

const Value* ValueOf(const index::MetadataIndex& metadata, std::uint32_t doc, std::uint32_t slot) {
  const std::vector<Value>* row = metadata.Row(doc);
  if (row == nullptr || slot >= row->size()) return nullptr;
  return &(*row)[slot];
}

}  // namespace

std::string_view DecayFunctionName(DecayFunction function) {
  switch (function) {
    case DecayFunction::kExp:
      return "exp";
    case DecayFunction::kGauss:
      return "gauss";
    case DecayFunction::kLinear:
      return "linear";
  }
  return "exp";
}

double DecayValue(DecayFunction function, double distance, double scale, double offset) {
  const double d = std::max(0.0, distance - offset);
  switch (function) {
    case DecayFunction::kExp:
      return std::exp(std::log(kDecayAtScale) * d / scale);
    case DecayFunction::kGauss: {
      const double sigma2 = -scale * scale / (2 * std::log(kDecayAtScale));
      return std::exp(-d * d / (2 * sigma2));
    }
    case DecayFunction::kLinear: {
      const double s = scale / (1 - kDecayAtScale);
      return std::max(0.0, (s - d) / s);
    }
  }
  return 1;
}

double DecayFactor(const Decay& decay, const index::MetadataIndex& metadata, std::uint32_t doc) {
  const Value* v = ValueOf(metadata, doc, decay.slot);
  const Datetime* t = v != nullptr ? std::get_if<Datetime>(v) : nullptr;
  if (t == nullptr) return 1;
  const double distance =
      std::abs(static_cast<double>(t->micros) - static_cast<double>(decay.origin.micros));
  return std::max(decay.floor,
                  DecayValue(decay.function, distance, decay.scale_micros, decay.offset_micros));
}

double BoostFactor(const Boost& boost, const index::MetadataIndex& metadata, std::uint32_t doc) {
  const Value* v = ValueOf(metadata, doc, boost.slot);
  double value = 0;
  if (v != nullptr) {
    if (const double* d = std::get_if<double>(v)) value = *d;
    if (const std::int64_t* i = std::get_if<std::int64_t>(v)) value = static_cast<double>(*i);
  }
  return std::max(0.0, 1 + boost.weight * value);
}

std::string_view RankingBaseName(RankingBase base) {
  switch (base) {
    case RankingBase::kRelevance:
      return "relevance";
    case RankingBase::kFusedScore:
      return "fused_score";
    case RankingBase::kFusedRank:
      return "fused_rank";
  }
  return "relevance";
}

json::Value ApplyRanking(const Ranking& ranking, RankingBase base, std::size_t rrf_k,
                         const index::MetadataIndex& metadata, std::vector<Hit>* hits) {
  for (std::size_t i = 0; i < hits->size(); ++i) {
    Hit& h = (*hits)[i];
    switch (base) {
      case RankingBase::kRelevance:
        h.base = h.relevance;
        break;
      case RankingBase::kFusedScore:
        h.base = std::max(0.0, h.score);
        break;
      case RankingBase::kFusedRank:
        h.base = 1.0 / static_cast<double>(rrf_k + i + 1);
        break;
    }
    double final_score = *h.base;
    if (ranking.decay) {
      h.decay = DecayFactor(*ranking.decay, metadata, h.doc);
      final_score *= *h.decay;
    }
    if (ranking.boost) {
      h.field_boost = BoostFactor(*ranking.boost, metadata, h.doc);
      final_score *= *h.field_boost;
    }
    h.final_score = final_score;
  }
  std::stable_sort(hits->begin(), hits->end(),
                   [](const Hit& a, const Hit& b) { return *a.final_score > *b.final_score; });
  json::Value out = json::Value::object();
  out["formula"] = "final_score = base * decay * boost";
  out["base"] = RankingBaseName(base);
  if (base == RankingBase::kFusedRank) out["rrf_k"] = rrf_k;
  out["decay"] = nullptr;
  if (ranking.decay) {
    const Decay& d = *ranking.decay;
    out["decay"] = {{"field", metadata.schema().field(d.slot).name},
                    {"function", DecayFunctionName(d.function)},
                    {"scale_seconds", d.scale_micros / 1e6},
                    {"offset_seconds", d.offset_micros / 1e6},
                    {"floor", d.floor},
                    {"decay_at_scale", kDecayAtScale},
                    {"origin", FormatDatetime(d.origin)}};
  }
  out["boost"] = nullptr;
  if (ranking.boost) {
    out["boost"] = {{"field", metadata.schema().field(ranking.boost->slot).name},
                    {"weight", ranking.boost->weight},
                    {"factor", "max(0, 1 + weight * value), value 0 when absent"}};
  }
  out["ranked"] = hits->size();
  return out;
}

json::Value RankedHitsJson(const std::vector<Hit>& hits) {
  json::Value out = json::Value::array();
  for (std::size_t i = 0; i < hits.size(); ++i) {
    const Hit& h = hits[i];
    out.push_back({{"position", i + 1},
                   {"relevance", h.relevance},
                   {"base", h.base ? json::Value(*h.base) : json::Value(nullptr)},
                   {"decay", h.decay ? json::Value(*h.decay) : json::Value(nullptr)},
                   {"boost", h.field_boost ? json::Value(*h.field_boost) : json::Value(nullptr)},
                   {"final_score", h.final_score ? json::Value(*h.final_score) : json::Value()}});
  }
  return out;
}

}  // namespace engram::search
