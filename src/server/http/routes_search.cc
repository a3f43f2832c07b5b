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

HttpResponse SearchReply(const SearchResponse& response) {
  // Written directly rather than through nlohmann::json: each hit's record
  // is already a JSON object text (the engine stored it after validating
  // it), and parsing it only to print it again was the largest part of the
  // server's per-request cost (bench/server).
  auto number = [](double v) { return nlohmann::json(v).dump(); };
  HttpResponse reply;
  std::string& out = reply.body;
  out = "{\"hits\":[";
  for (std::size_t i = 0; i < response.hits.size(); ++i) {
    const SearchHit& h = response.hits[i];
    if (i > 0) out += ',';
    out += "{\"id\":";
    out += nlohmann::json(h.id).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    out += ",\"score\":" + number(h.score) + ",\"relevance\":" + number(h.relevance);
    if (h.bm25) out += ",\"bm25\":" + number(*h.bm25);
    if (h.distance) out += ",\"distance\":" + number(*h.distance);
    out += ",\"record\":";
    out += h.record;
    out += '}';
  }
  out += ']';
  if (!response.filter_impact.empty()) out += ",\"filter_impact\":" + response.filter_impact;
  if (!response.explain.empty()) out += ",\"explain\":" + response.explain;
  out += '}';
  return reply;
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
  return SearchReply(*r);
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
