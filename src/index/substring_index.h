// SubstringIndex: what answers `contains` and `icontains` on one string field
// without reading every distinct value. Each distinct value is case-folded
// once, when it first appears, and the byte trigrams of its folded form are
// indexed; a needle's candidates are the values holding all of its
// trigrams, and only those are checked with the evaluator's exact test.
// Owned by MetadataIndex (metadata_index.h), which keeps it in step with the
// field's value map.
#ifndef ENGRAM_INDEX_SUBSTRING_INDEX_H_
#define ENGRAM_INDEX_SUBSTRING_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/deadline.h"
#include "base/roaring.h"

namespace engram::index {

class SubstringIndex {
 public:
  // `value` appeared in the field; `records` is its bucket of records. Both
  // belong to the caller and must stay where they are until Remove(value).
  void Add(const std::string& value, const roaring::Roaring* records);
  // The last record holding `value` is gone (no-op when absent).
  void Remove(std::string_view value);

  // The buckets of the values that contain `needle`, exactly as
  // filter::Evaluate decides: bytewise for kContains (`folded` false); for
  // kIContains (`folded` true) in the value's simple case folding, `needle`
  // being folded already (the checker folds icontains literals). Needles of
  // three or more bytes after folding read only the values holding all their
  // trigrams; shorter ones read every folded value once (no folding at query
  // time). Stops early, with what it found, when `poll` passes.
  std::vector<const roaring::Roaring*> Find(std::string_view needle, bool folded,
                                            DeadlinePoll& poll) const;

  std::size_t values() const { return ids_.size(); }
  // The trigram lists' and folded copies' bytes (for benchmarks).
  std::size_t MemoryBytes() const;

 private:
  struct Entry {
    const std::string* raw = nullptr;  // null: a free id
    std::string folded;                // empty when equal to *raw
    const roaring::Roaring* records = nullptr;
    const std::string& Folded() const { return folded.empty() ? *raw : folded; }
  };
  // The distinct trigrams of `s` (three bytes packed into the low 24 bits).
  static std::vector<std::uint32_t> Trigrams(std::string_view s);
  bool Holds(const Entry& e, std::string_view needle, bool folded) const;

  std::vector<Entry> entries_;  // by value id
  std::vector<std::uint32_t> free_;
  std::unordered_map<std::string_view, std::uint32_t> ids_;    // views of the values
  std::unordered_map<std::uint32_t, roaring::Roaring> grams_;  // trigram -> value ids
};

}  // namespace engram::index

#endif  // ENGRAM_INDEX_SUBSTRING_INDEX_H_
