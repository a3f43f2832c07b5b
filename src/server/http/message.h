// An HTTP request and response as the API sees them, without the HTTP
// library: what the wire layer (wire.h) parses and server.h writes back.
#ifndef ENGRAM_SERVER_HTTP_MESSAGE_H_
#define ENGRAM_SERVER_HTTP_MESSAGE_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace engram::server::http {

struct HttpRequest {
  std::string method;
  std::string path;  // percent-decoded, without the query string
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;

  // The first value of the header `name` (lower-case), "" when absent.
  std::string_view Header(std::string_view name) const;
  // How many fields the header `name` (lower-case) has.
  std::size_t HeaderCount(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

}  // namespace engram::server::http

#endif  // ENGRAM_SERVER_HTTP_MESSAGE_H_
