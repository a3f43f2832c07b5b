#include "index/substring_index.h"

#include <algorithm>

#include "base/unicode.h"

namespace engram::index {

std::vector<std::uint32_t> SubstringIndex::Trigrams(std::string_view s) {
  std::vector<std::uint32_t> grams;
  if (s.size() < 3) return grams;
  grams.reserve(s.size() - 2);
  for (std::size_t i = 0; i + 3 <= s.size(); ++i) {
    grams.push_back(std::uint32_t{static_cast<unsigned char>(s[i])} << 16 |
                    std::uint32_t{static_cast<unsigned char>(s[i + 1])} << 8 |
                    std::uint32_t{static_cast<unsigned char>(s[i + 2])});
  }
  std::sort(grams.begin(), grams.end());
  grams.erase(std::unique(grams.begin(), grams.end()), grams.end());
  return grams;
}

void SubstringIndex::Add(const std::string& value, const roaring::Roaring* records) {
  if (ids_.count(value) > 0) return;
  std::uint32_t id;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
  } else {
    id = static_cast<std::uint32_t>(entries_.size());
    entries_.emplace_back();
  }
  Entry& e = entries_[id];
  e.raw = &value;
  e.records = records;
  std::string folded = FoldCase(value);
  if (folded != value) e.folded = std::move(folded);
  ids_.emplace(std::string_view(value), id);
  for (std::uint32_t g : Trigrams(e.Folded())) grams_[g].add(id);
}

void SubstringIndex::Remove(std::string_view value) {
  auto it = ids_.find(value);
  if (it == ids_.end()) return;
  const std::uint32_t id = it->second;
  ids_.erase(it);
  Entry& e = entries_[id];
  for (std::uint32_t g : Trigrams(e.Folded())) {
    auto gram = grams_.find(g);
    if (gram == grams_.end()) continue;
    gram->second.remove(id);
    if (gram->second.isEmpty()) grams_.erase(gram);
  }
  e = Entry{};
  free_.push_back(id);
}

bool SubstringIndex::Holds(const Entry& e, std::string_view needle, bool folded) const {
  const std::string& s = folded ? e.Folded() : *e.raw;
  return s.find(needle) != std::string::npos;
}

std::vector<const roaring::Roaring*> SubstringIndex::Find(std::string_view needle, bool folded,
                                                          DeadlinePoll& poll) const {
  std::vector<const roaring::Roaring*> out;
  // A value that holds the needle holds its folding once folded (simple
  // folding maps code point by code point, and a UTF-8 needle found in UTF-8
  // text starts and ends on code point boundaries), so the folded needle's
  // trigrams select a superset of the answer; Holds decides exactly.
  const std::string folded_needle = folded ? std::string(needle) : FoldCase(needle);
  const std::vector<std::uint32_t> grams = Trigrams(folded_needle);
  if (grams.empty()) {  // fewer than three bytes: every value is a candidate
    for (const Entry& e : entries_) {
      if (poll.Passed()) break;
      if (e.raw != nullptr && Holds(e, needle, folded)) out.push_back(e.records);
    }
    return out;
  }
  std::vector<const roaring::Roaring*> lists;
  for (std::uint32_t g : grams) {
    auto it = grams_.find(g);
    if (it == grams_.end()) return out;  // no value holds this trigram
    lists.push_back(&it->second);
  }
  std::sort(lists.begin(), lists.end(), [](const roaring::Roaring* a, const roaring::Roaring* b) {
    return a->cardinality() < b->cardinality();
  });
  roaring::Roaring candidates = *lists[0];
  for (std::size_t i = 1; i < lists.size() && !candidates.isEmpty(); ++i) {
    if (poll.Passed()) return out;
    candidates &= *lists[i];
  }
  for (std::uint32_t id : candidates) {
    if (poll.Passed()) break;
    if (Holds(entries_[id], needle, folded)) out.push_back(entries_[id].records);
  }
  return out;
}

std::size_t SubstringIndex::MemoryBytes() const {
  std::size_t bytes = entries_.capacity() * sizeof(Entry);
  for (const Entry& e : entries_) bytes += e.folded.capacity();
  for (const auto& [gram, ids] : grams_) bytes += sizeof(gram) + ids.getSizeInBytes();
  return bytes;
}

}  // namespace engram::index
