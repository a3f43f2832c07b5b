// TextIndex maintenance: Put (insert or replace) and Remove keep the postings,
// the per-term pruning bounds, the forward lists and the length statistics
// exact. Search lives in text/rank/search.cc, Serialize/Load in serialize.cc.
#include "text/index/text_index.h"

#include <algorithm>
#include <cmath>
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

std::uint32_t TermId(IndexData& data, std::string_view term) {
  auto it = data.term_ids.find(term);
  if (it != data.term_ids.end()) return it->second;
  std::uint32_t id;
  if (!data.free_terms.empty()) {
    id = data.free_terms.back();
    data.free_terms.pop_back();
    data.term_text[id] = term;
  } else {
    id = static_cast<std::uint32_t>(data.postings.size());
    data.postings.emplace_back();
    data.term_text.emplace_back(term);
  }
  TermPostings& p = data.postings[id];
  p = TermPostings{};
  p.max_tf.assign(data.num_fields(), 0);
  p.min_len.assign(data.num_fields(), 0);
  data.terms.emplace(term, id);
  data.term_ids.emplace(term, id);
  return id;
}

// One token of the document being put.
struct Occurrence {
  std::uint32_t term;
  std::uint32_t field;
  std::uint32_t pos;
  bool operator<(const Occurrence& o) const {
    if (term != o.term) return term < o.term;
    if (field != o.field) return field < o.field;
    return pos < o.pos;
  }
};

// Adds posting `doc` (tfs: F values, positions field by field) to p:
// appended when doc is past the last posting, inserted in order otherwise.
void AddPosting(TermPostings& p, std::uint32_t doc, const std::uint32_t* tfs, std::size_t nf,
                const Occurrence* pos, std::uint32_t count) {
  if (p.docs.empty() || p.docs.back() < doc) {
    p.docs.push_back(doc);
    p.tfs.insert(p.tfs.end(), tfs, tfs + nf);
    for (std::uint32_t j = 0; j < count; ++j) p.positions.push_back(pos[j].pos);
    p.pos_start.push_back(static_cast<std::uint32_t>(p.positions.size()));
    return;
  }
  std::size_t i = std::lower_bound(p.docs.begin(), p.docs.end(), doc) - p.docs.begin();
  const std::uint32_t start = p.pos_start[i];
  p.docs.insert(p.docs.begin() + static_cast<std::ptrdiff_t>(i), doc);
  p.tfs.insert(p.tfs.begin() + static_cast<std::ptrdiff_t>(i * nf), tfs, tfs + nf);
  std::vector<std::uint32_t> flat(count);
  for (std::uint32_t j = 0; j < count; ++j) flat[j] = pos[j].pos;
  p.positions.insert(p.positions.begin() + start, flat.begin(), flat.end());
  p.pos_start.insert(p.pos_start.begin() + static_cast<std::ptrdiff_t>(i) + 1, start + count);
  for (std::size_t j = i + 2; j < p.pos_start.size(); ++j) p.pos_start[j] += count;
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
    collect(surface, [](std::uint32_t term) { return term; });
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
  const std::uint64_t serial = ++d.put_serial;
  // Every token as (term, field, position); the document's distinct surface words.
  thread_local std::vector<Occurrence> occ;
  thread_local std::vector<std::string_view> surface;
  occ.clear();
  surface.clear();
  std::vector<std::uint32_t> lens(nf, 0);
  for (std::size_t f = 0; f < nf && f < texts.size(); ++f) {
    std::vector<std::string> words = TokenizeDocument(texts[f]);
    lens[f] = static_cast<std::uint32_t>(words.size());
    for (std::size_t pos = 0; pos < words.size(); ++pos) {
      std::uint32_t id;
      if (d.stemmed()) {
        // A word seen before maps to its term without stemming again.
        auto it = d.surface_ids.find(words[pos]);
        if (it == d.surface_ids.end()) {
          id = TermId(d, Stem(d.options.stemmer, words[pos]));
          it = d.surface_ids.emplace(std::move(words[pos]), SurfaceWord{id, 0, 0}).first;
          d.surface.emplace(it->first, id);
        }
        SurfaceWord& sw = it->second;
        id = sw.term;
        if (sw.seen != serial) {
          sw.seen = serial;
          ++sw.docs;
          surface.push_back(it->first);
        }
      } else {
        id = TermId(d, words[pos]);
      }
      occ.push_back(Occurrence{id, static_cast<std::uint32_t>(f), static_cast<std::uint32_t>(pos)});
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

  std::sort(occ.begin(), occ.end());
  std::vector<std::uint32_t>& forward = d.doc_terms[doc];
  std::vector<std::uint32_t> tfs(nf);
  for (std::size_t s = 0; s < occ.size();) {
    const std::uint32_t id = occ[s].term;
    std::size_t e = s;
    std::fill(tfs.begin(), tfs.end(), 0);
    while (e < occ.size() && occ[e].term == id) ++tfs[occ[e++].field];
    forward.push_back(id);
    TermPostings& p = d.postings[id];
    for (std::size_t f = 0; f < nf; ++f) {
      if (tfs[f] > 0) {
        p.max_tf[f] = std::max(p.max_tf[f], tfs[f]);
        p.min_len[f] = p.min_len[f] == 0 ? lens[f] : std::min(p.min_len[f], lens[f]);
      }
    }
    AddPosting(p, doc, tfs.data(), nf, occ.data() + s, static_cast<std::uint32_t>(e - s));
    s = e;
  }

  if (d.stemmed()) {
    std::sort(surface.begin(), surface.end());
    std::vector<std::string>& words = d.doc_surface[doc];
    words.reserve(surface.size());
    for (std::string_view w : surface) words.emplace_back(w);
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
      d.term_ids.erase(d.term_text[id]);
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
    auto it = d.surface_ids.find(w);
    if (--it->second.docs == 0) {
      d.surface.erase(w);
      d.surface_ids.erase(it);
    }
  }
  d.doc_surface[doc].clear();
}

}  // namespace engram::text
