#include "server/requests.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "server/http/api.h"
#include "server/http/request_decode.h"

namespace engram::bench {

std::string SearchBody(std::string_view query, std::string_view vector_json,
                       std::string_view filter_json, std::size_t k) {
  // Built as text so that the vector keeps the digits of the vectors file
  // (a float printed back by nlohmann may differ in its last digits).
  std::string out = "{\"query\":" + nlohmann::json(std::string(query)).dump();
  out += ",\"vector\":";
  out += vector_json;
  if (!filter_json.empty()) {
    out += ",\"filter\":";
    out += nlohmann::json::parse(filter_json).dump();  // validated, on one line
    out += ",\"dialect\":\"vector_filter\"";
  }
  out += ",\"k\":" + std::to_string(k) + ",\"mode\":\"hybrid\"}";
  return out;
}

SearchRequest ParseSearchBody(std::string_view body) {
  const server::http::Limits limits;
  server::http::Decoded<nlohmann::json> json = server::http::ParseBody(body, limits);
  if (!json.ok()) throw std::runtime_error(json.problem().message);
  server::http::Decoded<SearchRequest> request = server::http::DecodeSearch(json.value(), limits);
  if (!request.ok()) throw std::runtime_error(request.problem().message);
  return std::move(request.value());
}

std::string HitsJson(const SearchResponse& response) {
  return server::http::SearchReply(response).body;
}

std::vector<double> WrkCorrected(const std::vector<double>& latencies_us, double runtime_us,
                                 std::size_t connections) {
  std::vector<double> out;
  out.reserve(latencies_us.size() * 2);
  for (const double x : latencies_us) out.push_back(std::floor(x));
  const std::uint64_t per_connection = connections ? latencies_us.size() / connections : 0;
  if (per_connection == 0) return out;
  const auto expected =
      static_cast<std::int64_t>(static_cast<std::uint64_t>(runtime_us) / per_connection);
  if (expected <= 0) return out;
  const std::size_t n = out.size();
  for (std::size_t i = 0; i < n; ++i) {
    const auto v = static_cast<std::int64_t>(out[i]);
    if (v < 2 * expected) continue;
    for (std::int64_t m = v - expected; m > expected; m -= expected) {
      out.push_back(static_cast<double>(m));
    }
  }
  return out;
}

LatencySummary Summarise(std::vector<double>& values) {
  LatencySummary s;
  s.samples = values.size();
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  auto rank = [&](double q) {
    const auto i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
    return values[std::min(values.size(), std::max<std::size_t>(i, 1)) - 1];
  };
  s.p50 = rank(0.50);
  s.p99 = rank(0.99);
  s.max = values.back();
  for (const double x : values) s.mean += x;
  s.mean /= static_cast<double>(values.size());
  return s;
}

}  // namespace engram::bench
