// `engram search` and `engram delete`.
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>

#include "cli/engine_commands.h"
#include "cli/output.h"
#include "cli/store_option.h"
#include "engram/engine.h"

namespace engram::cli {
namespace {

// The --vector argument: a JSON array of finite numbers.
bool ParseVector(const std::string& text, std::vector<float>* v, std::ostream& err) {
  Json doc = Json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_array() || doc.empty()) {
    err << "engram: --vector: expected a JSON array of numbers, e.g. [0.1, 0.2]\n";
    return false;
  }
  for (std::size_t i = 0; i < doc.size(); ++i) {
    if (!doc[i].is_number() || !std::isfinite(doc[i].get<double>())) {
      err << "engram: --vector: element " << i << " is not a finite number\n";
      return false;
    }
    v->push_back(doc[i].get<float>());
  }
  return true;
}

// A one-line preview of a record for people: its text-like fields.
std::string Preview(const std::string& record, const CollectionSpec& spec) {
  Json doc = Json::parse(record, nullptr, false);
  std::string text;
  for (const TextFieldSpec& f : spec.text) {
    auto it = doc.find(f.name);
    if (it == doc.end() || !it->is_string()) continue;
    if (!text.empty()) text += " | ";
    text += it->get<std::string>();
  }
  if (text.size() > 110) {
    std::size_t cut = 107;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text = text.substr(0, cut) + "...";
  }
  return text;
}

void PrintHuman(const SearchResponse& r, const CollectionSpec& spec, std::ostream& out) {
  if (r.hits.empty()) out << "no results\n";
  for (std::size_t i = 0; i < r.hits.size(); ++i) {
    const SearchHit& h = r.hits[i];
    char line[160];
    std::snprintf(line, sizeof line, "%2zu. %-28s score %.4f", i + 1, h.id.c_str(), h.score);
    out << line;
    if (h.bm25) out << "  bm25 " << std::round(*h.bm25 * 1000) / 1000;
    if (h.distance) out << "  distance " << std::round(*h.distance * 10000) / 10000;
    if (h.final_score) {
      out << "  relevance " << std::round(h.relevance * 10000) / 10000;
      if (h.decay) out << "  decay " << std::round(*h.decay * 10000) / 10000;
      if (h.boost) out << "  boost " << std::round(*h.boost * 10000) / 10000;
      out << "  final " << std::round(*h.final_score * 10000) / 10000;
    }
    out << '\n';
    const std::string preview = Preview(h.record, spec);
    if (!preview.empty()) out << "    " << preview << '\n';
  }
  if (!r.filter_impact.empty()) {
    Json impact = Json::parse(r.filter_impact);
    out << "filter impact: " << impact.value("candidate_count_pre", 0) << " candidates, "
        << impact.value("candidate_count_post", 0) << " pass the filter, "
        << impact.value("dropped_total", 0) << " dropped";
    for (const Json& reason : impact.value("top_drop_reasons", Json::array())) {
      out << "; " << reason.value("reason", "") << " x" << reason.value("count", 0);
    }
    out << '\n';
  }
  if (!r.explain.empty()) out << "explain: " << Json::parse(r.explain).dump(2) << '\n';
}

}  // namespace

bool ParseDialect(const EngineOptions& o, std::optional<FilterDialect>* dialect,
                  std::ostream& err) {
  if (o.filter.empty()) return true;
  if (o.dialect.empty()) {
    err << "engram: --filter needs --dialect (retrieve, expr_v1, vector_filter, search_memory)\n";
    return false;
  }
  *dialect = FilterDialectFromName(o.dialect);
  if (!*dialect) {
    err << "engram: unknown dialect '" << o.dialect
        << "' (expected retrieve, expr_v1, vector_filter, search_memory)\n";
    return false;
  }
  return true;
}

int RunSearch(const EngineOptions& o, std::istream&, std::ostream& out, std::ostream& err) {
  SearchRequest request;
  if (o.has_query) request.query = o.query;
  if (!o.vector.empty()) {
    std::vector<float> v;
    if (!ParseVector(o.vector, &v, err)) return 2;
    request.vector = std::move(v);
  }
  if (!request.query && !request.vector) {
    err << "engram: search needs --query, --vector, or both\n";
    return 2;
  }
  if (!o.mode.empty()) request.mode = SearchModeFromName(o.mode);
  if (!ParseDialect(o, &request.dialect, err)) return 2;
  request.filter = o.filter;
  request.k = o.k;
  if (o.candidate_k > 0) request.candidate_k = o.candidate_k;
  request.filter_mode = *FilterModeFromName(o.filter_mode);
  request.threshold = o.threshold;
  request.score_threshold = o.score_threshold;
  if (!ParseFusionOption(o.fusion, &request.fusion, err)) return 2;
  request.anchor = o.anchor;
  request.as_of = o.as_of;
  if (!ParseRanking(o, &request.decay, &request.boost, err)) return 2;
  request.explain = o.explain;
  request.impact = o.impact;

  StatusOr<std::unique_ptr<Engine>> engine = OpenStore(o.db, "engram search");
  if (!engine.ok()) return ReportStatus(engine.status(), err);
  StatusOr<CollectionInfo> info = (*engine)->DescribeCollection(o.collection);
  if (!info.ok()) return ReportStatus(info.status(), err);
  StatusOr<SearchResponse> r = (*engine)->Search(o.collection, request);
  if (!r.ok()) return ReportStatus(r.status(), err);
  if (r->rejected) {
    err << "engram: " << r->rejected->message << '\n';
    return WriteRejected(out, DiagnosticJson(*r->rejected));
  }
  if (!o.json) {
    PrintHuman(*r, info->spec, out);
    return 0;
  }
  Json hits = Json::array();
  for (const SearchHit& h : r->hits) {
    Json hit = {{"id", h.id}, {"score", h.score}, {"relevance", h.relevance}};
    if (h.bm25) hit["bm25"] = *h.bm25;
    if (h.distance) hit["distance"] = *h.distance;
    if (h.decay) hit["decay"] = *h.decay;
    if (h.boost) hit["boost"] = *h.boost;
    if (h.final_score) hit["final_score"] = *h.final_score;
    hit["record"] = Json::parse(h.record);
    hits.push_back(std::move(hit));
  }
  Json doc = {{"hits", std::move(hits)}};
  if (!r->filter_impact.empty()) doc["filter_impact"] = Json::parse(r->filter_impact);
  if (!r->explain.empty()) doc["explain"] = Json::parse(r->explain);
  out << Dump(doc) << '\n';
  return 0;
}

int RunDelete(const EngineOptions& o, std::istream&, std::ostream& out, std::ostream& err) {
  if (o.ids.empty() && o.filter.empty()) {
    err << "engram: delete needs --id or --filter\n";
    return 2;
  }
  std::optional<FilterDialect> dialect;
  if (!ParseDialect(o, &dialect, err)) return 2;
  StatusOr<std::unique_ptr<Engine>> engine = OpenStore(o.db, "engram delete");
  if (!engine.ok()) return ReportStatus(engine.status(), err);
  StatusOr<WriteResult> r = o.ids.empty() ? (*engine)->DeleteWhere(o.collection, *dialect, o.filter)
                                          : (*engine)->Delete(o.collection, o.ids);
  if (!r.ok()) return ReportStatus(r.status(), err);
  if (r->rejected) {
    err << "engram: " << r->rejected->message << '\n';
    return WriteRejected(out, DiagnosticJson(*r->rejected));
  }
  if (o.json) {
    out << Dump(Json{{"ok", true}, {"deleted", r->written}}) << '\n';
  } else {
    out << "deleted " << r->written << (r->written == 1 ? " record" : " records") << '\n';
  }
  return 0;
}

}  // namespace engram::cli
