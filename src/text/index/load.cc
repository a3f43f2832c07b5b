// TextIndex::Load (the image: image_format.h). Load checks the checksum and
// every structural invariant search relies on (ascending documents and
// positions, live documents, tokens adding up to the field lengths, a
// stemmed document's words naming exactly its terms), and checks each count
// against the bytes left (with the fewest bytes an item can take) before
// allocating for it, so that what it allocates is bounded by the image's
// size and, per document number, by the caller's doc_limit.
#include <algorithm>
#include <cmath>
#include <random>

#include "base/bytes.h"
#include "base/prefetch.h"
#include "text/index/image_format.h"
#include "text/index/stemmer.h"
#include "text/index/text_index.h"

namespace engram::text {
namespace {

using image::kMagic;
using image::kMaxFields;
using image::kVersion;

// Reads term `id`'s n postings into p, a block at a time as AddPosting's
// appends would fill them (the values straight into the block's arrays).
// Only what the bytes themselves show is checked here (ascending documents
// below `limit` and positions, frequencies the bytes can hold);
// CheckPostings checks the rest against the documents. Returns why the postings are refused, or
// nullptr.
const char* ReadPostings(ByteReader& r, std::size_t n, std::size_t nf, std::size_t limit,
                         TermPostings& p) {
  std::uint64_t doc = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t delta = r.Var();
    doc = i == 0 ? delta : doc + delta;
    if (!r.ok() || (i > 0 && delta == 0) || doc >= limit) return "bad posting document";
    if (p.blocks.empty() || p.blocks.back().size() >= TermPostings::kBlockPostings ||
        p.blocks.back().positions.size() >= TermPostings::kBlockPositions) {
      const std::size_t room = std::min(n - i, TermPostings::kBlockPostings);
      PostingBlock& k = p.blocks.emplace_back();
      k.docs.reserve(room);
      k.tfs.reserve(room * nf);
      k.pos_start.reserve(room + 1);
      p.lasts.push_back(0);
    }
    PostingBlock& k = p.blocks.back();
    const std::size_t tfs_at = k.tfs.size();
    std::uint64_t count = 0;
    for (std::size_t f = 0; f < nf; ++f) {
      k.tfs.push_back(static_cast<std::uint32_t>(r.Var()));  // Var: at most UINT32_MAX
      count += k.tfs.back();
    }
    if (!r.ok() || count == 0 || count > r.left()) return "bad term frequencies";
    for (std::size_t f = 0; f < nf; ++f) {
      const std::uint32_t tf = k.tfs[tfs_at + f];
      std::uint64_t pos = 0;
      for (std::uint32_t j = 0; j < tf; ++j) {
        const std::uint64_t step = r.Var();
        pos = j == 0 ? step : pos + step;
        if (!r.ok() || (j > 0 && step == 0) || pos > UINT32_MAX) return "bad positions";
        k.positions.push_back(static_cast<std::uint32_t>(pos));
      }
    }
    k.docs.push_back(static_cast<std::uint32_t>(doc));
    k.pos_start.push_back(static_cast<std::uint32_t>(k.positions.size()));
    p.lasts.back() = static_cast<std::uint32_t>(doc);
    ++p.count;
  }
  return nullptr;
}

// Where a term's postings go as CheckPostings meets them: without a
// stemmer into the forward lists, sized beforehand (ForwardLists); with
// one, a document's terms are its surface words' (IndexData::DocTerms), and
// each document's term set is summed here to be compared with them once
// the words are read (TermSums).
struct ForwardLists {
  IndexData& d;
  std::uint32_t id;
  void Far(std::uint32_t doc) const { PrefetchRead(&d.doc_terms[doc]); }
  void Near(std::uint32_t doc) const {
    const std::vector<std::uint32_t>& list = d.doc_terms[doc];
    PrefetchWrite(list.data() + list.size());
  }
  void Add(std::uint32_t doc) const { d.doc_terms[doc].push_back(id); }
};

// A term's hash under a key drawn once per process, so that a crafted image
// cannot choose terms whose sums agree where the sets do not.
std::uint64_t TermMix(std::uint32_t term) {
  static const std::uint64_t key = [] {
    std::random_device device;
    return std::uint64_t{device()} << 32 ^ device();
  }();
  std::uint64_t z = term + key + 0x9E3779B97F4A7C15ull;  // splitmix64's finaliser
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

struct TermSums {
  std::vector<std::uint64_t>& sums;  // per document, its terms' TermMix summed
  std::uint64_t mix;
  void Far(std::uint32_t doc) const { PrefetchWrite(&sums[doc]); }
  void Near(std::uint32_t) const {}
  void Add(std::uint32_t doc) const { sums[doc] += mix; }
};

// Checks a term's postings p against the documents: each is live and its
// positions lie within its field lengths; counts its tokens per field in
// `tokens` (no more than the lengths), hands each document to `to`, and sets
// p's bounds (as RecomputeBounds, at d.bound_avglen) from the lengths it
// reads anyway. The documents are spread over the whole index, so the
// accesses of a posting a few ahead are prefetched, which overlaps the
// cache misses that would otherwise come one at a time.
template <typename To>
const char* CheckPostings(TermPostings& p, const std::vector<bool>& is_live,
                          std::vector<std::uint32_t>& tokens, std::vector<std::uint32_t>& scratch,
                          IndexData& d, const To& to) {
  constexpr std::size_t kFar = 32, kNear = 16;
  const std::size_t nf = d.num_fields();
  scratch.clear();
  for (const PostingBlock& k : p.blocks)
    scratch.insert(scratch.end(), k.docs.begin(), k.docs.end());
  ClearBounds(nf, p);
  std::size_t at = 0;
  for (std::size_t b = 0; b < p.blocks.size(); ++b) {
    const PostingBlock& k = p.blocks[b];
    double block_t = 0;  // rounded once per block: the rounding is monotonic
    for (std::size_t i = 0; i < k.size(); ++i, ++at) {
      if (at + kFar < scratch.size()) {
        const std::uint32_t ahead = scratch[at + kFar];
        to.Far(ahead);
        PrefetchRead(&d.lengths[std::size_t{ahead} * nf]);
        PrefetchWrite(&tokens[std::size_t{ahead} * nf]);
      }
      if (at + kNear < scratch.size()) to.Near(scratch[at + kNear]);
      const std::uint32_t doc = k.docs[i];
      if (!is_live[doc]) return "bad posting document";
      const std::uint32_t* tfs = k.tfs.data() + i * nf;
      std::size_t pos = k.pos_start[i];
      for (std::size_t f = 0; f < nf; ++f) {
        const std::uint32_t len = d.length(doc, f);
        std::uint32_t& seen = tokens[std::size_t{doc} * nf + f];
        if (tfs[f] > len - seen) return "bad term frequencies";
        seen += tfs[f];
        pos += tfs[f];
        if (tfs[f] > 0 && k.positions[pos - 1] >= len) return "bad positions";
      }
      WidenBounds(p.max_tf.data(), p.min_len.data(), tfs, &d.lengths[std::size_t{doc} * nf], nf);
      block_t = std::max(block_t, d.Tf(doc, tfs));
      to.Add(doc);
    }
    p.block_max_t[b] = IndexData::UpToFloat(block_t);
    p.max_t = std::max(p.max_t, p.block_max_t[b]);
  }
  return nullptr;
}

}  // namespace

StatusOr<TextIndex> TextIndex::Load(std::string_view bytes, std::uint32_t doc_limit) {
  auto fail = [](const char* why) -> StatusOr<TextIndex> {
    return Status::Corruption(std::string("text index image: ") + why);
  };
  ByteReader r({});
  if (std::optional<std::string> why = OpenImage(bytes, kMagic, kVersion, "text index", &r)) {
    return fail(why->c_str());
  }

  IndexData d;
  const std::size_t nf = r.Count();
  if (!r.ok() || nf == 0 || nf > kMaxFields) return fail("bad field count");
  for (std::size_t f = 0; f < nf; ++f) {
    TextField field;
    field.name = r.Str();
    field.weight = r.F64();
    if (!r.ok() || !std::isfinite(field.weight) || field.weight < 0) return fail("bad field");
    d.options.fields.push_back(std::move(field));
  }
  const std::uint64_t stemmer = r.Fixed(1);
  d.options.k1 = r.F64();
  d.options.b = r.F64();
  const std::uint64_t relax = r.Fixed(1);
  if (!r.ok() || stemmer > 2 || relax > 1 || !std::isfinite(d.options.k1) || d.options.k1 < 0 ||
      !(d.options.b >= 0 && d.options.b <= 1)) {
    return fail("bad options");
  }
  d.options.stemmer = static_cast<Stemmer>(stemmer);
  d.options.relax = relax == 1;
  d.total_len.assign(nf, 0);

  // Documents: each takes at least its number and F lengths, a byte each.
  const std::size_t num_docs = r.Count(1 + nf);
  if (!r.ok()) return fail("bad document count");
  std::vector<std::uint32_t> docs(num_docs), declared(num_docs * nf);
  for (std::size_t i = 0; i < num_docs; ++i) {
    const std::uint64_t step = r.Var();
    const std::uint64_t doc = i == 0 ? step : std::uint64_t{docs[i - 1]} + step;
    if (!r.ok() || (i > 0 && step == 0) || doc >= doc_limit) return fail("bad document number");
    docs[i] = static_cast<std::uint32_t>(doc);
    for (std::size_t f = 0; f < nf; ++f) declared[i * nf + f] = static_cast<std::uint32_t>(r.Var());
  }
  if (!r.ok()) return fail("truncated documents");
  // Per document number up to the largest: dense, bounded by doc_limit.
  const std::size_t limit = num_docs == 0 ? 0 : std::size_t{docs.back()} + 1;
  d.lengths.assign(limit * nf, 0);
  (d.stemmed() ? d.doc_surface : d.doc_terms).resize(limit);
  for (std::size_t i = 0; i < num_docs; ++i) {
    d.live.add(docs[i]);
    for (std::size_t f = 0; f < nf; ++f) {
      d.lengths[std::size_t{docs[i]} * nf + f] = declared[i * nf + f];
      d.total_len[f] += declared[i * nf + f];
    }
  }
  // The bounds of the postings are taken at these averages.
  SetBoundBase(d);
  // Tokens seen per document and field, to check they add up to the lengths.
  std::vector<std::uint32_t> tokens(limit * nf, 0);
  // Every token takes a position (a byte at least) below, so the lengths add
  // up to at most the bytes left.
  std::vector<bool> is_live(limit, false);
  std::uint64_t all_tokens = 0;
  for (std::size_t i = 0; i < num_docs; ++i) {
    for (std::size_t f = 0; f < nf; ++f) all_tokens += declared[i * nf + f];
    if (all_tokens > r.left()) return fail("field lengths past the image");
    is_live[docs[i]] = true;
  }

  // Terms: each takes at least its text (2 bytes), a posting count and one
  // posting (a document, F frequencies, a position). With a stemmer each
  // term's postings are checked as soon as they are read; without one they
  // are read first, counting each document's terms, so that every forward
  // list is sized once, in document order, before they are checked into them.
  const std::size_t num_terms = r.Count(5 + nf);
  if (!r.ok()) return fail("bad term count");
  std::vector<std::uint32_t> terms_of(d.stemmed() ? 0 : limit, 0);
  std::vector<std::uint64_t> sums(d.stemmed() ? limit : 0, 0);  // TermSums
  std::vector<std::uint32_t> scratch;                           // a term's documents
  d.term_text.reserve(num_terms);
  d.postings.reserve(num_terms);
  for (std::uint32_t id = 0; id < num_terms && r.ok(); ++id) {
    std::string text = r.Str();
    if (!r.ok() || text.empty() || (id > 0 && !(d.term_text.back() < text))) {
      return fail("bad term dictionary");
    }
    TermPostings p;
    const std::size_t n = r.Count(2 + nf);
    if (!r.ok() || n == 0) return fail("bad postings");
    if (const char* why = ReadPostings(r, n, nf, limit, p)) return fail(why);
    if (d.stemmed()) {
      if (const char* why =
              CheckPostings(p, is_live, tokens, scratch, d, TermSums{sums, TermMix(id)})) {
        return fail(why);
      }
    } else {
      for (const PostingBlock& k : p.blocks) {
        for (const std::uint32_t doc : k.docs) ++terms_of[doc];
      }
      d.terms.emplace(text, id);
    }
    d.term_ids.Insert(text, id);
    d.term_text.push_back(std::move(text));
    d.postings.push_back(std::move(p));
  }
  if (!r.ok()) return fail("truncated terms");
  if (!d.stemmed()) {
    for (const std::uint32_t doc : d.live) d.doc_terms[doc].reserve(terms_of[doc]);
    std::vector<std::uint32_t>().swap(terms_of);
    for (std::uint32_t id = 0; id < num_terms; ++id) {
      if (const char* why =
              CheckPostings(d.postings[id], is_live, tokens, scratch, d, ForwardLists{d, id})) {
        return fail(why);
      }
    }
  }
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] != d.lengths[i]) return fail("field lengths disagree with the postings");
  }

  if (d.stemmed()) {
    // Each word takes at least its text (2 bytes) and its term.
    const std::size_t words = r.Count(3);
    if (!r.ok()) return fail("bad surface word count");
    d.surface_words.reserve(words);
    for (std::size_t i = 0; i < words && r.ok(); ++i) {
      std::string word = r.Str();
      const std::uint64_t term = r.Var();
      if (!r.ok() || word.empty() || term >= num_terms ||
          (i > 0 && !(d.surface_words.back().text < word)) ||
          Stem(d.options.stemmer, word) != d.term_text[term]) {
        return fail("bad surface word");
      }
      d.surface.emplace(word, static_cast<std::uint32_t>(term));
      d.surface_ids.Insert(word, static_cast<std::uint32_t>(d.surface_words.size()));
      d.surface_words.push_back(
          SurfaceWord{std::move(word), static_cast<std::uint32_t>(term), 0, 0});
    }
    // A document's words must name exactly the terms it has postings of:
    // the sum of their terms' TermMix is compared with the postings'.
    std::vector<std::uint32_t> terms;
    for (const std::uint32_t doc : d.live) {
      const std::size_t n = r.Count();
      if (r.ok()) d.doc_surface[doc].reserve(n);
      std::uint64_t idx = 0;
      for (std::size_t j = 0; j < n && r.ok(); ++j) {
        const std::uint64_t step = r.Var();
        idx = j == 0 ? step : idx + step;
        if (!r.ok() || (j > 0 && step == 0) || idx >= d.surface_words.size()) {
          return fail("bad document words");
        }
        ++d.surface_words[idx].docs;
        d.doc_surface[doc].push_back(static_cast<std::uint32_t>(idx));
      }
      if (!r.ok()) return fail("truncated document words");
      d.DocTerms(doc, &terms);
      std::uint64_t sum = 0;
      for (const std::uint32_t term : terms) sum += TermMix(term);
      if (sum != sums[doc]) return fail("document words disagree with its terms");
    }
    for (const SurfaceWord& sw : d.surface_words) {
      if (sw.docs == 0) return fail("surface word in no document");
    }
  }
  if (r.left() != 0) return fail("trailing bytes");
  // One index has one image: an encoding that reads back but is not the one
  // Serialize writes is refused, so images compare and checksum reliably.
  // Everything else was checked to be in Serialize's order and form above; a
  // varint with redundant bytes is what is left (the fuzz target checks that
  // every image loaded serialises back to itself).
  if (!r.canonical()) return fail("non-canonical encoding");
  return TextIndex(std::move(d));
}

}  // namespace engram::text
