// Collection's own contracts, below the engine: what a capture holds and
// when one is due.
#include "engine/collection.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engram/filter.h"
#include "vector/vector_index.h"

namespace engram::engine {
namespace {

constexpr const char* kSchema = R"({"fields":[{"name":"topic","type":"string","optional":true}]})";

CollectionSpec Spec() {
  return CollectionSpec{
      "mem", SchemaRef::Parse(kSchema).value(), {{"content", 1.0}}, 4, "cosine", "none", ""};
}

std::vector<PreparedRecord> Records(const Collection& c, int n) {
  std::vector<PreparedRecord> out;
  for (int i = 0; i < n; ++i) {
    const std::string v = std::to_string(i % 7 + 1);
    Checked<PreparedRecord> p =
        c.Prepare(R"({"id":"r)" + std::to_string(i) + R"(","content":"note","vector":[)" + v +
                  ",1," + std::to_string(i % 3) + ",2]}");
    EXPECT_TRUE(p.ok());
    out.push_back(std::move(p).value());
  }
  return out;
}

// Vectors loaded at open are staged, and the background links them: the
// linked graph must reach the next capture, or every open of the store
// stages and links them again (a clean close wrote no new image, since no
// record had changed).
TEST(CollectionTest, LinkingStagedVectorsMakesTheNextCaptureDue) {
  Collection c(Spec());
  constexpr int kRecords = 300;
  std::vector<std::uint32_t> docs;
  for (std::uint32_t d = 0; d < kRecords; ++d) docs.push_back(d);
  ASSERT_TRUE(c.Load(1, docs, Records(c, kRecords), 1).ok());
  EXPECT_EQ(c.pending(), std::size_t{kRecords});

  std::optional<Capture> staged = c.Capture();
  ASSERT_TRUE(staged.has_value());
  c.MarkStored(*staged);
  EXPECT_EQ(c.dirty(), 0u);
  EXPECT_FALSE(c.Capture().has_value()) << "nothing changed since the stored capture";

  EXPECT_EQ(c.LinkPending(kRecords, 1), std::size_t{kRecords});
  EXPECT_EQ(c.pending(), 0u);
  EXPECT_EQ(c.dirty(), std::uint64_t{kRecords});
  std::optional<Capture> linked = c.Capture();
  ASSERT_TRUE(linked.has_value()) << "the linked graph is not in the stored image";
  ASSERT_TRUE(linked->vectors.has_value());
  StatusOr<vector::VectorIndex> image = vector::VectorIndex::Load(*linked->vectors, kRecords);
  ASSERT_TRUE(image.ok()) << image.status().message();
  EXPECT_EQ(image->pending(), 0u) << "the image holds the links";
  c.MarkStored(*linked);
  EXPECT_EQ(c.dirty(), 0u);
}

}  // namespace
}  // namespace engram::engine
