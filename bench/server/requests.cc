#include "server/requests.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include <nlohmann/json.hpp>

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
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) throw std::runtime_error("request body is not a JSON object");
  SearchRequest r;
  if (j.contains("query")) {
    if (!j["query"].is_string()) throw std::runtime_error("$.query is not a string");
    r.query = j["query"].get<std::string>();
  }
  if (j.contains("vector")) {
    if (!j["vector"].is_array()) throw std::runtime_error("$.vector is not an array");
    std::vector<float> v;
    v.reserve(j["vector"].size());
    for (const auto& x : j["vector"]) {
      if (!x.is_number()) throw std::runtime_error("$.vector holds a non-number");
      v.push_back(x.get<float>());
    }
    r.vector = std::move(v);
  }
  if (j.contains("filter")) {
    r.filter = j["filter"].is_string() ? j["filter"].get<std::string>() : j["filter"].dump();
  }
  if (j.contains("dialect")) {
    if (!j["dialect"].is_string()) throw std::runtime_error("$.dialect is not a string");
    r.dialect = FilterDialectFromName(j["dialect"].get<std::string>());
    if (!r.dialect) throw std::runtime_error("$.dialect: unknown dialect");
  }
  if (j.contains("k")) {
    if (!j["k"].is_number_unsigned()) throw std::runtime_error("$.k is not a count");
    r.k = j["k"].get<std::size_t>();
  }
  if (j.contains("mode")) {
    if (!j["mode"].is_string()) throw std::runtime_error("$.mode is not a string");
    r.mode = SearchModeFromName(j["mode"].get<std::string>());
    if (!r.mode) throw std::runtime_error("$.mode: unknown mode");
  }
  return r;
}

std::string HitsJson(const SearchResponse& response) {
  nlohmann::json hits = nlohmann::json::array();
  for (const SearchHit& h : response.hits) {
    hits.push_back({{"id", h.id},
                    {"score", h.score},
                    {"relevance", h.relevance},
                    {"record", nlohmann::json::parse(h.record, nullptr, false)}});
  }
  return nlohmann::json{{"hits", std::move(hits)}}.dump();
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
