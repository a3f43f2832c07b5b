#include "engine/page_token.h"

#include <variant>

#include "base/json.h"

namespace engram::engine {
namespace {

constexpr char kHex[] = "0123456789abcdef";

std::optional<std::string> FromHex(std::string_view text) {
  if (text.size() % 2 != 0) return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out;
  out.reserve(text.size() / 2);
  for (std::size_t i = 0; i < text.size(); i += 2) {
    const int hi = nibble(text[i]), lo = nibble(text[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

json::Value ValueJson(const Value& v) {
  if (const auto* b = std::get_if<bool>(&v)) return *b;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* t = std::get_if<Datetime>(&v)) return t->micros;
  return nullptr;
}

std::optional<Value> ValueOf(const json::Value& j, std::optional<FieldType> type) {
  if (j.is_null()) return Value();
  if (!type) return std::nullopt;
  switch (*type) {
    case FieldType::kBool:
      if (j.is_boolean()) return Value(j.get<bool>());
      break;
    case FieldType::kInt:
      if (j.is_number_integer()) return Value(j.get<std::int64_t>());
      break;
    case FieldType::kFloat:
      if (j.is_number()) return Value(j.get<double>());
      break;
    case FieldType::kString:
      if (j.is_string()) return Value(j.get<std::string>());
      break;
    case FieldType::kDatetime:
      if (j.is_number_integer()) return Value(Datetime{j.get<std::int64_t>()});
      break;
    case FieldType::kStringSet:
      break;
  }
  return std::nullopt;
}

}  // namespace

std::uint64_t QueryFingerprint(std::initializer_list<std::string_view> parts) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a 64 offset basis and prime
  auto mix = [&h](unsigned char c) {
    h ^= c;
    h *= 1099511628211ull;
  };
  for (std::string_view part : parts) {
    for (std::size_t n = part.size(), i = 0; i < 8; ++i)
      mix(static_cast<unsigned char>(n >> (8 * i)));
    for (const char c : part) mix(static_cast<unsigned char>(c));
  }
  return h;
}

std::string EncodePageToken(const PageToken& token) {
  const std::string doc = json::Dump(json::Value{
      {"q", std::to_string(token.query)}, {"v", ValueJson(token.value)}, {"k", token.key}});
  std::string out;
  out.reserve(doc.size() * 2);
  for (const char c : doc) {
    out.push_back(kHex[static_cast<unsigned char>(c) >> 4]);
    out.push_back(kHex[static_cast<unsigned char>(c) & 15]);
  }
  return out;
}

std::optional<PageToken> DecodePageToken(std::string_view text, std::optional<FieldType> type) {
  const std::optional<std::string> doc = FromHex(text);
  if (!doc) return std::nullopt;
  const json::ReadResult read = json::Read(*doc);
  if (!read.ok() || !read.value.is_object() || read.value.size() != 3) return std::nullopt;
  const json::Value& j = read.value;
  auto q = j.find("q"), v = j.find("v"), k = j.find("k");
  if (q == j.end() || v == j.end() || k == j.end() || !q->is_string() || !k->is_string()) {
    return std::nullopt;
  }
  PageToken token;
  const std::string& digits = q->get_ref<const std::string&>();
  if (digits.empty() || digits.size() > 20) return std::nullopt;
  for (const char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    token.query = token.query * 10 + static_cast<std::uint64_t>(c - '0');
  }
  std::optional<Value> value = ValueOf(*v, type);
  if (!value) return std::nullopt;
  token.value = std::move(*value);
  token.key = k->get<std::string>();
  return token;
}

}  // namespace engram::engine
