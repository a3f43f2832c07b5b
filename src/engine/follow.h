// Follower: keeps an engine up to date with a store that several engines
// share (storage::Store::shared). A background thread waits for the store's
// announcements (LISTEN/NOTIFY on PostgreSQL), or at most `poll` when none
// comes, then reads the changes after the last one applied, in sequence
// order, and hands each to `apply`; it backs off (up to 5 s) while the store
// cannot be reached or a change cannot be applied, and reports that as its
// health. Sequences are gapless and taken in commit order, so "every change
// up to followed()" is exactly what this engine has applied. The feed is
// trimmed as it is followed (`keep` changes are kept); a follower that fell
// behind what is kept loads the whole store afresh (`reload`).
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
  std::uint64_t keep = 100000;          // changes kept in the feed behind this follower
  std::uint64_t trim_every = 10000;     // changes applied between two trims
};

class Follower {
 public:
  using Apply = std::function<Status(const storage::Change&)>;
  // Loads the whole store afresh; the sequence it reflects (every change up
  // to it is in what it loaded).
  using Reload = std::function<StatusOr<std::uint64_t>()>;
  // Follows `store` from the change after `from`; `apply` and `reload` run
  // on the follower's thread, or on a thread calling CatchUp, one at a time.
  Follower(storage::Store* store, std::uint64_t from, Apply apply, Reload reload,
           FollowOptions options = {});
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
  void Advance(std::uint64_t seq);  // followed_ reaches `seq`

  storage::Store* store_;
  const Apply apply_;
  const Reload reload_;
  const FollowOptions options_;
  std::uint64_t trimmed_at_ = 0;  // under catch_up_: followed() at the last trim
  std::mutex catch_up_;           // one catch-up at a time, in order
  mutable std::mutex mu_;
  std::condition_variable moved_;  // followed_ moved, or stop_
  std::uint64_t followed_;
  Status health_;
  bool stop_ = false;
  std::thread thread_;  // last: starts after the members it uses
};

}  // namespace engram::engine

#endif  // ENGRAM_ENGINE_FOLLOW_H_
