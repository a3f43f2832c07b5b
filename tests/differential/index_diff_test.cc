// The metadata index's allowed-sets agree with the reference evaluator on
// random schemas, records (some replaced, some removed) and filters (random
// IR, and the same optimised): zero disagreement.
#include <gtest/gtest.h>

#include "filter/eval/evaluator.h"
#include "filter/ir/printer.h"
#include "filter/optimize/optimize.h"
#include "index/metadata_index.h"
#include "tests/support/random_filter.h"

namespace engram {
namespace {

TEST(IndexDifferential, AgreesWithTheReferenceEvaluator) {
  std::size_t evaluations = 0;
  for (int s = 0; s < 40; ++s) {
    testing::Rng rng(5100 + s);
    std::shared_ptr<const Schema> schema = testing::RandomSchema(rng);
    index::MetadataIndex index(schema);
    constexpr std::uint32_t kRecords = 80;
    for (std::uint32_t r = 0; r < kRecords; ++r) {
      index.Put(r, testing::RandomRecord(rng, *schema, "r").slots);
    }
    // Replace some records and remove others, so stale entries would show.
    for (std::uint32_t r = 0; r < kRecords; r += 7) {
      index.Put(r, testing::RandomRecord(rng, *schema, "r").slots);
    }
    for (std::uint32_t r = 3; r < kRecords; r += 11) index.Remove(r);
    for (int i = 0; i < 100; ++i) {
      filter::Node ir = testing::RandomIr(rng, *schema, 5);
      for (const filter::Node& n : {ir, filter::Optimize(ir, *schema)}) {
        const roaring::Roaring allowed = index.Evaluate(n);
        ASSERT_EQ(allowed.and_cardinality(index.live()), allowed.cardinality())
            << "dead records allowed by " << filter::ToSexpr(n, *schema);
        for (std::uint32_t r : index.live()) {
          ++evaluations;
          ASSERT_EQ(allowed.contains(r), filter::Evaluate(n, *index.Row(r)))
              << filter::ToSexpr(n, *schema) << " on record " << r;
        }
        const double estimate = index.Estimate(n);
        ASSERT_GE(estimate, 0);
        ASSERT_LE(estimate, static_cast<double>(index.size()) + 1e-9);
      }
    }
  }
  std::printf("index differential: %zu evaluations\n", evaluations);
}

}  // namespace
}  // namespace engram
