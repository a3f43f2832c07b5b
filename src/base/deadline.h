// A request's deadline, and the cheap poll the long loops of a search (text
// postings, vector scans, filter leaves, listings) use to stop cooperatively
// once it has passed. The loops stop early and return what they have; the
// search that owns the deadline then reports DeadlineExceeded.
#ifndef ENGRAM_BASE_DEADLINE_H_
#define ENGRAM_BASE_DEADLINE_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

#include "engram/status.h"

namespace engram {

class Deadline {
 public:
  using Clock = std::chrono::steady_clock;

  Deadline() = default;  // never passes
  explicit Deadline(std::optional<Clock::time_point> at) : at_(at) {}
  // For tests: passes at the (n + 1)-th call of Passed(), whatever the time,
  // so a test can stop a loop at a chosen point without measuring time.
  static Deadline AfterChecks(std::uint64_t n);

  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;

  // Whether the deadline has passed: reads the clock (about 20 ns). Once
  // true, always true. Thread-safe.
  bool Passed() const;
  bool set() const { return at_.has_value() || checks_left_ >= 0; }
  // OK, or once Passed(): DeadlineExceeded naming the `stage` it passed in
  // (whose loops may have stopped early: nothing they produced may be used).
  Status Check(std::string_view stage) const;

 private:
  Deadline(std::optional<Clock::time_point> at, std::int64_t checks_left)
      : at_(at), checks_left_(checks_left) {}

  std::optional<Clock::time_point> at_;
  std::int64_t checks_left_ = -1;  // AfterChecks: calls left before it passes (-1: by time)
  mutable std::atomic<std::uint64_t> checks_{0};
  mutable std::atomic<bool> passed_{false};
};

// Polls a deadline at the first call and then every `stride` calls, so a
// loop can ask once per step. Null: never passes. Not thread-safe (one per
// loop).
class DeadlinePoll {
 public:
  explicit DeadlinePoll(const Deadline* deadline, std::uint32_t stride = 256)
      : deadline_(deadline != nullptr && deadline->set() ? deadline : nullptr),
        stride_(stride == 0 ? 1 : stride),
        calls_(stride_ - 1) {}

  // True once the deadline has passed.
  bool Passed() {
    if (deadline_ == nullptr) return false;
    if (passed_) return true;
    if (++calls_ < stride_) return false;
    calls_ = 0;
    passed_ = deadline_->Passed();
    return passed_;
  }

 private:
  const Deadline* deadline_;
  std::uint32_t stride_;
  std::uint32_t calls_;
  bool passed_ = false;
};

}  // namespace engram

#endif  // ENGRAM_BASE_DEADLINE_H_
