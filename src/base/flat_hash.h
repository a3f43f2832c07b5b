// FlatHash: strings to 32-bit numbers as an open-addressing table of (hash,
// number) pairs with linear probing, the strings themselves kept by the
// caller in a number-indexed array (`text_of(number)` gives a number's
// string). One probe usually touches one cache line of the table and then
// the string, where std::unordered_map walks a bucket, a predecessor node
// and the node, and allocates a node (with a copy of the string) per entry.
// Used for the text index's dictionaries (word -> id) and a collection's
// records (key -> doc, id -> docs).
//
// A string may be under several numbers (Insert does not look): Find gives
// one of them, ForEach all. Not thread-safe; readers may share a const one.
#ifndef ENGRAM_BASE_FLAT_HASH_H_
#define ENGRAM_BASE_FLAT_HASH_H_

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "base/prefetch.h"

namespace engram {

class FlatHash {
 public:
  static constexpr std::uint32_t kNone = UINT32_MAX;

  // 64-bit hash of a string: eight bytes at a time, each mixed by
  // multiplying and folding, with MurmurHash3's fmix64 finaliser (Appleby).
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

  // Room for `n` entries without growing.
  void Reserve(std::size_t n) {
    if (2 * n > slots_.size()) Resize(std::bit_ceil(std::max<std::size_t>(64, 2 * n)));
  }

  // A number whose string (text_of(number), string_view-convertible) is
  // `s`, or kNone.
  template <typename TextOf>
  std::uint32_t Find(std::string_view s, const TextOf& text_of) const {
    return FindHashed(s, Hash(s), text_of);
  }
  // The same with `hash` = Hash(s) computed ahead (see Prefetch).
  template <typename TextOf>
  std::uint32_t FindHashed(std::string_view s, std::uint64_t hash, const TextOf& text_of) const {
    std::uint32_t found = kNone;
    ForEachHashed(s, hash, text_of, [&found](std::uint32_t n) {
      found = n;
      return false;
    });
    return found;
  }
  // Calls f(number) for each number whose string is `s`, in no particular
  // order, until f returns false.
  template <typename TextOf, typename F>
  void ForEach(std::string_view s, const TextOf& text_of, const F& f) const {
    ForEachHashed(s, Hash(s), text_of, f);
  }

  // Starts fetching the slot a string with Hash `hash` probes first.
  void Prefetch(std::uint64_t hash) const {
    if (!slots_.empty()) PrefetchRead(&slots_[(hash >> 32) & (slots_.size() - 1)]);
  }

  // The number a Find for a string with Hash `hash` compares first (the
  // first slot of its probe run with the same hash bits), or kNone: its
  // string can be fetched ahead once the slot is in cache (Prefetch).
  std::uint32_t Candidate(std::uint64_t hash) const {
    if (slots_.empty()) return kNone;
    const auto h = static_cast<std::uint32_t>(hash >> 32);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      if (slots_[i].number == kNone || slots_[i].hash == h) return slots_[i].number;
    }
  }

  // Adds `number` (not kNone) under `s`, whether or not `s` has others.
  void Insert(std::string_view s, std::uint32_t number) { InsertHashed(Hash(s), number); }
  void InsertHashed(std::uint64_t hash, std::uint32_t number) {
    if (2 * (size_ + 1) > slots_.size()) Resize(std::max<std::size_t>(64, 2 * slots_.size()));
    Place(Slot{static_cast<std::uint32_t>(hash >> 32), number});
    ++size_;
  }

  // Removes `number` from under `s` (no-op when it is not there), shifting
  // later entries of its probe run back so that no tombstones accumulate
  // (Knuth 6.4, Algorithm R). The strings are not read.
  void Erase(std::string_view s, std::uint32_t number) {
    if (slots_.empty()) return;
    const auto h = static_cast<std::uint32_t>(Hash(s) >> 32);
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = h & mask;
    for (;; i = (i + 1) & mask) {
      const Slot& at = slots_[i];
      if (at.number == kNone) return;
      if (at.hash == h && at.number == number) break;
    }
    for (std::size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
      if (slots_[j].number == kNone) break;
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
    std::uint32_t hash;    // the high half of Hash(string)
    std::uint32_t number;  // kNone: empty
  };

  template <typename TextOf, typename F>
  void ForEachHashed(std::string_view s, std::uint64_t hash, const TextOf& text_of,
                     const F& f) const {
    if (slots_.empty()) return;
    const auto h = static_cast<std::uint32_t>(hash >> 32);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& at = slots_[i];
      if (at.number == kNone) return;
      if (at.hash == h && std::string_view(text_of(at.number)) == s && !f(at.number)) return;
    }
  }
  void Place(Slot s) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = s.hash & mask;
    while (slots_[i].number != kNone) i = (i + 1) & mask;
    slots_[i] = s;
  }
  void Resize(std::size_t slots) {  // a power of two, at least twice size_
    std::vector<Slot> old(slots, Slot{0, kNone});
    old.swap(slots_);
    for (const Slot& s : old) {
      if (s.number != kNone) Place(s);
    }
  }

  std::vector<Slot> slots_;  // a power of two, at most half full
  std::size_t size_ = 0;
};

}  // namespace engram

#endif  // ENGRAM_BASE_FLAT_HASH_H_
