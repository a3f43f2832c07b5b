#include "embed/hf_tokenizer.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "embed/digest.h"

namespace engram::embed {
namespace {

constexpr const char* kBge = "src/embed/testdata/model2vec/test-model-float32/tokenizer.json";
constexpr const char* kUnigram =
    "src/embed/testdata/model2vec/test-model-vocab-quantized/tokenizer.json";

class TokenizerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (const char* path : {kBge, kUnigram}) {
      StatusOr<std::string> text = ReadFile(path, kMaxTokenizerBytes);
      ASSERT_TRUE(text.ok()) << text.status().ToString();
      StatusOr<HfTokenizer> t = HfTokenizer::Parse(*text, path);
      ASSERT_TRUE(t.ok()) << t.status().ToString();
      (path == kBge ? bge_ : unigram_) = new HfTokenizer(std::move(t).value());
      // The vocabulary read independently of the parser, to name expected ids.
      const auto doc = nlohmann::json::parse(*text);
      auto& vocab = path == kBge ? bge_vocab_ : unigram_vocab_;
      if (path == kBge) {
        for (const auto& [token, id] : doc["model"]["vocab"].items()) {
          vocab[token] = id.get<std::uint32_t>();
        }
      } else {
        const auto& pieces = doc["model"]["vocab"];
        for (std::size_t i = 0; i < pieces.size(); ++i) {
          vocab[pieces[i][0].get<std::string>()] = static_cast<std::uint32_t>(i);
        }
      }
    }
  }
  static void TearDownTestSuite() {
    delete bge_;
    delete unigram_;
  }
  static std::vector<std::uint32_t> Ids(const std::map<std::string, std::uint32_t>& vocab,
                                        const std::vector<std::string>& tokens) {
    std::vector<std::uint32_t> ids;
    for (const std::string& t : tokens) {
      auto it = vocab.find(t);
      EXPECT_NE(it, vocab.end()) << t;
      ids.push_back(it == vocab.end() ? 0 : it->second);
    }
    return ids;
  }
  static std::vector<std::uint32_t> Bert(const std::vector<std::string>& tokens) {
    return Ids(bge_vocab_, tokens);
  }

  static HfTokenizer* bge_;
  static HfTokenizer* unigram_;
  static std::map<std::string, std::uint32_t> bge_vocab_, unigram_vocab_;
};
HfTokenizer* TokenizerTest::bge_ = nullptr;
HfTokenizer* TokenizerTest::unigram_ = nullptr;
std::map<std::string, std::uint32_t> TokenizerTest::bge_vocab_;
std::map<std::string, std::uint32_t> TokenizerTest::unigram_vocab_;

TEST_F(TokenizerTest, BertLowercasesAndSplitsPunctuation) {
  EXPECT_EQ(bge_->Encode("Hello, World!"), Bert({"hello", ",", "world", "!"}));
  EXPECT_EQ(bge_->Encode("a$b"), Bert({"a", "$", "b"}));  // ASCII symbols count as punctuation
  EXPECT_EQ(bge_->Encode("hello\u2026world"), Bert({"hello", "\u2026", "world"}));  // Po
  EXPECT_EQ(bge_->Encode("  hello\u00a0\tworld\n again "), Bert({"hello", "world", "again"}));
  EXPECT_EQ(bge_->Encode("hel\x01lo"), Bert({"hello"}));  // control characters are removed
  EXPECT_TRUE(bge_->Encode("").empty());
  EXPECT_TRUE(bge_->Encode(" \t\n").empty());
}

TEST_F(TokenizerTest, BertStripsAccents) {
  // strip_accents is null in the config: it follows lowercase (true).
  EXPECT_EQ(bge_->Encode("Café naïve RÉSUMÉ"), Bert({"cafe", "naive", "resume"}));
  EXPECT_EQ(bge_->Encode("\u00dcber"), Bert({"uber"}));
  EXPECT_EQ(bge_->Encode("U\u0308ber"), Bert({"uber"}));  // already decomposed
  EXPECT_EQ(bge_->Encode("\u03a3"), Bert({"\u03c3"}));    // capital sigma: one code point down
}

TEST_F(TokenizerTest, BertSpacesCjkCharacters) {
  // Each CJK ideograph is its own word; 爱 and 你 are not in this vocabulary.
  EXPECT_EQ(bge_->Encode("我爱你"), Bert({"我", "[UNK]", "[UNK]"}));
  EXPECT_EQ(bge_->Encode("hello我"), Bert({"hello", "我"}));
}

TEST_F(TokenizerTest, WordPieceContinuationsAndUnknownWords) {
  EXPECT_EQ(bge_->Encode("unaffable tokenization"),
            Bert({"una", "##ffa", "##ble", "token", "##ization"}));
  EXPECT_EQ(bge_->Encode("xqzv"), Bert({"x", "##q", "##z", "##v"}));
  // A word with one piece missing is one [UNK] as a whole.
  EXPECT_EQ(bge_->Encode("snow\u2603man hello"), Bert({"[UNK]", "hello"}));
  EXPECT_EQ(bge_->Encode("\U0001F642"), Bert({"[UNK]"}));
}

TEST_F(TokenizerTest, WordsPastMaxInputCharsAreUnknown) {
  EXPECT_EQ(bge_->Encode(std::string(101, 'a')), Bert({"[UNK]"}));
  const std::vector<std::uint32_t> ids = bge_->Encode(std::string(100, 'a'));
  ASSERT_FALSE(ids.empty());
  EXPECT_NE(ids[0], bge_vocab_["[UNK]"]);
}

TEST_F(TokenizerTest, AddedTokensAreMatchedOnTheRawText) {
  // [CLS] and [SEP] are special with normalized=false: matched before
  // lower-casing, so "[cls]" is ordinary text.
  EXPECT_EQ(bge_->Encode("[CLS] hello[SEP]"), Bert({"[CLS]", "hello", "[SEP]"}));
  EXPECT_EQ(bge_->Encode("[cls]"), Bert({"[", "cl", "##s", "]"}));
}

TEST_F(TokenizerTest, VocabularyFacts) {
  EXPECT_EQ(bge_->unk_id(), bge_vocab_["[UNK]"]);
  EXPECT_EQ(bge_->token_count(), 29528u);
  EXPECT_EQ(bge_->max_id(), 29527u);
  EXPECT_GT(bge_->median_token_length(), 0u);
}

TEST_F(TokenizerTest, UnigramWithMetaspaceAndReplaceNormalizers) {
  // Sequence[Bert, Replace(punctuation -> " p "), Replace(\s+ -> " "), Strip],
  // Metaspace(prepend always, no split), Unigram.
  EXPECT_EQ(unigram_->Encode("Hello, World!"),
            Ids(unigram_vocab_, {"\u2581hello", "\u2581,", "\u2581world", "\u2581!"}));
  EXPECT_EQ(unigram_->Encode("  Café  "), Ids(unigram_vocab_, {"\u2581cafe"}));
  EXPECT_EQ(unigram_->unk_id(), 1u);
}

HfTokenizer MustParse(const std::string& json) {
  StatusOr<HfTokenizer> t = HfTokenizer::Parse(json, "t.json");
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return std::move(t).value();
}

TEST(HfTokenizerTest, UnigramViterbiAsTheReference) {
  // The example of tokenizers' Unigram::encode documentation: "abcdacdxx" ->
  // ["abcd", "a", "cd", "xx"], the unknown "x"s fused into one [unk].
  const HfTokenizer t = MustParse(
      R"({"model":{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0],["a",0],["b",0],["c",0],)"
      R"(["d",0],["cd",1],["ab",2],["abc",5],["abcd",10]]}})");
  EXPECT_EQ(t.Encode("abcdacdxx"), (std::vector<std::uint32_t>{8, 1, 5, 0}));
}

TEST(HfTokenizerTest, UnigramByteFallback) {
  const HfTokenizer t =
      MustParse(R"({"model":{"type":"Unigram","unk_id":0,"byte_fallback":true,)"
                R"("vocab":[["<unk>",0],["a",-1],["<0x78>",-2],["<0x79>",-2]]}})");
  // "x" is the byte 0x78. Unknown characters are fused first: "xz" needs a
  // piece for 0x7A too, which is missing, so it is one [unk].
  EXPECT_EQ(t.Encode("ax"), (std::vector<std::uint32_t>{1, 2}));
  EXPECT_EQ(t.Encode("axz"), (std::vector<std::uint32_t>{1, 0}));
}

TEST(HfTokenizerTest, MetaspaceSplitsBeforeEachReplacement) {
  const HfTokenizer t = MustParse(
      R"({"pre_tokenizer":{"type":"Metaspace","replacement":"_","prepend_scheme":"first",)"
      R"("split":true},"model":{"type":"WordPiece","unk_token":"?",)"
      R"("vocab":{"?":0,"_a":1,"_b":2,"__c":3,"x":4}}})");
  // "a b  c" -> "_a_b__c" -> ["_a", "_b", "__c"] (runs of the replacement merge).
  EXPECT_EQ(t.Encode("a b  c"), (std::vector<std::uint32_t>{1, 2, 3}));
}

TEST(HfTokenizerTest, NormalizedAddedTokensAreMatchedAfterNormalizing) {
  const HfTokenizer t = MustParse(
      R"({"normalizer":{"type":"Lowercase"},"pre_tokenizer":{"type":"WhitespaceSplit"},)"
      R"("added_tokens":[{"id":9,"content":"New York","normalized":true,"special":false}],)"
      R"("model":{"type":"WordPiece","vocab":{"[UNK]":0,"new":1,"york":2,"in":3}}})");
  EXPECT_EQ(t.Encode("in NEW YORK"), (std::vector<std::uint32_t>{3, 9}));
  EXPECT_EQ(t.token_count(), 5u);
}

TEST(HfTokenizerTest, TruncationFromTheConfig) {
  const HfTokenizer t =
      MustParse(R"({"truncation":{"max_length":2,"strategy":"LongestFirst","stride":0,)"
                R"("direction":"Left"},"pre_tokenizer":{"type":"WhitespaceSplit"},)"
                R"("model":{"type":"WordPiece","vocab":{"[UNK]":0,"a":1,"b":2,"c":3}}})");
  EXPECT_EQ(t.Encode("a b c"), (std::vector<std::uint32_t>{2, 3}));
}

TEST(HfTokenizerTest, RefusalsAreLocated) {
  struct Case {
    const char* json;
    const char* message;
  } cases[] = {
      {"[", "t.json: <root>: not valid JSON"},
      {"{}", "t.json: model: missing"},
      {R"({"model":{"type":"BPE","vocab":{}}})",
       "t.json: model.type: unsupported 'BPE' (supported: WordPiece, Unigram)"},
      {R"({"model":{"type":"WordPiece","vocab":{"a":0}}})",
       "t.json: model.unk_token: '[UNK]' is not in the vocabulary (WordPiece needs it)"},
      {R"({"model":{"type":"WordPiece","vocab":{"[UNK]":-1}}})",
       "t.json: model.vocab[\"[UNK]\"]: expected a non-negative integer, got -1"},
      {R"({"model":{"type":"Unigram","vocab":[["a",0],["b"]]}})",
       "t.json: model.vocab[1]: expected [piece, score], got [\"b\"]"},
      {R"({"model":{"type":"Unigram","unk_id":5,"vocab":[["a",0]]}})",
       "t.json: model.unk_id: 5 is past the vocabulary (1 pieces)"},
      {R"({"padding":{"strategy":"BatchLongest"},"model":{"type":"Unigram","vocab":[]}})",
       "t.json: padding: unsupported (padding makes a text's ids depend on the other texts of "
       "its batch)"},
      {R"({"normalizer":{"type":"Sequence","normalizers":[{"type":"Lowercase"},)"
       R"({"type":"Precompiled"}]},"model":{"type":"Unigram","vocab":[]}})",
       "t.json: normalizer.normalizers[1].type: unsupported 'Precompiled' (supported: "
       "BertNormalizer, Lowercase, StripAccents, NFD, NFKD, NFC, NFKC, Strip, Replace, Prepend, "
       "Sequence)"},
      {R"({"normalizer":{"type":"Replace","pattern":{"Regex":"[a-z]+"},"content":""},)"
       R"("model":{"type":"Unigram","vocab":[]}})",
       "t.json: normalizer.pattern: expected {\"String\": text} or {\"Regex\": \"\\\\s+\"} (the "
       "only regex supported), got {\"Regex\":\"[a-z]+\"}"},
      {R"({"pre_tokenizer":{"type":"ByteLevel"},"model":{"type":"Unigram","vocab":[]}})",
       "t.json: pre_tokenizer.type: unsupported 'ByteLevel' (supported: BertPreTokenizer, "
       "WhitespaceSplit, Metaspace, Sequence)"},
      {R"({"pre_tokenizer":{"type":"Metaspace","replacement":"ab"},)"
       R"("model":{"type":"Unigram","vocab":[]}})",
       "t.json: pre_tokenizer.replacement: expected one character, got 'ab'"},
      {R"({"added_tokens":[{"id":1}],"model":{"type":"Unigram","vocab":[]}})",
       "t.json: added_tokens[0].content: missing"},
      {R"({"normalizer":{"type":"BertNormalizer","lowercase":"yes"},)"
       R"("model":{"type":"Unigram","vocab":[]}})",
       "t.json: normalizer.lowercase: expected a boolean, got string"},
  };
  for (const Case& c : cases) {
    StatusOr<HfTokenizer> t = HfTokenizer::Parse(c.json, "t.json");
    ASSERT_FALSE(t.ok()) << c.json;
    EXPECT_EQ(t.status().message().substr(0, std::string(c.message).size()), c.message)
        << t.status().message();
  }
}

}  // namespace
}  // namespace engram::embed
