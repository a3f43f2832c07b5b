#include "base/path.h"

#include <string>

namespace engram {

Path Path::Key(std::string_view key) const {
  Path p = *this;
  p.segments_.push_back(Segment{std::string(key), 0, false});
  return p;
}

Path Path::Index(std::size_t index) const {
  Path p = *this;
  p.segments_.push_back(Segment{{}, index, true});
  return p;
}

std::string Path::Dotted(std::string_view root) const {
  if (segments_.empty()) return std::string(root);
  std::string out;
  for (const Segment& s : segments_) {
    if (s.is_index) {
      out += '[' + std::to_string(s.index) + ']';
    } else {
      if (!out.empty()) out += '.';
      out += s.key;
    }
  }
  return out;
}

std::string Path::JsonPath(std::string_view prefix) const {
  std::string out(prefix);
  for (const Segment& s : segments_) {
    if (s.is_index) {
      out += '[' + std::to_string(s.index) + ']';
    } else {
      out += '.';
      out += s.key;
    }
  }
  return out;
}

std::string Path::Pointer(std::string_view root) const {
  if (segments_.empty()) return std::string(root);
  std::string out;
  for (const Segment& s : segments_) {
    out += '/';
    if (s.is_index) {
      out += std::to_string(s.index);
      continue;
    }
    for (char c : s.key) {
      if (c == '~') {
        out += "~0";
      } else if (c == '/') {
        out += "~1";
      } else {
        out += c;
      }
    }
  }
  return out;
}

}  // namespace engram
