// libFuzzer target for TextIndex::Load (src/text/index/load.cc). The
// image's trailing FNV-1a checksum is recomputed over the input first, so
// that mutations reach the structural checks instead of stopping at the
// checksum. Invariants: never crashes or leaks; Load allocates at most
// kPerByte bytes per input byte plus its documented (8F + 64) bytes per
// document number below kDocLimit (alloc_budget.h); a loaded index
// serialises back to the same bytes, loads again, answers queries with the
// pruned search equal to the oracle, and takes puts and removes (a number
// reused) after which it still equals an index built afresh.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "alloc_budget.h"
#include "base/bytes.h"
#include "text/index/text_index.h"

namespace {

constexpr std::uint32_t kDocLimit = 256;
// The worst real ratio: an image of one-letter terms, each in one document,
// takes 5 + F bytes per term and ~400 bytes of dictionary and posting block
// in memory. (A real index of text takes ~10x its image.)
constexpr std::size_t kPerByte = 128;
constexpr std::size_t kPerDoc = 8 * 256 + 64;  // F <= 256 fields
constexpr std::size_t kSlack = 256 * 1024;     // fixed costs: initial tables, scratch

void ExpectSameSearch(const engram::text::TextIndex& index, const engram::text::DefaultQuery& q) {
  for (std::size_t k : {std::size_t{1}, std::size_t{10}}) {
    auto got = index.Search(q, k), want = index.SearchExhaustive(q, k);
    if (got.size() != want.size()) std::abort();
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (got[i].doc != want[i].doc) std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using engram::text::DefaultQuery;
  using engram::text::Node;
  using engram::text::TextIndex;
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.size() >= 16) {
    const std::uint64_t h = engram::Fnv1a64(std::string_view(bytes).substr(0, bytes.size() - 8));
    for (int i = 0; i < 8; ++i) bytes[bytes.size() - 8 + i] = static_cast<char>(h >> (8 * i));
  }
  engram::StatusOr<TextIndex> loaded =
      engram::fuzz::LoadWithin(kPerByte * size + kPerDoc * kDocLimit + kSlack, "TextIndex::Load",
                               [&] { return TextIndex::Load(bytes, kDocLimit); });
  if (!loaded.ok()) return 0;
  TextIndex& index = *loaded;
  if (index.Serialize() != bytes) std::abort();
  if (!TextIndex::Load(bytes, kDocLimit).ok()) std::abort();
  if (index.size() > 0 && index.data().live.maximum() >= kDocLimit) std::abort();
  // Query with the index's own first and last terms (in text order).
  const std::vector<std::uint32_t> terms = index.data().TermsInTextOrder();
  if (!terms.empty()) {
    const std::string a = index.data().term_text[terms.front()];
    const std::string b = index.data().term_text[terms.back()];
    DefaultQuery q;
    q.root = Node::Group(Node::Kind::kOr, {Node::Term(a), Node::Phrase({a, b}),
                                           Node::Prefix(a.substr(0, 1)), Node::Not(Node::Term(b))});
    ExpectSameSearch(index, q);
  }
  // Writes on a loaded index: a new document under the number of a removed
  // one, and a replacement; then it must be the index built afresh.
  const std::uint32_t first = index.size() > 0 ? index.data().live.minimum() : 0;
  const std::uint32_t top = index.size() > 0 ? index.data().live.maximum() : 0;
  index.Remove(first);
  index.Put(first, {"fuzz one", "two"});
  index.Put(top, {"fuzz three"});
  engram::StatusOr<TextIndex> again = TextIndex::Load(index.Serialize(), kDocLimit);
  if (!again.ok() || again->Serialize() != index.Serialize()) std::abort();
  DefaultQuery fuzz;
  fuzz.root = Node::Term("fuzz");
  ExpectSameSearch(index, fuzz);
  return 0;
}
