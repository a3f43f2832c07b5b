// The OpenAPI 3.1 document of the HTTP API (docs/http-api/openapi.json, the
// source of truth), embedded into the binary at build time.
#ifndef ENGRAM_SERVER_HTTP_OPENAPI_H_
#define ENGRAM_SERVER_HTTP_OPENAPI_H_

#include <string_view>

namespace engram::server::http {

std::string_view OpenApiJson();

}  // namespace engram::server::http

#endif  // ENGRAM_SERVER_HTTP_OPENAPI_H_
