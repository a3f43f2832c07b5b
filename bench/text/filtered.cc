// Filtered top-10 on the Debian packages (harness.h: RunFiltered).
#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include <fmt/core.h>
#include <roaring/roaring.hh>
#include <xapian.h>

#include "common/format.h"
#include "debian_cases.h"
#include "filter/compiler.h"
#include "harness.h"
#include "schema/record.h"
#include "schema/schema.h"

namespace engram::bench {
namespace {

// Xapian's form of a filter case: boolean terms OR-ed, or a value range.
Xapian::Query XapianFilter(const FilterCase& c) {
  if (c.xapian_min_size >= 0) {
    return Xapian::Query(Xapian::Query::OP_VALUE_GE, 0,
                         Xapian::sortable_serialise(static_cast<double>(c.xapian_min_size)));
  }
  return Xapian::Query(Xapian::Query::OP_OR, c.xapian_terms.begin(), c.xapian_terms.end());
}

}  // namespace

void RunFiltered(const Options& opt, const std::vector<Package>& pkgs,
                 const std::vector<std::string>& queries, Engines& e) {
  auto schema = DebianSchema();
  std::vector<Record> records;
  for (const Package& p : pkgs) {
    json::Value j = json::Value::object();
    j["id"] = p.id;
    if (!p.section.empty()) j["section"] = p.section;
    if (!p.priority.empty()) j["priority"] = p.priority;
    if (p.installed_size_kib >= 0) j["installed_size_kib"] = p.installed_size_kib;
    if (!p.tags.empty()) j["tags"] = p.tags;
    auto rec = ParseRecord(j, *schema);
    if (!rec.ok()) throw std::runtime_error("record " + p.id + ": " + rec.diagnostic().message);
    records.push_back(std::move(rec.value()));
  }
  fmt::print("\n## Filtered top-10 on the Debian packages ({} queries each)\n\n", queries.size());
  fmt::print(
      "Xapian: engram's terms and semantics, both backends. engines: engram (this tree); {}\n{}\n",
      PeerVersions(), LoadLine());
  fmt::print(
      "| field | aim | filter (engram `vector_filter`) | allowed | selectivity | engram p50 | "
      "engram p99 | engram exhaustive (oracle) p50 | Xapian InMemory p50 / p99 | Xapian glass "
      "p50 / p99 | faster Xapian / engram p50 | Xapian same top-10 (set / order) | = oracle "
      "|\n");
  fmt::print("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  std::size_t total_bad = 0, same_filters = 0, cases = 0;
  std::vector<text::DefaultQuery> parsed;
  std::vector<std::vector<std::string>> terms;
  for (const std::string& q : queries) {
    parsed.push_back(Parse(q));
    terms.push_back(QueryTerms(parsed.back(), kStemmer));
  }
  for (const FilterCase& c : DebianFilters()) {
    ++cases;
    auto compiled = filter::Compile(filter::Dialect::kVectorFilter, c.filter, schema);
    if (!compiled.ok()) throw std::runtime_error("filter: " + compiled.diagnostic().message);
    roaring::Roaring allowed;
    for (std::size_t i = 0; i < records.size(); ++i) {
      if (compiled.value().program.Matches(records[i].slots)) {
        allowed.add(static_cast<std::uint32_t>(i));
      }
    }
    allowed.runOptimize();
    // Xapian's filter, checked to select the same documents in both backends.
    const Xapian::Query xf = XapianFilter(c);
    bool same = true;
    for (const auto& xap : e.xapian) {
      std::vector<std::uint32_t> sel = xap->Select(xf);
      same = same && roaring::Roaring(sel.size(), sel.data()) == allowed;
    }
    same_filters += same ? 1 : 0;
    if (!same) fmt::print(stderr, "Xapian's filter selects other documents: {}\n", c.filter);
    XapianPeer& mem = *e.xapian[static_cast<int>(XapianBackend::kInMemory)];
    std::size_t ok = 0;
    Agreement agree;
    for (std::size_t i = 0; i < parsed.size(); ++i) {
      auto hits = e.engram->Search(parsed[i], kTopK, &allowed);
      ok += SameHits(hits, e.engram->SearchExhaustive(parsed[i], kTopK, &allowed)) ? 1 : 0;
      agree.Add(Ids(hits), mem.Search(terms[i], Semantics::kEngram, kTopK, &xf));
    }
    total_bad += parsed.size() - ok;
    Latency le = Measure(queries.size(), opt.passes, [&](std::size_t i) {
      auto hits = e.engram->Search(parsed[i], kTopK, &allowed);
      if (hits.size() > kTopK) std::abort();
    });
    Latency lo = Measure(queries.size(), 1, [&](std::size_t i) {
      (void)e.engram->SearchExhaustive(parsed[i], kTopK, &allowed);
    });
    Latency lx[2];
    for (int b = 0; b < 2; ++b) {
      lx[b] = Measure(queries.size(), opt.passes, [&](std::size_t i) {
        (void)e.xapian[b]->Search(terms[i], Semantics::kEngram, kTopK, &xf);
      });
    }
    double sel =
        100.0 * static_cast<double>(allowed.cardinality()) / static_cast<double>(records.size());
    std::string shown = c.filter.size() > 70 ? c.filter.substr(0, 67) + "...}" : c.filter;
    fmt::print(
        "| `{}` | {} | `{}` | {} | {:.2f} % | {} | {} | {} | {} / {} | {} / {} | {:.2f}x | {} | "
        "{}/{} |\n",
        c.field, c.target, shown, Thousands(static_cast<double>(allowed.cardinality())), sel,
        Us(le.p50_us), Us(le.p99_us), Us(lo.p50_us), Us(lx[0].p50_us), Us(lx[0].p99_us),
        Us(lx[1].p50_us), Us(lx[1].p99_us), std::min(lx[0].p50_us, lx[1].p50_us) / le.p50_us,
        agree.Format(), ok, parsed.size());
    std::fflush(stdout);
  }
  fmt::print(
      "\nfiltered results different from the oracle: {}; Xapian's filter selects exactly "
      "engram's allowed-set in {} of {} cases (both backends)\n",
      total_bad, same_filters, cases);
}

}  // namespace engram::bench
