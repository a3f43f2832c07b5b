#include "search/temporal.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "search/test_collection.h"

namespace engram::search {
namespace {
namespace temporal_test {

Datetime At(const char* rfc3339) {
  return ParseDatetime(rfc3339, DatetimeForm::kStrict).value().value;
}

TEST(AroundCloseness, OneOnTheDayHalvingEveryWeek) {
  const text::Date day{2026, 3, 10};
  EXPECT_EQ(AroundCloseness(At("2026-03-10T00:00:00Z"), day), 1.0);
  EXPECT_EQ(AroundCloseness(At("2026-03-10T23:59:59Z"), day), 1.0);
  EXPECT_DOUBLE_EQ(AroundCloseness(At("2026-03-18T00:00:00Z"), day), 0.5) << "7 days after";
  EXPECT_DOUBLE_EQ(AroundCloseness(At("2026-03-03T00:00:00Z"), day), 0.5) << "7 days before";
  EXPECT_DOUBLE_EQ(AroundCloseness(At("2026-02-24T00:00:00Z"), day), 0.25);
  EXPECT_LT(AroundCloseness(At("2025-03-10T00:00:00Z"), day), 1e-10);
}

// Records 0..4 with times (4 has none); hits in rank order 0, 1, 2, 3, 4.
struct Fixture {
  Fixture() : metadata(testing::TestSchema()) {
    const char* when[] = {"2026-01-01T12:00:00Z", "2026-02-01T12:00:00Z", "2026-03-10T12:00:00Z",
                          "2026-03-09T12:00:00Z", nullptr};
    for (std::uint32_t i = 0; i < 5; ++i) {
      json::Value rec = {{"id", std::to_string(i)}, {"section", "a"}, {"bucket", i}};
      if (when[i]) rec["when"] = when[i];
      metadata.Put(i, ParseRecord(rec, *testing::TestSchema()).value().slots);
      Hit h;
      h.doc = i;
      hits.push_back(h);
    }
  }
  index::MetadataIndex metadata;
  std::vector<Hit> hits;
};

text::TemporalHint Around(int y, int m, int d) {
  text::TemporalHint h;
  h.kind = text::TemporalHint::Kind::kAround;
  h.around = {y, m, d};
  return h;
}
text::TemporalHint Ordinal(int o) {
  text::TemporalHint h;
  h.kind = text::TemporalHint::Kind::kOrdinal;
  h.ordinal = o;
  return h;
}

TEST(ApplyTemporalHints, AroundBoostsNearRecords) {
  Fixture f;
  const json::Value ex =
      ApplyTemporalHints({Around(2026, 3, 10)}, f.metadata, testing::kWhenSlot, false, 60, &f.hits);
  // Keys 1/61..1/65 times 1 + w: 2 (w = 1), 3 (half a day off: w = 2^(-0.5/7)),
  // 1 (36.5 days: w = 0.027) passes 0 (68 days: w = 0.001).
  EXPECT_EQ(testing::Docs(f.hits), (std::vector<std::uint32_t>{2, 3, 1, 0, 4}));
  EXPECT_EQ(f.hits[0].boost, 2.0);
  EXPECT_EQ(f.hits[4].boost, 1.0) << "no time value: no boost";
  EXPECT_EQ(ex["time_field"], "when");
  EXPECT_EQ(ex["boosted"], 4);
  EXPECT_EQ(ex["hints"].dump(), R"([{"around":"2026-03-10"}])");
}

TEST(ApplyTemporalHints, OrdinalOrdersByTimeWithUntimedLast) {
  Fixture f;
  ApplyTemporalHints({Ordinal(1)}, f.metadata, testing::kWhenSlot, false, 60, &f.hits);
  EXPECT_EQ(testing::Docs(f.hits), (std::vector<std::uint32_t>{0, 1, 3, 2, 4}));
  Fixture g;
  ApplyTemporalHints({Ordinal(-1)}, g.metadata, testing::kWhenSlot, false, 60, &g.hits);
  EXPECT_EQ(testing::Docs(g.hits), (std::vector<std::uint32_t>{2, 3, 1, 0, 4}));
}

TEST(ApplyTemporalHints, FusedScoresAreTheKeys) {
  Fixture f;
  // Fused scores that make record 0 far ahead: the boost (at most x2) does not
  // overtake it.
  const double scores[] = {1.0, 0.1, 0.1, 0.05, 0.01};
  for (std::size_t i = 0; i < 5; ++i) f.hits[i].score = scores[i];
  ApplyTemporalHints({Around(2026, 3, 10)}, f.metadata, testing::kWhenSlot, true, 60, &f.hits);
  EXPECT_EQ(testing::Docs(f.hits), (std::vector<std::uint32_t>{0, 2, 1, 3, 4}));
  EXPECT_EQ(f.hits[1].score, 0.1) << "scores are kept; the boost is in Hit::boost";
}

TEST(ApplyTemporalHints, NoHintsNoChange) {
  Fixture f;
  ApplyTemporalHints({}, f.metadata, testing::kWhenSlot, false, 60, &f.hits);
  EXPECT_EQ(testing::Docs(f.hits), (std::vector<std::uint32_t>{0, 1, 2, 3, 4}));
}

}  // namespace temporal_test
}  // namespace
}  // namespace engram::search
