#include "engine/record_key.h"

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

std::optional<std::string_view> OwnerOf(const std::vector<Value>& slots, std::uint32_t owner_slot) {
  if (owner_slot >= slots.size()) return std::nullopt;
  const std::string* agent = std::get_if<std::string>(&slots[owner_slot]);
  if (agent == nullptr) return std::nullopt;
  return std::string_view(*agent);
}

}  // namespace engram::engine
