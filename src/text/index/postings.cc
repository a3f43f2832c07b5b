// Posting lists in blocks (index_data.h): lookup, insertion with splits,
// removal with merges, and their pruning bounds. Every operation touches one
// block (two when merging or splitting) plus a binary search over the
// blocks, whatever the length of the list.
#include <algorithm>
#include <iterator>

#include "base/prefetch.h"
#include "text/index/index_data.h"

namespace engram::text {
namespace {

using Diff = std::ptrdiff_t;

std::size_t Capacity(const std::vector<std::uint32_t>& v) {
  return v.capacity() * sizeof(std::uint32_t);
}

// Moves postings [from, end) of `a` to the end of `b` (which holds only
// postings after a's... or is empty): used by splits and merges.
void MoveTail(PostingBlock& a, std::size_t from, PostingBlock& b, std::size_t nf) {
  const std::uint32_t start = a.pos_start[from];
  const std::uint32_t base = b.pos_start.back();
  b.docs.insert(b.docs.end(), a.docs.begin() + static_cast<Diff>(from), a.docs.end());
  b.tfs.insert(b.tfs.end(), a.tfs.begin() + static_cast<Diff>(from * nf), a.tfs.end());
  for (std::size_t i = from + 1; i < a.pos_start.size(); ++i) {
    b.pos_start.push_back(base + (a.pos_start[i] - start));
  }
  b.positions.insert(b.positions.end(), a.positions.begin() + start, a.positions.end());
  a.docs.resize(from);
  a.tfs.resize(from * nf);
  a.pos_start.resize(from + 1);
  a.positions.resize(start);
}

// Frees the spare capacity of a block that shrank to a quarter of it, so
// that a list that grew and then lost most of its postings gives the memory
// back (amortised: the block had to lose three quarters first).
void ShrinkIfSparse(PostingBlock& k) {
  auto shrink = [](std::vector<std::uint32_t>& v) {
    if (v.capacity() > 16 && v.size() < v.capacity() / 4) v.shrink_to_fit();
  };
  shrink(k.docs);
  shrink(k.tfs);
  shrink(k.pos_start);
  shrink(k.positions);
}

bool Full(const PostingBlock& k) {
  return k.size() >= TermPostings::kBlockPostings ||
         k.positions.size() >= TermPostings::kBlockPositions;
}

// Block b's bound, recomputed exactly from its postings.
void ExactBlockBound(const IndexData& data, TermPostings& p, std::size_t b) {
  const std::size_t nf = data.num_fields();
  const PostingBlock& k = p.blocks[b];
  float t = 0;
  for (std::size_t i = 0; i < k.size(); ++i) {
    t = std::max(t, data.BoundTf(k.docs[i], k.tfs.data() + i * nf));
  }
  p.block_max_t[b] = t;
}

}  // namespace

const std::uint32_t* PostingBlock::field_positions(std::size_t i, std::size_t field,
                                                   std::size_t num_fields,
                                                   std::size_t* count) const {
  std::size_t start = pos_start[i];
  for (std::size_t f = 0; f < field; ++f) start += tfs[i * num_fields + f];
  *count = tfs[i * num_fields + field];
  return positions.data() + start;
}

std::size_t PostingBlock::MemoryBytes() const {
  return sizeof(PostingBlock) + Capacity(docs) + Capacity(tfs) + Capacity(pos_start) +
         Capacity(positions);
}

PostingAt TermPostings::LowerBound(std::uint32_t doc) const {
  // The first block whose last document is >= doc.
  const std::size_t lo = std::lower_bound(lasts.begin(), lasts.end(), doc) - lasts.begin();
  if (lo == blocks.size()) return {lo, 0};
  const std::vector<std::uint32_t>& docs = blocks[lo].docs;
  return {lo,
          static_cast<std::size_t>(std::lower_bound(docs.begin(), docs.end(), doc) - docs.begin())};
}

void PrefetchPostings(const IndexData& data, const std::vector<std::uint32_t>& terms,
                      std::uint32_t doc) {
  for (const std::uint32_t id : terms) PrefetchRead(&data.postings[id]);
  for (const std::uint32_t id : terms) {
    const TermPostings& p = data.postings[id];
    PrefetchRead(p.lasts.data() + p.lasts.size() / 2);
  }
  for (const std::uint32_t id : terms) {
    const TermPostings& p = data.postings[id];
    const std::size_t b = std::lower_bound(p.lasts.begin(), p.lasts.end(), doc) - p.lasts.begin();
    if (b < p.blocks.size()) PrefetchRead(&p.blocks[b]);
  }
  for (const std::uint32_t id : terms) {
    const TermPostings& p = data.postings[id];
    const std::size_t b = std::lower_bound(p.lasts.begin(), p.lasts.end(), doc) - p.lasts.begin();
    if (b < p.blocks.size()) {
      const PostingBlock& k = p.blocks[b];
      PrefetchRead(k.docs.data() + k.docs.size() / 2);
    }
  }
}

void AddPosting(const IndexData& data, TermPostings& p, std::uint32_t doc, const std::uint32_t* tfs,
                const std::uint32_t* pos, std::uint32_t count) {
  const std::size_t nf = data.num_fields();
  const float t = WidenListBounds(data, p, doc, tfs);
  ++p.count;
  if (p.blocks.empty() || p.blocks.back().docs.back() < doc) {
    // Past the last posting: append, to a new block when the last is full.
    if (p.blocks.empty() || Full(p.blocks.back())) {
      PostingBlock next;
      if (!p.blocks.empty()) {
        // The term filled a block: size the next one like it at once rather
        // than growing it by doubling (appends are Put's common case).
        const PostingBlock& full = p.blocks.back();
        next.docs.reserve(TermPostings::kBlockPostings);
        next.tfs.reserve(TermPostings::kBlockPostings * nf);
        next.pos_start.reserve(TermPostings::kBlockPostings + 1);
        next.positions.reserve(full.positions.size() + count);
      }
      p.blocks.push_back(std::move(next));
      p.lasts.push_back(doc);
      p.block_max_t.push_back(0);
    }
    PostingBlock& k = p.blocks.back();
    p.block_max_t.back() = std::max(p.block_max_t.back(), t);
    p.lasts.back() = doc;
    k.docs.push_back(doc);
    k.tfs.insert(k.tfs.end(), tfs, tfs + nf);
    k.positions.insert(k.positions.end(), pos, pos + count);
    k.pos_start.push_back(static_cast<std::uint32_t>(k.positions.size()));
    return;
  }
  PostingAt at = p.LowerBound(doc);
  // Before the first posting of its block: the end of the previous block
  // takes it when that has room, which keeps blocks full.
  if (at.i == 0 && at.block > 0 && !Full(p.blocks[at.block - 1])) {
    --at.block;
    at.i = p.blocks[at.block].size();
  }
  PostingBlock& k = p.blocks[at.block];
  p.block_max_t[at.block] = std::max(p.block_max_t[at.block], t);
  const std::size_t i = at.i;
  const std::uint32_t start = k.pos_start[i];
  k.docs.insert(k.docs.begin() + static_cast<Diff>(i), doc);
  k.tfs.insert(k.tfs.begin() + static_cast<Diff>(i * nf), tfs, tfs + nf);
  k.positions.insert(k.positions.begin() + start, pos, pos + count);
  k.pos_start.insert(k.pos_start.begin() + static_cast<Diff>(i) + 1, start + count);
  for (std::size_t j = i + 2; j < k.pos_start.size(); ++j) k.pos_start[j] += count;
  p.lasts[at.block] = k.docs.back();
  if (k.size() > TermPostings::kBlockPostings ||
      (k.size() > 1 && k.positions.size() > TermPostings::kBlockPositions)) {
    PostingBlock right;
    MoveTail(k, k.size() / 2, right, nf);
    const auto b = static_cast<Diff>(at.block);
    p.lasts.insert(p.lasts.begin() + b, k.docs.back());  // the right half keeps the old last
    p.blocks.insert(p.blocks.begin() + b + 1, std::move(right));
    p.block_max_t.insert(p.block_max_t.begin() + b + 1, 0);
    ExactBlockBound(data, p, at.block);
    ExactBlockBound(data, p, at.block + 1);
  }
}

void RemovePosting(TermPostings& p, std::uint32_t doc, std::size_t nf) {
  const PostingAt at = p.LowerBound(doc);
  if (at.block == p.blocks.size() || p.doc(at) != doc) return;
  --p.count;
  PostingBlock& k = p.blocks[at.block];
  const std::size_t i = at.i;
  const std::uint32_t start = k.pos_start[i];
  const std::uint32_t count = k.pos_start[i + 1] - start;
  k.docs.erase(k.docs.begin() + static_cast<Diff>(i));
  k.tfs.erase(k.tfs.begin() + static_cast<Diff>(i * nf),
              k.tfs.begin() + static_cast<Diff>((i + 1) * nf));
  k.positions.erase(k.positions.begin() + start, k.positions.begin() + start + count);
  k.pos_start.erase(k.pos_start.begin() + static_cast<Diff>(i) + 1);
  for (std::size_t j = i + 1; j < k.pos_start.size(); ++j) k.pos_start[j] -= count;
  const auto b = static_cast<Diff>(at.block);
  if (k.size() == 0) {
    p.blocks.erase(p.blocks.begin() + b);
    p.lasts.erase(p.lasts.begin() + b);
    p.block_max_t.erase(p.block_max_t.begin() + b);
    return;
  }
  p.lasts[at.block] = k.docs.back();
  if (k.size() < TermPostings::kBlockPostings / 4) {
    // Merge with a neighbour when the two fit in one block.
    auto fits = [&](const PostingBlock& a, const PostingBlock& c) {
      return a.size() + c.size() <= TermPostings::kBlockPostings &&
             a.positions.size() + c.positions.size() <= TermPostings::kBlockPositions;
    };
    const std::size_t n = p.blocks.size();
    if (at.block + 1 < n && fits(k, p.blocks[at.block + 1])) {
      MoveTail(p.blocks[at.block + 1], 0, k, nf);
      p.block_max_t[at.block] = std::max(p.block_max_t[at.block], p.block_max_t[at.block + 1]);
      p.blocks.erase(p.blocks.begin() + b + 1);
      p.lasts.erase(p.lasts.begin() + b);  // k now ends where the next did
      p.block_max_t.erase(p.block_max_t.begin() + b + 1);
    } else if (at.block > 0 && fits(p.blocks[at.block - 1], k)) {
      MoveTail(k, 0, p.blocks[at.block - 1], nf);
      p.block_max_t[at.block - 1] = std::max(p.block_max_t[at.block - 1], p.block_max_t[at.block]);
      p.blocks.erase(p.blocks.begin() + b);
      p.lasts.erase(p.lasts.begin() + b - 1);  // the previous now ends where k did
      p.block_max_t.erase(p.block_max_t.begin() + b);
      return;
    }
  }
  ShrinkIfSparse(k);
}

double IndexData::avglen(std::size_t field) const {
  const std::uint64_t n = live.cardinality();
  return n == 0 ? 0.0 : static_cast<double>(total_len[field]) / static_cast<double>(n);
}

void ClearBounds(std::size_t num_fields, TermPostings& p) {
  p.max_tf.assign(num_fields, 0);
  p.min_len.assign(num_fields, 0);
  p.block_max_t.assign(p.blocks.size(), 0);
  p.max_t = 0;
  p.removed = 0;
}

void RecomputeBounds(const IndexData& data, TermPostings& p) {
  const std::size_t nf = data.num_fields();
  ClearBounds(nf, p);
  for (std::size_t b = 0; b < p.blocks.size(); ++b) {
    const PostingBlock& k = p.blocks[b];
    for (std::size_t i = 0; i < k.size(); ++i) {
      const std::uint32_t* tfs = k.tfs.data() + i * nf;
      WidenBounds(p.max_tf.data(), p.min_len.data(), tfs,
                  data.lengths.data() + static_cast<std::size_t>(k.docs[i]) * nf, nf);
      p.block_max_t[b] = std::max(p.block_max_t[b], data.BoundTf(k.docs[i], tfs));
    }
    p.max_t = std::max(p.max_t, p.block_max_t[b]);
  }
}

void SetBoundBase(IndexData& data) {
  data.bound_avglen.resize(data.num_fields());
  for (std::size_t f = 0; f < data.num_fields(); ++f) data.bound_avglen[f] = data.avglen(f);
}

void RebaseBounds(IndexData& data) {
  SetBoundBase(data);
  for (TermPostings& p : data.postings) {
    if (!p.empty()) RecomputeBounds(data, p);
  }
}

bool BoundsStale(const IndexData& data) {
  std::uint64_t tokens = 0;
  for (const std::uint64_t t : data.total_len) tokens += t;
  if (tokens > kRebaseTokens) return false;
  for (std::size_t f = 0; f < data.num_fields(); ++f) {
    const double avg = data.avglen(f), base = data.bound_avglen[f];
    if (base <= 0 ? avg > 0 : avg > base * kBoundSlack) return true;
  }
  return false;
}

}  // namespace engram::text
