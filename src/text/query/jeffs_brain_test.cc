// The `jeffs-brain` profile: all 19 canonical fixtures (testdata/cases.json,
// a copy of ../shared/data/jeffs_brain/query-parser/cases.json) byte for
// byte, and the rules of QUERY_DSL_JEFFS_BRAIN.md the fixtures do not reach.
#include "text/query/jeffs_brain.h"

#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "base/json.h"
#include "base/test_shared_data.h"
#include "text/query/query.h"

namespace engram::text {
namespace {

std::string Ast(std::string_view text, const AliasTable* aliases = nullptr) {
  QueryOptions o;
  o.profile = Profile::kJeffsBrain;
  o.aliases = aliases;
  Checked<Query> q = ParseQuery(text, o);
  EXPECT_TRUE(q.ok());
  return json::Dump(ToJson(q.value()));
}

std::string Fts(std::string_view text, const AliasTable* aliases = nullptr) {
  QueryOptions o;
  o.profile = Profile::kJeffsBrain;
  o.aliases = aliases;
  Checked<Query> q = ParseQuery(text, o);
  EXPECT_TRUE(q.ok());
  Checked<std::string> s = CompileToFts5(q.value());
  EXPECT_TRUE(s.ok());
  return s.value();
}

constexpr const char* kFixtures = ENGRAM_SOURCE_DIR "/src/text/query/testdata/cases.json";

std::string ReadFixtures() {
  std::ifstream in(kFixtures, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << kFixtures;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

json::Value Fixtures() {
  json::ReadResult doc = json::Read(ReadFixtures());
  EXPECT_TRUE(doc.ok()) << "cannot read " << kFixtures;
  return doc.value;
}

TEST(JeffsBrainFixtures, ShippedCopyEqualsTheCanonicalFile) {
  ENGRAM_READ_SHARED_OR_SKIP(canonical, ENGRAM_SOURCE_DIR, "jeffs_brain/query-parser/cases.json");
  EXPECT_EQ(ReadFixtures(), canonical);
}

TEST(JeffsBrainFixtures, AllNineteenCasesByteForByte) {
  json::Value doc = Fixtures();
  ASSERT_TRUE(doc.is_object());
  std::size_t count = 0;
  for (const json::Value& c : doc["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    EXPECT_EQ(Ast(c["input"].get<std::string>()), json::Dump(c["expectedAst"]));
    ++count;
  }
  for (const json::Value& c : doc["compileToFTS"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    EXPECT_EQ(Fts(c["input"].get<std::string>()), c["expectedFTS"].get<std::string>());
    ++count;
  }
  EXPECT_EQ(count, 19u);
}

TEST(JeffsBrain, LengthInUtf16Units) {
  EXPECT_EQ(Ast("n\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80x"),
            R"({"raw":"né 日本 😀x","tokens":[{"kind":"term","text":"😀x"}],"hasOperators":false})");
}

TEST(JeffsBrain, PrefixesAndStars) {
  EXPECT_EQ(Fts("kube*, hello*world kube** * alpha"), "kube OR helloworld OR kube* OR alpha");
}

TEST(JeffsBrain, OperatorModeKeepsLowerCaseWords) {
  EXPECT_EQ(Fts("\"x\" foo and bar"), "\"x\" OR foo OR and OR bar");
}

TEST(JeffsBrain, PendingOperatorRules) {
  // An empty phrase keeps the pending operator; a word that strips to nothing resets it.
  EXPECT_EQ(Fts("foo NOT \"\" bar"), "foo AND NOT bar");
  EXPECT_EQ(Fts("foo NOT -- bar"), "foo OR bar");
  EXPECT_EQ(Fts("foo AND OR bar"), "foo OR bar");  // a later operator overwrites
  EXPECT_EQ(Fts("foo bar AND"), "foo OR bar");     // a trailing operator is lost
  EXPECT_EQ(
      Ast("NOT alpha"),
      R"({"raw":"NOT alpha","tokens":[{"kind":"term","text":"alpha","operator":"NOT"}],"hasOperators":true})");
}

TEST(JeffsBrain, ControlCharactersAndDuplicatesKept) {
  EXPECT_EQ(Ast("foo\x1c"
                "bar caf\xc3\xa9 CAF\xc3\x89"),
            "{\"raw\":\"foo\\u001cbar café CAFÉ\",\"tokens\":[{\"kind\":\"term\",\"text\":"
            "\"foo\\u001cbar\"},{\"kind\":\"term\",\"text\":\"café\"},{\"kind\":\"term\","
            "\"text\":\"café\"}],\"hasOperators\":false}");
}

TEST(JeffsBrain, PhrasesAreTrimmedAndLowerCased) {
  EXPECT_EQ(Fts("\" Hello, World \" \"unterminated PHRASE"),
            "\"hello, world\" OR \"unterminated phrase\"");
}

TEST(JeffsBrain, Aliases) {
  AliasTable aliases({{"dude", {"oude"}},
                      {"ts", {"TypeScript", "type-script", "typescript", "!!"}},
                      {"K8s", {"kubernetes"}},
                      {"k8s", {"kube"}},
                      {"void", {"--", "  "}}});
  EXPECT_EQ(Fts("dude", &aliases), "oude");
  EXPECT_EQ(Fts("foo NOT ts", &aliases), "foo AND NOT typescript OR \"type script\"");
  EXPECT_EQ(Fts("K8s", &aliases), "kubernetes");            // the exact cleaned text first
  EXPECT_EQ(Fts("K8S", &aliases), "kube");                  // then the lower-case form
  EXPECT_EQ(Fts("void", &aliases), "void");                 // every alternative collapses
  EXPECT_EQ(Fts("\"ts\" ts*", &aliases), "\"ts\" OR ts*");  // phrases, prefixes untouched
}

}  // namespace
}  // namespace engram::text
