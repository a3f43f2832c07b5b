#include "text/index/sorted_words.h"

#include <algorithm>
#include <stdexcept>

namespace engram::text {

SortedWords::value_type SortedWords::const_iterator::operator*() const {
  const Entry& e = owner_->chunks_[chunk_][at_];
  return {owner_->texts_[e.text], e.id};
}

SortedWords::const_iterator& SortedWords::const_iterator::operator--() {
  if (at_ == 0) {
    --chunk_;
    at_ = owner_->chunks_[chunk_].size();
  }
  --at_;
  return *this;
}

SortedWords::const_iterator& SortedWords::const_iterator::operator++() {
  if (++at_ == owner_->chunks_[chunk_].size()) {
    ++chunk_;
    at_ = 0;
  }
  return *this;
}

std::uint64_t SortedWords::Key(std::string_view word) {
  std::uint64_t key = 0;
  const std::size_t n = std::min<std::size_t>(word.size(), 8);
  for (std::size_t i = 0; i < n; ++i) {
    key |= std::uint64_t{static_cast<unsigned char>(word[i])} << (56 - 8 * i);
  }
  return key;
}

int SortedWords::Compare(std::string_view word, std::uint64_t key, const Entry& e) const {
  if (key != e.key) return key < e.key ? -1 : 1;
  return word.compare(texts_[e.text]);
}

std::size_t SortedWords::ChunkFor(std::string_view word, std::uint64_t key) const {
  // The last chunk whose head is not after `word` (chunk 0 when none is).
  std::size_t lo = 0, hi = heads_.size();
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (Compare(word, key, heads_[mid]) < 0) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return lo;
}

std::size_t SortedWords::PositionIn(std::size_t c, std::string_view word, std::uint64_t key) const {
  const std::vector<Entry>& chunk = chunks_[c];
  std::size_t lo = 0, hi = chunk.size();
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (Compare(word, key, chunk[mid]) > 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

bool SortedWords::emplace(std::string_view word, std::uint32_t id) {
  const std::uint64_t key = Key(word);
  if (chunks_.empty()) chunks_.emplace_back(), heads_.emplace_back();
  const std::size_t c = ChunkFor(word, key);
  std::vector<Entry>& chunk = chunks_[c];
  const std::size_t at = PositionIn(c, word, key);
  if (at < chunk.size() && Compare(word, key, chunk[at]) == 0) return false;
  std::uint32_t text;
  if (!free_texts_.empty()) {
    text = free_texts_.back();
    free_texts_.pop_back();
    texts_[text] = word;
  } else {
    text = static_cast<std::uint32_t>(texts_.size());
    texts_.emplace_back(word);
  }
  chunk.insert(chunk.begin() + static_cast<std::ptrdiff_t>(at), Entry{key, text, id});
  heads_[c] = chunk.front();
  ++size_;
  if (chunk.size() > kChunk) {  // split in halves
    std::vector<Entry> upper(chunk.begin() + kChunk / 2, chunk.end());
    chunk.resize(kChunk / 2);
    heads_.insert(heads_.begin() + static_cast<std::ptrdiff_t>(c) + 1, upper.front());
    chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(c) + 1, std::move(upper));
  }
  return true;
}

bool SortedWords::erase(std::string_view word) {
  if (chunks_.empty()) return false;
  const std::uint64_t key = Key(word);
  const std::size_t c = ChunkFor(word, key);
  std::vector<Entry>& chunk = chunks_[c];
  const std::size_t at = PositionIn(c, word, key);
  if (at == chunk.size() || Compare(word, key, chunk[at]) != 0) return false;
  std::string().swap(texts_[chunk[at].text]);
  free_texts_.push_back(chunk[at].text);
  chunk.erase(chunk.begin() + static_cast<std::ptrdiff_t>(at));
  --size_;
  const auto pos = static_cast<std::ptrdiff_t>(c);
  if (chunk.empty()) {
    chunks_.erase(chunks_.begin() + pos);
    heads_.erase(heads_.begin() + pos);
    return true;
  }
  heads_[c] = chunk.front();
  // A chunk down to a quarter merges into the next one when both fit, and
  // gives back spare capacity, so that dictionaries churned by erases and
  // emplaces stay as compact as ones built afresh.
  if (chunk.size() < kChunk / 4 && c + 1 < chunks_.size() &&
      chunk.size() + chunks_[c + 1].size() <= kChunk) {
    std::vector<Entry>& next = chunks_[c + 1];
    next.insert(next.begin(), chunk.begin(), chunk.end());
    heads_[c + 1] = next.front();
    chunks_.erase(chunks_.begin() + pos);
    heads_.erase(heads_.begin() + pos);
  } else if (chunk.size() < chunk.capacity() / 4) {
    chunk.shrink_to_fit();
  }
  return true;
}

std::size_t SortedWords::MemoryBytes() const {
  std::size_t bytes = chunks_.capacity() * sizeof(chunks_[0]) + heads_.capacity() * sizeof(Entry) +
                      texts_.capacity() * sizeof(std::string) +
                      free_texts_.capacity() * sizeof(std::uint32_t);
  for (const auto& chunk : chunks_) bytes += chunk.capacity() * sizeof(Entry);
  for (const std::string& t : texts_) bytes += t.capacity() > 15 ? t.capacity() + 1 : 0;
  return bytes;
}

SortedWords::const_iterator SortedWords::lower_bound(std::string_view word) const {
  if (chunks_.empty()) return end();
  const std::uint64_t key = Key(word);
  const std::size_t c = ChunkFor(word, key);
  const std::size_t at = PositionIn(c, word, key);
  if (at == chunks_[c].size()) return const_iterator(this, c + 1, 0);
  return const_iterator(this, c, at);
}

SortedWords::const_iterator SortedWords::find(std::string_view word) const {
  const_iterator it = lower_bound(word);
  if (it == end() || (*it).first != word) return end();
  return it;
}

std::uint32_t SortedWords::at(std::string_view word) const {
  const_iterator it = find(word);
  if (it == end()) throw std::out_of_range("SortedWords::at: no such word");
  return (*it).second;
}

}  // namespace engram::text
