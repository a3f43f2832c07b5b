// Snowball stemming (libstemmer, Debian libstemmer-dev) of terms that
// TokenizeDocument produced: the English ("english", i.e. Porter2) and Dutch
// algorithms, or none. Applied alike to document terms, query terms and the
// words of phrases.
#ifndef ENGRAM_TEXT_INDEX_STEMMER_H_
#define ENGRAM_TEXT_INDEX_STEMMER_H_

#include <string>
#include <string_view>

#include "text/index/options.h"

namespace engram::text {

// The stem of `term` (lower-cased UTF-8) under `stemmer`; kNone returns the
// term. A stem is never empty: if the algorithm produced nothing, the term is
// kept. Thread-safe (each thread has its own libstemmer state).
std::string Stem(Stemmer stemmer, std::string_view term);

}  // namespace engram::text

#endif  // ENGRAM_TEXT_INDEX_STEMMER_H_
