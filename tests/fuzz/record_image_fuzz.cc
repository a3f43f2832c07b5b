// libFuzzer target for ReadRecordImage (src/engine/record_image.cc). The
// image's trailing FNV-1a checksum is recomputed over the input first, so
// that mutations reach the structural checks instead of stopping at the
// checksum. Invariants: never crashes or leaks; reading allocates at most
// kPerByte bytes per input byte; an image read back writes the same bytes
// (one image per set of records), its records ascending, below the limit,
// each value of its field's type.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "alloc_budget.h"
#include "base/bytes.h"
#include "engine/record_image.h"
#include "engine/test_record_image_schema.h"

namespace {

constexpr std::uint32_t kDocLimit = 1u << 20;
// A record takes at least 17 bytes here (number, id, six kinds, hash) and
// ~330 bytes in memory; an empty element of a set takes 1 byte and 32.
constexpr std::size_t kPerByte = 64;
constexpr std::size_t kSlack = 64 * 1024;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using engram::engine::ImagedRecord;
  static const std::shared_ptr<const engram::Schema> schema =
      engram::engine::RecordImageSeedSchema();
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.size() >= 16) {
    const std::uint64_t h = engram::Fnv1a64(std::string_view(bytes).substr(0, bytes.size() - 8));
    for (int i = 0; i < 8; ++i) bytes[bytes.size() - 8 + i] = static_cast<char>(h >> (8 * i));
  }
  engram::StatusOr<std::vector<ImagedRecord>> read = engram::fuzz::LoadWithin(
      kPerByte * size + kSlack, "ReadRecordImage",
      [&] { return engram::engine::ReadRecordImage(bytes, *schema, kDocLimit); });
  if (!read.ok()) return 0;
  engram::engine::RecordImageWriter again(*schema);
  for (std::size_t i = 0; i < read->size(); ++i) {
    const ImagedRecord& r = (*read)[i];
    if (r.doc >= kDocLimit || (i > 0 && r.doc <= (*read)[i - 1].doc)) std::abort();
    if (r.slots.size() != schema->fields().size()) std::abort();
    // The Value alternative of each field's type, in the seed schema's order.
    constexpr std::size_t kKinds[] = {4, 2, 3, 1, 5, 6};
    for (std::size_t f = 0; f < r.slots.size(); ++f) {
      const std::size_t kind = r.slots[f].index();
      if (kind != 0 && kind != kKinds[f]) std::abort();
    }
    again.Add(r.doc, r.id, r.slots, r.content_hash);
  }
  if (std::move(again).Finish() != bytes) std::abort();
  return 0;
}
