#include "server/http/message.h"

namespace engram::server::http {

std::string_view HttpRequest::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return value;
  }
  return {};
}

std::size_t HttpRequest::HeaderCount(std::string_view name) const {
  std::size_t n = 0;
  for (const auto& entry : headers) n += entry.first == name ? 1 : 0;
  return n;
}

}  // namespace engram::server::http
