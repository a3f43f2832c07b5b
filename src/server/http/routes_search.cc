// /v1/collections/{name}/search and the filter tools (check, translate).
#include "server/http/api.h"

namespace engram::server::http {
namespace {

// Where a rejected search's diagnostic points in the request.
std::string BaseFor(const Diagnostic& d) {
  if (d.kind.rfind("filter.", 0) == 0) return "$.filter";
  if (d.kind.rfind("query.", 0) == 0) return "$.query";
  return "$";
}

}  // namespace

nlohmann::json SearchResponseJson(const SearchResponse& response) {
  nlohmann::json hits = nlohmann::json::array();
  for (const SearchHit& h : response.hits) {
    nlohmann::json hit = {{"id", h.id}, {"score", h.score}, {"relevance", h.relevance}};
    if (h.bm25) hit["bm25"] = *h.bm25;
    if (h.distance) hit["distance"] = *h.distance;
    hit["record"] = JsonOrString(h.record);
    hits.push_back(std::move(hit));
  }
  nlohmann::json doc = {{"hits", std::move(hits)}};
  if (!response.filter_impact.empty()) doc["filter_impact"] = JsonOrString(response.filter_impact);
  if (!response.explain.empty()) doc["explain"] = JsonOrString(response.explain);
  return doc;
}

HttpResponse Api::Search(const Call& call) {
  Decoded<SearchRequest> request = DecodeSearch(call.body, options_.limits);
  if (!request.ok()) return ProblemResponse(request.problem());
  request.value().scope = call.principal.scope();
  StatusOr<SearchResponse> r = engine_->Search(call.match.name, request.value());
  if (!r.ok()) return ProblemResponse(FromStatus(r.status()));
  if (r->rejected) {
    const Diagnostic& d = *r->rejected;
    std::optional<FilterDialect> dialect;
    if (BaseFor(d) == "$.filter") dialect = request.value().dialect;
    return ProblemResponse(FromDiagnostic(d, BaseFor(d), dialect));
  }
  return JsonResponse(200, SearchResponseJson(*r));
}

HttpResponse Api::CheckFilter(const Call& call, bool translate) {
  Decoded<FilterBody> body = DecodeFilter(call.body, options_.limits, translate);
  if (!body.ok()) return ProblemResponse(body.problem());
  const FilterBody& f = body.value();
  StatusOr<CollectionInfo> info = engine_->DescribeCollection(call.match.name);
  if (!info.ok()) return ProblemResponse(FromStatus(info.status()));
  Checked<CompiledFilterRef> compiled =
      CompiledFilterRef::Compile(f.dialect, info->spec.schema, f.filter);
  if (!compiled.ok()) {
    return ProblemResponse(FromDiagnostic(compiled.diagnostic(), "$.filter", f.dialect));
  }
  if (!translate) {
    return JsonResponse(200, {{"ok", true},
                              {"ir", JsonOrString(compiled.value().IrJson())},
                              {"ir_sexpr", compiled.value().IrSexpr()}});
  }
  Checked<FilterTranslation> t = compiled.value().Translate(f.target);
  if (!t.ok()) {
    Problem p = FromDiagnostic(t.diagnostic(), "$.filter", f.dialect);
    // An unknown target is reported at the root of the filter; point at it.
    bool known = false;
    for (const std::string& name : FilterTranslationTargets()) known |= name == f.target;
    if (!known) p.path = "$.target";
    return ProblemResponse(p);
  }
  return JsonResponse(200, {{"target", t.value().target},
                            {"filter", JsonOrString(t.value().filter)},
                            {"params", JsonOrString(t.value().params)}});
}

}  // namespace engram::server::http
