// /v1/collections/{name}/records: upsert, get, delete by id or by filter,
// every call scoped by the caller's principal (SEARCH.md §6); and
// .../agents/{agent}/records/{id}, a record named with its owner where ids
// are unique per agent (engine.h, "Record keys").
#include <string_view>

#include "server/common/json_input.h"
#include "server/http/api.h"

namespace engram::server::http {

HttpResponse Api::UpsertRecords(const Call& call) {
  Decoded<UpsertBody> body = DecodeUpsert(call.body, options_.limits);
  if (!body.ok()) return ProblemResponse(body.problem());
  const std::vector<std::string>& records = body.value().records;
  std::vector<std::string_view> views(records.begin(), records.end());
  StatusOr<WriteResult> r = engine_->Upsert(call.match.name, views, {}, call.principal.scope());
  if (!r.ok()) return ProblemResponse(FromStatus(r.status()));
  if (r->rejected) {
    return ProblemResponse(
        FromDiagnostic(*r->rejected, JsonPathIndex("$.records", r->rejected_index)));
  }
  nlohmann::json deduplicated = nlohmann::json::array();
  for (const Deduplicated& d : r->deduplicated) {
    nlohmann::json entry = {{"index", d.index},
                            {"id", d.id},
                            {"duplicate_of", d.duplicate_of},
                            {"action", DedupActionName(d.action)}};
    if (d.similarity) entry["similarity"] = *d.similarity;
    deduplicated.push_back(std::move(entry));
  }
  return JsonResponse(
      200, {{"ok", true}, {"written", r->written}, {"deduplicated", std::move(deduplicated)}});
}

namespace {

// "record 'x'", or "record 'x' of agent 'bob'" when the path names the owner.
std::string RecordName(const RouteMatch& m) {
  std::string name = "record '" + m.id + "'";
  if (m.agent) name += " of agent '" + *m.agent + "'";
  return name;
}

}  // namespace

HttpResponse Api::GetRecord(const Call& call) {
  const RouteMatch& m = call.match;
  StatusOr<std::optional<std::string>> r =
      engine_->Get(m.name, m.id, call.principal.scope(), m.agent);
  if (!r.ok()) return ProblemResponse(FromStatus(r.status()));
  if (!r->has_value()) {
    // The same answer whether it is absent or another agent's the caller may not read.
    return ProblemResponse(NotFound("no " + RecordName(m) + " in collection '" + m.name + "'"));
  }
  HttpResponse response;
  response.body = std::move(**r);
  return response;
}

HttpResponse Api::DeleteRecord(const Call& call) {
  const std::vector<std::string> ids = {call.match.id};
  StatusOr<WriteResult> r =
      engine_->Delete(call.match.name, ids, call.principal.scope(), call.match.agent);
  if (!r.ok()) return ProblemResponse(FromStatus(r.status()));
  return JsonResponse(200, {{"ok", true}, {"deleted", r->written}});
}

HttpResponse Api::DeleteRecords(const Call& call) {
  Decoded<DeleteBody> body = DecodeDelete(call.body, options_.limits);
  if (!body.ok()) return ProblemResponse(body.problem());
  const DeleteBody& d = body.value();
  StatusOr<WriteResult> r =
      d.by_filter ? engine_->DeleteWhere(call.match.name, d.dialect, d.filter,
                                         call.principal.scope(), call.bounds)
                  : engine_->Delete(call.match.name, d.ids, call.principal.scope(), d.agent);
  if (!r.ok()) return ProblemResponse(FromStatus(r.status()));
  if (r->rejected) return ProblemResponse(FromDiagnostic(*r->rejected, "$.filter", d.dialect));
  return JsonResponse(200, {{"ok", true}, {"deleted", r->written}});
}

}  // namespace engram::server::http
