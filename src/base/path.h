// Path: where a value sits inside a JSON document (a sequence of object keys
// and array indices), and the three ways engram's dialects render it.
#ifndef ENGRAM_BASE_PATH_H_
#define ENGRAM_BASE_PATH_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace engram {

// Paths are immutable and share their prefixes: Key() and Index() cost one
// small allocation, whatever the depth, and copying a Path is cheap.
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
  // The path one level up (the root's parent is the root).
  Path Parent() const;

  bool empty() const { return node_ == nullptr; }
  std::size_t size() const { return node_ ? node_->depth : 0; }
  // The segments from the root down.
  std::vector<Segment> segments() const;
  bool operator==(const Path& other) const;

  // `args[1].rhs`; the empty path renders as `root`.
  std::string Dotted(std::string_view root = "<root>") const;
  // `$.filter.expr.args[1]`, with `prefix` as the root (`$.filter`).
  std::string JsonPath(std::string_view prefix) const;
  // RFC 6901 JSON Pointer (`/tags/$in/2`, `~` and `/` escaped); the empty
  // path renders as `root`.
  std::string Pointer(std::string_view root = "<root>") const;

 private:
  struct Node {
    std::shared_ptr<const Node> parent;
    Segment segment;
    std::size_t depth;
  };
  explicit Path(std::shared_ptr<const Node> node) : node_(std::move(node)) {}

  std::shared_ptr<const Node> node_;
};

}  // namespace engram

#endif  // ENGRAM_BASE_PATH_H_
