// /v1/collections/{name}/records: upsert, get, delete by id or by filter,
// every call scoped by the caller's principal (SEARCH.md §6);
// .../agents/{agent}/records/{id}, a record named with its owner where ids
// are unique per agent (engine.h, "Record keys"); and records:get, a record
// with its version, as of an instant, with its history (engine.h GetRequest).
#include <string_view>

#include "server/common/json_input.h"
#include "server/http/api.h"
#include "server/http/request_decode.h"

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
  nlohmann::json superseded = nlohmann::json::array();
  for (const Superseded& s : r->superseded) {
    superseded.push_back({{"index", s.index}, {"id", s.id}, {"superseded", s.superseded}});
  }
  return WithToken(r->seq, true,
                   JsonResponse(200, {{"ok", true},
                                      {"written", r->written},
                                      {"deduplicated", std::move(deduplicated)},
                                      {"superseded", std::move(superseded)}}));
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

namespace {

// A version as records:get writes it; the record is a JSON object text the
// engine validated, written as it is.
std::string VersionJson(const RecordVersion& v) {
  std::string out = "{\"id\":" + nlohmann::json(v.id).dump() + ",\"record\":" + v.record;
  if (!v.written_at.empty()) out += ",\"written_at\":\"" + v.written_at + "\"";
  if (!v.superseded_at.empty()) out += ",\"superseded_at\":\"" + v.superseded_at + "\"";
  return out;  // open: the caller closes it
}

}  // namespace

HttpResponse Api::GetRecordVersion(const Call& call) {
  Decoded<GetBody> body = DecodeGet(call.body, options_.limits);
  if (!body.ok()) return ProblemResponse(body.problem());
  GetRequest& request = body.value().request;
  request.scope = call.principal.scope();
  const std::string& id = body.value().id;
  StatusOr<GetResponse> r = engine_->Get(call.match.name, id, request);
  if (!r.ok()) return ProblemResponse(FromStatus(r.status()));
  if (r->rejected) {
    return ProblemResponse(BadRequest(JoinDiagnosticPath("$", r->rejected->path),
                                      r->rejected->message, r->rejected->kind));
  }
  if (!r->found) {
    // The same answer whether it is absent or another agent's the caller may not read.
    std::string name = "record '" + id + "'";
    if (request.agent) name += " of agent '" + *request.agent + "'";
    return ProblemResponse(NotFound("no " + name + " in collection '" + call.match.name + "'" +
                                    (request.as_of.empty() ? "" : " as of " + request.as_of)));
  }
  HttpResponse response;
  std::string& out = response.body;
  out = VersionJson(*r->found);
  if (request.include_history) {
    out += ",\"history\":[";
    for (std::size_t i = 0; i < r->history.size(); ++i) {
      out += (i > 0 ? "," : "") + VersionJson(r->history[i]) + "}";
    }
    out += "],\"history_truncated\":";
    out += r->history_truncated ? "true" : "false";
  }
  out += '}';
  return response;
}

HttpResponse Api::DeleteRecord(const Call& call) {
  const std::vector<std::string> ids = {call.match.id};
  StatusOr<WriteResult> r =
      engine_->Delete(call.match.name, ids, call.principal.scope(), call.match.agent);
  if (!r.ok()) return ProblemResponse(FromStatus(r.status()));
  return WithToken(r->seq, true, JsonResponse(200, {{"ok", true}, {"deleted", r->written}}));
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
  return WithToken(r->seq, true, JsonResponse(200, {{"ok", true}, {"deleted", r->written}}));
}

}  // namespace engram::server::http
