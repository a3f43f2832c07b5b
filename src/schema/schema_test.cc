#include "schema/schema.h"

#include <gtest/gtest.h>

#include "schema/presets.h"

namespace engram {
namespace {

std::string ErrorOf(std::string_view text) {
  auto s = Schema::Parse(text);
  EXPECT_FALSE(s.ok()) << text;
  return s.ok() ? "" : s.diagnostic().message;
}

TEST(Schema, ParsesTheIssueExample) {
  auto s = Schema::Parse(R"({"fields":[
    {"name":"min_level","type":"int","default":0},
    {"name":"character_classes","type":"set<string>","optional":true},
    {"name":"page_title","type":"string","default":"","filterable":false},
    {"name":"weight","type":"float","default":1},
    {"name":"created","type":"datetime","required":true},
    {"name":"tags","type":"set<string>","default":["b","a","b"]}]})");
  ASSERT_TRUE(s.ok()) << s.diagnostic().message;
  const Schema& schema = *s.value();
  ASSERT_EQ(schema.fields().size(), 6u);
  EXPECT_EQ(schema.Find("min_level")->slot, 0u);
  EXPECT_EQ(std::get<std::int64_t>(schema.Find("min_level")->default_value), 0);
  EXPECT_EQ(schema.Find("character_classes")->presence, Presence::kOptional);
  EXPECT_FALSE(schema.Find("page_title")->filterable);
  EXPECT_EQ(std::get<double>(schema.Find("weight")->default_value), 1.0);  // int -> float
  EXPECT_EQ(schema.Find("created")->presence, Presence::kRequired);
  EXPECT_EQ(std::get<StringSet>(schema.Find("tags")->default_value), (StringSet{"a", "b"}));
  EXPECT_EQ(schema.FindIgnoringCase("MIN_Level")->name, "min_level");
  EXPECT_EQ(schema.Find("MIN_LEVEL"), nullptr);
  // Round trip.
  auto again = Schema::FromJson(schema.ToJson());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(json::Dump(again.value()->ToJson()), json::Dump(schema.ToJson()));
}

TEST(Schema, LocatedErrors) {
  EXPECT_EQ(ErrorOf(R"({"fields":[{"name":"a","type":"strng","optional":true}]})"),
            "fields[0].type: unknown type \"strng\" (expected int, float, string, bool, "
            "datetime, set<string>)");
  EXPECT_EQ(ErrorOf(R"({"fields":[{"name":"a","type":"int"}]})"),
            "fields[0]: field 'a' must declare exactly one of default, optional: true, "
            "required: true");
  EXPECT_EQ(ErrorOf(R"({"fields":[{"name":"a","type":"int","default":1,"optional":true}]})"),
            "fields[0]: field 'a' must declare exactly one of default, optional: true, "
            "required: true");
  EXPECT_EQ(ErrorOf(R"({"fields":[{"name":"a","type":"int","default":1.5}]})"),
            "fields[0].default: default for int field: expected int, got non-integral or "
            "out-of-range number 1.5");
  EXPECT_EQ(ErrorOf(R"({"fields":[{"name":"a","type":"int","default":"1"}]})"),
            "fields[0].default: default for int field: expected int, got string");
  EXPECT_EQ(ErrorOf(R"({"fields":[{"name":"a","type":"string","default":1}]})"),
            "fields[0].default: default for string field: expected string, got int");
  EXPECT_EQ(ErrorOf(R"({"fields":[{"name":"a","type":"int","optional":true},
                                   {"name":"A","type":"int","optional":true}]})"),
            "fields[1].name: field 'A' is declared twice (names must differ in more than letter "
            "case)");
  EXPECT_EQ(ErrorOf(R"({"fields":[{"name":"a","type":"int","optional":true,"filtrable":false}]})"),
            "fields[0].filtrable: unknown key 'filtrable' (expected name, type, default, optional, "
            "required, filterable, min, numbers_as_text)");
  EXPECT_EQ(ErrorOf(R"({"fields":[{"name":"id","type":"string","optional":true}]})"),
            "fields[0].name: 'id' is reserved (id and vector are record keys; names cannot start "
            "with $)");
  EXPECT_EQ(ErrorOf(R"({"fields":[{"name":"a","type":"int","optional":false}]})"),
            "fields[0].optional: optional must be true when given");
  EXPECT_EQ(ErrorOf(R"({"fieldz":[]})"),
            "fieldz: unknown key 'fieldz' (expected fields, id_field)");
  EXPECT_EQ(ErrorOf(R"([])"), "<schema>: a schema must be an object with \"fields\"");
  EXPECT_EQ(ErrorOf(R"({"fields":[{"name":"a","type":"int","optional":true,}]})").substr(0, 26),
            "<schema>: not valid JSON: ");
  EXPECT_EQ(ErrorOf(R"({"fields":[{"name":"d","type":"datetime","default":"yesterday"}]})"),
            "fields[0].default: default for datetime field: expected an RFC 3339 datetime, got "
            "'yesterday'");
  EXPECT_EQ(ErrorOf(R"({"fields":[{"name":"a","type":"int","optional":true}],"id_field":"a"})"),
            "id_field: id_field must name a required string field of this schema");
}

TEST(Schema, Presets) {
  auto memory = MemorySchema();
  std::vector<std::string> names;
  for (const Field& f : memory->fields()) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"session_id", "tool", "agent_id", "title", "context",
                                             "sequence_order", "memory_id", "timestamp",
                                             "preceding_memory_id", "archetype_title",
                                             "archetype_version", "schema_version"}));
  EXPECT_EQ(memory->id_field(), "memory_id");
  EXPECT_EQ(memory->Find("timestamp")->type, FieldType::kDatetime);
  EXPECT_EQ(memory->Find("preceding_memory_id")->presence, Presence::kOptional);
  auto notes = NotesSchema();
  names.clear();
  for (const Field& f : notes->fields()) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"type", "key", "scope", "agent_id", "importance",
                                             "confidence", "updated_at", "expires_at", "hit_count",
                                             "last_hit_at"}));
  EXPECT_EQ(notes->Find("importance")->type, FieldType::kFloat);
  EXPECT_EQ(FindPreset("memory"), memory);
  EXPECT_EQ(FindPreset("knowledge"), nullptr);
  // Presets are expressible as schema files.
  auto again = Schema::FromJson(memory->ToJson());
  ASSERT_TRUE(again.ok()) << again.diagnostic().message;
  EXPECT_EQ(json::Dump(again.value()->ToJson()), json::Dump(memory->ToJson()));
}

}  // namespace
}  // namespace engram
