#include "server/http/metrics.h"

#include <sstream>

namespace engram::server::http {
namespace {

// A label value with `\`, `"` and newlines escaped (exposition format).
std::string Label(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

void Metrics::Record(const std::string& route, const std::string& method, int status,
                     double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++requests_[{route, method, status}];
  Histogram& h = durations_[route];
  for (std::size_t i = 0; i < kBuckets.size(); ++i) {
    if (seconds <= kBuckets[i]) ++h.buckets[i];
  }
  ++h.count;
  h.sum += seconds;
}

void Metrics::CountError(const std::string& kind) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++errors_[kind];
}

std::string Metrics::Render(const Engine* engine) const {
  std::ostringstream out;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    out << "# HELP engram_http_requests_total HTTP requests by route template, method and "
           "status.\n# TYPE engram_http_requests_total counter\n";
    for (const auto& [key, n] : requests_) {
      out << "engram_http_requests_total{route=\"" << Label(std::get<0>(key)) << "\",method=\""
          << Label(std::get<1>(key)) << "\",status=\"" << std::get<2>(key) << "\"} " << n << '\n';
    }
    out << "# HELP engram_http_request_duration_seconds Time to answer a request.\n"
           "# TYPE engram_http_request_duration_seconds histogram\n";
    for (const auto& [route, h] : durations_) {
      const std::string r = Label(route);
      for (std::size_t i = 0; i < kBuckets.size(); ++i) {
        out << "engram_http_request_duration_seconds_bucket{route=\"" << r << "\",le=\""
            << kBuckets[i] << "\"} " << h.buckets[i] << '\n';
      }
      out << "engram_http_request_duration_seconds_bucket{route=\"" << r << "\",le=\"+Inf\"} "
          << h.count << '\n';
      out << "engram_http_request_duration_seconds_sum{route=\"" << r << "\"} " << h.sum << '\n';
      out << "engram_http_request_duration_seconds_count{route=\"" << r << "\"} " << h.count
          << '\n';
    }
    out << "# HELP engram_http_errors_total Error responses by problem kind.\n"
           "# TYPE engram_http_errors_total counter\n";
    for (const auto& [kind, n] : errors_) {
      out << "engram_http_errors_total{kind=\"" << Label(kind) << "\"} " << n << '\n';
    }
  }
  out << "# HELP engram_http_in_flight Requests being handled.\n"
         "# TYPE engram_http_in_flight gauge\n"
      << "engram_http_in_flight " << in_flight_.load() << '\n';
  out << "# HELP engram_http_connections Open client connections.\n"
         "# TYPE engram_http_connections gauge\n"
      << "engram_http_connections " << connections_.load() << '\n';
  out << "# HELP engram_collection_records Records per collection.\n"
         "# TYPE engram_collection_records gauge\n";
  if (engine == nullptr) return out.str();
  const std::vector<CollectionInfo> collections = engine->ListCollections();
  for (const CollectionInfo& info : collections) {
    out << "engram_collection_records{collection=\"" << Label(info.spec.name) << "\"} "
        << info.records << '\n';
  }
  out << "# HELP engram_expired_records_purged_total Expired records deleted by the "
         "maintenance since the store was opened (collections with a ttl_field).\n"
         "# TYPE engram_expired_records_purged_total counter\n";
  for (const CollectionInfo& info : collections) {
    if (info.spec.ttl_field.empty()) continue;
    out << "engram_expired_records_purged_total{collection=\"" << Label(info.spec.name) << "\"} "
        << info.purged << '\n';
  }
  out << "# HELP engram_hits_tallied_total Search hits tallied for recall statistics since the "
         "store was opened (collections with hit fields).\n"
         "# TYPE engram_hits_tallied_total counter\n";
  for (const CollectionInfo& info : collections) {
    if (info.spec.hit_count_field.empty() && info.spec.last_hit_field.empty()) continue;
    out << "engram_hits_tallied_total{collection=\"" << Label(info.spec.name) << "\"} "
        << info.hits_tallied << '\n';
  }
  out << "# HELP engram_hits_dropped_total Search hits not tallied because the tally was full "
         "(kMaxPendingHitRecords records waiting to be written).\n"
         "# TYPE engram_hits_dropped_total counter\n";
  for (const CollectionInfo& info : collections) {
    if (info.spec.hit_count_field.empty() && info.spec.last_hit_field.empty()) continue;
    out << "engram_hits_dropped_total{collection=\"" << Label(info.spec.name) << "\"} "
        << info.hits_dropped << '\n';
  }
  return out.str();
}

}  // namespace engram::server::http
