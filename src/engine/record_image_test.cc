// The records image (record_image.h): every kind of value round-trips, and
// every damaged or foreign image is refused with Corruption naming why.
#include "engine/record_image.h"

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/bytes.h"
#include "base/test_seed_files.h"
#include "engine/collection.h"
#include "engine/test_record_image_schema.h"

namespace engram::engine {
namespace {

std::shared_ptr<const Schema> AllTypes() {
  return RecordImageSeedSchema();
}

std::vector<ImagedRecord> Sample() {
  std::vector<ImagedRecord> records;
  records.push_back({0,
                     "first",
                     {std::string("agent-1"), std::int64_t{-7}, 2.5, true, Datetime{-86400000000},
                      StringSet{"a", "b\xc3\xa9"}},
                     0x0123456789abcdefULL});
  records.push_back(
      {3,
       "second",
       {Value(), std::int64_t{INT64_MIN}, -0.0, false, Datetime{1700000000000000}, StringSet{}},
       0});
  records.push_back({1000, "only id", {Value(), Value(), Value(), Value(), Value(), Value()}, 42});
  return records;
}

std::string Write(const Schema& schema, const std::vector<ImagedRecord>& records) {
  RecordImageWriter w(schema);
  for (const ImagedRecord& r : records) w.Add(r.doc, r.id, r.slots, r.content_hash);
  return std::move(w).Finish();
}

// `bytes` with its checksum made right again, so that a change reaches the
// structural checks.
std::string Resealed(std::string bytes) {
  const std::uint64_t h = Fnv1a64(std::string_view(bytes).substr(0, bytes.size() - 8));
  for (int i = 0; i < 8; ++i) bytes[bytes.size() - 8 + i] = static_cast<char>(h >> (8 * i));
  return bytes;
}

void ExpectRefused(std::string_view bytes, const Schema& schema, std::uint32_t limit,
                   const std::string& why) {
  StatusOr<std::vector<ImagedRecord>> read = ReadRecordImage(bytes, schema, limit);
  ASSERT_FALSE(read.ok()) << why;
  EXPECT_EQ(read.status().code(), StatusCode::kCorruption);
  EXPECT_NE(read.status().message().find(why), std::string::npos) << read.status().message();
}

TEST(RecordImageTest, RoundTripsEveryKindOfValue) {
  auto schema = AllTypes();
  const std::vector<ImagedRecord> records = Sample();
  const std::string bytes = Write(*schema, records);
  StatusOr<std::vector<ImagedRecord>> read = ReadRecordImage(bytes, *schema, 1001);
  ASSERT_TRUE(read.ok()) << read.status().message();
  ASSERT_EQ(read->size(), records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ((*read)[i].doc, records[i].doc);
    EXPECT_EQ((*read)[i].id, records[i].id);
    EXPECT_EQ((*read)[i].slots, records[i].slots) << "record " << i;
    EXPECT_EQ((*read)[i].content_hash, records[i].content_hash);
  }
  EXPECT_EQ(Write(*schema, *read), bytes) << "one image per set of records";
  StatusOr<std::vector<ImagedRecord>> none = ReadRecordImage(Write(*schema, {}), *schema, 0);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(RecordImageTest, RefusesDamagedAndForeignImages) {
  auto schema = AllTypes();
  const std::string bytes = Write(*schema, Sample());
  ExpectRefused(bytes.substr(0, 10), *schema, 1001, "too short");
  ExpectRefused("XXXXXXXX" + bytes.substr(8), *schema, 1001, "bad magic");
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x20;
  ExpectRefused(flipped, *schema, 1001, "checksum");
  ExpectRefused(bytes.substr(0, bytes.size() - 9) + bytes.substr(bytes.size() - 8), *schema, 1001,
                "checksum");
  ExpectRefused(bytes, *schema, 1000, "bad record number");  // the last is 1000

  // Another schema: fewer fields, or one of another type.
  std::vector<Field> fields = schema->fields();
  fields.pop_back();
  ExpectRefused(bytes, Schema(fields), 1001, "another schema");
  fields = schema->fields();
  fields[1].type = FieldType::kFloat;
  ExpectRefused(bytes, Schema(fields), 1001, "another schema");

  // A value of the wrong kind: the first record's first slot says int.
  const std::string id = "first";
  const std::size_t slot = bytes.find(id) + id.size();
  std::string wrong = bytes;
  wrong[slot] = 2;
  ExpectRefused(Resealed(wrong), *schema, 1001, "bad value of field 'agent_id'");
  // Invalid UTF-8 in a string.
  std::string bad_text = bytes;
  bad_text[bytes.find("agent-1")] = static_cast<char>(0xff);
  ExpectRefused(Resealed(bad_text), *schema, 1001, "bad value of field 'agent_id'");
  // A set out of order.
  const std::size_t b = bytes.find("b\xc3\xa9");
  std::string unordered = bytes;
  unordered[b] = 'A';  // "A..." < "a"
  ExpectRefused(Resealed(unordered), *schema, 1001, "bad value of field 'tags'");
  // Trailing bytes, and a count larger than the bytes could hold.
  std::string longer = bytes;
  longer.insert(bytes.size() - 8, "x");
  ExpectRefused(Resealed(longer), *schema, 1001, "trailing bytes");
  std::string many = bytes;
  const std::size_t count_at = 8 + 4 + 1 + schema->fields().size();
  many[count_at] = 0x7f;  // 127 records in an image of three
  ExpectRefused(Resealed(many), *schema, 1001, "bad record count");
}

TEST(RecordImageTest, RefusesBadIdsAndNumbers) {
  auto schema = AllTypes();
  std::vector<ImagedRecord> records = Sample();
  records[1].id = "";
  ExpectRefused(Write(*schema, records), *schema, 1001, "bad id");
  records = Sample();
  records[1].id = std::string(kMaxIdBytes + 1, 'x');
  ExpectRefused(Write(*schema, records), *schema, 1001, "bad id");
  records = Sample();
  records[1].doc = records[0].doc;  // a gap of 0: not ascending
  ExpectRefused(Write(*schema, records), *schema, 1001, "bad record number");
  records = Sample();
  records[0].slots[2] = std::numeric_limits<double>::infinity();
  ExpectRefused(Write(*schema, records), *schema, 1001, "bad value of field 'score'");
}

// The fuzz target's seed images (tests/fuzz/seeds/record_image/, read with
// the same schema as AllTypes) are exactly what the writer makes today. With
// ENGRAM_WRITE_SEEDS=1 the test rewrites them first (after a format change).
TEST(RecordImageTest, FuzzSeedsAreCurrentImages) {
  auto schema = AllTypes();
  engram::testing::ExpectSeedFilesCurrent(
      "tests/fuzz/seeds/record_image/",
      {{"sample", Write(*schema, Sample())}, {"empty", Write(*schema, {})}});
}

}  // namespace
}  // namespace engram::engine
