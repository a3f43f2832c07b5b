#include "engine/version.h"

#include <string>

#include <gtest/gtest.h>

#include "base/json.h"
#include "base/time.h"

namespace engram::engine {
namespace {

// The stored body is what json::Dump writes for the object with the member
// last, and CutVersion gives back the body StoredBody was given.
TEST(VersionTest, StoredBodyIsTheDumpedObjectAndCutsBackExactly) {
  const Datetime written{1'700'000'000'123'456};
  const Datetime superseded{1'700'000'100'000'000};
  for (const std::string body : {"{}", R"({"id":"a","n":1})"}) {
    for (const Version version : {Version{written, std::nullopt}, Version{written, superseded},
                                  Version{std::nullopt, superseded}}) {
      std::string stored = StoredBody(body, version);
      json::Value object = json::Read(body).value;
      json::Value member = json::Value::object();
      if (version.written_at) member["written_at"] = FormatDatetime(*version.written_at);
      if (version.superseded_at) member["superseded_at"] = FormatDatetime(*version.superseded_at);
      object[std::string(kVersionMember)] = member;
      EXPECT_EQ(stored, json::Dump(object)) << body;

      json::Value read = json::Read(stored).value;
      Version taken;
      EXPECT_EQ(TakeVersion(&read, &taken), std::nullopt);
      EXPECT_EQ(taken.written_at, version.written_at);
      EXPECT_EQ(taken.superseded_at, version.superseded_at);
      ASSERT_TRUE(CutVersion(&stored, version)) << stored;
      EXPECT_EQ(stored, body);
    }
  }
}

TEST(VersionTest, CutVersionLeavesOtherBodiesAsTheyAre) {
  const Version version{Datetime{1'000'000}, std::nullopt};
  const std::string other = StoredBody(R"({"a":1})", Version{Datetime{2'000'000}, std::nullopt});
  for (std::string body :
       {std::string(R"({"a":1})"), other,
        std::string(R"({"a":1 "@version":{"written_at":"1970-01-01T00:00:01Z"}})"),
        std::string("}")}) {
    const std::string before = body;
    EXPECT_FALSE(CutVersion(&body, version)) << before;
    EXPECT_EQ(body, before);
  }
}

}  // namespace
}  // namespace engram::engine
