#include "search/fusion.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>

#include "search/thresholds.h"

namespace engram::search {
namespace {

constexpr std::size_t kMaxRrfK = 1000000;

std::size_t BestRank(const Hit& h) {
  std::size_t best = std::numeric_limits<std::size_t>::max();
  if (h.text_rank) best = std::min(best, *h.text_rank);
  if (h.vector_rank) best = std::min(best, *h.vector_rank);
  return best;
}

double Similarity(const Hit& h, vector::Metric metric) {
  return VectorSimilarity(metric, h.distance.value_or(0));
}

// The normaliser of one retriever over its candidates' raw scores.
Normaliser Fit(const std::vector<double>& scores, Normalization n) {
  Normaliser out;
  out.candidates = scores.size();
  if (scores.empty()) return out;
  const auto [lo, hi] = std::minmax_element(scores.begin(), scores.end());
  if (n == Normalization::kMinMax) {
    out.shift = *lo;
    out.scale = *hi > *lo ? *hi - *lo : 1;  // all equal: each scores 0
    out.missing = 0;
    return out;
  }
  double mean = 0;
  for (double s : scores) mean += s;
  mean /= static_cast<double>(scores.size());
  double var = 0;
  for (double s : scores) var += (s - mean) * (s - mean);
  const double sd = std::sqrt(var / static_cast<double>(scores.size()));
  out.shift = mean;
  out.scale = sd > 0 ? sd : 1;
  out.missing = out.Apply(*lo);
  return out;
}

}  // namespace

std::string_view FusionMethodName(FusionMethod method) {
  switch (method) {
    case FusionMethod::kRrf:
      return "rrf";
    case FusionMethod::kWeightedRrf:
      return "weighted_rrf";
    case FusionMethod::kConvex:
      return "convex";
  }
  return "rrf";
}

std::optional<FusionMethod> FusionMethodFromName(std::string_view name) {
  if (name == "rrf") return FusionMethod::kRrf;
  if (name == "weighted_rrf") return FusionMethod::kWeightedRrf;
  if (name == "convex") return FusionMethod::kConvex;
  return std::nullopt;
}

std::string_view NormalizationName(Normalization n) {
  return n == Normalization::kMinMax ? "min_max" : "z_score";
}

std::optional<Normalization> NormalizationFromName(std::string_view name) {
  if (name == "min_max") return Normalization::kMinMax;
  if (name == "z_score") return Normalization::kZScore;
  return std::nullopt;
}

Status CheckFusion(const Fusion& f) {
  if (f.rrf_k > kMaxRrfK) {
    return Status::InvalidArgument("fusion.rrf_k: must be between 0 and " +
                                   std::to_string(kMaxRrfK) + ", got " + std::to_string(f.rrf_k));
  }
  for (const auto& [name, w] : {std::pair("text", f.text_weight), {"vector", f.vector_weight}}) {
    if (!std::isfinite(w) || w < 0 || w > 1e6) {
      return Status::InvalidArgument(std::string("fusion.weights.") + name +
                                     ": must be a number within [0, 1000000], got " +
                                     json::Dump(w));
    }
  }
  if (f.text_weight == 0 && f.vector_weight == 0) {
    return Status::InvalidArgument("fusion.weights: text and vector cannot both be 0");
  }
  if (!(f.alpha >= 0 && f.alpha <= 1)) {
    return Status::InvalidArgument("fusion.alpha: must be within [0, 1], got " +
                                   json::Dump(f.alpha));
  }
  return Status::Ok();
}

Components FusionComponents(const Hit& h, const FusionContext& c) {
  const Fusion& f = c.fusion;
  Components out;
  if (f.method == FusionMethod::kConvex) {
    const double t = h.text_rank && h.bm25 ? c.text.Apply(*h.bm25) : c.text.missing;
    const double v =
        h.vector_rank && h.distance ? c.vector.Apply(Similarity(h, c.metric)) : c.vector.missing;
    out.text = (1 - f.alpha) * t;
    out.vector = f.alpha * v;
    return out;
  }
  const double k = static_cast<double>(f.rrf_k);
  const bool weighted = f.method == FusionMethod::kWeightedRrf;
  if (h.text_rank) {
    out.text = (weighted ? f.text_weight : 1.0) / (k + static_cast<double>(*h.text_rank));
  }
  if (h.vector_rank) {
    out.vector = (weighted ? f.vector_weight : 1.0) / (k + static_cast<double>(*h.vector_rank));
  }
  return out;
}

std::vector<Hit> Fuse(const std::vector<Hit>& text, const std::vector<Hit>& vector,
                      const Fusion& fusion, vector::Metric metric, FusionContext* context) {
  context->fusion = fusion;
  context->metric = metric;
  if (fusion.method == FusionMethod::kConvex) {
    std::vector<double> scores;
    for (const Hit& h : text) scores.push_back(h.bm25.value_or(0));
    context->text = Fit(scores, fusion.normalization);
    scores.clear();
    for (const Hit& h : vector) scores.push_back(Similarity(h, metric));
    context->vector = Fit(scores, fusion.normalization);
  }
  std::vector<Hit> out;
  out.reserve(text.size() + vector.size());
  std::unordered_map<std::uint32_t, std::size_t> at;  // record -> index in out
  at.reserve(text.size() + vector.size());
  for (const Hit& h : text) {
    if (at.emplace(h.doc, out.size()).second) out.push_back(h);
  }
  for (const Hit& h : vector) {
    auto [it, added] = at.emplace(h.doc, out.size());
    if (added) {
      out.push_back(h);
      continue;
    }
    Hit& merged = out[it->second];
    merged.vector_rank = h.vector_rank;
    merged.distance = h.distance;
  }
  for (Hit& h : out) {
    // Text's term is added first, so equal rank pairs give bit-equal sums.
    const Components c = FusionComponents(h, *context);
    h.score = c.text + c.vector;
  }
  std::sort(out.begin(), out.end(), [](const Hit& a, const Hit& b) {
    if (a.score != b.score) return a.score > b.score;
    const std::size_t ra = BestRank(a), rb = BestRank(b);
    if (ra != rb) return ra < rb;
    return a.doc < b.doc;
  });
  return out;
}

double RrfScore(const Hit& hit, std::size_t rrf_k) {
  FusionContext c;
  c.fusion.rrf_k = rrf_k;
  const Components parts = FusionComponents(hit, c);
  return parts.text + parts.vector;
}

std::vector<Hit> FuseRrf(const std::vector<Hit>& text, const std::vector<Hit>& vector,
                         std::size_t rrf_k) {
  Fusion f;
  f.rrf_k = rrf_k;
  FusionContext unused;
  return Fuse(text, vector, f, vector::Metric::kCosine, &unused);
}

json::Value FusionExplain(const FusionContext& c, const std::vector<Hit>& hits) {
  const Fusion& f = c.fusion;
  json::Value ex = json::Value::object();
  ex["method"] = FusionMethodName(f.method);
  switch (f.method) {
    case FusionMethod::kRrf:
      ex["rrf_k"] = f.rrf_k;
      ex["score"] = "sum of 1/(rrf_k + rank) over the lists";
      break;
    case FusionMethod::kWeightedRrf:
      ex["rrf_k"] = f.rrf_k;
      ex["weights"] = {{"text", f.text_weight}, {"vector", f.vector_weight}};
      ex["score"] = "sum of weight/(rrf_k + rank) over the lists";
      break;
    case FusionMethod::kConvex: {
      ex["alpha"] = f.alpha;
      ex["normalization"] = NormalizationName(f.normalization);
      ex["score"] =
          "alpha x N(vector similarity) + (1 - alpha) x N(bm25); a list the record is not in "
          "gives its missing value";
      auto norm = [&](const Normaliser& n) {
        json::Value v = {{"candidates", n.candidates}, {"missing", n.missing}};
        if (f.normalization == Normalization::kMinMax) {
          v["min"] = n.shift;
          v["max"] = n.shift + n.scale;
        } else {
          v["mean"] = n.shift;
          v["stddev"] = n.scale;
        }
        return v;
      };
      ex["normalizers"] = {{"text", norm(c.text)}, {"vector", norm(c.vector)}};
      break;
    }
  }
  ex["ties"] = "better single-list rank, then record number";
  json::Value list = json::Value::array();
  auto opt = [](auto x) { return x ? json::Value(*x) : json::Value(nullptr); };
  for (std::size_t i = 0; i < hits.size(); ++i) {
    const Hit& h = hits[i];
    const Components parts = FusionComponents(h, c);
    json::Value e = json::Value::object();
    e["rank"] = i + 1;
    e["doc"] = h.doc;
    e["text_rank"] = opt(h.text_rank);
    e["bm25"] = h.text_rank ? opt(h.bm25) : json::Value(nullptr);
    e["text"] = parts.text;
    e["vector_rank"] = opt(h.vector_rank);
    e["similarity"] =
        h.vector_rank && h.distance ? json::Value(Similarity(h, c.metric)) : json::Value(nullptr);
    e["vector"] = parts.vector;
    e["score"] = h.score;
    list.push_back(std::move(e));
  }
  ex["hits"] = std::move(list);
  return ex;
}

}  // namespace engram::search
