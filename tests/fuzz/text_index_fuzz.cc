// libFuzzer target for TextIndex::Load (src/text/index/serialize.cc). The
// image's trailing FNV-1a checksum is recomputed over the input first, so
// that mutations reach the structural checks instead of stopping at the
// checksum. Invariants: never crashes or leaks; a loaded index serialises
// back to the same bytes, loads again, and answers queries with the pruned
// search equal to the oracle.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "text/index/text_index.h"

namespace {

std::uint64_t Fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using engram::text::DefaultQuery;
  using engram::text::Node;
  using engram::text::TextIndex;
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.size() >= 16) {
    std::uint64_t h = Fnv1a(std::string_view(bytes).substr(0, bytes.size() - 8));
    for (int i = 0; i < 8; ++i) bytes[bytes.size() - 8 + i] = static_cast<char>(h >> (8 * i));
  }
  std::string error;
  std::optional<TextIndex> index = TextIndex::Load(bytes, &error);
  if (!index) {
    if (error.empty()) std::abort();
    return 0;
  }
  if (index->Serialize() != bytes) std::abort();
  if (!TextIndex::Load(bytes, nullptr)) std::abort();
  // Query with the index's own first terms.
  const auto& terms = index->data().terms;
  if (terms.empty()) return 0;
  std::string a = terms.begin()->first, b = terms.rbegin()->first;
  DefaultQuery q;
  q.root = Node::Group(Node::Kind::kOr, {Node::Term(a), Node::Phrase({a, b}),
                                         Node::Prefix(a.substr(0, 1)), Node::Not(Node::Term(b))});
  for (std::size_t k : {std::size_t{1}, std::size_t{10}}) {
    auto got = index->Search(q, k), want = index->SearchExhaustive(q, k);
    if (got.size() != want.size()) std::abort();
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (got[i].doc != want[i].doc) std::abort();
    }
  }
  TextIndex copy = std::move(*index);
  copy.Put(0, {"fuzz"});
  copy.Remove(0);
  return 0;
}
