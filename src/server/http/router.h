// The HTTP API's route table: which endpoint a method and a (percent-decoded)
// path name, with the path parameters, or the 404/405 Problem. Routing is
// ours rather than the HTTP library's so that unknown routes and wrong
// methods get problem+json bodies and the fuzz target can drive it.
#ifndef ENGRAM_SERVER_HTTP_ROUTER_H_
#define ENGRAM_SERVER_HTTP_ROUTER_H_

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "server/http/problem.h"

namespace engram::server::http {

enum class Route {
  kLivez,
  kReadyz,
  kMetrics,
  kOpenApi,
  kMcp,
  kListCollections,
  kCreateCollection,
  kGetCollection,
  kDropCollection,
  kReembedCollection,
  kUpsertRecords,
  kGetRecord,
  kGetRecordVersion,
  kDeleteRecord,
  kDeleteRecords,
  kSearch,
  kListRecords,
  kCountRecords,
  kFacetRecords,
  kCheckFilter,
  kTranslateFilter,
  kListRetrieves,
  kGetRetrieve,
  kPutRetrieve,
  kSetRetrieveFilter,
  kRunRetrieve,
};

struct RouteMatch {
  Route route = Route::kLivez;
  std::string label;  // the path template, for metrics: "/v1/collections/{name}/search"
  std::string name;   // {name}: a collection or a retrieve configuration
  std::string id;     // {id}: a record id
  std::optional<std::string> agent;  // {agent}: the record's owner (engine.h, "Record keys")
};

// Whether the route is open without an API key (the probes, the OpenAPI
// document); these never call the engine.
bool IsPublic(Route route);
// Whether the route needs an admin principal (collection create/drop,
// retrieve PUT/PATCH, /metrics: it names every collection and its size).
bool IsAdminOnly(Route route);
// Whether the route reads a JSON object body.
bool HasJsonBody(Route route);

// The route for `method` and `path`; RouteNotFound or MethodNotAllowed.
std::variant<RouteMatch, Problem> MatchRoute(std::string_view method, std::string_view path);

}  // namespace engram::server::http

#endif  // ENGRAM_SERVER_HTTP_ROUTER_H_
