// Caller-supplied aliases (QUERY_DSL.md §3, QUERY_DSL_JEFFS_BRAIN.md
// "Aliases"): a map from a term to its alternatives, applied to bare terms
// only. The table keeps the entries as written; each profile looks them up
// its own way.
#ifndef ENGRAM_TEXT_QUERY_ALIASES_H_
#define ENGRAM_TEXT_QUERY_ALIASES_H_

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engram/diagnostic.h"

namespace engram::text {

class AliasTable {
 public:
  using Entry = std::pair<std::string, std::vector<std::string>>;

  AliasTable() = default;
  // Entries in table order. Later entries with the same key are ignored.
  explicit AliasTable(std::vector<Entry> entries);

  // A JSON object `{"term": ["alternative", ...], ...}` read with the strict
  // reader (at most 1 MiB, no duplicate keys). Diagnostic kind
  // "query.aliases", with the JSON path of the offending member.
  static Checked<AliasTable> Parse(std::string_view json_text);

  // The alternatives listed under `key` exactly, or null (`jeffs-brain`).
  const std::vector<std::string>* FindExact(std::string_view key) const;

  // The alternatives of the `default`-profile term `term` (lower-cased,
  // stripped): those of every key that tokenises to exactly `term`, in table
  // order. Keys that tokenise to nothing or to several terms can never
  // match a single term and are not used.
  const std::vector<std::string>* FindTerm(std::string_view term) const;

  bool empty() const { return entries_.empty(); }
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
  std::map<std::string, std::size_t, std::less<>> exact_;                 // key -> entry
  std::map<std::string, std::vector<std::string>, std::less<>> by_term_;  // term -> alts
};

}  // namespace engram::text

#endif  // ENGRAM_TEXT_QUERY_ALIASES_H_
