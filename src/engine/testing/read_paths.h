// Reads of one selection on several paths, for tests that check the paths
// agree (expiry_test.cc, the supersession fixture; tests only): the ids a
// search and a listing show, and the figures Count and the `agent_id`
// facet give.
#ifndef ENGRAM_ENGINE_TESTING_READ_PATHS_H_
#define ENGRAM_ENGINE_TESTING_READ_PATHS_H_

#include <cstdint>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "engram/engine.h"

namespace engram::testing {

using Ids = std::set<std::string>;

// The ids of the hits `request` gets from `collection`.
inline Ids SearchedIds(Engine& engine, const std::string& collection,
                       const SearchRequest& request) {
  StatusOr<SearchResponse> s = engine.Search(collection, request);
  EXPECT_TRUE(s.ok() && !s->rejected) << (s.ok() ? s->rejected->message : s.status().message());
  Ids ids;
  if (s.ok()) {
    for (const SearchHit& h : s->hits) ids.insert(h.id);
  }
  return ids;
}

// The ids `list` shows, every page of it.
inline Ids ListedIds(Engine& engine, const std::string& collection, ListRequest list) {
  Ids ids;
  do {
    StatusOr<ListResponse> page = engine.List(collection, list);
    EXPECT_TRUE(page.ok() && !page->rejected);
    if (!page.ok() || page->rejected) break;
    for (const ListedRecord& r : page->records) ids.insert(r.id);
    list.page_token = page->next_page_token;
  } while (!list.page_token.empty());
  return ids;
}

// Count and the `agent_id` facet's counts of `selection` both number `n`.
inline void ExpectCounted(Engine& engine, const std::string& collection,
                          const RecordSelection& selection, std::uint64_t n) {
  StatusOr<CountResponse> count = engine.Count(collection, selection);
  EXPECT_TRUE(count.ok() && !count->rejected);
  if (count.ok()) {
    EXPECT_EQ(count->count, n);
  }
  FacetRequest facets;
  facets.selection = selection;
  facets.field = "agent_id";
  StatusOr<FacetResponse> f = engine.Facets(collection, facets);
  EXPECT_TRUE(f.ok() && !f->rejected);
  std::uint64_t faceted = 0;
  if (f.ok()) {
    for (const FacetValue& v : f->values) faceted += v.count;
  }
  EXPECT_EQ(faceted, n);
}

}  // namespace engram::testing

#endif  // ENGRAM_ENGINE_TESTING_READ_PATHS_H_
