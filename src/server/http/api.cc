#include "server/http/api.h"

#include <chrono>
#include <exception>

namespace engram::server::http {
namespace {

// Decrements a counter when the request leaves, however it leaves.
class Counted {
 public:
  template <typename T>
  explicit Counted(std::atomic<T>& counter) : release_([&counter] { --counter; }) {
    ++counter;
  }
  ~Counted() { release_(); }
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;

 private:
  std::function<void()> release_;
};

std::string KindOf(const HttpResponse& response) {
  nlohmann::json body = nlohmann::json::parse(response.body, nullptr, false);
  if (body.is_object() && body.contains("kind") && body["kind"].is_string()) {
    return body["kind"].get<std::string>();
  }
  return "http_" + std::to_string(response.status);
}

}  // namespace

std::string_view HttpRequest::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return value;
  }
  return {};
}

Api::Api(Engine* engine, mcp::McpServer* mcp, KeyRing keys, ApiOptions options)
    : engine_(engine), mcp_(mcp), keys_(std::move(keys)), options_(std::move(options)) {}

HttpResponse Api::ProblemResponse(const Problem& problem) {
  HttpResponse r;
  r.status = problem.status;
  r.content_type = "application/problem+json";
  r.headers = problem.headers;
  r.body = problem.Body();
  return r;
}

HttpResponse Api::JsonResponse(int status, const nlohmann::json& body) {
  HttpResponse r;
  r.status = status;
  r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return r;
}

HttpResponse Api::Handle(const HttpRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  Counted in_flight(metrics_.in_flight());
  std::string label = "unmatched";
  HttpResponse response = [&]() -> HttpResponse {
    std::variant<RouteMatch, Problem> matched = MatchRoute(request.method, request.path);
    if (auto* p = std::get_if<Problem>(&matched)) return ProblemResponse(*p);
    const RouteMatch& match = std::get<RouteMatch>(matched);
    label = match.label;
    Principal principal{"anonymous", ReadProfile::kPrivateOnly, false};
    if (!IsPublic(match.route)) {
      std::variant<Principal, Problem> who = keys_.Authenticate(request.Header("authorization"));
      if (auto* p = std::get_if<Problem>(&who)) return ProblemResponse(*p);
      principal = std::get<Principal>(who);
      if (IsAdminOnly(match.route) && !principal.admin) {
        return ProblemResponse(Forbidden("this operation needs an admin key"));
      }
    }
    std::optional<Counted> engine_slot;
    if (!IsPublic(match.route)) {
      engine_slot.emplace(engine_in_flight_);
      if (engine_in_flight_.load() > options_.max_in_flight) {
        return ProblemResponse(Overloaded("too many requests in flight (limit " +
                                          std::to_string(options_.max_in_flight) +
                                          "); retry shortly"));
      }
    }
    nlohmann::json body;
    if (HasJsonBody(match.route)) {
      Decoded<nlohmann::json> parsed = ParseBody(request.body, options_.limits);
      if (!parsed.ok()) return ProblemResponse(parsed.problem());
      body = std::move(parsed.value());
    }
    if (options_.before_route && !IsPublic(match.route)) options_.before_route(match.label);
    try {
      return Dispatch(Call{request, match, principal, body});
    } catch (const std::exception& e) {
      return ProblemResponse(FromStatus(Status::Internal(e.what())));
    }
  }();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string& m = request.method;
  const bool known = m == "GET" || m == "POST" || m == "PUT" || m == "PATCH" || m == "DELETE";
  metrics_.Record(label, known ? m : "other", response.status, seconds);
  if (response.status >= 400) {
    metrics_.CountError(response.content_type == "application/problem+json"
                            ? KindOf(response)
                            : "http_" + std::to_string(response.status));
  }
  return response;
}

HttpResponse Api::Dispatch(const Call& call) {
  switch (call.match.route) {
    case Route::kLivez:
      return Livez();
    case Route::kReadyz:
      return Readyz();
    case Route::kMetrics:
      return MetricsText();
    case Route::kOpenApi:
      return OpenApi();
    case Route::kMcp:
      return Mcp(call);
    case Route::kListCollections:
      return ListCollections();
    case Route::kCreateCollection:
      return CreateCollection(call);
    case Route::kGetCollection:
      return GetCollection(call);
    case Route::kDropCollection:
      return DropCollection(call);
    case Route::kReembedCollection:
      return ReembedCollection(call);
    case Route::kUpsertRecords:
      return UpsertRecords(call);
    case Route::kGetRecord:
      return GetRecord(call);
    case Route::kDeleteRecord:
      return DeleteRecord(call);
    case Route::kDeleteRecords:
      return DeleteRecords(call);
    case Route::kSearch:
      return Search(call);
    case Route::kCheckFilter:
      return CheckFilter(call, false);
    case Route::kTranslateFilter:
      return CheckFilter(call, true);
    case Route::kListRetrieves:
      return ListRetrieves();
    case Route::kGetRetrieve:
      return GetRetrieve(call);
    case Route::kPutRetrieve:
      return PutRetrieve(call);
    case Route::kSetRetrieveFilter:
      return SetRetrieveFilter(call);
    case Route::kRunRetrieve:
      return RunRetrieve(call);
  }
  return ProblemResponse(FromStatus(Status::Internal("unrouted request")));
}

nlohmann::json JsonOrString(const std::string& text) {
  nlohmann::json v = nlohmann::json::parse(text, nullptr, false);
  if (v.is_discarded()) return text;
  return v;
}

}  // namespace engram::server::http
