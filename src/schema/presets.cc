#include "schema/presets.h"

#include <string>
#include <utility>

namespace engram {
namespace {

Field Make(std::string name, FieldType type, Presence presence, Value def = {}) {
  Field f;
  f.name = std::move(name);
  f.type = type;
  f.presence = presence;
  f.default_value = std::move(def);
  return f;
}

}  // namespace

std::shared_ptr<const Schema> MemorySchema() {
  static const std::shared_ptr<const Schema> schema = [] {
    using enum FieldType;
    using enum Presence;
    Field sequence_order = Make("sequence_order", kInt, kRequired);
    sequence_order.min = 1;
    Field archetype_version =
        Make("archetype_version", kString, kDefault, Value(std::string("unknown")));
    archetype_version.numbers_as_text = true;
    std::vector<Field> fields = {
        Make("session_id", kString, kRequired),
        Make("tool", kString, kRequired),
        Make("agent_id", kString, kRequired),
        Make("title", kString, kDefault, Value(std::string())),
        Make("context", kString, kDefault, Value(std::string())),
        std::move(sequence_order),
        Make("memory_id", kString, kRequired),
        Make("timestamp", kDatetime, kRequired),
        Make("preceding_memory_id", kString, kOptional),
        Make("archetype_title", kString, kRequired),
        std::move(archetype_version),
        Make("schema_version", kString, kRequired),
    };
    return std::make_shared<const Schema>(std::move(fields), "memory_id");
  }();
  return schema;
}

std::shared_ptr<const Schema> NotesSchema() {
  static const std::shared_ptr<const Schema> schema = [] {
    using enum FieldType;
    using enum Presence;
    std::vector<Field> fields = {
        Make("type", kString, kRequired),
        Make("key", kString, kOptional),
        Make("scope", kString, kRequired),
        Make("agent_id", kString, kRequired),
        Make("importance", kFloat, kRequired),
        Make("confidence", kFloat, kRequired),
        Make("updated_at", kDatetime, kRequired),
        Make("expires_at", kDatetime, kOptional),
        Make("hit_count", kInt, kDefault, Value(std::int64_t{0})),
        Make("last_hit_at", kDatetime, kOptional),
    };
    return std::make_shared<const Schema>(std::move(fields));
  }();
  return schema;
}

std::shared_ptr<const Schema> FindPreset(std::string_view name) {
  if (name == "memory") return MemorySchema();
  if (name == "notes") return NotesSchema();
  return nullptr;
}

}  // namespace engram
