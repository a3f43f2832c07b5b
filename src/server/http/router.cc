#include "server/http/router.h"

#include <vector>

namespace engram::server::http {
namespace {

struct Candidate {
  std::string_view method;
  Route route;
};

std::vector<std::string_view> Split(std::string_view path) {
  std::vector<std::string_view> parts;
  std::size_t start = 1;  // after the leading '/'
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    parts.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The candidates for a path, with its label and parameters filled in.
std::vector<Candidate> Lookup(std::string_view path, RouteMatch* m) {
  if (path.empty() || path[0] != '/') return {};
  const std::vector<std::string_view> p = Split(path);
  const std::size_t n = p.size();
  for (std::string_view part : p) {
    if (part.empty()) return {};  // "//", a trailing '/'
  }
  if (n == 1) {
    m->label = "/" + std::string(p[0]);
    if (p[0] == "livez") return {{"GET", Route::kLivez}};
    if (p[0] == "readyz") return {{"GET", Route::kReadyz}};
    if (p[0] == "metrics") return {{"GET", Route::kMetrics}};
    if (p[0] == "openapi.json") return {{"GET", Route::kOpenApi}};
    if (p[0] == "mcp")
      return {{"POST", Route::kMcp}, {"GET", Route::kMcp}, {"DELETE", Route::kMcp}};
    return {};
  }
  if (p[0] != "v1") return {};
  if (p[1] == "collections") {
    if (n == 2) {
      m->label = "/v1/collections";
      return {{"GET", Route::kListCollections}, {"POST", Route::kCreateCollection}};
    }
    m->name = std::string(p[2]);
    if (n == 3) {
      m->label = "/v1/collections/{name}";
      return {{"GET", Route::kGetCollection}, {"DELETE", Route::kDropCollection}};
    }
    if (n == 4 && p[3] == "records") {
      m->label = "/v1/collections/{name}/records";
      return {{"POST", Route::kUpsertRecords}};
    }
    if (n == 4 && p[3] == "records:delete") {
      m->label = "/v1/collections/{name}/records:delete";
      return {{"POST", Route::kDeleteRecords}};
    }
    if (n == 4 && p[3] == "records:get") {
      m->label = "/v1/collections/{name}/records:get";
      return {{"POST", Route::kGetRecordVersion}};
    }
    if (n == 4 && p[3] == "records:list") {
      m->label = "/v1/collections/{name}/records:list";
      return {{"POST", Route::kListRecords}};
    }
    if (n == 4 && p[3] == "records:count") {
      m->label = "/v1/collections/{name}/records:count";
      return {{"POST", Route::kCountRecords}};
    }
    if (n == 4 && p[3] == "records:facets") {
      m->label = "/v1/collections/{name}/records:facets";
      return {{"POST", Route::kFacetRecords}};
    }
    if (n == 4 && p[3] == "reembed") {
      m->label = "/v1/collections/{name}/reembed";
      return {{"POST", Route::kReembedCollection}};
    }
    if (n == 4 && p[3] == "search") {
      m->label = "/v1/collections/{name}/search";
      return {{"POST", Route::kSearch}};
    }
    if (n == 5 && p[3] == "records") {
      m->id = std::string(p[4]);
      m->label = "/v1/collections/{name}/records/{id}";
      std::vector<Candidate> c = {{"GET", Route::kGetRecord}, {"DELETE", Route::kDeleteRecord}};
      if (p[4] == "delete") c.push_back({"POST", Route::kDeleteRecords});
      return c;
    }
    if (n == 7 && p[3] == "agents" && p[5] == "records") {
      m->agent = std::string(p[4]);
      m->id = std::string(p[6]);
      m->label = "/v1/collections/{name}/agents/{agent}/records/{id}";
      return {{"GET", Route::kGetRecord}, {"DELETE", Route::kDeleteRecord}};
    }
    if (n == 5 && p[3] == "filters" && p[4] == "check") {
      m->label = "/v1/collections/{name}/filters/check";
      return {{"POST", Route::kCheckFilter}};
    }
    if (n == 5 && p[3] == "filters" && p[4] == "translate") {
      m->label = "/v1/collections/{name}/filters/translate";
      return {{"POST", Route::kTranslateFilter}};
    }
    return {};
  }
  if (p[1] == "retrieves") {
    if (n == 2) {
      m->label = "/v1/retrieves";
      return {{"GET", Route::kListRetrieves}};
    }
    m->name = std::string(p[2]);
    if (n == 3) {
      std::vector<Candidate> c = {{"GET", Route::kGetRetrieve}, {"PUT", Route::kPutRetrieve}};
      m->label = "/v1/retrieves/{name}";
      if (EndsWith(p[2], ":run")) c.push_back({"POST", Route::kRunRetrieve});
      return c;
    }
    if (n == 4 && p[3] == "filter") {
      m->label = "/v1/retrieves/{name}/filter";
      return {{"PATCH", Route::kSetRetrieveFilter}};
    }
    if (n == 4 && p[3] == "run") {
      m->label = "/v1/retrieves/{name}/run";
      return {{"POST", Route::kRunRetrieve}};
    }
  }
  return {};
}

}  // namespace

bool IsPublic(Route route) {
  return route == Route::kLivez || route == Route::kReadyz || route == Route::kOpenApi;
}

bool IsAdminOnly(Route route) {
  return route == Route::kCreateCollection || route == Route::kDropCollection ||
         route == Route::kReembedCollection || route == Route::kPutRetrieve ||
         route == Route::kSetRetrieveFilter || route == Route::kMetrics;
}

bool HasJsonBody(Route route) {
  switch (route) {
    case Route::kCreateCollection:
    case Route::kReembedCollection:
    case Route::kUpsertRecords:
    case Route::kGetRecordVersion:
    case Route::kDeleteRecords:
    case Route::kSearch:
    case Route::kListRecords:
    case Route::kCountRecords:
    case Route::kFacetRecords:
    case Route::kCheckFilter:
    case Route::kTranslateFilter:
    case Route::kPutRetrieve:
    case Route::kSetRetrieveFilter:
    case Route::kRunRetrieve:
      return true;
    default:
      return false;
  }
}

std::variant<RouteMatch, Problem> MatchRoute(std::string_view method, std::string_view path) {
  RouteMatch m;
  const std::vector<Candidate> candidates = Lookup(path, &m);
  if (candidates.empty()) return RouteNotFound(std::string(path));
  std::vector<std::string> allowed;
  for (const Candidate& c : candidates) {
    if (c.method == method) {
      m.route = c.route;
      if (c.route == Route::kRunRetrieve && m.label == "/v1/retrieves/{name}") {
        m.name.resize(m.name.size() - 4);  // "{name}:run"
        m.label = "/v1/retrieves/{name}:run";
      }
      if (c.route == Route::kDeleteRecords) m.label = "/v1/collections/{name}/records:delete";
      return m;
    }
    allowed.emplace_back(c.method);
  }
  return MethodNotAllowed(std::string(method), allowed);
}

}  // namespace engram::server::http
