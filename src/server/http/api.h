// The HTTP API as a function from request to response, independent of the
// HTTP library: routing, authentication, the in-flight bound, body decoding,
// the engine calls of each route, and metrics. server.h puts it on a socket;
// tests and the fuzz target may call it directly.
#ifndef ENGRAM_SERVER_HTTP_API_H_
#define ENGRAM_SERVER_HTTP_API_H_

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "engram/engine.h"
#include "server/common/principal.h"
#include "server/http/auth.h"
#include "server/http/metrics.h"
#include "server/http/problem.h"
#include "server/http/request_decode.h"
#include "server/http/router.h"
#include "server/mcp/mcp_server.h"

namespace engram::server::http {

struct HttpRequest {
  std::string method;
  std::string path;  // percent-decoded, without the query string
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;

  std::string_view Header(std::string_view name) const;  // "" when absent
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

struct ApiOptions {
  Limits limits;
  // Engine requests (everything but the probes, /metrics and /openapi.json)
  // handled at once; more get 503 with Retry-After.
  std::size_t max_in_flight = 32;
  // A test seam: called with the route template before an engine route runs.
  std::function<void(const std::string&)> before_route;
};

class Api {
 public:
  // `engine` and `mcp` must outlive the Api. Thread-safe.
  Api(Engine* engine, mcp::McpServer* mcp, KeyRing keys, ApiOptions options);

  HttpResponse Handle(const HttpRequest& request);

  // While draining /readyz answers 503 (the store is about to close).
  void SetDraining() { draining_ = true; }
  Metrics& metrics() { return metrics_; }

  static HttpResponse ProblemResponse(const Problem& problem);
  static HttpResponse JsonResponse(int status, const nlohmann::json& body);

 private:
  struct Call {
    const HttpRequest& request;
    const RouteMatch& match;
    const Principal& principal;
    const nlohmann::json& body;  // the decoded body object (null without one)
  };
  HttpResponse Dispatch(const Call& call);

  // routes_ops.cc
  HttpResponse Livez();
  HttpResponse Readyz();
  HttpResponse MetricsText();
  HttpResponse OpenApi();
  HttpResponse Mcp(const Call& call);
  // routes_collections.cc
  HttpResponse ListCollections();
  HttpResponse CreateCollection(const Call& call);
  HttpResponse GetCollection(const Call& call);
  HttpResponse DropCollection(const Call& call);
  HttpResponse ReembedCollection(const Call& call);
  // routes_records.cc
  HttpResponse UpsertRecords(const Call& call);
  HttpResponse GetRecord(const Call& call);
  HttpResponse DeleteRecord(const Call& call);
  HttpResponse DeleteRecords(const Call& call);
  // routes_search.cc
  HttpResponse Search(const Call& call);
  HttpResponse CheckFilter(const Call& call, bool translate);
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
  std::atomic<std::size_t> engine_in_flight_{0};
  std::atomic<bool> draining_{false};
};

// The JSON forms the routes answer with.
nlohmann::json CollectionJson(const CollectionInfo& info);
nlohmann::json RetrieveJson(const RetrieveSpec& spec);
// A search's hits (and filter impact, explain) as the 200 reply.
HttpResponse SearchReply(const SearchResponse& response);
// A stored JSON text as a value; a string when it is not JSON.
nlohmann::json JsonOrString(const std::string& text);

}  // namespace engram::server::http

#endif  // ENGRAM_SERVER_HTTP_API_H_
