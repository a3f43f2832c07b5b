#include "text/query/stopwords.h"

#include <cstdlib>
#include <string>
#include <unordered_set>

#include "base/json.h"

namespace engram::text {
namespace {

// Adds the strings of one embedded list. The files are part of the build and
// checked by stopwords_test, so a malformed one is a build defect: abort
// rather than search with a silently empty list.
void AddList(std::string_view json_text, std::unordered_set<std::string>* set) {
  json::ReadResult doc = json::Read(json_text);
  if (!doc.ok() || !doc.value.is_array()) std::abort();
  for (const json::Value& v : doc.value) {
    if (!v.is_string()) std::abort();
    set->insert(v.get<std::string>());
  }
}

const std::unordered_set<std::string>& Stopwords() {
  static const std::unordered_set<std::string>* set = [] {
    auto* s = new std::unordered_set<std::string>();
    AddList(EnglishStopwordsJson(), s);
    AddList(DutchStopwordsJson(), s);
    return s;
  }();
  return *set;
}

}  // namespace

bool IsStopword(std::string_view word) {
  return Stopwords().count(std::string(word)) > 0;
}

}  // namespace engram::text
