#include "base/deadline.h"

#include <string>

namespace engram {

Deadline Deadline::AfterChecks(std::uint64_t n) {
  return Deadline(std::nullopt, static_cast<std::int64_t>(n));
}

bool Deadline::Passed() const {
  if (passed_.load(std::memory_order_relaxed)) return true;
  bool passed = false;
  if (checks_left_ >= 0) {
    passed =
        checks_.fetch_add(1, std::memory_order_relaxed) >= static_cast<std::uint64_t>(checks_left_);
  } else if (at_) {
    passed = Clock::now() >= *at_;
  }
  if (passed) passed_.store(true, std::memory_order_relaxed);
  return passed;
}

Status Deadline::Check(std::string_view stage) const {
  if (!Passed()) return Status::Ok();
  return Status::DeadlineExceeded("the request's deadline passed during " + std::string(stage));
}

}  // namespace engram
