// tokenizer.json -> the pipeline of hf_text.h and hf_model.h (read by
// hf_json.h), and Encode: added tokens split out first (those with
// normalized=false on the raw text, the others on the normalized text, as
// tokenizers' AddedVocabulary does), then normalizer, pre-tokenizer and
// model, then the optional truncation.
#include "embed/hf_tokenizer.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <variant>

#include "base/status.h"
#include "embed/hf_json.h"
#include "embed/hf_model.h"
#include "embed/hf_text.h"

namespace engram::embed {
namespace hf {

// A byte trie over added-token contents for leftmost-longest matching. (In
// a named namespace: Impl, which has external linkage, holds two.)
class TokenTrie {
 public:
  TokenTrie() : nodes_(1) {}
  void Add(std::string_view s, std::size_t token) {
    std::size_t node = 0;
    for (unsigned char b : s) {
      auto it = nodes_[node].next.find(b);
      if (it == nodes_[node].next.end()) {
        it = nodes_[node].next.emplace(b, nodes_.size()).first;
        nodes_.emplace_back();
      }
      node = it->second;
    }
    nodes_[node].token = static_cast<std::int64_t>(token);
  }
  bool empty() const { return nodes_.size() == 1; }
  // The longest token starting at s[at]: (token, length), or token -1.
  std::pair<std::int64_t, std::size_t> Longest(std::string_view s, std::size_t at) const {
    std::pair<std::int64_t, std::size_t> best{-1, 0};
    std::size_t node = 0;
    for (std::size_t i = at; i < s.size(); ++i) {
      auto it = nodes_[node].next.find(static_cast<unsigned char>(s[i]));
      if (it == nodes_[node].next.end()) break;
      node = it->second;
      if (nodes_[node].token >= 0) best = {nodes_[node].token, i + 1 - at};
    }
    return best;
  }

 private:
  struct Node {
    std::map<unsigned char, std::size_t> next;
    std::int64_t token = -1;
  };
  std::vector<Node> nodes_;
};

}  // namespace hf

struct HfTokenizer::Impl {
  // What tokenizer.json says: model, added tokens, normalizer,
  // pre-tokenizer, truncation.
  hf::TokenizerJson json;
  hf::TokenTrie raw_trie, normalized_trie;
  std::size_t token_count = 0;
  std::uint32_t max_id = 0;
  std::size_t median_length = 0;

  explicit Impl(hf::TokenizerJson j) : json(std::move(j)) {}

  // Splits `s` at the tokens of `trie` (find_matches in added_vocabulary.rs):
  // appends (text, token index or -1, offset of the text in `s`).
  void SplitAdded(std::string_view s, const hf::TokenTrie& trie,
                  std::vector<std::tuple<std::string_view, std::int64_t, std::size_t>>* out) const;
  void Tokenize(std::string_view word, std::vector<std::uint32_t>* ids) const {
    std::visit([&](const auto& m) { m.Tokenize(word, ids); }, json.model);
  }
};

namespace {

// get_vocab(): the model's tokens with the added tokens over them.
void CountTokens(const hf::Vocab& vocab, const std::vector<hf::AddedToken>& added,
                 HfTokenizer::Impl* impl) {
  std::unordered_map<std::string_view, std::uint32_t> all;
  all.reserve(vocab.size() + added.size());
  for (const auto& [token, id] : vocab) all[token] = id;
  for (const hf::AddedToken& t : added) all[t.content] = t.id;
  std::vector<std::size_t> lengths;
  lengths.reserve(all.size());
  for (const auto& [token, id] : all) {
    lengths.push_back(hf::DecodeUtf8(token).size());
    impl->max_id = std::max(impl->max_id, id);
  }
  impl->token_count = all.size();
  if (lengths.empty()) return;
  std::sort(lengths.begin(), lengths.end());
  const std::size_t n = lengths.size();
  // numpy.median averages the two middle values of an even count; int()
  // then truncates.
  impl->median_length = n % 2 == 1 ? lengths[n / 2] : (lengths[n / 2 - 1] + lengths[n / 2]) / 2;
}

}  // namespace

StatusOr<HfTokenizer> HfTokenizer::Parse(std::string_view json_text, std::string_view origin) {
  ASSIGN_OR_RETURN(hf::TokenizerJson json, hf::ReadTokenizerJson(json_text, origin));
  auto impl = std::make_shared<Impl>(std::move(json));
  const std::vector<hf::AddedToken>& added = impl->json.added;
  for (std::size_t i = 0; i < added.size(); ++i) {
    const hf::AddedToken& t = added[i];
    if (!t.normalized) {
      impl->raw_trie.Add(t.content, i);
      continue;
    }
    hf::Text content = hf::DecodeUtf8(t.content);  // matched in normalized text
    hf::Normalize(impl->json.normalizer, &content);
    if (!content.empty()) impl->normalized_trie.Add(hf::EncodeUtf8(content), i);
  }
  const hf::Vocab& vocab =
      std::visit([](const auto& m) -> const hf::Vocab& { return m.vocab(); }, impl->json.model);
  CountTokens(vocab, added, impl.get());
  return HfTokenizer(std::move(impl));
}

void HfTokenizer::Impl::SplitAdded(
    std::string_view s, const hf::TokenTrie& trie,
    std::vector<std::tuple<std::string_view, std::int64_t, std::size_t>>* out) const {
  auto last_char = [](std::string_view t) { return hf::DecodeUtf8(t).back(); };
  std::size_t start_offset = 0;
  for (std::size_t at = 0; at < s.size();) {
    auto [token, length] =
        trie.empty() ? std::pair<std::int64_t, std::size_t>{-1, 0} : trie.Longest(s, at);
    if (token < 0) {
      ++at;
      continue;
    }
    const hf::AddedToken& t = json.added[static_cast<std::size_t>(token)];
    std::size_t start = at, stop = at + length;
    if (t.single_word) {
      const bool word_before = start > 0 && hf::IsAlphanumeric(last_char(s.substr(0, start)));
      const bool word_after =
          stop < s.size() && hf::IsAlphanumeric(hf::DecodeUtf8(s.substr(stop, 4)).front());
      if (word_before || word_after) {
        ++at;
        continue;
      }
    }
    if (t.lstrip) {
      std::size_t b = start;
      while (b > start_offset) {
        std::size_t c = b - 1;
        while (c > start_offset && (static_cast<unsigned char>(s[c]) & 0xC0) == 0x80) --c;
        if (!hf::IsWhitespace(hf::DecodeUtf8(s.substr(c, b - c)).front())) break;
        b = c;
      }
      start = b;
    }
    if (t.rstrip) {
      while (stop < s.size()) {
        std::size_t e = stop + 1;
        while (e < s.size() && (static_cast<unsigned char>(s[e]) & 0xC0) == 0x80) ++e;
        if (!hf::IsWhitespace(hf::DecodeUtf8(s.substr(stop, e - stop)).front())) break;
        stop = e;
      }
    }
    if (start_offset < start)
      out->emplace_back(s.substr(start_offset, start - start_offset), -1, start_offset);
    out->emplace_back(s.substr(start, stop - start), token, start);
    start_offset = stop;
    at = stop;
  }
  if (start_offset < s.size()) out->emplace_back(s.substr(start_offset), -1, start_offset);
}

std::vector<std::uint32_t> HfTokenizer::Encode(std::string_view text) const {
  const Impl& m = *impl_;
  std::vector<std::uint32_t> ids;
  std::vector<std::tuple<std::string_view, std::int64_t, std::size_t>> raw, normalized;
  m.SplitAdded(text, m.raw_trie, &raw);
  for (const auto& [segment, token, offset] : raw) {
    if (token >= 0) {
      ids.push_back(m.json.added[static_cast<std::size_t>(token)].id);
      continue;
    }
    hf::Text t = hf::DecodeUtf8(segment);
    hf::Normalize(m.json.normalizer, &t);
    const std::string norm = hf::EncodeUtf8(t);
    normalized.clear();
    m.SplitAdded(norm, m.normalized_trie, &normalized);
    for (const auto& [piece, piece_token, piece_offset] : normalized) {
      if (piece_token >= 0) {
        ids.push_back(m.json.added[static_cast<std::size_t>(piece_token)].id);
        continue;
      }
      std::vector<hf::Piece> pieces{{hf::DecodeUtf8(piece), offset == 0 && piece_offset == 0}};
      hf::PreTokenize(m.json.pre_tokenizer, &pieces);
      for (const hf::Piece& p : pieces) m.Tokenize(hf::EncodeUtf8(p.text), &ids);
    }
  }
  if (m.json.truncate_to && ids.size() > *m.json.truncate_to) {
    if (m.json.truncate_left) {
      ids.erase(ids.begin(), ids.end() - static_cast<std::ptrdiff_t>(*m.json.truncate_to));
    } else {
      ids.resize(*m.json.truncate_to);
    }
  }
  return ids;
}

std::optional<std::uint32_t> HfTokenizer::unk_id() const {
  return impl_->json.unk_id;
}
std::size_t HfTokenizer::token_count() const {
  return impl_->token_count;
}
std::uint32_t HfTokenizer::max_id() const {
  return impl_->max_id;
}
std::size_t HfTokenizer::median_token_length() const {
  return impl_->median_length;
}

}  // namespace engram::embed
