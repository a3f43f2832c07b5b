// Follower: keeps an engine up to date with a store that several engines
// share (storage::Store::shared). A background thread waits for the store's
// announcements (LISTEN/NOTIFY on PostgreSQL), or at most `poll` when none
// comes, then reads the changes after the last one applied, in sequence
// order, and hands each to `apply`; it backs off (up to 5 s) while the store
// cannot be reached or a change cannot be applied, and reports that as its
// health. Sequences are gapless and taken in commit order, so "every change
// up to followed()" is exactly what this engine has applied.
#ifndef ENGRAM_ENGINE_FOLLOW_H_
#define ENGRAM_ENGINE_FOLLOW_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

#include "engram/status.h"
#include "storage/store.h"

namespace engram::engine {

struct FollowOptions {
  std::chrono::milliseconds poll{250};  // the longest wait without an announcement
  std::size_t page = 64;                // changes read per step
};

class Follower {
 public:
  using Apply = std::function<Status(const storage::Change&)>;
  // Follows `store` from the change after `from`; `apply` runs on the
  // follower's thread, or on a thread calling CatchUp, one change at a time.
  Follower(storage::Store* store, std::uint64_t from, Apply apply, FollowOptions options = {});
  ~Follower();  // stops the thread (within about `poll`)
  Follower(const Follower&) = delete;
  Follower& operator=(const Follower&) = delete;

  // Applies every change committed so far; the first error stops it (the
  // change is tried again on the next call).
  Status CatchUp();
  // Every change up to this sequence is applied.
  std::uint64_t followed() const;
  // Waits until followed() reaches `seq` or `until` passes; whether it did.
  bool WaitFor(std::uint64_t seq, std::chrono::steady_clock::time_point until);
  // OK while following works; else the last error (the store unreachable,
  // a change that cannot be applied).
  Status health() const;

 private:
  void Run();

  storage::Store* store_;
  const Apply apply_;
  const FollowOptions options_;
  std::mutex catch_up_;  // one catch-up at a time, in order
  mutable std::mutex mu_;
  std::condition_variable moved_;  // followed_ moved, or stop_
  std::uint64_t followed_;
  Status health_;
  bool stop_ = false;
  std::thread thread_;  // last: starts after the members it uses
};

}  // namespace engram::engine

#endif  // ENGRAM_ENGINE_FOLLOW_H_
