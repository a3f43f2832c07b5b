// The two tokenizer models static-embedding models ship with, as
// huggingface/tokenizers runs them on one pre-tokenized word
// (models/wordpiece/mod.rs, models/unigram/model.rs): WordPiece (greedy
// longest match first with `##` continuations, [UNK] for the whole word when
// a piece is missing or the word is too long) and Unigram (the Viterbi best
// segmentation by piece scores, unknown characters scored min - 10 and
// fused, optional byte fallback).
#ifndef ENGRAM_EMBED_HF_MODEL_H_
#define ENGRAM_EMBED_HF_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace engram::embed::hf {

// A string -> id map with lookups by string_view.
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using Vocab = std::unordered_map<std::string, std::uint32_t, StringHash, std::equal_to<>>;

class WordPiece {
 public:
  // `unk_id` must be the id of `unk` in `vocab` (the caller checks).
  WordPiece(Vocab vocab, std::uint32_t unk_id, std::string prefix, std::size_t max_chars)
      : vocab_(std::move(vocab)),
        unk_id_(unk_id),
        prefix_(std::move(prefix)),
        max_chars_(max_chars) {}
  // Appends the ids of `word` (UTF-8) to `ids`.
  void Tokenize(std::string_view word, std::vector<std::uint32_t>* ids) const;
  const Vocab& vocab() const { return vocab_; }

 private:
  Vocab vocab_;
  std::uint32_t unk_id_;
  std::string prefix_;
  std::size_t max_chars_;
};

class Unigram {
 public:
  // `pieces[id]` = (piece, score); `unk_id` < pieces.size() when set.
  Unigram(std::vector<std::pair<std::string, double>> pieces, std::optional<std::uint32_t> unk_id,
          bool byte_fallback);
  // Appends the ids of `word` (UTF-8) to `ids`. A word that needs an unknown
  // piece and has no unk id gives no ids (the reference fails to encode it).
  void Tokenize(std::string_view word, std::vector<std::uint32_t>* ids) const;
  const Vocab& vocab() const { return vocab_; }

 private:
  // A byte trie over the pieces: children sorted by byte.
  struct Node {
    std::vector<std::pair<unsigned char, std::uint32_t>> children;
    std::int64_t id = -1;  // the piece ending here
  };
  std::uint32_t Child(std::uint32_t node, unsigned char byte) const;  // 0: none

  std::vector<std::pair<std::string, double>> pieces_;
  Vocab vocab_;
  std::vector<Node> trie_;
  std::optional<std::uint32_t> unk_id_;
  bool byte_fallback_;
  double min_score_ = 0;
};

}  // namespace engram::embed::hf

#endif  // ENGRAM_EMBED_HF_MODEL_H_
