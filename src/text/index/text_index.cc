// TextIndex maintenance: Put (insert or replace) and Remove keep the postings,
// the per-term pruning bounds, the forward lists and the length statistics
// exact. Search lives in text/rank/search.cc, Serialize/Load in serialize.cc.
#include "text/index/text_index.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "text/index/stemmer.h"
#include "text/tokenize/tokenizer.h"

namespace engram::text {
namespace {}  // namespace

void RecomputeBounds(const IndexData& data, TermPostings& p) {
  const std::size_t nf = data.num_fields();
  p.max_tf.assign(nf, 0);
  p.min_len.assign(nf, 0);
  for (std::size_t i = 0; i < p.size(); ++i) {
    for (std::size_t f = 0; f < nf; ++f) {
      std::uint32_t tf = p.tf(i, f, nf);
      if (tf == 0) continue;
      std::uint32_t len = data.length(p.docs[i], f);
      p.max_tf[f] = std::max(p.max_tf[f], tf);
      p.min_len[f] = p.min_len[f] == 0 ? len : std::min(p.min_len[f], len);
    }
  }
}

namespace {

std::uint32_t TermId(IndexData& data, const std::string& term) {
  auto it = data.terms.find(term);
  if (it != data.terms.end()) return it->second;
  std::uint32_t id;
  if (!data.free_terms.empty()) {
    id = data.free_terms.back();
    data.free_terms.pop_back();
    data.term_text[id] = term;
  } else {
    id = static_cast<std::uint32_t>(data.postings.size());
    data.postings.emplace_back();
    data.term_text.push_back(term);
  }
  TermPostings& p = data.postings[id];
  p = TermPostings{};
  p.max_tf.assign(data.num_fields(), 0);
  p.min_len.assign(data.num_fields(), 0);
  data.terms.emplace(term, id);
  return id;
}

}  // namespace

const std::uint32_t* TermPostings::field_positions(std::size_t i, std::size_t field,
                                                   std::size_t num_fields,
                                                   std::size_t* count) const {
  std::size_t start = pos_start[i];
  for (std::size_t f = 0; f < field; ++f) start += tfs[i * num_fields + f];
  *count = tfs[i * num_fields + field];
  return positions.data() + start;
}

std::int64_t IndexData::Find(std::string_view term) const {
  auto it = terms.find(term);
  return it == terms.end() ? -1 : static_cast<std::int64_t>(it->second);
}

std::vector<std::uint32_t> IndexData::ExpandPrefix(std::string_view prefix) const {
  std::vector<std::uint32_t> ids;
  auto collect = [&](const auto& map, auto id_of) {
    for (auto it = map.lower_bound(prefix); it != map.end(); ++it) {
      if (std::string_view(it->first).substr(0, prefix.size()) != prefix) break;
      ids.push_back(id_of(it->second));
    }
  };
  if (stemmed()) {
    collect(surface, [](const SurfaceWord& w) { return w.term; });
  } else {
    collect(terms, [](std::uint32_t id) { return id; });
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

TextIndex::TextIndex(TextIndexOptions options) {
  // Parameters outside BM25's domain would break the monotonicity that
  // pruning relies on (text/rank/bm25.h): clamp them.
  if (!(options.k1 >= 0) || !std::isfinite(options.k1)) options.k1 = 1.2;
  if (!(options.b >= 0 && options.b <= 1)) options.b = std::clamp(options.b, 0.0, 1.0);
  if (std::isnan(options.b)) options.b = 0.75;
  for (TextField& f : options.fields) {
    if (!(f.weight >= 0) || !std::isfinite(f.weight)) f.weight = 1.0;
  }
  if (options.fields.empty()) options.fields.push_back(TextField{"text", 1.0});
  data_.options = std::move(options);
  data_.total_len.assign(data_.num_fields(), 0);
}

std::size_t TextIndex::size() const {
  return data_.live.cardinality();
}
bool TextIndex::Contains(std::uint32_t doc) const {
  return data_.live.contains(doc);
}

void TextIndex::Put(std::uint32_t doc, const std::vector<std::string_view>& texts) {
  if (doc == UINT32_MAX) return;  // reserved (the end-of-postings marker)
  Remove(doc);
  IndexData& d = data_;
  const std::size_t nf = d.num_fields();
  // stem -> per-field positions; surface words seen.
  std::map<std::string, std::vector<std::vector<std::uint32_t>>> occurrences;
  std::vector<std::string> surface;
  std::vector<std::uint32_t> lens(nf, 0);
  for (std::size_t f = 0; f < nf && f < texts.size(); ++f) {
    std::vector<std::string> words = TokenizeDocument(texts[f]);
    lens[f] = static_cast<std::uint32_t>(words.size());
    for (std::size_t pos = 0; pos < words.size(); ++pos) {
      auto& per_field = occurrences[Stem(d.options.stemmer, words[pos])];
      per_field.resize(nf);
      per_field[f].push_back(static_cast<std::uint32_t>(pos));
      if (d.stemmed()) surface.push_back(std::move(words[pos]));
    }
  }
  if (d.lengths.size() < (static_cast<std::size_t>(doc) + 1) * nf) {
    d.lengths.resize((static_cast<std::size_t>(doc) + 1) * nf, 0);
    d.doc_terms.resize(static_cast<std::size_t>(doc) + 1);
    d.doc_surface.resize(static_cast<std::size_t>(doc) + 1);
  }
  for (std::size_t f = 0; f < nf; ++f) {
    d.lengths[static_cast<std::size_t>(doc) * nf + f] = lens[f];
    d.total_len[f] += lens[f];
  }
  d.live.add(doc);

  std::vector<std::uint32_t>& forward = d.doc_terms[doc];
  for (auto& [term, per_field] : occurrences) {
    std::uint32_t id = TermId(d, term);
    forward.push_back(id);
    TermPostings& p = d.postings[id];
    std::size_t i = std::lower_bound(p.docs.begin(), p.docs.end(), doc) - p.docs.begin();
    std::uint32_t count = 0;
    std::vector<std::uint32_t> flat;
    for (std::size_t f = 0; f < nf; ++f) {
      std::uint32_t tf = static_cast<std::uint32_t>(per_field[f].size());
      flat.insert(flat.end(), per_field[f].begin(), per_field[f].end());
      count += tf;
      if (tf > 0) {
        p.max_tf[f] = std::max(p.max_tf[f], tf);
        p.min_len[f] = p.min_len[f] == 0 ? lens[f] : std::min(p.min_len[f], lens[f]);
      }
    }
    const std::uint32_t start = p.pos_start[i];
    p.docs.insert(p.docs.begin() + static_cast<std::ptrdiff_t>(i), doc);
    auto tf_at = p.tfs.begin() + static_cast<std::ptrdiff_t>(i * nf);
    for (std::size_t f = nf; f-- > 0;) {
      tf_at = p.tfs.insert(tf_at, static_cast<std::uint32_t>(per_field[f].size()));
    }
    p.positions.insert(p.positions.begin() + start, flat.begin(), flat.end());
    p.pos_start.insert(p.pos_start.begin() + static_cast<std::ptrdiff_t>(i) + 1, start + count);
    for (std::size_t j = i + 2; j < p.pos_start.size(); ++j) p.pos_start[j] += count;
  }
  std::sort(forward.begin(), forward.end());

  if (d.stemmed()) {
    std::sort(surface.begin(), surface.end());
    surface.erase(std::unique(surface.begin(), surface.end()), surface.end());
    for (const std::string& w : surface) {
      SurfaceWord& sw = d.surface[w];
      sw.term = d.terms.find(Stem(d.options.stemmer, w))->second;
      ++sw.docs;
    }
    d.doc_surface[doc] = std::move(surface);
  }
}

void TextIndex::Remove(std::uint32_t doc) {
  IndexData& d = data_;
  if (!d.live.contains(doc)) return;
  const std::size_t nf = d.num_fields();
  for (std::uint32_t id : d.doc_terms[doc]) {
    TermPostings& p = d.postings[id];
    std::size_t i = std::lower_bound(p.docs.begin(), p.docs.end(), doc) - p.docs.begin();
    const std::uint32_t start = p.pos_start[i];
    const std::uint32_t count = p.pos_start[i + 1] - start;
    p.docs.erase(p.docs.begin() + static_cast<std::ptrdiff_t>(i));
    auto tf_at = p.tfs.begin() + static_cast<std::ptrdiff_t>(i * nf);
    p.tfs.erase(tf_at, tf_at + static_cast<std::ptrdiff_t>(nf));
    p.positions.erase(p.positions.begin() + start, p.positions.begin() + start + count);
    p.pos_start.erase(p.pos_start.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    for (std::size_t j = i + 1; j < p.pos_start.size(); ++j) p.pos_start[j] -= count;
    if (p.docs.empty()) {
      d.terms.erase(d.term_text[id]);
      d.term_text[id].clear();
      d.free_terms.push_back(id);
      p = TermPostings{};
    }
  }
  for (std::size_t f = 0; f < nf; ++f) {
    std::uint32_t& len = d.lengths[static_cast<std::size_t>(doc) * nf + f];
    d.total_len[f] -= len;
    len = 0;
  }
  d.live.remove(doc);
  // Bounds after the lengths are gone, so the removed document does not count.
  for (std::uint32_t id : d.doc_terms[doc]) {
    if (!d.postings[id].docs.empty()) RecomputeBounds(d, d.postings[id]);
  }
  d.doc_terms[doc].clear();
  for (const std::string& w : d.doc_surface[doc]) {
    auto it = d.surface.find(w);
    if (--it->second.docs == 0) d.surface.erase(it);
  }
  d.doc_surface[doc].clear();
}

}  // namespace engram::text
