#include "equal_work.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include <fmt/core.h>

#include "text/index/stemmer.h"

namespace engram::bench {

std::string_view SemanticsName(Semantics s) {
  return s == Semantics::kEngram ? "engram" : "OR";
}

std::vector<std::string> QueryTerms(const text::DefaultQuery& query, text::Stemmer stemmer) {
  if (!query.root) throw std::runtime_error("query `" + query.raw + "` keeps no terms");
  const text::Node& root = *query.root;
  std::vector<std::string> terms;
  std::vector<std::string> stems;
  auto add = [&](const std::string& term) {
    std::string stem = text::Stem(stemmer, term);
    if (std::find(stems.begin(), stems.end(), stem) != stems.end()) return;
    stems.push_back(std::move(stem));
    terms.push_back(term);
  };
  if (root.kind == text::Node::Kind::kTerm) {
    add(root.text);
    return terms;
  }
  bool group = root.kind == text::Node::Kind::kAnd || root.kind == text::Node::Kind::kOr;
  for (const text::Node& c : root.children) {
    group = group && c.kind == text::Node::Kind::kTerm;
    if (group) add(c.text);
  }
  if (!group) {
    throw std::runtime_error("query `" + query.raw +
                             "` is not a list of terms: " + text::Explain(query));
  }
  return terms;
}

std::string OrQueryText(const std::vector<std::string>& terms) {
  std::string q;
  for (const std::string& t : terms) {
    if (!q.empty()) q += " OR ";
    q += t;
  }
  return q;
}

std::vector<std::uint32_t> FillFromPartial(std::vector<std::uint32_t> strict,
                                           const std::vector<std::uint32_t>& partial,
                                           std::size_t k) {
  const std::size_t n_strict = strict.size();
  for (std::uint32_t d : partial) {
    if (strict.size() >= k) break;
    if (std::find(strict.begin(), strict.begin() + static_cast<std::ptrdiff_t>(n_strict), d) ==
        strict.begin() + static_cast<std::ptrdiff_t>(n_strict)) {
      strict.push_back(d);
    }
  }
  return strict;
}

void Agreement::Add(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  ++queries;
  if (a == b) ++same_order;
  std::vector<std::uint32_t> sa = a, sb = b;
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  if (sa == sb) ++same_set;
  std::vector<std::uint32_t> both;
  std::set_intersection(sa.begin(), sa.end(), sb.begin(), sb.end(), std::back_inserter(both));
  shared += both.size();
}

std::string Agreement::Format() const {
  if (queries == 0) return "—";
  auto pct = [&](std::size_t n) {
    return 100.0 * static_cast<double>(n) / static_cast<double>(queries);
  };
  return fmt::format("{:.1f} % / {:.1f} %", pct(same_set), pct(same_order));
}

std::string Agreement::FormatShared() const {
  if (queries == 0) return "—";
  return fmt::format("{:.2f}", static_cast<double>(shared) / static_cast<double>(queries));
}

}  // namespace engram::bench
