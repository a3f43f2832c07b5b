// tokenizer.json read into the pipeline's parts (hf_json.h), each member
// checked and a refusal located.
#include "embed/hf_json.h"

#include <utility>

#include "base/json.h"
#include "embed/hf_tokenizer.h"

namespace engram::embed::hf {
namespace {

constexpr std::size_t kMaxTokens = std::size_t{1} << 24;
// Bounds on the pipeline's length (real tokenizers have a few steps; a
// model2vec normalizer Sequence about 40).
constexpr std::size_t kMaxSteps = 256;

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
    const std::optional<std::uint64_t> n = json::CountOf(v);
    if (!n) return Bad(origin_, where, "expected a non-negative integer, got " + json::Dump(v));
    return *n;
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
  const Text t = DecodeUtf8(s);
  return t.size() == 1 ? t[0] : 0;
}

Status ParseNormalizer(const Reader& r, const json::Value& v, const std::string& where,
                       std::vector<NormalizerStep>* steps, int depth) {
  using Kind = NormalizerStep::Kind;
  RETURN_IF_ERROR(r.Type(v, where, v.is_object(), "an object"));
  ASSIGN_OR_RETURN(const std::string type, r.String(v, where, "type", std::nullopt));
  NormalizerStep s;
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
    s.content = DecodeUtf8(p);
  } else if (type == "Replace") {
    ASSIGN_OR_RETURN(const std::string content, r.String(v, where, "content", std::nullopt));
    s.content = DecodeUtf8(content);
    const json::Value* pattern = v.contains("pattern") ? &v["pattern"] : nullptr;
    if (pattern != nullptr && pattern->is_object() && pattern->contains("String") &&
        (*pattern)["String"].is_string()) {
      s.kind = Kind::kReplace;
      s.pattern = DecodeUtf8((*pattern)["String"].get<std::string>());
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
                         std::vector<PreTokenizerStep>* steps, int depth) {
  using Kind = PreTokenizerStep::Kind;
  RETURN_IF_ERROR(r.Type(v, where, v.is_object(), "an object"));
  ASSIGN_OR_RETURN(const std::string type, r.String(v, where, "type", std::nullopt));
  PreTokenizerStep s;
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
      s.prepend = PreTokenizerStep::Prepend::kAlways;
    } else if (scheme == "first") {
      s.prepend = PreTokenizerStep::Prepend::kFirst;
    } else if (scheme == "never") {
      s.prepend = PreTokenizerStep::Prepend::kNever;
    } else {
      return Bad(r.origin(), where + ".prepend_scheme",
                 "expected always, first or never, got '" + scheme + "'");
    }
    if (!add_prefix_space) s.prepend = PreTokenizerStep::Prepend::kNever;
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

StatusOr<std::variant<WordPiece, Unigram>> ParseModel(const Reader& r, const json::Value& v,
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
    Vocab map;
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
    return std::variant<WordPiece, Unigram>(std::in_place_type<WordPiece>, std::move(map),
                                            it->second, prefix, max_chars);
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
    return std::variant<WordPiece, Unigram>(std::in_place_type<Unigram>, std::move(pieces), *unk,
                                            byte_fallback);
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

}  // namespace

StatusOr<TokenizerJson> ReadTokenizerJson(std::string_view json_text, std::string_view origin) {
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
  TokenizerJson out(std::move(model));
  out.unk_id = unk;
  RETURN_IF_ERROR(ParseAdded(r, v, &out.added));
  if (v.contains("normalizer") && !v["normalizer"].is_null()) {
    RETURN_IF_ERROR(ParseNormalizer(r, v["normalizer"], "normalizer", &out.normalizer, 0));
  }
  if (v.contains("pre_tokenizer") && !v["pre_tokenizer"].is_null()) {
    RETURN_IF_ERROR(
        ParsePreTokenizer(r, v["pre_tokenizer"], "pre_tokenizer", &out.pre_tokenizer, 0));
  }
  if (v.contains("truncation") && !v["truncation"].is_null()) {
    const json::Value& t = v["truncation"];
    RETURN_IF_ERROR(r.Type(t, "truncation", t.is_object(), "an object"));
    if (!t.contains("max_length")) return Bad(origin, "truncation.max_length", "missing");
    ASSIGN_OR_RETURN(out.truncate_to, r.Size(t["max_length"], "truncation.max_length"));
    ASSIGN_OR_RETURN(const std::string direction, r.String(t, "truncation", "direction", "Right"));
    if (direction != "Right" && direction != "Left") {
      return Bad(origin, "truncation.direction", "expected Right or Left, got '" + direction + "'");
    }
    out.truncate_left = direction == "Left";
  }
  return out;
}

}  // namespace engram::embed::hf
