#include "text/query/aliases.h"

#include "base/json.h"
#include "base/path.h"
#include "text/tokenize/tokenizer.h"

namespace engram::text {

AliasTable::AliasTable(std::vector<Entry> entries) {
  for (Entry& e : entries) {
    if (exact_.count(e.first)) continue;
    exact_.emplace(e.first, entries_.size());
    std::vector<std::string> terms = TokenizeDocument(e.first);
    if (terms.size() == 1) {
      std::vector<std::string>& alts = by_term_[terms[0]];
      alts.insert(alts.end(), e.second.begin(), e.second.end());
    }
    entries_.push_back(std::move(e));
  }
}

Checked<AliasTable> AliasTable::Parse(std::string_view json_text) {
  json::ReadOptions options;
  options.max_bytes = std::size_t{1} << 20;
  json::ReadResult doc = json::Read(json_text, options);
  auto fail = [](const Path& path, const std::string& what) {
    std::string where = path.Dotted("");
    return Diagnostic{400, "query.aliases", where,
                      "aliases" + (where.empty() ? std::string() : " at " + where) + ": " + what};
  };
  if (!doc.ok()) {
    std::string what = doc.error->detail;
    if (doc.error->fault == json::ReadFault::kTooLarge) what = "larger than 1 MiB";
    if (doc.error->fault == json::ReadFault::kDuplicateKey) {
      what = "duplicate key '" + doc.error->token + "'";
    }
    return fail(doc.error->path, what);
  }
  if (!doc.value.is_object()) {
    return fail(Path(), "expected an object mapping a term to a list of alternatives, got " +
                            std::string(json::TypeName(doc.value)));
  }
  std::vector<Entry> entries;
  for (const auto& [key, value] : doc.value.items()) {
    Path at = Path().Key(key);
    if (!value.is_array()) {
      return fail(at, "expected a list of alternatives, got " + std::string(json::TypeName(value)));
    }
    std::vector<std::string> alts;
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (!value[i].is_string()) {
        return fail(at.Index(i), "expected a string, got " + std::string(json::TypeName(value[i])));
      }
      alts.push_back(value[i].get<std::string>());
    }
    entries.emplace_back(key, std::move(alts));
  }
  return AliasTable(std::move(entries));
}

const std::vector<std::string>* AliasTable::FindExact(std::string_view key) const {
  auto it = exact_.find(key);
  return it == exact_.end() ? nullptr : &entries_[it->second].second;
}

const std::vector<std::string>* AliasTable::FindTerm(std::string_view term) const {
  auto it = by_term_.find(term);
  return it == by_term_.end() ? nullptr : &it->second;
}

}  // namespace engram::text
