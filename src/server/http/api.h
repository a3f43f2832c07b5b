// The HTTP API as a function from request to response, independent of the
// HTTP library: the browser checks (Host, Origin, Content-Type), routing,
// authentication, body decoding, the engine calls of each route, and
// metrics. server.h puts it on a socket; tests and the fuzz target may call
// it directly.
#ifndef ENGRAM_SERVER_HTTP_API_H_
#define ENGRAM_SERVER_HTTP_API_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>

#include <nlohmann/json.hpp>

#include "engram/engine.h"
#include "server/common/principal.h"
#include "server/http/auth.h"
#include "server/http/browser_policy.h"
#include "server/http/message.h"
#include "server/http/metrics.h"
#include "server/http/problem.h"
#include "server/http/request_decode.h"
#include "server/http/router.h"
#include "server/mcp/mcp_server.h"

namespace engram::server::http {

struct ApiOptions {
  Limits limits;
  BrowserPolicy browsers;  // allowed Host and Origin values
  // With keys: the engine requests one agent may have in flight, so that no
  // agent can take every slot (ServerOptions::max_in_flight) from the
  // others; more get 503.
  std::size_t max_in_flight_per_agent = 8;
  // A test seam: called with the route template before an engine route runs.
  std::function<void(const std::string&)> before_route;
};

// What the front-end does with a request whose head it has read (Api::Admit).
struct Admission {
  // Set when the head alone decides the answer (a refusal, a CORS
  // preflight): send it without reading the body.
  std::optional<HttpResponse> answer;
  // Whether answering may call the engine. When not (the probes and the
  // OpenAPI document), the I/O thread may answer at once.
  bool engine = true;
};

class Api {
 public:
  // `engine` and `mcp` must outlive the Api. Thread-safe.
  Api(Engine* engine, mcp::McpServer* mcp, KeyRing keys, ApiOptions options);

  // Decides what the method, path and headers alone can decide, before the
  // body is read: the Host and Origin (403), a CORS preflight (204 for an
  // allowed origin), the route (404, 405), the API key and its role (401,
  // 403), Content-Encoding (415: bodies are never decompressed), a body's
  // Content-Type (415 unless application/json) and a Content-Length over
  // the body limit (413). A refusal is counted in the metrics.
  Admission Admit(const HttpRequest& head);

  // The whole exchange: Admit's checks, then the body and the route.
  HttpResponse Handle(const HttpRequest& request);

  // A refusal made by the front-end itself (a malformed head, a body past
  // the limit, too many connections or requests): the problem response,
  // counted in the metrics under the route "transport".
  HttpResponse Refuse(const Problem& problem);

  // While draining /readyz answers 503 (the store is about to close).
  void SetDraining() { draining_ = true; }
  Metrics& metrics() { return metrics_; }
  const Limits& limits() const { return options_.limits; }

  static HttpResponse ProblemResponse(const Problem& problem);
  static HttpResponse JsonResponse(int status, const nlohmann::json& body);

 private:
  struct Call {
    const HttpRequest& request;
    const RouteMatch& match;
    const Principal& principal;
    const nlohmann::json& body;  // the decoded body object (null without one)
    RequestBounds bounds;        // the limits' bounds, the deadline counted from arrival
  };
  struct Admitted {
    RouteMatch match;
    Principal principal;
  };
  // Admit's checks: the admitted route and caller, or the answer to send
  // (`label` is set to the route template once the route is known).
  std::variant<Admitted, HttpResponse> Screen(const HttpRequest& request, std::string* label);
  // Adds the CORS headers for an allowed Origin and records the metrics.
  HttpResponse Finish(const HttpRequest& request, const std::string& label,
                      std::chrono::steady_clock::time_point start, HttpResponse response);
  // Takes one of `agent`'s engine slots (released by the returned guard),
  // or the 503 that says its limit is full. Without keys there is one
  // caller, and the server's max_in_flight is its only limit.
  std::variant<std::shared_ptr<void>, Problem> TakeAgentSlot(const std::string& agent);
  HttpResponse Dispatch(const Call& call);

  // routes_ops.cc
  HttpResponse Livez();
  HttpResponse Readyz();
  // Read-your-writes across nodes: a request carrying a write's token (the
  // Engram-Token header) waits until this node has applied that write,
  // within the request's deadline (else kTokenWait); the problem to answer
  // (400 for a malformed token, 503 when the wait runs out), or nullopt.
  std::optional<HttpResponse> AwaitToken(const HttpRequest& request, const RouteMatch& match,
                                         const RequestBounds& bounds);
  static constexpr std::string_view kTokenHeader = "engram-token";
  // A write's answer with its token (Engine::AwaitWrite) in the Engram-Token
  // header, and `in_body` as "token" in its JSON object too; a write that
  // changed nothing (`token` 0) has none.
  static HttpResponse WithToken(std::uint64_t token, bool in_body, HttpResponse response);
  // The same with Engine::LatestToken, for writes without a sequence of
  // their own (collections, retrieve configurations): in the header only.
  HttpResponse WithLatestToken(HttpResponse response) const;
  static constexpr std::chrono::seconds kTokenWait{10};
  HttpResponse MetricsText();
  HttpResponse OpenApi();
  HttpResponse Mcp(const Call& call);
  // routes_collections.cc
  HttpResponse ListCollections(const Call& call);
  HttpResponse CreateCollection(const Call& call);
  HttpResponse GetCollection(const Call& call);
  HttpResponse DropCollection(const Call& call);
  HttpResponse ReembedCollection(const Call& call);
  // routes_records.cc
  HttpResponse UpsertRecords(const Call& call);
  HttpResponse GetRecord(const Call& call);
  HttpResponse GetRecordVersion(const Call& call);
  HttpResponse DeleteRecord(const Call& call);
  HttpResponse DeleteRecords(const Call& call);
  // routes_search.cc
  HttpResponse Search(const Call& call);
  HttpResponse CheckFilter(const Call& call, bool translate);
  // routes_listing.cc
  HttpResponse ListRecords(const Call& call);
  HttpResponse CountRecords(const Call& call);
  HttpResponse FacetRecords(const Call& call);
  // routes_retrieves.cc
  HttpResponse ListRetrieves();
  HttpResponse GetRetrieve(const Call& call);
  HttpResponse PutRetrieve(const Call& call);
  HttpResponse SetRetrieveFilter(const Call& call);
  HttpResponse RunRetrieve(const Call& call);

  Engine* engine_;
  mcp::McpServer* mcp_;
  KeyRing keys_;
  ApiOptions options_;
  Metrics metrics_;
  std::mutex agents_mutex_;
  std::unordered_map<std::string, std::size_t> agent_in_flight_;
  std::atomic<bool> draining_{false};
};

// The JSON forms the routes answer with.
nlohmann::json CollectionJson(const CollectionInfo& info);
nlohmann::json RetrieveJson(const RetrieveSpec& spec);
// A search's hits (and filter impact, explain) as the 200 reply, with as many
// hits as fit in `max_reply_bytes` (0: all): the reply says `truncated` and
// how many hits it `omitted` (the engine's cut and this one together).
HttpResponse SearchReply(const SearchResponse& response, std::size_t max_reply_bytes = 0);
// Facets as the 200 reply: {field, values: [{value, count}]} or {field,
// ranges: [{from, to, count}]} (MCP's MemoryStats shows the same).
nlohmann::json FacetsJson(const FacetResponse& response);
// A stored JSON text as a value; a string when it is not JSON.
nlohmann::json JsonOrString(const std::string& text);

}  // namespace engram::server::http

#endif  // ENGRAM_SERVER_HTTP_API_H_
