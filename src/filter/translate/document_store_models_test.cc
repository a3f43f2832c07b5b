// The document-store translators against executable models of each store's
// documented filter semantics (store_models.h): every case translated, run
// over hand-written records laid out as the target's notes say, and compared
// with the reference evaluator.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "filter/compiler.h"
#include "filter/eval/evaluator.h"
#include "filter/translate/store_models.h"

namespace engram::filter {
namespace {

using testing::DocSchema;
using testing::Layout;
using testing::MongoLikeModel;
using testing::QdrantModel;
using testing::Records;
using testing::Store;

struct ModelCase {
  Dialect dialect;
  const char* text;
};

const ModelCase kModelCases[] = {
    {Dialect::kVectorFilter, R"({"s":"a"})"},
    {Dialect::kVectorFilter, R"({"s":{"$ne":"a"}})"},
    {Dialect::kVectorFilter, R"({"s":{"$in":["a","b"]}})"},
    {Dialect::kVectorFilter, R"({"s":{"$nin":["a","b"]}})"},
    {Dialect::kVectorFilter, R"({"s":{"$exists":true}})"},
    {Dialect::kVectorFilter, R"({"s":{"$exists":false}})"},
    {Dialect::kVectorFilter, R"({"s":{"$gt":"a"}})"},
    {Dialect::kVectorFilter, R"({"s":{"$lte":"ab","$gt":""}})"},
    {Dialect::kVectorFilter, R"({"i":1})"},
    {Dialect::kVectorFilter, R"({"i":{"$ne":1}})"},
    {Dialect::kVectorFilter, R"({"i":{"$gt":0}})"},
    {Dialect::kVectorFilter, R"({"i":{"$gte":-5,"$lt":3}})"},
    {Dialect::kVectorFilter, R"({"i":{"$in":[1,2,9007199254740993]}})"},
    {Dialect::kVectorFilter, R"({"i":{"$nin":[0,4]}})"},
    {Dialect::kVectorFilter, R"({"i":{"$exists":false}})"},
    {Dialect::kVectorFilter, R"({"i":{"$lt":9007199254740991}})"},
    {Dialect::kVectorFilter, R"({"i":{"$gte":9007199254740991}})"},
    {Dialect::kVectorFilter, R"({"f":1})"},
    {Dialect::kVectorFilter, R"({"f":{"$ne":0}})"},
    {Dialect::kVectorFilter, R"({"f":{"$gt":-1,"$lte":2.5}})"},
    {Dialect::kVectorFilter, R"({"f":{"$in":[0.0,2.5]}})"},
    {Dialect::kVectorFilter, R"({"f":{"$nin":[1.0,1e300]}})"},
    {Dialect::kVectorFilter, R"({"b":true})"},
    {Dialect::kVectorFilter, R"({"b":{"$ne":true}})"},
    {Dialect::kVectorFilter, R"({"b":{"$in":[true,false]}})"},
    {Dialect::kVectorFilter, R"({"b":{"$nin":[true,false]}})"},
    {Dialect::kVectorFilter, R"({"b":{"$exists":true}})"},
    {Dialect::kVectorFilter, R"({"d":{"$gt":"1970-01-01"}})"},
    {Dialect::kVectorFilter, R"({"d":{"$lte":"2025-01-01"}})"},
    {Dialect::kVectorFilter, R"({"d":{"$ne":"1970-01-01T00:00:01Z"}})"},
    {Dialect::kVectorFilter, R"({"d":{"$in":["1970-01-01","2025-01-01"]}})"},
    {Dialect::kVectorFilter, R"({"tags":"a"})"},
    {Dialect::kVectorFilter, R"({"tags":{"$in":["a","c"]}})"},
    {Dialect::kVectorFilter, R"({"tags":{"$ne":"a"}})"},
    {Dialect::kVectorFilter, R"({"tags":{"$nin":["a","x"]}})"},
    {Dialect::kVectorFilter, R"({"tags":{"$exists":true}})"},
    {Dialect::kVectorFilter, R"({"tags":{"$exists":false}})"},
    {Dialect::kVectorFilter, R"({"j":{"$ne":3}})"},
    {Dialect::kVectorFilter, R"({"j":{"$gt":0}})"},
    {Dialect::kVectorFilter, R"({"$or":[{"j":{"$lt":1}},{"g":{"$gte":2}}]})"},
    {Dialect::kVectorFilter, R"({"r":{"$ne":"a"}})"},
    {Dialect::kVectorFilter, R"({"r":{"$exists":true}})"},
    {Dialect::kVectorFilter, R"({"g":{"$nin":[1.5,2.0]}})"},
    {Dialect::kVectorFilter, R"({"$or":[{"s":"a"},{"i":{"$gt":1}}]})"},
    {Dialect::kVectorFilter, R"({"$and":[{"s":{"$ne":"a"}},{"i":{"$ne":2}}]})"},
    {Dialect::kVectorFilter, R"({"$or":[{"s":{"$ne":"a"}},{"b":{"$ne":false}}]})"},
    {Dialect::kVectorFilter, R"({"o d":"q"})"},
    {Dialect::kVectorFilter, R"({"o d":{"$ne":"q"}})"},
    {Dialect::kVectorFilter, R"({})"},
    {Dialect::kVectorFilter, R"({"i":{"$gt":5,"$lt":2}})"},
    {Dialect::kRetrieve, R"({"op":"ne","lhs":{"knowledge":"s"},"rhs":{"value":"a"}})"},
    {Dialect::kRetrieve, R"({"op":"ne","lhs":{"knowledge":"i"},"rhs":{"value":1}})"},
    {Dialect::kRetrieve, R"({"op":"ne","lhs":{"knowledge":"f"},"rhs":{"value":1.0}})"},
    {Dialect::kRetrieve, R"({"op":"ne","lhs":{"knowledge":"b"},"rhs":{"value":true}})"},
    {Dialect::kRetrieve, R"({"op":"ne","lhs":{"knowledge":"r"},"rhs":{"value":"a"}})"},
    {Dialect::kRetrieve,
     R"({"op":"not","arg":{"op":"ne","lhs":{"knowledge":"b"},"rhs":{"value":true}}})"},
    {Dialect::kRetrieve,
     R"({"op":"not","arg":{"op":"ne","lhs":{"knowledge":"i"},"rhs":{"value":1}}})"},
    {Dialect::kRetrieve,
     R"({"op":"not","arg":{"op":"lt","lhs":{"knowledge":"i"},"rhs":{"value":2}}})"},
    {Dialect::kRetrieve,
     R"({"op":"not","arg":{"op":"gt","lhs":{"knowledge":"j"},"rhs":{"value":0}}})"},
    {Dialect::kRetrieve,
     R"({"op":"not","arg":{"op":"or","args":[{"op":"eq","lhs":{"knowledge":"s"},"rhs":{"value":"a"}},{"op":"in","needle":{"value":"b"},"haystack":{"knowledge":"tags"}}]}})"},
    {Dialect::kRetrieve, R"({"op":"lt","lhs":{"knowledge":"i"},"rhs":{"knowledge":"f"}})"},
    {Dialect::kRetrieve, R"({"op":"ge","lhs":{"knowledge":"j"},"rhs":{"knowledge":"i"}})"},
    {Dialect::kRetrieve, R"({"op":"eq","lhs":{"knowledge":"s"},"rhs":{"knowledge":"r"}})"},
    {Dialect::kRetrieve,
     R"({"op":"in","needle":{"knowledge":"s"},"haystack":{"knowledge":"tags"}})"},
    {Dialect::kRetrieve,
     R"({"op":"not","arg":{"op":"in","needle":{"knowledge":"s"},"haystack":{"knowledge":"tags"}}})"},
    {Dialect::kExprV1,
     R"({"schema":"search_filter_expr/v1","expr":{"op":"contains","field":"s","value":"a"}})"},
    {Dialect::kExprV1,
     R"({"schema":"search_filter_expr/v1","expr":{"op":"not","expr":{"op":"contains","field":"r","value":"\".*"}}})"},
};

TEST(DocumentStores, ModelsAgreeWithTheEvaluator) {
  const std::vector<std::vector<Value>> records = Records();
  struct Entry {
    Target target;
    Store store;
    int translated = 0;
  };
  std::vector<Entry> entries = {{Target::kQdrant, Store::kQdrant},
                                {Target::kPinecone, Store::kPinecone},
                                {Target::kChroma, Store::kChroma},
                                {Target::kMongodb, Store::kMongodb}};
  for (const ModelCase& mc : kModelCases) {
    auto c = Compile(mc.dialect, mc.text, DocSchema());
    ASSERT_TRUE(c.ok()) << mc.text << ": " << c.diagnostic().message;
    for (Entry& e : entries) {
      Checked<Translation> t = TranslateCompiled(c.value(), mc.dialect, e.target);
      if (!t.ok()) continue;
      ++e.translated;
      const json::Value& f = t.value().filter;
      for (std::size_t r = 0; r < records.size(); ++r) {
        const bool want = Evaluate(c.value().optimized.root, records[r]);
        const json::Value doc = Layout(e.store, records[r]);
        const bool got = e.store == Store::kQdrant ? QdrantModel().Match(f, doc)
                                                   : MongoLikeModel(e.store).Match(f, doc);
        EXPECT_EQ(got, want) << TargetName(e.target) << " " << mc.text << "\n  -> " << json::Dump(f)
                             << "\n  record " << r << ": " << json::Dump(doc);
      }
    }
  }
  for (const Entry& e : entries) {
    EXPECT_GE(e.translated, 40) << TargetName(e.target);
  }
}

}  // namespace
}  // namespace engram::filter
