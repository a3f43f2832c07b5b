// TextIndex maintenance: Put (insert or replace) and Remove keep the postings,
// the per-term pruning bounds, the forward lists and the length statistics
// exact. The bounds' upkeep is in postings.cc, search in text/rank/search.cc,
// the image in serialize.cc (written) and load.cc (read).
#include "text/index/text_index.h"

#include <algorithm>
#include <utility>

#include "base/prefetch.h"
#include "text/index/stemmer.h"
#include "text/tokenize/tokenizer.h"

namespace engram::text {

namespace {

std::uint32_t TermId(IndexData& data, std::string_view term) {
  const std::uint32_t found = data.TermIdOf(term);
  if (found != FlatHash::kNone) return found;
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
  TermPostings& p = data.postings[id];  // empty (new, or emptied by Remove)
  p.max_tf.assign(data.num_fields(), 0);
  p.min_len.assign(data.num_fields(), 0);
  if (!data.stemmed()) data.terms.emplace(term, id);
  data.term_ids.Insert(term, id);
  return id;
}

// Put's per-thread scratch, reused so that a Put allocates only what the
// index keeps. The distinct terms of the document being put get dense slots,
// found through a small open-addressing table (term id -> slot) sized to the
// document, which stays in L1 where an array over all term ids would not.
struct PutScratch {
  static constexpr std::uint32_t kEmpty = UINT32_MAX;
  struct Entry {
    std::uint32_t term = kEmpty;
    std::uint32_t slot = 0;
  };
  std::vector<Entry> table;  // a power of two, over twice the slots
  bool table_clean = true;   // false while a Put runs (or if one threw)
  std::uint32_t Slot(std::uint32_t term, std::size_t nf);
  std::vector<std::uint32_t> slot_term;   // slot -> term id
  std::vector<std::uint32_t> slot_tfs;    // slot * F + f -> tf
  std::vector<std::uint32_t> slot_start;  // slot -> its first entry in `positions`
  std::vector<std::uint32_t> token_slot;  // the document's tokens in order, as slots
  std::vector<std::uint32_t> token_pos;   // and their positions in their fields
  std::vector<std::uint32_t> positions;   // grouped by slot, field-major, ascending
  std::vector<std::uint32_t> lens;        // per field
  std::vector<std::uint64_t> hashes;      // per token of the field: FlatHash::Hash
  std::vector<std::uint32_t> doc_words;   // the document's distinct surface word ids
  TermList tokens;
};

// The slot of `term` in this document, a new one (tfs zero) at first sight.
std::uint32_t PutScratch::Slot(std::uint32_t term, std::size_t nf) {
  if (2 * (slot_term.size() + 1) > table.size()) {  // grow: rehash the slots
    table.assign(std::max<std::size_t>(1024, 2 * table.size()), Entry{});
    const std::size_t mask = table.size() - 1;
    for (std::uint32_t k = 0; k < slot_term.size(); ++k) {
      std::size_t i = (slot_term[k] * 0x9E3779B1u) & mask;
      while (table[i].term != kEmpty) i = (i + 1) & mask;
      table[i] = Entry{slot_term[k], k};
    }
  }
  const std::size_t mask = table.size() - 1;
  std::size_t i = (term * 0x9E3779B1u) & mask;  // Fibonacci hashing (Knuth 6.4)
  for (;; i = (i + 1) & mask) {
    if (table[i].term == term) return table[i].slot;
    if (table[i].term == kEmpty) break;
  }
  const auto slot = static_cast<std::uint32_t>(slot_term.size());
  table[i] = Entry{term, slot};
  slot_term.push_back(term);
  slot_tfs.resize(slot_tfs.size() + nf, 0);
  return slot;
}

}  // namespace

std::int64_t IndexData::Find(std::string_view term) const {
  const std::uint32_t id = TermIdOf(term);
  return id == FlatHash::kNone ? -1 : static_cast<std::int64_t>(id);
}

void IndexData::DocTerms(std::uint32_t doc, std::vector<std::uint32_t>* out) const {
  out->clear();
  if (!stemmed()) {
    out->assign(doc_terms[doc].begin(), doc_terms[doc].end());
    return;
  }
  for (const std::uint32_t word : doc_surface[doc]) out->push_back(surface_words[word].term);
  std::sort(out->begin(), out->end());
  out->erase(std::unique(out->begin(), out->end()), out->end());
}

std::vector<std::uint32_t> IndexData::TermsInTextOrder() const {
  // From the postings and texts only (not the sorted dictionary): a
  // FrozenTextIndex has no dictionary.
  std::vector<std::uint32_t> ids;
  for (std::uint32_t id = 0; id < postings.size(); ++id) {
    if (!postings[id].empty()) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end(),
            [this](std::uint32_t a, std::uint32_t b) { return term_text[a] < term_text[b]; });
  return ids;
}

std::vector<std::uint32_t> IndexData::ExpandPrefix(std::string_view prefix, std::size_t limit,
                                                   std::size_t* matched) const {
  std::vector<std::uint32_t> ids;
  std::size_t seen = 0;
  auto collect = [&](const auto& map, auto id_of) {
    for (auto it = map.lower_bound(prefix); it != map.end(); ++it) {
      if (std::string_view(it->first).substr(0, prefix.size()) != prefix) break;
      if (++seen > limit) break;  // one past the limit: enough to know it is passed
      ids.push_back(id_of(it->second));
    }
  };
  if (stemmed()) {
    collect(surface, [](std::uint32_t term) { return term; });
  } else {
    collect(terms, [](std::uint32_t id) { return id; });
  }
  if (matched != nullptr) *matched = seen;
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
  data_.bound_avglen.assign(data_.num_fields(), 0);
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
  thread_local PutScratch scratch;
  PutScratch& x = scratch;
  if (!x.table_clean) x.table.assign(x.table.size(), PutScratch::Entry{});
  x.table_clean = false;
  x.slot_term.clear();
  x.slot_tfs.clear();
  x.token_slot.clear();
  x.token_pos.clear();
  x.lens.assign(nf, 0);
  if (d.lengths.size() < (static_cast<std::size_t>(doc) + 1) * nf) {
    d.lengths.resize((static_cast<std::size_t>(doc) + 1) * nf, 0);
    (d.stemmed() ? d.doc_surface : d.doc_terms).resize(static_cast<std::size_t>(doc) + 1);
  }
  std::vector<std::uint32_t>& doc_words = x.doc_words;  // copied to doc_surface at the end
  doc_words.clear();

  // Every token to its term and the term to its slot, counting tfs.
  for (std::size_t f = 0; f < nf && f < texts.size(); ++f) {
    x.tokens.clear();
    TokenizeDocumentInto(texts[f], &x.tokens);
    const std::size_t count = x.tokens.size();
    x.lens[f] = static_cast<std::uint32_t>(count);
    if (d.stemmed()) {
      // Hash every word first and fetch its slot, then (the slots arriving)
      // the word each slot names, so that the lookups below find both in
      // cache rather than missing one after another.
      x.hashes.resize(count);
      for (std::size_t pos = 0; pos < count; ++pos) {
        x.hashes[pos] = FlatHash::Hash(x.tokens[pos]);
        d.surface_ids.Prefetch(x.hashes[pos]);
      }
      for (std::size_t pos = 0; pos < count; ++pos) {
        const std::uint32_t candidate = d.surface_ids.Candidate(x.hashes[pos]);
        if (candidate != FlatHash::kNone) PrefetchRead(&d.surface_words[candidate]);
      }
    }
    for (std::size_t pos = 0; pos < count; ++pos) {
      const std::string_view word = x.tokens[pos];
      std::uint32_t id;
      if (d.stemmed()) {
        // A word seen before maps to its term without stemming again.
        std::uint32_t word_id = d.SurfaceIdOf(word, x.hashes[pos]);
        if (word_id == FlatHash::kNone) {
          id = TermId(d, Stem(d.options.stemmer, word));
          if (!d.free_surface.empty()) {
            word_id = d.free_surface.back();
            d.free_surface.pop_back();
          } else {
            word_id = static_cast<std::uint32_t>(d.surface_words.size());
            d.surface_words.emplace_back();
          }
          d.surface_words[word_id] = SurfaceWord{std::string(word), id, 0, 0};
          d.surface_ids.Insert(word, word_id);
          d.surface.emplace(word, id);
        }
        SurfaceWord& sw = d.surface_words[word_id];
        id = sw.term;
        if (sw.seen != serial) {
          sw.seen = serial;
          ++sw.docs;
          doc_words.push_back(word_id);
        }
      } else {
        id = TermId(d, word);
      }
      const std::uint32_t slot = x.Slot(id, nf);
      ++x.slot_tfs[slot * nf + f];
      x.token_slot.push_back(slot);
      x.token_pos.push_back(static_cast<std::uint32_t>(pos));
    }
  }
  if (!doc_words.empty()) d.doc_surface[doc].assign(doc_words.begin(), doc_words.end());
  for (std::size_t f = 0; f < nf; ++f) {
    d.lengths[static_cast<std::size_t>(doc) * nf + f] = x.lens[f];
    d.total_len[f] += x.lens[f];
  }
  d.live.add(doc);
  // Before the postings go in, so that theirs are computed with the new base.
  if (BoundsStale(d)) RebaseBounds(d);

  // Positions grouped by slot: tokens come field by field in position order,
  // so each slot's run is field-major and ascending, the postings' layout.
  const std::size_t slots = x.slot_term.size();
  x.slot_start.resize(slots + 1);
  std::uint32_t total = 0;
  for (std::size_t k = 0; k < slots; ++k) {
    x.slot_start[k] = total;
    for (std::size_t f = 0; f < nf; ++f) total += x.slot_tfs[k * nf + f];
  }
  x.slot_start[slots] = total;
  x.positions.resize(total);
  for (std::size_t t = 0; t < x.token_slot.size(); ++t) {
    x.positions[x.slot_start[x.token_slot[t]]++] = x.token_pos[t];
  }  // slot_start[k] is now the end of slot k's run, the start of slot k + 1's

  for (const std::uint32_t term : x.slot_term) {  // empty the table for the next Put
    std::size_t i = (term * 0x9E3779B1u) & (x.table.size() - 1);
    while (x.table[i].term != term) i = (i + 1) & (x.table.size() - 1);
    x.table[i].term = PutScratch::kEmpty;
  }
  x.table_clean = true;

  // The postings of a document's terms lie all over the heap and each append
  // touches several arrays of a term's last block: fetch them ahead level by
  // level (the term records, their last blocks, the ends of the blocks'
  // arrays), so the misses overlap instead of coming one after another in
  // the loop below.
  for (const std::uint32_t id : x.slot_term) PrefetchRead(&d.postings[id]);
  for (const std::uint32_t id : x.slot_term) {
    const TermPostings& p = d.postings[id];
    if (!p.blocks.empty()) {
      PrefetchRead(&p.blocks.back());
      PrefetchWrite(&p.lasts.back());
    }
    PrefetchWrite(p.max_tf.data());
    PrefetchWrite(p.min_len.data());
    if (!p.blocks.empty()) PrefetchWrite(&p.block_max_t.back());
  }
  for (const std::uint32_t id : x.slot_term) {
    const TermPostings& p = d.postings[id];
    if (p.blocks.empty()) continue;
    const PostingBlock& k = p.blocks.back();
    PrefetchWrite(k.docs.data() + k.docs.size());
    PrefetchWrite(k.tfs.data() + k.tfs.size());
    PrefetchWrite(k.pos_start.data() + k.pos_start.size());
    PrefetchWrite(k.positions.data() + k.positions.size());
  }
  if (!d.stemmed()) d.doc_terms[doc].assign(x.slot_term.begin(), x.slot_term.end());
  for (std::size_t k = 0; k < slots; ++k) {
    const std::uint32_t id = x.slot_term[k];
    const std::uint32_t* tfs = &x.slot_tfs[k * nf];
    const std::uint32_t begin = k == 0 ? 0 : x.slot_start[k - 1];
    AppendPosting(d, d.postings[id], doc, tfs, x.positions.data() + begin, x.slot_start[k] - begin);
  }
}

void TextIndex::Remove(std::uint32_t doc) {
  IndexData& d = data_;
  if (!d.live.contains(doc)) return;
  const std::size_t nf = d.num_fields();
  for (std::size_t f = 0; f < nf; ++f) {
    std::uint32_t& len = d.lengths[static_cast<std::size_t>(doc) * nf + f];
    d.total_len[f] -= len;
    len = 0;
  }
  d.live.remove(doc);
  thread_local std::vector<std::uint32_t> terms;
  d.DocTerms(doc, &terms);
  PrefetchPostings(d, terms, doc);
  for (const std::uint32_t id : terms) {
    TermPostings& p = d.postings[id];
    RemovePosting(p, doc, nf);
    if (p.empty()) {
      if (!d.stemmed()) d.terms.erase(d.term_text[id]);
      d.term_ids.Erase(d.term_text[id], id);
      std::string().swap(d.term_text[id]);
      d.free_terms.push_back(id);
      p = TermPostings{};
    } else if (2 * ++p.removed > p.count) {
      // The bounds stay valid when a posting goes, only looser; recomputing
      // them (after the lengths are gone, so that the removed document does
      // not count) once half the list has changed keeps them close at
      // amortised O(1) per removal.
      RecomputeBounds(d, p);
    }
  }
  if (!d.stemmed()) {
    std::vector<std::uint32_t>().swap(d.doc_terms[doc]);
    return;
  }
  for (const std::uint32_t word_id : d.doc_surface[doc]) {
    SurfaceWord& sw = d.surface_words[word_id];
    if (--sw.docs == 0) {
      d.surface.erase(sw.text);
      d.surface_ids.Erase(sw.text, word_id);
      std::string().swap(sw.text);
      d.free_surface.push_back(word_id);
    }
  }
  std::vector<std::uint32_t>().swap(d.doc_surface[doc]);
}

std::size_t TextIndex::MemoryBytes() const {
  const IndexData& d = data_;
  auto vec = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
  auto str = [](const std::string& s) {
    return s.capacity() > 15 ? s.capacity() + 1 : std::size_t{0};  // past the SSO buffer
  };
  std::size_t bytes = sizeof(*this) + vec(d.term_text) + vec(d.postings) + vec(d.free_terms) +
                      vec(d.surface_words) + vec(d.free_surface) + vec(d.lengths) +
                      vec(d.doc_terms) + vec(d.doc_surface) + vec(d.total_len) +
                      d.terms.MemoryBytes() + d.surface.MemoryBytes() + d.term_ids.MemoryBytes() +
                      d.surface_ids.MemoryBytes() + d.live.getSizeInBytes(false);
  for (const std::string& t : d.term_text) bytes += str(t);
  for (const SurfaceWord& w : d.surface_words) bytes += str(w.text);
  for (const TermPostings& p : d.postings) {
    bytes += vec(p.blocks) + vec(p.lasts) + vec(p.max_tf) + vec(p.min_len) + vec(p.block_max_t);
    for (const PostingBlock& k : p.blocks) bytes += k.MemoryBytes();
  }
  for (const auto& v : d.doc_terms) bytes += vec(v);
  for (const auto& v : d.doc_surface) bytes += vec(v);
  return bytes;
}

}  // namespace engram::text
