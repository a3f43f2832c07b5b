#include "engine/record_key.h"

#include <charconv>
#include <variant>

namespace engram::engine {

std::optional<std::uint32_t> OwnerSlot(const Schema& schema) {
  const Field* f = schema.Find(kAgentField);
  if (f == nullptr || f->type != FieldType::kString) return std::nullopt;
  return f->slot;
}

std::string OwnedKey(std::optional<std::string_view> agent, std::string_view id) {
  std::string key;
  if (agent) {
    key = std::to_string(agent->size());
    key += ':';
    key += *agent;
  } else {
    key = "-";
  }
  key += ':';
  key += id;
  return key;
}

bool IsOwnedKey(std::string_view key, std::optional<std::string_view> agent, std::string_view id) {
  char digits[24];
  std::string_view prefix = "-";
  if (agent) {
    const std::to_chars_result end = std::to_chars(digits, digits + sizeof digits, agent->size());
    prefix = std::string_view(digits, static_cast<std::size_t>(end.ptr - digits));
  }
  const std::size_t size = prefix.size() + 1 + (agent ? agent->size() + 1 : 0) + id.size();
  if (key.size() != size || !key.starts_with(prefix) || key[prefix.size()] != ':') return false;
  key.remove_prefix(prefix.size() + 1);
  if (agent) {
    if (!key.starts_with(*agent) || key[agent->size()] != ':') return false;
    key.remove_prefix(agent->size() + 1);
  }
  return key == id;
}

std::optional<std::string_view> OwnerOf(const std::vector<Value>& slots, std::uint32_t owner_slot) {
  if (owner_slot >= slots.size()) return std::nullopt;
  const std::string* agent = std::get_if<std::string>(&slots[owner_slot]);
  if (agent == nullptr) return std::nullopt;
  return std::string_view(*agent);
}

}  // namespace engram::engine
