// Follower (follow.h) over a store fake: changes applied in order, an
// apply that fails is tried again and reported meanwhile, a feed trimmed
// past the follower makes it reload, and it trims what it has followed.
#include "engine/follow.h"

#include <chrono>
#include <mutex>
#include <vector>

#include <gtest/gtest.h>

namespace engram::engine {
namespace {

using std::chrono::milliseconds;

// A feed in memory; every other method of Store is unused.
class FeedStore : public storage::Store {
 public:
  void Add(std::uint64_t seq) {
    std::lock_guard<std::mutex> lock(mu_);
    storage::Change c;
    c.seq = seq;
    changes_.push_back(c);
  }
  void TrimTo(std::uint64_t through) {
    std::lock_guard<std::mutex> lock(mu_);
    trimmed_ = through;
  }
  std::uint64_t trimmed() const {
    std::lock_guard<std::mutex> lock(mu_);
    return trimmed_;
  }

  bool shared() const override { return true; }
  StatusOr<std::vector<storage::Change>> ReadChanges(std::uint64_t after,
                                                     std::size_t max) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (after < trimmed_) return Status::NotFound("trimmed");
    std::vector<storage::Change> out;
    for (const storage::Change& c : changes_) {
      if (c.seq > after && out.size() < max) out.push_back(c);
    }
    return out;
  }
  Status TrimChanges(std::uint64_t through) override {
    TrimTo(through);
    return Status::Ok();
  }
  StatusOr<bool> WaitForChange(std::chrono::milliseconds timeout) override {
    std::this_thread::sleep_for(std::min(timeout, milliseconds(5)));
    return true;
  }

  StatusOr<std::uint64_t> CreateCollection(const storage::CollectionRow&) override {
    return Unused();
  }
  Status DropCollection(std::string_view) override { return Unused(); }
  StatusOr<std::vector<storage::CollectionRow>> ListCollections() override { return Unused(); }
  StatusOr<std::uint64_t> Apply(std::string_view, const storage::WriteBatch&) override {
    return Unused();
  }
  StatusOr<std::uint64_t> LastSequence() override { return Unused(); }
  Status ScanRecords(std::string_view, std::uint64_t,
                     const std::function<Status(const storage::RecordRow&)>&) override {
    return Unused();
  }
  StatusOr<std::uint64_t> RecordLimit(std::string_view) override { return Unused(); }
  StatusOr<std::optional<Found>> GetRecord(std::string_view, std::string_view) override {
    return Unused();
  }
  Status PutSnapshot(std::string_view, std::string_view, const storage::Snapshot&) override {
    return Unused();
  }
  StatusOr<std::optional<storage::Snapshot>> GetSnapshot(std::string_view,
                                                         std::string_view) override {
    return Unused();
  }

 private:
  static Status Unused() { return Status::Unimplemented("not in the fake"); }
  mutable std::mutex mu_;
  std::vector<storage::Change> changes_;
  std::uint64_t trimmed_ = 0;
};

auto Soon() {
  return std::chrono::steady_clock::now() + std::chrono::seconds(10);
}

struct Applied {
  std::mutex mu;
  std::vector<std::uint64_t> seqs;
  std::vector<std::uint64_t> Get() {
    std::lock_guard<std::mutex> lock(mu);
    return seqs;
  }
};

TEST(FollowerTest, AppliesEveryChangeInOrderAndWakesWaiters) {
  FeedStore store;
  Applied applied;
  auto apply = [&](const storage::Change& c) {
    std::lock_guard<std::mutex> lock(applied.mu);
    applied.seqs.push_back(c.seq);
    return Status::Ok();
  };
  FollowOptions options;
  options.page = 2;  // several pages
  Follower follower(
      &store, 0, apply, [] { return StatusOr<std::uint64_t>(0); }, options);
  for (std::uint64_t s = 1; s <= 5; ++s) store.Add(s);
  ASSERT_TRUE(follower.WaitFor(5, Soon()));
  EXPECT_EQ(applied.Get(), (std::vector<std::uint64_t>{1, 2, 3, 4, 5}));
  EXPECT_FALSE(follower.WaitFor(6, std::chrono::steady_clock::now() + milliseconds(30)));
  EXPECT_TRUE(follower.health().ok());
}

TEST(FollowerTest, AChangeThatFailsIsTriedAgainAndReportedMeanwhile) {
  FeedStore store;
  std::mutex mu;
  int failures_left = 2;
  std::vector<std::uint64_t> seqs;
  auto apply = [&](const storage::Change& c) {
    std::lock_guard<std::mutex> lock(mu);
    if (c.seq == 2 && failures_left > 0) {
      --failures_left;
      return Status::IoError("the store went away");
    }
    seqs.push_back(c.seq);
    return Status::Ok();
  };
  for (std::uint64_t s = 1; s <= 3; ++s) store.Add(s);
  Follower follower(&store, 0, apply, [] { return StatusOr<std::uint64_t>(0); });
  bool reported = false;
  for (const auto until = Soon(); !reported && std::chrono::steady_clock::now() < until;) {
    const Status health = follower.health();
    reported = !health.ok() && health.message().find("apply change 2") != std::string::npos;
    std::this_thread::sleep_for(milliseconds(1));
  }
  EXPECT_TRUE(reported) << "the failure was not reported";
  ASSERT_TRUE(follower.WaitFor(3, Soon()));
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(seqs, (std::vector<std::uint64_t>{1, 2, 3}));  // change 2 once, after its failures
}

TEST(FollowerTest, AFollowerBehindTheTrimmedFeedReloadsThenFollows) {
  FeedStore store;
  store.TrimTo(10);
  store.Add(11);
  store.Add(12);
  Applied applied;
  int reloads = 0;
  auto apply = [&](const storage::Change& c) {
    std::lock_guard<std::mutex> lock(applied.mu);
    applied.seqs.push_back(c.seq);
    return Status::Ok();
  };
  Follower follower(&store, 3, apply, [&] {
    ++reloads;
    return StatusOr<std::uint64_t>(10);
  });
  ASSERT_TRUE(follower.WaitFor(12, Soon()));
  EXPECT_EQ(reloads, 1);
  EXPECT_EQ(applied.Get(), (std::vector<std::uint64_t>{11, 12}));
}

TEST(FollowerTest, ItTrimsTheFeedBehindWhatItKeeps) {
  FeedStore store;
  for (std::uint64_t s = 1; s <= 30; ++s) store.Add(s);
  FollowOptions options;
  options.keep = 10;
  options.trim_every = 5;
  Follower follower(
      &store, 0, [](const storage::Change&) { return Status::Ok(); },
      [] { return StatusOr<std::uint64_t>(0); }, options);
  ASSERT_TRUE(follower.WaitFor(30, Soon()));
  for (const auto until = Soon();
       store.trimmed() != 20 && std::chrono::steady_clock::now() < until;) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  EXPECT_EQ(store.trimmed(), 20u);  // 30 followed, 10 kept
}

}  // namespace
}  // namespace engram::engine
