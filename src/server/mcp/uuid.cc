#include "server/mcp/uuid.h"

#include <cstdint>
#include <random>

namespace engram::server::mcp {

std::string NewUuidV4() {
  // One generator per thread, seeded from the OS: ids must not repeat across
  // processes writing the same store.
  thread_local std::mt19937_64 generator = [] {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device(), device(), device()};
    return std::mt19937_64(seed);
  }();
  std::uint64_t hi = generator();
  std::uint64_t lo = generator();
  hi = (hi & ~0xF000ULL) | 0x4000ULL;                         // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // variant 10
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (int i = 0; i < 32; ++i) {
    const std::uint64_t word = i < 16 ? hi : lo;
    const int shift = 60 - 4 * (i % 16);
    out.push_back(kHex[(word >> shift) & 0xF]);
    if (i == 7 || i == 11 || i == 15 || i == 19) out.push_back('-');
  }
  return out;
}

bool IsUuid(std::string_view text) {
  if (text.size() != 36) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
    } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
      return false;
    }
  }
  return true;
}

std::vector<std::string> UuidSpellings(std::string_view uuid) {
  std::string lower(uuid);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  }
  std::vector<std::string> out = {lower};
  if (lower != uuid) out.emplace_back(uuid);
  return out;
}

}  // namespace engram::server::mcp
