#include "base/deadline.h"

#include <gtest/gtest.h>

namespace engram {
namespace {

TEST(Deadline, UnsetNeverPasses) {
  const Deadline never;
  EXPECT_FALSE(never.set());
  EXPECT_FALSE(never.Passed());
  DeadlinePoll poll(&never, 1);
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(poll.Passed());
  DeadlinePoll none(nullptr, 1);
  EXPECT_FALSE(none.Passed());
}

TEST(Deadline, ByTime) {
  const Deadline past(Deadline::Clock::now() - std::chrono::seconds(1));
  EXPECT_TRUE(past.set());
  EXPECT_TRUE(past.Passed());
  const Deadline future(Deadline::Clock::now() + std::chrono::hours(1));
  EXPECT_FALSE(future.Passed());
}

TEST(Deadline, CheckNamesTheStage) {
  EXPECT_TRUE(Deadline().Check("filtering").ok());
  const Status s = Deadline::AfterChecks(0).Check("filtering");
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(s.message(), "the request's deadline passed during filtering");
}

TEST(Deadline, AfterChecksPassesAtTheNextCheckAndStays) {
  const Deadline d = Deadline::AfterChecks(2);
  EXPECT_TRUE(d.set());
  EXPECT_FALSE(d.Passed());
  EXPECT_FALSE(d.Passed());
  EXPECT_TRUE(d.Passed());
  EXPECT_TRUE(d.Passed());
  const Deadline at_once = Deadline::AfterChecks(0);
  EXPECT_TRUE(at_once.Passed());
}

TEST(DeadlinePoll, ReadsTheDeadlineFirstAndThenEveryStrideCalls) {
  const Deadline d = Deadline::AfterChecks(1);  // the second read passes
  DeadlinePoll poll(&d, 3);
  EXPECT_FALSE(poll.Passed());  // 1: first read
  EXPECT_FALSE(poll.Passed());  // 2
  EXPECT_FALSE(poll.Passed());  // 3
  EXPECT_TRUE(poll.Passed());   // 4: second read
  EXPECT_TRUE(poll.Passed());   // sticky, no read
  const Deadline passed = Deadline::AfterChecks(0);
  DeadlinePoll at_once(&passed);
  EXPECT_TRUE(at_once.Passed());
}

}  // namespace
}  // namespace engram
