#include "base/path.h"

#include <cstdio>
#include <string>

namespace engram {
namespace {

// A key prints bare when it is a plain name; anything else (empty, dots,
// brackets, spaces, quotes...) prints as ["quoted"] so the path stays
// unambiguous.
bool IsPlainKey(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '$' || static_cast<unsigned char>(c) >= 0x80;
    if (!ok) return false;
  }
  return true;
}

std::string QuotedKey(std::string_view key) {
  std::string out = "[\"";
  for (char c : key) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"]";
}

}  // namespace

Path Path::Key(std::string_view key) const {
  return Path(
      std::make_shared<const Node>(Node{node_, Segment{std::string(key), 0, false}, size() + 1}));
}

Path Path::Index(std::size_t index) const {
  return Path(std::make_shared<const Node>(Node{node_, Segment{{}, index, true}, size() + 1}));
}

Path Path::Parent() const {
  return node_ ? Path(node_->parent) : Path();
}

std::vector<Path::Segment> Path::segments() const {
  std::vector<Segment> out(size());
  std::size_t i = out.size();
  for (const Node* n = node_.get(); n != nullptr; n = n->parent.get()) out[--i] = n->segment;
  return out;
}

bool Path::operator==(const Path& other) const {
  const Node* a = node_.get();
  const Node* b = other.node_.get();
  if (size() != other.size()) return false;
  for (; a != b; a = a->parent.get(), b = b->parent.get()) {
    if (!(a->segment == b->segment)) return false;
  }
  return true;
}

std::string Path::Dotted(std::string_view root) const {
  if (empty()) return std::string(root);
  std::string out;
  for (const Segment& s : segments()) {
    if (s.is_index) {
      out += '[' + std::to_string(s.index) + ']';
    } else if (!IsPlainKey(s.key)) {
      out += QuotedKey(s.key);
    } else {
      if (!out.empty()) out += '.';
      out += s.key;
    }
  }
  return out;
}

std::string Path::JsonPath(std::string_view prefix) const {
  std::string out(prefix);
  for (const Segment& s : segments()) {
    if (s.is_index) {
      out += '[' + std::to_string(s.index) + ']';
    } else if (!IsPlainKey(s.key)) {
      out += QuotedKey(s.key);
    } else {
      out += '.';
      out += s.key;
    }
  }
  return out;
}

std::string Path::Pointer(std::string_view root) const {
  if (empty()) return std::string(root);
  std::string out;
  for (const Segment& s : segments()) {
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
