#include "schema/record.h"

#include <gtest/gtest.h>

#include "schema/presets.h"

namespace engram {
namespace {

std::shared_ptr<const Schema> Knowledge() {
  return Schema::Parse(R"({"fields":[
    {"name":"min_level","type":"int","default":0},
    {"name":"character_classes","type":"set<string>","optional":true},
    {"name":"weight","type":"float","optional":true},
    {"name":"created","type":"datetime","optional":true},
    {"name":"flag","type":"bool","optional":true}]})")
      .value();
}

Checked<Record> Parse(std::string_view text, const Schema& schema) {
  return ParseRecord(json::Read(text).value, schema);
}

TEST(Record, TypesDefaultsAndExtras) {
  auto schema = Knowledge();
  auto r = Parse(R"({"id":"r1","character_classes":["mage","bard","mage"],"weight":2,
                     "created":"2025-07-01","flag":null,"text":"hello","min_level":3.0})",
                 *schema);
  ASSERT_TRUE(r.ok()) << r.diagnostic().message;
  EXPECT_EQ(r.value().id, "r1");
  EXPECT_EQ(std::get<std::int64_t>(r.value().slots[0]), 3);
  EXPECT_EQ(std::get<StringSet>(r.value().slots[1]), (StringSet{"bard", "mage"}));
  EXPECT_EQ(std::get<double>(r.value().slots[2]), 2.0);
  EXPECT_TRUE(std::holds_alternative<Datetime>(r.value().slots[3]));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(r.value().slots[4]));
  EXPECT_EQ(r.value().extra["text"], "hello");
  auto d = Parse(R"({"id":"r2"})", *schema);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(std::get<std::int64_t>(d.value().slots[0]), 0);  // default
}

TEST(Record, Errors) {
  auto schema = Knowledge();
  auto err = [&](std::string_view text) {
    auto r = Parse(text, *schema);
    EXPECT_FALSE(r.ok()) << text;
    return r.ok() ? "" : r.diagnostic().message;
  };
  EXPECT_EQ(err(R"({"id":"x","min_level":"3"})"), "field 'min_level': expected int, got string");
  EXPECT_EQ(err(R"({"id":"x","min_level":2.5})"),
            "field 'min_level': expected int, got non-integral or out-of-range number 2.5");
  EXPECT_EQ(err(R"({"id":"x","character_classes":["a",1]})"),
            "field 'character_classes': item [1]: expected string, got int");
  EXPECT_EQ(err(R"({"id":"x","created":"2025-02-30"})"),
            "field 'created': expected an RFC 3339 datetime, got '2025-02-30'");
  EXPECT_EQ(err(R"({"min_level":1})"), "field 'id': required but missing");
  EXPECT_EQ(err(R"({"id":7})"), "field 'id': id must be a non-empty string");
  EXPECT_EQ(err(R"([1])"), "a record must be a JSON object, got array");
}

TEST(Record, MemoryPresetIdAndNumbersAsText) {
  auto schema = MemorySchema();
  const char* base = R"({"session_id":"s","tool":"t","agent_id":"a","sequence_order":1,
     "timestamp":"2025-07-01T10:00:00Z","archetype_title":"x","schema_version":"1",)";
  auto r = Parse(std::string(base) + R"("memory_id":"m1","archetype_version":0.01})", *schema);
  ASSERT_TRUE(r.ok()) << r.diagnostic().message;
  EXPECT_EQ(r.value().id, "m1");
  EXPECT_EQ(std::get<std::string>(r.value().slots[schema->Find("archetype_version")->slot]),
            "0.01");
  auto by_id = Parse(std::string(base) + R"("id":"m2"})", *schema);
  ASSERT_TRUE(by_id.ok());
  EXPECT_EQ(std::get<std::string>(by_id.value().slots[schema->Find("memory_id")->slot]), "m2");
  EXPECT_EQ(std::get<std::string>(by_id.value().slots[schema->Find("archetype_version")->slot]),
            "unknown");
  auto mismatch = Parse(std::string(base) + R"("id":"m2","memory_id":"m3"})", *schema);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.diagnostic().message, "field 'id': id 'm2' differs from memory_id 'm3'");
  auto zero = Parse(std::string(base) + R"("id":"m2","sequence_order":0})", *schema);
  EXPECT_FALSE(zero.ok());  // duplicate key in the document is caught by the reader; here 0 < 1
}

}  // namespace
}  // namespace engram
