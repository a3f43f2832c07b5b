#include <stdexcept>

#include <gtest/gtest.h>

#include "common/cli.h"
#include "common/format.h"

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

}  // namespace
}  // namespace engram::bench
