// Path: where a value sits inside a JSON document (a sequence of object keys
// and array indices), and the three ways engram's dialects render it.
#ifndef ENGRAM_BASE_PATH_H_
#define ENGRAM_BASE_PATH_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace engram {

class Path {
 public:
  struct Segment {
    std::string key;        // object member name, when !is_index
    std::size_t index = 0;  // array position, when is_index
    bool is_index = false;
    bool operator==(const Segment&) const = default;
  };

  Path() = default;

  // Returns a new path one level deeper.
  Path Key(std::string_view key) const;
  Path Index(std::size_t index) const;

  bool empty() const { return segments_.empty(); }
  const std::vector<Segment>& segments() const { return segments_; }
  bool operator==(const Path&) const = default;

  // `args[1].rhs`; the empty path renders as `root`.
  std::string Dotted(std::string_view root = "<root>") const;
  // `$.filter.expr.args[1]`, with `prefix` as the root (`$.filter`).
  std::string JsonPath(std::string_view prefix) const;
  // RFC 6901 JSON Pointer (`/tags/$in/2`, `~` and `/` escaped); the empty
  // path renders as `root`.
  std::string Pointer(std::string_view root = "<root>") const;

 private:
  std::vector<Segment> segments_;
};

}  // namespace engram

#endif  // ENGRAM_BASE_PATH_H_
