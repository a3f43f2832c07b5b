#include "server/http/problem.h"

#include <nlohmann/json.hpp>

namespace engram::server::http {
namespace {

std::string TitleFor(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 415:
      return "Unsupported Media Type";
    case 422:
      return "Unprocessable Content";
    case 431:
      return "Request Header Fields Too Large";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return status >= 500 ? "Internal Server Error" : "Error";
  }
}

}  // namespace

Problem MakeProblem(int status, std::string kind, std::string message, std::string path) {
  Problem p;
  p.status = status;
  p.kind = std::move(kind);
  p.title = TitleFor(status);
  p.message = std::move(message);
  p.path = std::move(path);
  p.code = status;
  return p;
}

std::string Problem::Body() const {
  nlohmann::json body = {
      {"type", "urn:engram:problem:" + kind},
      {"title", title.empty() ? TitleFor(status) : title},
      {"status", status},
      {"detail", message},
      {"code", code},
      {"kind", kind},
      {"path", path},
      {"message", message},
  };
  if (expr_v1) body["error_code"] = "INVALID_REQUEST";
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

int HttpStatusFor(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return 200;
    case StatusCode::kInvalidArgument:
      return 400;
    case StatusCode::kNotFound:
      return 404;
    case StatusCode::kAlreadyExists:
    case StatusCode::kFailedPrecondition:
      return 409;
    case StatusCode::kPermissionDenied:
      return 403;
    case StatusCode::kResourceExhausted:
    case StatusCode::kDeadlineExceeded:
    case StatusCode::kAborted:  // writers on other nodes kept winning: try again
      return 503;
    case StatusCode::kUnimplemented:
      return 501;
    case StatusCode::kIoError:
    case StatusCode::kCorruption:
    case StatusCode::kInternal:
      return 500;
  }
  return 500;
}

Problem FromStatus(const Status& status) {
  const int http = HttpStatusFor(status.code());
  Problem p = MakeProblem(http, std::string(StatusCodeName(status.code())), status.message());
  if (http == 503) p.headers.emplace_back("Retry-After", "1");
  return p;
}

std::string JoinDiagnosticPath(const std::string& base, const std::string& path) {
  if (path.empty() || path == "<root>" || path == "$") return base;
  if (path[0] == '$') {
    // `$.filter.expr...`: the dialect's own root stands for `base`.
    std::size_t cut = 1;
    if (path.size() > 1 && path[1] == '.') {
      cut = path.find_first_of(".[", 2);
      if (cut == std::string::npos) return base;
    }
    return base + path.substr(cut);
  }
  if (path.rfind("filters", 0) == 0 && (path.size() == 7 || path[7] == '[' || path[7] == '.')) {
    return base + path.substr(7);  // search_memory's `filters[2].value`
  }
  if (path[0] == '[') return base + path;
  return base + "." + path;
}

Problem FromDiagnostic(const Diagnostic& diagnostic, const std::string& base,
                       std::optional<FilterDialect> dialect) {
  const int status = diagnostic.kind == "scope.forbidden" ? 403 : 422;
  Problem p = MakeProblem(status, diagnostic.kind, diagnostic.message,
                          JoinDiagnosticPath(base, diagnostic.path));
  p.code = diagnostic.code;
  p.expr_v1 = dialect == FilterDialect::kExprV1;
  return p;
}

Problem BadRequest(std::string path, std::string message, std::string kind) {
  return MakeProblem(400, std::move(kind), std::move(message), std::move(path));
}

Problem NotFound(std::string message) {
  return MakeProblem(404, "not_found", std::move(message));
}

Problem Unauthorized(std::string message) {
  Problem p = MakeProblem(401, "auth.unauthenticated", std::move(message));
  p.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"engram\"");
  return p;
}

Problem Forbidden(std::string message) {
  return MakeProblem(403, "auth.forbidden", std::move(message));
}

Problem RouteNotFound(const std::string& path) {
  return MakeProblem(404, "route.not_found", "no route for '" + path + "'");
}

Problem MethodNotAllowed(const std::string& method, const std::vector<std::string>& allowed) {
  std::string list;
  for (const std::string& m : allowed) list += (list.empty() ? "" : ", ") + m;
  Problem p = MakeProblem(405, "route.method_not_allowed",
                          "method " + method + " is not allowed here (allowed: " + list + ")");
  p.headers.emplace_back("Allow", list);
  return p;
}

Problem PayloadTooLarge(std::size_t limit) {
  return MakeProblem(413, "request.too_large",
                     "the request body exceeds the limit of " + std::to_string(limit) + " bytes");
}

Problem Overloaded(std::string message) {
  Problem p = MakeProblem(503, "overloaded", std::move(message));
  p.headers.emplace_back("Retry-After", "1");
  return p;
}

}  // namespace engram::server::http
