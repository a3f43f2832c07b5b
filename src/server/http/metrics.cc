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
  if (const std::optional<std::uint64_t> followed = engine->Followed()) {
    out << "# HELP engram_store_followed_sequence The store sequence up to which this node has "
           "applied every change (a shared PostgreSQL store; compare nodes for their lag).\n"
           "# TYPE engram_store_followed_sequence gauge\n"
        << "engram_store_followed_sequence " << *followed << '\n'
        << "# HELP engram_store_following Whether this node follows its shared store now "
           "(0 while it cannot read or apply the changes).\n"
           "# TYPE engram_store_following gauge\n"
        << "engram_store_following " << (engine->Health().ok() ? 1 : 0) << '\n';
  }
  // A counter per collection, for the collections `applies` accepts.
  auto per_collection = [&](const char* name, const char* help, auto applies, auto value) {
    out << "# HELP " << name << ' ' << help << "\n# TYPE " << name << " counter\n";
    for (const CollectionInfo& info : collections) {
      if (!applies(info.spec)) continue;
      out << name << "{collection=\"" << Label(info.spec.name) << "\"} " << value(info) << '\n';
    }
  };
  auto expires = [](const CollectionSpec& spec) { return !spec.ttl_field.empty(); };
  auto counts_hits = [](const CollectionSpec& spec) {
    return !spec.hit_count_field.empty() || !spec.last_hit_field.empty();
  };
  per_collection("engram_expired_records_purged_total",
                 "Expired records deleted by the maintenance since the store was opened "
                 "(collections with a ttl_field).",
                 expires, [](const CollectionInfo& info) { return info.purged; });
  per_collection("engram_hits_tallied_total",
                 "Search hits tallied for recall statistics since the store was opened "
                 "(collections with hit fields).",
                 counts_hits, [](const CollectionInfo& info) { return info.hits_tallied; });
  per_collection("engram_hits_dropped_total",
                 "Search hits not tallied because the tally was full (65536 records' hits "
                 "waiting to be written).",
                 counts_hits, [](const CollectionInfo& info) { return info.hits_dropped; });
  return out.str();
}

}  // namespace engram::server::http
