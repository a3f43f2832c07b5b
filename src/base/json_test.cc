#include "base/json.h"

#include <cstdint>
#include <optional>
#include <string>

#include <gtest/gtest.h>

namespace engram::json {
namespace {

TEST(JsonRead, KeepsNumberClassAndOrder) {
  ReadResult r = Read(R"({"b":1,"a":1.0,"c":-0,"d":1e2,"e":-9223372036854775808})");
  ASSERT_TRUE(r.ok()) << r.error->detail;
  EXPECT_TRUE(r.value["b"].is_number_integer());
  EXPECT_TRUE(r.value["a"].is_number_float());
  EXPECT_TRUE(r.value["c"].is_number_integer());
  EXPECT_TRUE(r.value["d"].is_number_float());
  EXPECT_EQ(r.value["e"].get<std::int64_t>(), INT64_MIN);
  EXPECT_EQ(r.value.begin().key(), "b");
  EXPECT_EQ(Dump(r.value), R"({"b":1,"a":1.0,"c":0,"d":100.0,"e":-9223372036854775808})");
}

TEST(JsonRead, RejectsDuplicateKeysWithPath) {
  ReadResult r = Read(R"({"args":[{"op":"eq","op":"ne"}]})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error->fault, ReadFault::kDuplicateKey);
  EXPECT_EQ(r.error->path.Dotted(), "args[0].op");
  EXPECT_EQ(r.error->token, "op");
}

TEST(JsonRead, DuplicateKeysInLargeObjects) {
  std::string text = "{";
  for (int i = 0; i < 100; ++i) text += "\"k" + std::to_string(i) + "\":1,";
  text += "\"k57\":2}";
  ReadResult r = Read(text);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error->fault, ReadFault::kDuplicateKey);
  EXPECT_EQ(r.error->path.Dotted(), "k57");
}

TEST(JsonRead, RejectsIntegersOutsideInt64) {
  for (const char* text : {"[9223372036854775808]", "[-9223372036854775809]",
                           "[18446744073709551616]", "[123456789012345678901234567890]"}) {
    ReadResult r = Read(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error->fault, ReadFault::kNumberOutOfRange) << text;
    EXPECT_EQ(r.error->path.Dotted(), "[0]") << text;
  }
  EXPECT_TRUE(Read("[9223372036854775807]").ok());
  EXPECT_TRUE(Read("[9223372036854775808.0]").ok());  // a float lexeme is a float
}

TEST(JsonRead, RejectsNumbersBeyondDouble) {
  ReadResult r = Read(R"({"v":1e400})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error->fault, ReadFault::kNumberOutOfRange);
  EXPECT_EQ(r.error->path.Dotted(), "v");
  EXPECT_EQ(r.error->token, "1e400");
}

TEST(JsonRead, SyntaxErrorsAreLocated) {
  for (const char* text : {"{\"v\":NaN}", "{\"v\":Infinity}", "{\"v\":-Infinity}", "{\"v\":1,}",
                           "{'v':1}", "[1 2]", "{\"v\":01}", "", "  ", "{} {}", "/*c*/{}"}) {
    ReadResult r = Read(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error->fault, ReadFault::kSyntax) << text;
    EXPECT_NE(r.error->detail.find("line 1, column"), std::string::npos) << r.error->detail;
  }
  ReadResult r = Read("{\n  \"v\": NaN\n}");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error->detail.find("line 2, column"), std::string::npos) << r.error->detail;
}

TEST(JsonRead, RejectsInvalidUtf8AndLoneSurrogates) {
  for (const std::string& text :
       {std::string("[\"\xff\"]"), std::string("[\"\xc0\xaf\"]"), std::string("[\"\xed\xa0\x80\"]"),
        std::string("[\"\\ud800\"]"), std::string("[\"\\udc00x\"]"),
        std::string("[\"\\ud800\\u0041\"]")}) {
    ReadResult r = Read(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error->fault, ReadFault::kSyntax);
    // The message itself must be valid UTF-8 so it can be printed as JSON.
    EXPECT_EQ(Dump(Value(r.error->detail)).find('\xff'), std::string::npos);
  }
  ReadResult ok = Read("[\"\\ud83d\\ude00 \xf0\x9f\x98\x80\"]");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok.value[0].get<std::string>(), "\xf0\x9f\x98\x80 \xf0\x9f\x98\x80");
}

TEST(JsonRead, NestingLimit) {
  ReadOptions opts;
  opts.max_depth = 4;
  EXPECT_TRUE(Read("[[[[1]]]]", opts).ok());
  ReadResult r = Read("[[[[[1]]]]]", opts);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error->fault, ReadFault::kTooDeep);
  EXPECT_EQ(r.error->path.Dotted(), "[0][0][0][0]");
  // The default limit is 64.
  EXPECT_TRUE(Read(std::string(64, '[') + std::string(64, ']')).ok());
  EXPECT_EQ(Read(std::string(65, '[') + std::string(65, ']')).error->fault, ReadFault::kTooDeep);
}

TEST(JsonRead, SizeLimit) {
  ReadOptions opts;
  opts.max_bytes = 8;
  EXPECT_TRUE(Read("[1,2,3] ", opts).ok());
  ReadResult r = Read("[1,2,3]  ", opts);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error->fault, ReadFault::kTooLarge);
}

TEST(JsonRead, KeepsEmbeddedNul) {
  ReadResult r = Read(R"(["a\u0000b"])");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value[0].get<std::string>(), std::string("a\0b", 3));
}

TEST(JsonTypeName, Names) {
  EXPECT_EQ(TypeName(Value(1)), "int");
  EXPECT_EQ(TypeName(Value(1.5)), "float");
  EXPECT_EQ(TypeName(Value("x")), "string");
  EXPECT_EQ(TypeName(Value(true)), "bool");
  EXPECT_EQ(TypeName(Value(nullptr)), "null");
  EXPECT_EQ(TypeName(Value::array()), "array");
  EXPECT_EQ(TypeName(Value::object()), "object");
}

TEST(JsonCount, NonNegativeIntegersOnly) {
  EXPECT_EQ(CountOf(Value(0)), 0u);
  EXPECT_EQ(CountOf(Value(std::int64_t{42})), 42u);
  EXPECT_EQ(CountOf(Value(std::uint64_t{18446744073709551615u})), 18446744073709551615u);
  EXPECT_EQ(CountOf(Read("11e10").value), std::nullopt);  // a float, however whole
  EXPECT_EQ(CountOf(Value(-1)), std::nullopt);
  EXPECT_EQ(CountOf(Value(1.5)), std::nullopt);
  EXPECT_EQ(CountOf(Value("3")), std::nullopt);
  EXPECT_EQ(GetCount(Value(7)), 7u);
  EXPECT_THROW(GetCount(Value(-7)), Value::type_error);
  EXPECT_THROW(GetCount(Value(nullptr)), Value::type_error);
}

}  // namespace
}  // namespace engram::json
