// The search requests of the server load test (issue 7) as the JSON bodies
// of POST /v1/collections/{name}/search, their translation into the
// engine's SearchRequest and the response body, both by the server's own
// code (so that the in-process side runs exactly what the HTTP side sends,
// and the "in-process + JSON" row pays exactly the server's JSON work), and
// the latency summary both sides report.
#ifndef ENGRAM_BENCH_SERVER_REQUESTS_H_
#define ENGRAM_BENCH_SERVER_REQUESTS_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "engram/engine.h"

namespace engram::bench {

// {"query": query, "vector": <vector_json>, "filter": <filter_json>,
//  "dialect": "vector_filter", "k": k, "mode": "hybrid"} on one line.
// `vector_json` is a JSON array text and `filter_json` a JSON object text
// (the filter is sent as a JSON value, not a string); an empty `filter_json`
// leaves "filter" and "dialect" out.
std::string SearchBody(std::string_view query, std::string_view vector_json,
                       std::string_view filter_json, std::size_t k);

// The SearchRequest the server decodes from `body` (server/http ParseBody
// and DecodeSearch with `engram serve`'s default limits). Throws
// std::runtime_error with the server's problem message.
SearchRequest ParseSearchBody(std::string_view body);

// The body the server answers a search with (server/http SearchReply).
std::string HitsJson(const SearchResponse& response);

struct LatencySummary {
  std::size_t samples = 0;
  double p50 = 0, p99 = 0, mean = 0, max = 0;  // in the unit of the input
};

// `latencies_us` with the samples wrk 4 adds before it reports (its
// coordinated-omission correction, stats_correct in wrk's stats.c): with
// expected = runtime_us / (samples / connections) in integers, each latency
// n >= 2 * expected (rounded to whole microseconds, as wrk records them)
// also counts as n - expected, n - 2 * expected, ... while above expected.
// Applied to the in-process samples so that both sides are summarised alike.
std::vector<double> WrkCorrected(const std::vector<double>& latencies_us, double runtime_us,
                                 std::size_t connections);

// Nearest-rank percentiles of `values` (sorted in place); zeros when empty.
LatencySummary Summarise(std::vector<double>& values);

}  // namespace engram::bench

#endif  // ENGRAM_BENCH_SERVER_REQUESTS_H_
