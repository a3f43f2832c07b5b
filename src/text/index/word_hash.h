// WordHash: the text index's hashed dictionaries (surface word -> id, term ->
// id) as an open-addressing table of (hash, id) pairs with linear probing,
// the words themselves kept by the caller in an id-indexed array. One probe
// usually touches one cache line of the table and then the word, where
// std::unordered_map walked a bucket, a predecessor node and the node: Put
// looks up every token, so this is on its hottest path.
#ifndef ENGRAM_TEXT_INDEX_WORD_HASH_H_
#define ENGRAM_TEXT_INDEX_WORD_HASH_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace engram::text {

class WordHash {
 public:
  static constexpr std::uint32_t kNone = UINT32_MAX;

  // 64-bit hash of a word: eight bytes at a time, each mixed by multiplying
  // and folding, with MurmurHash3's fmix64 finaliser (Appleby).
  static std::uint64_t Hash(std::string_view s) {
    const char* p = s.data();
    std::size_t n = s.size();
    std::uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
    for (; n >= 8; p += 8, n -= 8) {
      std::uint64_t v;
      std::memcpy(&v, p, 8);
      h = (h ^ v) * 0xFF51AFD7ED558CCDull;
      h ^= h >> 32;
    }
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) {
      v |= std::uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
    }
    h = (h ^ v) * 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    return h;
  }

  std::size_t size() const { return size_; }
  std::size_t MemoryBytes() const { return slots_.capacity() * sizeof(Slot); }

  // The id whose word (text_of(id), a string_view-convertible) is `word`,
  // or kNone.
  template <typename TextOf>
  std::uint32_t Find(std::string_view word, const TextOf& text_of) const {
    return FindHashed(word, Hash(word), text_of);
  }
  // The same with `hash` = Hash(word) computed ahead (see Prefetch).
  template <typename TextOf>
  std::uint32_t FindHashed(std::string_view word, std::uint64_t hash, const TextOf& text_of) const {
    if (slots_.empty()) return kNone;
    const auto h = static_cast<std::uint32_t>(hash >> 32);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.id == kNone) return kNone;
      if (s.hash == h && std::string_view(text_of(s.id)) == word) return s.id;
    }
  }

  // Starts fetching the slot a word with Hash `hash` probes first.
  void Prefetch(std::uint64_t hash) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[(hash >> 32) & (slots_.size() - 1)]);
  }

  // The id a Find for a word with Hash `hash` compares first (the first slot
  // of its probe run with the same hash bits), or kNone: its word can be
  // fetched ahead once the slot is in cache (Prefetch).
  std::uint32_t Candidate(std::uint64_t hash) const {
    if (slots_.empty()) return kNone;
    const auto h = static_cast<std::uint32_t>(hash >> 32);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      if (slots_[i].id == kNone || slots_[i].hash == h) return slots_[i].id;
    }
  }

  // Adds `id` for `word`, which must be absent.
  void Insert(std::string_view word, std::uint32_t id) {
    if (2 * (size_ + 1) > slots_.size()) Grow();
    Place(Slot{static_cast<std::uint32_t>(Hash(word) >> 32), id});
    ++size_;
  }

  // Removes `word` (no-op when absent), shifting later entries of its probe
  // run back so that no tombstones accumulate (Knuth 6.4, Algorithm R).
  template <typename TextOf>
  void Erase(std::string_view word, const TextOf& text_of) {
    if (slots_.empty()) return;
    const auto h = static_cast<std::uint32_t>(Hash(word) >> 32);
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = h & mask;
    for (;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.id == kNone) return;
      if (s.hash == h && std::string_view(text_of(s.id)) == word) break;
    }
    for (std::size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
      if (slots_[j].id == kNone) break;
      const std::size_t home = slots_[j].hash & mask;
      // slots_[j] may move to the hole at i when its home is not in (i, j].
      const bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
      if (!stays) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i] = Slot{0, kNone};
    --size_;
  }

 private:
  struct Slot {
    std::uint32_t hash;  // the high half of Hash(word)
    std::uint32_t id;    // kNone: empty
  };

  void Place(Slot s) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = s.hash & mask;
    while (slots_[i].id != kNone) i = (i + 1) & mask;
    slots_[i] = s;
  }
  void Grow() {
    std::vector<Slot> old(std::max<std::size_t>(64, 2 * slots_.size()), Slot{0, kNone});
    old.swap(slots_);
    for (const Slot& s : old) {
      if (s.id != kNone) Place(s);
    }
  }

  std::vector<Slot> slots_;  // a power of two, at most half full
  std::size_t size_ = 0;
};

}  // namespace engram::text

#endif  // ENGRAM_TEXT_INDEX_WORD_HASH_H_
