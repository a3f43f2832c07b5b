#include "search/explain.h"

#include <utility>

#include "filter/ir/printer.h"

namespace engram::search {

std::string_view ModeName(Mode mode) {
  switch (mode) {
    case Mode::kText:
      return "text";
    case Mode::kVector:
      return "vector";
    case Mode::kHybrid:
      return "hybrid";
  }
  return "hybrid";
}

std::string_view FilterModeName(FilterMode mode) {
  switch (mode) {
    case FilterMode::kAuto:
      return "auto";
    case FilterMode::kPre:
      return "pre";
    case FilterMode::kPost:
      return "post";
  }
  return "auto";
}

json::Value QueryExplain(const text::DefaultQuery& query) {
  json::Value out = text::QueryJson(query);
  out["compact"] = text::Explain(query);
  return out;
}

json::Value ScopeExplain(const filter::CompiledFilter& scope, std::size_t readable) {
  json::Value out = json::Value::object();
  out["filter"] = filter::ToSexpr(scope.checked);
  out["readable"] = readable;
  out["note"] =
      "counts are over the readable records; BM25 term statistics (idf, average lengths) are "
      "collection-wide, and figures of work over the whole index are left out";
  return out;
}

json::Value FilterExplain(const filter::CompiledFilter& filter, FilterMode mode,
                          std::string_view mode_reason, std::size_t live,
                          std::optional<double> estimate, std::optional<std::size_t> allowed) {
  json::Value out = json::Value::object();
  out["checked"] = filter::ToJson(filter.checked);
  out["checked_sexpr"] = filter::ToSexpr(filter.checked);
  out["optimized"] = filter::ToJson(filter.optimized);
  out["optimized_sexpr"] = filter::ToSexpr(filter.optimized);
  out["mode"] = FilterModeName(mode);
  out["mode_reason"] = mode_reason;
  out["live"] = live;
  out["estimate"] = estimate ? json::Value(*estimate) : json::Value(nullptr);
  if (allowed) {
    out["allowed"] = *allowed;
    out["selectivity"] =
        live == 0 ? 0.0 : static_cast<double>(*allowed) / static_cast<double>(live);
  } else {
    out["allowed"] = nullptr;
    out["selectivity"] = nullptr;
  }
  return out;
}

json::Value TextExplain(const TextRun& run, std::size_t fetch_k, double max_bm25, bool work) {
  json::Value out = json::Value::object();
  out["fetch_k"] = fetch_k;
  out["hits"] = run.hits.size();
  out["postings_scored"] = work ? json::Value(run.stats.postings_scored) : json::Value(nullptr);
  out["candidates"] = work ? json::Value(run.stats.candidates) : json::Value(nullptr);
  out["relaxed"] = run.stats.relaxed;
  out["max_bm25"] = max_bm25;
  out["micros"] = run.micros;
  return out;
}

json::Value VectorExplainJson(const VectorRun& run, std::size_t fetch_k, vector::Metric metric,
                              std::optional<std::size_t> scoped_live) {
  const vector::VectorExplain& e = run.explain;
  json::Value out = json::Value::object();
  out["fetch_k"] = fetch_k;
  out["hits"] = run.hits.size();
  out["metric"] = vector::MetricName(metric);
  out["quantized"] = e.quantized;
  out["allowed"] = e.allowed;
  if (scoped_live) {
    out["plan"] = nullptr;
    out["reason"] = nullptr;
    out["live"] = *scoped_live;
    out["selectivity"] = *scoped_live == 0
                             ? 0.0
                             : static_cast<double>(e.allowed) / static_cast<double>(*scoped_live);
    out["local_selectivity"] = nullptr;
    out["ef"] = nullptr;
    out["distances"] = nullptr;
  } else {
    out["plan"] = vector::VectorPlanName(e.plan);
    out["reason"] = e.reason;
    out["live"] = e.live;
    out["selectivity"] = e.selectivity;
    out["local_selectivity"] =
        e.local_selectivity < 0 ? json::Value(nullptr) : json::Value(e.local_selectivity);
    out["ef"] = e.ef;
    out["distances"] = e.distances;
  }
  out["micros"] = run.micros;
  return out;
}

}  // namespace engram::search
