#include "storage/printable.h"

#include <string>
#include <string_view>

#include <fmt/format.h>

namespace engram::storage {

std::string Printable(std::string_view bytes) {
  constexpr std::size_t kMax = 80;
  std::string out;
  for (unsigned char c : bytes) {
    if (out.size() >= kMax) {
      out += "...";
      break;
    }
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  return out;
}

}  // namespace engram::storage
