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

HttpResponse SearchReply(const SearchResponse& response, std::size_t max_reply_bytes) {
  // Written directly rather than through nlohmann::json: each hit's record
  // is already a JSON object text (the engine stored it after validating
  // it), and parsing it only to print it again was the largest part of the
  // server's per-request cost (bench/server).
  auto number = [](double v) { return nlohmann::json(v).dump(); };
  // What follows the hits: the truncation report, impact and explain.
  const std::size_t tail = 64 + response.filter_impact.size() + response.explain.size();
  HttpResponse reply;
  std::string& out = reply.body;
  out = "{\"hits\":[";
  std::string hit;
  std::size_t written = 0;
  for (const SearchHit& h : response.hits) {
    hit = written > 0 ? "," : "";
    hit += "{\"id\":";
    hit += nlohmann::json(h.id).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    hit += ",\"score\":" + number(h.score) + ",\"relevance\":" + number(h.relevance);
    if (h.bm25) hit += ",\"bm25\":" + number(*h.bm25);
    if (h.distance) hit += ",\"distance\":" + number(*h.distance);
    if (h.decay) hit += ",\"decay\":" + number(*h.decay);
    if (h.boost) hit += ",\"boost\":" + number(*h.boost);
    if (h.final_score) hit += ",\"final_score\":" + number(*h.final_score);
    hit += ",\"record\":";
    hit += h.record;
    hit += '}';
    if (max_reply_bytes > 0 && out.size() + hit.size() + tail > max_reply_bytes) break;
    out += hit;
    ++written;
  }
  const std::size_t omitted = response.omitted + (response.hits.size() - written);
  out += "],\"truncated\":";
  out += response.truncated || omitted > 0 ? "true" : "false";
  out += ",\"omitted\":" + std::to_string(omitted);
  if (!response.filter_impact.empty()) out += ",\"filter_impact\":" + response.filter_impact;
  if (!response.explain.empty()) out += ",\"explain\":" + response.explain;
  out += '}';
  return reply;
}

HttpResponse Api::Search(const Call& call) {
  Decoded<SearchRequest> request = DecodeSearch(call.body, options_.limits);
  if (!request.ok()) return ProblemResponse(request.problem());
  request.value().scope = call.principal.scope();
  request.value().bounds = call.bounds;
  StatusOr<SearchResponse> r = engine_->Search(call.match.name, request.value());
  if (!r.ok()) return ProblemResponse(FromStatus(r.status()));
  if (r->rejected) {
    const Diagnostic& d = *r->rejected;
    std::optional<FilterDialect> dialect;
    if (BaseFor(d) == "$.filter") dialect = request.value().dialect;
    return ProblemResponse(FromDiagnostic(d, BaseFor(d), dialect));
  }
  return SearchReply(*r, call.bounds.max_reply_bytes);
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
