// The evaluation Program agrees with the reference evaluator on random
// filters (as generated IR, checked and optimised) and random records.
#include <gtest/gtest.h>

#include "filter/eval/evaluator.h"
#include "filter/eval/program.h"
#include "filter/ir/printer.h"
#include "filter/optimize/optimize.h"
#include "tests/support/random_filter.h"

namespace engram {
namespace {

TEST(ProgramDifferential, AgreesWithTheReferenceEvaluator) {
  std::size_t evaluations = 0;
  for (int s = 0; s < 40; ++s) {
    testing::Rng rng(9000 + s);
    std::shared_ptr<const Schema> schema = testing::RandomSchema(rng);
    std::vector<Record> records;
    records.reserve(60);
    for (int i = 0; i < 60; ++i) records.push_back(testing::RandomRecord(rng, *schema, "r"));
    for (int i = 0; i < 100; ++i) {
      filter::Node ir = testing::RandomIr(rng, *schema, 5);
      for (const filter::Node& n : {ir, filter::Optimize(ir, *schema)}) {
        filter::Program program(n, *schema);
        for (const Record& r : records) {
          ++evaluations;
          ASSERT_EQ(program.Matches(r.slots), filter::Evaluate(n, r.slots))
              << filter::ToSexpr(n, *schema) << "\non "
              << json::Dump(testing::RandomRecordJson(rng, *schema, r.id));
        }
      }
    }
  }
  std::printf("program differential: %zu evaluations\n", evaluations);
}

}  // namespace
}  // namespace engram
