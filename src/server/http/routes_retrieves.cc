// /v1/retrieves: named retrieve configurations (seed 000): put (admin),
// list, get, change the filter at run time (admin; FILTERS.md §1.6), run.
#include "server/http/api.h"

namespace engram::server::http {

nlohmann::json RetrieveJson(const RetrieveSpec& spec) {
  nlohmann::json filter = nullptr;
  if (!spec.filter.empty()) filter = JsonOrString(spec.filter);
  const char* mode = spec.mode == SearchMode::kText     ? "text"
                     : spec.mode == SearchMode::kVector ? "vector"
                                                        : "hybrid";
  return {{"name", spec.name},
          {"collection", spec.collection},
          {"dialect", std::string(FilterDialectName(spec.dialect))},
          {"filter", std::move(filter)},
          {"top_k", spec.top_k},
          {"threshold", spec.threshold},
          {"mode", mode}};
}

HttpResponse Api::ListRetrieves() {
  nlohmann::json list = nlohmann::json::array();
  for (const RetrieveSpec& spec : engine_->ListRetrieves()) list.push_back(RetrieveJson(spec));
  return JsonResponse(200, {{"retrieves", std::move(list)}});
}

HttpResponse Api::GetRetrieve(const Call& call) {
  StatusOr<RetrieveSpec> spec = engine_->GetRetrieve(call.match.name);
  if (!spec.ok()) return ProblemResponse(FromStatus(spec.status()));
  return JsonResponse(200, RetrieveJson(*spec));
}

HttpResponse Api::PutRetrieve(const Call& call) {
  Decoded<RetrieveSpec> spec = DecodeRetrieveSpec(call.body, options_.limits, call.match.name);
  if (!spec.ok()) return ProblemResponse(spec.problem());
  const bool existed = engine_->GetRetrieve(call.match.name).ok();
  StatusOr<std::optional<Diagnostic>> r = engine_->PutRetrieve(spec.value());
  if (!r.ok()) return ProblemResponse(FromStatus(r.status()));
  if (r->has_value()) {
    return ProblemResponse(FromDiagnostic(**r, "$.filter", spec.value().dialect));
  }
  StatusOr<RetrieveSpec> stored = engine_->GetRetrieve(call.match.name);
  if (!stored.ok()) return ProblemResponse(FromStatus(stored.status()));
  return WithLatestToken(JsonResponse(existed ? 200 : 201, RetrieveJson(*stored)));
}

HttpResponse Api::SetRetrieveFilter(const Call& call) {
  Decoded<FilterBody> body = DecodeRetrieveFilter(call.body, options_.limits);
  if (!body.ok()) return ProblemResponse(body.problem());
  StatusOr<std::optional<Diagnostic>> r =
      engine_->SetRetrieveFilter(call.match.name, body.value().dialect, body.value().filter);
  if (!r.ok()) return ProblemResponse(FromStatus(r.status()));
  if (r->has_value()) {
    // The old filter stays in effect; the body keeps the diagnostic's code (3007).
    return ProblemResponse(FromDiagnostic(**r, "$.filter", body.value().dialect));
  }
  StatusOr<RetrieveSpec> stored = engine_->GetRetrieve(call.match.name);
  if (!stored.ok()) return ProblemResponse(FromStatus(stored.status()));
  return WithLatestToken(JsonResponse(200, RetrieveJson(*stored)));
}

HttpResponse Api::RunRetrieve(const Call& call) {
  Decoded<RunBody> body = DecodeRun(call.body, options_.limits);
  if (!body.ok()) return ProblemResponse(body.problem());
  StatusOr<SearchResponse> r =
      engine_->Retrieve(call.match.name, body.value().query, body.value().vector,
                        call.principal.scope(), call.bounds);
  if (!r.ok()) return ProblemResponse(FromStatus(r.status()));
  if (r->rejected) {
    const Diagnostic& d = *r->rejected;
    return ProblemResponse(FromDiagnostic(d, d.kind.rfind("query.", 0) == 0 ? "$.query" : "$"));
  }
  return SearchReply(*r, call.bounds.max_reply_bytes);
}

}  // namespace engram::server::http
