#include "engine/follow.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "base/status.h"

namespace engram::engine {
namespace {

constexpr std::chrono::milliseconds kFirstBackoff{100};
constexpr std::chrono::milliseconds kLastBackoff{5000};

}  // namespace

Follower::Follower(storage::Store* store, std::uint64_t from, Apply apply, Reload reload,
                   FollowOptions options)
    : store_(store),
      apply_(std::move(apply)),
      reload_(std::move(reload)),
      options_(options),
      trimmed_at_(from),
      followed_(from),
      thread_([this] { Run(); }) {}

Follower::~Follower() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  moved_.notify_all();
  thread_.join();
}

Status Follower::CatchUp() {
  std::lock_guard<std::mutex> one(catch_up_);
  while (true) {
    StatusOr<std::vector<storage::Change>> changes = store_->ReadChanges(followed(), options_.page);
    if (changes.status().code() == StatusCode::kNotFound) {
      // Fallen behind what the feed keeps: everything afresh.
      ASSIGN_OR_RETURN(const std::uint64_t loaded, reload_());
      Advance(loaded);
      continue;
    }
    if (!changes.ok()) return changes.status();
    for (const storage::Change& change : *changes) {
      RETURN_IF_ERROR(apply_(change).WithContext("apply change " + std::to_string(change.seq)));
      Advance(change.seq);
    }
    const std::uint64_t at = followed();
    if (at >= trimmed_at_ + options_.trim_every && at > options_.keep) {
      RETURN_IF_ERROR(store_->TrimChanges(at - options_.keep));
      trimmed_at_ = at;
    }
    if (changes->size() < options_.page) return Status::Ok();
  }
}

void Follower::Advance(std::uint64_t seq) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    followed_ = std::max(followed_, seq);
  }
  moved_.notify_all();
}

std::uint64_t Follower::followed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return followed_;
}

bool Follower::WaitFor(std::uint64_t seq, std::chrono::steady_clock::time_point until) {
  std::unique_lock<std::mutex> lock(mu_);
  return moved_.wait_until(lock, until, [&] { return followed_ >= seq || stop_; }) &&
         followed_ >= seq;
}

Status Follower::health() const {
  std::lock_guard<std::mutex> lock(mu_);
  return health_;
}

void Follower::Run() {
  std::chrono::milliseconds backoff{0};
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (backoff.count() > 0) moved_.wait_for(lock, backoff, [&] { return stop_; });
      if (stop_) return;
    }
    // An announcement, or the poll's timeout: either way, look. A change
    // whose announcement was lost (a reconnect) is found by the next look.
    StatusOr<bool> woke = store_->WaitForChange(options_.poll);
    Status status = woke.ok() ? CatchUp() : woke.status();
    {
      std::lock_guard<std::mutex> lock(mu_);
      health_ = status;
    }
    backoff = status.ok() ? std::chrono::milliseconds{0}
                          : std::clamp(backoff * 2, kFirstBackoff, kLastBackoff);
  }
}

}  // namespace engram::engine
