#include "server/http/api.h"

#include <charconv>
#include <exception>

#include "server/http/wire.h"

namespace engram::server::http {
namespace {

// Counts a request in flight while it is handled, however it leaves.
class Counted {
 public:
  explicit Counted(std::atomic<std::int64_t>& counter) : counter_(counter) { ++counter_; }
  ~Counted() { --counter_; }
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;

 private:
  std::atomic<std::int64_t>& counter_;
};

std::string KindOf(const HttpResponse& response) {
  nlohmann::json body = nlohmann::json::parse(response.body, nullptr, false);
  if (body.is_object() && body.contains("kind") && body["kind"].is_string()) {
    return body["kind"].get<std::string>();
  }
  return "http_" + std::to_string(response.status);
}

// Whether the head announces a body (a non-zero length, or chunks).
bool CarriesBody(const HttpRequest& request) {
  const std::string_view length = request.Header("content-length");
  return (!length.empty() && length.find_first_not_of('0') != std::string_view::npos) ||
         !request.Header("transfer-encoding").empty();
}

// The headers a browser may send cross-origin once an origin is allowed.
constexpr char kCorsRequestHeaders[] =
    "Authorization, Content-Type, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Engram-Token";
constexpr char kCorsExposedHeaders[] = "WWW-Authenticate, Retry-After, Allow, Engram-Token";

}  // namespace

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

std::variant<Api::Admitted, HttpResponse> Api::Screen(const HttpRequest& request,
                                                      std::string* label) {
  const BrowserPolicy& browsers = options_.browsers;
  if (auto p = browsers.CheckHost(request.Header("host"))) return ProblemResponse(*p);
  const std::string_view origin = request.Header("origin");
  if (auto p = browsers.CheckOrigin(origin, request.Header("host"))) return ProblemResponse(*p);
  const std::string_view preflight = request.Header("access-control-request-method");
  const bool is_preflight = request.method == "OPTIONS" && !origin.empty() && !preflight.empty();
  // HEAD is GET without the body (the front-end drops it).
  const std::string_view method = is_preflight               ? preflight
                                  : request.method == "HEAD" ? std::string_view("GET")
                                                             : std::string_view(request.method);
  std::variant<RouteMatch, Problem> matched = MatchRoute(method, request.path);
  if (auto* p = std::get_if<Problem>(&matched)) return ProblemResponse(*p);
  Admitted admitted{std::move(std::get<RouteMatch>(matched)),
                    Principal{"anonymous", ReadProfile::kPrivateOnly, false}};
  *label = admitted.match.label;
  if (is_preflight) {
    // Only an allowed origin gets here (CheckOrigin above).
    HttpResponse r;
    r.status = 204;
    r.content_type.clear();
    r.headers = {{"Access-Control-Allow-Methods", std::string(preflight)},
                 {"Access-Control-Allow-Headers", kCorsRequestHeaders},
                 {"Access-Control-Max-Age", "600"}};
    return r;
  }
  const Route route = admitted.match.route;
  if (!IsPublic(route)) {
    std::variant<Principal, Problem> who = keys_.Authenticate(request.Header("authorization"));
    if (auto* p = std::get_if<Problem>(&who)) return ProblemResponse(*p);
    admitted.principal = std::get<Principal>(who);
    if (IsAdminOnly(route) && !admitted.principal.admin) {
      return ProblemResponse(Forbidden("this operation needs an admin key"));
    }
  }
  const std::string_view encoding = request.Header("content-encoding");
  if (!encoding.empty() && LowerCase(TrimOws(encoding)) != "identity") {
    Problem p = MakeProblem(415, "request.unsupported_encoding",
                            "compressed request bodies are not accepted (Content-Encoding: " +
                                std::string(encoding.substr(0, 64)) + "); send identity");
    p.headers.emplace_back("Accept-Encoding", "identity");
    return ProblemResponse(p);
  }
  const bool reads_body = HasJsonBody(route) || (route == Route::kMcp && request.method == "POST");
  if (reads_body || CarriesBody(request)) {
    if (auto p = CheckJsonContentType(request.Header("content-type"))) {
      return ProblemResponse(*p);
    }
  }
  // wire.h has checked the length's syntax; a direct caller may not have.
  std::uint64_t length = 0;
  for (char c : request.Header("content-length")) {
    if (c < '0' || c > '9' || length > options_.limits.max_body_bytes) break;
    length = length * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (length > options_.limits.max_body_bytes) {
    return ProblemResponse(PayloadTooLarge(options_.limits.max_body_bytes));
  }
  return admitted;
}

HttpResponse Api::Finish(const HttpRequest& request, const std::string& label,
                         std::chrono::steady_clock::time_point start, HttpResponse response) {
  const std::string_view origin = request.Header("origin");
  if (!origin.empty() && !options_.browsers.CheckOrigin(origin, request.Header("host"))) {
    response.headers.emplace_back("Access-Control-Allow-Origin", std::string(origin));
    response.headers.emplace_back("Access-Control-Expose-Headers", kCorsExposedHeaders);
    response.headers.emplace_back("Vary", "Origin");
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string& m = request.method;
  const bool known = m == "GET" || m == "HEAD" || m == "POST" || m == "PUT" || m == "PATCH" ||
                     m == "DELETE" || m == "OPTIONS";
  metrics_.Record(label, known ? m : "other", response.status, seconds);
  if (response.status >= 400) {
    metrics_.CountError(response.content_type == "application/problem+json"
                            ? KindOf(response)
                            : "http_" + std::to_string(response.status));
  }
  return response;
}

Admission Api::Admit(const HttpRequest& head) {
  const auto start = std::chrono::steady_clock::now();
  std::string label = "unmatched";
  std::variant<Admitted, HttpResponse> screened = Screen(head, &label);
  Admission admission;
  if (auto* answer = std::get_if<HttpResponse>(&screened)) {
    admission.answer = Finish(head, label, start, std::move(*answer));
  } else {
    admission.engine = !IsPublic(std::get<Admitted>(screened).match.route);
  }
  return admission;
}

HttpResponse Api::Refuse(const Problem& problem) {
  metrics_.Record("transport", "other", problem.status, 0);
  metrics_.CountError(problem.kind);
  return ProblemResponse(problem);
}

HttpResponse Api::Handle(const HttpRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  Counted in_flight(metrics_.in_flight());
  std::string label = "unmatched";
  HttpResponse response = [&]() -> HttpResponse {
    std::variant<Admitted, HttpResponse> screened = Screen(request, &label);
    if (auto* answer = std::get_if<HttpResponse>(&screened)) return std::move(*answer);
    const Admitted& admitted = std::get<Admitted>(screened);
    const Route route = admitted.match.route;
    std::shared_ptr<void> agent_slot;
    if (!IsPublic(route)) {
      std::variant<std::shared_ptr<void>, Problem> slot = TakeAgentSlot(admitted.principal.agent);
      if (auto* p = std::get_if<Problem>(&slot)) return ProblemResponse(*p);
      agent_slot = std::get<std::shared_ptr<void>>(std::move(slot));
    }
    nlohmann::json body;
    if (HasJsonBody(route)) {
      Decoded<nlohmann::json> parsed = ParseBody(request.body, options_.limits);
      if (!parsed.ok()) return ProblemResponse(parsed.problem());
      body = std::move(parsed.value());
    }
    if (options_.before_route && !IsPublic(route)) options_.before_route(admitted.match.label);
    RequestBounds bounds;
    if (options_.limits.request_timeout.count() > 0) {
      bounds.deadline = start + options_.limits.request_timeout;
    }
    bounds.max_expansions = options_.limits.max_expansions;
    bounds.max_reply_bytes = options_.limits.max_reply_bytes;
    if (std::optional<HttpResponse> waited = AwaitToken(request, admitted.match, bounds)) {
      return std::move(*waited);
    }
    try {
      return Dispatch(Call{request, admitted.match, admitted.principal, body, bounds});
    } catch (const std::exception& e) {
      return ProblemResponse(FromStatus(Status::Internal(e.what())));
    }
  }();
  return Finish(request, label, start, std::move(response));
}

std::variant<std::shared_ptr<void>, Problem> Api::TakeAgentSlot(const std::string& agent) {
  if (!keys_.enabled()) return std::shared_ptr<void>();  // one caller: the store's owner
  std::lock_guard<std::mutex> lock(agents_mutex_);
  std::size_t& mine = agent_in_flight_[agent];
  if (mine >= options_.max_in_flight_per_agent) {
    if (mine == 0) agent_in_flight_.erase(agent);
    return Overloaded("too many requests in flight for agent '" + agent + "' (limit " +
                      std::to_string(options_.max_in_flight_per_agent) + "); retry shortly");
  }
  ++mine;
  // The agent's count goes down with the guard, and its entry when it is 0.
  return std::shared_ptr<void>(nullptr, [this, agent](void*) {
    std::lock_guard<std::mutex> release(agents_mutex_);
    auto it = agent_in_flight_.find(agent);
    if (it != agent_in_flight_.end() && --it->second == 0) agent_in_flight_.erase(it);
  });
}

HttpResponse Api::WithToken(std::uint64_t token, bool in_body, HttpResponse response) {
  if (token == 0) return response;
  const std::string text = std::to_string(token);
  response.headers.emplace_back("Engram-Token", text);
  if (in_body && !response.body.empty() && response.body.back() == '}') {
    response.body.pop_back();
    response.body += ",\"token\":\"" + text + "\"}";
  }
  return response;
}

HttpResponse Api::WithLatestToken(HttpResponse response) const {
  StatusOr<std::uint64_t> token = engine_->LatestToken();
  return token.ok() ? WithToken(*token, false, std::move(response)) : response;
}

std::optional<HttpResponse> Api::AwaitToken(const HttpRequest& request, const RouteMatch& match,
                                            const RequestBounds& bounds) {
  if (IsPublic(match.route) || request.HeaderCount(kTokenHeader) == 0) return std::nullopt;
  const std::string_view text = request.Header(kTokenHeader);
  std::uint64_t token = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), token);
  if (request.HeaderCount(kTokenHeader) > 1 || text.empty() || error != std::errc() ||
      end != text.data() + text.size()) {
    return ProblemResponse(MakeProblem(400, "invalid_token",
                                       "the Engram-Token header must be one token a write "
                                       "returned (a decimal number)",
                                       "Engram-Token"));
  }
  // Bounded: the request's own deadline, else kTokenWait.
  const auto until = bounds.deadline.value_or(std::chrono::steady_clock::now() + kTokenWait);
  // Routes naming a retrieve configuration wait for every collection.
  const bool collection =
      match.route != Route::kGetRetrieve && match.route != Route::kPutRetrieve &&
      match.route != Route::kSetRetrieveFilter && match.route != Route::kRunRetrieve;
  Status waited = engine_->AwaitWrite(collection ? match.name : "", token, until);
  if (waited.ok()) return std::nullopt;
  Problem p = FromStatus(waited);
  p.path = "Engram-Token";
  return ProblemResponse(p);
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
      return ListCollections(call);
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
    case Route::kGetRecordVersion:
      return GetRecordVersion(call);
    case Route::kDeleteRecord:
      return DeleteRecord(call);
    case Route::kDeleteRecords:
      return DeleteRecords(call);
    case Route::kSearch:
      return Search(call);
    case Route::kListRecords:
      return ListRecords(call);
    case Route::kCountRecords:
      return CountRecords(call);
    case Route::kFacetRecords:
      return FacetRecords(call);
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
