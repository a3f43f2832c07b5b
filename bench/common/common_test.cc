#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "common/cli.h"
#include "common/format.h"
#include "common/json_out.h"

namespace engram::bench {
namespace {

TEST(Thousands, GroupsDigits) {
  EXPECT_EQ(Thousands(0), "0");
  EXPECT_EQ(Thousands(999.4), "999");
  EXPECT_EQ(Thousands(12345.6), "12,346");
  EXPECT_EQ(Thousands(1234567), "1,234,567");
  EXPECT_EQ(Thousands(-123456), "-123,456");
}

TEST(ArgReader, WalksFlagsAndValues) {
  const char* argv[] = {"tool", "--data", "dir", "--efs", "16,,64", "--flag"};
  ArgReader args(6, const_cast<char**>(argv));
  ASSERT_TRUE(args.Next());
  EXPECT_TRUE(args.Is("--data"));
  EXPECT_EQ(args.Value(), "dir");
  ASSERT_TRUE(args.Next());
  EXPECT_EQ(args.List(), (std::vector<std::string>{"16", "64"}));
  ASSERT_TRUE(args.Next());
  EXPECT_EQ(args.flag(), "--flag");
  EXPECT_THROW(args.Value(), std::runtime_error);
  EXPECT_THROW(args.Unknown("hint"), std::runtime_error);
  EXPECT_FALSE(args.Next());
}

TEST(RunGuarded, MapsExceptionsToStatus) {
  EXPECT_EQ(RunGuarded("t", [] {}), 0);
  EXPECT_EQ(RunGuarded("t", [] { throw std::runtime_error("boom"); }), 1);
}

TEST(JsonOut, OneObjectPerLineOrNothing) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "engram-json-out-test";
  std::filesystem::remove_all(dir);
  const std::string path = (dir / "sub" / "rows.jsonl").string();
  {
    JsonOut out(path);
    ASSERT_TRUE(out.enabled());
    out.Write({{"engine", "engram"}, {"p50_us", 12.5}});
    out.Write({{"engine", "xapian-inmemory"}, {"ndcg10", nullptr}});
  }
  std::ifstream in(path);
  std::string a, b, rest;
  ASSERT_TRUE(std::getline(in, a));
  ASSERT_TRUE(std::getline(in, b));
  EXPECT_FALSE(std::getline(in, rest));
  EXPECT_EQ(a, R"({"engine":"engram","p50_us":12.5})");
  EXPECT_EQ(b, R"({"engine":"xapian-inmemory","ndcg10":null})");
  JsonOut again(path);  // a new run truncates
  EXPECT_EQ(std::filesystem::file_size(path), 0u);
  JsonOut none;
  EXPECT_FALSE(none.enabled());
  none.Write({{"ignored", true}});
  EXPECT_THROW(JsonOut((dir / "sub" / "rows.jsonl" / "x").string()), std::exception);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace engram::bench
