#include "text/index/stemmer.h"

#include <memory>

#include <libstemmer.h>

namespace engram::text {
namespace {

struct StemmerDeleter {
  void operator()(sb_stemmer* s) const { sb_stemmer_delete(s); }
};
using StemmerPtr = std::unique_ptr<sb_stemmer, StemmerDeleter>;

// libstemmer's sb_stemmer keeps per-call state, so it must not be shared
// between threads: one per thread and language.
sb_stemmer* ThreadStemmer(Stemmer stemmer) {
  thread_local StemmerPtr english(sb_stemmer_new("english", "UTF_8"));
  thread_local StemmerPtr dutch(sb_stemmer_new("dutch", "UTF_8"));
  return stemmer == Stemmer::kEnglish ? english.get() : dutch.get();
}

}  // namespace

std::string Stem(Stemmer stemmer, std::string_view term) {
  if (stemmer == Stemmer::kNone || term.empty()) return std::string(term);
  sb_stemmer* s = ThreadStemmer(stemmer);
  if (s == nullptr) return std::string(term);  // out of memory in libstemmer
  const sb_symbol* out = sb_stemmer_stem(s, reinterpret_cast<const sb_symbol*>(term.data()),
                                         static_cast<int>(term.size()));
  int n = sb_stemmer_length(s);
  if (out == nullptr || n <= 0) return std::string(term);
  return std::string(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
}

}  // namespace engram::text
