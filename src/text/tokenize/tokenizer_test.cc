// Normalisation, stripping and lower-casing of QUERY_DSL.md §2, and the
// document tokeniser built from them.
#include "text/tokenize/tokenizer.h"

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "text/tokenize/normalize.h"

namespace engram::text {
namespace {

TEST(Normalize, NfcZeroWidthAndWhitespace) {
  EXPECT_EQ(Normalize("cafe\xcc\x81"), "caf\xc3\xa9");           // e + U+0301 -> é
  EXPECT_EQ(Normalize("hello\xe2\x80\x8bworld"), "helloworld");  // U+200B deleted
  EXPECT_EQ(Normalize("a\xe2\x80\x8c\xe2\x80\x8d\xef\xbb\xbf"
                      "b"),
            "ab");  // ZWNJ ZWJ BOM
  EXPECT_EQ(Normalize("a\xc2\xa0"
                      "b"),
            "a b");  // NBSP
  EXPECT_EQ(Normalize("  a \t\n\r\v\f b  "), "a b");
  EXPECT_EQ(Normalize("a\xe3\x80\x80"
                      "b\xe2\x80\xa8"
                      "c\xe2\x80\xaf"
                      "d"),
            "a b c d");
  EXPECT_EQ(Normalize("a \xe2\x80\x8b b"), "a b");  // deleted inside a run: still one space
  EXPECT_EQ(Normalize(""), "");
  EXPECT_EQ(Normalize(" \t "), "");
}

TEST(Normalize, EcmaWhitespaceOnly) {
  // U+0085 (NEL) and U+001C-U+001F are not ECMAScript whitespace.
  EXPECT_EQ(Normalize("a\xc2\x85"
                      "b"),
            "a\xc2\x85"
            "b");
  EXPECT_EQ(Normalize("a\x1c"
                      "b"),
            "a\x1c"
            "b");
  EXPECT_FALSE(IsEcmaWhitespace(0x85));
  EXPECT_FALSE(IsEcmaWhitespace(0x1F));
  EXPECT_TRUE(IsEcmaWhitespace(0x1680));
  EXPECT_TRUE(IsEcmaWhitespace(0xFEFF));
  EXPECT_FALSE(IsEcmaWhitespace(0x200B));
}

TEST(Normalize, InvalidUtf8BecomesReplacement) {
  EXPECT_EQ(Normalize("a\xff"
                      "b"),
            "a\xef\xbf\xbd"
            "b");
  EXPECT_EQ(Normalize(std::string("a\0b", 3)), std::string("a\0b", 3));
}

TEST(Normalize, Utf16Length) {
  EXPECT_EQ(Utf16Length("ab"), 2u);
  EXPECT_EQ(Utf16Length("n\xc3\xa9"), 2u);                 // né
  EXPECT_EQ(Utf16Length("\xe6\x97\xa5\xe6\x9c\xac"), 2u);  // 日本
  EXPECT_EQ(Utf16Length("\xf0\x9f\x98\x80x"), 3u);         // 😀x
}

TEST(StripWord, TheThirtyOneCharacters) {
  const std::string all = "!\"#$%&'()*+,-./:;<=>?@[\\]^`{|}~";
  EXPECT_EQ(all.size(), 31u);
  for (char c : all) EXPECT_TRUE(IsStrippedPunctuation(static_cast<unsigned char>(c))) << c;
  EXPECT_FALSE(IsStrippedPunctuation('_'));
  EXPECT_EQ(StripWord("a" + all + "b_c", ControlChars::kRemove), "ab_c");
  EXPECT_EQ(StripWord("get-together", ControlChars::kRemove), "gettogether");
  EXPECT_EQ(StripWord("c++", ControlChars::kRemove), "c");
  EXPECT_EQ(StripWord("\xe2\x80\x94", ControlChars::kRemove), "\xe2\x80\x94");  // em dash kept
}

TEST(StripWord, ControlCharacters) {
  const std::string word = std::string("a\x01\x1c\x7f", 4) + "b";
  EXPECT_EQ(StripWord(word, ControlChars::kRemove), "ab");
  EXPECT_EQ(StripWord(word, ControlChars::kKeep), word);
  EXPECT_EQ(StripWord(std::string("a\0b", 3), ControlChars::kRemove), "ab");
  EXPECT_EQ(StripWord("a\xc2\x85"
                      "b",
                      ControlChars::kRemove),
            "a\xc2\x85"
            "b");  // C1 is not ASCII
}

TEST(ToLower, FullCaseMapping) {
  EXPECT_EQ(ToLower("HeLLo"), "hello");
  EXPECT_EQ(ToLower("CAF\xc3\x89"), "caf\xc3\xa9");
  // Final sigma: ΟΔΟΣ -> οδος with ς at the end; Σ inside a word -> σ.
  EXPECT_EQ(ToLower("\xce\x9f\xce\x94\xce\x9f\xce\xa3"), "\xce\xbf\xce\xb4\xce\xbf\xcf\x82");
  EXPECT_EQ(ToLower("\xce\xa3\xce\x91"), "\xcf\x83\xce\xb1");  // ΣΑ -> σα
  // İ (U+0130) -> i + U+0307 (SpecialCasing, not the Turkish locale).
  EXPECT_EQ(ToLower("\xc4\xb0"), "i\xcc\x87");
  EXPECT_EQ(ToLower("I"), "i");
  EXPECT_EQ(ToLower("\xe2\x84\xaa"), "k");         // Kelvin sign
  EXPECT_EQ(ToLower("\xe1\xba\x9e"), "\xc3\x9f");  // ẞ -> ß
  EXPECT_EQ(ToLower("\xc3\x9f"), "\xc3\x9f");      // ß stays
}

TEST(TokenizeDocument, SameRulesAsQueries) {
  EXPECT_EQ(TokenizeDocument("The get-together, at 5pm!"),
            (std::vector<std::string>{"the", "gettogether", "at", "5pm"}));
  EXPECT_EQ(TokenizeDocument("say\"hi\" C++ -- ***"), (std::vector<std::string>{"say", "hi", "c"}));
  EXPECT_EQ(TokenizeDocument("\xce\x9f\xce\x94\xce\x9f\xce\xa3 \xce\xa3\xce\x91"),
            (std::vector<std::string>{"\xce\xbf\xce\xb4\xce\xbf\xcf\x82", "\xcf\x83\xce\xb1"}));
  EXPECT_EQ(TokenizeDocument("snake_case\x01word"), (std::vector<std::string>{"snake_caseword"}));
  EXPECT_TRUE(TokenizeDocument("  ...  ").empty());
}

std::vector<std::string> Terms(const TermList& list) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < list.size(); ++i) out.emplace_back(list[i]);
  return out;
}

// The fast path (ASCII pieces without ICU) gives exactly the general path's
// terms.
void ExpectSameAsGeneral(const std::string& text) {
  TermList list;
  TokenizeDocumentInto(text, &list);
  EXPECT_EQ(Terms(list), TokenizeDocument(text)) << "text: " << testing::PrintToString(text);
}

TEST(TokenizeDocumentInto, TrickyInputs) {
  const std::vector<std::string> cases = {"",
                                          " ",
                                          "a",
                                          "The get-together, at 5pm!",
                                          "don't stop",
                                          "O'Neil's",
                                          "C++ -- ***",
                                          "x86_64 __init__ 3.14 1,000",
                                          "MiXeD CaSe WORDS",
                                          "tab\there\nnew\vline\fform\rret",
                                          "say\"hi\" \"\"",
                                          std::string("nul\0inside", 10),
                                          "ctl\x01\x1c\x7f"
                                          "end",
                                          "caf\xc3\xa9 CAFE\xcc\x81",
                                          "e\xcc\x81",
                                          "=\xcc\xb8 <\xcc\xb8 >\xcc\xb8",  // U+0338 composes
                                          " \xcc\x81lead",
                                          "\"\xcc\x81",
                                          "a\xc2\xa0"
                                          "b",
                                          "hello\xe2\x80\x8bworld",
                                          "\xef\xbb\xbf"
                                          "bom",
                                          "a\xe3\x80\x80"
                                          "b\xe2\x80\xa8"
                                          "c",
                                          "\xc4\xb0stanbul \xce\x9f\xce\x94\xce\x9f\xce\xa3",
                                          "bad\xff"
                                          "byte",
                                          "trunc\xe2\x82",
                                          "\xe2\x82 x",
                                          "\xc3",
                                          "x\xc3\"y",
                                          "\xe2\x80\x94",
                                          "\xef\xbc\xa1\xef\xbc\xa2",
                                          "\xf0\x9f\x98\x80smile",
                                          "a\xcc\x81\xcc\xa3 stacked",
                                          "  leading and trailing  ",
                                          "...",
                                          "a.b.c",
                                          "\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d"};
  for (const std::string& text : cases) ExpectSameAsGeneral(text);
}

TEST(TokenizeDocumentInto, RandomInputs) {
  std::mt19937_64 rng(42);
  // ASCII of every class and multi-byte pieces, valid and not.
  const std::vector<std::string> pieces = {"a",
                                           "Z",
                                           "q",
                                           "0",
                                           "9",
                                           "_",
                                           "'",
                                           "-",
                                           ".",
                                           ",",
                                           "!",
                                           "\"",
                                           "(",
                                           "~",
                                           " ",
                                           "  ",
                                           "\t",
                                           "\n",
                                           "\r",
                                           "\v",
                                           "\f",
                                           std::string(1, '\0'),
                                           "\x01",
                                           "\x1f",
                                           "\x7f",
                                           "\xc3\xa9",
                                           "\xcc\x81",
                                           "\xcc\xb8",
                                           "=",
                                           "<",
                                           "\xc2\xa0",
                                           "\xe2\x80\x8b",
                                           "\xef\xbb\xbf",
                                           "\xe2\x80\xa8",
                                           "\xe3\x80\x80",
                                           "\xc4\xb0",
                                           "\xce\xa3",
                                           "\xff",
                                           "\xc3",
                                           "\xe2\x82",
                                           "\xf0\x9f\x98\x80",
                                           "\xe1\xba\x9e",
                                           "\xe2\x84\xaa",
                                           "Hello",
                                           "WORLD",
                                           "o'clock"};
  for (int i = 0; i < 3000; ++i) {
    std::string text;
    const std::size_t n = rng() % 24;
    for (std::size_t j = 0; j < n; ++j) text += pieces[rng() % pieces.size()];
    ExpectSameAsGeneral(text);
    if (HasFailure()) return;
  }
}

TEST(TokenizeDocumentInto, AppendsAfterExistingTerms) {
  TermList list;
  TokenizeDocumentInto("First words", &list);
  TokenizeDocumentInto("caf\xc3\xa9 AND more", &list);
  TokenizeDocumentInto("", &list);
  TokenizeDocumentInto("last", &list);
  EXPECT_EQ(Terms(list),
            (std::vector<std::string>{"first", "words", "caf\xc3\xa9", "and", "more", "last"}));
  list.clear();
  EXPECT_EQ(list.size(), 0u);
}

}  // namespace
}  // namespace engram::text
