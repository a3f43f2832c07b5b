#include "vector/plan_costs.h"

#include <algorithm>
#include <cmath>

namespace engram::vector {

void PlanCosts::Add(Mean& m, double x) {
  const std::uint64_t now = notes_.fetch_add(1, std::memory_order_relaxed) + 1;
  const std::uint32_t runs = Runs(m);
  const double old = runs == 0 ? x : m.value.load(std::memory_order_relaxed);
  const double weight = 1.0 / static_cast<double>(std::min(runs + 1, kWindow));
  m.value.store(old + (x - old) * weight, std::memory_order_relaxed);
  m.runs.store(std::min(runs + 1, kWindow), std::memory_order_relaxed);
  m.at.store(now, std::memory_order_relaxed);
}

std::uint32_t PlanCosts::Runs(const Mean& m) const {
  const std::uint64_t now = notes_.load(std::memory_order_relaxed);
  const std::uint64_t at = m.at.load(std::memory_order_relaxed);
  return now > at && now - at > kForget ? 0 : m.runs.load(std::memory_order_relaxed);
}

void PlanCosts::Note(Kind kind, Clock::duration elapsed, double units) {
  if (units < kMinUnits) return;
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count();
  if (ns <= 0) return;
  // The log, so that one run slowed by the machine moves the mean by a
  // factor, not by its excess.
  Add(log_rates_[kind], std::log(static_cast<double>(ns) / units));
}

double PlanCosts::Factor(Kind kind) const {
  const Mean& exact = log_rates_[kExact];
  const Mean& m = log_rates_[kind];
  if (Runs(exact) < kEnough || Runs(m) < kEnough) return 1;
  const double f = std::exp(m.value.load(std::memory_order_relaxed) -
                            exact.value.load(std::memory_order_relaxed));
  return std::clamp(f, kLow, kHigh);
}

void PlanCosts::NoteShare(Share share, double value) {
  Add(shares_[share], std::clamp(value, 0.0, 1.0));
}

double PlanCosts::MeanShare(Share share) const {
  const Mean& m = shares_[share];
  return Runs(m) < kEnough ? 1 : m.value.load(std::memory_order_relaxed);
}

}  // namespace engram::vector
