// The optimiser preserves meaning: optimised and unoptimised IR agree on
// random records for random filters (FILTERS.md §1.3 semantics). Also checks
// that every pass's output passes the IR verifier.
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "filter/compiler.h"
#include "filter/eval/evaluator.h"
#include "filter/ir/printer.h"
#include "filter/ir/verifier.h"
#include "filter/optimize/optimize.h"
#include "filter/optimize/passes.h"
#include "schema/presets.h"
#include "tests/support/random_filter.h"

namespace engram {
namespace {

using filter::Node;

constexpr int kSchemas = 40;
constexpr int kFiltersPerSchema = 100;
constexpr int kRecordsPerSchema = 60;

std::vector<Record> Records(testing::Rng& rng, const Schema& schema) {
  std::vector<Record> out;
  out.reserve(kRecordsPerSchema);
  for (int i = 0; i < kRecordsPerSchema; ++i) {
    out.push_back(testing::RandomRecord(rng, schema, "r" + std::to_string(i)));
  }
  return out;
}

// Every pass alone, and the whole optimiser, against the input.
TEST(OptimizerDifferential, RandomIrAgreesOnRandomRecords) {
  std::size_t evaluations = 0;
  std::map<std::string, int> changed;  // filters each pass rewrote
  for (int s = 0; s < kSchemas; ++s) {
    testing::Rng rng(1000 + s);
    std::shared_ptr<const Schema> schema = testing::RandomSchema(rng);
    std::vector<Record> records = Records(rng, *schema);
    for (int i = 0; i < kFiltersPerSchema; ++i) {
      Node ir = testing::RandomIr(rng, *schema, 5);
      ASSERT_EQ(filter::Verify(ir, *schema), std::nullopt) << filter::ToSexpr(ir, *schema);
      bool flags[6] = {};
      std::vector<std::pair<const char*, Node>> variants = {
          {"Flatten", ir},
          {"DedupeChildren", ir},
          {"FoldConstants", ir},
          {"SortLiterals", ir},
          {"MergeRanges", ir},
          {"FoldContradictions", ir},
          {"Optimize", filter::Optimize(ir, *schema)},
      };
      filter::Flatten(variants[0].second, &flags[0]);
      filter::DedupeChildren(variants[1].second, &flags[1]);
      filter::FoldConstants(variants[2].second, &flags[2]);
      filter::SortLiterals(variants[3].second, &flags[3]);
      filter::MergeRanges(variants[4].second, *schema, &flags[4]);
      filter::FoldContradictions(variants[5].second, *schema, &flags[5]);
      for (std::size_t k = 0; k < variants.size(); ++k) {
        const auto& [pass, out] = variants[k];
        bool rewrote = !filter::SameNode(out, ir);
        if (rewrote) ++changed[pass];
        // A pass reports exactly whether it rewrote (the driver relies on it).
        if (k < 6) {
          ASSERT_EQ(flags[k], rewrote) << pass << " on " << filter::ToSexpr(ir, *schema);
        }
        ASSERT_EQ(filter::Verify(out, *schema), std::nullopt)
            << pass << " broke " << filter::ToSexpr(ir, *schema) << " into "
            << filter::ToSexpr(out, *schema);
        for (const Record& r : records) {
          ++evaluations;
          ASSERT_EQ(filter::Evaluate(ir, r.slots), filter::Evaluate(out, r.slots))
              << pass << " changed the meaning of\n  " << filter::ToSexpr(ir, *schema)
              << "\ninto\n  " << filter::ToSexpr(out, *schema) << "\non record "
              << json::Dump(testing::RandomRecordJson(rng, *schema, r.id));
        }
      }
      // The optimiser reaches a fixed point: running it again changes nothing.
      Node once = filter::Optimize(ir, *schema);
      EXPECT_TRUE(filter::SameNode(filter::Optimize(once, *schema), once))
          << filter::ToSexpr(once, *schema);
    }
  }
  // The generator must give every pass work, or agreement proves nothing.
  for (const char* pass : {"Flatten", "DedupeChildren", "FoldConstants", "SortLiterals",
                           "MergeRanges", "FoldContradictions", "Optimize"}) {
    std::printf("%s rewrote %d of %d filters\n", pass, changed[pass], kSchemas * kFiltersPerSchema);
    EXPECT_GT(changed[pass], kSchemas * kFiltersPerSchema / 50) << pass;
  }
  RecordProperty("evaluations", static_cast<int>(evaluations));
  std::printf("optimizer differential: %zu evaluations, %d filters\n", evaluations,
              kSchemas * kFiltersPerSchema);
}

// The same through the dialects: checked and optimised IR agree, for random
// filter text in each dialect (which also exercises the lowerings).
TEST(OptimizerDifferential, RandomDialectFiltersAgree) {
  std::size_t compiled = 0, evaluations = 0;
  for (filter::Dialect d : filter::kAllDialects) {
    for (int s = 0; s < kSchemas; ++s) {
      testing::Rng rng(5000 + s * 7 + static_cast<int>(d));
      std::shared_ptr<const Schema> schema = d == filter::Dialect::kSearchMemory && s % 2 == 0
                                                 ? MemorySchema()
                                                 : testing::RandomSchema(rng);
      std::vector<Record> records = Records(rng, *schema);
      for (int i = 0; i < kFiltersPerSchema; ++i) {
        std::string text = testing::RandomDialectFilter(rng, *schema, d);
        Checked<filter::CompiledFilter> c = filter::Compile(d, text, schema);
        if (!c.ok()) continue;
        ++compiled;
        const filter::CompiledFilter& f = c.value();
        ASSERT_EQ(filter::Verify(f.checked.root, *schema), std::nullopt) << text;
        ASSERT_EQ(filter::Verify(f.optimized.root, *schema), std::nullopt) << text;
        for (const Record& r : records) {
          ++evaluations;
          ASSERT_EQ(filter::Evaluate(f.checked.root, r.slots),
                    filter::Evaluate(f.optimized.root, r.slots))
              << filter::DialectName(d) << " " << text
              << "\nchecked:   " << filter::ToSexpr(f.checked)
              << "\noptimized: " << filter::ToSexpr(f.optimized);
        }
      }
    }
  }
  // Most random filters must be valid, or this test checks little.
  EXPECT_GT(compiled, static_cast<std::size_t>(4 * kSchemas * kFiltersPerSchema / 2));
  std::printf("dialect differential: %zu filters compiled, %zu evaluations\n", compiled,
              evaluations);
}

}  // namespace
}  // namespace engram
