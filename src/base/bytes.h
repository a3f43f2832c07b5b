// Little-endian byte images for the indexes' Serialize/Load: a writer, a
// bounds-checked reader that never reads past its input nor lets a count ask
// for more items than the input can hold, and the FNV-1a checksum the images
// end with.
#ifndef ENGRAM_BASE_BYTES_H_
#define ENGRAM_BASE_BYTES_H_

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace engram {

// FNV-1a, 64 bits (Fowler, Noll, Vo): a checksum against torn or corrupt
// images, not a defence against forgery.
inline std::uint64_t Fnv1a64(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

class ByteWriter {
 public:
  void Raw(const void* p, std::size_t n) { out.append(static_cast<const char*>(p), n); }
  void U8(std::uint8_t v) { Raw(&v, 1); }
  void Fixed(std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) U8(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void F64(double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, 8);
    Fixed(bits, 8);
  }
  // LEB128.
  void Var(std::uint64_t v) {
    for (; v >= 0x80; v >>= 7) U8(static_cast<std::uint8_t>(v | 0x80));
    U8(static_cast<std::uint8_t>(v));
  }
  void Str(std::string_view s) {
    Var(s.size());
    Raw(s.data(), s.size());
  }
  std::string out;
};

// Every read on a failed reader returns zero values; check ok() at the end
// (or wherever a value decides how much to read next).
class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}
  bool ok() const { return ok_; }
  // Whether every varint read so far had its shortest form (ByteWriter's):
  // with checks on everything else, a loader can tell that its input is the
  // one image its writer makes without writing it again.
  bool canonical() const { return canonical_; }
  std::size_t left() const { return in_.size() - at_; }
  bool Fail() { return ok_ = false; }
  std::uint64_t Fixed(int bytes) {
    if (left() < static_cast<std::size_t>(bytes)) return Fail(), 0;
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i)
      v |= std::uint64_t{static_cast<unsigned char>(in_[at_++])} << (8 * i);
    return v;
  }
  std::uint8_t U8() { return static_cast<std::uint8_t>(Fixed(1)); }
  double F64() {
    std::uint64_t bits = Fixed(8);
    double v;
    std::memcpy(&v, &bits, 8);
    return v;
  }
  // A LEB128 value, failing above `max`.
  std::uint64_t Var(std::uint64_t max = UINT32_MAX) {
    if (at_ < in_.size() && static_cast<unsigned char>(in_[at_]) < 0x80) {  // one byte
      const unsigned char c = static_cast<unsigned char>(in_[at_++]);
      if (c > max) return Fail(), 0;
      return c;
    }
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (left() == 0) return Fail(), 0;
      unsigned char c = static_cast<unsigned char>(in_[at_++]);
      if (shift == 63 && c > 1) return Fail(), 0;  // past 64 bits
      v |= std::uint64_t{c & 0x7fu} << shift;
      if ((c & 0x80) == 0) {
        if (v > max) return Fail(), 0;
        if (c == 0 && shift > 0) canonical_ = false;  // a redundant final group
        return v;
      }
    }
    return Fail(), 0;
  }
  // A count of items each taking at least `item_bytes` bytes: at most what is
  // left after the count itself (reading the varint consumes bytes too).
  std::size_t Count(std::size_t item_bytes = 1) {
    const std::uint64_t n = Var(left());
    if (item_bytes == 0 || n > left() / item_bytes) return Fail(), 0;
    return static_cast<std::size_t>(n);
  }
  std::string Str() { return std::string(View()); }
  // A length-prefixed byte string (as Str) without copying it: a view into
  // the input.
  std::string_view View() {
    std::size_t n = Count();
    if (!ok_) return {};
    std::string_view s = in_.substr(at_, n);
    at_ += n;
    return s;
  }
  // Copies n raw bytes into dst (zeroes on failure).
  void Raw(void* dst, std::size_t n) {
    if (left() < n) {
      Fail();
      std::memset(dst, 0, n);
      return;
    }
    std::memcpy(dst, in_.data() + at_, n);
    at_ += n;
  }

 private:
  std::string_view in_;
  std::size_t at_ = 0;
  bool ok_ = true;
  bool canonical_ = true;
};

// Checks the frame every index image has: 8 bytes of `magic`, a u32
// `version`, the body, then a u64 FNV-1a of everything before it. Returns
// why the image is refused (naming it `what`), or nullopt with *body set to
// a reader over the bytes between the version and the checksum.
inline std::optional<std::string> OpenImage(std::string_view bytes, const char (&magic)[8],
                                            std::uint32_t version, std::string_view what,
                                            ByteReader* body) {
  if (bytes.size() < 8 + 4 + 8 || std::memcmp(bytes.data(), magic, 8) != 0) {
    return "not a " + std::string(what) + " (bad magic or too short)";
  }
  ByteReader check(bytes.substr(bytes.size() - 8));
  if (check.Fixed(8) != Fnv1a64(bytes.substr(0, bytes.size() - 8))) {
    return "checksum mismatch (truncated or corrupt)";
  }
  ByteReader r(bytes.substr(8, bytes.size() - 16));
  if (r.Fixed(4) != version) return "unsupported version";
  *body = r;
  return std::nullopt;
}

}  // namespace engram

#endif  // ENGRAM_BASE_BYTES_H_
