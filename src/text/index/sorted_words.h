// SortedWords: the text index's sorted dictionaries (stemmed terms, surface
// words) as a map from strings to ids, iterated in byte order for prefix
// expansion and serialisation. Built for an index that grows by scattered
// inserts: entries live in sorted chunks of at most kChunk (a two-level
// B+-tree without inner nodes), each entry carrying the word's first eight
// bytes so that most comparisons touch no string, where std::map paid one
// cache-missing node per level of a tall tree.
#ifndef ENGRAM_TEXT_INDEX_SORTED_WORDS_H_
#define ENGRAM_TEXT_INDEX_SORTED_WORDS_H_

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace engram::text {

class SortedWords {
 public:
  // (word, id), the word by reference into the dictionary.
  using value_type = std::pair<const std::string&, std::uint32_t>;

  // Iterates (word, id) pairs in ascending byte order (std::string's order),
  // yielding them by value (a proxy, like std::vector<bool>'s). Invalidated
  // by any insert or erase.
  class const_iterator {
   public:
    struct Arrow {
      value_type v;
      const value_type* operator->() const { return &v; }
    };
    using iterator_category = std::bidirectional_iterator_tag;
    using difference_type = std::ptrdiff_t;
    using value_type = SortedWords::value_type;
    using reference = SortedWords::value_type;
    using pointer = Arrow;

    const_iterator() = default;
    reference operator*() const;
    Arrow operator->() const { return Arrow{**this}; }
    const_iterator& operator++();
    const_iterator& operator--();
    const_iterator operator++(int) {
      const_iterator old = *this;
      ++*this;
      return old;
    }
    const_iterator operator--(int) {
      const_iterator old = *this;
      --*this;
      return old;
    }
    bool operator==(const const_iterator& o) const { return chunk_ == o.chunk_ && at_ == o.at_; }

   private:
    friend class SortedWords;
    const_iterator(const SortedWords* owner, std::size_t chunk, std::size_t at)
        : owner_(owner), chunk_(chunk), at_(at) {}
    const SortedWords* owner_ = nullptr;
    std::size_t chunk_ = 0;
    std::size_t at_ = 0;
  };

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const_iterator begin() const { return const_iterator(this, 0, 0); }
  const_iterator end() const { return const_iterator(this, chunks_.size(), 0); }
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;
  const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }

  // Adds `word` -> `id`; false (and no change) when `word` is present.
  bool emplace(std::string_view word, std::uint32_t id);
  // Removes `word`; false when absent.
  bool erase(std::string_view word);
  const_iterator find(std::string_view word) const;
  // The first entry not less than `word`.
  const_iterator lower_bound(std::string_view word) const;
  // The id of `word`; throws std::out_of_range when absent (as std::map::at).
  std::uint32_t at(std::string_view word) const;
  // Bytes held (capacities, words past the SSO buffer included).
  std::size_t MemoryBytes() const;

 private:
  // The word's first eight bytes, big-endian and zero-padded: comparing
  // these as integers orders words as std::string does, except that equal
  // keys need the full words.
  struct Entry {
    std::uint64_t key;
    std::uint32_t text;  // index into texts_
    std::uint32_t id;
  };
  static constexpr std::size_t kChunk = 128;

  static std::uint64_t Key(std::string_view word);
  // <0, 0, >0 as `word` (with key `key`) is before, equal to, after `e`.
  int Compare(std::string_view word, std::uint64_t key, const Entry& e) const;
  // The chunk that holds `word` or where it would go (0 when empty).
  std::size_t ChunkFor(std::string_view word, std::uint64_t key) const;
  // The position of the first entry of chunk c not less than `word`.
  std::size_t PositionIn(std::size_t c, std::string_view word, std::uint64_t key) const;

  std::vector<std::vector<Entry>> chunks_;  // non-empty, sorted, in order
  std::vector<Entry> heads_;                // chunks_[c][0], contiguous for the search
  std::vector<std::string> texts_;          // the words ("" for free slots)
  std::vector<std::uint32_t> free_texts_;
  std::size_t size_ = 0;
};

}  // namespace engram::text

#endif  // ENGRAM_TEXT_INDEX_SORTED_WORDS_H_
