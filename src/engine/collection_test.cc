// Collection's own contracts, below the engine: what a capture holds and
// when one is due.
#include "engine/collection.h"

#include <atomic>
#include <optional>
#include <string>
#include <thread>
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

// Batch k of a deterministic write load: every third batch removes two
// records (when present), the others write five (new, or replacing earlier
// ones: ids cycle over 60), with words that come and go.
void ApplyBatch(Collection& c, int k) {
  StatusOr<Collection::Writer> writer = c.Write();
  ASSERT_TRUE(writer.ok());
  const auto seq = static_cast<std::uint64_t>(k);
  if (k % 3 == 0) {
    std::vector<std::uint32_t> docs;
    for (const int id : {k % 60, (k + 31) % 60}) {
      if (auto doc = writer->Find("r" + std::to_string(id))) docs.push_back(*doc);
    }
    writer->Remove(seq, docs);
    return;
  }
  std::vector<PreparedRecord> records;
  std::vector<std::uint32_t> docs;
  for (int i = 0; i < 5; ++i) {
    const std::string id = "r" + std::to_string((k * 5 + i) % 60);
    const std::string content = "running note w" + std::to_string(k % 13) + " words" +
                                std::to_string(i) + " t" + std::to_string((k + i) % 17);
    Checked<PreparedRecord> p =
        c.Prepare(R"({"id":")" + id + R"(","content":")" + content + R"(","vector":[1,)" +
                  std::to_string(k % 5 + 1) + "," + std::to_string(i) + ",2]}");
    ASSERT_TRUE(p.ok());
    docs.push_back(writer->Assign(p.value().key));
    records.push_back(std::move(p).value());
  }
  ASSERT_TRUE(writer->Apply(seq, docs, std::move(records), 1).ok());
}

// Captures taken while a writer applies batches (the text index is copied
// under the shared lock and serialised without it) hold exactly the state at
// their sequence: the images equal those of a collection that applied the
// same batches up to that sequence with no capture beside it. And the
// changes they count add up (MarkStored leaves what came after them).
TEST(CollectionTest, CapturesConcurrentWithWritesHoldTheStateAtTheirSequence) {
  for (const char* language : {"en", "none"}) {
    SCOPED_TRACE(language);
    CollectionSpec spec = Spec();
    spec.language = language;
    Collection c(spec);
    constexpr int kBatches = 400;
    constexpr int kPace = 40;  // the writer lets a capture in every kPace batches
    std::atomic<bool> done{false};
    std::atomic<int> taken{0};
    std::thread writer([&] {
      for (int k = 1; k <= kBatches; ++k) {
        ApplyBatch(c, k);
        while (k % kPace == 0 && taken.load() < k / kPace) std::this_thread::yield();
      }
      done = true;
    });
    std::vector<Capture> captures;
    std::uint64_t stored = 0;
    while (!done.load() || captures.empty()) {
      if (std::optional<Capture> capture = c.Capture()) {
        c.MarkStored(*capture);
        stored += capture->changes;
        captures.push_back(std::move(*capture));
        taken.fetch_add(1);
      }
    }
    writer.join();
    if (std::optional<Capture> last = c.Capture()) {
      c.MarkStored(*last);
      stored += last->changes;
      captures.push_back(std::move(*last));
    }
    EXPECT_EQ(captures.back().seq, std::uint64_t{kBatches});
    EXPECT_EQ(c.dirty(), 0u);
    // Every change is counted once, by one of the captures.
    Collection reference(spec);
    std::uint64_t changes = 0;
    int applied = 0;
    for (const Capture& capture : captures) {
      for (; applied < static_cast<int>(capture.seq); ++applied) ApplyBatch(reference, applied + 1);
      std::optional<Capture> want = reference.Capture();
      if (!want) {
        EXPECT_EQ(capture.seq, 0u);
        continue;
      }
      reference.MarkStored(*want);
      changes += want->changes;
      ASSERT_TRUE(capture.text && want->text && capture.vectors && want->vectors);
      EXPECT_EQ(*capture.text, *want->text) << "text image at sequence " << capture.seq;
      EXPECT_EQ(*capture.vectors, *want->vectors) << "vector image at sequence " << capture.seq;
    }
    EXPECT_EQ(stored, changes);
    EXPECT_GE(captures.size(), std::size_t{kBatches / kPace}) << "captures ran between the writes";
  }
}

}  // namespace
}  // namespace engram::engine
