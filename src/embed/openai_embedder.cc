#include "embed/openai_embedder.h"

#include <cmath>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <thread>

#include <httplib.h>

#include "base/json.h"
#include "base/status.h"
#include "base/unicode.h"

namespace engram::embed {
namespace {

using std::chrono::milliseconds;

// Retry-After: delay-seconds or an HTTP-date (RFC 9110 §10.2.3); nullopt when
// absent or unreadable.
std::optional<milliseconds> RetryAfter(const httplib::Response& res) {
  if (!res.has_header("Retry-After")) return std::nullopt;
  const std::string v = res.get_header_value("Retry-After");
  char* end = nullptr;
  const double seconds = std::strtod(v.c_str(), &end);
  if (end != v.c_str() && *end == '\0' && std::isfinite(seconds) && seconds >= 0 && seconds < 1e9) {
    return milliseconds(static_cast<std::int64_t>(seconds * 1000));
  }
  std::tm tm{};
  const char* rest = strptime(v.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (rest == nullptr || *rest != '\0') return std::nullopt;
  const std::time_t at = timegm(&tm);
  const std::time_t now = std::time(nullptr);
  return milliseconds(at > now ? (at - now) * 1000 : 0);
}

std::string Excerpt(const std::string& body) {
  std::string e = EscapeInvalidUtf8(body.substr(0, 300));
  for (char& c : e) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return body.size() > 300 ? e + "..." : e;
}

std::string Describe(httplib::Error e) {
  std::string what;
  switch (e) {
    case httplib::Error::Connection:
      what = "cannot connect";
      break;
    case httplib::Error::ConnectionTimeout:
      what = "connecting timed out";
      break;
    case httplib::Error::Read:
      what = "the reply was cut off or timed out";
      break;
    case httplib::Error::Write:
      what = "the request could not be sent";
      break;
    case httplib::Error::SSLConnection:
    case httplib::Error::SSLLoadingCerts:
    case httplib::Error::SSLServerVerification:
      what = "TLS failed";
      break;
    default:
      what = "transport failure";
      break;
  }
  return what + " (" + httplib::to_string(e) + ")";
}

Status Malformed(const std::string& where, const std::string& at, const std::string& what) {
  return Status::Corruption(where + ": malformed reply: " + at + ": " + what);
}

// The reply {"data": [{"index": i, "embedding": [numbers]}, ...], ...}: one
// embedding per text, each index once, `dim` finite numbers each (0: any
// dimension, the same for all).
StatusOr<std::vector<std::vector<float>>> ParseEmbeddings(const std::string& reply,
                                                          std::size_t count, std::size_t dim,
                                                          const std::string& where) {
  json::ReadOptions options;
  options.max_bytes = kMaxReplyBytes;
  options.max_depth = 16;
  const json::ReadResult doc = json::Read(reply, options);
  if (!doc.ok()) {
    return Malformed(where, doc.error->path.Dotted("<root>"),
                     "not valid JSON: " + doc.error->detail);
  }
  if (!doc.value.is_object() || !doc.value.contains("data") || !doc.value["data"].is_array()) {
    return Malformed(where, "data", "expected an array of embeddings");
  }
  const json::Value& data = doc.value["data"];
  if (data.size() != count) {
    return Malformed(
        where, "data",
        "expected " + std::to_string(count) + " embeddings, got " + std::to_string(data.size()));
  }
  std::vector<std::vector<float>> out(count);
  std::vector<bool> seen(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::string at = "data[" + std::to_string(i) + "]";
    const json::Value& e = data[i];
    if (!e.is_object() || !e.contains("embedding") || !e["embedding"].is_array()) {
      return Malformed(where, at + ".embedding", "expected an array of numbers");
    }
    std::size_t index = i;
    if (e.contains("index")) {
      const json::Value& x = e["index"];
      if (!x.is_number_integer() || x.get<std::int64_t>() < 0 || x.get<std::uint64_t>() >= count ||
          seen[x.get<std::size_t>()]) {
        return Malformed(
            where, at + ".index",
            "expected a distinct index below " + std::to_string(count) + ", got " + json::Dump(x));
      }
      index = x.get<std::size_t>();
    }
    seen[index] = true;
    const json::Value& v = e["embedding"];
    // Without a known dimension, the first embedding sets it for the others.
    if (dim == 0) dim = v.size();
    const std::size_t want = dim;
    if (v.empty() || v.size() != want) {
      return Malformed(
          where, at + ".embedding",
          "expected " + std::to_string(want) + " numbers, got " + std::to_string(v.size()));
    }
    std::vector<float>& row = out[index];
    row.reserve(v.size());
    for (std::size_t j = 0; j < v.size(); ++j) {
      const double x = v[j].is_number() ? v[j].get<double>() : NAN;
      if (!std::isfinite(x) || std::fabs(x) > std::numeric_limits<float>::max()) {
        return Malformed(where, at + ".embedding[" + std::to_string(j) + "]",
                         "expected a finite number, got " + json::Dump(v[j]));
      }
      row.push_back(static_cast<float>(x));
    }
  }
  return out;
}

}  // namespace

StatusOr<std::unique_ptr<OpenAiEmbedder>> OpenAiEmbedder::Open(OpenAiOptions options) {
  const EmbedderSpec& s = options.spec;
  const std::string& url = s.url;
  const std::size_t scheme_end = url.find("://");
  const std::string scheme = scheme_end == std::string::npos ? "" : url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") {
    return Status::InvalidArgument(
        "embedder: openai: url: expected http://host[:port][/path] "
        "or https://..., got '" +
        url + "'");
  }
  const std::size_t path_at = url.find('/', scheme_end + 3);
  const std::string host = url.substr(
      scheme_end + 3, path_at == std::string::npos ? std::string::npos : path_at - scheme_end - 3);
  if (host.empty() || host.find_first_of("?#@ ") != std::string::npos) {
    return Status::InvalidArgument("embedder: openai: url: no host in '" + url + "'");
  }
  std::string path = path_at == std::string::npos ? "" : url.substr(path_at);
  if (path.find_first_of("?# ") != std::string::npos) {
    return Status::InvalidArgument("embedder: openai: url: a base URL takes no query, got '" + url +
                                   "'");
  }
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (!path.ends_with("/embeddings")) path += "/embeddings";
  if (s.model.empty()) return Status::InvalidArgument("embedder: openai: model: missing");
  if (s.batch < 1 || s.batch > 2048 || s.timeout_ms < 1 || s.timeout_ms > 600000 ||
      s.retries > 10) {
    return Status::InvalidArgument(
        "embedder: openai: batch 1..2048, timeout_ms 1..600000 and retries 0..10");
  }
  const std::string model = s.model;
  const std::optional<std::size_t> dimensions = s.dimensions;
  auto out = std::unique_ptr<OpenAiEmbedder>(new OpenAiEmbedder(std::move(options)));
  out->origin_ = scheme + "://" + host;
  out->path_ = path;
  out->endpoint_ = out->origin_ + path;
  if (!out->options_.sleep) {
    out->options_.sleep = [](milliseconds d) { std::this_thread::sleep_for(d); };
  }
  std::size_t dim = dimensions.value_or(0);
  if (dim == 0) {  // learn it
    const std::string_view probe[] = {"dimension probe"};
    ASSIGN_OR_RETURN(auto vectors, out->Request(probe, 0));
    dim = vectors[0].size();
  }
  out->identity_ = {"openai", model, dim, ""};
  return out;
}

StatusOr<std::vector<std::vector<float>>> OpenAiEmbedder::Embed(
    std::span<const std::string_view> texts) const {
  std::vector<std::vector<float>> out;
  out.reserve(texts.size());
  for (std::size_t at = 0; at < texts.size(); at += options_.spec.batch) {
    const std::size_t n = std::min(options_.spec.batch, texts.size() - at);
    ASSIGN_OR_RETURN(auto part, Request(texts.subspan(at, n), identity_.dimension));
    for (auto& v : part) out.push_back(std::move(v));
  }
  return out;
}

StatusOr<std::vector<std::vector<float>>> OpenAiEmbedder::Request(
    std::span<const std::string_view> texts, std::size_t dim) const {
  const EmbedderSpec& s = options_.spec;
  json::Value body = json::Value::object();
  body["model"] = s.model;
  body["input"] = json::Value::array();
  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (!IsValidUtf8(texts[i])) {
      return Status::InvalidArgument("texts[" + std::to_string(i) + "]: not valid UTF-8");
    }
    body["input"].push_back(std::string(texts[i]));
  }
  body["encoding_format"] = "float";
  if (s.dimensions) body["dimensions"] = *s.dimensions;
  const std::string payload = json::Dump(body);
  httplib::Headers headers;
  if (!s.key_env.empty()) {
    const char* key = std::getenv(s.key_env.c_str());
    if (key == nullptr || *key == '\0') {
      return Status::FailedPrecondition("openai " + endpoint_ + ": the API key variable " +
                                        s.key_env + " is not set");
    }
    headers.emplace("Authorization", std::string("Bearer ") + key);
  }
  const std::string where = "openai " + endpoint_;
  const auto timeout = milliseconds(s.timeout_ms);
  milliseconds delay = options_.backoff;
  std::string last_error;
  int last_status = 0;
  std::size_t attempts = 0;
  for (; attempts <= s.retries; ++attempts) {
    httplib::Client client(origin_);
    client.set_connection_timeout(timeout);
    client.set_read_timeout(timeout);
    client.set_write_timeout(timeout);
    httplib::Request req;
    req.method = "POST";
    req.path = path_;
    req.headers = headers;
    req.headers.emplace("Content-Type", "application/json");
    req.body = payload;
    std::string reply;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    bool too_large = false, too_slow = false;
    req.content_receiver = [&](const char* data, std::size_t n, std::uint64_t, std::uint64_t) {
      if (reply.size() + n > kMaxReplyBytes) return !(too_large = true);
      if (std::chrono::steady_clock::now() > deadline) return !(too_slow = true);
      reply.append(data, n);
      return true;
    };
    httplib::Response res;
    httplib::Error error = httplib::Error::Success;
    const bool sent = client.send(req, res, error);
    std::optional<milliseconds> retry_after;
    if (too_large) {
      return Status::Corruption(where + ": malformed reply: larger than " +
                                std::to_string(kMaxReplyBytes) + " bytes");
    }
    if (!sent || too_slow) {
      last_status = 0;
      last_error = too_slow ? "the reply took longer than timeout_ms" : Describe(error);
    } else if (res.status == 200) {
      return ParseEmbeddings(reply, texts.size(), dim, where);
    } else {
      last_status = res.status;
      last_error = Excerpt(reply);
      const bool retryable = res.status == 429 || (res.status >= 500 && res.status <= 599);
      if (!retryable) break;
      retry_after = RetryAfter(res);
    }
    if (attempts == s.retries) break;
    milliseconds wait = retry_after.value_or(delay);
    if (retry_after && *retry_after > options_.max_retry_after) {
      last_error += " (Retry-After asks for " + std::to_string(retry_after->count() / 1000) +
                    " s, beyond the limit of " +
                    std::to_string(options_.max_retry_after.count() / 1000) + " s)";
      break;
    }
    options_.sleep(wait);
    delay = std::min(delay * 2, options_.max_backoff);
  }
  // The loop ends by a break: attempts + 1 requests were made.
  const std::string tries =
      " after " + std::to_string(attempts + 1) + " attempt" + (attempts == 0 ? "" : "s");
  if (last_status == 0) return Status::IoError(where + ": no reply" + tries + ": " + last_error);
  return Status::IoError(where + ": HTTP " + std::to_string(last_status) + tries + ": " +
                         last_error);
}

}  // namespace engram::embed
