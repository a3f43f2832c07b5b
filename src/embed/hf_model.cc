#include "embed/hf_model.h"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace engram::embed::hf {
namespace {

// The reference's penalty for an unknown character (unigram/model.rs K_UNK_PENALTY).
constexpr double kUnkPenalty = 10.0;

bool IsContinuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// Bytes of the UTF-8 character starting at s[i] (1 for a stray byte).
std::size_t CharLength(std::string_view s, std::size_t i) {
  std::size_t n = 1;
  while (i + n < s.size() && IsContinuation(static_cast<unsigned char>(s[i + n]))) ++n;
  return n;
}

std::size_t CodePoints(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += IsContinuation(c) ? 0 : 1;
  return n;
}

}  // namespace

void WordPiece::Tokenize(std::string_view word, std::vector<std::uint32_t>* ids) const {
  if (CodePoints(word) > max_chars_) {
    ids->push_back(unk_id_);
    return;
  }
  const std::size_t mark = ids->size();
  std::string candidate;
  for (std::size_t start = 0; start < word.size();) {
    std::size_t end = word.size();
    bool found = false;
    while (start < end) {
      candidate.clear();
      if (start > 0) candidate = prefix_;
      candidate.append(word.substr(start, end - start));
      if (auto it = vocab_.find(candidate); it != vocab_.end()) {
        ids->push_back(it->second);
        found = true;
        break;
      }
      // Drop the last character of the candidate.
      --end;
      while (end > start && IsContinuation(static_cast<unsigned char>(word[end]))) --end;
    }
    if (!found) {  // one missing piece makes the whole word unknown
      ids->resize(mark);
      ids->push_back(unk_id_);
      return;
    }
    start = end;
  }
}

Unigram::Unigram(std::vector<std::pair<std::string, double>> pieces,
                 std::optional<std::uint32_t> unk_id, bool byte_fallback)
    : pieces_(std::move(pieces)), unk_id_(unk_id), byte_fallback_(byte_fallback) {
  min_score_ = std::numeric_limits<double>::infinity();
  trie_.emplace_back();
  for (std::size_t id = 0; id < pieces_.size(); ++id) {
    const auto& [piece, score] = pieces_[id];
    vocab_[piece] =
        static_cast<std::uint32_t>(id);  // a repeated piece: the last id, as the reference
    min_score_ = std::min(min_score_, score);
    std::uint32_t node = 0;
    for (unsigned char b : piece) {
      std::uint32_t next = Child(node, b);
      if (next == 0) {
        next = static_cast<std::uint32_t>(trie_.size());
        trie_.emplace_back();
        auto& children = trie_[node].children;
        children.insert(std::lower_bound(children.begin(), children.end(),
                                         std::pair<unsigned char, std::uint32_t>(b, 0)),
                        {b, next});
      }
      node = next;
    }
    if (!piece.empty()) trie_[node].id = static_cast<std::int64_t>(vocab_[piece]);
  }
}

std::uint32_t Unigram::Child(std::uint32_t node, unsigned char byte) const {
  const auto& children = trie_[node].children;
  auto it = std::lower_bound(children.begin(), children.end(),
                             std::pair<unsigned char, std::uint32_t>(byte, 0));
  return it != children.end() && it->first == byte ? it->second : 0;
}

void Unigram::Tokenize(std::string_view word, std::vector<std::uint32_t>* ids) const {
  if (word.empty()) return;
  // best[i]: the best path over word[0, i) (encode_optimized in model.rs).
  struct Best {
    double score = 0;
    std::int64_t start = -1;  // -1: not reached
    std::int64_t id = -1;     // -1: unknown
  };
  const std::size_t n = word.size();
  std::vector<Best> best(n + 1);
  const double unk_score = min_score_ - kUnkPenalty;
  for (std::size_t start = 0; start < n;) {
    const double here = best[start].score;
    const std::size_t char_len = CharLength(word, start);
    bool single = false;
    std::uint32_t node = 0;
    for (std::size_t end = start; end < n;) {
      node = Child(node, static_cast<unsigned char>(word[end]));
      if (node == 0) break;
      ++end;
      const std::int64_t id = trie_[node].id;
      if (id < 0) continue;
      const double candidate = pieces_[static_cast<std::size_t>(id)].second + here;
      Best& target = best[end];
      if (target.start < 0 || candidate > target.score) {
        target = {candidate, static_cast<std::int64_t>(start), id};
      }
      if (end - start == char_len) single = true;
    }
    if (!single) {
      Best& target = best[start + char_len];
      const double candidate = unk_score + here;
      if (target.start < 0 || candidate > target.score) {
        target = {candidate, static_cast<std::int64_t>(start), -1};
      }
    }
    start += char_len;
  }
  // Walk back; runs of unknown pieces are fused into one string.
  std::vector<std::pair<std::string_view, bool>> tokens;  // (text, known)
  for (std::size_t end = n; end > 0;) {
    const Best& b = best[end];
    const auto start = static_cast<std::size_t>(b.start);
    const std::string_view text = word.substr(start, end - start);
    const bool unknown = b.id < 0 || (unk_id_ && b.id == *unk_id_);
    if (unknown && !tokens.empty() && !tokens.back().second) {
      tokens.back().first = word.substr(start, tokens.back().first.size() + text.size());
    } else {
      tokens.emplace_back(text, !unknown);
    }
    end = start;
  }
  for (auto it = tokens.rbegin(); it != tokens.rend(); ++it) {
    if (auto found = vocab_.find(it->first); found != vocab_.end()) {
      ids->push_back(found->second);
      continue;
    }
    if (byte_fallback_) {
      std::vector<std::uint32_t> bytes;
      for (unsigned char c : it->first) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", c);
        auto byte = vocab_.find(std::string_view(name));
        if (byte == vocab_.end()) break;
        bytes.push_back(byte->second);
      }
      if (bytes.size() == it->first.size()) {
        ids->insert(ids->end(), bytes.begin(), bytes.end());
        continue;
      }
    }
    if (unk_id_) ids->push_back(*unk_id_);
  }
}

}  // namespace engram::embed::hf
