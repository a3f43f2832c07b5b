// Put and Remove against a model built the plain way: every live document's
// fields through TokenizeDocument (the general tokeniser, no fast path) and
// Stem, grouped into postings with std::map. After random puts (new,
// replacing, out of document order) and removes, the index's storage must
// equal the model's: dictionary, postings with positions, bounds, lengths,
// forward lists and surface words; and the image must round-trip.
#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "text/index/stemmer.h"
#include "text/index/text_index.h"
#include "text/tokenize/tokenizer.h"

namespace engram::text {
namespace {

std::string RandomText(std::mt19937_64& rng) {
  static const std::vector<std::string> words = {"the",
                                                 "Running",
                                                 "runners",
                                                 "RUN",
                                                 "gardens",
                                                 "garden's",
                                                 "C++",
                                                 "e-mail",
                                                 "don't",
                                                 "3.14",
                                                 "x86_64",
                                                 "\"quoted\"",
                                                 "caf\xc3\xa9",
                                                 "CAFE\xcc\x81",
                                                 "\xce\x9f\xce\x94\xce\x9f\xce\xa3",
                                                 "\xc4\xb0stanbul",
                                                 "na\xc3\xafve",
                                                 "zero\xe2\x80\x8bwidth",
                                                 "a\xc2\xa0"
                                                 "b",
                                                 "\xe2\x80\x94",
                                                 "...",
                                                 "--",
                                                 "__init__",
                                                 "tab\tsep",
                                                 "line\nbreak",
                                                 "\x01"
                                                 "ctl",
                                                 "\xff"
                                                 "bad",
                                                 "\xe2\x82",
                                                 "hedgehogs",
                                                 "hedgehog",
                                                 "internationalization",
                                                 "internationally",
                                                 "\xef\xbc\xa1"
                                                 "BC"};
  std::string t;
  const std::size_t n = rng() % 12;
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) t += rng() % 5 == 0 ? "  " : " ";
    t += words[rng() % words.size()];
  }
  return t;
}

struct ModelPosting {
  std::vector<std::uint32_t> tfs;
  std::vector<std::uint32_t> positions;
};

// `exact_bounds`: the per-term and per-block pruning bounds must equal the
// model's (a loaded index); otherwise they must bound it (Remove leaves them
// loose). The blocks' tf~ are taken at the index's bound_avglen.
void CheckAgainstModel(const TextIndex& index,
                       const std::map<std::uint32_t, std::vector<std::string>>& docs,
                       bool exact_bounds) {
  const IndexData& d = index.data();
  const std::size_t nf = d.num_fields();
  const Stemmer stemmer = d.options.stemmer;
  std::map<std::string, std::map<std::uint32_t, ModelPosting>> postings;
  std::map<std::string, std::pair<std::string, std::uint32_t>> surface;  // word -> (term, docs)
  std::map<std::uint32_t, std::set<std::string>> doc_words;
  std::vector<std::uint64_t> total(nf, 0);
  ASSERT_EQ(index.size(), docs.size());
  for (const auto& [doc, texts] : docs) {
    ASSERT_TRUE(index.Contains(doc));
    for (std::size_t f = 0; f < nf; ++f) {
      const std::vector<std::string> tokens =
          f < texts.size() ? TokenizeDocument(texts[f]) : std::vector<std::string>{};
      EXPECT_EQ(d.length(doc, f), tokens.size());
      total[f] += tokens.size();
      for (std::size_t pos = 0; pos < tokens.size(); ++pos) {
        const std::string term = Stem(stemmer, tokens[pos]);
        ModelPosting& p = postings[term][doc];
        p.tfs.resize(nf, 0);
        ++p.tfs[f];
        p.positions.push_back(static_cast<std::uint32_t>(pos));
        if (stemmer != Stemmer::kNone) {
          auto& s = surface[tokens[pos]];
          s.first = term;
          if (doc_words[doc].insert(tokens[pos]).second) ++s.second;
        }
      }
    }
  }
  EXPECT_EQ(d.total_len, total);
  const std::vector<std::uint32_t> ordered = d.TermsInTextOrder();
  ASSERT_EQ(ordered.size(), postings.size());
  ASSERT_EQ(d.term_ids.size(), postings.size());
  EXPECT_EQ(d.terms.size(), stemmer == Stemmer::kNone ? postings.size() : 0);
  std::map<std::uint32_t, std::vector<std::uint32_t>> forward;
  auto it = ordered.begin();
  for (const auto& [term, by_doc] : postings) {
    const std::uint32_t id = *it++;
    EXPECT_EQ(d.Find(term), id);
    EXPECT_EQ(d.term_text[id], term);
    const TermPostings& p = d.postings[id];
    ASSERT_EQ(p.size(), by_doc.size()) << term;
    std::vector<std::uint32_t> max_tf(nf, 0), min_len(nf, 0);
    std::vector<std::pair<std::size_t, std::size_t>> at;  // (block, i) per posting
    for (std::size_t b = 0; b < p.blocks.size(); ++b) {
      const PostingBlock& k = p.block(b);
      EXPECT_GT(k.size(), 0u) << term;
      EXPECT_LE(k.size(), TermPostings::kBlockPostings) << term;
      EXPECT_EQ(k.pos_start.size(), k.size() + 1) << term;
      EXPECT_EQ(k.pos_start.back(), k.positions.size()) << term;
      ASSERT_EQ(p.lasts.size(), p.blocks.size()) << term;
      EXPECT_EQ(p.lasts[b], k.docs.back()) << term;
      for (std::size_t i = 0; i < k.size(); ++i) at.emplace_back(b, i);
    }
    ASSERT_EQ(at.size(), by_doc.size()) << term;
    std::vector<float> block_t(p.blocks.size(), 0);  // the largest tf~ in each block
    std::size_t i = 0;
    for (const auto& [doc, mp] : by_doc) {
      const PostingBlock& k = p.block(at[i].first);
      const std::size_t j = at[i].second;
      EXPECT_EQ(k.docs[j], doc) << term;
      std::vector<std::uint32_t> positions;
      for (std::size_t f = 0; f < nf; ++f) {
        EXPECT_EQ(k.tfs[j * nf + f], mp.tfs[f]) << term << " doc " << doc;
        std::size_t n = 0;
        const std::uint32_t* pos = k.field_positions(j, f, nf, &n);
        positions.insert(positions.end(), pos, pos + n);
        if (mp.tfs[f] > 0) {
          max_tf[f] = std::max(max_tf[f], mp.tfs[f]);
          const std::uint32_t len = d.length(doc, f);
          min_len[f] = min_len[f] == 0 ? len : std::min(min_len[f], len);
        }
      }
      EXPECT_EQ(positions, mp.positions) << term << " doc " << doc;
      block_t[at[i].first] = std::max(block_t[at[i].first], d.BoundTf(doc, mp.tfs.data()));
      forward[doc].push_back(id);
      ++i;
    }
    ASSERT_EQ(p.block_max_t.size(), p.blocks.size()) << term;
    const float max_t = block_t.empty() ? 0 : *std::max_element(block_t.begin(), block_t.end());
    if (exact_bounds) {
      EXPECT_EQ(p.block_max_t, block_t) << term;
      EXPECT_EQ(p.max_t, max_t) << term;
      EXPECT_EQ(p.max_tf, max_tf) << term;
      EXPECT_EQ(p.min_len, min_len) << term;
    } else {
      for (std::size_t b = 0; b < block_t.size(); ++b) EXPECT_GE(p.block_max_t[b], block_t[b]);
      EXPECT_GE(p.max_t, max_t) << term;
      for (std::size_t f = 0; f < nf; ++f) {
        EXPECT_GE(p.max_tf[f], max_tf[f]) << term;
        if (max_tf[f] > 0) {  // 0 means "no posting": only a real minimum binds
          EXPECT_GT(p.min_len[f], 0u) << term;
          EXPECT_LE(p.min_len[f], min_len[f]) << term;
        }
      }
    }
  }
  for (auto& [doc, ids] : forward) {  // in no particular order
    std::vector<std::uint32_t> got;
    d.DocTerms(doc, &got);
    std::sort(got.begin(), got.end());
    std::sort(ids.begin(), ids.end());
    EXPECT_EQ(got, ids) << doc;
  }
  if (stemmer == Stemmer::kNone) return;
  ASSERT_EQ(d.surface.size(), surface.size());
  ASSERT_EQ(d.surface_ids.size(), surface.size());
  auto sit = d.surface.begin();
  for (const auto& [word, s] : surface) {
    ASSERT_EQ((*sit).first, word);
    EXPECT_EQ(d.term_text[(*sit).second], s.first) << word;
    ++sit;
    const std::uint32_t id = d.SurfaceIdOf(word);
    ASSERT_NE(id, FlatHash::kNone) << word;
    EXPECT_EQ(d.surface_words[id].text, word);
    EXPECT_EQ(d.surface_words[id].docs, s.second) << word;
    EXPECT_EQ(d.term_text[d.surface_words[id].term], s.first) << word;
  }
  for (const auto& [doc, words] : doc_words) {
    std::set<std::string> got;
    for (std::uint32_t id : d.doc_surface[doc]) got.insert(d.surface_words[id].text);
    EXPECT_EQ(got, words) << doc;
    EXPECT_EQ(d.doc_surface[doc].size(), words.size()) << doc;  // no duplicates
  }
}

TEST(PutEquivalence, RandomPutsAndRemovesMatchThePlainModel) {
  for (Stemmer stemmer : {Stemmer::kEnglish, Stemmer::kNone, Stemmer::kDutch}) {
    std::mt19937_64 rng(static_cast<std::uint64_t>(stemmer) + 11);
    TextIndexOptions o;
    o.fields = {{"title", 2.0}, {"body", 1.0}};
    o.stemmer = stemmer;
    TextIndex index(o);
    std::map<std::uint32_t, std::vector<std::string>> docs;
    for (int step = 0; step < 400; ++step) {
      const auto doc = static_cast<std::uint32_t>(rng() % 60);
      if (rng() % 5 == 0) {
        index.Remove(doc);
        docs.erase(doc);
      } else {
        std::vector<std::string> texts = {RandomText(rng), RandomText(rng)};
        if (rng() % 7 == 0) texts.pop_back();  // a missing trailing field is empty
        std::vector<std::string_view> views(texts.begin(), texts.end());
        index.Put(doc, views);
        docs[doc] = texts;
      }
      if (step % 50 == 49) {
        CheckAgainstModel(index, docs, false);
        if (HasFailure()) return;
        StatusOr<TextIndex> loaded = TextIndex::Load(index.Serialize(), 60);
        ASSERT_TRUE(loaded.ok()) << loaded.status().message();
        EXPECT_EQ(loaded->Serialize(), index.Serialize());
        CheckAgainstModel(*loaded, docs, true);
      }
    }
  }
}

}  // namespace
}  // namespace engram::text
