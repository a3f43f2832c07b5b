// The English and Dutch stopword lists of Jeffs Brain (QUERY_DSL.md §2),
// compiled into the binary from the canonical JSON files shipped in
// stopwords/ (Apache-2.0, see stopwords/NOTICE). They apply to bare-word
// queries only.
#ifndef ENGRAM_TEXT_QUERY_STOPWORDS_H_
#define ENGRAM_TEXT_QUERY_STOPWORDS_H_

#include <string_view>

namespace engram::text {

// Whether lower-cased `word` is in the English or the Dutch list.
// Thread-safe; the set is built on first use.
bool IsStopword(std::string_view word);

// The embedded files, byte for byte (stopwords/en.json, stopwords/nl.json).
std::string_view EnglishStopwordsJson();
std::string_view DutchStopwordsJson();

}  // namespace engram::text

#endif  // ENGRAM_TEXT_QUERY_STOPWORDS_H_
