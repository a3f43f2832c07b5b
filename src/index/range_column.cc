#include "index/range_column.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/number.h"

namespace engram::index {
namespace {

constexpr std::size_t kPollEvery = 4096;  // cells between deadline checks

// A bound of a column whose cells are T, equivalent to the filter's bound.
// `none`: no cell passes it (the bound lies beyond every value of T).
template <typename T>
struct CellBound {
  bool open = true;  // absent: every cell passes
  bool none = false;
  T value{};
  bool inclusive = true;
};

// 2^63 as a double: the first double above every int64.
constexpr double kTwo63 = 9223372036854775808.0;

// x >= d (lo) or x <= d (hi), x an int64, d a double: x >= ceil(d),
// x <= floor(d); a strict bound steps past an integral d by one, in int64
// arithmetic (large doubles are more than 1 apart).
CellBound<std::int64_t> IntBound(double d, bool inclusive, bool lo) {
  CellBound<std::int64_t> b;
  b.open = false;
  b.inclusive = true;
  const double t = lo ? std::ceil(d) : std::floor(d);
  if (std::isnan(d) || (lo ? t >= kTwo63 : t < -kTwo63)) {
    b.none = true;  // beyond every int64 on the wrong side
    return b;
  }
  if (lo ? t < -kTwo63 : t >= kTwo63) {
    b.open = true;  // every int64 passes
    return b;
  }
  b.value = static_cast<std::int64_t>(t);
  if (!inclusive && t == d) {
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
    if (b.value == (lo ? kMax : kMin)) {
      b.none = true;
    } else {
      b.value += lo ? 1 : -1;
    }
  }
  return b;
}

// x >= i (lo) or x <= i (hi), x a double, i an int64 with d its nearest
// double: no double lies strictly between i and d, so the bound moves to d,
// strict or not by which side of i it fell.
CellBound<double> FloatBound(std::int64_t i, bool inclusive, bool lo) {
  CellBound<double> b;
  b.open = false;
  b.value = static_cast<double>(i);
  const int c = CompareIntDouble(i, b.value);  // i against d
  if (c == 0) {
    b.inclusive = inclusive;
  } else {
    // lo: d below i excludes d, d above includes it; hi the reverse.
    b.inclusive = lo ? c < 0 : c > 0;
  }
  return b;
}

template <typename T>
CellBound<T> ToCell(const std::optional<filter::Bound>& bound, bool lo);

template <>
CellBound<std::int64_t> ToCell(const std::optional<filter::Bound>& bound, bool lo) {
  if (!bound) return {};
  if (const auto* i = std::get_if<std::int64_t>(&bound->value)) {
    return {false, false, *i, bound->inclusive};
  }
  if (const auto* t = std::get_if<Datetime>(&bound->value)) {
    return {false, false, t->micros, bound->inclusive};
  }
  return IntBound(std::get<double>(bound->value), bound->inclusive, lo);
}

template <>
CellBound<double> ToCell(const std::optional<filter::Bound>& bound, bool lo) {
  if (!bound) return {};
  if (const auto* d = std::get_if<double>(&bound->value)) {
    return {false, false, *d, bound->inclusive};
  }
  return FloatBound(std::get<std::int64_t>(bound->value), bound->inclusive, lo);
}

// An Interval as bounds on cells of type T.
template <typename T>
struct CellInterval {
  CellBound<T> lo, hi;
  explicit CellInterval(const Interval& i)
      : lo(ToCell<T>(i.lo, true)), hi(ToCell<T>(i.hi, false)) {}
  bool empty() const { return lo.none || hi.none; }
  bool Contains(T x) const {
    return (lo.open || (lo.inclusive ? x >= lo.value : x > lo.value)) &&
           (hi.open || (hi.inclusive ? x <= hi.value : x < hi.value));
  }
};

// Builds a bitmap from ascending record numbers: runs (records written in
// the field's order, such as times) as ranges, the rest in batches.
class Collector {
 public:
  void Add(std::uint32_t r) {
    if (run_length_ > 0 && r == run_start_ + run_length_) {
      ++run_length_;
      return;
    }
    Flush();
    run_start_ = r;
    run_length_ = 1;
  }
  roaring::Roaring Finish() {
    Flush();
    Drain();
    return std::move(out_);
  }

 private:
  static constexpr std::uint32_t kRun = 16;
  static constexpr std::size_t kBatch = 4096;
  void Flush() {
    if (run_length_ >= kRun) {
      out_.addRange(run_start_, std::uint64_t{run_start_} + run_length_);
    } else {
      for (std::uint32_t i = 0; i < run_length_; ++i) singles_.push_back(run_start_ + i);
      if (singles_.size() >= kBatch) Drain();
    }
    run_length_ = 0;
  }
  void Drain() {
    out_.addMany(singles_.size(), singles_.data());
    singles_.clear();
  }
  roaring::Roaring out_;
  std::vector<std::uint32_t> singles_;
  std::uint32_t run_start_ = 0;
  std::uint32_t run_length_ = 0;
};

template <typename T>
roaring::Roaring ScanCells(const std::vector<T>& cells, const Interval& interval,
                           const roaring::Roaring& present, DeadlinePoll& poll) {
  const CellInterval<T> in(interval);
  if (in.empty()) return {};
  Collector hits;
  for (std::size_t start = 0; start < cells.size(); start += kPollEvery) {
    if (poll.Passed()) break;
    const std::size_t end = std::min(cells.size(), start + kPollEvery);
    for (std::size_t r = start; r < end; ++r) {
      if (in.Contains(cells[r])) hits.Add(static_cast<std::uint32_t>(r));
    }
  }
  roaring::Roaring out = hits.Finish();
  out &= present;
  return out;
}

template <typename T>
roaring::Roaring FilterCells(const std::vector<T>& cells, const Interval& interval,
                             const roaring::Roaring& within, DeadlinePoll& poll) {
  const CellInterval<T> in(interval);
  if (in.empty()) return {};
  Collector hits;
  std::size_t seen = 0;
  for (const std::uint32_t r : within) {
    if (++seen % kPollEvery == 0 && poll.Passed()) break;
    if (r < cells.size() && in.Contains(cells[r])) hits.Add(r);
  }
  return hits.Finish();
}

template <typename T>
std::vector<std::uint64_t> CountCells(const std::vector<T>& cells,
                                      const std::vector<Interval>& intervals,
                                      const roaring::Roaring& within, DeadlinePoll& poll) {
  std::vector<CellInterval<T>> ins(intervals.begin(), intervals.end());
  std::vector<std::uint64_t> counts(intervals.size(), 0);
  std::size_t seen = 0;
  for (const std::uint32_t r : within) {
    if (++seen % kPollEvery == 0 && poll.Passed()) break;
    if (r >= cells.size()) continue;
    for (std::size_t i = 0; i < ins.size(); ++i) {
      if (!ins[i].empty() && ins[i].Contains(cells[r])) ++counts[i];
    }
  }
  return counts;
}

}  // namespace

void RangeColumn::Set(std::uint32_t record, const Value& value) {
  if (!usable_) return;
  const std::size_t at = std::size_t{record};
  if (type_ == FieldType::kFloat) {
    double d = 0;
    if (const auto* f = std::get_if<double>(&value)) {
      d = *f;
    } else if (const auto* i = std::get_if<std::int64_t>(&value)) {
      d = static_cast<double>(*i);
      if (CompareIntDouble(*i, d) != 0) usable_ = false;
    } else {
      usable_ = false;
    }
    if (std::isnan(d)) usable_ = false;
    if (!usable_) return std::vector<double>().swap(floats_);
    if (floats_.size() <= at) floats_.resize(at + 1);
    floats_[at] = d;
    return;
  }
  std::int64_t v = 0;
  if (const auto* i = std::get_if<std::int64_t>(&value); i && type_ == FieldType::kInt) {
    v = *i;
  } else if (const auto* t = std::get_if<Datetime>(&value); t && type_ == FieldType::kDatetime) {
    v = t->micros;
  } else {
    usable_ = false;
    return std::vector<std::int64_t>().swap(ints_);
  }
  if (ints_.size() <= at) ints_.resize(at + 1);
  ints_[at] = v;
}

roaring::Roaring RangeColumn::Scan(const Interval& interval, const roaring::Roaring& present,
                                   DeadlinePoll& poll) const {
  return WithCells([&](const auto& cells) { return ScanCells(cells, interval, present, poll); });
}

roaring::Roaring RangeColumn::Filter(const Interval& interval, const roaring::Roaring& candidates,
                                     const roaring::Roaring& present, DeadlinePoll& poll) const {
  const roaring::Roaring within = candidates & present;
  return WithCells([&](const auto& cells) { return FilterCells(cells, interval, within, poll); });
}

std::vector<std::uint64_t> RangeColumn::Count(const std::vector<Interval>& intervals,
                                              const roaring::Roaring& candidates,
                                              const roaring::Roaring& present,
                                              DeadlinePoll& poll) const {
  const roaring::Roaring within = candidates & present;
  return WithCells([&](const auto& cells) { return CountCells(cells, intervals, within, poll); });
}

std::size_t RangeColumn::MemoryBytes() const {
  return ints_.capacity() * sizeof(std::int64_t) + floats_.capacity() * sizeof(double);
}

}  // namespace engram::index
