#include "base/unicode.h"

#include <gtest/gtest.h>

namespace engram {
namespace {

TEST(Unicode, Validates) {
  EXPECT_TRUE(IsValidUtf8("plain"));
  EXPECT_TRUE(IsValidUtf8("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"));
  EXPECT_FALSE(IsValidUtf8("\xff"));
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));      // overlong
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));  // surrogate
  EXPECT_FALSE(IsValidUtf8("\xe2\x82"));      // truncated
  EXPECT_EQ(EscapeInvalidUtf8("a\xff"
                              "b\xc3\xa9"),
            "a\\xFFb\xc3\xa9");
}

TEST(Unicode, SimpleCaseFolding) {
  EXPECT_EQ(FoldCase("Hello WORLD"), "hello world");
  EXPECT_EQ(FoldCase("\xc3\x89t\xc3\xa9"), "\xc3\xa9t\xc3\xa9");  // Été
  EXPECT_EQ(FoldCase("\xce\xa3\xcf\x82"), "\xcf\x83\xcf\x83");    // Σς -> σσ
  EXPECT_EQ(FoldCase("\xc3\x9f"), "\xc3\x9f");                    // ß stays (simple)
  EXPECT_EQ(FoldCase("\xe1\xba\x9e"), "\xc3\x9f");                // ẞ -> ß
  EXPECT_EQ(FoldCase("K"), "k");
  EXPECT_EQ(FoldCase("\xe2\x84\xaa"), "k");  // Kelvin sign
}

TEST(Unicode, Trim) {
  EXPECT_EQ(TrimWhitespace("  a b \t\n"), "a b");
  EXPECT_EQ(TrimWhitespace("\xc2\xa0x\xe3\x80\x80"), "x");  // NBSP, ideographic space
  EXPECT_EQ(TrimWhitespace("   "), "");
  EXPECT_EQ(TrimWhitespace(""), "");
}

TEST(Unicode, Misc) {
  EXPECT_EQ(AsciiLower("AbC\xc3\x89"), "abc\xc3\x89");
  EXPECT_EQ(CodePointCount("a\xc3\xa9\xf0\x9f\x98\x80"), 3u);
}

}  // namespace
}  // namespace engram
