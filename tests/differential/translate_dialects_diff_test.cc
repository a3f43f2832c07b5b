// Translations into engram's own dialects (retrieve, expr_v1, vector_filter)
// mean what the filter means: for random schemas, records and filters (random
// IR, optimised, and random text in all four dialects, compiled), every
// translation that succeeds compiles back in its dialect against the same
// schema, and the re-compiled filter passes exactly the records the original
// does. Every construct a target declares must have been translated at least
// once, so that `supports` is exercised and not merely declared.
#include <array>
#include <cstdio>
#include <vector>

#include <gtest/gtest.h>

#include "filter/compiler.h"
#include "filter/eval/evaluator.h"
#include "filter/ir/printer.h"
#include "filter/optimize/optimize.h"
#include "filter/translate/translate.h"
#include "schema/presets.h"
#include "tests/support/random_filter.h"

namespace engram {
namespace {

using filter::Construct;
using filter::Dialect;
using filter::Target;

constexpr Target kTargets[] = {Target::kRetrieve, Target::kExprV1, Target::kVectorFilter};

Dialect DialectOf(Target t) {
  return t == Target::kRetrieve ? Dialect::kRetrieve
         : t == Target::kExprV1 ? Dialect::kExprV1
                                : Dialect::kVectorFilter;
}

struct Tally {
  std::size_t filters = 0, translated = 0;
  std::array<bool, filter::kConstructCount> seen{};
};

void MarkConstructs(const filter::Node& n, const Schema& schema, Tally* tally) {
  tally->seen[static_cast<std::size_t>(filter::ConstructOf(n, schema))] = true;
  for (const filter::Node& c : n.children) MarkConstructs(c, schema, tally);
}

class Checker {
 public:
  std::size_t evaluations = 0;
  std::array<Tally, 3> tallies;

  // Translates `f` for each target and checks each translation.
  void Check(const filter::Filter& f, const std::vector<Record>& records) {
    const Schema& schema = *f.schema;
    for (std::size_t t = 0; t < 3; ++t) {
      Tally& tally = tallies[t];
      ++tally.filters;
      auto result = filter::Translate(f, kTargets[t]);
      if (const filter::Fault* fault = std::get_if<filter::Fault>(&result)) {
        ASSERT_EQ(fault->code, filter::FaultCode::kUnsupported) << filter::ToSexpr(f.root, schema);
        continue;
      }
      ++tally.translated;
      MarkConstructs(f.root, schema, &tally);
      std::string text = json::Dump(std::get<filter::Translation>(result).filter);
      auto back = filter::Compile(DialectOf(kTargets[t]), text, f.schema);
      ASSERT_TRUE(back.ok()) << filter::TargetName(kTargets[t]) << ": " << text << "\n"
                             << back.diagnostic().message << "\nfrom "
                             << filter::ToSexpr(f.root, schema);
      const filter::Node& again = back.value().optimized.root;
      for (const Record& r : records) {
        ++evaluations;
        ASSERT_EQ(filter::Evaluate(again, r.slots), filter::Evaluate(f.root, r.slots))
            << filter::TargetName(kTargets[t]) << ": " << text << "\nfrom "
            << filter::ToSexpr(f.root, schema) << "\nrecord " << r.id;
      }
    }
  }
};

TEST(TranslateDialectsDifferential, RoundTripsMeanTheSame) {
  Checker checker;
  std::size_t compiled = 0;
  for (int s = 0; s < 48; ++s) {
    testing::Rng rng(31000 + s);
    // Every fourth schema is the memory preset, so search_memory text runs too.
    bool memory = s % 4 == 3;
    std::shared_ptr<const Schema> schema =
        memory ? FindPreset("memory") : testing::RandomSchema(rng);
    std::vector<Record> records;
    for (int i = 0; i < 40; ++i) {
      records.push_back(testing::RandomRecord(rng, *schema, "r" + std::to_string(i)));
    }
    for (int i = 0; i < 60; ++i) {
      filter::Node ir = filter::Optimize(testing::RandomIr(rng, *schema, 5), *schema);
      checker.Check(filter::Filter{schema, std::move(ir)}, records);
      if (::testing::Test::HasFatalFailure()) return;
    }
    for (Dialect d : filter::kAllDialects) {
      if (d == Dialect::kSearchMemory && !memory) continue;
      for (int i = 0; i < 25; ++i) {
        std::string text = testing::RandomDialectFilter(rng, *schema, d);
        auto c = filter::Compile(d, text, schema);
        if (!c.ok()) continue;
        ++compiled;
        checker.Check(c.value().optimized, records);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
  std::printf("translate dialects differential: %zu evaluations, %zu dialect filters compiled\n",
              checker.evaluations, compiled);
  for (std::size_t t = 0; t < 3; ++t) {
    const Tally& tally = checker.tallies[t];
    std::printf("  %-13s %zu of %zu filters translated (%.0f%%)\n",
                std::string(filter::TargetName(kTargets[t])).c_str(), tally.translated,
                tally.filters, 100.0 * tally.translated / tally.filters);
    const filter::ConstructSet supports = filter::GetTarget(kTargets[t]).supports;
    for (std::size_t c = 0; c < filter::kConstructCount; ++c) {
      if (!supports.Has(static_cast<Construct>(c))) continue;
      EXPECT_TRUE(tally.seen[c]) << filter::TargetName(kTargets[t]) << " never translated "
                                 << filter::ConstructName(static_cast<Construct>(c));
    }
  }
}

}  // namespace
}  // namespace engram
