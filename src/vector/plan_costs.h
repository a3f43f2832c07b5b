// PlanCosts: what the planner learns about one index from the searches it
// runs. The planner (vector_index_search.cc) estimates each plan's cost in
// units of one exact-scan distance, with constants fitted where the vectors
// come from memory (synthetic-1m, 104 ns a record). Some of its estimates do
// not carry over to other sets and filters:
//  - the value graphs' plan (vector_index_cover.cc) reads keys' copies and
//    walks small graphs, which beat the exact scan's scattered reads from
//    memory by more than they beat a scan of vectors that stay in the caches
//    (fastText, 18 ns a record): there its estimates were low and the plan ran
//    slower than the scan it was chosen over (bench/RESULTS.md);
//  - the sample of the query's neighbourhood pays only where filters keep
//    more near the query than overall; under anti-correlated filters it never
//    does, and it cost up to a third of the scan it might save;
//  - a walk that looks cheaper than the others runs first, and gives up when
//    the query's neighbourhood holds no allowed record: under anti-correlated
//    filters it always does, and its first steps cost a fifth of the plan
//    that then answers.
// So PlanCosts keeps, over the recent runs, each timed plan's time per
// estimated unit (the exact scan's, the value graphs', the sample's), the
// share of what samples could save that they saved, and the share of walks
// run first that did not give up. The planner scales the estimates by their
// time per unit over the exact scan's (Factor), and samples, or walks first,
// only where the saving expected from those shares exceeds the cost.
// Graph walks are not rescaled: their estimate's error is mostly the share
// kept near the query, which the sample and the walk's give-up measure.
//
// Thread-safe (searches note their runs concurrently; relaxed atomics: a
// lost update only leaves an average a little older). What is learned only
// picks which plan runs: every plan answers the same query correctly.
#ifndef ENGRAM_VECTOR_PLAN_COSTS_H_
#define ENGRAM_VECTOR_PLAN_COSTS_H_

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>

namespace engram::vector {

class PlanCosts {
 public:
  // The timed plans, and the planner's sample.
  enum Kind { kExact, kValueGraphs, kSample, kKinds };
  using Clock = std::chrono::steady_clock;

  // A run of `kind` took `elapsed` for `units` estimated units. Runs of
  // fewer than kMinUnits units are not noted (their fixed costs and the
  // clock's would dominate).
  void Note(Kind kind, Clock::duration elapsed, double units);
  // kind's time per unit over the exact scan's, clamped to [kLow, kHigh];
  // 1 (the estimate as fitted) until both have kEnough recent runs. A kind
  // not run in the last kForget runs noted starts over: a plan kept from
  // running by its factor is measured again once its runs are forgotten.
  double Factor(Kind kind) const;

  // Outcomes, each a share in [0, 1]: of the most a sample could save, what
  // it saved; whether a walk run first kept going (1) or gave up (0).
  enum Share { kSampleSaved, kWalkKept, kShares };
  void NoteShare(Share share, double value);
  // The mean over the recent outcomes; 1 (every one pays in full) until
  // kEnough of them, and again once forgotten as above.
  double MeanShare(Share share) const;

  static constexpr double kMinUnits = 256;
  static constexpr std::uint32_t kEnough = 8;
  static constexpr std::uint32_t kWindow = 64;  // runs an average spans, about
  static constexpr std::uint64_t kForget = 4096;
  static constexpr double kLow = 0.25, kHigh = 4;

 private:
  // A running mean: of the first runs, then exponential over kWindow.
  struct Mean {
    std::atomic<double> value{0};
    std::atomic<std::uint32_t> runs{0};
    std::atomic<std::uint64_t> at{0};  // notes_ at its last run
  };
  void Add(Mean& m, double x);
  // The runs of `m` to count now (0 once forgotten).
  std::uint32_t Runs(const Mean& m) const;

  std::array<Mean, kKinds> log_rates_;  // log(ns per unit)
  std::array<Mean, kShares> shares_;
  std::atomic<std::uint64_t> notes_{0};
};

}  // namespace engram::vector

#endif  // ENGRAM_VECTOR_PLAN_COSTS_H_
