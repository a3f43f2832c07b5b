#include "server/common/json_input.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace engram::server {
namespace {

using nlohmann::json;

// Builds the DOM itself so that depth, duplicate keys and the path of the
// offending value are known while parsing (nlohmann's own DOM builder keeps
// the last of duplicate keys and has no depth limit).
class StrictSax : public nlohmann::json_sax<json> {
 public:
  explicit StrictSax(std::size_t max_depth) : max_depth_(max_depth) {}

  bool null() override { return Put(json(nullptr)); }
  bool boolean(bool v) override { return Put(json(v)); }
  bool number_integer(number_integer_t v) override { return Put(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return Put(json(v)); }
  bool number_float(number_float_t v, const string_t& /*lexeme*/) override { return Put(json(v)); }
  bool string(string_t& v) override { return Put(json(std::move(v))); }
  bool binary(binary_t& /*v*/) override { return Fail("binary values are not JSON"); }

  bool start_object(std::size_t /*n*/) override { return Open(json::object()); }
  bool key(string_t& k) override {
    Frame& f = stack_.back();
    if (!f.keys.insert(k).second) {
      return Fail("duplicate key '" + k + "' at " + Path());
    }
    f.key = k;
    return true;
  }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t /*n*/) override { return Open(json::array()); }
  bool end_array() override { return Close(); }

  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& ex) override {
    error_ = ex.what();
    // nlohmann's message starts "[json.exception.parse_error.101] parse error at line 1, ...".
    const std::size_t at = error_.find("parse error");
    if (at != std::string::npos) error_ = error_.substr(at);
    offset_ = position;
    syntax_ = true;
    return false;
  }

  json result() && { return std::move(root_); }
  const std::string& error() const { return error_; }
  bool syntax() const { return syntax_; }
  std::size_t offset() const { return offset_; }

 private:
  struct Frame {
    json value;
    std::string key;
    std::set<std::string> keys;
  };

  bool Fail(std::string message) {
    error_ = std::move(message);
    return false;
  }

  std::string Path() const {
    std::string path = "$";
    for (const Frame& f : stack_) {
      if (f.value.is_object()) {
        path = JsonPathChild(path, f.key);
      } else {
        path = JsonPathIndex(path, f.value.size());
      }
    }
    return path;
  }

  bool Put(json v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return true;
    }
    Frame& f = stack_.back();
    if (f.value.is_object()) {
      f.value[f.key] = std::move(v);
    } else {
      f.value.push_back(std::move(v));
    }
    return true;
  }

  bool Open(json container) {
    if (stack_.size() >= max_depth_) {
      return Fail("nesting deeper than " + std::to_string(max_depth_) + " levels at " + Path());
    }
    stack_.push_back(Frame{std::move(container), {}, {}});
    return true;
  }

  bool Close() {
    json v = std::move(stack_.back().value);
    stack_.pop_back();
    return Put(std::move(v));
  }

  std::size_t max_depth_;
  std::vector<Frame> stack_;
  json root_;
  std::string error_;
  std::size_t offset_ = 0;
  bool syntax_ = false;
};

}  // namespace

JsonInput ParseJsonInput(std::string_view text, const JsonLimits& limits) {
  JsonInput out;
  if (text.size() > limits.max_bytes) {
    out.error = "the JSON is " + std::to_string(text.size()) + " bytes; the limit is " +
                std::to_string(limits.max_bytes);
    return out;
  }
  StrictSax sax(limits.max_depth);
  bool ok = false;
  try {
    ok = json::sax_parse(text.begin(), text.end(), &sax, nlohmann::detail::input_format_t::json,
                         /*strict=*/true);
  } catch (const std::exception& e) {  // e.g. out of memory; never let it escape
    out.error = e.what();
    return out;
  }
  if (!ok) {
    out.error = sax.error().empty() ? "invalid JSON" : sax.error();
    out.offset = sax.offset();
    return out;
  }
  out.value = std::move(sax).result();
  return out;
}

std::string JsonPathChild(const std::string& parent, std::string_view key) {
  const bool plain = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
  if (plain) return parent + "." + std::string(key);
  return parent + "[" + json(std::string(key)).dump() + "]";
}

std::string JsonPathIndex(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

}  // namespace engram::server
