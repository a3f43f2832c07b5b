// RangeColumn against CompareValues, the order the evaluator uses: random
// cells and bounds of both numeric types (integral and not, past 2^53 and
// past int64, strict and inclusive), each answer equal to a brute-force
// filter of the cells.
#include "index/range_column.h"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace engram::index {
namespace {

using filter::Bound;

roaring::Roaring Expected(const std::vector<Value>& cells, const std::optional<Bound>& lo,
                          const std::optional<Bound>& hi) {
  roaring::Roaring out;
  for (std::size_t r = 0; r < cells.size(); ++r) {
    if (std::holds_alternative<std::monostate>(cells[r])) continue;
    if (lo) {
      const std::optional<int> c = CompareValues(cells[r], lo->value);
      if (!c || *c < 0 || (*c == 0 && !lo->inclusive)) continue;
    }
    if (hi) {
      const std::optional<int> c = CompareValues(cells[r], hi->value);
      if (!c || *c > 0 || (*c == 0 && !hi->inclusive)) continue;
    }
    out.add(static_cast<std::uint32_t>(r));
  }
  return out;
}

// Numbers near the places where int64 and double disagree.
Value RandomNumber(std::mt19937_64& rng, bool as_int) {
  static const double kPivots[] = {0.0,
                                   1.0,
                                   -1.0,
                                   9007199254740992.0,
                                   -9007199254740992.0,
                                   4611686018427387904.0,
                                   9223372036854775807.0,
                                   -9223372036854775808.0};
  const double pivot = kPivots[rng() % std::size(kPivots)];
  const auto step = static_cast<std::int64_t>(rng() % 2049) - 1024;
  if (as_int) {
    const long double v = static_cast<long double>(pivot) + step;
    if (v >= 9223372036854775807.0L) return std::numeric_limits<std::int64_t>::max();
    if (v <= -9223372036854775808.0L) return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(v);
  }
  double d = pivot + static_cast<double>(step) / 4;  // integral and not
  if (rng() % 8 == 0) d = std::nextafter(d, rng() % 2 ? INFINITY : -INFINITY);
  return d;
}

std::optional<Bound> RandomBound(std::mt19937_64& rng, FieldType type) {
  if (rng() % 5 == 0) return std::nullopt;
  if (type == FieldType::kDatetime) {
    return Bound{Datetime{static_cast<std::int64_t>(rng() % 200) - 100}, rng() % 2 == 0};
  }
  return Bound{RandomNumber(rng, rng() % 2 == 0), rng() % 2 == 0};
}

TEST(RangeColumn, EqualsCompareValuesForEveryBoundType) {
  std::mt19937_64 rng(7);
  for (FieldType type : {FieldType::kInt, FieldType::kFloat, FieldType::kDatetime}) {
    for (int round = 0; round < 200; ++round) {
      RangeColumn column(type);
      std::vector<Value> cells(300);
      roaring::Roaring present;
      for (std::size_t r = 0; r < cells.size(); ++r) {
        if (rng() % 10 == 0) continue;  // a record without the field
        if (type == FieldType::kDatetime) {
          cells[r] = Datetime{static_cast<std::int64_t>(rng() % 200) - 100};
        } else {
          cells[r] = RandomNumber(rng, type == FieldType::kInt);
          // A float field may hold an int a double represents exactly.
          if (type == FieldType::kFloat && rng() % 4 == 0) cells[r] = std::int64_t(rng() % 100);
        }
        column.Set(static_cast<std::uint32_t>(r), cells[r]);
        present.add(static_cast<std::uint32_t>(r));
      }
      ASSERT_TRUE(column.usable());
      std::vector<Interval> intervals;
      roaring::Roaring candidates;
      for (std::uint32_t r = 0; r < cells.size() + 10; ++r) {
        if (rng() % 3 == 0) candidates.add(r);  // some without the field, some past the cells
      }
      for (int q = 0; q < 20; ++q) {
        const std::optional<Bound> lo = RandomBound(rng, type), hi = RandomBound(rng, type);
        const roaring::Roaring expected = Expected(cells, lo, hi);
        DeadlinePoll poll(nullptr);
        EXPECT_EQ(column.Scan({lo, hi}, present, poll), expected)
            << "type " << static_cast<int>(type) << " round " << round << " query " << q;
        EXPECT_EQ(column.Filter({lo, hi}, candidates, present, poll), expected & candidates);
        intervals.push_back({lo, hi});
      }
      DeadlinePoll poll(nullptr);
      const std::vector<std::uint64_t> counts = column.Count(intervals, candidates, present, poll);
      ASSERT_EQ(counts.size(), intervals.size());
      for (std::size_t i = 0; i < intervals.size(); ++i) {
        EXPECT_EQ(counts[i],
                  Expected(cells, intervals[i].lo, intervals[i].hi).and_cardinality(candidates));
      }
    }
  }
}

TEST(RangeColumn, AFloatFieldHoldingAnIntNoDoubleEqualsIsUnusable) {
  RangeColumn column(FieldType::kFloat);
  column.Set(0, 1.5);
  EXPECT_TRUE(column.usable());
  column.Set(1, std::int64_t{(std::int64_t{1} << 53) + 1});
  EXPECT_FALSE(column.usable());
  EXPECT_EQ(column.MemoryBytes(), 0u);
}

// Stale cells (a record removed, or never given the field) are not answered:
// the caller's `present` decides.
TEST(RangeColumn, OnlyPresentRecordsAnswer) {
  RangeColumn column(FieldType::kInt);
  for (std::uint32_t r = 0; r < 10; ++r) column.Set(r, std::int64_t{r});
  roaring::Roaring present;
  present.add(2);
  present.add(7);
  DeadlinePoll poll(nullptr);
  const roaring::Roaring got =
      column.Scan({Bound{std::int64_t{0}, true}, std::nullopt}, present, poll);
  EXPECT_EQ(got, present);
}

}  // namespace
}  // namespace engram::index
