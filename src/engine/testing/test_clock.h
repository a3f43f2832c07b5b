// The clock of an engine under test (Engine::Options::clock): it moves only
// when the test moves it, so expiry, decay and tallies are reproducible. Safe
// to read from the engine's threads. Header-only, tests only.
#ifndef ENGRAM_ENGINE_TESTING_TEST_CLOCK_H_
#define ENGRAM_ENGINE_TESTING_TEST_CLOCK_H_

#include <atomic>
#include <chrono>
#include <ctime>
#include <iomanip>
#include <sstream>

#include "engram/engine.h"

namespace engram::testing {

class TestClock {
 public:
  using Clock = std::chrono::system_clock;

  // "YYYY-MM-DDTHH:MM:SS" in UTC, to the second (what follows is ignored).
  static Clock::time_point Parse(const char* utc) {
    std::tm tm = {};
    std::istringstream(utc) >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
    return Clock::from_time_t(timegm(&tm));
  }

  void Set(Clock::time_point t) { now_ = t.time_since_epoch().count(); }
  void Set(const char* utc) { Set(Parse(utc)); }
  void Advance(Clock::duration d) { now_ += d.count(); }
  Clock::time_point Now() const { return Clock::time_point(Clock::duration(now_.load())); }

  // Options whose clock is this one, which must outlive the engine.
  Engine::Options Options() const {
    Engine::Options options;
    options.clock = [this] { return Now(); };
    return options;
  }

 private:
  std::atomic<Clock::rep> now_{0};
};

}  // namespace engram::testing

#endif  // ENGRAM_ENGINE_TESTING_TEST_CLOCK_H_
