// The server's Prometheus metrics (text exposition format 0.0.4): requests by
// route template, method and status; latency histograms by route; errors by
// problem kind (front-end refusals and request timeouts included); requests
// in flight; open connections; and records per collection, read from the
// engine at scrape time. Thread-safe.
#ifndef ENGRAM_SERVER_HTTP_METRICS_H_
#define ENGRAM_SERVER_HTTP_METRICS_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "engram/engine.h"

namespace engram::server::http {

class Metrics {
 public:
  // One finished request; `route` is its path template ("unmatched" for 404s).
  void Record(const std::string& route, const std::string& method, int status, double seconds);
  void CountError(const std::string& kind);

  std::atomic<std::int64_t>& in_flight() { return in_flight_; }
  std::atomic<std::int64_t>& connections() { return connections_; }

  // The exposition text; `engine` may be null (no collection gauges then).
  std::string Render(const Engine* engine) const;

 private:
  static constexpr std::array<double, 12> kBuckets = {0.001, 0.005, 0.01, 0.025, 0.05, 0.1,
                                                      0.25,  0.5,   1,    2.5,   5,    10};
  struct Histogram {
    std::array<std::uint64_t, kBuckets.size()> buckets{};
    std::uint64_t count = 0;
    double sum = 0;
  };
  mutable std::mutex mutex_;
  std::map<std::tuple<std::string, std::string, int>, std::uint64_t> requests_;
  std::map<std::string, Histogram> durations_;
  std::map<std::string, std::uint64_t> errors_;
  std::atomic<std::int64_t> in_flight_{0};
  std::atomic<std::int64_t> connections_{0};
};

}  // namespace engram::server::http

#endif  // ENGRAM_SERVER_HTTP_METRICS_H_
