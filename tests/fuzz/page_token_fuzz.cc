// libFuzzer target for List's page tokens (src/engine/page_token.h), which
// clients send back as they got them or altered: the first byte picks the
// order field's type (none, or one of the scalar types), the rest is the
// token. Invariants: never crashes, hangs or leaks; a token that decodes
// encodes to one that decodes to the same query fingerprint, value and key;
// a decoded value is absent or of the field's type; without an order field
// only an absent value decodes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "engine/page_token.h"

namespace {

using engram::FieldType;
using engram::Value;
using engram::engine::DecodePageToken;
using engram::engine::EncodePageToken;
using engram::engine::PageToken;

void Check(bool condition) {
  if (!condition) std::abort();
}

bool OfType(const Value& v, std::optional<FieldType> type) {
  if (std::holds_alternative<std::monostate>(v)) return true;
  if (!type) return false;
  switch (*type) {
    case FieldType::kBool:
      return std::holds_alternative<bool>(v);
    case FieldType::kInt:
      return std::holds_alternative<std::int64_t>(v);
    case FieldType::kFloat:
      return std::holds_alternative<double>(v);
    case FieldType::kString:
      return std::holds_alternative<std::string>(v);
    case FieldType::kDatetime:
      return std::holds_alternative<engram::Datetime>(v);
    case FieldType::kStringSet:
      return false;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0 || size > 4096) return 0;
  constexpr std::optional<FieldType> kTypes[] = {
      std::nullopt,       FieldType::kBool,     FieldType::kInt,      FieldType::kFloat,
      FieldType::kString, FieldType::kDatetime, FieldType::kStringSet};
  const std::optional<FieldType> type = kTypes[data[0] % std::size(kTypes)];
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::optional<PageToken> token = DecodePageToken(text, type);
  if (!token) return 0;
  Check(OfType(token->value, type));
  const std::optional<PageToken> again = DecodePageToken(EncodePageToken(*token), type);
  Check(again.has_value());
  Check(again->query == token->query && again->key == token->key);
  Check(again->value == token->value);
  return 0;
}
