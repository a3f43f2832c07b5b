// THE mapping from engram's error channels (Status, Diagnostic) and the HTTP
// layer's own complaints (bad JSON, bounds, auth, routing) to RFC 9457
// `application/problem+json` responses. Every error the HTTP API sends is a
// Problem built here, so status codes and body fields stay consistent.
#ifndef ENGRAM_SERVER_HTTP_PROBLEM_H_
#define ENGRAM_SERVER_HTTP_PROBLEM_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engram/diagnostic.h"
#include "engram/filter.h"
#include "engram/status.h"

namespace engram::server::http {

// One error response. `kind` is stable and machine-readable ("request.invalid",
// "filter.type_mismatch", "not_found", ...); `path` locates the fault in the
// request body as a JSONPath (`$.records[3].region`), or is empty.
struct Problem {
  int status = 500;
  std::string kind;
  std::string title;
  std::string message;  // the full rendered message (a diagnostic's own text)
  std::string path;
  int code = 0;          // the diagnostic's code (3007 for retrieve, else 400), or `status`
  bool expr_v1 = false;  // adds `error_code: "INVALID_REQUEST"` (seed 004's service)
  std::vector<std::pair<std::string, std::string>> headers;  // e.g. WWW-Authenticate

  // The JSON body: {type, title, status, detail, code, kind, path, message}.
  std::string Body() const;
};

// The HTTP status an engine Status maps to: InvalidArgument 400, NotFound 404,
// AlreadyExists and FailedPrecondition 409, PermissionDenied 403,
// ResourceExhausted 503, Unimplemented 501, IoError/Corruption/Internal 500.
int HttpStatusFor(StatusCode code);

Problem FromStatus(const Status& status);

// A rejected filter, record or query: 422 (403 for kind "scope.forbidden"),
// keeping the diagnostic's code, kind and message. `base` is the JSONPath of the
// request member holding the input (`$.filter`, `$.records[3]`); the
// diagnostic's own path is appended to it in JSONPath form.
Problem FromDiagnostic(const Diagnostic& diagnostic, const std::string& base,
                       std::optional<FilterDialect> dialect = std::nullopt);

// A Problem with `status`, `kind` and `message` (titled by the status).
Problem MakeProblem(int status, std::string kind, std::string message, std::string path = "");
// A malformed request: 400 with kind "request.invalid" (or `kind`) at `path`.
Problem BadRequest(std::string path, std::string message, std::string kind = "request.invalid");
Problem NotFound(std::string message);
Problem Unauthorized(std::string message);
Problem Forbidden(std::string message);
Problem RouteNotFound(const std::string& path);
Problem MethodNotAllowed(const std::string& method, const std::vector<std::string>& allowed);
Problem PayloadTooLarge(std::size_t limit);
Problem Overloaded(std::string message);  // 503 with Retry-After: 1

// The diagnostic path `path` (in its dialect's form: `args[1].rhs`, `<root>`,
// `filters[2].value`, `$.filter.expr`) as a JSONPath under `base`.
std::string JoinDiagnosticPath(const std::string& base, const std::string& path);

}  // namespace engram::server::http

#endif  // ENGRAM_SERVER_HTTP_PROBLEM_H_
