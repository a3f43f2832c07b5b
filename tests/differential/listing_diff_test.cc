// Count and Facets (engine.h, listing.h) agree with a scan of the records
// through the reference evaluator, on random schemas, records (some
// replaced, some deleted) and filter texts in two dialects: every count,
// every value with its count and order, every range count. It checks well
// over 100,000 record x filter pairs; a List of every page agrees too.
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "base/json.h"
#include "base/number.h"
#include "engram/engine.h"
#include "filter/compiler.h"
#include "filter/eval/evaluator.h"
#include "schema/record.h"
#include "tests/support/random_filter.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

std::string Literal(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return FormatFloatLiteral(*d);
  return FormatDatetime(std::get<Datetime>(v));
}

std::string ValueJson(const Value& v) {
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  return json::Dump(json::Value(std::get<std::string>(v)));
}

TEST(ListingDifferential, CountAndFacetsEqualAScan) {
  const fs::path dir =
      fs::temp_directory_path() / ("engram_listing_diff_" + std::to_string(getpid()));
  fs::remove_all(dir);
  std::unique_ptr<Engine> engine = Engine::Open(dir.string()).value();
  std::size_t checks = 0, facet_checks = 0, rejected = 0;
  for (int s = 0; s < 8; ++s) {
    testing::Rng rng(9100 + s);
    std::shared_ptr<const Schema> schema = testing::RandomSchema(rng);
    const std::string name = "c" + std::to_string(s);
    Checked<SchemaRef> ref = SchemaRef::Parse(json::Dump(schema->ToJson()));
    ASSERT_TRUE(ref.ok());
    ASSERT_TRUE(
        engine->CreateCollection({name, ref.value(), {{"body_text", 1.0}}, 0, "cosine", "none", ""})
            .ok());
    // The records as the engine holds them: by id.
    std::map<std::string, Record> records;
    auto put = [&](int first, int n) {
      std::vector<std::string> texts;
      for (int i = first; i < first + n; ++i) {
        json::Value j = testing::RandomRecordJson(rng, *schema, "r" + std::to_string(i));
        Checked<Record> r = ParseRecord(j, *schema);
        ASSERT_TRUE(r.ok());
        records.insert_or_assign(r.value().id, r.value());
        j["body_text"] = "x";
        texts.push_back(json::Dump(j));
      }
      std::vector<std::string_view> views(texts.begin(), texts.end());
      StatusOr<WriteResult> w = engine->Upsert(name, views);
      ASSERT_TRUE(w.ok() && !w->rejected) << (w.ok() ? w->rejected->message : "");
    };
    put(0, 160);
    put(0, 20);  // replaced
    std::vector<std::string> gone;
    for (int i = 3; i < 160; i += 13) gone.push_back("r" + std::to_string(i));
    ASSERT_TRUE(engine->Delete(name, gone).ok());
    for (const std::string& id : gone) records.erase(id);

    for (int f = 0; f < 150; ++f) {
      const filter::Dialect dialect =
          f % 2 ? filter::Dialect::kExprV1 : filter::Dialect::kVectorFilter;
      const std::string text = testing::RandomDialectFilter(rng, *schema, dialect);
      RecordSelection selection;
      selection.dialect = dialect == filter::Dialect::kExprV1 ? FilterDialect::kExprV1
                                                              : FilterDialect::kVectorFilter;
      selection.filter = text;
      Checked<filter::CompiledFilter> compiled = filter::Compile(dialect, text, schema);
      StatusOr<CountResponse> count = engine->Count(name, selection);
      ASSERT_TRUE(count.ok()) << count.status().message();
      ASSERT_EQ(compiled.ok(), !count->rejected) << text;
      if (!compiled.ok()) {
        ++rejected;
        continue;
      }
      std::vector<const Record*> passing;
      for (const auto& [id, r] : records) {
        ++checks;
        if (filter::Evaluate(compiled.value().checked.root, r.slots)) passing.push_back(&r);
      }
      ASSERT_EQ(count->count, passing.size()) << text;

      for (const Field& field : schema->fields()) {
        FacetRequest request;
        request.selection = selection;
        request.field = field.name;
        const bool by_value = field.type == FieldType::kString || field.type == FieldType::kBool ||
                              field.type == FieldType::kStringSet;
        std::vector<std::pair<Value, std::uint64_t>> want_values;
        std::vector<std::uint64_t> want_ranges;
        if (by_value) {
          request.top = kMaxFacetTop;
          std::vector<std::pair<Value, std::uint64_t>> counts;
          auto add = [&](const Value& v) {
            for (auto& [value, n] : counts) {
              if (ValuesEqual(value, v)) {
                ++n;
                return;
              }
            }
            counts.emplace_back(v, 1);
          };
          for (const Record* r : passing) {
            const Value& v = r->slots[field.slot];
            if (std::holds_alternative<std::monostate>(v)) continue;
            if (const auto* set = std::get_if<StringSet>(&v)) {
              for (const std::string& e : *set) add(Value(e));
            } else {
              add(v);
            }
          }
          std::sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) {
            if (a.second != b.second) return a.second > b.second;
            return *CompareValues(a.first, b.first) < 0;
          });
          want_values = counts;
        } else {
          // Three ranges with bounds taken from the records' values (each
          // side open a fifth of the time).
          std::vector<Value> seen;
          for (const auto& [id, r] : records) {
            if (!std::holds_alternative<std::monostate>(r.slots[field.slot])) {
              seen.push_back(r.slots[field.slot]);
            }
          }
          if (seen.empty()) continue;
          for (int k = 0; k < 3; ++k) {
            std::optional<Value> lo, hi;
            if (rng() % 5 != 0) lo = seen[rng() % seen.size()];
            if (rng() % 5 != 0) hi = seen[rng() % seen.size()];
            request.ranges.push_back(FacetRange{lo ? std::optional(Literal(*lo)) : std::nullopt,
                                                hi ? std::optional(Literal(*hi)) : std::nullopt});
            std::uint64_t n = 0;
            for (const Record* r : passing) {
              const Value& v = r->slots[field.slot];
              if (std::holds_alternative<std::monostate>(v)) continue;
              if (lo && *CompareValues(v, *lo) < 0) continue;
              if (hi && *CompareValues(v, *hi) >= 0) continue;
              ++n;
            }
            want_ranges.push_back(n);
          }
        }
        StatusOr<FacetResponse> got = engine->Facets(name, request);
        ASSERT_TRUE(got.ok() && !got->rejected)
            << field.name << ": " << (got.ok() ? got->rejected->message : "");
        ++facet_checks;
        if (by_value) {
          ASSERT_EQ(got->values.size(), want_values.size()) << text << " " << field.name;
          for (std::size_t i = 0; i < want_values.size(); ++i) {
            EXPECT_EQ(got->values[i].value, ValueJson(want_values[i].first)) << text;
            EXPECT_EQ(got->values[i].count, want_values[i].second) << text;
          }
        } else {
          ASSERT_EQ(got->ranges.size(), want_ranges.size());
          for (std::size_t i = 0; i < want_ranges.size(); ++i) {
            EXPECT_EQ(got->ranges[i].count, want_ranges[i])
                << text << " " << field.name << " range " << i;
          }
        }
      }
      // Every page of a listing under the filter: the passing ids, once each.
      if (f % 10 == 0) {
        ListRequest list;
        list.selection = selection;
        list.page_size = 1 + rng() % 40;
        std::multiset<std::string> listed;
        do {
          StatusOr<ListResponse> page = engine->List(name, list);
          ASSERT_TRUE(page.ok() && !page->rejected);
          for (const ListedRecord& r : page->records) listed.insert(r.id);
          list.page_token = page->next_page_token;
        } while (!list.page_token.empty());
        std::multiset<std::string> want;
        for (const Record* r : passing) want.insert(r->id);
        ASSERT_EQ(listed, want) << text;
      }
    }
  }
  std::printf(
      "listing differential: %zu record x filter checks, %zu facet requests, %zu "
      "filters rejected by both\n",
      checks, facet_checks, rejected);
  EXPECT_GE(checks, 100000u);
  engine.reset();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace engram
