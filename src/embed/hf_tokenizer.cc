// tokenizer.json -> the pipeline of hf_text.h and hf_model.h, and Encode:
// added tokens split out first (those with normalized=false on the raw text,
// the others on the normalized text, as tokenizers' AddedVocabulary does),
// then normalizer, pre-tokenizer and model, then the optional truncation.
#include "embed/hf_tokenizer.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <variant>

#include "base/json.h"
#include "base/status.h"
#include "embed/hf_model.h"
#include "embed/hf_text.h"

namespace engram::embed {
namespace {

constexpr std::size_t kMaxTokens = std::size_t{1} << 24;
// Bounds on the pipeline's length (real tokenizers have a few steps; a
// model2vec normalizer Sequence about 40).
constexpr std::size_t kMaxSteps = 256;

struct AddedToken {
  std::string content;
  std::uint32_t id = 0;
  bool single_word = false, lstrip = false, rstrip = false, normalized = true;
};

// A byte trie over added-token contents for leftmost-longest matching.
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

Status Bad(std::string_view origin, std::string_view where, std::string_view what) {
  return Status::InvalidArgument(std::string(origin) + ": " + std::string(where) + ": " +
                                 std::string(what));
}

// Typed member access with located refusals.
class Reader {
 public:
  explicit Reader(std::string_view origin) : origin_(origin) {}

  Status Type(const json::Value& v, const std::string& where, bool ok,
              std::string_view want) const {
    if (ok) return Status::Ok();
    return Bad(origin_, where,
               "expected " + std::string(want) + ", got " + std::string(json::TypeName(v)));
  }
  StatusOr<bool> Bool(const json::Value& obj, const std::string& where, const char* key,
                      bool fallback) const {
    if (!obj.contains(key) || obj[key].is_null()) return fallback;
    RETURN_IF_ERROR(Type(obj[key], where + "." + key, obj[key].is_boolean(), "a boolean"));
    return obj[key].get<bool>();
  }
  StatusOr<std::string> String(const json::Value& obj, const std::string& where, const char* key,
                               std::optional<std::string> fallback) const {
    if (!obj.contains(key) || obj[key].is_null()) {
      if (fallback) return *fallback;
      return Bad(origin_, where + "." + key, "missing");
    }
    RETURN_IF_ERROR(Type(obj[key], where + "." + key, obj[key].is_string(), "a string"));
    return obj[key].get<std::string>();
  }
  StatusOr<std::size_t> Size(const json::Value& v, const std::string& where) const {
    if ((!v.is_number_integer() && !v.is_number_unsigned()) ||
        (v.is_number_integer() && v.get<std::int64_t>() < 0)) {
      return Bad(origin_, where, "expected a non-negative integer, got " + json::Dump(v));
    }
    return v.get<std::size_t>();
  }
  StatusOr<std::uint32_t> Id(const json::Value& v, const std::string& where) const {
    ASSIGN_OR_RETURN(std::size_t id, Size(v, where));
    if (id >= kMaxTokens) {
      return Bad(
          origin_, where,
          "id " + std::to_string(id) + " is beyond the limit of " + std::to_string(kMaxTokens));
    }
    return static_cast<std::uint32_t>(id);
  }
  Status Unsupported(const std::string& where, const std::string& type,
                     std::string_view supported) const {
    return Bad(origin_, where + ".type",
               "unsupported '" + type + "' (supported: " + std::string(supported) + ")");
  }
  const std::string& origin() const { return origin_; }

 private:
  std::string origin_;
};

char32_t SingleChar(const std::string& s) {
  const hf::Text t = hf::DecodeUtf8(s);
  return t.size() == 1 ? t[0] : 0;
}

}  // namespace

struct HfTokenizer::Impl {
  std::vector<AddedToken> added;
  TokenTrie raw_trie, normalized_trie;
  std::vector<hf::NormalizerStep> normalizer;
  std::vector<hf::PreTokenizerStep> pre_tokenizer;
  std::variant<hf::WordPiece, hf::Unigram> model;
  std::optional<std::uint32_t> unk_id;
  std::optional<std::size_t> truncate_to;  // `truncation.max_length`
  bool truncate_left = false;
  std::size_t token_count = 0;
  std::uint32_t max_id = 0;
  std::size_t median_length = 0;

  explicit Impl(std::variant<hf::WordPiece, hf::Unigram> m) : model(std::move(m)) {}

  // Splits `s` at the tokens of `trie` (find_matches in added_vocabulary.rs):
  // appends (text, token index or -1, offset of the text in `s`).
  void SplitAdded(std::string_view s, const TokenTrie& trie,
                  std::vector<std::tuple<std::string_view, std::int64_t, std::size_t>>* out) const;
  void Tokenize(std::string_view word, std::vector<std::uint32_t>* ids) const {
    std::visit([&](const auto& m) { m.Tokenize(word, ids); }, model);
  }
};

namespace {

Status ParseNormalizer(const Reader& r, const json::Value& v, const std::string& where,
                       std::vector<hf::NormalizerStep>* steps, int depth) {
  using Kind = hf::NormalizerStep::Kind;
  RETURN_IF_ERROR(r.Type(v, where, v.is_object(), "an object"));
  ASSIGN_OR_RETURN(const std::string type, r.String(v, where, "type", std::nullopt));
  hf::NormalizerStep s;
  if (type == "Sequence" && depth < 4) {
    if (!v.contains("normalizers") || !v["normalizers"].is_array()) {
      return Bad(r.origin(), where + ".normalizers", "expected an array");
    }
    for (std::size_t i = 0; i < v["normalizers"].size(); ++i) {
      RETURN_IF_ERROR(ParseNormalizer(r, v["normalizers"][i],
                                      where + ".normalizers[" + std::to_string(i) + "]", steps,
                                      depth + 1));
    }
    return Status::Ok();
  }
  if (type == "BertNormalizer") {
    s.kind = Kind::kBert;
    ASSIGN_OR_RETURN(s.clean_text, r.Bool(v, where, "clean_text", true));
    ASSIGN_OR_RETURN(s.handle_chinese_chars, r.Bool(v, where, "handle_chinese_chars", true));
    ASSIGN_OR_RETURN(s.lowercase, r.Bool(v, where, "lowercase", true));
    // strip_accents null follows lowercase (normalizers/bert.rs).
    ASSIGN_OR_RETURN(s.strip_accents, r.Bool(v, where, "strip_accents", s.lowercase));
  } else if (type == "Lowercase") {
    s.kind = Kind::kLowercase;
  } else if (type == "StripAccents") {
    s.kind = Kind::kStripAccents;
  } else if (type == "NFD" || type == "NFKD" || type == "NFC" || type == "NFKC") {
    s.kind = type == "NFD"    ? Kind::kNfd
             : type == "NFKD" ? Kind::kNfkd
             : type == "NFC"  ? Kind::kNfc
                              : Kind::kNfkc;
  } else if (type == "Strip") {
    s.kind = Kind::kStrip;
    ASSIGN_OR_RETURN(s.left, r.Bool(v, where, "strip_left", true));
    ASSIGN_OR_RETURN(s.right, r.Bool(v, where, "strip_right", true));
  } else if (type == "Prepend") {
    s.kind = Kind::kPrepend;
    ASSIGN_OR_RETURN(const std::string p, r.String(v, where, "prepend", std::nullopt));
    s.content = hf::DecodeUtf8(p);
  } else if (type == "Replace") {
    ASSIGN_OR_RETURN(const std::string content, r.String(v, where, "content", std::nullopt));
    s.content = hf::DecodeUtf8(content);
    const json::Value* pattern = v.contains("pattern") ? &v["pattern"] : nullptr;
    if (pattern != nullptr && pattern->is_object() && pattern->contains("String") &&
        (*pattern)["String"].is_string()) {
      s.kind = Kind::kReplace;
      s.pattern = hf::DecodeUtf8((*pattern)["String"].get<std::string>());
    } else if (pattern != nullptr && pattern->is_object() && pattern->contains("Regex") &&
               (*pattern)["Regex"] == "\\s+") {
      s.kind = Kind::kReplaceWhitespaceRuns;
    } else {
      return Bad(r.origin(), where + ".pattern",
                 "expected {\"String\": text} or {\"Regex\": \"\\\\s+\"} (the only regex "
                 "supported), got " +
                     (pattern ? json::Dump(*pattern) : std::string("nothing")));
    }
  } else {
    return r.Unsupported(where, type,
                         "BertNormalizer, Lowercase, StripAccents, NFD, NFKD, NFC, NFKC, Strip, "
                         "Replace, Prepend, Sequence");
  }
  if (steps->size() >= kMaxSteps) {
    return Bad(r.origin(), where, "more than " + std::to_string(kMaxSteps) + " normalizers");
  }
  steps->push_back(std::move(s));
  return Status::Ok();
}

Status ParsePreTokenizer(const Reader& r, const json::Value& v, const std::string& where,
                         std::vector<hf::PreTokenizerStep>* steps, int depth) {
  using Kind = hf::PreTokenizerStep::Kind;
  RETURN_IF_ERROR(r.Type(v, where, v.is_object(), "an object"));
  ASSIGN_OR_RETURN(const std::string type, r.String(v, where, "type", std::nullopt));
  hf::PreTokenizerStep s;
  if (type == "Sequence" && depth < 4) {
    if (!v.contains("pretokenizers") || !v["pretokenizers"].is_array()) {
      return Bad(r.origin(), where + ".pretokenizers", "expected an array");
    }
    for (std::size_t i = 0; i < v["pretokenizers"].size(); ++i) {
      RETURN_IF_ERROR(ParsePreTokenizer(r, v["pretokenizers"][i],
                                        where + ".pretokenizers[" + std::to_string(i) + "]", steps,
                                        depth + 1));
    }
    return Status::Ok();
  }
  if (type == "BertPreTokenizer") {
    s.kind = Kind::kBert;
  } else if (type == "WhitespaceSplit") {
    s.kind = Kind::kWhitespaceSplit;
  } else if (type == "Metaspace") {
    s.kind = Kind::kMetaspace;
    ASSIGN_OR_RETURN(const std::string rep, r.String(v, where, "replacement", "\u2581"));
    s.replacement = SingleChar(rep);
    if (s.replacement == 0) {
      return Bad(r.origin(), where + ".replacement", "expected one character, got '" + rep + "'");
    }
    ASSIGN_OR_RETURN(const std::string scheme, r.String(v, where, "prepend_scheme", "always"));
    ASSIGN_OR_RETURN(const bool add_prefix_space, r.Bool(v, where, "add_prefix_space", true));
    if (scheme == "always") {
      s.prepend = hf::PreTokenizerStep::Prepend::kAlways;
    } else if (scheme == "first") {
      s.prepend = hf::PreTokenizerStep::Prepend::kFirst;
    } else if (scheme == "never") {
      s.prepend = hf::PreTokenizerStep::Prepend::kNever;
    } else {
      return Bad(r.origin(), where + ".prepend_scheme",
                 "expected always, first or never, got '" + scheme + "'");
    }
    if (!add_prefix_space) s.prepend = hf::PreTokenizerStep::Prepend::kNever;
    ASSIGN_OR_RETURN(s.split, r.Bool(v, where, "split", true));
  } else {
    return r.Unsupported(where, type, "BertPreTokenizer, WhitespaceSplit, Metaspace, Sequence");
  }
  if (steps->size() >= kMaxSteps) {
    return Bad(r.origin(), where, "more than " + std::to_string(kMaxSteps) + " pre-tokenizers");
  }
  steps->push_back(s);
  return Status::Ok();
}

StatusOr<std::variant<hf::WordPiece, hf::Unigram>> ParseModel(const Reader& r, const json::Value& v,
                                                              std::optional<std::uint32_t>* unk) {
  const std::string where = "model";
  RETURN_IF_ERROR(r.Type(v, where, v.is_object(), "an object"));
  ASSIGN_OR_RETURN(const std::string type, r.String(v, where, "type", std::nullopt));
  if (!v.contains("vocab")) return Bad(r.origin(), "model.vocab", "missing");
  const json::Value& vocab = v["vocab"];
  if (vocab.size() > kMaxTokens) {
    return Bad(r.origin(), "model.vocab", "more than " + std::to_string(kMaxTokens) + " tokens");
  }
  if (type == "WordPiece") {
    RETURN_IF_ERROR(r.Type(vocab, "model.vocab", vocab.is_object(), "an object"));
    hf::Vocab map;
    map.reserve(vocab.size());
    for (const auto& [token, id] : vocab.items()) {
      ASSIGN_OR_RETURN(map[token], r.Id(id, "model.vocab[\"" + token + "\"]"));
    }
    ASSIGN_OR_RETURN(const std::string unk_token, r.String(v, where, "unk_token", "[UNK]"));
    ASSIGN_OR_RETURN(const std::string prefix,
                     r.String(v, where, "continuing_subword_prefix", "##"));
    std::size_t max_chars = 100;
    if (v.contains("max_input_chars_per_word")) {
      ASSIGN_OR_RETURN(max_chars,
                       r.Size(v["max_input_chars_per_word"], "model.max_input_chars_per_word"));
    }
    auto it = map.find(unk_token);
    if (it == map.end()) {
      return Bad(r.origin(), "model.unk_token",
                 "'" + unk_token + "' is not in the vocabulary (WordPiece needs it)");
    }
    *unk = it->second;
    return std::variant<hf::WordPiece, hf::Unigram>(std::in_place_type<hf::WordPiece>,
                                                    std::move(map), it->second, prefix, max_chars);
  }
  if (type == "Unigram") {
    RETURN_IF_ERROR(r.Type(vocab, "model.vocab", vocab.is_array(), "an array"));
    std::vector<std::pair<std::string, double>> pieces;
    pieces.reserve(vocab.size());
    for (std::size_t i = 0; i < vocab.size(); ++i) {
      const json::Value& e = vocab[i];
      if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_number()) {
        return Bad(r.origin(), "model.vocab[" + std::to_string(i) + "]",
                   "expected [piece, score], got " + json::Dump(e));
      }
      pieces.emplace_back(e[0].get<std::string>(), e[1].get<double>());
    }
    if (v.contains("unk_id") && !v["unk_id"].is_null()) {
      ASSIGN_OR_RETURN(const std::uint32_t id, r.Id(v["unk_id"], "model.unk_id"));
      if (id >= pieces.size()) {
        return Bad(r.origin(), "model.unk_id",
                   std::to_string(id) + " is past the vocabulary (" +
                       std::to_string(pieces.size()) + " pieces)");
      }
      *unk = id;
    }
    ASSIGN_OR_RETURN(const bool byte_fallback, r.Bool(v, where, "byte_fallback", false));
    return std::variant<hf::WordPiece, hf::Unigram>(std::in_place_type<hf::Unigram>,
                                                    std::move(pieces), *unk, byte_fallback);
  }
  return r.Unsupported(where, type, "WordPiece, Unigram");
}

Status ParseAdded(const Reader& r, const json::Value& doc, std::vector<AddedToken>* added) {
  if (!doc.contains("added_tokens") || doc["added_tokens"].is_null()) return Status::Ok();
  const json::Value& list = doc["added_tokens"];
  RETURN_IF_ERROR(r.Type(list, "added_tokens", list.is_array(), "an array"));
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = "added_tokens[" + std::to_string(i) + "]";
    const json::Value& e = list[i];
    RETURN_IF_ERROR(r.Type(e, where, e.is_object(), "an object"));
    AddedToken t;
    if (!e.contains("id")) return Bad(r.origin(), where + ".id", "missing");
    ASSIGN_OR_RETURN(t.id, r.Id(e["id"], where + ".id"));
    ASSIGN_OR_RETURN(t.content, r.String(e, where, "content", std::nullopt));
    if (t.content.empty()) return Bad(r.origin(), where + ".content", "empty");
    ASSIGN_OR_RETURN(const bool special, r.Bool(e, where, "special", false));
    ASSIGN_OR_RETURN(t.single_word, r.Bool(e, where, "single_word", false));
    ASSIGN_OR_RETURN(t.lstrip, r.Bool(e, where, "lstrip", false));
    ASSIGN_OR_RETURN(t.rstrip, r.Bool(e, where, "rstrip", false));
    ASSIGN_OR_RETURN(t.normalized, r.Bool(e, where, "normalized", !special));
    added->push_back(std::move(t));
  }
  return Status::Ok();
}

// get_vocab(): the model's tokens with the added tokens over them.
void CountTokens(const hf::Vocab& vocab, const std::vector<AddedToken>& added,
                 HfTokenizer::Impl* impl) {
  std::unordered_map<std::string_view, std::uint32_t> all;
  all.reserve(vocab.size() + added.size());
  for (const auto& [token, id] : vocab) all[token] = id;
  for (const AddedToken& t : added) all[t.content] = t.id;
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
  const Reader r(origin);
  if (json_text.size() > kMaxTokenizerBytes) {
    return Bad(origin, "file", "larger than " + std::to_string(kMaxTokenizerBytes) + " bytes");
  }
  json::ReadOptions options;
  options.max_bytes = 0;  // bounded above
  options.max_depth = 32;
  const json::ReadResult doc = json::Read(json_text, options);
  if (!doc.ok()) {
    return Bad(origin, doc.error->path.Dotted("<root>"), "not valid JSON: " + doc.error->detail);
  }
  const json::Value& v = doc.value;
  RETURN_IF_ERROR(r.Type(v, "<root>", v.is_object(), "an object"));
  if (v.contains("padding") && !v["padding"].is_null()) {
    return Bad(origin, "padding",
               "unsupported (padding makes a text's ids depend on the other texts of its batch)");
  }
  std::optional<std::uint32_t> unk;
  if (!v.contains("model")) return Bad(origin, "model", "missing");
  ASSIGN_OR_RETURN(auto model, ParseModel(r, v["model"], &unk));
  auto impl = std::make_shared<Impl>(std::move(model));
  impl->unk_id = unk;
  RETURN_IF_ERROR(ParseAdded(r, v, &impl->added));
  if (v.contains("normalizer") && !v["normalizer"].is_null()) {
    RETURN_IF_ERROR(ParseNormalizer(r, v["normalizer"], "normalizer", &impl->normalizer, 0));
  }
  if (v.contains("pre_tokenizer") && !v["pre_tokenizer"].is_null()) {
    RETURN_IF_ERROR(
        ParsePreTokenizer(r, v["pre_tokenizer"], "pre_tokenizer", &impl->pre_tokenizer, 0));
  }
  if (v.contains("truncation") && !v["truncation"].is_null()) {
    const json::Value& t = v["truncation"];
    RETURN_IF_ERROR(r.Type(t, "truncation", t.is_object(), "an object"));
    if (!t.contains("max_length")) return Bad(origin, "truncation.max_length", "missing");
    ASSIGN_OR_RETURN(impl->truncate_to, r.Size(t["max_length"], "truncation.max_length"));
    ASSIGN_OR_RETURN(const std::string direction, r.String(t, "truncation", "direction", "Right"));
    if (direction != "Right" && direction != "Left") {
      return Bad(origin, "truncation.direction", "expected Right or Left, got '" + direction + "'");
    }
    impl->truncate_left = direction == "Left";
  }
  for (std::size_t i = 0; i < impl->added.size(); ++i) {
    const AddedToken& t = impl->added[i];
    if (!t.normalized) {
      impl->raw_trie.Add(t.content, i);
      continue;
    }
    hf::Text content = hf::DecodeUtf8(t.content);  // matched in normalized text
    hf::Normalize(impl->normalizer, &content);
    if (!content.empty()) impl->normalized_trie.Add(hf::EncodeUtf8(content), i);
  }
  const hf::Vocab& vocab =
      std::visit([](const auto& m) -> const hf::Vocab& { return m.vocab(); }, impl->model);
  CountTokens(vocab, impl->added, impl.get());
  return HfTokenizer(std::move(impl));
}

void HfTokenizer::Impl::SplitAdded(
    std::string_view s, const TokenTrie& trie,
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
    const AddedToken& t = added[static_cast<std::size_t>(token)];
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
      ids.push_back(m.added[static_cast<std::size_t>(token)].id);
      continue;
    }
    hf::Text t = hf::DecodeUtf8(segment);
    hf::Normalize(m.normalizer, &t);
    const std::string norm = hf::EncodeUtf8(t);
    normalized.clear();
    m.SplitAdded(norm, m.normalized_trie, &normalized);
    for (const auto& [piece, piece_token, piece_offset] : normalized) {
      if (piece_token >= 0) {
        ids.push_back(m.added[static_cast<std::size_t>(piece_token)].id);
        continue;
      }
      std::vector<hf::Piece> pieces{{hf::DecodeUtf8(piece), offset == 0 && piece_offset == 0}};
      hf::PreTokenize(m.pre_tokenizer, &pieces);
      for (const hf::Piece& p : pieces) m.Tokenize(hf::EncodeUtf8(p.text), &ids);
    }
  }
  if (m.truncate_to && ids.size() > *m.truncate_to) {
    if (m.truncate_left) {
      ids.erase(ids.begin(), ids.end() - static_cast<std::ptrdiff_t>(*m.truncate_to));
    } else {
      ids.resize(*m.truncate_to);
    }
  }
  return ids;
}

std::optional<std::uint32_t> HfTokenizer::unk_id() const {
  return impl_->unk_id;
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
