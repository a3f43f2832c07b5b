// /v1/collections/{name}/records:list, records:count and records:facets
// (listing.h): the caller's visible records under a filter, a page at a
// time, counted, or counted by value or range.
#include "server/http/api.h"
#include "server/http/request_decode.h"

namespace engram::server::http {
namespace {

// A rejected listing, count or facets request: a bad filter is located in
// $.filter (422, as a search's); a bad member of the request (page_token,
// order_by, field, ranges[i].to, ...) is a 400 at its path.
Problem Rejected(const Diagnostic& d, const RecordSelection& selection) {
  if (d.kind.rfind("filter.", 0) == 0) return FromDiagnostic(d, "$.filter", selection.dialect);
  return BadRequest(JoinDiagnosticPath("$", d.path), d.message, d.kind);
}

}  // namespace

HttpResponse Api::ListRecords(const Call& call) {
  Decoded<ListRequest> request = DecodeList(call.body, options_.limits);
  if (!request.ok()) return ProblemResponse(request.problem());
  request.value().selection.scope = call.principal.scope();
  request.value().bounds = call.bounds;
  StatusOr<ListResponse> r = engine_->List(call.match.name, request.value());
  if (!r.ok()) return ProblemResponse(FromStatus(r.status()));
  if (r->rejected) return ProblemResponse(Rejected(*r->rejected, request.value().selection));
  // The records are JSON object texts the engine validated: written as they are.
  HttpResponse reply;
  std::string& out = reply.body;
  out = "{\"records\":[";
  for (std::size_t i = 0; i < r->records.size(); ++i) {
    if (i > 0) out += ',';
    out += r->records[i].record;
  }
  out += ']';
  if (!r->next_page_token.empty()) {
    out += ",\"next_page_token\":" + nlohmann::json(r->next_page_token).dump();
  }
  out += '}';
  return reply;
}

HttpResponse Api::CountRecords(const Call& call) {
  Decoded<RecordSelection> selection = DecodeCount(call.body, options_.limits);
  if (!selection.ok()) return ProblemResponse(selection.problem());
  selection.value().scope = call.principal.scope();
  StatusOr<CountResponse> r = engine_->Count(call.match.name, selection.value(), call.bounds);
  if (!r.ok()) return ProblemResponse(FromStatus(r.status()));
  if (r->rejected) return ProblemResponse(Rejected(*r->rejected, selection.value()));
  return JsonResponse(200, {{"count", r->count}});
}

nlohmann::json FacetsJson(const FacetResponse& r) {
  nlohmann::json out = {{"field", r.field}};
  if (r.values.empty() && !r.ranges.empty()) {
    nlohmann::json ranges = nlohmann::json::array();
    for (const FacetRangeCount& c : r.ranges) {
      nlohmann::json range = nlohmann::json::object();
      if (c.range.from) range["from"] = JsonOrString(*c.range.from);
      if (c.range.to) range["to"] = JsonOrString(*c.range.to);
      range["count"] = c.count;
      ranges.push_back(std::move(range));
    }
    out["ranges"] = std::move(ranges);
  } else {
    nlohmann::json values = nlohmann::json::array();
    for (const FacetValue& v : r.values) {
      values.push_back({{"value", nlohmann::json::parse(v.value)}, {"count", v.count}});
    }
    out["values"] = std::move(values);
  }
  return out;
}

HttpResponse Api::FacetRecords(const Call& call) {
  Decoded<FacetRequest> request = DecodeFacets(call.body, options_.limits);
  if (!request.ok()) return ProblemResponse(request.problem());
  request.value().selection.scope = call.principal.scope();
  request.value().bounds = call.bounds;
  StatusOr<FacetResponse> r = engine_->Facets(call.match.name, request.value());
  if (!r.ok()) return ProblemResponse(FromStatus(r.status()));
  if (r->rejected) return ProblemResponse(Rejected(*r->rejected, request.value().selection));
  return JsonResponse(200, FacetsJson(*r));
}

}  // namespace engram::server::http
