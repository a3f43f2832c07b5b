// Collection's images: the capture a checkpoint stores, and records taken
// back from the records image when a collection is loaded.
#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <utility>

#include "base/status.h"
#include "engine/collection.h"
#include "engine/record_key.h"
#include "engine/version.h"

namespace engram::engine {

// The shared lock is held while the text index is copied (Freeze: flat
// copies of its arrays), not while it is serialised: the image is made from
// the copy after the lock is released, so a writer waits for the copy only.
// The copy is exactly the state at capture.seq (writers change the indexes
// under the exclusive lock), and so is the image made from it. The vector
// index is still serialised under the lock: its image is mostly the vectors'
// bytes as they are, which a copy would not make quicker. The records image
// is encoded after the lock is released, a chunk per hold (ImageRecords).
std::optional<Capture> Collection::Capture() const {
  engine::Capture capture;
  std::optional<text::FrozenTextIndex> frozen;
  {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    capture.changes = dirty_.load();
    if (capture.changes == 0) return std::nullopt;
    capture.seq = applied_seq_;
    if (text_) frozen = text_->Freeze();
    if (vectors_) capture.vectors = vectors_->Serialize();
  }
  capture.records = ImageRecords();
  if (frozen) capture.text = frozen->Serialize();
  return capture;
}

// In chunks, each under the shared lock: a writer waits for one chunk at
// most. The records changed between chunks are in the image as they were
// when their chunk was encoded, after the capture's sequence, which is
// what the image may hold (record_image.h): the store has them as newer.
std::string Collection::ImageRecords() const {
  constexpr std::size_t kChunk = 16384;  // records encoded per hold of the shared lock
  RecordImageWriter image(*row_schema_);
  std::uint64_t next = 0;  // the first record number not yet encoded
  bool done = false;
  while (!done) {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    const roaring::Roaring& live = metadata_.live();
    if (next > UINT32_MAX) break;
    auto it = live.begin();
    it.equalorlarger(static_cast<std::uint32_t>(next));
    std::size_t n = 0;
    for (; it != live.end() && n < kChunk; ++it, ++n) {
      const std::uint32_t doc = *it;
      const std::uint64_t hash = doc < content_hashes_.size() ? content_hashes_[doc] : 0;
      image.Add(doc, ids_[doc], *metadata_.Row(doc), hash);
      next = std::uint64_t{doc} + 1;
    }
    done = it == live.end();
  }
  return std::move(image).Finish();
}

StatusOr<std::optional<PreparedRecord>> Collection::FromImage(ImagedRecord r, std::string& body,
                                                              std::string_view vector_bytes,
                                                              std::string& stored_key) const {
  std::optional<PreparedRecord> none;
  if (r.slots.size() != row_schema_->fields().size()) return none;
  const bool key_matches = owner_slot_
                               ? IsOwnedKey(stored_key, OwnerOf(r.slots, *owner_slot_), r.id)
                               : stored_key == r.id;
  if (!key_matches) return none;
  PreparedRecord out;
  ASSIGN_OR_RETURN(out.vector, StoredVector(vector_bytes));
  // The body as Reload leaves it: without its version member, which
  // StoredBodyOf wrote last, and only when the record has a version.
  const Version version = VersionOf(r.slots);
  if (version.written_at || version.superseded_at) {
    if (!CutVersion(&body, version)) return none;
  } else if (body.find(kVersionMember) != std::string::npos) {
    return none;
  }
  out.body = std::move(body);
  out.key = std::move(stored_key);
  out.id = std::move(r.id);
  out.slots = std::move(r.slots);
  out.texts.resize(spec_.text.size());
  out.content_hash = r.content_hash;
  return std::optional<PreparedRecord>(std::move(out));
}

}  // namespace engram::engine
