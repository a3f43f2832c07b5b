// TextIndex::Serialize and Freeze: the image (image_format.h) of the live
// documents, written from the index or from a frozen copy of its parts.
#include <algorithm>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "text/index/image_format.h"
#include "text/index/text_index.h"

namespace engram::text {
namespace {

using image::kMagic;
using image::kVersion;

// The image of `d`, reading only the parts FrozenTextIndex copies: the
// dictionaries' sorted maps and hashes are not read (the orders are sorted
// here instead).
std::string SerializeData(const IndexData& d) {
  const std::size_t nf = d.num_fields();
  ByteWriter w;
  w.Raw(kMagic, 8);
  w.Fixed(kVersion, 4);
  w.Var(nf);
  for (const TextField& f : d.options.fields) {
    w.Str(f.name);
    w.F64(f.weight);
  }
  w.U8(static_cast<std::uint8_t>(d.options.stemmer));
  w.F64(d.options.k1);
  w.F64(d.options.b);
  w.U8(d.options.relax ? 1 : 0);
  w.Var(d.live.cardinality());
  std::uint32_t prev = 0;
  bool first_doc = true;
  for (const std::uint32_t doc : d.live) {
    w.Var(first_doc ? doc : doc - prev);
    first_doc = false;
    prev = doc;
    for (std::size_t f = 0; f < nf; ++f) w.Var(d.length(doc, f));
  }
  // Terms in text order; their serialised index is their rank in that order.
  const std::vector<std::uint32_t> ordered = d.TermsInTextOrder();
  w.Var(ordered.size());
  std::vector<std::uint32_t> rank(d.postings.size(), 0);
  std::uint32_t r = 0;
  for (const std::uint32_t id : ordered) {
    rank[id] = r++;
    const TermPostings& p = d.postings[id];
    w.Str(d.term_text[id]);
    w.Var(p.size());
    std::uint32_t last = 0;
    bool first = true;
    p.ForEach([&](std::uint32_t doc, std::size_t b, std::size_t i) {
      const PostingBlock& k = p.block(b);
      w.Var(first ? doc : doc - last);
      first = false;
      last = doc;
      for (std::size_t f = 0; f < nf; ++f) w.Var(k.tfs[i * nf + f]);
      for (std::size_t f = 0; f < nf; ++f) {
        std::size_t n;
        const std::uint32_t* pos = k.field_positions(i, f, nf, &n);
        for (std::size_t j = 0; j < n; ++j) w.Var(j == 0 ? pos[j] : pos[j] - pos[j - 1]);
      }
    });
  }
  if (d.stemmed()) {
    // A word's serialised index is its rank in text order (free ids have
    // no text).
    std::vector<std::uint32_t> words;
    for (std::uint32_t id = 0; id < d.surface_words.size(); ++id) {
      if (!d.surface_words[id].text.empty()) words.push_back(id);
    }
    std::sort(words.begin(), words.end(), [&](std::uint32_t a, std::uint32_t b) {
      return d.surface_words[a].text < d.surface_words[b].text;
    });
    w.Var(words.size());
    std::vector<std::uint32_t> word_rank(d.surface_words.size(), 0);
    std::uint32_t next = 0;
    for (const std::uint32_t id : words) {
      word_rank[id] = next++;
      w.Str(d.surface_words[id].text);
      w.Var(rank[d.surface_words[id].term]);
    }
    std::vector<std::uint32_t> ranks;
    for (std::uint32_t doc : d.live) {
      ranks.clear();
      for (std::uint32_t id : d.doc_surface[doc]) ranks.push_back(word_rank[id]);
      std::sort(ranks.begin(), ranks.end());
      w.Var(ranks.size());
      for (std::size_t j = 0; j < ranks.size(); ++j) {
        w.Var(j == 0 ? ranks[j] : ranks[j] - ranks[j - 1]);
      }
    }
  }
  w.Fixed(Fnv1a64(w.out), 8);
  return std::move(w.out);
}

}  // namespace

std::string TextIndex::Serialize() const {
  return SerializeData(data_);
}

std::string FrozenTextIndex::Serialize() const {
  return SerializeData(data_);
}

FrozenTextIndex TextIndex::Freeze() const {
  const IndexData& d = data_;
  FrozenTextIndex frozen;
  IndexData& f = frozen.data_;
  f.options = d.options;
  f.live = d.live;
  f.lengths = d.lengths;
  f.term_text = d.term_text;
  f.postings = d.postings;
  if (d.stemmed()) {
    f.surface_words = d.surface_words;
    // Only the live documents' lists: a removed document's is empty.
    f.doc_surface.resize(d.doc_surface.size());
    for (const std::uint32_t doc : d.live) f.doc_surface[doc] = d.doc_surface[doc];
  }
  return frozen;
}

}  // namespace engram::text
